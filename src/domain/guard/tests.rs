use serde_json::json;

use super::*;
use crate::domain::approval::{Decision, Outcome};
use crate::domain::checkpoint::{next_action, NextAction};
use crate::domain::model::{Content, Message, Role, RunStatus, Usage};

fn agent(approve_tools: &[&str], guards: Guards) -> Agent {
    let stored = json!({"id": "a", "name": "a", "provider": "scripted", "model": "echo", "tools": ["bash"],
        "max_steps": 50, "approve_tools": approve_tools,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"});
    Agent { guards, ..serde_json::from_value(stored).unwrap() }
}

/// Step `step`'s answer: one bash call per command, IDs `c<step>_<i>`.
fn asks(step: u32, commands: &[&str], cost_usd: Option<f64>) -> Checkpoint {
    let content = commands
        .iter()
        .enumerate()
        .map(|(i, c)| Content::ToolUse {
            id: format!("c{step}_{i}"),
            name: "bash".into(),
            input: json!({"command": c}),
        })
        .collect();
    let usage = Usage { input_tokens: 100, output_tokens: 10, cost_usd, ..Default::default() };
    let message = Message { role: Role::Assistant, content };
    Checkpoint { step, body: CheckpointBody::Inference { message, usage, stop_reason: "tool_use".into() } }
}

fn ran(step: u32, i: usize) -> Checkpoint {
    let body = CheckpointBody::ToolResult {
        call_id: format!("c{step}_{i}"),
        name: "bash".into(),
        output: "ok".into(),
        is_error: false,
    };
    Checkpoint { step, body }
}

#[test]
fn stored_agents_without_guards_get_the_defaults() {
    let a = agent(&[], Guards::default());
    let json = serde_json::to_value(&a).unwrap();
    assert_eq!(json["max_step_output_bytes"], 1_048_576, "the fields sit beside max_steps: {json}");
    assert_eq!((json["step_timeout_secs"].as_u64(), json["loop_guard"].as_u64()), (Some(900), Some(3)));
    assert!(json["max_cost_usd"].is_null() && json["max_total_tokens"].is_null());
    let mut old = json.clone();
    for field in ["max_step_output_bytes", "step_timeout_secs", "max_cost_usd", "max_total_tokens", "loop_guard"] {
        old.as_object_mut().unwrap().remove(field);
    }
    assert_eq!(serde_json::from_value::<Agent>(old.clone()).unwrap().guards, Guards::default());
    old["max_cost_usd"] = json!(2);
    old["loop_guard"] = json!(0);
    let set = serde_json::from_value::<Agent>(old).unwrap().guards;
    assert_eq!((set.max_cost_usd, set.loop_guard), (Some(2.0), 0), "a whole number of dollars reads as one");
}

#[test]
fn the_checks_name_the_field_and_its_range() {
    assert!(Guards::default().check().is_ok());
    let cases = [
        (Guards { max_step_output_bytes: 0, ..Guards::default() }, "max_step_output_bytes"),
        (Guards { step_timeout_secs: 0, ..Guards::default() }, "step_timeout_secs"),
        (Guards { max_cost_usd: Some(0.0), ..Guards::default() }, "max_cost_usd"),
        (Guards { max_cost_usd: Some(f64::INFINITY), ..Guards::default() }, "max_cost_usd"),
        (Guards { max_total_tokens: Some(0), ..Guards::default() }, "max_total_tokens"),
        (Guards { loop_guard: 1, ..Guards::default() }, "loop_guard"),
        (Guards { loop_guard: 101, ..Guards::default() }, "loop_guard"),
    ];
    for (guards, field) in cases {
        let error = guards.check().unwrap_err();
        assert!(error.starts_with(field), "{error}");
    }
    assert!(Guards { loop_guard: 0, max_cost_usd: Some(0.01), ..Guards::default() }.check().is_ok());
}

#[test]
fn repeats_count_identical_calls_in_a_row_across_steps() {
    let cps = vec![asks(1, &["ls", "ls"], None), asks(2, &["ls"], None), asks(3, &["pwd", "ls"], None)];
    assert_eq!(repeats(&cps, 1, "c1_0"), 1);
    assert_eq!(repeats(&cps, 1, "c1_1"), 2);
    assert_eq!(repeats(&cps, 2, "c2_0"), 3);
    assert_eq!(repeats(&cps, 3, "c3_0"), 1, "another input breaks the streak");
    assert_eq!(repeats(&cps, 3, "c3_1"), 1);
    assert_eq!(repeats(&cps, 3, "nope"), 0);
}

#[test]
fn the_verdict_asks_a_person_or_refuses_then_fails() {
    assert_eq!(verdict(3, false, 2), Verdict::Run);
    assert_eq!(verdict(3, false, 3), Verdict::Refuse);
    assert_eq!(verdict(3, false, 4), Verdict::Fail);
    assert_eq!(verdict(3, true, 3), Verdict::AskPerson);
    assert_eq!(verdict(3, true, 9), Verdict::AskPerson);
    assert_eq!(verdict(0, false, 50), Verdict::Run, "0 turns the guard off");
}

#[test]
fn without_a_person_the_third_call_is_refused_and_the_fourth_fails_the_run() {
    let a = agent(&[], Guards::default());
    let mut cps = vec![asks(1, &["ls"], None), ran(1, 0), asks(2, &["ls"], None), ran(2, 0)];
    cps.push(asks(3, &["ls"], None));
    match next_action(&cps, &a) {
        NextAction::RunTools { step: 3, calls } => match &calls[..] {
            [Outcome::Answer { output, is_error: true, .. }] => {
                assert!(output.contains("repeating yourself"), "{output}")
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    cps.push(ran(3, 0));
    cps.push(asks(4, &["ls"], None));
    assert_eq!(next_action(&cps, &a), NextAction::LoopDetected { step: 4, name: "bash".into(), repeats: 4 });
    let off = agent(&[], Guards { loop_guard: 0, ..Guards::default() });
    assert!(matches!(next_action(&cps, &off), NextAction::RunTools { step: 4, .. }));
}

#[test]
fn with_a_person_a_repeated_call_waits_for_a_decision() {
    let a = agent(&["write"], Guards::default());
    let mut cps = vec![asks(1, &["ls"], None), ran(1, 0), asks(2, &["ls"], None), ran(2, 0)];
    cps.push(asks(3, &["ls"], None));
    match next_action(&cps, &a) {
        NextAction::AwaitApproval { step: 3, calls, repeated } => {
            assert_eq!((calls.len(), repeated), (1, vec!["c3_0".to_string()]));
        }
        other => panic!("{other:?}"),
    }
    let decided =
        Checkpoint { step: 3, body: CheckpointBody::Decision { call_id: "c3_0".into(), decision: Decision::Approve } };
    cps.push(decided);
    assert!(
        matches!(next_action(&cps, &a), NextAction::RunTools { step: 3, calls } if matches!(calls[0], Outcome::Run(_)))
    );
}

#[test]
fn the_budget_is_the_lower_of_the_agents_and_the_messages() {
    let a = agent(&[], Guards { max_cost_usd: Some(1.0), max_total_tokens: Some(500), ..Guards::default() });
    let mut input = RunInput::new("m", Default::default());
    assert_eq!(Budget::of(&a, &input).max_cost_usd, Some(1.0));
    input.max_cost_usd = Some(0.25);
    assert_eq!(Budget::of(&a, &input), Budget { max_cost_usd: Some(0.25), max_total_tokens: Some(500) });
    let unlimited = agent(&[], Guards::default());
    assert_eq!(Budget::of(&unlimited, &input).max_cost_usd, Some(0.25));
}

#[test]
fn spending_crosses_the_budget_at_the_step_that_reaches_it() {
    let a = agent(&[], Guards { max_cost_usd: Some(0.05), ..Guards::default() });
    let input = RunInput::new("m", Default::default());
    let mut cps = vec![asks(1, &["a"], Some(0.021)), ran(1, 0), asks(2, &["b"], Some(0.021))];
    assert_eq!(over_budget(&cps, &a, &input), None);
    cps.push(asks(3, &["c"], Some(0.021)));
    let exhausted = over_budget(&cps, &a, &input).unwrap();
    assert!(matches!(exhausted, Exhausted::Cost { limit_usd, .. } if limit_usd == 0.05));
    assert_eq!(exhausted.error(), "budget exhausted: spent $0.063 of $0.05");
    // An unpriced model spends no dollars; its tokens count when a token limit is set.
    let tokens = agent(&[], Guards { max_cost_usd: Some(0.05), max_total_tokens: Some(300), ..Guards::default() });
    let unpriced = vec![asks(1, &["a"], None), asks(2, &["b"], None)];
    assert_eq!(over_budget(&unpriced, &tokens, &input), None);
    let unpriced = vec![asks(1, &["a"], None), asks(2, &["b"], None), asks(3, &["c"], None)];
    let exhausted = over_budget(&unpriced, &tokens, &input).unwrap();
    assert_eq!(exhausted, Exhausted::Tokens { spent_tokens: 330, limit_tokens: 300 });
    assert_eq!(exhausted.error(), "budget exhausted: spent 330 tokens of 300 (max_total_tokens)");
}

fn asks_subagents(step: u32, calls: &[(&str, &str)]) -> Checkpoint {
    let content = calls
        .iter()
        .map(|(id, name)| Content::ToolUse { id: id.to_string(), name: name.to_string(), input: json!({"task": "t"}) })
        .collect();
    let message = Message { role: Role::Assistant, content };
    Checkpoint {
        step,
        body: CheckpointBody::Inference { message, usage: Usage::default(), stop_reason: "tool_use".into() },
    }
}

#[test]
fn a_step_starts_its_children_then_waits_for_them_and_pays_for_them() {
    let mut a = agent(&[], Guards::default());
    a.subagents = ["writer", "critic"]
        .iter()
        .map(|n| serde_json::from_value(json!({"agent_id": format!("id-{n}"), "name": n})).unwrap())
        .collect();
    let mut cps = vec![asks_subagents(1, &[("c1", "agent__writer"), ("c2", "agent__critic")])];
    assert!(matches!(next_action(&cps, &a), NextAction::StartChildren { step: 1, calls } if calls.len() == 2));
    for (call_id, run_id) in [("c1", "R1"), ("c2", "R2")] {
        let body = CheckpointBody::Child { call_id: call_id.into(), run_id: run_id.into(), agent_id: "x".into() };
        cps.push(Checkpoint { step: 1, body });
    }
    assert_eq!(next_action(&cps, &a), NextAction::AwaitChildren { step: 1 });
    for call_id in ["c1", "c2"] {
        let output = format!("{call_id} done");
        let body = CheckpointBody::ToolResult {
            call_id: call_id.into(),
            name: "agent__writer".into(),
            output,
            is_error: false,
        };
        cps.push(Checkpoint { step: 1, body });
        let body = CheckpointBody::ChildEnded {
            call_id: call_id.into(),
            run_id: "R".into(),
            status: RunStatus::Succeeded,
            spent_usd: 0.25,
            spent_tokens: 100,
        };
        cps.push(Checkpoint { step: 1, body });
    }
    assert_eq!(next_action(&cps, &a), NextAction::Infer { step: 2 });
    assert_eq!(Spent::of(&cps), Spent { usd: 0.5, tokens: 200 }, "the children's spending is the parent's");
}
