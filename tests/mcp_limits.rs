//! How workers keep MCP servers, with the test's own stdio server
//! (`mcp_support/recorder.py`, which records its pid): a connection no run
//! uses for `--mcp-idle-secs` is closed and its process ends (the next run
//! starts it again); past `--mcp-max-connections` the least recently used
//! idle one is closed; a stdio server may be declared only with a command
//! the operator allows (`--allow-mcp-command`; a 422 otherwise, and none
//! without the setting), and a worker refuses to start one its own setting
//! does not allow. And what a worker listed is stored: an API-only server
//! answers `GET /agents/{id}/tools` with it, and says when it was listed.

mod common;
mod mcp_support;

use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use mcp_support::Recorder;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// An agent whose run calls `<server>__env` once, then answers.
async fn agent_calling(api: &Api, name: &str, servers: &[Value], server: &str) -> String {
    let script = json!([{"tool_calls": [{"name": format!("{server}__env"), "input": {}}]}, {"text": "done"}]);
    api.create_agent(json!({"name": name, "mcp_servers": servers, "options": {"script": script}})).await
}

async fn run_once(api: &Api, agent: &str) -> Vec<Value> {
    let session = api.create_session(agent, None).await;
    let run = api.send(&session, "go").await;
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    api.events(&run).await
}

/// The pids the recorder started with, in order.
fn started(recorder: &Recorder) -> Vec<i32> {
    let starts = recorder.records().into_iter().filter(|r| r["event"] == "start");
    starts.map(|r| r["pid"].as_i64().unwrap() as i32).collect()
}

fn wait_gone(pid: i32, within: Duration, what: &str) {
    let start = Instant::now();
    while common::running(pid) {
        assert!(start.elapsed() < within, "{what}: process {pid} still runs after {within:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_closed_and_its_server_ends() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_MCP_IDLE_SECS", "1");
    let recorder = Recorder::new(env.path(), "rec");
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let agent = agent_calling(&api, "a", &[recorder.stdio("rec", json!({}))], "rec").await;
    run_once(&api, &agent).await;
    let first = started(&recorder);
    assert_eq!(first.len(), 1, "{first:?}");
    wait_gone(first[0], Duration::from_secs(10), "idle past --mcp-idle-secs 1");
    run_once(&api, &agent).await;
    assert_eq!(started(&recorder).len(), 2, "the next run starts it again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_the_least_recently_used_connection_is_closed() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_MCP_MAX_CONNECTIONS", "1");
    let (first, second) = (Recorder::new(env.path(), "first"), Recorder::new(env.path(), "second"));
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let a = agent_calling(&api, "a", &[first.stdio("one", json!({}))], "one").await;
    let b = agent_calling(&api, "b", &[second.stdio("two", json!({}))], "two").await;
    run_once(&api, &a).await;
    run_once(&api, &b).await;
    wait_gone(started(&first)[0], Duration::from_secs(10), "the least recently used past the cap");
    assert!(common::running(started(&second)[0]), "the one in use stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_allowed_commands_may_be_declared_and_a_worker_keeps_to_its_own_setting() {
    let mut env = TestEnv::new();
    let recorder = Recorder::new(env.path(), "rec");
    let stdio = recorder.stdio("rec", json!({}));
    env.unset("WINGMAN_ALLOW_MCP_COMMANDS");
    let unset = env.server(0);
    let (status, refused) = unset.api().post("/agents", json!({"name": "a", "mcp_servers": [stdio]})).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("--allow-mcp-command"), "{refused}");
    drop(unset);

    env.set("WINGMAN_ALLOW_MCP_COMMANDS", "node,python3");
    let server = env.server(0);
    let api = server.api();
    let sh = json!({"name": "sh", "command": "sh", "args": ["-c", "true"]});
    let (status, refused) = api.post("/agents", json!({"name": "a", "mcp_servers": [sh]})).await;
    assert_eq!(status, 422, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("node, python3"), "{refused}");
    let (status, refused) = api.post("/sessions", json!({"mcp_servers": [sh]})).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(api.get("/agents").await.1, json!([]), "nothing was made");
    assert_eq!(api.get("/sessions").await.1, json!([]), "nothing was made");

    // Declared under this server's setting, run by a worker that allows only node.
    let agent = agent_calling(&api, "a", &[stdio], "rec").await;
    env.set("WINGMAN_ALLOW_MCP_COMMANDS", "node");
    let _worker = env.worker();
    let events = run_once(&api, &agent).await;
    let refused = events.iter().find(|e| e["type"] == "tool_source_unavailable").expect("the server was refused");
    assert!(refused["error"].as_str().unwrap().contains("not allowed"), "{refused}");
    assert!(started(&recorder).is_empty(), "the worker started nothing");
}

on_both_backends! {
async fn an_api_only_server_shows_the_tools_a_worker_listed_with_their_age(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    let recorder = Recorder::new(env.path(), "rec");
    let http = recorder.http();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let servers = [recorder.stdio("rec", json!({})), json!({"name": "web", "url": http.url})];
    let agent = agent_calling(&api, "a", &servers, "web").await;
    let (status, before) = api.get(&format!("/agents/{agent}/tools")).await;
    assert_eq!(status, 200, "{before}");
    let unlisted = before["unavailable"].as_array().unwrap();
    assert_eq!(unlisted.len(), 2, "{before}");
    assert!(unlisted.iter().all(|u| u["error"].as_str().unwrap().contains("no worker has listed")), "{before}");

    run_once(&api, &agent).await;
    let (_, after) = api.get(&format!("/agents/{agent}/tools")).await;
    assert_eq!(after["unavailable"], json!([]), "{after}");
    let names: Vec<&str> = after["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for tool in ["rec__note", "rec__env", "web__note", "web__env"] {
        assert!(names.contains(&tool), "{tool} is shown: {names:?}");
    }
    let listings = after["listings"].as_array().unwrap();
    assert_eq!(listings.iter().map(|l| l["server"].as_str().unwrap()).collect::<Vec<_>>(), ["rec", "web"]);
    assert!(listings.iter().all(|l| l["age_secs"].as_u64().unwrap() < 60 && l["listed_at"].is_string()), "{after}");
}
}
