//! Rewind and fork, from outside: a fork's history is the original's up to
//! a run and then its own; a rewind sets a history aside as a branch that
//! stays listed and readable while the provider is never sent it again; a
//! message can replace a run; and a rewind refused while a run is queued
//! changes nothing.

mod common;
mod providers_support;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use providers_support::{openai_text, MockServer, Received, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// The texts of a session's history, as `GET` with `query` shows it.
async fn texts(api: &Api, session: &str, query: &str) -> Vec<String> {
    let (status, body) = api.get(&format!("/sessions/{session}{query}")).await;
    assert_eq!(status, 200, "{body}");
    let history = body["history"].as_array().expect("a history");
    history.iter().map(|m| m["content"][0]["text"].as_str().unwrap_or_default().to_string()).collect()
}

/// Sends `message` and waits for its run to succeed.
async fn said(api: &Api, session: &str, message: &str) -> String {
    let run = api.send(session, message).await;
    let done = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    run
}

/// The words `echo` was sent by a run (its input tokens).
async fn words_sent(api: &Api, run: &str) -> u64 {
    api.run(run).await["usage"]["input_tokens"].as_u64().expect("usage")
}

on_both_backends! {
    async fn a_fork_at_the_second_of_three_runs_has_the_history_up_to_there_and_goes_its_own_way(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let agent = api.create_agent(json!({"name": "echo", "model": "echo"})).await;
        let session = api.create_session(&agent, None).await;
        let _a = said(&api, &session, "alpha one").await;
        let b = said(&api, &session, "bravo two").await;
        let _c = said(&api, &session, "charlie three").await;
        let original = texts(&api, &session, "").await;
        assert_eq!(original.len(), 6, "{original:?}");

        let (status, fork) = api.post(&format!("/sessions/{session}/fork"), json!({"at": b})).await;
        assert_eq!(status, 201, "{fork}");
        assert_eq!(fork["forked_from"], json!({"session_id": session, "run_id": b}), "{fork}");
        assert_eq!(fork["agent_id"], json!(agent), "{fork}");
        assert_ne!(fork["work_dir"], api.get(&format!("/sessions/{session}")).await.1["work_dir"], "a fresh work_dir");
        let fork_id = fork["id"].as_str().unwrap().to_string();
        assert_eq!(texts(&api, &fork_id, "").await, original[..4].to_vec(), "the history up to the end of b");
        assert_eq!(texts(&api, &session, &format!("?at={b}")).await, original[..4].to_vec(), "as it was after b");

        // Each goes its own way: a message to one is not in the other.
        let d = said(&api, &fork_id, "delta four").await;
        assert_eq!(words_sent(&api, &d).await, 2 * 4 + 2, "the fork's run is sent a, b and its own message");
        let e = said(&api, &session, "echo five").await;
        assert_eq!(words_sent(&api, &e).await, 2 * 6 + 2, "the original's run is sent a, b, c and its own");
        let fork_texts = texts(&api, &fork_id, "").await;
        assert_eq!(fork_texts[4..], ["delta four", "delta four"], "{fork_texts:?}");
        let after = texts(&api, &session, "").await;
        assert_eq!(after[..6], original[..], "the original's history is unchanged");
        assert_eq!(after[6..], ["echo five", "echo five"], "{after:?}");

        // Without `at`, the whole history; a fork of a fork names its source.
        let (status, whole) = api.post(&format!("/sessions/{fork_id}/fork"), json!({})).await;
        assert_eq!(status, 201, "{whole}");
        assert_eq!(whole["forked_from"], json!({"session_id": fork_id, "run_id": d}), "{whole}");
        assert_eq!(whole["history"].as_array().unwrap().len(), 6, "{whole}");

        // Refusals name what is wrong and write nothing.
        let sessions_before = api.get("/sessions").await.1.as_array().unwrap().len();
        let (status, body) = api.post(&format!("/sessions/{session}/fork"), json!({"at": d})).await;
        assert_eq!((status, body["error"].as_str().unwrap()), (404, format!("run {d} of session {session} not found").as_str()));
        let (status, body) = api.post("/sessions/01JNOSESSION00000000000000/fork", json!({})).await;
        assert_eq!(status, 404, "{body}");
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": d})).await;
        assert_eq!((status, body["error"].as_str().unwrap()), (404, format!("run {d} of session {session} not found").as_str()));
        let (status, body) = api.post("/sessions/01JNOSESSION00000000000000/rewind", json!({"to": d})).await;
        assert_eq!((status, body["error"].as_str().unwrap()), (404, "session 01JNOSESSION00000000000000 not found"));
        let (status, body) = api.post(&format!("/sessions/{session}/fork"), json!({"at": b, "colour": 1})).await;
        assert_eq!(status, 422, "{body}");
        let (status, body) = api.get(&format!("/sessions/{session}?at={b}&branch=1")).await;
        assert_eq!(status, 404, "no branch 1 yet: {body}");
        assert_eq!(api.get("/sessions").await.1.as_array().unwrap().len(), sessions_before);
    }

    async fn a_rewind_sets_a_history_aside_that_the_provider_is_never_sent_again(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let provider = provider().await;
        let agent = openai_agent(&api, &provider).await;
        let session = api.create_session(&agent, None).await;
        let first = said(&api, &session, "kept-one").await;
        let second = said(&api, &session, "aside-two").await;
        let third = said(&api, &session, "aside-three").await;
        let whole = texts(&api, &session, "").await;

        let (status, rewound) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": first})).await;
        assert_eq!(status, 200, "{rewound}");
        let branch = &rewound["set_aside"];
        assert_eq!(branch["branch"], 1, "{rewound}");
        assert_eq!(branch["after_run_id"], json!(first), "{rewound}");
        assert_eq!(branch["runs"], json!([second, third]), "{rewound}");
        assert_eq!(branch["messages"], 4, "{rewound}");
        assert_eq!(rewound["session"]["branches"], json!([branch]), "{rewound}");
        let (status, again) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": first})).await;
        assert_eq!((status, &again["set_aside"]), (200, &Value::Null), "nothing more after a: {again}");
        assert_eq!(again["session"]["branches"], json!([branch]), "no empty branch: {again}");
        assert_eq!(texts(&api, &session, "").await, whole[..2].to_vec());
        // The branch stays readable, as does the history as it was after each run.
        assert_eq!(texts(&api, &session, "?branch=1").await, whole);
        assert_eq!(texts(&api, &session, &format!("?at={third}")).await, whole);

        let fourth = said(&api, &session, "after-rewind-four").await;
        let sent = last_request(&provider);
        assert!(sent.contains("kept-one") && sent.contains("after-rewind-four"), "{sent}");
        assert!(!sent.contains("aside-two") && !sent.contains("aside-three"), "set aside, never sent: {sent}");

        // A message that replaces a run: rewound to just before it, then sent.
        let (status, accepted) = api
            .post(&format!("/sessions/{session}/message"), json!({"message": "edited-five", "replace": fourth}))
            .await;
        assert_eq!(status, 202, "{accepted}");
        let fifth = accepted["run_id"].as_str().unwrap().to_string();
        assert_eq!(api.wait_terminal(&fifth, LIMIT).await["status"], "succeeded");
        let sent = last_request(&provider);
        assert!(sent.contains("kept-one") && sent.contains("edited-five"), "{sent}");
        assert!(!sent.contains("after-rewind-four") && !sent.contains("aside-two"), "{sent}");
        let (_, body) = api.get(&format!("/sessions/{session}")).await;
        let branches = body["branches"].as_array().unwrap();
        assert_eq!(branches.len(), 2, "{body}");
        assert_eq!((&branches[1]["after_run_id"], &branches[1]["runs"]), (&json!(first), &json!([fourth])), "{body}");
        assert_eq!(texts(&api, &session, "").await[2], "edited-five");
        assert_eq!(texts(&api, &session, "?branch=2").await[2], "after-rewind-four");
        assert_eq!(texts(&api, &session, &format!("?at={fourth}")).await.len(), 4, "a's and the fourth's");
        // A branch read up to one of its runs; a run of another branch is not in it.
        assert_eq!(texts(&api, &session, &format!("?branch=1&at={second}")).await, whole[..4].to_vec());
        assert_eq!(texts(&api, &session, &format!("?branch=1&at={first}")).await, whole[..2].to_vec());
        let (status, body) = api.get(&format!("/sessions/{session}?branch=2&at={third}")).await;
        assert_eq!(status, 404, "{body}");
        assert!(body["error"].as_str().unwrap().contains("of branch 2"), "{body}");

        // A run set aside is not a point to rewind to (a fork goes there).
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": second})).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains("fork at it"), "{body}");
        let (status, body) = api.post(&format!("/sessions/{session}/fork"), json!({"at": second})).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["history"].as_array().unwrap().len(), 4, "a's and the second's: {body}");
        // Rewinding to the last run sets nothing aside.
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": fifth})).await;
        assert_eq!((status, &body["set_aside"]), (200, &Value::Null), "{body}");
        assert_eq!(body["session"]["branches"].as_array().unwrap().len(), 2, "{body}");
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({})).await;
        assert_eq!(status, 422, "{body}");
        let (status, body) = api.get(&format!("/sessions/{session}?branch=3")).await;
        assert_eq!(status, 404, "{body}");
    }

    async fn a_rewind_while_a_run_is_queued_is_refused_and_changes_nothing(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let mut worker = env.worker();
        let agent = api.create_agent(json!({"name": "echo", "model": "echo"})).await;
        let session = api.create_session(&agent, None).await;
        let first = said(&api, &session, "one").await;
        let second = said(&api, &session, "two").await;
        worker.kill9();
        let queued = api.send(&session, "three").await;
        let before = api.get(&format!("/sessions/{session}")).await.1;
        let runs_before = api.get(&format!("/runs?session_id={session}")).await.1;

        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": first})).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains(&queued), "names the queued run: {body}");
        let (status, body) =
            api.post(&format!("/sessions/{session}/message"), json!({"message": "edited", "replace": second})).await;
        assert_eq!(status, 409, "{body}");
        assert_eq!(api.get(&format!("/sessions/{session}")).await.1, before, "nothing changed");
        assert_eq!(api.get(&format!("/runs?session_id={session}")).await.1, runs_before, "no run was made");

        // Once the run has ended, the same rewind is taken.
        let _worker = env.worker();
        assert_eq!(api.wait_terminal(&queued, LIMIT).await["status"], "succeeded");
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": first})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["set_aside"]["runs"], json!([second, queued]), "{body}");
    }
}

