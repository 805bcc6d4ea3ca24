//! The dashboard's formation pages in a real browser (headless Chromium)
//! against the real binaries: a formation run is drawn as its graph, its
//! nodes' states move live as the run goes (a node whose run waits for a
//! person shows `waiting`), the list links to it, and the page fits a
//! phone's screen.

mod common;

use std::time::Duration;

use common::browser::Browser;
use common::TestEnv;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);

/// One browser at a time: the suites share two cores with Chromium.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_formation_runs_graph_shows_its_nodes_live_states() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let server = env.server(2);
    let api = server.api();
    let slow = api
        .create_agent(json!({"name": "slow", "tools": ["bash"], "options": {"script": [
            {"tool_calls": [{"name": "bash", "input": {"command": "sleep 2"}}]}, {"text": "one\ntwo"}]}}))
        .await;
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "echoes", "agent_id": echo})).await;
    let (status, formation) = api
        .post(
            "/formations",
            json!({"name": "drawn", "nodes": [{"id": "first", "agent_id": slow}, {"id": "lines", "function": "split_lines"},
                {"id": "fan", "fleet_id": fleet["id"]}, {"id": "last", "function": "join"}],
            "edges": [{"from": "first", "to": "lines"}, {"from": "lines", "to": "fan"}, {"from": "fan", "to": "last"}]}),
        )
        .await;
    assert_eq!(status, 201, "{formation}");
    let path = format!("/formations/{}/run", formation["id"].as_str().unwrap());
    let (_, accepted) = api.post(&path, json!({"input": "go"})).await;
    let id = accepted["formation_run_id"].as_str().unwrap().to_string();

    let ui = format!("{}/ui", server.url);
    browser.goto(&format!("{ui}/formation-runs/{id}")).await;
    let state = |node: &str, status: &str| {
        format!("return document.querySelector('#graph g[data-node=\"{node}\"]')?.dataset.status === '{status}'")
    };
    browser.wait_for(&state("first", "running"), LIMIT, "the first node running").await;
    browser.wait_for(&state("fan", "pending"), LIMIT, "the fleet node waiting for its input").await;
    let edges = browser.eval("return document.querySelectorAll('#graph path.edge').length").await;
    assert_eq!(edges, json!(3), "an arrow per edge");
    browser.screenshot("formation-run-live").await;
    for node in ["first", "lines", "fan", "last"] {
        browser.wait_for(&state(node, "succeeded"), LIMIT, &format!("{node} succeeded")).await;
    }
    let outputs = "return document.querySelector('#outputs')?.textContent.includes('\"last\": \"one\\\\ntwo\"')";
    browser.wait_for(outputs, LIMIT, "the outputs").await;
    let status = "return document.querySelector('#run-status .status')?.textContent === 'succeeded'";
    browser.wait_for(status, LIMIT, "the run succeeded").await;
    let work = "return document.querySelector('tr[data-node=\"fan\"] a')?.getAttribute('href')";
    let fan = browser.eval(work).await;
    assert!(
        fan.as_str().is_some_and(|href| href.starts_with("/ui/fleet-runs/")),
        "the fleet node links its fleet run: {fan}"
    );
    browser.screenshot("formation-run").await;

    // The list links to it; the page fits a phone's screen.
    browser.goto(&format!("{ui}/formations")).await;
    let listed = format!("return document.querySelector('tr[data-formation-run=\"{id}\"] a') !== null");
    browser.wait_for(&listed, LIMIT, "the formation run in the list").await;
    browser.screenshot("formations").await;
    browser.resize(390, 844).await;
    browser.goto(&format!("{ui}/formation-runs/{id}")).await;
    browser.wait_for("return document.querySelector('main').dataset.drawn === 'yes'", LIMIT, "the page").await;
    let width = browser.eval("return [window.innerWidth, document.documentElement.scrollWidth]").await;
    assert!(width[1].as_u64() <= width[0].as_u64(), "wider than a phone's screen: {width}");
    browser.screenshot("phone-formation-run").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_waiting_for_a_person_shows_waiting_then_goes_on() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let careful = api
        .create_agent(json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"], "options": {"script": [
            {"tool_calls": [{"name": "bash", "input": {"command": "echo checked"}}]}, {"text": "checked"}]}}))
        .await;
    let (_, formation) =
        api.post("/formations", json!({"name": "asks", "nodes": [{"id": "ask", "agent_id": careful}]})).await;
    let path = format!("/formations/{}/run", formation["id"].as_str().unwrap());
    let (_, accepted) = api.post(&path, json!({"input": "go"})).await;
    let id = accepted["formation_run_id"].as_str().unwrap().to_string();
    browser.goto(&format!("{}/ui/formation-runs/{id}", server.url)).await;
    let state = |status: &str| {
        format!("return document.querySelector('#graph g[data-node=\"ask\"]')?.dataset.status === '{status}'")
    };
    browser.wait_for(&state("waiting"), LIMIT, "the node waiting for a person").await;
    let row = "return document.querySelector('tr[data-node=\"ask\"] .status')?.textContent === 'waiting'";
    browser.wait_for(row, LIMIT, "the node's row waiting").await;
    // Events replayed or arriving later do not undo it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(browser.eval(row).await, true);
    assert_eq!(browser.eval(&state("waiting")).await, true);
    browser.screenshot("formation-run-waiting").await;
    let (_, shown) = api.get(&format!("/formation-runs/{id}")).await;
    let run = shown["nodes"][0]["run_id"].as_str().unwrap().to_string();
    let decisions = json!({"decisions": [{"call_id": "call_1_1", "decision": "approve"}]});
    assert_eq!(api.post(&format!("/runs/{run}/approve"), decisions).await.0, 202);
    browser.wait_for(&state("succeeded"), LIMIT, "the node succeeded").await;
}
