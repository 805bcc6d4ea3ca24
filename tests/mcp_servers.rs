//! MCP servers' behaviour that a worker must survive, with a test server of
//! our own (tests/mcp_support/recorder.py) that records what it receives:
//! one connection for many runs, a cached tool list refreshed when the
//! server says it changed, a call in flight at a SIGKILL made again with
//! the same idempotency key (and the server dying with its worker), servers
//! that cannot start or die mid-run, and an expired HTTP session.

mod common;
mod mcp_support;

use std::time::{Duration, Instant};

use common::Backend;
use common::{assert_dense, running, TestEnv};
use mcp_support::Recorder;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(90);

fn call(name: &str, input: Value) -> Value {
    json!({"tool_calls": [{"name": name, "input": input}]})
}

fn results(events: &[Value]) -> Vec<(String, String, bool)> {
    events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| (e["name"].as_str().unwrap().into(), e["output"].as_str().unwrap().into(), e["is_error"] == true))
        .collect()
}

on_both_backends! {
async fn one_connection_serves_a_hundred_runs_and_the_list_is_refreshed_when_it_changes(backend: Backend) {
    let env = TestEnv::on(backend);
    let recorder = Recorder::new(env.path(), "rec");
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([call("rec__note", json!({"text": "x"})), {"text": "ok"}]);
    let agent = api.create_agent(json!({"name": "many", "mcp_servers": [recorder.stdio("rec", json!({}))],
                                        "options": {"script": script}})).await;
    let mut runs = Vec::new();
    for _ in 0..10 {
        let session = api.create_session(&agent, None).await;
        for _ in 0..10 {
            runs.push(api.send(&session, "go").await);
        }
    }
    for run in &runs {
        assert_eq!(api.wait_terminal(run, LIMIT).await["status"], "succeeded");
    }
    assert_eq!(recorder.count("call"), 100);
    assert_eq!(recorder.count("start"), 1, "one server process for every run");
    assert_eq!(recorder.count("initialize"), 1, "one initialization for every run");
    assert_eq!(recorder.count("list"), 1, "the list is cached");

    let script = json!([call("rec__grow", json!({})), call("rec__extra", json!({})), {"text": "grew"}]);
    let grower = api.create_agent(json!({"name": "grow", "mcp_servers": [recorder.stdio("rec", json!({}))],
                                         "options": {"script": script}})).await;
    let session = api.create_session(&grower, None).await;
    let run = api.send(&session, "go").await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    assert_eq!(recorder.count("initialize"), 1, "the same definition, the same connection");
    assert_eq!(recorder.count("list"), 2, "listed again once, after tools/list_changed");
    let outputs = results(&api.events(&run).await);
    assert_eq!(outputs[1], ("rec__extra".into(), "extra".into(), false), "{outputs:?}");
}
}

