//! The dashboard's run page links a parent and its sub-agents' runs, in a
//! real browser (headless Chromium) against the real binaries: the parent
//! lists its children and its timeline names them, and a child's page links
//! back to its parent.

mod common;

use std::time::Duration;

use common::browser::Browser;
use common::TestEnv;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_page_links_parent_and_children() {
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let helper = api.create_agent(json!({"name": "helper"})).await;
    let calls = json!([{"name": "agent__helper", "input": {"task": "first"}},
                       {"name": "agent__helper", "input": {"task": "second"}}]);
    let lead = api
        .create_agent(json!({"name": "lead", "subagents": [{"agent_id": helper}],
            "options": {"script": [{"tool_calls": calls}, {"text": "done"}]}}))
        .await;
    let session = api.create_session(&lead, None).await;
    let parent = api.send(&session, "go").await;
    let run = api.wait_terminal(&parent, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let children: Vec<String> =
        run["children"].as_array().unwrap().iter().map(|c| c["run_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(children.len(), 2, "{run}");

    let ui = format!("{}/ui", server.url);
    browser.goto(&format!("{ui}/runs/{parent}")).await;
    for child in &children {
        let listed = format!(
            "return document.querySelector('#children li[data-child=\"{child}\"] a[href=\"/ui/runs/{child}\"]') !== null \
             && document.querySelector('#children li[data-child=\"{child}\"] .status').textContent === 'succeeded'"
        );
        browser.wait_for(&listed, LIMIT, "the child in the parent's fields").await;
        let named = format!(
            "return [...document.querySelectorAll('#events [data-type=\"subagent_started\"] a')]\
             .some((a) => a.getAttribute('href') === '/ui/runs/{child}')"
        );
        browser.wait_for(&named, LIMIT, "subagent_started linking the child").await;
    }
    browser.screenshot("run-children").await;

    browser.click(&format!("#children li[data-child=\"{}\"] a", children[0])).await;
    let back = format!(
        "return location.pathname === '/ui/runs/{}' \
         && document.querySelector('#parent-run a[href=\"/ui/runs/{parent}\"]') !== null",
        children[0]
    );
    browser.wait_for(&back, LIMIT, "the child's page linking its parent").await;
    browser.screenshot("run-parent").await;
}
