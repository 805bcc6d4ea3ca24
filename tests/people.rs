//! People in the loop, with the real binaries and a separate worker:
//! double-texting strategies, tool calls that wait for a person across
//! SIGKILLs of every process, and steering a run between tool steps.

mod common;

use std::path::Path;
use std::time::Duration;

use common::Backend;
use common::{assert_dense, Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// An agent whose first step runs two slow `bash` calls (each appends its
/// name to `log.txt`), then answers with the last user message.
fn slow_tools_agent() -> Value {
    let call = |name: &str| json!({"name": "bash", "input": {"command": format!("sleep 0.6; echo {name} >> log.txt")}});
    json!({"name": "slow-tools", "tools": ["bash"],
           "options": {"script": [{"tool_calls": [call("one"), call("two")]}, {"echo": true}]}})
}

/// An agent whose first step asks for three `bash` calls that need approval.
fn approval_agent() -> Value {
    let call = |name: &str| json!({"name": "bash", "input": {"command": format!("echo {name} >> log.txt")}});
    json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"],
           "options": {"script": [{"tool_calls": [call("a"), call("b"), call("c")]}, {"text": "all done"}]}})
}

fn log_lines(work: &Path) -> Vec<String> {
    std::fs::read_to_string(work.join("log.txt")).unwrap_or_default().lines().map(str::to_string).collect()
}

/// Asserts the history could be sent to a provider: every `tool_use` is
/// answered by a `tool_result` in the message right after it.
fn assert_history_valid(history: &[Value]) {
    for (i, message) in history.iter().enumerate() {
        let uses: Vec<&str> = message["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["type"] == "tool_use")
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        if uses.is_empty() {
            continue;
        }
        let next = history.get(i + 1).unwrap_or_else(|| panic!("tool_use without a result: {history:?}"));
        for id in uses {
            let answered = next["content"].as_array().unwrap().iter().any(|c| c["tool_use_id"] == id);
            assert!(answered, "tool_use {id} has no tool_result: {history:?}");
        }
    }
}

async fn history(api: &Api, session: &str) -> Vec<Value> {
    let (status, body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(status, 200, "{body}");
    body["history"].as_array().unwrap().clone()
}

fn texts(history: &[Value]) -> Vec<String> {
    history.iter().map(|m| m["content"][0]["text"].as_str().unwrap_or("").to_string()).collect()
}

async fn submit(api: &Api, session: &str, message: &str, agent: &str, strategy: &str) -> (u16, Value) {
    let body = json!({"message": message, "agent_id": agent, "multitask_strategy": strategy});
    api.post(&format!("/sessions/{session}/message"), body).await
}

/// A session with a slow tool run under way (its first call started).
async fn busy(api: &Api, work: &Path) -> (String, String, String) {
    let slow = api.create_agent(slow_tools_agent()).await;
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&echo, Some(work)).await;
    let (status, body) = submit(api, &session, "first", &slow, "enqueue").await;
    assert_eq!(status, 202, "{body}");
    let first = body["run_id"].as_str().unwrap().to_string();
    api.wait_event(&first, LIMIT, |e| e["type"] == "tool_call").await;
    (session, first, echo)
}

async fn runs_of(api: &Api, session: &str) -> Vec<Value> {
    let (status, body) = api.get(&format!("/runs?session_id={session}")).await;
    assert_eq!(status, 200, "{body}");
    body["runs"].as_array().unwrap().clone()
}

on_both_backends! {
async fn each_multitask_strategy_does_what_it_says(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();

    // reject: 409, and nothing is written.
    let work = tempfile::tempdir().unwrap();
    let (session, first, echo) = busy(&api, work.path()).await;
    let (status, body) = submit(&api, &session, "second", &echo, "reject").await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().contains("reject"), "{body}");
    assert_eq!(runs_of(&api, &session).await.len(), 1, "a refused message writes no run");
    assert_eq!(api.wait_terminal(&first, LIMIT).await["status"], "succeeded");

    // interrupt: the first stops at its next step boundary, keeps what it
    // finished, and the second runs after it.
    let work = tempfile::tempdir().unwrap();
    let (session, first, echo) = busy(&api, work.path()).await;
    let (status, body) = submit(&api, &session, "second", &echo, "interrupt").await;
    assert_eq!(status, 202, "{body}");
    let second = body["run_id"].as_str().unwrap().to_string();
    let first_run = api.wait_terminal(&first, LIMIT).await;
    assert_eq!(first_run["status"], "interrupted", "{first_run}");
    let second_run = api.wait_terminal(&second, LIMIT).await;
    assert_eq!(second_run["status"], "succeeded", "{second_run}");
    assert!(second_run["started_at"].as_str() >= first_run["finished_at"].as_str(), "the second ran after the first");
    assert_eq!(log_lines(work.path()), ["one"], "the call after the boundary never ran");
    let events = api.events(&first).await;
    assert_dense(&events);
    let kept = history(&api, &session).await;
    assert_history_valid(&kept);
    let kept_texts = texts(&kept);
    assert_eq!(kept_texts.first().map(String::as_str), Some("first"), "the interrupted run stays: {kept:?}");
    assert_eq!(kept_texts.last().map(String::as_str), Some("second"), "{kept:?}");

    // rollback: the first is cancelled and leaves nothing in the history.
    let work = tempfile::tempdir().unwrap();
    let (session, first, echo) = busy(&api, work.path()).await;
    let (status, body) = submit(&api, &session, "second", &echo, "rollback").await;
    assert_eq!(status, 202, "{body}");
    let second = body["run_id"].as_str().unwrap().to_string();
    assert_eq!(api.wait_terminal(&first, LIMIT).await["status"], "cancelled");
    assert_eq!(api.wait_terminal(&second, LIMIT).await["status"], "succeeded");
    assert_eq!(texts(&history(&api, &session).await), ["second", "second"], "only the second run's messages");

    // enqueue: both, in order.
    let work = tempfile::tempdir().unwrap();
    let (session, first, echo) = busy(&api, work.path()).await;
    let (status, body) = submit(&api, &session, "second", &echo, "enqueue").await;
    assert_eq!(status, 202, "{body}");
    let second = body["run_id"].as_str().unwrap().to_string();
    let first_run = api.wait_terminal(&first, LIMIT).await;
    let second_run = api.wait_terminal(&second, LIMIT).await;
    assert_eq!((first_run["status"].as_str(), second_run["status"].as_str()), (Some("succeeded"), Some("succeeded")));
    assert!(second_run["started_at"].as_str() >= first_run["finished_at"].as_str());
    assert_eq!(log_lines(work.path()), ["one", "two"]);
    let (status, body) = submit(&api, &session, "third", &echo, "sometimes").await;
    assert_eq!(status, 422, "an unknown strategy is refused: {body}");
}
}

