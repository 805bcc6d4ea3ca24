use chrono::Utc;
use serde_json::{json, Value};

use super::*;
use crate::domain::model::{Content, Message, Role, RunInput};

fn agent() -> Agent {
    let stored = json!({"id": "a", "name": "a", "provider": "scripted", "model": "echo", "tools": ["bash"],
        "max_steps": 50, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"});
    serde_json::from_value(stored).unwrap()
}

fn run(kind: RunKind, status: RunStatus) -> Run {
    let now = Utc::now();
    Run {
        id: "orig".into(),
        kind,
        status,
        attempt: 1,
        session_id: Some("s".into()),
        agent_id: "a".into(),
        fleet_run_id: None,
        task_index: None,
        parent_run_id: None,
        parent_call_id: None,
        formation_run_id: None,
        input: RunInput::new("do it", Default::default()),
        trace_id: None,
        response: None,
        usage: Usage::default(),
        steps: 0,
        tool_calls: Vec::new(),
        owner: "admin".into(),
        error: None,
        children_open: 0,
        created_at: now,
        started_at: None,
        finished_at: None,
        updated_at: now,
    }
}

fn inference(step: u32, calls: &[&str]) -> Checkpoint {
    let mut content = vec![Content::Text { text: format!("step {step}") }];
    for id in calls {
        content.push(Content::ToolUse { id: (*id).into(), name: "bash".into(), input: json!({"command": "true"}) });
    }
    let usage = Usage { input_tokens: step as u64, output_tokens: 1, ..Default::default() };
    let message = Message { role: Role::Assistant, content };
    Checkpoint { step, body: CheckpointBody::Inference { message, usage, stop_reason: "tool_use".into() } }
}

fn result(step: u32, id: &str, is_error: bool) -> Checkpoint {
    let body = CheckpointBody::ToolResult { call_id: id.into(), name: "bash".into(), output: "out".into(), is_error };
    Checkpoint { step, body }
}

/// Steps 1-3 whole (step 3's call failed, which is a result like any
/// other); step 4 asked for two calls and got one result before it failed.
fn checkpoints() -> Vec<Checkpoint> {
    vec![
        inference(1, &["c1"]),
        result(1, "c1", false),
        inference(2, &["c2"]),
        result(2, "c2", false),
        inference(3, &["c3"]),
        result(3, "c3", true),
        inference(4, &["c4", "c5"]),
        result(4, "c4", false),
        Checkpoint {
            step: 5,
            body: CheckpointBody::ProviderError { attempt: 1, message: "500".into(), overflow: false, window: None },
        },
    ]
}

#[test]
fn the_whole_steps_are_those_whose_calls_all_have_answers() {
    assert_eq!(whole_steps(&checkpoints(), &agent()), 3);
    assert_eq!(whole_steps(&[], &agent()), 0);
    assert_eq!(whole_steps(&checkpoints()[..1], &agent()), 0, "a call without its result");
}

#[test]
fn a_retry_reuses_every_whole_step_by_default_and_fewer_when_asked() {
    let failed = run(RunKind::Message, RunStatus::Failed);
    let all = plan(&failed, &checkpoints(), &agent(), None).unwrap();
    assert_eq!(all.from_step, 4);
    assert_eq!(all.checkpoints, checkpoints()[..6].to_vec(), "steps 1-3, nothing of step 4 or the provider's error");
    let events: Vec<Value> = all.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    assert_eq!(events.len(), 3);
    assert_eq!(
        events[2],
        json!({"type": "step_reused", "step": 3, "from_run_id": "orig",
            "usage": {"input_tokens": 3, "output_tokens": 1},
            "tool_calls": [{"call_id": "c3", "name": "bash", "is_error": true}]})
    );
    let two = plan(&failed, &checkpoints(), &agent(), Some(2)).unwrap();
    assert_eq!((two.from_step, two.checkpoints.len(), two.events.len()), (2, 2, 1));
    let none = plan(&failed, &checkpoints(), &agent(), Some(1)).unwrap();
    assert!(none.checkpoints.is_empty() && none.events.is_empty());
}

#[test]
fn a_step_that_is_not_whole_or_a_run_that_succeeded_is_refused() {
    let failed = run(RunKind::Message, RunStatus::Failed);
    for step in [0, 5, 9] {
        let refused = plan(&failed, &checkpoints(), &agent(), Some(step)).unwrap_err();
        assert!(matches!(&refused, RetryRefusal::BadStep(m) if m.contains("step 1 to 4")), "{refused}");
    }
    for status in [RunStatus::Succeeded, RunStatus::Queued, RunStatus::Running, RunStatus::Waiting] {
        let refused = plan(&run(RunKind::Message, status), &[], &agent(), None).unwrap_err();
        assert!(matches!(refused, RetryRefusal::Conflict(_)), "{status:?}");
    }
    for kind in [RunKind::FleetTask, RunKind::Compaction, RunKind::Subagent, RunKind::FormationNode] {
        let refused = plan(&run(kind, RunStatus::Failed), &[], &agent(), None).unwrap_err();
        assert!(matches!(&refused, RetryRefusal::Conflict(m) if m.contains("only a session's message")), "{kind:?}");
    }
    for status in [RunStatus::Cancelled, RunStatus::Interrupted] {
        assert!(plan(&run(RunKind::Message, status), &checkpoints(), &agent(), None).is_ok());
    }
}
