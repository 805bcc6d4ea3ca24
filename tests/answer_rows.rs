//! Where a run's answer is stored does not show in what it answers. A run
//! that ends appends its messages to its session's history in the same
//! write, and those messages spell its response and tool calls again; on
//! SQLite (one message a row) the run's row then says which history rows
//! hold them instead of a copy, and every read puts them back. Against a
//! real server and worker on each backend: two runs of tool calls read
//! back from `GET /runs/{id}`, the lists and the log alike, and still do
//! after a fork, a rewind and the session's deletion (which writes the
//! copies back first); a run cancelled before its calls ran (whose history
//! holds error results in their place) keeps its own copy.

mod common;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

fn write(path: &str, content: &str) -> Value {
    json!({"name": "write", "input": {"path": path, "content": content}})
}

/// The response and calls a run's log says it had, as `GET /runs/{id}`
/// lists them.
async fn told_by_log(api: &Api, run_id: &str) -> (Value, Value) {
    let events = api.events(run_id).await;
    let mut calls: Vec<Value> = Vec::new();
    for event in &events {
        match event["type"].as_str() {
            Some("tool_call") => calls.push(json!({"step": event["step"], "call_id": event["call_id"],
                "name": event["name"], "input": event["input"], "output": null, "is_error": null})),
            Some("tool_result") => {
                let call = calls.iter_mut().find(|c| c["call_id"] == event["call_id"]).expect("a result of a call");
                call["output"] = event["output"].clone();
                call["is_error"] = event["is_error"].clone();
            }
            _ => {}
        }
    }
    let done = events.last().expect("a log");
    (done["response"].clone(), Value::Array(calls))
}

/// A run's response and calls as `GET /runs/{id}` and the session's run
/// list answer them (asserted equal).
async fn answer_of(api: &Api, session: &str, run_id: &str) -> (Value, Value) {
    let run = api.run(run_id).await;
    let (status, list) = api.get(&format!("/runs?session_id={session}&limit=100")).await;
    assert_eq!(status, 200, "{list}");
    let listed = list["runs"].as_array().unwrap().iter().find(|r| r["id"] == run_id).expect("the run is listed");
    assert_eq!((&listed["response"], &listed["tool_calls"]), (&run["response"], &run["tool_calls"]));
    (run["response"].clone(), run["tool_calls"].clone())
}

/// How many of a session's runs have their answer in history rows.
async fn referenced(env: &TestEnv, session: &str) -> i64 {
    let sql =
        "SELECT COUNT(*) FROM runs WHERE session_id = $1 AND response IS NULL AND tool_calls LIKE '{\"history\":%'";
    env.count(sql, &[session]).await
}

on_both_backends! {
    async fn a_runs_answer_reads_the_same_through_fork_rewind_and_deletion(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let script = json!([
            {"tool_calls": [write("a.txt", "alpha"), write("b.txt", "beta")]},
            {"tool_calls": [write("c.txt", "gamma")]},
            {"text": "wrote three files"}
        ]);
        let agent = api.create_agent(json!({"name": "w", "tools": ["write"], "options": {"script": script}})).await;
        let work = tempfile::tempdir().unwrap();
        let session = api.create_session(&agent, Some(work.path())).await;
        let mut runs = Vec::new();
        for message in ["one", "two"] {
            let run_id = api.send(&session, message).await;
            assert_eq!(api.wait_terminal(&run_id, LIMIT).await["status"], "succeeded");
            let answer = answer_of(&api, &session, &run_id).await;
            assert_eq!(answer, told_by_log(&api, &run_id).await, "run {run_id}");
            assert_eq!(answer.0, "wrote three files");
            assert_eq!(answer.1.as_array().unwrap().len(), 3, "{:?}", answer.1);
            runs.push((run_id, answer));
        }
        let expected = if backend == Backend::Sqlite { 2 } else { 0 };
        assert_eq!(referenced(&env, &session).await, expected, "rows that name their history rows");

        let (status, fork) = api.post(&format!("/sessions/{session}/fork"), json!({"at": runs[0].0})).await;
        assert_eq!(status, 201, "{fork}");
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": runs[0].0})).await;
        assert!(status < 300, "{status} {body}");
        let third = api.send(&session, "three").await;
        assert_eq!(api.wait_terminal(&third, LIMIT).await["status"], "succeeded");
        runs.push((third.clone(), told_by_log(&api, &third).await));
        for (run_id, answer) in &runs {
            assert_eq!(&answer_of(&api, &session, run_id).await, answer, "run {run_id} after a fork and a rewind");
        }

        let (status, body) = api.request(reqwest::Method::DELETE, &format!("/sessions/{session}"), None).await;
        assert!(status < 300, "{status} {body}");
        assert_eq!(referenced(&env, &session).await, 0, "the deletion wrote the copies back");
        for (run_id, answer) in &runs {
            let run = api.run(run_id).await;
            assert_eq!(&(run["response"].clone(), run["tool_calls"].clone()), answer, "run {run_id} after its session");
        }
    }

    async fn a_run_whose_calls_never_ran_keeps_its_own_copy(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let agent = api.create_agent(json!({"name": "careful", "tools": ["write"], "approve_tools": ["write"],
            "options": {"script": [{"tool_calls": [write("a.txt", "alpha")]}, {"text": "done"}]}})).await;
        let work = tempfile::tempdir().unwrap();
        let session = api.create_session(&agent, Some(work.path())).await;
        let run_id = api.send(&session, "go").await;
        api.wait_waiting(&run_id, LIMIT).await;
        let (status, body) = api.post(&format!("/runs/{run_id}/cancel"), json!({})).await;
        assert!(status < 300, "{status} {body}");
        assert_eq!(api.wait_terminal(&run_id, LIMIT).await["status"], "cancelled");
        let (response, calls) = answer_of(&api, &session, &run_id).await;
        assert_eq!((response, calls.clone()), told_by_log(&api, &run_id).await);
        assert_eq!(calls[0]["output"], Value::Null, "the call never ran: {calls}");
        assert_eq!(referenced(&env, &session).await, 0);
        let (status, history) = api.get(&format!("/sessions/{session}")).await;
        assert_eq!(status, 200, "{history}");
        assert!(history.to_string().contains("tool call not run"), "its history says the call did not run: {history}");
    }
}
