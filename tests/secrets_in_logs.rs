//! Secrets stay out of logs and stored events, with every process logging
//! at trace level: a webhook URL, an OTLP endpoint, an MCP server's URL and
//! the database URL show as `scheme://host:port` (the database without its
//! password), and what a stdio MCP server writes to its stderr has each
//! declared secret replaced by `[secret NAME]` before it is stored or
//! logged. Each URL carries a token in its path, its query and, where a URL
//! can, its password; the test looks for every token in every log line,
//! every event, and `wingman migrate`'s output.

mod common;

use std::time::Duration;

use common::{Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);
const SECRET: &str = "sekrit-VALUE-4242";
const TOKENS: &[&str] = &["PATHTOKEN", "QUERYTOKEN", "PASSWORDTOKEN", SECRET];

/// A URL to a port nobody listens on, with a token in every part (a
/// webhook's may carry no password: it is refused).
fn url_to(port: u16, what: &str) -> String {
    format!("http://user:PASSWORDTOKEN-{what}@127.0.0.1:{port}/{what}/PATHTOKEN-{what}?key=QUERYTOKEN-{what}")
}

fn assert_clean(what: &str, text: &str) {
    for token in TOKENS {
        let leak = text.lines().find(|line| line.contains(token));
        assert!(leak.is_none(), "{what} shows {token}: {}", leak.unwrap_or_default());
    }
}

on_both_backends! {
async fn no_secret_and_no_url_path_query_or_password_is_logged_or_stored(backend: Backend) {
    let mut env = TestEnv::on(backend);
    if backend == Backend::Postgres {
        // Trust authentication takes any password: the URL carries one.
        let url = env.database_url().replacen("postgres://postgres@", "postgres://postgres:PASSWORDTOKEN-db@", 1);
        assert!(url.contains("PASSWORDTOKEN-db"), "{url}");
        env.set("WINGMAN_DATABASE_URL", &url);
        let (code, out, err) = env.client_exit(&["migrate"]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("is up to date"), "{out}");
        assert_clean("wingman migrate", &format!("{out}{err}"));
    }
    env.set("WINGMAN_LOG", "trace");
    env.set("WINGMAN_ALLOW_WEBHOOK_HOSTS", "127.0.0.1");
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    env.set("WINGMAN_ALLOW_MCP_COMMANDS", "sh");
    let closed = common::free_port();
    env.set("OTEL_EXPORTER_OTLP_ENDPOINT", &url_to(closed, "otlp"));
    let server = env.server(0);
    let worker = env.worker();
    let api = server.api();
    let (status, body) = api.put("/secrets/TOKEN", json!({"value": SECRET})).await;
    assert_eq!(status, 200, "{body}");
    let echo = json!({"name": "echo", "command": "sh", "args": ["-c", "echo \"my token is $TOKEN\" >&2; exit 3"],
                      "env": {"TOKEN": {"secret": "TOKEN"}}});
    let web = json!({"name": "web", "url": url_to(closed, "mcp"), "headers": {"Authorization": {"secret": "TOKEN"}}});
    let agent = api.create_agent(json!({"name": "a", "mcp_servers": [echo, web]})).await;
    let session = api.create_session(&agent, None).await;
    let (status, run) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": "hi", "webhook": {"url": url_to(closed, "hook").replace("user:PASSWORDTOKEN-hook@", "")}})).await;
    assert_eq!(status, 202, "{run}");
    let run = run["run_id"].as_str().unwrap().to_string();
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    let events = api.events(&run).await;
    let unavailable: Vec<&Value> = events.iter().filter(|e| e["type"] == "tool_source_unavailable").collect();
    assert_eq!(unavailable.len(), 2, "{events:?}");
    let echoed = unavailable.iter().find(|e| e["server"] == "echo").unwrap()["error"].as_str().unwrap();
    assert!(echoed.contains("my token is [secret TOKEN]"), "the stderr, scrubbed: {echoed}");
    // The webhook is tried (and fails) at least once.
    let start = std::time::Instant::now();
    loop {
        let (_, deliveries) = api.get(&format!("/runs/{run}/deliveries")).await;
        let tried = deliveries["deliveries"].as_array().into_iter().flatten();
        if tried.filter_map(|d| d["log"].as_array()).any(|log| !log.is_empty()) {
            break;
        }
        assert!(start.elapsed() < LIMIT, "the webhook was never tried: {deliveries}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Let the exporter give up on the closed collector once.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_clean("the run's events", &serde_json::to_string_pretty(&events).unwrap());
    drop(worker);
    drop(server);
    for entry in std::fs::read_dir(env.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "log") {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("serve-") || name.starts_with("worker-") {
                assert!(text.lines().any(|l| l.contains(" TRACE ")), "{name} logs at trace level");
            }
            assert_clean(&path.display().to_string(), &text);
        }
    }
}
}
