//! Forks, rewinds and retries cut short by a SIGKILL of the server and a
//! worker: many are in flight when both die, and afterwards each one is
//! either done or not begun, never half (a fork with part of its history, a
//! rewind with part of the rows set aside, a retry without its checkpoints,
//! its events or its original's messages set aside). What was done then
//! goes on: the retries that were queued run to their end.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);
/// Sessions of each kind of operation.
const SESSIONS: usize = 12;

/// A session of three echoed messages (runs a, b, c), then a message that
/// fails after one whole step (run f): `[a, b, c, f]`.
async fn session_with_runs(api: &Api, echo: &str, failing: &str) -> (String, Vec<String>) {
    let session = api.create_session(echo, None).await;
    let mut runs = Vec::new();
    for word in ["alpha", "bravo", "charlie"] {
        let run = api.send(&session, word).await;
        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        runs.push(run);
    }
    let (status, accepted) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": "fail", "agent_id": failing})).await;
    assert_eq!(status, 202, "{accepted}");
    let failed = accepted["run_id"].as_str().unwrap().to_string();
    assert_eq!(api.wait_terminal(&failed, LIMIT).await["status"], "failed");
    runs.push(failed);
    (session, runs)
}

async fn history(api: &Api, session: &str, query: &str) -> Vec<Value> {
    let (status, body) = api.get(&format!("/sessions/{session}{query}")).await;
    assert_eq!(status, 200, "{body}");
    body["history"].as_array().unwrap().clone()
}

