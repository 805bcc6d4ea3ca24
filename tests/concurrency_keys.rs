//! Concurrency keys, seen from outside: a key with limit 2 shared by a
//! fleet run's tasks and messages of other sessions, three worker processes
//! and one of them SIGKILLed while it runs a keyed run; sampled from the
//! database, never more than 2 of the key run at once, every run ends, and a
//! run without the key is not held up. A run that waits for a person gives
//! its slot back while it waits.

mod common;

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{Api, Backend, Process, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(120);

/// A scripted agent whose runs stream eight words 100 ms apart.
fn slow_agent() -> Value {
    let words = (0..8).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    json!({"name": "slow", "options": {"chunk_delay_ms": 100, "script": [{"text": words}]}})
}

/// The running runs of key `k`.
const RUNNING: &str = "SELECT COUNT(*) FROM runs WHERE concurrency_key = 'k' AND status = 'running'";

/// The process ID of a worker running a run of key `k` (0 if none): a
/// worker is named `worker-<pid>`.
const HOLDER_PID: &str = "SELECT COALESCE((SELECT CAST(SUBSTR(w.name, 8) AS BIGINT) FROM workers w
     JOIN runs r ON r.worker_id = w.id WHERE r.concurrency_key = 'k' AND r.status = 'running' LIMIT 1), 0)";

