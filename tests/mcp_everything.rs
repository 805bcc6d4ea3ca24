//! MCP tools against the official reference server, over stdio and over
//! Streamable HTTP, through a real server and a separate worker: the agent
//! is offered the server's tools, calls `echo` and `get-sum`, and a long
//! operation outlasts its call's timeout because its progress restarts it.

mod common;
mod mcp_support;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(90);

fn script() -> Value {
    json!([
        {"tool_calls": [
            {"name": "everything__echo", "input": {"message": "hello from wingman"}},
            {"name": "everything__get-sum", "input": {"a": 2, "b": 40}}
        ]},
        {"tool_calls": [
            {"name": "everything__trigger-long-running-operation", "input": {"duration": 3, "steps": 6}}
        ]},
        {"text": "all done"}
    ])
}

async fn run_against(env: &TestEnv, server: Value) {
    // One embedded worker: the API lists MCP tools through its workers'
    // connections (an API-only server starts and reaches none).
    let api_server = env.server(1);
    let _worker = env.worker();
    let api = api_server.api();
    let agent =
        api.create_agent(json!({"name": "mcp", "mcp_servers": [server], "options": {"script": script()}})).await;
    let (status, offered) = api.get(&format!("/agents/{agent}/tools")).await;
    assert_eq!(status, 200, "{offered}");
    assert_eq!(offered["unavailable"], json!([]), "{offered}");
    let names: Vec<&str> = offered["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for tool in ["everything__echo", "everything__get-sum", "everything__trigger-long-running-operation"] {
        assert!(names.contains(&tool), "{tool} is offered: {names:?}");
    }
    let echo = offered["tools"].as_array().unwrap().iter().find(|t| t["name"] == "everything__echo").unwrap();
    assert_eq!(echo["source"], "mcp");
    assert!(echo["input_schema"]["properties"].get("message").is_some(), "{echo}");

    let session = api.create_session(&agent, None).await;
    let run_id = api.send(&session, "go").await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let events = api.events(&run_id).await;
    assert_dense(&events);
    let result = |tool: &str| -> Value {
        let call = events
            .iter()
            .find(|e| e["type"] == "tool_call" && e["name"] == tool)
            .unwrap_or_else(|| panic!("no call of {tool}"));
        events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == call["call_id"]).unwrap().clone()
    };
    let echoed = result("everything__echo");
    assert_eq!(echoed["is_error"], false, "{echoed}");
    assert!(echoed["output"].as_str().unwrap().contains("hello from wingman"), "{echoed}");
    let sum = result("everything__get-sum");
    assert!(sum["output"].as_str().unwrap().contains("42"), "{sum}");
    let long = result("everything__trigger-long-running-operation");
    assert_eq!(long["is_error"], false, "3 s of work under a 1.5 s timeout, kept alive by progress: {long}");
    assert!(long["output"].as_str().unwrap().contains("completed"), "{long}");
    let (_, session) = api.get(&format!("/sessions/{session}")).await;
    let history = session["history"].to_string();
    assert!(history.contains("hello from wingman") && history.contains("42"), "{history}");
}

on_both_backends! {
async fn the_reference_server_over_stdio(backend: Backend) {
    let Some(entry) = mcp_support::everything() else { return };
    let env = TestEnv::on(backend);
    let server = json!({"name": "everything", "command": "node", "args": [entry, "stdio"], "timeout_ms": 1500});
    run_against(&env, server).await;
}
}

on_both_backends! {
async fn the_reference_server_over_streamable_http(backend: Backend) {
    let Some(entry) = mcp_support::everything() else { return };
    let everything = mcp_support::HttpEverything::start(&entry);
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    let server = json!({"name": "everything", "url": everything.url, "timeout_ms": 1500});
    run_against(&env, server).await;
}
}