/// A local OpenAI-compatible server that answers every request with a short
/// text, streamed or not as it was asked.
async fn provider() -> MockServer {
    MockServer::answering(|request: &Received| {
        let text = "Understood.";
        if request.body["stream"] == true {
            return Reply::sse(openai_text(text, 10, 2));
        }
        let body = json!({"id": "c", "object": "chat.completion", "model": request.body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}});
        Reply::json(200, body.to_string().into_bytes())
    })
    .await
}

/// An agent of the local server.
async fn openai_agent(api: &Api, server: &MockServer) -> String {
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-branches-test"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    api.create_agent(json!({"name": "local", "provider": "openai", "model": "local-model",
        "options": {"base_url": server.url}}))
        .await
}

/// The messages of the last request the server received, as JSON text.
fn last_request(server: &MockServer) -> String {
    let requests = server.requests();
    requests.last().expect("a request").body["messages"].to_string()
}

#[tokio::test]
async fn the_command_line_forks_rewinds_replaces_and_shows_branches() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let url = server.url.clone();
    let agent = api.create_agent(json!({"name": "echo", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let first = said(&api, &session, "first words").await;
    let second = said(&api, &session, "second words").await;

    let (ok, out) = env.client(&["sessions", "fork", &session, "--at", &first, "--json", "--server", &url]);
    assert!(ok, "{out}");
    let fork: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(fork["forked_from"]["run_id"], json!(first), "{fork}");
    let (ok, out) = env.client(&["sessions", "show", fork["id"].as_str().unwrap(), "--server", &url]);
    assert!(ok && out.contains(&format!("{session} at run {first}")), "names where it came from: {out}");

    let (ok, out) = env.client(&["sessions", "rewind", &session, "--to", &first, "--server", &url]);
    assert!(ok, "{out}");
    assert!(out.contains("branch 1 set aside (1 runs, 2 messages"), "{out}");
    let (ok, out) = env.client(&["sessions", "show", &session, "--branch", "1", "--server", &url]);
    assert!(ok && out.contains("second words"), "the branch reads as it was: {out}");
    assert!(out.contains(&format!("after run {first}: 1 runs, 2 messages")), "and is listed: {out}");
    let (ok, out) = env.client(&["sessions", "show", &session, "--server", &url]);
    assert!(ok && !out.contains("second words"), "set aside: {out}");

    let (ok, out) = env.client(&["send", &session, "third words", "--replace", &first, "--wait", "--server", &url]);
    assert!(ok, "{out}");
    let (ok, out) = env.client(&["sessions", "show", &session, "--at", &second, "--server", &url]);
    assert!(ok && out.contains("second words") && out.contains("first words"), "{out}");
    let (_, out) = env.client(&["sessions", "show", &session, "--json", "--server", &url]);
    let shown: Value = serde_json::from_str(&out).unwrap();
    let history: Vec<&str> =
        shown["history"].as_array().unwrap().iter().filter_map(|m| m["content"][0]["text"].as_str()).collect();
    assert_eq!(history, ["third words", "third words"], "{shown}");
    assert_eq!(shown["branches"].as_array().unwrap().len(), 2, "{shown}");

    let (code, _, err) = env.client_exit(&["sessions", "rewind", &session, "--to", &second, "--server", &url]);
    assert_ne!(code, 0);
    assert!(err.contains("fork at it"), "the server's reason: {err}");
}
