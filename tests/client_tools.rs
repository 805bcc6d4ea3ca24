//! Client tools and tools added per session, with the real binaries and a
//! separate worker: a run that calls a client tool waits, holding no worker,
//! across SIGKILLs of every process, and goes on with the results the client
//! posts; a session's additions reach that session's runs only.

mod common;

use std::path::Path;
use std::time::Duration;

use common::Backend;
use common::{assert_dense, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

fn pick_color() -> Value {
    json!({"name": "pick_color", "description": "Ask the user to pick a color",
           "input_schema": {"type": "object", "properties": {"options": {"type": "array"}}}})
}

/// An agent whose first step calls the client tool `pick_color` and a
/// `bash` command that appends to `log.txt`, then answers.
fn client_agent() -> Value {
    let pick = json!({"name": "pick_color", "input": {"options": ["red", "blue"]}});
    let bash = json!({"name": "bash", "input": {"command": "echo ran >> log.txt"}});
    json!({"name": "asks", "tools": ["bash"], "client_tools": [pick_color()],
           "options": {"script": [{"tool_calls": [pick, bash]}, {"text": "painted"}]}})
}

fn log_lines(work: &Path) -> Vec<String> {
    std::fs::read_to_string(work.join("log.txt")).unwrap_or_default().lines().map(String::from).collect()
}

on_both_backends! {
async fn a_run_waits_for_its_clients_results_across_every_process_dying(backend: Backend) {
    let env = TestEnv::on(backend);
    let mut server = env.server(0);
    let mut worker = env.worker();
    let api = server.api();
    let agent = api.create_agent(client_agent()).await;
    let work = tempfile::tempdir().unwrap();
    let session = api.create_session(&agent, Some(work.path())).await;
    let (status, answer) = api.post(&format!("/sessions/{session}/message?wait=true"), json!({"message": "go"})).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "waiting", "{answer}");
    assert!(answer.get("approval").is_none(), "{answer}");
    let requested = &answer["tool_calls_requested"];
    let calls = requested["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "only the client's call waits: {answer}");
    assert_eq!(calls[0]["name"], "pick_color");
    assert_eq!(calls[0]["input"], json!({"options": ["red", "blue"]}));
    let call_id = calls[0]["call_id"].as_str().unwrap().to_string();
    let run_id = answer["run_id"].as_str().unwrap().to_string();
    assert_eq!(log_lines(work.path()), ["ran"], "the worker ran its own call before the run waited");
    let held = "SELECT COUNT(*) FROM runs WHERE worker_id IS NOT NULL OR status <> 'waiting'";
    assert_eq!(env.count(held, &[]).await, 0, "no worker holds the waiting run");

    worker.kill9();
    server.process.kill9();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    api.wait_waiting(&run_id, LIMIT).await;
    let post = |body: Value| {
        let api = api.clone();
        let path = format!("/runs/{run_id}/tool-results");
        async move { api.post(&path, body).await }
    };
    let (status, body) = post(json!({"results": [{"call_id": "call_9_9", "output": "x"}]})).await;
    assert_eq!(status, 422, "an unknown call_id: {body}");
    assert!(body["error"].as_str().unwrap().contains("call_9_9"), "{body}");
    let (status, body) = post(json!({"results": []})).await;
    assert_eq!(status, 422, "a missing call_id: {body}");
    let (status, body) = post(json!({"results": [{"call_id": call_id, "output": "blue"}, {"call_id": call_id, "output": "red"}]})).await;
    assert_eq!(status, 422, "a call answered twice: {body}");
    let (status, body) = api.post(&format!("/runs/{run_id}/approve"), json!({"decisions": []})).await;
    assert_eq!(status, 409, "it waits for results, not a decision: {body}");
    assert_eq!(api.run(&run_id).await["status"], "waiting", "refusals changed nothing");
    let (status, body) = post(json!({"results": [{"call_id": call_id, "output": "blue"}]})).await;
    assert_eq!(status, 202, "{body}");
    let (status, body) = post(json!({"results": [{"call_id": call_id, "output": "red"}]})).await;
    assert_eq!(status, 409, "a second answer: {body}");

    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["response"], "painted");
    assert_eq!(log_lines(work.path()), ["ran"], "the worker's own call ran once");
    let events = api.events(&run_id).await;
    assert_dense(&events);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let at = |kind: &str| kinds.iter().position(|k| *k == kind).unwrap_or_else(|| panic!("no {kind}: {kinds:?}"));
    assert!(at("tool_calls_requested") < at("tool_results_received"), "{kinds:?}");
    let result = events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == call_id.as_str()).unwrap();
    assert_eq!((result["output"].as_str(), result["is_error"].as_bool()), (Some("blue"), Some(false)), "{result}");
    let received = &events[at("tool_results_received")];
    assert_eq!(received["call_ids"], json!([call_id]), "{received}");
    let (_, session) = api.get(&format!("/sessions/{session}")).await;
    let history = session["history"].to_string();
    assert!(history.contains("\"blue\""), "the client's result is in the history: {history}");
}
}

