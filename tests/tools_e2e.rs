//! All seven tools in one scripted run, through a real server and a separate
//! worker process, checked in the run's events and on disk.

mod common;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, TestEnv};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A one-page HTTP server on 127.0.0.1 for webfetch.
async fn page_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut buf = [0u8; 4096];
            let _ = socket.read(&mut buf).await;
            let body =
                "<html><head><title>Fleet</title></head><body><h1>Status</h1><p>All <b>green</b>.</p></body></html>";
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(reply.as_bytes()).await;
        }
    });
    format!("http://{addr}/status")
}

fn call(name: &str, input: Value) -> Value {
    json!({"tool_calls": [{"name": name, "input": input}]})
}

on_both_backends! {
async fn a_scripted_agent_uses_all_seven_tools_through_a_worker(backend: Backend) {
    let mut env = TestEnv::on(backend);
    // The page is on loopback: this deployment trusts its agents.
    env.set("WINGMAN_ALLOW_PRIVATE_NETWORK", "true");
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let url = page_server().await;
    let work = env.path().join("work");
    let script = json!([
        call("write", json!({"path": "notes/plan.txt", "content": "wingman plan\nstep one\nstep two\n"})),
        call("read", json!({"path": "notes/plan.txt"})),
        call("edit", json!({"path": "notes/plan.txt", "old_string": "step one", "new_string": "step 1"})),
        call("glob", json!({"pattern": "**/*.txt"})),
        call("grep", json!({"pattern": "^step", "path": "notes"})),
        call("bash", json!({"command": "wc -l < notes/plan.txt"})),
        call("webfetch", json!({"url": url})),
        {"text": "all seven tools ran"}
    ]);
    let agent = api
        .create_agent(json!({"name": "seven", "tools": ["bash", "read", "write", "edit", "glob", "grep", "webfetch"],
                             "options": {"script": script}}))
        .await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "use every tool").await;
    let finished = api.wait_terminal(&run, Duration::from_secs(60)).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    assert_eq!(finished["response"], "all seven tools ran");
    let events = api.events(&run).await;
    assert_dense(&events);
    let results: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_result").collect();
    let names: Vec<&str> = results.iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["write", "read", "edit", "glob", "grep", "bash", "webfetch"]);
    for result in &results {
        assert_eq!(result["is_error"], false, "{result}");
    }
    let output = |i: usize| results[i]["output"].as_str().unwrap();
    assert!(output(0).contains("bytes"), "write reports bytes: {}", output(0));
    assert!(output(1).contains("wingman plan") && output(1).contains("step one"), "read: {}", output(1));
    assert!(output(2).contains("-step one") && output(2).contains("+step 1"), "edit returns a diff: {}", output(2));
    assert!(output(3).contains("notes/plan.txt"), "glob: {}", output(3));
    assert!(
        output(4).contains("notes/plan.txt:2:step 1") && output(4).contains("notes/plan.txt:3:step two"),
        "grep: {}",
        output(4)
    );
    assert!(output(5).starts_with("3"), "bash: {}", output(5));
    assert!(output(6).contains("Status") && output(6).contains("green"), "webfetch: {}", output(6));
    assert!(!output(6).contains("<b>"), "HTML became text: {}", output(6));
    assert_eq!(std::fs::read_to_string(work.join("notes/plan.txt")).unwrap(), "wingman plan\nstep 1\nstep two\n");
}
}

on_both_backends! {
async fn by_default_webfetch_refuses_loopback_and_the_run_goes_on(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let url = page_server().await;
    let script = json!([call("webfetch", json!({"url": url})), {"text": "noted"}]);
    let agent = api.create_agent(json!({"name": "fetch", "tools": ["webfetch"], "options": {"script": script}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "fetch it").await;
    let finished = api.wait_terminal(&run, Duration::from_secs(60)).await;
    assert_eq!(finished["status"], "succeeded", "a tool's failure is not the run's: {finished}");
    let events = api.events(&run).await;
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    assert_eq!(result["is_error"], true);
    assert!(result["output"].as_str().unwrap().contains("127.0.0.1"), "{result}");
}
}
