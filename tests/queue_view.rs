//! `GET /queue` from outside: queued runs counted by why they wait (ready,
//! behind their session, behind their fleet's cap, held by their key),
//! counts by priority and by key, and the next ready runs in claim order.

mod common;

use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

async fn queue(api: &Api) -> Value {
    let (status, body) = api.get("/queue").await;
    assert_eq!(status, 200, "{body}");
    body
}

on_both_backends! {
async fn the_queue_says_why_each_queued_run_waits(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let (_, first) = api.post(&format!("/sessions/{session}/message"), json!({"message": "a", "priority": 2})).await;
    api.send(&session, "b").await;
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent, "worker_count": 2})).await;
    let tasks: Vec<Value> = (0..5).map(|i| json!({"message": format!("t{i}")})).collect();
    let (status, _) = api.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), json!({"tasks": tasks})).await;
    assert_eq!(status, 202);

    let seen = queue(&api).await;
    assert_eq!(seen["queued"], json!({"ready": 3, "session_busy": 1, "fleet_at_cap": 3, "key_at_limit": 0, "rate_limited": 0}), "{seen}");
    assert_eq!(seen["by_priority"], json!([{"priority": 2, "queued": 1, "running": 0}, {"priority": 0, "queued": 6, "running": 0}]));
    assert_eq!(seen["next"][0]["run_id"], first["run_id"], "the higher priority first: {seen}");
    assert_eq!(seen["next"].as_array().unwrap().len(), 3);
    let (ok, out) = env.client(&["queue", "--server", &server.url]);
    assert!(ok && out.contains("session busy") && out.contains(first["run_id"].as_str().unwrap()), "{out}");
    let (ok, out) = env.client(&["queue", "--json", "--next", "1", "--server", &server.url]);
    let shown: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(ok && shown["next"].as_array().unwrap().len() == 1, "{out}");
    let (status, body) = api.get("/queue?next=1").await;
    assert_eq!((status, body["next"].as_array().map(Vec::len)), (200, Some(1)));
    for bad in ["next=0", "next=101", "next=x", "other=1"] {
        let (status, body) = api.get(&format!("/queue?{bad}")).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }

    // A key at its limit: one of its runs running, the others held.
    let words = (0..30).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    let slow = api.create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 100, "script": [{"text": words}]}})).await;
    for _ in 0..3 {
        let session = api.create_session(&slow, None).await;
        let body = json!({"message": "go", "concurrency": {"key": "k", "limit": 1}});
        let (status, _) = api.post(&format!("/sessions/{session}/message"), body).await;
        assert_eq!(status, 202);
    }
    let _worker = env.worker();
    let deadline = Instant::now() + LIMIT;
    loop {
        let seen = queue(&api).await;
        if seen["keys"] == json!([{"key": "k", "limit": 1, "running": 1, "queued": 2, "held": 2}]) {
            assert_eq!(seen["queued"]["key_at_limit"], 2, "{seen}");
            break;
        }
        assert!(Instant::now() < deadline, "the key's runs never showed held: {seen}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
}
