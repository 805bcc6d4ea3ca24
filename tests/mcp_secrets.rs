//! A secret given to one MCP server reaches that server only: its
//! environment (stdio) or its headers (HTTP), and never an answer, an
//! event, a log line at trace level, another server's environment or bash's.

mod common;
mod mcp_support;

use std::time::Duration;

use common::Backend;
use common::TestEnv;
use mcp_support::Recorder;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const LIMIT: Duration = Duration::from_secs(90);
const VALUE: &str = "s3cr3t-value-4c1f9e";
const ROTATED: &str = "r0tated-value-77aa01";

fn call(name: &str) -> Value {
    json!({"name": name, "input": {}})
}

on_both_backends! {
async fn a_secret_reaches_its_own_server_only(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_LOG", "trace");
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    let recorder = Recorder::new(env.path(), "rec");
    let own_recorder = Recorder::new(env.path(), "own");
    let http = recorder.http();
    let server = env.server(0);
    let worker = env.worker();
    let api = server.api();
    let (status, body) = api.put("/secrets/token", json!({"value": VALUE})).await;
    assert_eq!(status, 200, "{body}");
    let own = own_recorder.stdio("own", json!({"TOKEN": {"secret": "token"}}));
    let other = recorder.stdio("other", json!({}));
    let web = json!({"name": "web", "url": http.url, "headers": {"Authorization": {"secret": "token"}}});
    let missing = recorder.stdio("missing", json!({"TOKEN": {"secret": "never-set"}}));
    let script = json!([
        {"tool_calls": [call("own__env"), call("other__env"), call("web__env")]},
        {"tool_calls": [{"name": "bash", "input": {"command": "env; echo \"TOKEN=$TOKEN\""}}]},
        {"text": "checked"}
    ]);
    let agent = api.create_agent(json!({"name": "keyed", "tools": ["bash"], "mcp_servers": [own, other, web, missing],
                                        "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");

    let events = api.events(&run).await;
    let output = |name: &str| -> String {
        let result = events.iter().find(|e| e["type"] == "tool_result" && e["name"] == name).unwrap();
        result["output"].as_str().unwrap().to_string()
    };
    let digest = format!("sha256:{:x}", Sha256::digest(VALUE.as_bytes()));
    assert_eq!(output("own__env"), digest, "its own server has it in its environment");
    assert_eq!(output("other__env"), "unset", "another server does not");
    assert_eq!(output("web__env"), digest, "an HTTP server gets it as the header");
    assert!(output("bash").contains("TOKEN=\n") || output("bash").ends_with("TOKEN="), "bash has no TOKEN: {}", output("bash"));
    let unset = events.iter().find(|e| e["type"] == "tool_source_unavailable" && e["server"] == "missing").unwrap();
    assert!(unset["error"].as_str().unwrap().contains("never-set"), "{unset}");

    let (_, offered) = api.get(&format!("/agents/{agent}/tools")).await;
    // An API-only server answers what the worker listed: the three servers'
    // tools, and why the fourth could not be listed.
    let unavailable = offered["unavailable"].as_array().unwrap();
    assert_eq!(unavailable.len(), 1, "{offered}");
    assert_eq!(unavailable[0]["server"], "missing", "{offered}");
    assert!(unavailable[0]["error"].as_str().unwrap().contains("never-set"), "{offered}");
    let names: Vec<&str> = offered["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(["own__env", "other__env", "web__env"].iter().all(|t| names.contains(t)), "{names:?}");
    assert_eq!(offered["listings"].as_array().unwrap().len(), 4, "{offered}");
    let mut seen = vec![
        serde_json::to_string(&events).unwrap(),
        api.run(&run).await.to_string(),
        api.get(&format!("/agents/{agent}")).await.1.to_string(),
        api.get(&format!("/sessions/{session}")).await.1.to_string(),
        api.get("/secrets").await.1.to_string(),
        offered.to_string(),
    ];
    // A new value: the next step gets a new connection, and the old server ends.
    let (status, _) = api.put("/secrets/token", json!({"value": ROTATED})).await;
    assert_eq!(status, 200);
    let again = api.send(&session, "again").await;
    assert_eq!(api.wait_terminal(&again, LIMIT).await["status"], "succeeded");
    let rotated = api.events(&again).await;
    let own_result = rotated.iter().find(|e| e["type"] == "tool_result" && e["name"] == "own__env").unwrap();
    assert_eq!(own_result["output"], format!("sha256:{:x}", Sha256::digest(ROTATED.as_bytes())), "{own_result}");
    let starts: Vec<i32> = own_recorder.records().iter().filter(|r| r["event"] == "start").map(|r| r["pid"].as_i64().unwrap() as i32).collect();
    assert_eq!(starts.len(), 2, "one server per value: {starts:?}");
    let start = std::time::Instant::now();
    while common::running(starts[0]) {
        assert!(start.elapsed() < LIMIT, "the server of the old value never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    seen.push(serde_json::to_string(&rotated).unwrap());
    drop(http);
    seen.push(server.process.log_text());
    seen.push(worker.log_text());
    assert!(server.process.log_text().contains("TRACE"), "the server logged at trace level");
    for text in &seen {
        assert!(!text.contains(VALUE) && !text.contains(ROTATED), "a value leaked: {}", &text[..text.len().min(2000)]);
    }
}
}
