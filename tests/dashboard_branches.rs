//! Rewind, fork and retry in a real browser (headless Chromium over
//! WebDriver) against the real server and a separate worker process: a
//! failed run's Retry opens the new run, which reuses the original's whole
//! step and succeeds; the session's page then lists the branch the retry
//! set aside and reads it as it was; its Fork and Rewind take the session
//! back or branch it at a chosen run. Screenshots land in
//! `target/tmp/screenshots/`.

mod common;
mod providers_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::browser::Browser;
use common::{Backend, TestEnv};
use providers_support::{openai_bash_call, openai_text, MockServer, Received, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// One browser at a time: the suites share two cores with Chromium.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Step 1 is a bash call; step 2 is refused (a 400, which fails the run)
/// while `refuse` is set, else answered.
async fn provider(refuse: Arc<AtomicBool>) -> MockServer {
    MockServer::answering(move |request: &Received| {
        let answered = request.body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "assistant").count();
        if answered == 0 {
            return openai_bash_call("call_1", "echo first step", 10, 2);
        }
        if refuse.load(Ordering::SeqCst) {
            return Reply::json(400, br#"{"error": {"message": "refused", "type": "invalid_request_error"}}"#.to_vec());
        }
        Reply::sse(openai_text("Second step done.", 10, 3))
    })
    .await
}

/// Whether the page's `selector` matches an element.
fn present(selector: &str) -> String {
    format!("return document.querySelector({}) !== null", serde_json::to_string(selector).unwrap())
}

on_both_backends! {
async fn retry_fork_and_rewind_from_the_dashboard(backend: Backend) {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let ui = format!("{}/ui", server.url);
    let shot = |name: &str| format!("branches-{name}-{backend:?}").to_lowercase();
    let refuse = Arc::new(AtomicBool::new(true));
    let local = provider(refuse.clone()).await;
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-dashboard-branches"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    let agent = api.create_agent(json!({"name": "two-steps", "provider": "openai", "model": "local-model",
        "tools": ["bash"], "options": {"base_url": local.url}})).await;
    let session = api.create_session(&agent, None).await;
    let original = api.send(&session, "two steps, please").await;
    assert_eq!(api.wait_terminal(&original, LIMIT).await["status"], "failed");

    // Retry, from the failed run's page: the new run opens and succeeds.
    refuse.store(false, Ordering::SeqCst);
    let asked_before = local.requests().len();
    browser.goto(&format!("{ui}/runs/{original}")).await;
    browser.click("button#retry").await;
    let opened = format!(
        "return location.pathname !== '/ui/runs/{original}' \
         && document.querySelector('#events [data-type=\"step_reused\"]') !== null"
    );
    browser.wait_for(&opened, LIMIT, "the new run's page with its reused step").await;
    let retry = browser.eval("return decodeURIComponent(location.pathname.split('/')[3])").await;
    let retry = retry.as_str().unwrap().to_string();
    assert_ne!(retry, original);
    browser.wait_for(&present("#events [data-type=\"done\"]"), LIMIT, "the retry's end").await;
    assert_eq!(api.run(&retry).await["status"], "succeeded");
    assert_eq!(local.requests().len() - asked_before, 1, "only step 2 was asked for");
    let of = browser.eval("return document.querySelector('#retry-of').textContent").await;
    assert!(of.as_str().unwrap().ends_with("from step 2"), "{of}");
    let reused = browser.eval("return document.querySelector('#events [data-type=\"step_reused\"]').textContent").await;
    assert!(reused.as_str().unwrap().contains("bash"), "{reused}");
    browser.screenshot(&shot("retried")).await;

    // The session lists the branch the retry set aside, and reads it.
    browser.goto(&format!("{ui}/sessions/{session}")).await;
    browser.wait_for(&present("#branches li[data-branch=\"1\"]"), LIMIT, "branch 1 listed").await;
    browser.screenshot(&shot("session")).await;
    browser.click("#branches li[data-branch=\"1\"] a").await;
    browser.wait_for(&present("#shown-history"), LIMIT, "the branch as it was").await;
    let text = browser.eval("return document.querySelector('#history').textContent").await;
    assert!(text.as_str().unwrap().contains("echo first step"), "{text}");
    assert!(!text.as_str().unwrap().contains("Second step done."), "only the original's messages: {text}");

    // Fork at the retry: a new session that says where it came from.
    browser.goto(&format!("{ui}/sessions/{session}")).await;
    browser.wait_for(&present("button#fork"), LIMIT, "the fork button").await;
    browser.eval(&format!("document.querySelector('#branch-at').value = '{retry}'; return null")).await;
    browser.click("button#fork").await;
    browser.wait_for(&present("#forked-from"), LIMIT, "the fork's page").await;
    let fork = browser.eval("return decodeURIComponent(location.pathname.split('/')[3])").await;
    let (_, forked) = api.get(&format!("/sessions/{}", fork.as_str().unwrap())).await;
    assert_eq!(forked["forked_from"], json!({"session_id": session, "run_id": retry}), "{forked}");
    assert_eq!(forked["history"].as_array().map(Vec::len), Some(4), "{forked}");
    browser.screenshot(&shot("fork")).await;

    // After one more message, Rewind to the end of the retry: the later
    // message is set aside as a second branch.
    let later = api.send(&session, "one more").await;
    api.wait_terminal(&later, LIMIT).await;
    browser.goto(&format!("{ui}/sessions/{session}")).await;
    browser.wait_for(&present("button#rewind"), LIMIT, "the rewind button").await;
    browser.eval(&format!("document.querySelector('#branch-at').value = '{retry}'; return null")).await;
    browser.click("button#rewind").await;
    browser.wait_for(&present("#branches li[data-branch=\"2\"]"), LIMIT, "branch 2 listed").await;
    let (_, shown) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(shown["branches"][1]["runs"], json!([later]), "{shown}");
    let history: Vec<Value> = shown["history"].as_array().unwrap().clone();
    assert_eq!(history.len(), 4, "the retry's messages alone: {shown}");
}
}
