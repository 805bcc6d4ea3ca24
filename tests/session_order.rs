//! One run at a time per session, in submission order, seen through the
//! API with real processes while runs are cancelled in every position: the
//! cancel of a queued run must never start the next one beside the run that
//! is still going.

mod common;

use std::time::{Duration, Instant};

use common::Backend;
use common::{Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// A session whose first run streams slowly (about 2 s), with more runs queued behind it.
async fn busy_session(api: &Api, behind: usize) -> (String, Vec<String>) {
    let words = (0..10).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    let slow = api
        .create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 200, "script": [{"text": words}]}}))
        .await;
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&echo, None).await;
    let (status, body) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": "first", "agent_id": slow})).await;
    assert_eq!(status, 202, "{body}");
    let mut runs = vec![body["run_id"].as_str().unwrap().to_string()];
    for name in ["second", "third", "fourth"].iter().take(behind) {
        runs.push(api.send(&session, name).await);
    }
    (session, runs)
}

async fn status(api: &Api, run: &str) -> String {
    api.run(run).await["status"].as_str().unwrap().to_string()
}

/// While `running` runs, every run in `waiting` stays queued.
async fn stays_queued_while(api: &Api, running: &str, waiting: &[&str]) {
    let start = Instant::now();
    while status(api, running).await == "running" && start.elapsed() < Duration::from_millis(1500) {
        for run in waiting {
            assert_eq!(status(api, run).await, "queued", "{run} started while {running} was still running");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn history_texts(session: &Value) -> Vec<String> {
    session["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"][0]["text"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Checks the runs ran one after another: each started after the one before ended.
async fn ran_in_sequence(api: &Api, runs: &[&str]) {
    let mut previous_end = String::new();
    for run in runs {
        let run = api.wait_terminal(run, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
        assert!(run["started_at"].as_str().unwrap() >= previous_end.as_str(), "overlap: {run}");
        previous_end = run["finished_at"].as_str().unwrap().to_string();
    }
}

on_both_backends! {
async fn cancelling_the_second_of_three_keeps_the_third_waiting_for_the_first(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let (session, runs) = busy_session(&api, 2).await;
    api.wait_event(&runs[0], LIMIT, |e| e["type"] == "text_delta").await;
    let (code, body) = api.post(&format!("/runs/{}/cancel", runs[1]), json!({})).await;
    assert_eq!(code, 202, "{body}");
    stays_queued_while(&api, &runs[0], &[&runs[2]]).await;
    ran_in_sequence(&api, &[&runs[0], &runs[2]]).await;
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    let words = (0..10).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    assert_eq!(history_texts(&body), ["first", words.as_str(), "third", "third"]);
}
}

on_both_backends! {
async fn cancelling_queued_runs_in_every_position_keeps_the_rest_in_order(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    for cancelled in 1..4 {
        let (session, runs) = busy_session(&api, 3).await;
        api.wait_event(&runs[0], LIMIT, |e| e["type"] == "run_started").await;
        let (code, _) = api.post(&format!("/runs/{}/cancel", runs[cancelled]), json!({})).await;
        assert_eq!(code, 202);
        let rest: Vec<&str> = (1..4).filter(|i| *i != cancelled).map(|i| runs[i].as_str()).collect();
        stays_queued_while(&api, &runs[0], &rest).await;
        let mut order = vec![runs[0].as_str()];
        order.extend(&rest);
        ran_in_sequence(&api, &order).await;
        let (_, body) = api.get(&format!("/sessions/{session}")).await;
        let texts = history_texts(&body);
        let users: Vec<&str> = texts.iter().step_by(2).map(String::as_str).collect();
        let expected: Vec<&str> = ["first", "second", "third", "fourth"]
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != cancelled)
            .map(|(_, n)| *n)
            .collect();
        assert_eq!(users, expected, "position {cancelled}");
    }
}
}

on_both_backends! {
async fn cancelling_the_running_run_passes_the_turn_to_the_next_only(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let (session, runs) = busy_session(&api, 2).await;
    api.wait_event(&runs[0], LIMIT, |e| e["type"] == "text_delta").await;
    api.post(&format!("/runs/{}/cancel", runs[0]), json!({})).await;
    ran_in_sequence(&api, &[&runs[1], &runs[2]]).await;
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    // The cancelled run answered nothing yet: it leaves no history.
    assert_eq!(history_texts(&body), ["second", "second", "third", "third"]);
}
}
