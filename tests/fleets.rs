//! Fleets through the real binaries: a server and separate worker processes,
//! the cap held across processes, crashes survived with every result once,
//! per-task settings, a failing task, cancel, and refused input.

mod common;
mod providers_support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::Backend;
use common::{assert_dense, Api, SseDecoder, TestEnv};
use futures_util::StreamExt;
use providers_support::{fixture, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

async fn create_fleet(api: &Api, agent: &str, worker_count: u32) -> String {
    let (status, fleet) =
        api.post("/fleets", json!({"name": "f", "agent_id": agent, "worker_count": worker_count})).await;
    assert_eq!(status, 201, "{fleet}");
    fleet["id"].as_str().unwrap().to_string()
}

async fn submit(api: &Api, fleet: &str, tasks: Value) -> String {
    let (status, body) = api.post(&format!("/fleets/{fleet}/run"), json!({"tasks": tasks})).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "queued");
    body["fleet_run_id"].as_str().unwrap().to_string()
}

fn messages(n: usize) -> Value {
    (0..n).map(|i| json!({"message": format!("task {i}")})).collect()
}

/// Polls until the fleet run has ended.
async fn wait_fleet(api: &Api, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, run) = api.get(&format!("/fleet-runs/{id}?limit=1")).await;
        assert_eq!(status, 200, "{run}");
        if matches!(run["status"].as_str(), Some("succeeded" | "failed" | "cancelled")) {
            return run;
        }
        assert!(start.elapsed() < LIMIT, "fleet run {id} not finished: {run}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every task of a fleet run, through the pages of `GET /fleet-runs/{id}`.
async fn all_tasks(api: &Api, id: &str) -> Vec<Value> {
    let mut tasks = Vec::new();
    let mut after = String::new();
    loop {
        let (_, page) = api.get(&format!("/fleet-runs/{id}?limit=37{after}")).await;
        tasks.extend(page["tasks"].as_array().unwrap().iter().cloned());
        match page["next_after"].as_u64() {
            Some(next) => after = format!("&after={next}"),
            None => return tasks,
        }
    }
}

/// Each task index exactly once among `results`.
fn each_once(results: &[&Value], n: usize) {
    let indexes: Vec<u64> = results.iter().map(|r| r["task_index"].as_u64().unwrap()).collect();
    let unique: BTreeSet<u64> = indexes.iter().copied().collect();
    assert_eq!((indexes.len(), unique.len()), (n, n), "every task once: {indexes:?}");
}

on_both_backends! {
async fn the_cap_holds_across_worker_processes_and_other_runs_pass_by(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "8");
    let server = env.server(0);
    let _workers = [env.worker(), env.worker(), env.worker()];
    let api = server.api();
    let agent = api.create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 15}})).await;
    let fleet = create_fleet(&api, &agent, 3).await;
    let id = submit(&api, &fleet, messages(200)).await;

    // Meanwhile, other sessions' messages: they are not held behind the capped fleet.
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let mut others = Vec::new();
    for i in 0..5 {
        let session = api.create_session(&echo, None).await;
        others.push(api.send(&session, &format!("other {i}")).await);
    }
    let mut max_running = 0;
    let mut others_done_at = None;
    let start = Instant::now();
    loop {
        let running = env.count("SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1 AND status = 'running'", &[&id]).await;
        max_running = max_running.max(running);
        let (_, run) = api.get(&format!("/fleet-runs/{id}?limit=1")).await;
        if others_done_at.is_none() {
            let mut done = true;
            for other in &others {
                done &= api.run(other).await["status"] == "succeeded";
            }
            if done {
                others_done_at = Some(run["progress"]["queued"].as_u64().unwrap());
            }
        }
        if run["status"] == "succeeded" {
            break;
        }
        assert!(start.elapsed() < LIMIT, "{run}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(max_running, 3, "at most the cap, and the cap is reached");
    let queued_then = others_done_at.expect("the other runs finished");
    assert!(queued_then > 0, "the other runs finished while fleet tasks still waited");
    let tasks = all_tasks(&api, &id).await;
    each_once(&tasks.iter().collect::<Vec<_>>(), 200);
    assert!(tasks.iter().all(|t| t["status"] == "succeeded" && t["response"] == format!("task {}", t["task_index"])));
    let events = api.get(&format!("/fleet-runs/{id}/events")).await.1;
    let events = events.as_array().unwrap();
    assert_dense(events);
    each_once(&events.iter().filter(|e| e["type"] == "result").collect::<Vec<_>>(), 200);
    let done = events.last().unwrap();
    assert_eq!((&done["status"], &done["succeeded"], &done["tasks"]), (&json!("succeeded"), &json!(200), &json!(200)));
}
}