/// Samples the key's running runs every few milliseconds until stopped,
/// keeping the highest count seen.
fn sample(env: &Arc<TestEnv>, stop: &Arc<AtomicBool>) -> (Arc<AtomicI64>, tokio::task::JoinHandle<u64>) {
    let highest = Arc::new(AtomicI64::new(0));
    let (env, stop, seen) = (env.clone(), stop.clone(), highest.clone());
    let task = tokio::spawn(async move {
        let mut samples = 0;
        while !stop.load(Ordering::Relaxed) {
            seen.fetch_max(env.count(RUNNING, &[]).await, Ordering::Relaxed);
            samples += 1;
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
        samples
    });
    (highest, task)
}

async fn send_keyed(api: &Api, agent: &str, concurrency: Value) -> String {
    let session = api.create_session(agent, None).await;
    let body = json!({"message": "go", "concurrency": concurrency});
    let (status, answer) = api.post(&format!("/sessions/{session}/message"), body).await;
    assert_eq!(status, 202, "{answer}");
    answer["run_id"].as_str().unwrap().to_string()
}

on_both_backends! {
async fn a_key_runs_at_most_its_limit_across_workers_one_of_them_killed(backend: Backend) {
    let env = Arc::new(TestEnv::on(backend));
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(slow_agent()).await;
    let key = json!({"key": "k", "limit": 2});
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let tasks: Vec<Value> = (0..8).map(|i| json!({"message": format!("task {i}")})).collect();
    let path = format!("/fleets/{}/run", fleet["id"].as_str().unwrap());
    let (status, body) = api.post(&path, json!({"tasks": tasks, "concurrency": key})).await;
    assert_eq!(status, 202, "{body}");
    let fleet_run = body["fleet_run_id"].as_str().unwrap().to_string();
    let mut keyed = Vec::new();
    for _ in 0..3 {
        keyed.push(send_keyed(&api, &agent, key.clone()).await);
    }
    let free = api.send(&api.create_session(&agent, None).await, "no key").await;

    let stop = Arc::new(AtomicBool::new(false));
    let (highest, sampler) = sample(&env, &stop);
    let mut workers: Vec<Process> = (0..3).map(|_| env.worker()).collect();
    let deadline = std::time::Instant::now() + LIMIT;
    let victim = loop {
        assert!(std::time::Instant::now() < deadline, "no keyed run started");
        let pid = env.count(HOLDER_PID, &[]).await as i32;
        if let Some(i) = workers.iter().position(|w| pid != 0 && w.pid() == pid) {
            break i;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    workers[victim].kill9();

    assert_eq!(api.wait_terminal(&free, LIMIT).await["status"], "succeeded");
    for run in &keyed {
        assert_eq!(api.wait_terminal(run, LIMIT).await["status"], "succeeded", "{run}");
    }
    let done = loop {
        let (_, shown) = api.get(&format!("/fleet-runs/{fleet_run}")).await;
        if shown["status"] != "running" && shown["status"] != "queued" {
            break shown;
        }
        assert!(std::time::Instant::now() < deadline, "the fleet run did not end: {shown}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    stop.store(true, Ordering::Relaxed);
    let samples = sampler.await.unwrap();
    assert_eq!(done["status"], "succeeded", "{done}");
    let highest = highest.load(Ordering::Relaxed);
    println!("{samples} samples; at most {highest} runs of the key at once");
    assert!(highest <= 2, "{highest} runs of a key limited to 2 ran at once");
    assert_eq!(highest, 2, "both slots were used");
    assert_eq!(env.count("SELECT COUNT(*) FROM held_keys", &[]).await, 0, "no key is left listed");
}
}

on_both_backends! {
async fn a_run_waiting_for_a_person_gives_its_slot_back(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let call = json!({"name": "bash", "input": {"command": "echo asked"}});
    let asks = api
        .create_agent(json!({"name": "asks", "tools": ["bash"], "approve_tools": ["bash"],
                              "options": {"script": [{"tool_calls": [call]}, {"text": "done"}]}}))
        .await;
    let plain = api.create_agent(json!({"name": "plain"})).await;
    let key = json!({"key": "k", "limit": 1});
    let asking = send_keyed(&api, &asks, key.clone()).await;
    api.wait_waiting(&asking, LIMIT).await;
    let next = send_keyed(&api, &plain, key.clone()).await;
    assert_eq!(api.wait_terminal(&next, LIMIT).await["status"], "succeeded", "the slot was given back");

    // With the slot taken again, the waiting run queues for it once decided.
    let slow = api.create_agent(slow_agent()).await;
    let busy = send_keyed(&api, &slow, key.clone()).await;
    api.wait_event(&busy, LIMIT, |e| e["type"] == "run_started").await;
    // The scripted provider names a call by its step and place: call_<step>_<n>.
    let decisions = json!({"decisions": [{"call_id": "call_1_1", "decision": "approve"}]});
    let (status, body) = api.post(&format!("/runs/{asking}/approve"), decisions).await;
    assert!(status < 300, "{body}");
    let run = api.wait_terminal(&asking, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let busy = api.run(&busy).await;
    assert!(
        run["finished_at"].as_str() > busy["finished_at"].as_str(),
        "the decided run waited for the slot: {run} {busy}"
    );
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_key_or_limit_is_refused_and_makes_nothing() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "a"})).await;
    let session = api.create_session(&agent, None).await;
    for bad in [
        json!({"key": "", "limit": 1}),
        json!({"key": "k", "limit": 0}),
        json!({"key": "k", "limit": 10001}),
        json!({"key": "k".repeat(201), "limit": 1}),
        json!({"key": "k"}),
        json!({"key": "k", "limit": 1, "other": 1}),
    ] {
        let (status, body) =
            api.post(&format!("/sessions/{session}/message"), json!({"message": "x", "concurrency": bad})).await;
        assert!((400..500).contains(&status) && body["error"].is_string(), "{bad}: {status} {body}");
    }
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, 0);
    let (status, body) = api.post("/agents", json!({"name": "b", "concurrency": {"key": "", "limit": 1}})).await;
    assert_eq!(status, 400, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_default_key_is_filled_in_for_each_run_and_a_submission_overrides_it() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent =
        api.create_agent(json!({"name": "a", "concurrency": {"key": "per-{agent}-{session}", "limit": 3}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.run(&api.send(&session, "hi").await).await;
    assert_eq!(run["input"]["concurrency"], json!({"key": format!("per-{agent}-{session}"), "limit": 3}));
    let own = send_keyed(&api, &agent, json!({"key": "mine", "limit": 1})).await;
    assert_eq!(api.run(&own).await["input"]["concurrency"], json!({"key": "mine", "limit": 1}));
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let path = format!("/fleets/{}/run", fleet["id"].as_str().unwrap());
    let (status, body) = api.post(&path, json!({"tasks": [{"message": "t"}]})).await;
    assert_eq!(status, 202, "{body}");
    let task = env
        .count(
            "SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1 AND concurrency_key LIKE 'per-%'",
            &[body["fleet_run_id"].as_str().unwrap()],
        )
        .await;
    assert_eq!(task, 1, "a fleet task takes its agent's default, with its own session");
    let (status, body) = api.put(&format!("/agents/{agent}"), json!({"concurrency": null})).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.get("concurrency").is_none(), "{body}");
}