on_both_backends! {
    async fn a_fork_a_rewind_or_a_retry_cut_short_by_a_crash_is_done_or_not_begun(backend: Backend) {
        let env = TestEnv::on(backend);
        let mut server = env.server(0);
        let api = server.api();
        let mut worker = env.worker();
        let echo = api.create_agent(json!({"name": "echo", "model": "echo"})).await;
        let script = json!([{"tool_calls": [{"name": "bash", "input": {"command": "echo one"}}]},
                            {"error": {"status": 400, "message": "refused"}}]);
        let failing = api
            .create_agent(json!({"name": "failing", "tools": ["bash"], "options": {"script": script}}))
            .await;
        let mut forked = Vec::new();
        let mut rewound = Vec::new();
        let mut retried = Vec::new();
        for i in 0..3 * SESSIONS {
            let made = session_with_runs(&api, &echo, &failing).await;
            match i % 3 {
                0 => forked.push(made),
                1 => rewound.push(made),
                _ => retried.push(made),
            }
        }
        let mut whole = std::collections::HashMap::new();
        for (session, _) in forked.iter().chain(&rewound).chain(&retried) {
            let before = history(&api, session, "").await;
            assert_eq!(before.len(), 3 * 2 + 3, "three questions and answers, then the failed run's three");
            whole.insert(session.clone(), before);
        }

        // Every operation at once; both processes die while they are in
        // flight, once a third of them have been answered.
        let answered = Arc::new(AtomicUsize::new(0));
        let mut requests = tokio::task::JoinSet::new();
        let mut send = |session: &str, path: String, body: Value| {
            let (api, answered, session) = (api.clone(), answered.clone(), session.to_string());
            requests.spawn(async move {
                let sent = api.http.post(format!("{}{path}", api.base)).json(&body).send().await;
                let status = sent.ok().map(|r| r.status().as_u16());
                answered.fetch_add(1, Ordering::SeqCst);
                (session, status)
            });
        };
        for (session, runs) in &forked {
            send(session, format!("/sessions/{session}/fork"), json!({"at": runs[1]}));
        }
        for (session, runs) in &rewound {
            send(session, format!("/sessions/{session}/rewind"), json!({"to": runs[0]}));
        }
        for (session, runs) in &retried {
            send(session, format!("/runs/{}/retry", runs[3]), json!({}));
        }
        let waited = std::time::Instant::now();
        while answered.load(Ordering::SeqCst) < SESSIONS && waited.elapsed() < LIMIT {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        server.process.kill9();
        worker.kill9();
        let mut acknowledged = std::collections::HashSet::new();
        while let Some(request) = requests.join_next().await {
            let (session, status) = request.unwrap();
            if status.is_some_and(|s| (200..300).contains(&s)) {
                acknowledged.insert(session);
            }
        }
        server = env.server(0);
        let api = server.api();
        let (mut done, mut not_begun) = (0, 0);

        // A fork is there whole, or not at all.
        let (_, sessions) = api.get("/sessions").await;
        for (session, runs) in &forked {
            let forks: Vec<&Value> =
                sessions.as_array().unwrap().iter().filter(|s| s["forked_from"]["session_id"] == json!(session)).collect();
            assert!(forks.len() <= 1, "{forks:?}");
            if let Some(fork) = forks.first() {
                assert_eq!(fork["forked_from"]["run_id"], json!(runs[1]), "{fork}");
                assert_eq!(fork["history"].as_array().unwrap()[..], whole[session][..4], "the whole history up to b: {fork}");
                done += 1;
            } else {
                assert!(!acknowledged.contains(session), "a fork answered 201 is there");
                not_begun += 1;
            }
            assert_eq!(history(&api, session, "").await, whole[session], "the original is untouched");
        }
        // A rewind set aside every row after a, or none.
        for (session, runs) in &rewound {
            let (_, shown) = api.get(&format!("/sessions/{session}")).await;
            let live = shown["history"].as_array().unwrap();
            match shown["branches"].as_array().unwrap().as_slice() {
                [] => {
                    assert_eq!(live, &whole[session], "not begun: {shown}");
                    assert!(!acknowledged.contains(session), "a rewind answered 200 is there");
                    not_begun += 1;
                }
                [branch] => {
                    assert_eq!(live[..], whole[session][..2], "done: a's messages alone: {shown}");
                    assert_eq!(branch["runs"], json!(runs[1..]), "{shown}");
                    assert_eq!(history(&api, session, "?branch=1").await, whole[session], "{shown}");
                    done += 1;
                }
                more => panic!("one rewind made {} branches: {shown}", more.len()),
            }
        }
        // A retry is queued with its copies and its original's messages set
        // aside, or there is no retry and nothing was set aside.
        let mut retries = Vec::new();
        for (session, runs) in &retried {
            let (_, listed) = api.get(&format!("/runs?session_id={session}")).await;
            let made: Vec<&Value> =
                listed["runs"].as_array().unwrap().iter().filter(|r| r["input"]["retry_of"]["run_id"] == json!(runs[3])).collect();
            let (_, shown) = api.get(&format!("/sessions/{session}")).await;
            match made.as_slice() {
                [] => {
                    assert_eq!(shown["history"].as_array().unwrap(), &whole[session], "not begun: {shown}");
                    assert_eq!(shown["branches"], json!([]), "{shown}");
                    assert!(!acknowledged.contains(session), "a retry answered 202 is there");
                    not_begun += 1;
                }
                [retry] => {
                    let id = retry["id"].as_str().unwrap().to_string();
                    let events = api.events(&id).await;
                    let kinds: Vec<&Value> = events.iter().take(2).map(|e| &e["type"]).collect();
                    assert_eq!(kinds, [&json!("run_queued"), &json!("step_reused")], "{events:?}");
                    assert_eq!(shown["branches"][0]["runs"], json!([runs[3]]), "{shown}");
                    // The retry may have run, and ended, before the kill.
                    assert_eq!(shown["history"].as_array().unwrap()[..6], whole[session][..6], "{shown}");
                    retries.push(id);
                    done += 1;
                }
                more => panic!("one retry made {} runs", more.len()),
            }
        }
        assert_eq!(done + not_begun, 3 * SESSIONS);
        common::report_figure(
            "branches_crash",
            &format!("{backend:?}: {} acknowledged before the kill; {done} done, {not_begun} not begun", acknowledged.len()),
        );

        // What was done goes on: each queued retry runs (its script fails
        // step 2 again, after reusing step 1).
        let _worker = env.worker();
        for id in retries {
            let ended = api.wait_terminal(&id, LIMIT).await;
            assert_eq!(ended["status"], "failed", "{ended}");
            assert_eq!(ended["steps"], 1, "step 1 reused, step 2 refused again: {ended}");
        }
    }
}
