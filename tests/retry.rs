//! Retrying a run from a step, from outside: a ten-step run whose tool
//! fails at step 9 and whose provider then fails step 10 is retried; the
//! provider (a local OpenAI-compatible server that counts its calls by
//! step) is asked nothing for the reused steps, the retry succeeds, its
//! log replays the same over JSON and SSE, and the session's history holds
//! the conversation once.

mod common;
mod providers_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{assert_dense, Api, Backend, TestEnv};
use providers_support::{openai_bash_call, openai_text, MockServer, Received, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);
const STEPS: usize = 10;

/// The step a request is for: one more than the answers it carries.
fn step_of(request: &Value) -> usize {
    let messages = request["messages"].as_array().expect("messages");
    messages.iter().filter(|m| m["role"] == "assistant").count() + 1
}

/// A server that answers steps 1-9 with a bash call (step 9's fails) and
/// step 10 with text, except that it refuses step 10 (a 400, which ends the
/// run) while `refuse` is set.
async fn provider(refuse: Arc<AtomicBool>) -> MockServer {
    MockServer::answering(move |request: &Received| {
        let step = step_of(&request.body);
        if step < STEPS {
            let command = if step == 9 { "echo failing >&2; exit 3".to_string() } else { format!("echo step {step}") };
            return openai_bash_call(&format!("call_{step}"), &command, 10, 2);
        }
        if refuse.load(Ordering::SeqCst) {
            let body = br#"{"error": {"message": "this request is refused", "type": "invalid_request_error"}}"#;
            return Reply::json(400, body.to_vec());
        }
        Reply::sse(openai_text("All ten steps done.", 10, 4))
    })
    .await
}

/// The steps of the requests the server received from the `from`th on.
fn steps_asked(server: &MockServer, from: usize) -> Vec<usize> {
    server.requests()[from..].iter().map(|r| step_of(&r.body)).collect()
}

/// An agent of the local server, and a session of it.
async fn session_of(api: &Api, server: &MockServer) -> String {
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-retry-test"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    let agent = api
        .create_agent(json!({"name": "ten-steps", "provider": "openai", "model": "local-model",
            "tools": ["bash"], "options": {"base_url": server.url}}))
        .await;
    api.create_session(&agent, None).await
}

/// Runs the ten-step message until it fails at step 10.
async fn failed_run(api: &Api, session: &str) -> String {
    let run = api.send(session, "take ten steps").await;
    let done = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["steps"], 9, "{done}");
    let events = api.events(&run).await;
    let failed_tool = events.iter().find(|e| e["type"] == "tool_result" && e["step"] == 9).expect("step 9's result");
    assert_eq!(failed_tool["is_error"], true, "{failed_tool}");
    run
}

/// A session whose ten-step message failed at step 10, with its provider
/// (still refusing step 10 until `refuse` is cleared).
struct Failed {
    refuse: Arc<AtomicBool>,
    provider: MockServer,
    session: String,
    run: String,
}

async fn failed(api: &Api) -> Failed {
    let refuse = Arc::new(AtomicBool::new(true));
    let provider = provider(refuse.clone()).await;
    let session = session_of(api, &provider).await;
    let run = failed_run(api, &session).await;
    Failed { refuse, provider, session, run }
}

/// Retries `run` with `body`, answering the new run's ID.
async fn retried(api: &Api, run: &str, body: Value) -> (String, Value) {
    let (status, accepted) = api.post(&format!("/runs/{run}/retry"), body).await;
    assert_eq!(status, 202, "{accepted}");
    assert_eq!(accepted["retry_of"], json!(run), "{accepted}");
    (accepted["run_id"].as_str().unwrap().to_string(), accepted)
}