on_both_backends! {
async fn a_sessions_tools_are_offered_to_its_runs_only(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let script = json!([{"tool_calls": [{"name": "pick_color", "input": {}}]}, {"text": "over"}]);
    let agent = api.create_agent(json!({"name": "plain", "tools": ["read"], "options": {"script": script}})).await;
    let with = api.create_session(&agent, None).await;
    let without = api.create_session(&agent, None).await;
    let (status, body) = api.put(&format!("/sessions/{with}"), json!({"client_tools": [pick_color()], "tools": ["glob"]})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["client_tools"][0]["name"], "pick_color", "{body}");

    let names = |tools: &Value| -> Vec<(String, String)> {
        tools["tools"].as_array().unwrap().iter().map(|t| (t["name"].as_str().unwrap().into(), t["source"].as_str().unwrap().into())).collect()
    };
    let (status, own) = api.get(&format!("/agents/{agent}/tools")).await;
    assert_eq!(status, 200, "{own}");
    assert_eq!(names(&own), [("read".into(), "builtin".into())]);
    assert!(own["tools"][0]["input_schema"]["properties"].get("path").is_some(), "{own}");
    assert_eq!(own["unavailable"], json!([]), "{own}");
    let (_, added) = api.get(&format!("/agents/{agent}/tools?session_id={with}")).await;
    let expected: Vec<(String, String)> = vec![
        ("read".into(), "builtin".into()), ("glob".into(), "builtin".into()), ("pick_color".into(), "client".into())];
    assert_eq!(names(&added), expected);
    let (_, other) = api.get(&format!("/agents/{agent}/tools?session_id={without}")).await;
    assert_eq!(names(&other), [("read".into(), "builtin".into())]);
    let (status, _) = api.get(&format!("/agents/{agent}/tools?session_id=nope")).await;
    assert_eq!(status, 404);

    // In the other session the same call is refused, as any ungranted call is.
    let (_, answer) = api.post(&format!("/sessions/{without}/message?wait=true"), json!({"message": "go"})).await;
    assert_eq!(answer["status"], "succeeded", "{answer}");
    let refused = &answer["tool_calls"][0];
    assert_eq!(refused["is_error"], true, "{answer}");
    assert!(refused["output"].as_str().unwrap().contains("not granted"), "{answer}");
    let (_, answer) = api.post(&format!("/sessions/{with}/message?wait=true"), json!({"message": "go"})).await;
    assert_eq!(answer["status"], "waiting", "{answer}");
    assert_eq!(answer["tool_calls_requested"]["calls"][0]["name"], "pick_color", "{answer}");

    // A refused addition changes nothing.
    let bad = json!({"client_tools": [{"name": "read", "input_schema": {"type": "object"}}]});
    let (status, body) = api.put(&format!("/sessions/{with}"), bad).await;
    assert_eq!(status, 400, "a client tool named like a built-in one: {body}");
    let (_, kept) = api.get(&format!("/sessions/{with}")).await;
    assert_eq!(kept["client_tools"][0]["name"], "pick_color", "{kept}");

    // The agent comes to declare the same tool: the session's messages are refused, not run.
    let (status, _) = api.put(&format!("/agents/{agent}"), json!({"client_tools": [pick_color()]})).await;
    assert_eq!(status, 200);
    let runs_before = env.count("SELECT COUNT(*) FROM runs", &[]).await;
    let (status, body) = api.post(&format!("/sessions/{with}/message"), json!({"message": "again"})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("twice"), "{body}");
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, runs_before, "nothing was written");
    let (status, _) = api.get(&format!("/agents/{agent}/tools?session_id={with}")).await;
    assert_eq!(status, 409);
}
}

on_both_backends! {
async fn declared_tools_are_checked_before_anything_is_written(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let refused = [
        json!({"name": "a", "client_tools": [{"name": "bash", "input_schema": {"type": "object"}}]}),
        json!({"name": "a", "client_tools": [pick_color(), pick_color()]}),
        json!({"name": "a", "client_tools": [{"name": "x y", "input_schema": {"type": "object"}}]}),
        json!({"name": "a", "client_tools": [{"name": "srv__t", "input_schema": {"type": "object"}}]}),
        json!({"name": "a", "client_tools": [{"name": "t", "input_schema": {"type": "string"}}]}),
        json!({"name": "a", "http_tools": [{"name": "h", "input_schema": {"type": "object"}, "url": "ftp://x.example/"}]}),
        json!({"name": "a", "approve_tools": ["pick_colour"], "client_tools": [pick_color()]}),
    ];
    for body in refused {
        let (status, answer) = api.post("/agents", body.clone()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
    let (status, answer) = api.post("/agents", json!({"name": "a", "client_tools": [{"name": "t"}]})).await;
    assert_eq!(status, 422, "a client tool without its schema: {answer}");
    assert_eq!(env.count("SELECT COUNT(*) FROM agents", &[]).await, 0, "nothing was written");
    let accepted = json!({"name": "a", "approve_tools": ["pick_color", "srv__*"], "client_tools": [pick_color()],
        "http_tools": [{"name": "lookup", "input_schema": {"type": "object"}, "url": "https://tools.example/lookup"}]});
    let (status, answer) = api.post("/agents", accepted).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["http_tools"][0]["url"], "https://tools.example/lookup", "{answer}");
}
}