on_both_backends! {
async fn an_approval_outlives_every_process_and_each_decision_is_carried_out(backend: Backend) {
    let env = TestEnv::on(backend);
    let mut server = env.server(0);
    let mut worker = env.worker();
    let api = server.api();
    let agent = api.create_agent(approval_agent()).await;
    let work = tempfile::tempdir().unwrap();
    let session = api.create_session(&agent, Some(work.path())).await;
    let (status, answer) =
        api.post(&format!("/sessions/{session}/message?wait=true"), json!({"message": "go"})).await;
    assert_eq!(status, 200, "?wait=true answers with the waiting run: {answer}");
    assert_eq!(answer["status"], "waiting", "{answer}");
    let run_id = answer["run_id"].as_str().unwrap().to_string();
    let calls: Vec<&str> = answer["approval"]["calls"].as_array().unwrap().iter().map(|c| c["call_id"].as_str().unwrap()).collect();
    assert_eq!(calls.len(), 3, "{answer}");
    assert_eq!(answer["steps"], 1, "the step that asked counts: {answer}");
    assert!(answer["usage"]["output_tokens"].as_u64() > Some(0), "its usage too: {answer}");
    assert_eq!(answer["tool_calls"], json!([]), "no call has run: {answer}");
    // The live tail shows the request and stays open.
    let logged = api.events(&run_id).await.len();
    let (tailed, done) = api.sse_read(&run_id, None, Some(logged)).await;
    assert!(!done && tailed.last().unwrap()["type"] == "approval_requested", "{tailed:?}");
    assert!(log_lines(work.path()).is_empty(), "nothing ran before a decision");
    let held = "SELECT COUNT(*) FROM runs WHERE worker_id IS NOT NULL OR status <> 'waiting'";
    assert_eq!(env.count(held, &[]).await, 0, "no worker holds the waiting run");

    // Every process dies; the waiting run does not care.
    worker.kill9();
    server.process.kill9();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    assert_eq!(api.wait_waiting(&run_id, LIMIT).await["status"], "waiting");
    let (status, body) = api.post(&format!("/runs/{run_id}/approve"), json!({"decisions": [
        {"call_id": calls[0], "decision": "approve"}, {"call_id": "call_9_9", "decision": "approve"},
    ]})).await;
    assert_eq!(status, 422, "an invented call_id: {body}");
    let (status, body) = api.post(&format!("/runs/{run_id}/approve"), json!({"decisions": [
        {"call_id": calls[0], "decision": "approve"},
    ]})).await;
    assert_eq!(status, 422, "a missing call_id: {body}");
    let decisions = json!({"decisions": [
        {"call_id": calls[0], "decision": "approve"},
        {"call_id": calls[1], "decision": "reject", "message": "not b"},
        {"call_id": calls[2], "decision": "edit", "input": {"command": "echo edited >> log.txt"}},
    ]});
    let (status, body) = api.post(&format!("/runs/{run_id}/approve"), decisions.clone()).await;
    assert_eq!(status, 202, "{body}");
    let (status, body) = api.post(&format!("/runs/{run_id}/approve"), decisions).await;
    assert_eq!(status, 409, "approving twice: {body}");
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["response"], "all done");
    assert_eq!(log_lines(work.path()), ["a", "edited"], "approved and edited ran once each, rejected never");
    let events = api.events(&run_id).await;
    assert_dense(&events);
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"approval_requested") && kinds.contains(&"approval_decided"), "{kinds:?}");
    let rejected = events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == calls[1]).unwrap();
    assert_eq!(rejected["is_error"], true);
    assert!(rejected["output"].as_str().unwrap().contains("not b"), "{rejected}");
    assert_history_valid(&history(&api, &session).await);
    let (status, _) = api.post(&format!("/runs/{run_id}/approve"), json!({"decisions": []})).await;
    assert_eq!(status, 409, "a finished run waits for nothing");
}
}

