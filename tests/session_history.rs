//! A session's history as its runs are sent it, when its messages are
//! served by several worker processes, each keeping what it loaded and
//! reading only what was added since, and by a worker that starts cold
//! after another is killed.
//!
//! What a run was sent is read from its usage: the `echo` model counts
//! every word of its conversation as an input token, so a run that missed
//! a message of its history, or saw one twice, shows it in its count.

mod common;

use std::time::Duration;

use common::Backend;
use common::{Api, TestEnv};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);

/// Message `n` (from 0) has `n + 1` words; `echo` answers with the same.
fn message(n: usize) -> String {
    (0..=n).map(|w| format!("m{n}w{w}")).collect::<Vec<_>>().join(" ")
}

/// Sends messages `from..to` one after another, checking that each run was
/// sent every earlier message and answer exactly once, then its own.
async fn send_and_check(api: &Api, session: &str, from: usize, to: usize) {
    for n in from..to {
        let run = api.send(session, &message(n)).await;
        let done = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(done["status"], "succeeded", "{done}");
        let history_words: usize = (0..n).map(|k| 2 * (k + 1)).sum();
        let usage = &done["usage"];
        assert_eq!(usage["input_tokens"], json!(history_words + n + 1), "message {n}: {done}");
        assert_eq!(usage["output_tokens"], json!(n + 1), "message {n}");
    }
}

on_both_backends! {
    async fn every_run_is_sent_the_whole_history_whichever_worker_loads_it(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let mut first = env.worker();
        let _second = env.worker();
        let agent = api.create_agent(json!({"name": "echo", "model": "echo"})).await;
        let session = api.create_session(&agent, None).await;
        // Two workers claim the session's runs as they come: each reads on
        // from the last row it loaded, over the rows the other one added.
        send_and_check(&api, &session, 0, 12).await;
        // A worker that has never seen the session reads it whole.
        first.kill9();
        let _third = env.worker();
        send_and_check(&api, &session, 12, 20).await;
        let (status, body) = api.get(&format!("/sessions/{session}")).await;
        assert_eq!(status, 200, "{body}");
        let history = body["history"].as_array().unwrap();
        assert_eq!(history.len(), 40, "every question and answer, once");
        assert_eq!(history[38]["content"][0]["text"], json!(message(19)));
    }
}
