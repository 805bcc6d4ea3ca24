//! A call a person edits, in a real browser (headless Chromium over
//! WebDriver) against the real server and a separate worker process: the
//! run page's Edit opens the call's input, the edited input is what runs,
//! and the call is recorded as it ran: the run's `tool_calls`, the
//! session's history (what the model is sent next), the `approval_decided`
//! event (with the input the model asked for) and the run page, live and
//! after a reload. Screenshots land in `target/tmp/screenshots/`.

mod common;

use std::time::{Duration, Instant};

use common::browser::Browser;
use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// One browser at a time: the suites share two cores with Chromium.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const ASKED: &str = "echo asked-by-the-model";
const EDITED: &str = "echo edited-by-a-person";

async fn wait_status(api: &Api, run: &str, status: &str) {
    let start = Instant::now();
    while api.run(run).await["status"] != status {
        assert!(start.elapsed() < LIMIT, "run {run} never became {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The inputs of the tool calls in a session's history, in order.
async fn history_inputs(api: &Api, session: &str) -> Vec<Value> {
    let (_, body) = api.get(&format!("/sessions/{session}")).await;
    let blocks = body["history"].as_array().unwrap().iter().flat_map(|m| m["content"].as_array().cloned().unwrap());
    blocks.filter(|b| b["type"] == "tool_use").map(|b| b["input"].clone()).collect()
}

/// Whether the run page shows `call_1_1` as edited, with what the model asked beside it.
async fn shown_as_edited(browser: &Browser) -> bool {
    let drawn = "return document.querySelector('#events .step > .tool[data-call=\"call_1_1\"][data-edited]') !== null";
    browser.wait_for(drawn, LIMIT, "the call marked as edited").await;
    let block = "#events .step > .tool[data-call=\"call_1_1\"]";
    let input = browser.eval(&format!("return document.querySelector('{block} pre.input').textContent")).await;
    let note = browser.eval(&format!("return document.querySelector('{block} .edited').textContent")).await;
    input == format!("$ {EDITED}") && note.as_str().is_some_and(|n| n.contains(ASKED))
}

on_both_backends! {
async fn an_edited_call_runs_and_is_recorded_as_it_ran(backend: Backend) {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let ui = format!("{}/ui", server.url);
    let shot = |name: &str| format!("edited-call-{name}-{backend:?}").to_lowercase();

    let agent = api.create_agent(json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"],
        "options": {"script": [{"text": "I will run a command.", "tool_calls": [{"name": "bash", "input": {"command": ASKED}}]},
                               {"text": "It ran."}]}})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "run it").await;
    wait_status(&api, &run, "waiting").await;

    // Edit, from the run page's own approval box.
    browser.goto(&format!("{ui}/runs/{run}")).await;
    let box_ = "#events .approval";
    browser.wait_for(&format!("return document.querySelector('{box_} button.edit') !== null"), LIMIT, "Edit").await;
    browser.click(&format!("{box_} button.edit[data-call=\"call_1_1\"]")).await;
    let field = format!("{box_} textarea.edit-input[data-call=\"call_1_1\"]");
    let prefilled = browser.eval(&format!("return JSON.parse(document.querySelector('{field}').value)")).await;
    assert_eq!(prefilled, json!({"command": ASKED}), "the field holds the call's input");
    // Not an object: refused on the page, nothing sent.
    browser.eval(&format!("document.querySelector('{field}').value = ''; return null")).await;
    browser.type_into(&field, "[1, 2]").await;
    browser.click(&format!("{box_} button.edit-confirm")).await;
    let said = browser.eval(&format!("return document.querySelector('{box_} p.muted').textContent")).await;
    assert_eq!(said, "The input must be a JSON object.");
    assert_eq!(api.run(&run).await["status"], "waiting", "nothing was sent");
    browser.eval(&format!("document.querySelector('{field}').value = ''; return null")).await;
    browser.type_into(&field, &json!({"command": EDITED}).to_string()).await;
    browser.screenshot(&shot("editing")).await;
    browser.click(&format!("{box_} button.edit-confirm")).await;
    browser.wait_for(&format!("return document.querySelector('{box_}.decided') !== null"), LIMIT, "decided").await;

    // It ran as edited, and every record says so.
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    let call = &ended["tool_calls"][0];
    assert_eq!(call["input"], json!({"command": EDITED}), "{ended}");
    assert_eq!(call["output"], "edited-by-a-person\n[exit code 0]", "{ended}");
    assert_eq!(history_inputs(&api, &session).await, [json!({"command": EDITED})], "the history");
    let events = api.events(&run).await;
    let decided = events.iter().find(|e| e["type"] == "approval_decided").expect("approval_decided");
    assert_eq!(
        decided["decisions"],
        json!([{"call_id": "call_1_1", "decision": "edit", "input": {"command": EDITED}, "original_input": {"command": ASKED}}])
    );
    let asked = events.iter().find(|e| e["type"] == "tool_call").expect("tool_call");
    assert_eq!(asked["input"], json!({"command": ASKED}), "the tool_call event keeps what the model asked");

    // The run page: live, then drawn again from the events.
    browser.wait_for("return document.querySelector('#events [data-type=\"done\"]') !== null", LIMIT, "done").await;
    assert!(shown_as_edited(&browser).await, "live");
    browser.goto(&format!("{ui}/runs/{run}")).await;
    browser.wait_for("return document.querySelector('#events [data-type=\"done\"]') !== null", LIMIT, "done").await;
    assert!(shown_as_edited(&browser).await, "after a reload");
    let output = browser.eval("return document.querySelector('#events .step pre.output').textContent").await;
    assert_eq!(output, "edited-by-a-person\n[exit code 0]");
    browser.screenshot(&shot("run")).await;

    // The session's page shows its history: the call as it ran.
    browser.goto(&format!("{ui}/sessions/{session}")).await;
    let history = format!("const t = document.querySelector('#main').textContent; \
        return t.includes('$ {EDITED}') && !t.includes('{ASKED}')");
    browser.wait_for(&history, LIMIT, "the session's history with the edited call").await;
}
}