/// Reads a fleet run's SSE from `last`, at most `max` events, into `seen`.
/// Returns true once `done` was read; a dropped connection ends the piece.
async fn sse_piece(api: &Api, id: &str, last: &mut u64, max: usize, seen: &mut Vec<Value>) -> bool {
    let response = api
        .http
        .get(format!("{}/fleet-runs/{id}/events", api.base))
        .header("accept", "text/event-stream")
        .header("last-event-id", last.to_string())
        .send()
        .await;
    let Ok(response) = response else { return false };
    if response.status() == 204 {
        return true;
    }
    let mut parser = SseDecoder::default();
    let mut body = response.bytes_stream();
    let mut read = 0;
    while let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(5), body.next()).await {
        for frame in parser.push(&chunk) {
            let event: Value = serde_json::from_str(&frame.data).unwrap();
            *last = event["seq"].as_u64().unwrap();
            let done = event["type"] == "done";
            seen.push(event);
            read += 1;
            if done {
                return true;
            }
            if read >= max {
                return false;
            }
        }
    }
    false
}

on_both_backends! {
async fn a_fleet_survives_sigkill_of_every_process_with_every_result_once(backend: Backend) {
    let env = TestEnv::on(backend);
    let mut server = env.server(0);
    let mut workers = [env.worker(), env.worker()];
    let api = server.api();
    let agent = api.create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 20}})).await;
    let fleet = create_fleet(&api, &agent, 4).await;
    let id = submit(&api, &fleet, messages(60)).await;

    let (mut seen, mut last): (Vec<Value>, u64) = (Vec::new(), 0);
    while seen.iter().filter(|e| e["type"] == "result").count() < 10 {
        assert!(!sse_piece(&api, &id, &mut last, 3, &mut seen).await, "not done yet");
    }
    for w in &mut workers {
        w.kill9();
    }
    server.process.kill9();
    let server = env.server(1);
    let _worker = env.worker();
    let api = server.api();
    let start = Instant::now();
    while !sse_piece(&api, &id, &mut last, 7, &mut seen).await {
        assert!(start.elapsed() < LIMIT, "the fleet run did not finish");
    }
    assert_dense(&seen);
    each_once(&seen.iter().filter(|e| e["type"] == "result").collect::<Vec<_>>(), 60);
    let run = wait_fleet(&api, &id).await;
    assert_eq!((&run["status"], &run["progress"]["succeeded"]), (&json!("succeeded"), &json!(60)), "{run}");
    let tasks = all_tasks(&api, &id).await;
    each_once(&tasks.iter().collect::<Vec<_>>(), 60);
    assert_eq!(seen, api.get(&format!("/fleet-runs/{id}/events")).await.1.as_array().unwrap().clone());
}
}

