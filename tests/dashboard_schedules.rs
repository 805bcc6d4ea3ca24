//! The dashboard's schedules page in a real browser (headless Chromium)
//! against the real binaries: each schedule with its next tick and the runs
//! its latest ticks made, linked, and a button that pauses and resumes it.

mod common;

use std::time::Duration;

use common::browser::Browser;
use common::TestEnv;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schedules_page_shows_ticks_and_pauses_and_resumes() {
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let body = json!({"name": "each second", "every": "1s", "target": {"session_id": session, "message": "hi"}});
    let (status, schedule) = api.post("/schedules", body).await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["id"].as_str().unwrap().to_string();

    browser.goto(&format!("{}/ui/schedules", server.url)).await;
    let row = format!("document.querySelector('tr[data-schedule=\"{id}\"]')");
    let linked = format!("return {row}?.querySelector('.ticks a[href^=\"/ui/runs/\"]') !== null");
    browser.wait_for(&linked, LIMIT, "a tick's run, linked").await;
    browser.screenshot("schedules").await;
    browser.click(&format!("button[data-schedule=\"{id}\"]")).await;
    browser.wait_for(&format!("return {row}?.dataset.paused === 'true'"), LIMIT, "paused").await;
    let (_, stored) = api.get(&format!("/schedules/{id}")).await;
    assert_eq!(stored["paused"], true, "{stored}");
    browser.click(&format!("button[data-schedule=\"{id}\"]")).await;
    browser.wait_for(&format!("return {row}?.dataset.paused === 'false'"), LIMIT, "resumed").await;
    let (_, stored) = api.get(&format!("/schedules/{id}")).await;
    assert_eq!(stored["paused"], false, "{stored}");
}
