//! Fairness, seen from outside with a server and a separate worker: behind
//! a fleet run of 5,000 queued tasks (under one concurrency key, or none),
//! a message sent by someone else (under another key, or none) starts
//! within a claim or two, not after the 5,000.

mod common;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(120);
const TASKS: usize = 5_000;
/// Runs the worker takes at once, so at most this many start per claim.
const CONCURRENCY: i64 = 4;

/// How many of the fleet run's tasks started after the message was queued
/// and before it started.
const STARTED_BETWEEN: &str = "SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1
       AND started_at > (SELECT created_at FROM runs WHERE id = $2)
       AND started_at < (SELECT started_at FROM runs WHERE id = $2)";

async fn bulk_fleet(api: &Api, agent: &str, key: Option<&str>) -> String {
    let (status, fleet) = api.post("/fleets", json!({"name": "bulk", "agent_id": agent})).await;
    assert_eq!(status, 201, "{fleet}");
    let tasks: Vec<Value> = (0..TASKS).map(|i| json!({"message": format!("task {i}")})).collect();
    let mut body = json!({"tasks": tasks});
    if let Some(key) = key {
        body["concurrency"] = json!({"key": key, "limit": 10_000});
    }
    let (status, answer) = api.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), body).await;
    assert_eq!(status, 202, "{answer}");
    answer["fleet_run_id"].as_str().unwrap().to_string()
}

/// Waits until `n` of the fleet run's tasks have ended.
async fn until_tasks_ended(env: &TestEnv, fleet_run: &str, n: i64) {
    let deadline = std::time::Instant::now() + LIMIT;
    let ended = "SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1 AND status = 'succeeded'";
    while env.count(ended, &[fleet_run]).await < n {
        assert!(std::time::Instant::now() < deadline, "the fleet's tasks did not run");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

on_both_backends! {
async fn a_message_behind_another_keys_5000_tasks_starts_within_a_claim_or_two(backend: Backend) {
    for (bulk_key, message_key) in [(Some("bulk"), Some("someone")), (None, None)] {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_CONCURRENCY", &CONCURRENCY.to_string());
        let server = env.server(0);
        let api = server.api();
        let agent = api.create_agent(json!({"name": "echo"})).await;
        let fleet_run = bulk_fleet(&api, &agent, bulk_key).await;
        let _worker = env.worker();
        until_tasks_ended(&env, &fleet_run, 50).await;

        let session = api.create_session(&agent, None).await;
        let mut body = json!({"message": "me too"});
        if let Some(key) = message_key {
            body["concurrency"] = json!({"key": key, "limit": 10});
        }
        let (status, answer) = api.post(&format!("/sessions/{session}/message"), body).await;
        assert_eq!(status, 202, "{answer}");
        let run = answer["run_id"].as_str().unwrap().to_string();
        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        let before = env.count(STARTED_BETWEEN, &[&fleet_run, &run]).await;
        let left = env.count("SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1 AND status = 'queued'", &[&fleet_run]).await;
        println!("key {bulk_key:?}: {before} tasks started before the message; {left} still queued when it ended");
        assert!(left > 1_000, "the fleet was still far from done: {left} queued");
        assert!(before <= 2 * CONCURRENCY, "{before} of the fleet's tasks started before the message");
    }
}
}