on_both_backends! {
async fn tasks_carry_their_own_settings_and_a_failed_task_fails_only_itself(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let text = || Reply::sse(fixture("anthropic_stream_text_padded.sse"));
    let failure = Reply::recorded("anthropic_error_400.response_headers.json", "anthropic_error_400.json");
    // One task at a time, so the replies go to the tasks in order.
    let replay = MockServer::start(vec![text(), failure, text()]).await;
    let (status, _) = api
        .put("/provider/auth", json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-ant-fleet-0123"}}}))
        .await;
    assert_eq!(status, 200);
    let agent = api
        .create_agent(json!({"name": "a", "provider": "anthropic", "model": "claude-haiku-4-5",
            "instructions": "The agent's own.", "options": {"base_url": replay.url}}))
        .await;
    let fleet = create_fleet(&api, &agent, 1).await;
    let dir = env.path().join("task-zero");
    let tasks = json!([
        {"message": "zero", "work_dir": dir, "instructions": "Only for task zero.", "data": {"file": "auth.rs"}},
        {"message": "one", "data": [1, 2]},
        {"message": "two"},
    ]);
    let (status, results) = api.post(&format!("/fleets/{fleet}/run?wait=true"), json!({"tasks": tasks})).await;
    assert_eq!(status, 200, "{results}");
    let results = results.as_array().unwrap();
    let fields =
        |r: &Value| (r["task_index"].clone(), r["worker_name"].clone(), r["status"].clone(), r["data"].clone());
    assert_eq!(fields(&results[0]), (json!(0), json!("worker-0"), json!("succeeded"), json!({"file": "auth.rs"})));
    assert_eq!(fields(&results[1]), (json!(1), json!("worker-1"), json!("failed"), json!([1, 2])));
    assert_eq!(fields(&results[2]), (json!(2), json!("worker-2"), json!("succeeded"), Value::Null));
    assert!(results[1]["error"].as_str().unwrap().contains("provider error (400)"), "{}", results[1]);
    assert!(!results[0]["response"].as_str().unwrap().is_empty());

    let systems: Vec<Value> = replay.requests().iter().map(|r| r.body["system"].clone()).collect();
    assert_eq!(systems, [json!("Only for task zero."), json!("The agent's own."), json!("The agent's own.")]);
    let session = api.get(&format!("/sessions/{}", results[0]["session_id"].as_str().unwrap())).await.1;
    assert_eq!(session["work_dir"], json!(dir));
    assert_eq!(session["history"][0]["content"][0]["text"], "zero", "each task in a session of its own");
    let run = api.run(results[0]["run_id"].as_str().unwrap()).await;
    assert_eq!((&run["kind"], &run["task_index"]), (&json!("fleet_task"), &json!(0)));

    let (_, listed) = api.get(&format!("/fleet-runs?fleet_id={fleet}")).await;
    let fleet_run = &listed["fleet_runs"][0];
    assert_eq!(fleet_run["status"], "failed", "any failed task fails the fleet run; the others' results are kept");
    assert_eq!(
        fleet_run["progress"],
        json!({"total": 3, "queued": 0, "running": 0, "succeeded": 2, "failed": 1, "cancelled": 0})
    );
    // The runs list filtered by the fleet run: its three tasks, none of any other run.
    let other = api.create_session(&agent, None).await;
    api.send(&other, "not a task").await;
    let fleet_run_id = fleet_run["id"].as_str().unwrap();
    let (status, page) = api.get(&format!("/runs?fleet_run_id={fleet_run_id}")).await;
    assert_eq!(status, 200, "{page}");
    let tasks: Vec<&Value> = page["runs"].as_array().unwrap().iter().collect();
    assert_eq!(tasks.len(), 3, "{page}");
    assert!(tasks.iter().all(|r| r["fleet_run_id"] == fleet_run["id"] && r["kind"] == "fleet_task"), "{page}");
    let (status, page) = api.get("/runs?fleet_run_id=01JNOSUCHFLEETRUN000000000").await;
    assert_eq!((status, page["runs"].as_array().map(Vec::len)), (200, Some(0)), "{page}");
}
}

on_both_backends! {
async fn cancelling_a_fleet_run_ends_its_queued_and_running_tasks(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let words = (0..400).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    let agent =
        api.create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 20, "script": [{"text": words}]}})).await;
    let fleet = create_fleet(&api, &agent, 2).await;
    let id = submit(&api, &fleet, messages(10)).await;
    let start = Instant::now();
    while api.get(&format!("/fleet-runs/{id}")).await.1["progress"]["running"] != 2 {
        assert!(start.elapsed() < LIMIT, "two tasks never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, cancelled) = api.post(&format!("/fleet-runs/{id}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{cancelled}");
    assert_eq!((&cancelled["status"], &cancelled["progress"]["cancelled"]), (&json!("cancelled"), &json!(10)));
    let (status, _) = api.post(&format!("/fleet-runs/{id}/cancel"), json!({})).await;
    assert_eq!(status, 409, "a finished fleet run cannot be cancelled again");
    let tasks = all_tasks(&api, &id).await;
    assert!(tasks.iter().all(|t| t["status"] == "cancelled"), "{tasks:?}");
    let events = api.get(&format!("/fleet-runs/{id}/events")).await.1;
    let events = events.as_array().unwrap();
    assert_dense(events);
    each_once(&events.iter().filter(|e| e["type"] == "result").collect::<Vec<_>>(), 10);
    assert_eq!(
        (&events.last().unwrap()["status"], &events.last().unwrap()["cancelled"]),
        (&json!("cancelled"), &json!(10))
    );
    // Nothing of it runs on: well past a lease, no task is running.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(all_tasks(&api, &id).await.iter().all(|t| t["status"] == "cancelled"));
}
}

