//! Client tools in the dashboard, in a real browser (headless Chromium over
//! WebDriver) against the real server and a separate worker process: a run
//! waiting for a client tool's results shows on the approvals page, after
//! the decision it first waited for, with a form per call; the results typed
//! there reach the run, which succeeds with them. The run page draws the
//! same form in its timeline, and sends from it too. Screenshots land in
//! `target/tmp/screenshots/`.

mod common;

use std::time::{Duration, Instant};

use common::browser::Browser;
use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// One browser at a time: the suites share two cores with Chromium.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// An agent whose one step calls the client tool `lookup` once per word,
/// then answers; with `approve`, each call needs a person's approval first.
fn lookup_agent(words: &[&str], approve: bool) -> Value {
    let calls: Vec<Value> = words.iter().map(|w| json!({"name": "lookup", "input": {"word": w}})).collect();
    json!({
        "name": "looker",
        "client_tools": [{"name": "lookup", "description": "Looks a word up on the client's machine",
            "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}}}],
        "approve_tools": if approve { json!(["lookup"]) } else { json!([]) },
        "options": {"script": [{"text": "I will ask the client.", "tool_calls": calls}, {"text": "Looked up."}]}
    })
}

async fn wait_status(api: &Api, run: &str, status: &str) {
    let start = Instant::now();
    while api.run(run).await["status"] != status {
        assert!(start.elapsed() < LIMIT, "run {run} never became {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The tool results in a session's history, as (output, is_error).
async fn told(api: &Api, session: &str) -> Vec<(Value, Value)> {
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    let blocks = body["history"].as_array().unwrap().iter().flat_map(|m| m["content"].as_array().cloned().unwrap());
    blocks.filter(|b| b["type"] == "tool_result").map(|b| (b["content"].clone(), b["is_error"].clone())).collect()
}

// A word that looks like markup stays text: the page sets what it is given
// as text only.
on_both_backends! {
async fn tool_results_are_sent_from_the_approvals_page_and_from_the_run_page(backend: Backend) {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let ui = format!("{}/ui", server.url);
    let shot = |name: &str| format!("client-tools-{name}-{backend:?}").to_lowercase();

    // Approved first, then waiting for the client: the card turns into a form.
    let agent = api.create_agent(lookup_agent(&["alpha", "<b>beta</b>"], true)).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "look them up").await;
    wait_status(&api, &run, "waiting").await;
    browser.goto(&format!("{ui}/approvals")).await;
    let card = format!(".card[data-run=\"{run}\"]");
    for call in ["call_1_1", "call_1_2"] {
        browser.click(&format!("{card} button.approve[data-call=\"{call}\"]")).await;
    }
    let form = format!("{card} form.tool-results");
    browser.wait_for(&format!("return document.querySelector('{form}') !== null"), LIMIT, "the results form").await;
    let markup = format!("return document.querySelector('{card}').textContent.includes('<b>beta</b>') \
        && document.querySelector('{card} b') === null");
    assert_eq!(browser.eval(&markup).await, true, "the call's input is shown as text");
    browser.type_into(&format!("{form} textarea[data-call=\"call_1_1\"]"), "alpha: the first letter").await;
    browser.type_into(&format!("{form} textarea[data-call=\"call_1_2\"]"), "no entry for <b>beta</b>").await;
    browser.click(&format!("{form} input.result-error[data-call=\"call_1_2\"]")).await;
    browser.screenshot(&shot("approvals")).await;
    browser.click(&format!("{form} button.send")).await;
    browser.wait_for(&format!("return document.querySelector('{form}.decided') !== null"), LIMIT, "sent").await;
    browser.screenshot(&shot("approvals-sent")).await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let expected = [(json!("alpha: the first letter"), json!(false)), (json!("no entry for <b>beta</b>"), json!(true))];
    assert_eq!(told(&api, &session).await, expected);

    // The run page draws the request and its answer in the timeline.
    browser.goto(&format!("{ui}/runs/{run}")).await;
    for event in ["tool_calls_requested", "tool_results_received", "done"] {
        let drawn = format!("return document.querySelector('#events [data-type=\"{event}\"]') !== null");
        browser.wait_for(&drawn, LIMIT, event).await;
    }
    let closed = "return document.querySelector('#events form.tool-results.decided button.send').disabled";
    assert_eq!(browser.eval(closed).await, true, "an answered request's form is closed");

    // A run waiting for its client is answered from its own page.
    let agent = api.create_agent(lookup_agent(&["gamma"], false)).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "look it up").await;
    wait_status(&api, &run, "waiting").await;
    browser.goto(&format!("{ui}/runs/{run}")).await;
    let form = "#events form.tool-results";
    browser.type_into(&format!("{form} textarea[data-call=\"call_1_1\"]"), "gamma: the third letter").await;
    browser.screenshot(&shot("run")).await;
    browser.click(&format!("{form} button.send")).await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    browser.wait_for("return document.querySelector('#events [data-type=\"done\"]') !== null", LIMIT, "done").await;
    let answered = "return document.querySelector('#events pre.output').textContent";
    assert_eq!(browser.eval(answered).await, "gamma: the third letter", "the client's output, from its tool_result");
    browser.screenshot(&shot("run-answered")).await;
    assert_eq!(told(&api, &session).await, [(json!("gamma: the third letter"), json!(false))]);
}
}
