//! The promises about crashes: exact replay, crash resume with exactly-once
//! steps, fencing, whole-system kills, graceful hand-back, bounded attempts.

mod common;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, assert_steps_ran_as_announced, bash_script, step_agent, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

fn count(events: &[Value], kind: &str) -> usize {
    events.iter().filter(|e| e["type"] == kind).count()
}

on_both_backends! {
async fn replay_in_pieces_equals_one_read_even_across_a_server_restart(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api
        .create_agent(json!({"name": "talker", "tools": ["bash"], "options": {"chunk_delay_ms": 15, "script": [
            {"text": "let me think about this for a little while before calling a tool", "tool_calls": [{"name": "bash", "input": {"command": "sleep 0.3; echo one"}}]},
            {"text": "and now a second answer that streams word by word to the client", "tool_calls": [{"name": "bash", "input": {"command": "sleep 0.3; echo two"}}]},
            {"text": "the final answer arrives here in many small pieces one after another until the end"}
        ]}}))
        .await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "talk").await;
    let _worker = env.worker();

    // Five pieces over the live run, each a fresh connection with Last-Event-ID.
    let mut pieces = Vec::new();
    let mut last = None;
    let mut done = false;
    for _ in 0..4 {
        let (events, finished) = api.sse_read(&run, last, Some(4)).await;
        last = events.last().map(|e| e["seq"].as_u64().unwrap()).or(last);
        pieces.extend(events);
        done |= finished;
    }
    if !done {
        let (events, _) = api.sse_read(&run, last, None).await;
        pieces.extend(events);
    }
    let whole = api.events(&run).await;
    assert_dense(&whole);
    assert_eq!(pieces, whole, "pieces over SSE equal the one-shot read");
    assert!(count(&whole, "text_delta") >= 3, "text was streamed in several deltas");
    let text: String = whole
        .iter()
        .filter(|e| e["type"] == "text_delta" && e["step"] == 3)
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "the final answer arrives here in many small pieces one after another until the end");

    // Across a server restart mid-stream.
    let run2 = api.send(&session, "again").await;
    let (first, _) = api.sse_read(&run2, None, Some(5)).await;
    drop(server);
    let server = env.server(0);
    let api = server.api();
    let (rest, finished) = api.sse_read(&run2, Some(first.last().unwrap()["seq"].as_u64().unwrap()), None).await;
    assert!(finished);
    let mut joined = first;
    joined.extend(rest);
    let whole = api.events(&run2).await;
    assert_dense(&whole);
    assert_eq!(joined, whole, "replay across a server restart is exact");
    // JSON reads honour ?after= too.
    let (_, tail) = api.get(&format!("/runs/{run2}/events?after=5")).await;
    assert_eq!(tail.as_array().unwrap().as_slice(), &whole[5..]);
}
}

