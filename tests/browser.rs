//! A browser as a client: a page's EventSource, served from another origin
//! (`--cors-origin`), tails a run across a server SIGKILL and restart, sees
//! every event once in order, and stops reconnecting after `done`.

mod common;

use std::time::Duration;

use common::browser::Browser;
use common::TestEnv;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The page: one EventSource on the run's events, every frame kept in
/// `window.seen`, the connection's openings and errors counted.
const PAGE: &str = r#"<!doctype html>
<meta charset="utf-8"><title>tail</title>
<pre id="log"></pre>
<script>
const params = new URLSearchParams(location.search);
const kinds = ["run_queued", "run_started", "run_resumed", "run_handed_back", "step_started", "text_delta",
  "tool_call", "tool_result", "step_completed", "step_restarted", "approval_requested", "approval_decided",
  "steered", "done"];
window.seen = []; window.opens = 0; window.errors = 0;
const source = new EventSource(params.get("api") + "/runs/" + params.get("run") + "/events");
window.source = source;
source.onopen = () => window.opens++;
source.onerror = () => window.errors++;
for (const kind of kinds) {
  source.addEventListener(kind, (e) => {
    window.seen.push({id: e.lastEventId, type: e.type, seq: JSON.parse(e.data).seq});
    document.getElementById("log").textContent += e.lastEventId + " " + e.type + "\n";
  });
}
</script>
"#;

/// Serves the page to every request, from an origin of its own.
async fn serve_page() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    PAGE.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(PAGE.as_bytes()).await;
            });
        }
    });
    origin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_source_tails_a_run_across_a_server_restart_and_stops_after_done() {
    let Some(browser) = Browser::start().await else { return };
    let page = serve_page().await;
    let mut env = TestEnv::new();
    env.set("WINGMAN_CORS_ORIGINS", &page);
    let addr = format!("127.0.0.1:{}", common::free_port());
    let mut server = env.server_at(0, &addr);
    let _worker = env.worker();
    let api = server.api();
    let steps: Vec<String> = (0..8).map(|i| format!("sleep 0.4; echo step {i}")).collect();
    let agent = api.create_agent(common::bash_script(&steps, "all steps done")).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    browser.goto(&format!("{page}/tail.html?api={}&run={run}", server.url)).await;
    browser.wait_for("return window.seen.length >= 4", Duration::from_secs(20), "the first events").await;

    // The server dies mid-stream; the worker goes on. A server on the same
    // address takes over and the page reconnects to it by itself.
    server.process.kill9();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let server = env.server_at(0, &addr);
    let done = server.api().wait_terminal(&run, Duration::from_secs(60)).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let done_seen = "return window.seen.some((e) => e.type === 'done')";
    browser.wait_for(done_seen, Duration::from_secs(20), "the done event").await;
    browser.screenshot("eventsource-tail").await;

    // After `done` the stream closes and the browser reconnects once (after
    // the `retry:` hint, 1 s); the 204 it gets then closes the EventSource.
    let closed = "return window.source.readyState === EventSource.CLOSED";
    browser.wait_for(closed, Duration::from_secs(10), "the EventSource closed after a 204").await;
    let errors = browser.eval("return window.errors").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(browser.eval("return window.errors").await, errors, "the page kept reconnecting");
    assert_eq!(browser.eval(closed).await, Value::Bool(true));

    // Every event once, in order of seq, the same as the log.
    let seen = browser.eval("return window.seen").await;
    let seen = seen.as_array().unwrap();
    let log = server.api().events(&run).await;
    let ids: Vec<u64> = seen.iter().map(|e| e["id"].as_str().unwrap().parse().unwrap()).collect();
    let expected: Vec<u64> = (1..=log.len() as u64).collect();
    assert_eq!(ids, expected, "the page saw each event once, in order");
    for (event, logged) in seen.iter().zip(&log) {
        assert_eq!((&event["type"], &event["seq"]), (&logged["type"], &logged["seq"]));
    }
    let opens = browser.eval("return window.opens").await.as_u64().unwrap();
    assert!(opens >= 2, "the page reconnected after the server's restart ({opens} opens)");
    eprintln!("the page saw {} events over {opens} connections", seen.len());
}