on_both_backends! {
    async fn a_retry_asks_the_provider_nothing_for_the_steps_it_reuses(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let Failed { refuse, provider, session, run: original } = failed(&api).await;
        assert_eq!(steps_asked(&provider, 0), (1..=10).collect::<Vec<_>>(), "one call a step, then the refusal");

        // The retry runs with the agent as it is now.
        let agent = api.run(&original).await["agent_id"].as_str().unwrap().to_string();
        let (status, body) = api.put(&format!("/agents/{agent}"), json!({"instructions": "Answered by the agent as changed."})).await;
        assert_eq!(status, 200, "{body}");
        refuse.store(false, Ordering::SeqCst);
        let before = provider.requests().len();
        let (retry, accepted) = retried(&api, &original, json!({})).await;
        assert_eq!(accepted["from_step"], 10, "every whole step is reused: {accepted}");
        let done = api.wait_terminal(&retry, LIMIT).await;
        assert_eq!(done["status"], "succeeded", "{done}");
        assert_eq!(done["response"], "All ten steps done.", "{done}");
        assert_eq!(steps_asked(&provider, before), vec![10], "no call for steps 1-9");
        let sent = provider.requests().last().unwrap().body.clone();
        let calls = sent["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count();
        assert_eq!(calls, 9, "step 10 is sent the nine reused calls' results: {sent}");
        assert!(sent["messages"][0]["content"].to_string().contains("Answered by the agent as changed."), "{sent}");
        assert_eq!(done["input"]["retry_of"], json!({"run_id": original, "from_step": 10}), "{done}");
        assert_eq!(done["tool_calls"].as_array().unwrap().len(), 9, "the run's record holds the reused calls: {done}");

        // Its log: queued, the nine reused steps, then the work it did; the
        // same over JSON pages and over SSE.
        let events = api.events(&retry).await;
        assert_dense(&events);
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds[..10], ["run_queued"].into_iter().chain(["step_reused"; 9]).collect::<Vec<_>>()[..], "{kinds:?}");
        assert_eq!(events[9]["step"], 9, "{events:?}");
        assert_eq!(events[9]["from_run_id"], json!(original));
        assert_eq!(events[9]["tool_calls"], json!([{"call_id": "call_9", "name": "bash", "is_error": true}]));
        assert!(!kinds.contains(&"tool_call"), "no tool ran again: {kinds:?}");
        let steps_started: Vec<&Value> = events.iter().filter(|e| e["type"] == "step_started").map(|e| &e["step"]).collect();
        assert_eq!(steps_started, [&json!(10)], "{kinds:?}");
        let (streamed, _) = api.sse_read(&retry, None, Some(events.len())).await;
        assert_eq!(streamed, events, "SSE replays the same log");
        let (from_five, _) = api.sse_read(&retry, Some(5), Some(events.len() - 5)).await;
        assert_eq!(from_five[..], events[5..], "and from any Last-Event-ID");

        // The conversation is in the history once; the original's copy is a branch.
        let (_, shown) = api.get(&format!("/sessions/{session}")).await;
        let history = shown["history"].as_array().unwrap();
        assert_eq!(history.len(), 1 + 9 * 2 + 1, "the message, nine calls and results, the answer: {shown}");
        assert_eq!(shown["branches"][0]["runs"], json!([original]), "{shown}");

        // A retry of what succeeded, or of a run set aside, is refused and makes nothing.
        let runs_before = api.get(&format!("/runs?session_id={session}")).await.1;
        let (status, body) = api.post(&format!("/runs/{retry}/retry"), json!({})).await;
        assert_eq!(status, 409, "{body}");
        let (status, body) = api.post(&format!("/runs/{original}/retry"), json!({})).await;
        assert_eq!(status, 409, "{body}");
        let (status, body) = api.post("/runs/01JNORUN000000000000000000/retry", json!({})).await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(api.get(&format!("/runs?session_id={session}")).await.1, runs_before);
    }

    async fn a_retry_from_an_earlier_step_calls_from_that_step_on(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let Failed { refuse, provider, run: original, .. } = failed(&api).await;

        let (status, body) = api.post(&format!("/runs/{original}/retry"), json!({"from_step": 11})).await;
        assert_eq!(status, 422, "past the whole steps: {body}");
        assert!(body["error"].as_str().unwrap().contains("step 1 to 10"), "{body}");
        let (status, body) = api.post(&format!("/runs/{original}/retry"), json!({"from_step": 0})).await;
        assert_eq!(status, 422, "{body}");

        refuse.store(false, Ordering::SeqCst);
        let before = provider.requests().len();
        let path = format!("/runs/{original}/retry");
        let keyed = [("idempotency-key", "retry-once")];
        let first = api.send_with(reqwest::Method::POST, &path, Some(json!({"from_step": 4})), &keyed).await;
        assert_eq!(first.status, 202, "{}", first.body);
        assert_eq!(first.body["from_step"], 4, "{}", first.body);
        let retry = first.body["run_id"].as_str().unwrap().to_string();
        // The same key and body answer the same retry; another body is refused.
        let again = api.send_with(reqwest::Method::POST, &path, Some(json!({"from_step": 4})), &keyed).await;
        assert_eq!((again.status, &again.body["run_id"]), (202, &json!(retry)), "{}", again.body);
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        let other = api.send_with(reqwest::Method::POST, &path, Some(json!({"from_step": 5})), &keyed).await;
        assert_eq!(other.status, 422, "{}", other.body);
        assert_eq!(api.wait_terminal(&retry, LIMIT).await["status"], "succeeded");
        assert_eq!(steps_asked(&provider, before), (4..=10).collect::<Vec<_>>(), "calls resume from step 4");
        let events = api.events(&retry).await;
        let reused: Vec<&Value> = events.iter().filter(|e| e["type"] == "step_reused").map(|e| &e["step"]).collect();
        assert_eq!(reused, [&json!(1), &json!(2), &json!(3)]);
        let ran: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_call").map(|e| &e["step"]).collect();
        assert_eq!(ran.len(), 6, "steps 4-9 ran their tools again: {ran:?}");
    }

    async fn a_retry_is_refused_while_its_session_is_busy_or_has_moved_on(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let mut worker = env.worker();
        let Failed { refuse, session, run: original, .. } = failed(&api).await;
        worker.kill9();
        let queued = api.send(&session, "a later message").await;
        let (status, body) = api.post(&format!("/runs/{original}/retry"), json!({})).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains(&queued), "names the unfinished run: {body}");

        // Once the later message has ended, the original is no longer the last.
        refuse.store(false, Ordering::SeqCst);
        let _worker = env.worker();
        assert_eq!(api.wait_terminal(&queued, LIMIT).await["status"], "succeeded");
        let (status, body) = api.post(&format!("/runs/{original}/retry"), json!({})).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains("not the last"), "{body}");
        // Rewound to its end first, it is.
        let (status, body) = api.post(&format!("/sessions/{session}/rewind"), json!({"to": original})).await;
        assert_eq!(status, 200, "{body}");
        let (retry, _) = retried(&api, &original, json!({})).await;
        assert_eq!(api.wait_terminal(&retry, LIMIT).await["status"], "succeeded");
    }
}

#[tokio::test]
async fn the_command_line_retries_a_run() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let Failed { refuse, run: original, .. } = failed(&api).await;
    refuse.store(false, Ordering::SeqCst);
    let (ok, out) = env.client(&["runs", "retry", &original, "--from-step", "9", "--json", "--server", &server.url]);
    assert!(ok, "{out}");
    let accepted: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(accepted["from_step"], 9, "{accepted}");
    let retry = accepted["run_id"].as_str().unwrap();
    assert_eq!(api.wait_terminal(retry, LIMIT).await["status"], "succeeded");
    let (code, _, err) = env.client_exit(&["runs", "retry", retry, "--server", &server.url]);
    assert_ne!(code, 0);
    assert!(err.contains("only a failed, cancelled or interrupted run"), "{err}");
}