on_both_backends! {
async fn a_killed_worker_resumes_at_the_first_unfinished_step(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_MAX_ATTEMPTS", "10");
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let agent = api.create_agent(step_agent(6)).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let mut worker = env.worker();
    // Kill at different points: after 1, 3 and 5 results are checkpointed.
    for results in [1, 3, 5] {
        let start = std::time::Instant::now();
        loop {
            let events = api.events(&run).await;
            if count(&events, "tool_result") >= results {
                break;
            }
            assert!(start.elapsed() < LIMIT);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
        worker.kill9();
        worker = env.worker();
    }
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    assert_eq!(finished["response"], "finished");
    let events = api.events(&run).await;
    assert_dense(&events);
    // Three kills, three resumptions at least. On a starved machine a live
    // worker may also miss its (1 s, in tests) lease and lose the run: more
    // attempts, under the same rules.
    assert!(count(&events, "run_resumed") >= 3, "three kills, three resumptions: {events:?}");
    assert_eq!(finished["attempt"], count(&events, "run_started") as u64, "one attempt per claim");
    assert_eq!(count(&events, "tool_result"), 6, "each result recorded once");
    assert_steps_ran_as_announced(&work, &events, 6);
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_worker_cannot_write_after_losing_its_lease() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_MAX_ATTEMPTS", "10");
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let agent = api.create_agent(step_agent(4)).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let stalled = env.worker();
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_result").await;
    stalled.stop_outside_transaction(&env.db()).await;
    // Past the 1 s lease another worker takes the run over.
    let _rescuer = env.worker();
    api.wait_event(&run, LIMIT, |e| e["type"] == "run_started" && e["attempt"] == 2).await;
    // The stalled worker wakes while the rescuer is still working.
    stalled.resume();
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let events = api.events(&run).await;
    assert_dense(&events);
    assert_eq!(count(&events, "tool_result"), 4, "one result per call: {events:?}");
    assert_eq!(count(&events, "step_completed"), 5);
    let after_done = api.events(&run).await;
    assert_eq!(events, after_done, "nothing is written after done");
    let log = stalled.log_text();
    assert!(log.contains("lease lapsed") || log.contains("no longer held"), "the stalled worker noticed: {log}");
}

on_both_backends! {
async fn every_run_ends_after_the_whole_system_is_killed(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_MAX_ATTEMPTS", "10");
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(bash_script(&["sleep 0.2".into(), "sleep 0.2".into()], "ok")).await;
    let mut runs = Vec::new();
    for s in 0..6 {
        let session = api.create_session(&agent, None).await;
        for m in 0..4 {
            runs.push(api.send(&session, &format!("{s}-{m}")).await);
        }
    }
    let mut workers = vec![env.worker(), env.worker()];
    api.wait_event(&runs[0], LIMIT, |e| e["type"] == "tool_result").await;
    for w in &mut workers {
        w.kill9();
    }
    let mut server = server;
    server.process.kill9();
    let server = env.server(2);
    let api = server.api();
    for run in &runs {
        let run = api.wait_terminal(run, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
        assert_dense(&api.events(run["id"].as_str().unwrap()).await);
    }
}
}

on_both_backends! {
async fn sigterm_hands_runs_back_without_charging_an_attempt(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let agent = api.create_agent(step_agent(5)).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let mut first = env.worker();
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_result").await;
    let status = first.terminate();
    assert!(status.success(), "graceful exit");
    let handed_back = api.run(&run).await;
    assert_eq!(handed_back["status"], "queued", "{handed_back}");
    let claims = count(&api.events(&run).await, "run_started") as u64;
    assert_eq!(handed_back["attempt"], claims, "attempt counts claims");
    let _second = env.worker();
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded");
    let events = api.events(&run).await;
    assert_dense(&events);
    assert_eq!(finished["attempt"], count(&events, "run_started") as u64, "{events:?}");
    // The hand-back was not charged. (On a starved machine a worker may also
    // lose its lease; that attempt would be charged only if it made no progress.)
    let charged: Vec<&Value> =
        events.iter().filter(|e| e["type"] == "run_started").map(|e| &e["charged_attempts"]).collect();
    assert!(charged.iter().all(|c| **c == 0) || charged.len() > 2, "{charged:?}");
    assert_steps_ran_as_announced(&work, &events, 5);
    assert!(
        count(&events, "step_restarted") == 0 || count(&events, "run_started") > 2,
        "a graceful stop repeats nothing"
    );
}
}

on_both_backends! {
async fn a_run_that_keeps_crashing_its_worker_fails_after_bounded_attempts(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_MAX_ATTEMPTS", "3");
    let server = env.server(0);
    let api = server.api();
    // Every time its tool runs, the worker running it dies (as if the tool
    // took the machine's memory): the test SIGKILLs it. A tool cannot signal
    // its worker itself; the sandbox stops that.
    let m = common::marker();
    let agent = api.create_agent(bash_script(&[format!("sleep {m}")], "never")).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "crash").await;
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let (status, body) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": "echo-me", "agent_id": echo})).await;
    assert_eq!(status, 202, "{body}");
    let after = body["run_id"].as_str().unwrap().to_string();
    let start = std::time::Instant::now();
    let mut worker = env.worker();
    loop {
        let current = api.run(&run).await;
        if current["status"] == "failed" {
            break;
        }
        assert!(start.elapsed() < LIMIT, "still {current}");
        if !common::marked(&m).is_empty() {
            worker.kill9();
            // The tool dies with its worker.
            assert!(common::marked_gone(&m, Duration::from_secs(2)).await, "the tool outlived its worker");
            worker = env.worker();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let failed = api.run(&run).await;
    assert!(failed["error"].as_str().unwrap().contains("gave up after 3 attempts that made no progress"), "{failed}");
    let events = api.events(&run).await;
    assert_dense(&events);
    // The first attempt checkpointed its inference before its tool crashed
    // the worker: progress, not charged. Each later one redid the tool and
    // crashed before checkpointing anything: charged, until three were.
    let charged: Vec<&Value> =
        events.iter().filter(|e| e["type"] == "run_started").map(|e| &e["charged_attempts"]).collect();
    assert_eq!(charged, [&json!(0), &json!(0), &json!(1), &json!(2)], "{events:?}");
    // The session moves on: the next message runs.
    drop(worker);
    let _worker = env.worker();
    let next = api.wait_terminal(&after, LIMIT).await;
    assert_eq!(next["status"], "succeeded", "{next}");
}
}

on_both_backends! {
async fn a_run_whose_code_panics_fails_with_the_message_and_frees_its_slot(backend: Backend) {
    let mut env = TestEnv::on(backend);
    // One slot: if the panicking run kept it, nothing after it would run.
    env.set("WINGMAN_CONCURRENCY", "1");
    let server = env.server(0);
    let api = server.api();
    let panics = api
        .create_agent(json!({"name": "panics", "provider": "scripted", "model": "none",
                             "options": {"script": [{"tool_calls": [{"name": "bash", "input": {"command": "true"}}]},
                                                    {"panic": "a bug in the provider"}]},
                             "tools": ["bash"]}))
        .await;
    let first_session = api.create_session(&panics, None).await;
    let run = api.send(&first_session, "go").await;
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let other_session = api.create_session(&echo, None).await;
    let after = api.send(&other_session, "still here").await;
    let mut worker = env.worker();
    let failed = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(error.contains("panicked") && error.contains("a bug in the provider"), "{failed}");
    let events = api.events(&run).await;
    assert_dense(&events);
    assert_eq!(count(&events, "run_started"), 1, "failed, not retried into the same panic");
    let next = api.wait_terminal(&after, LIMIT).await;
    assert_eq!(next["status"], "succeeded", "the slot was freed: {next}");
    assert!(worker.child.try_wait().unwrap().is_none(), "the worker lives on");
}
}

on_both_backends! {
async fn a_run_whose_stored_state_cannot_be_read_fails_with_the_reason_and_its_session_goes_on(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&echo, None).await;
    let broken = api.send(&session, "first").await;
    let after = api.send(&session, "second").await;
    // Claimed in the same batch as the broken run, whose context then loads alone.
    let other_session = api.create_session(&echo, None).await;
    let other = api.send(&other_session, "elsewhere").await;
    // A row no version of Wingman writes: the agent it names does not decode.
    // Handed back, such a run would be claimed again, forever, with the
    // session's next run waiting behind it.
    env.execute(&format!(
        "INSERT INTO agent_snapshots (digest, body, created_at) VALUES ('broken', '{{\"broken\": true}}', 0);
         UPDATE runs SET agent_digest = 'broken' WHERE id = '{broken}'"
    ))
    .await;
    let mut worker = env.worker();
    let failed = api.wait_terminal(&broken, LIMIT).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    let error = failed["error"].as_str().unwrap();
    assert!(error.starts_with("the run could not be loaded: "), "{failed}");
    let events = api.events(&broken).await;
    assert_dense(&events);
    assert_eq!(count(&events, "run_started"), 1, "failed at once, not handed back and claimed again: {events:?}");
    assert_eq!(count(&events, "run_handed_back"), 0, "{events:?}");
    for run in [&after, &other] {
        let ended = api.wait_terminal(run, LIMIT).await;
        assert_eq!(ended["status"], "succeeded", "{ended}");
    }
    assert!(worker.child.try_wait().unwrap().is_none(), "the worker lives on");
}
}

on_both_backends! {
async fn a_run_whose_checkpoints_cannot_be_read_fails_without_a_summary(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let agent = api.create_agent(step_agent(4)).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let broken = api.send(&session, "go").await;
    let after = api.send(&session, "again").await;
    let mut worker = env.worker();
    api.wait_event(&broken, LIMIT, |e| e["type"] == "tool_result").await;
    worker.kill9();
    // The checkpoints the next attempt resumes from, and failing the run
    // summarises, no longer decode.
    env.execute(&format!("UPDATE checkpoints SET body = '{{\"broken\": true}}' WHERE run_id = '{broken}'")).await;
    let _worker = env.worker();
    let failed = api.wait_terminal(&broken, LIMIT).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"].as_str().unwrap().starts_with("the run could not be loaded: "), "{failed}");
    let events = api.events(&broken).await;
    assert_dense(&events);
    assert_eq!(count(&events, "run_handed_back"), 0, "failed, not handed back: {events:?}");
    let next = api.wait_terminal(&after, LIMIT).await;
    assert_eq!(next["status"], "succeeded", "{next}");
}
}
