//! Priority, seen from outside with a server and a separate worker: a
//! message at priority 5 submitted behind 2,000 queued fleet tasks at
//! priority 0 starts before every one of them; one session's messages keep
//! their order whatever their priorities (a later message at 10 waits for
//! an earlier one at -10); a priority outside -10..10 is refused and makes
//! nothing.

mod common;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(120);
const TASKS: usize = 2_000;

/// Sends `message` to `session` at `priority`: the run's ID.
async fn send_at(api: &Api, session: &str, message: &str, priority: i64) -> String {
    let (status, body) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": message, "priority": priority})).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(api.run(body["run_id"].as_str().unwrap()).await["input"]["priority"], priority, "carried by the run");
    body["run_id"].as_str().unwrap().to_string()
}

/// How many of the fleet run's tasks started strictly before `run` did.
async fn tasks_started_before(env: &TestEnv, fleet_run: &str, run: &str) -> i64 {
    env.count(
        "SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1
           AND started_at < (SELECT started_at FROM runs WHERE id = $2)",
        &[fleet_run, run],
    )
    .await
}

fn user_messages(session: &Value) -> Vec<String> {
    let history = session["history"].as_array().unwrap();
    history.iter().filter(|m| m["role"] == "user").map(|m| m["content"][0]["text"].as_str().unwrap().into()).collect()
}

on_both_backends! {
async fn a_higher_priority_starts_first_and_a_sessions_order_holds(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "1");
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let (status, fleet) = api.post("/fleets", json!({"name": "bulk", "agent_id": agent})).await;
    assert_eq!(status, 201, "{fleet}");
    let tasks: Vec<Value> = (0..TASKS).map(|i| json!({"message": format!("task {i}")})).collect();
    let (status, body) = api.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), json!({"tasks": tasks})).await;
    assert_eq!(status, 202, "{body}");
    let fleet_run = body["fleet_run_id"].as_str().unwrap().to_string();

    let urgent = send_at(&api, &api.create_session(&agent, None).await, "urgent", 5).await;
    let session = api.create_session(&agent, None).await;
    let first = send_at(&api, &session, "first", 1).await;
    let second = send_at(&api, &session, "second", 10).await;
    let third = send_at(&api, &session, "third", -10).await;
    let fourth = send_at(&api, &session, "fourth", 10).await;

    let runs_before = env.count("SELECT COUNT(*) FROM runs", &[]).await;
    for bad in [json!(11), json!(-11), json!(1000), json!("high"), json!(1.5)] {
        let (status, body) =
            api.post(&format!("/sessions/{session}/message"), json!({"message": "no", "priority": bad})).await;
        assert!((400..500).contains(&status), "priority {bad}: {status} {body}");
        let said = body["error"].as_str().unwrap_or_else(|| panic!("priority {bad}: {body}"));
        assert!(!bad.is_i64() || said.contains("priority must be an integer from -10 to 10"), "{bad}: {said}");
    }
    assert_eq!(env.count("SELECT COUNT(*) FROM runs", &[]).await, runs_before, "a refused priority makes nothing");

    let _worker = env.worker();
    for run in [&urgent, &first, &second] {
        assert_eq!(api.wait_terminal(run, LIMIT).await["status"], "succeeded");
        assert_eq!(tasks_started_before(&env, &fleet_run, run).await, 0, "a task started before {run}");
    }
    let started = |run: Value| run["started_at"].as_str().unwrap().to_string();
    let (urgent_at, first_at) = (started(api.run(&urgent).await), started(api.run(&first).await));
    assert!(urgent_at <= first_at, "priority 5 ({urgent_at}) starts before priority 1 ({first_at})");

    // The third message (-10) waits behind the fleet's tasks (0), and the
    // fourth (10) waits behind it: a session's order is never reordered.
    assert_eq!(api.run(&third).await["status"], "queued");
    assert_eq!(api.run(&fourth).await["status"], "queued");
    let (status, body) = api.post(&format!("/fleet-runs/{fleet_run}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{body}");
    for run in [&third, &fourth] {
        assert_eq!(api.wait_terminal(run, LIMIT).await["status"], "succeeded");
    }
    assert!(started(api.run(&third).await) <= started(api.run(&fourth).await));
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(user_messages(&body), ["first", "second", "third", "fourth"]);
}
}

on_both_backends! {
async fn every_door_takes_a_priority_and_the_runs_made_carry_it(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let fleet = fleet["id"].as_str().unwrap().to_string();
    let tasks = json!([{"message": "a"}, {"message": "b"}]);
    let (status, body) = api.post(&format!("/fleets/{fleet}/run?wait=true"), json!({"tasks": tasks, "priority": -3})).await;
    assert_eq!(status, 200, "{body}");
    let results = body.as_array().unwrap();
    assert_eq!(results.len(), 2, "{body}");
    for task in results {
        let run = api.run(task["run_id"].as_str().unwrap()).await;
        assert_eq!(run["input"]["priority"], -3, "a fleet task carries its fleet run's priority: {run}");
    }
    let task = api.run(results[0]["run_id"].as_str().unwrap()).await;
    let fleet_run = task["fleet_run_id"].as_str().unwrap();
    let queued_at = "SELECT COUNT(*) FROM runs WHERE fleet_run_id = $1 AND priority = -3";
    assert_eq!(env.count(queued_at, &[fleet_run]).await, 2, "and is queued at it");

    let nodes = json!([{"id": "a", "agent_id": agent}]);
    let (status, formation) = api.post("/formations", json!({"name": "one", "nodes": nodes, "edges": []})).await;
    assert_eq!(status, 201, "{formation}");
    let formation = formation["id"].as_str().unwrap();
    let (status, body) = api.post(&format!("/formations/{formation}/run"), json!({"input": "x", "priority": 7})).await;
    assert_eq!(status, 202, "{body}");
    let (_, shown) = api.get(&format!("/formation-runs/{}", body["formation_run_id"].as_str().unwrap())).await;
    let node_run = shown["nodes"][0]["run_id"].as_str().unwrap_or_else(|| panic!("a node's run: {shown}"));
    assert_eq!(api.run(node_run).await["input"]["priority"], 7, "a node's run carries its formation run's priority");
    assert_eq!(env.count("SELECT COUNT(*) FROM runs WHERE id = $1 AND priority = 7", &[node_run]).await, 1);

    let session = api.create_session(&agent, None).await;
    let target = json!({"session_id": session, "message": "tick"});
    let (status, schedule) = api.post("/schedules", json!({"name": "s", "every": "1s", "target": target, "priority": 4})).await;
    assert_eq!(status, 201, "{schedule}");
    assert_eq!(schedule["priority"], 4);
    let (status, body) = api.post("/schedules", json!({"name": "s", "every": "1s", "target": target, "priority": 11})).await;
    assert_eq!(status, 400, "{body}");
    let id = schedule["id"].as_str().unwrap();
    let deadline = std::time::Instant::now() + LIMIT;
    let run = loop {
        assert!(std::time::Instant::now() < deadline, "no tick submitted the schedule's message");
        let (_, ticks) = api.get(&format!("/schedules/{id}/runs")).await;
        let made = ticks["ticks"].as_array().and_then(|t| t.iter().find_map(|t| t["id"].as_str().map(String::from)));
        if let Some(run) = made {
            break run;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(api.run(&run).await["input"]["priority"], 4, "a tick's run carries its schedule's priority");
    assert_eq!(env.count("SELECT COUNT(*) FROM runs WHERE id = $1 AND priority = 4", &[&run]).await, 1);
}
}