on_both_backends! {
async fn a_waiting_run_can_be_cancelled_or_steered_and_its_session_deleted(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let agent = api.create_agent(approval_agent()).await;
    let work = tempfile::tempdir().unwrap();

    let session = api.create_session(&agent, Some(work.path())).await;
    let run = api.send(&session, "go").await;
    api.wait_waiting(&run, LIMIT).await;
    let (status, body) = api.post(&format!("/runs/{run}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(api.run(&run).await["status"], "cancelled");
    assert_history_valid(&history(&api, &session).await);

    // Steering a waiting run answers its calls with the message instead.
    let run = api.send(&session, "again").await;
    api.wait_waiting(&run, LIMIT).await;
    let (status, body) = api.post(&format!("/runs/{run}/steer"), json!({"message": "never mind"})).await;
    assert_eq!(status, 202, "{body}");
    let done = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert!(log_lines(work.path()).is_empty(), "no call ran");
    assert_history_valid(&history(&api, &session).await);
    let (status, _) = api.post(&format!("/runs/{run}/steer"), json!({"message": "late"})).await;
    assert_eq!(status, 409, "a finished run cannot be steered");

    let session = api.create_session(&agent, Some(work.path())).await;
    let run = api.send(&session, "go").await;
    api.wait_waiting(&run, LIMIT).await;
    let (status, _) = api.request(reqwest::Method::DELETE, &format!("/sessions/{session}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(api.run(&run).await["status"], "cancelled", "deleting the session cancels its waiting run");
}
}

on_both_backends! {
async fn steering_between_tool_steps_skips_the_rest_and_is_answered(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = tempfile::tempdir().unwrap();
    let agent = api.create_agent(slow_tools_agent()).await;
    let session = api.create_session(&agent, Some(work.path())).await;
    let run = api.send(&session, "start").await;
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_call").await;
    let (status, body) = api.post(&format!("/runs/{run}/steer"), json!({"message": "change of plan"})).await;
    assert_eq!(status, 202, "{body}");
    let done = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["response"], "change of plan", "the answer reflects the steer");
    assert_eq!(log_lines(work.path()), ["one"], "the call not yet started was skipped");
    let events = api.events(&run).await;
    assert_dense(&events);
    let steered = events.iter().find(|e| e["type"] == "steered").expect("a steered event");
    assert_eq!(steered["message"], "change of plan");
    assert_eq!(steered["skipped"], json!(["call_1_2"]));
    let skipped = events.iter().find(|e| e["type"] == "tool_result" && e["call_id"] == "call_1_2").unwrap();
    assert_eq!(skipped["is_error"], true);
    let kept = history(&api, &session).await;
    assert_history_valid(&kept);
    assert!(texts(&kept).contains(&"change of plan".to_string()), "the steer is in the history: {kept:?}");

    // A queued run takes the message in before its own.
    let echo = api.create_agent(json!({"name": "echo", "options": {"script": [{"echo": true}]}})).await;
    let slow = api.create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 200, "script": [{"text": "a b c d e"}]}})).await;
    let session = api.create_session(&echo, Some(work.path())).await;
    let (status, body) = submit(&api, &session, "blocker", &slow, "enqueue").await;
    assert_eq!(status, 202, "{body}");
    let blocker = body["run_id"].as_str().unwrap().to_string();
    let queued = api.send(&session, "mine").await;
    let (status, _) = api.post(&format!("/runs/{queued}/steer"), json!({"message": "before mine"})).await;
    assert_eq!(status, 202);
    api.wait_terminal(&blocker, LIMIT).await;
    let done = api.wait_terminal(&queued, LIMIT).await;
    assert_eq!(done["response"], "mine", "its own message is still the last");
    let all = texts(&history(&api, &session).await);
    assert_eq!(&all[all.len() - 3..], ["before mine", "mine", "mine"], "{all:?}");
    let (status, _) = api.post("/runs/01NOSUCHRUN0000000000000000/steer", json!({"message": "x"})).await;
    assert_eq!(status, 404);
    let (status, _) = api.post(&format!("/runs/{queued}/steer"), json!({"message": ""})).await;
    assert_eq!(status, 400);
}
}