on_both_backends! {
async fn a_call_in_flight_at_a_sigkill_is_made_again_with_the_same_key(backend: Backend) {
    let env = TestEnv::on(backend);
    let recorder = Recorder::new(env.path(), "rec");
    let server = env.server(0);
    let mut worker = env.worker();
    let api = server.api();
    // Long enough that only the kernel's kill, not an EOF it never reads, ends it in time.
    let script = json!([call("rec__slow", json!({"seconds": 60})), {"text": "done"}]);
    let agent = api.create_agent(json!({"name": "slow", "mcp_servers": [recorder.stdio("rec", json!({}))],
                                        "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    let start = Instant::now();
    while recorder.count("call") == 0 {
        assert!(start.elapsed() < LIMIT, "the call never reached the server");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first_pid = recorder.records()[0]["pid"].as_i64().unwrap() as i32;
    worker.kill9();
    let start = Instant::now();
    while running(first_pid) {
        assert!(start.elapsed() < Duration::from_secs(10), "the stdio server outlived its SIGKILLed worker");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _worker = env.worker();
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    let calls: Vec<Value> = recorder.records().into_iter().filter(|r| r["event"] == "call").collect();
    assert_eq!(calls.len(), 2, "made once more after the crash: {calls:?}");
    let events = api.events(&run).await;
    assert_dense(&events);
    let call_id = events.iter().find(|e| e["type"] == "tool_call").unwrap()["call_id"].as_str().unwrap().to_string();
    let key = format!("{run}/{call_id}");
    for call in &calls {
        assert_eq!(call["meta"]["wingman/idempotency_key"], key.as_str(), "{call}");
        assert!(call["meta"].get("progressToken").is_some(), "a progress token: {call}");
    }
    let restarted = events.iter().any(|e| e["type"] == "step_restarted" && e["call_id"] == call_id.as_str());
    assert!(restarted, "the repeat is announced: {events:?}");
    assert_eq!(results(&events), [("rec__slow".into(), "done before".into(), false)], "the server knew the repeat");
}
}

on_both_backends! {
async fn servers_that_cannot_start_or_die_mid_run_leave_the_run_going(backend: Backend) {
    let env = TestEnv::on(backend);
    let recorder = Recorder::new(env.path(), "rec");
    let dead = env.path().join("dead");
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let gone = json!({"name": "gone", "command": env.path().join("no-such-server")});
    let rec = recorder.stdio("rec", json!({"DEAD_MARK": dead}));
    let script = json!([
        call("rec__note", json!({"text": "one"})),
        call("rec__die", json!({})),
        call("rec__note", json!({"text": "two"})),
        {"text": "carried on"}
    ]);
    let agent = api.create_agent(json!({"name": "shaky", "mcp_servers": [gone, rec], "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    assert_eq!(ended["response"], "carried on");
    let events = api.events(&run).await;
    let unavailable: Vec<(u64, String)> = events
        .iter()
        .filter(|e| e["type"] == "tool_source_unavailable")
        .map(|e| (e["step"].as_u64().unwrap(), e["server"].as_str().unwrap().to_string()))
        .collect();
    assert!(unavailable.contains(&(1, "gone".into())), "{unavailable:?}");
    assert!(unavailable.contains(&(3, "rec".into())), "the dead server is missing from the next step: {unavailable:?}");
    let why = events.iter().find(|e| e["type"] == "tool_source_unavailable" && e["server"] == "gone").unwrap();
    assert!(why["error"].as_str().unwrap().contains("could not start"), "{why}");
    let dead = events.iter().find(|e| e["type"] == "tool_source_unavailable" && e["server"] == "rec").unwrap();
    assert!(dead["error"].as_str().unwrap().contains("stays dead"), "its stderr says why: {dead}");
    let outputs = results(&events);
    assert_eq!(outputs[0], ("rec__note".into(), "noted: one".into(), false));
    assert!(outputs[1].2 && outputs[1].0 == "rec__die", "the call it died in is an error: {outputs:?}");
    assert!(outputs[2].2 && outputs[2].1.contains("unavailable"), "{outputs:?}");
}
}

on_both_backends! {
async fn an_expired_http_session_is_initialized_again(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    let recorder = Recorder::new(env.path(), "rec");
    let http = recorder.http();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([
        call("rec__note", json!({"text": "before"})),
        call("rec__expire", json!({})),
        call("rec__note", json!({"text": "after"})),
        {"text": "done"}
    ]);
    let rec = json!({"name": "rec", "url": http.url});
    let agent = api.create_agent(json!({"name": "web", "mcp_servers": [rec], "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let outputs = results(&api.events(&run).await);
    assert_eq!(outputs[2], ("rec__note".into(), "noted: after".into(), false), "{outputs:?}");
    assert!(recorder.count("expired_session") >= 1, "the old session was refused");
    assert_eq!(recorder.count("initialize"), 2, "initialized again, once");
}
}

on_both_backends! {
async fn a_private_address_is_refused_unless_the_operator_allows_it(backend: Backend) {
    let env = TestEnv::on(backend);
    let recorder = Recorder::new(env.path(), "rec");
    let http = recorder.http();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([call("rec__note", json!({"text": "x"})), {"text": "done"}]);
    let rec = json!({"name": "rec", "url": http.url});
    let agent = api.create_agent(json!({"name": "web", "mcp_servers": [rec], "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let events = api.events(&run).await;
    let why = events.iter().find(|e| e["type"] == "tool_source_unavailable").expect("refused");
    assert!(why["error"].as_str().unwrap().contains("--allow-tool-host"), "{why}");
    assert_eq!(recorder.count("initialize"), 0, "the server heard nothing");
}
}
