//! Two API servers and four worker processes on one database: every run is
//! claimed by one worker at a time, every session's runs run in order, and
//! either server tails runs whose events other processes wrote.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::{assert_dense, Backend, TestEnv};
use futures_util::future::join_all;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(120);
const SESSIONS: usize = 100;
const MESSAGES: usize = 10;

on_both_backends! {
async fn two_servers_and_four_workers_share_one_queue(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "8");
    // No process is killed here: a lease long enough that a starved machine
    // (twelve processes on two cores) cannot lapse one, so any second start
    // of a run would be a double claim.
    env.set("WINGMAN_LEASE_MS", "5000");
    let (first, second) = (env.server(0), env.server(0));
    let _workers = [env.worker(), env.worker(), env.worker(), env.worker()];
    let apis = [first.api(), second.api()];
    let agent = apis[0].create_agent(json!({"name": "echo"})).await;
    let mut sessions = Vec::new();
    for s in 0..SESSIONS {
        sessions.push(apis[s % 2].create_session(&agent, None).await);
    }
    // Each session's messages go in order, alternating servers; sessions go at once.
    let submitted = join_all(sessions.iter().enumerate().map(|(s, session)| {
        let apis = &apis;
        async move {
            let mut runs = Vec::new();
            for m in 0..MESSAGES {
                runs.push(apis[(s + m) % 2].send(session, &format!("session {s} message {m}")).await);
            }
            runs
        }
    }))
    .await;
    // A run submitted through the first server, tailed through the second.
    let tailed = &submitted[0][MESSAGES - 1];
    let (streamed, _) = apis[1].sse_read(tailed, None, None).await;
    assert_eq!(streamed.last().map(|e| e["type"].clone()), Some(json!("done")), "{streamed:?}");
    let mut workers_seen = HashSet::new();
    for (s, runs) in submitted.iter().enumerate() {
        let mut previous: Option<Value> = None;
        for run_id in runs {
            let run = apis[s % 2].wait_terminal(run_id, LIMIT).await;
            assert_eq!(run["status"], "succeeded", "{run}");
            let events = apis[(s + 1) % 2].events(run_id).await;
            assert_dense(&events);
            // Claimed once, by one worker: with no process killed, one start and one attempt.
            let starts: Vec<&Value> = events.iter().filter(|e| e["type"] == "run_started").collect();
            assert_eq!(starts.len(), 1, "{events:?}");
            assert_eq!(starts[0]["attempt"], 1);
            workers_seen.insert(starts[0]["worker_id"].as_str().unwrap().to_string());
            if let Some(previous) = &previous {
                assert!(previous["finished_at"].as_str() <= run["started_at"].as_str(), "{previous} then {run}");
            }
            previous = Some(run);
        }
        let (_, body) = apis[s % 2].get(&format!("/sessions/{}", sessions[s])).await;
        let history = body["history"].as_array().unwrap();
        assert_eq!(history.len(), 2 * MESSAGES);
        for (m, pair) in history.chunks(2).enumerate() {
            assert_eq!(pair[0]["content"][0]["text"], format!("session {s} message {m}").as_str());
        }
    }
    assert!(workers_seen.len() >= 2, "the queue was shared: {workers_seen:?}");
}
}