/// The share of a core a process uses over the next 3 s.
async fn cpu_share(pid: i32) -> f64 {
    let (before, wall) = (common::cpu_time(pid), std::time::Instant::now());
    tokio::time::sleep(Duration::from_secs(3)).await;
    (common::cpu_time(pid) - before).as_secs_f64() / wall.elapsed().as_secs_f64()
}

on_both_backends! {
async fn a_thousand_runs_waiting_hold_no_worker_and_all_finish_when_approved(backend: Backend) {
    const RUNS: usize = 1000;
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let worker = env.worker();
    let api = server.api();
    let agent = api.create_agent(json!({"name": "asks", "tools": ["bash"], "approve_tools": ["*"],
        "options": {"script": [{"tool_calls": [{"name": "bash", "input": {"command": "true"}}]}, {"text": "ok"}]}})).await;
    let idle = cpu_share(worker.pid()).await;
    let mut tasks = tokio::task::JoinSet::new();
    for chunk in 0..16 {
        let api = api.clone();
        let agent = agent.clone();
        tasks.spawn(async move {
            let mut runs = Vec::new();
            for _ in (chunk..RUNS).step_by(16) {
                let session = api.create_session(&agent, None).await;
                runs.push(api.send(&session, "go").await);
            }
            runs
        });
    }
    let mut runs = Vec::new();
    while let Some(chunk) = tasks.join_next().await {
        runs.extend(chunk.unwrap());
    }
    let started = std::time::Instant::now();
    while env.count("SELECT COUNT(*) FROM runs WHERE status = 'waiting'", &[]).await < RUNS as i64 {
        assert!(started.elapsed() < LIMIT, "the runs did not all come to wait");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let held = env.count("SELECT COUNT(*) FROM runs WHERE worker_id IS NOT NULL", &[]).await;
    assert_eq!(held, 0, "waiting runs hold no worker and no lease");

    let share = cpu_share(worker.pid()).await;

    let started = std::time::Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for chunk in runs.chunks(RUNS / 16) {
        let (api, chunk) = (api.clone(), chunk.to_vec());
        tasks.spawn(async move {
            for run in chunk {
                let decisions = json!({"decisions": [{"call_id": "call_1_1", "decision": "approve"}]});
                let (status, body) = api.post(&format!("/runs/{run}/approve"), decisions).await;
                assert_eq!(status, 202, "{body}");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    while env.count("SELECT COUNT(*) FROM runs WHERE status = 'succeeded'", &[]).await < RUNS as i64 {
        assert!(started.elapsed() < LIMIT, "the approved runs did not all finish");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    common::report_figure(
        "people",
        &format!(
            "{RUNS} runs waiting for approval ({backend:?}): worker CPU {:.1} % of a core over 3 s while they waited \
             ({:.1} % with nothing in the database at all); all approved and finished {:.1} s after the first approval",
            share * 100.0,
            idle * 100.0,
            started.elapsed().as_secs_f64()
        ),
    );
}
}