/// Rows of every table a submission writes.
async fn rows(env: &TestEnv) -> Vec<i64> {
    let mut counts = Vec::new();
    for table in ["fleets", "fleet_runs", "runs", "sessions", "run_events", "idempotency_keys"] {
        counts.push(env.count(&format!("SELECT COUNT(*) FROM {table}"), &[]).await);
    }
    counts
}

on_both_backends! {
async fn bad_fleet_input_is_refused_and_writes_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let fleet = create_fleet(&api, &agent, 2).await;
    let before = rows(&env).await;
    let run = format!("/fleets/{fleet}/run");
    let too_many: Vec<Value> = (0..10_001).map(|_| json!({"message": "t"})).collect();
    let cases = [
        ("POST", run.clone(), json!({"tasks": []}), 400),
        ("POST", run.clone(), json!({"tasks": [{"work_dir": "/tmp"}]}), 422),
        ("POST", run.clone(), json!({"tasks": [{"message": "  "}]}), 400),
        ("POST", run.clone(), json!({"tasks": [{"message": "a", "work_dir": "relative"}]}), 400),
        ("POST", run.clone(), json!({"tasks": [{"message": "a", "colour": 1}]}), 422),
        ("POST", run.clone(), json!({"tasks": too_many}), 400),
        ("POST", format!("{run}/stream"), json!({"tasks": []}), 400),
        ("POST", "/fleets/01JNOSUCHFLEET00000000000/run".into(), json!({"tasks": [{"message": "a"}]}), 404),
        ("POST", "/fleets".into(), json!({"name": "f", "agent_id": agent, "worker_count": -1}), 422),
        ("POST", "/fleets".into(), json!({"name": "f", "agent_id": "nope"}), 404),
        ("POST", "/fleets".into(), json!({"name": "f", "agent_id": agent, "work_dir": "rel"}), 400),
        ("POST", "/fleets".into(), json!({"agent_id": agent}), 422),
        ("PUT", format!("/fleets/{fleet}"), json!({"worker_count": -3}), 422),
        ("POST", "/fleet-runs/01JNOSUCHRUN000000000000000/cancel".into(), json!({}), 404),
    ];
    for (method, path, body, expected) in cases {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let (status, answer) = api.request(method, &path, Some(body)).await;
        assert!(status == expected && answer["error"].is_string(), "{path}: {status} {answer}");
    }
    assert_eq!(rows(&env).await, before, "nothing was written");
    let (status, _) = api.get("/fleet-runs/nope").await;
    assert_eq!(status, 404);
}
}

on_both_backends! {
async fn an_idempotency_key_returns_the_first_fleet_run(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let fleet = create_fleet(&api, &agent, 0).await;
    let send = |tasks: Value| {
        api.http
            .post(format!("{}/fleets/{fleet}/run", api.base))
            .header("idempotency-key", "batch-7")
            .json(&json!({"tasks": tasks}))
            .send()
    };
    let first: Value = send(messages(3)).await.unwrap().json().await.unwrap();
    let again = send(messages(3)).await.unwrap();
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(first["fleet_run_id"], again["fleet_run_id"]);
    assert_eq!(send(messages(4)).await.unwrap().status(), 422, "the same key with another body");
    let (_, listed) = api.get("/fleet-runs").await;
    assert_eq!(listed["fleet_runs"].as_array().unwrap().len(), 1);
}
}

on_both_backends! {
async fn ten_thousand_tasks_fit_in_one_request_and_cancel_together(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let fleet = create_fleet(&api, &agent, 8).await;
    // 10,000 tasks of 1,000-byte messages: about 10 MB, inside the 16 MiB fleet body limit.
    let tasks: Vec<Value> = (0..10_000).map(|i| json!({"message": format!("{i:04} {}", "x".repeat(995))})).collect();
    let id = submit(&api, &fleet, Value::Array(tasks)).await;
    let (_, run) = api.get(&format!("/fleet-runs/{id}?limit=1")).await;
    assert_eq!(run["progress"]["total"], 10_000);
    assert_eq!(run["tasks"][0]["task_index"], 0);
    let (status, run) = api.post(&format!("/fleet-runs/{id}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{run}");
    assert_eq!((&run["status"], &run["progress"]["cancelled"]), (&json!("cancelled"), &json!(10_000)));
    let events = api.get(&format!("/fleet-runs/{id}/events?after=10000")).await.1;
    assert_eq!(events.as_array().unwrap().len(), 2, "the last result and done: {events}");
}
}
