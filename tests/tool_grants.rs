//! A worker runs only the tools the run's agent was given, whatever the model
//! answers: a call to any other tool gets an error result that says why, is
//! in the events, and never runs. Real server and worker processes; the
//! OpenAI-compatible case replays a real capture from a local server.

mod common;
mod providers_support;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, TestEnv};
use providers_support::{fixture, openai_text, retool, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

on_both_backends! {
async fn an_agent_without_tools_runs_none_of_the_calls_its_script_asks_for(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = env.path().join("work");
    let script = json!([
        {"tool_calls": [{"name": "bash", "input": {"command": "echo ran > ran.txt"}}]},
        {"tool_calls": [{"name": "write", "input": {"path": "written.txt", "content": "x"}},
                        {"name": "no_such_tool", "input": {}}]},
        {"text": "I could not use any tool."}
    ]);
    let agent = api.create_agent(json!({"name": "toolless", "tools": [], "options": {"script": script}})).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "try the tools").await;
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "the model sees the refusals and answers: {finished}");
    assert!(!work.join("ran.txt").exists() && !work.join("written.txt").exists(), "nothing ran");

    let events = api.events(&run).await;
    assert_dense(&events);
    let calls: Vec<&str> = of_type(&events, "tool_call").iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(calls, ["bash", "write", "no_such_tool"], "what the model asked for is recorded");
    let results = of_type(&events, "tool_result");
    assert_eq!(results.len(), 3);
    for (result, name) in results.iter().zip(["bash", "write", "no_such_tool"]) {
        assert_eq!(result["is_error"], true, "{result}");
        let output = result["output"].as_str().unwrap();
        assert_eq!(
            output,
            format!("tool \"{name}\" is not granted to this agent (its tools: none); the call was not run")
        );
    }
    // The history stays valid: every tool_use has its (error) tool_result.
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    let kinds: Vec<(&str, &str)> = body["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"][0]["type"].as_str().unwrap()))
        .collect();
    let results = ("user", "tool_result");
    assert_eq!(
        kinds,
        [
            ("user", "text"),
            ("assistant", "tool_use"),
            results,
            ("assistant", "tool_use"),
            results,
            ("assistant", "text")
        ]
    );
}
}

on_both_backends! {
async fn a_granted_tool_still_runs_beside_a_refused_one(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = env.path().join("work");
    let script = json!([
        {"tool_calls": [{"name": "write", "input": {"path": "allowed.txt", "content": "ok"}},
                        {"name": "bash", "input": {"command": "echo ran > ran.txt"}}]},
        {"text": "done"}
    ]);
    let agent = api.create_agent(json!({"name": "writer", "tools": ["write"], "options": {"script": script}})).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    assert_eq!(std::fs::read_to_string(work.join("allowed.txt")).unwrap(), "ok");
    assert!(!work.join("ran.txt").exists());
    let events = api.events(&run).await;
    let results = of_type(&events, "tool_result");
    assert_eq!((&results[0]["name"], &results[0]["is_error"]), (&json!("write"), &json!(false)));
    assert_eq!((&results[1]["name"], &results[1]["is_error"]), (&json!("bash"), &json!(true)));
    assert!(results[1]["output"].as_str().unwrap().contains("its tools: write"), "{}", results[1]);
}
}

on_both_backends! {
async fn an_openai_compatible_endpoint_cannot_make_the_worker_run_an_ungranted_tool(backend: Backend) {
    const CALL_ID: &str = "call_CTf1nWJLqSeRgDqaCG27xZ74";
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = env.path().join("work");
    // Whoever controls the endpoint answers with bash; the agent was offered only read.
    let command = json!({"command": "echo ran > ran.txt"});
    let bash_call = retool(&fixture("openai_stream_tool_calls.sse"), "get_weather", "bash", "arguments", &command);
    let replay = MockServer::start(vec![
        Reply::sse(bash_call),
        Reply::sse(openai_text("I was not allowed to run that.", 60, 8)),
    ])
    .await;
    let (status, body) = api
        .put("/provider/auth", json!({"providers": {"openai": {"type": "api_key", "key": "sk-grants-0123456789"}}}))
        .await;
    assert_eq!(status, 200, "{body}");
    let agent = api
        .create_agent(json!({"name": "reader", "provider": "openai", "model": "gpt-4o-2024-08-06", "tools": ["read"],
                             "options": {"base_url": format!("{}/v1", replay.url)}}))
        .await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "what is the weather?").await;
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    assert!(!work.join("ran.txt").exists(), "the endpoint's bash call ran");

    let events = api.events(&run).await;
    let result = of_type(&events, "tool_result")[0].clone();
    assert_eq!(
        (&result["call_id"], &result["name"], &result["is_error"]),
        (&json!(CALL_ID), &json!("bash"), &json!(true))
    );
    let requests = replay.requests();
    let offered: Vec<&str> =
        requests[0].body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(offered, ["read"]);
    // The refusal is what the model is told next.
    let told = requests[1].body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((&told["role"], &told["tool_call_id"]), (&json!("tool"), &json!(CALL_ID)));
    assert!(told["content"].as_str().unwrap().contains("\"bash\" is not granted"), "{told}");
}
}
