use serde_json::json;

use super::*;
use crate::domain::guard::Guards;

fn agent(subagents: &[&str], guards: Guards) -> Agent {
    let subagents: Vec<Value> = subagents.iter().map(|n| json!({"agent_id": format!("id-{n}"), "name": n})).collect();
    let stored = json!({"id": "a", "name": "a", "provider": "scripted", "model": "echo", "tools": ["bash"],
        "max_steps": 50, "subagents": subagents,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"});
    Agent { guards, ..serde_json::from_value(stored).unwrap() }
}

fn call(id: &str, name: &str, input: Value) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), input }
}

fn parent<'a>(agent: &'a Agent, input: &'a RunInput, spent: Spent) -> Parent<'a> {
    Parent { run_id: "P", agent, input, spent }
}

#[test]
fn each_valid_call_starts_a_child_one_level_deeper_with_an_equal_share_of_the_budget() {
    let a = agent(&["writer", "critic"], Guards { max_cost_usd: Some(1.0), ..Guards::default() });
    let input = RunInput::new("m", Default::default());
    let calls = [
        call("c1", "agent__writer", json!({"task": "write", "data": {"n": 1}})),
        call("c2", "agent__critic", json!({"task": "judge"})),
    ];
    let starts = plan(parent(&a, &input, Spent { usd: 0.2, tokens: 0 }), 4, &calls, |_| true);
    let children: Vec<_> = starts
        .iter()
        .map(|s| match s {
            Start::Child { agent_id, input, .. } => (agent_id.as_str(), input),
            Start::Refused { output, .. } => panic!("refused: {output}"),
        })
        .collect();
    assert_eq!(children[0].0, "id-writer");
    assert_eq!(children[0].1.message, "write");
    assert_eq!(children[0].1.data, Some(json!({"n": 1})));
    let share = children[0].1.max_cost_usd.unwrap();
    assert!((share - 0.4).abs() < 1e-9, "what is left (0.8) split in two: {share}");
    let parent_call = children[1].1.parent.as_ref().unwrap();
    assert_eq!(
        parent_call,
        &ParentCall {
            run_id: "P".into(),
            call_id: "c2".into(),
            step: 4,
            tool: "agent__critic".into(),
            depth: 1,
            max_depth: DEFAULT_MAX_DEPTH
        }
    );
}

#[test]
fn a_call_past_max_depth_an_unknown_agent_or_a_bad_input_is_refused() {
    let a = agent(&["writer"], Guards::default());
    let deep = RunInput {
        parent: Some(ParentCall {
            run_id: "G".into(),
            call_id: "x".into(),
            step: 1,
            tool: "agent__a".into(),
            depth: 3,
            max_depth: 3,
        }),
        ..RunInput::new("", Default::default())
    };
    let refused = |starts: Vec<Start>| match &starts[0] {
        Start::Refused { output, .. } => output.clone(),
        Start::Child { .. } => panic!("started"),
    };
    let calls = [call("c1", "agent__writer", json!({"task": "t"}))];
    let output = refused(plan(parent(&a, &deep, Spent::default()), 1, &calls, |_| true));
    assert!(output.contains("max_depth reached"), "{output}");
    let top = RunInput::new("", Default::default());
    let output = refused(plan(parent(&a, &top, Spent::default()), 1, &calls, |_| false));
    assert!(output.contains("no longer exists"), "{output}");
    let bad = [call("c1", "agent__writer", json!({"task": ""}))];
    let output = refused(plan(parent(&a, &top, Spent::default()), 1, &bad, |_| true));
    assert!(output.contains("\"task\" must be a non-empty string"), "{output}");
    // A child of depth 2 under a tree that allows 3 may still start one.
    let middle = RunInput {
        parent: Some(ParentCall { depth: 2, ..deep.parent.clone().unwrap() }),
        ..RunInput::new("", Default::default())
    };
    let starts = plan(parent(&a, &middle, Spent::default()), 1, &calls, |_| true);
    assert!(matches!(&starts[0], Start::Child { input, .. } if input.parent.as_ref().unwrap().depth == 3));
}

#[test]
fn a_task_is_an_object_with_a_task_and_perhaps_data() {
    assert_eq!(task_of(&json!({"task": "go"})), Ok(Task { task: "go".into(), data: None }));
    assert!(task_of(&json!("go")).unwrap_err().contains("must be an object"));
    assert!(task_of(&json!({"task": "go", "extra": 1})).unwrap_err().contains("unknown input field \"extra\""));
    assert!(task_of(&json!({"task": "go", "data": [1]})).unwrap_err().contains("\"data\" must be an object"));
    assert!(task_of(&json!({"task": 3})).is_err());
}

#[test]
fn names_are_checked_and_filled_from_the_agent() {
    let mut a = agent(&["writer"], Guards::default());
    assert_eq!(check(&a), Ok(()));
    a.subagents.push(a.subagents[0].clone());
    assert!(check(&a).unwrap_err().contains("declared twice"));
    a.subagents.pop();
    a.max_depth = 0;
    assert!(check(&a).unwrap_err().contains("max_depth"));
    let mut sub = Subagent { agent_id: "x".into(), name: String::new(), description: String::new() };
    assert!(fill_name(&mut sub, "has spaces").unwrap_err().contains("give the sub-agent a \"name\""));
    fill_name(&mut sub, "researcher").unwrap();
    assert_eq!(sub.name, "researcher");
    assert!(check_name("a__b").is_err() && check_name(&"n".repeat(MAX_NAME_LEN + 1)).is_err());
}
