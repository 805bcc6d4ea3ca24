//! HTTP tools through a real server and a separate worker process: a local
//! service that checks every request's signature and records its
//! idempotency key answers as each case needs (fails twice then answers,
//! always fails, refuses, hangs), and the network policy keeps a private
//! address out of reach unless the operator allows its host.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use common::Backend;
use common::{assert_dense, Api, TestEnv};
use serde_json::{json, Value};
use wingman::tools::signature::{hex, hmac_sha256};

const SECRET: &str = "whsec_tools_http_test_key";

/// One request the service received.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    key: String,
    signed: bool,
    body: Value,
}

/// The test's service: what it received, and the secret it verifies with.
#[derive(Clone)]
struct Service {
    seen: Arc<Mutex<Vec<Seen>>>,
    secret: Option<&'static str>,
}

impl Service {
    /// Starts the service on 127.0.0.1 and returns it with its base URL.
    async fn start(secret: Option<&'static str>) -> (Service, String) {
        let service = Service { seen: Arc::default(), secret };
        let app = axum::Router::new().route("/{case}", axum::routing::post(receive)).with_state(service.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (service, base)
    }

    fn requests(&self, path: &str) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|s| s.path == path).cloned().collect()
    }
}

/// True if `header` is `t=<unix seconds>,v1=<hex HMAC>` of "<t>.<body>"
/// under `secret`, made within the last five minutes.
fn signature_holds(header: Option<&str>, secret: &str, body: &[u8]) -> bool {
    let Some((t, v1)) = header.and_then(|h| h.strip_prefix("t=")).and_then(|h| h.split_once(",v1=")) else {
        return false;
    };
    let Ok(seconds) = t.parse::<i64>() else { return false };
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    let fresh = (chrono::Utc::now().timestamp() - seconds).abs() < 300;
    fresh && hex(&hmac_sha256(secret.as_bytes(), &signed)) == v1
}

/// Records the request, then answers as its path says: `flaky` fails
/// twice then answers, `down` always fails, `missing` is a 404, `slow`
/// answers too late, `echo` answers with the input.
async fn receive(
    State(service): State<Service>,
    Path(case): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(String::from);
    let signed = match service.secret {
        Some(secret) => signature_holds(header("wingman-signature").as_deref(), secret, &body),
        None => header("wingman-signature").is_none(),
    };
    let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let key = header("idempotency-key").unwrap_or_default();
    let seen = Seen { path: case.clone(), key, signed, body: json.clone() };
    let count = {
        let mut all = service.seen.lock().unwrap();
        all.push(seen);
        all.iter().filter(|s| s.path == case).count()
    };
    match case.as_str() {
        "flaky" if count <= 2 => (StatusCode::INTERNAL_SERVER_ERROR, format!("hiccup {count}")),
        "flaky" => (StatusCode::OK, format!("order {} ships tomorrow", json["input"]["order"])),
        "down" => (StatusCode::INTERNAL_SERVER_ERROR, "database on fire".into()),
        "missing" => (StatusCode::NOT_FOUND, "no such order: 404-7".into()),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            (StatusCode::OK, "too late".into())
        }
        _ => (StatusCode::OK, json["input"].to_string()),
    }
}

fn http_tool(name: &str, base: &str, case: &str, timeout_ms: u64) -> Value {
    json!({"name": name, "description": format!("the {case} service"), "url": format!("{base}/{case}"),
           "input_schema": {"type": "object", "properties": {"order": {"type": "integer"}}},
           "headers": {"X-Api-Key": "tenant-7"}, "timeout_ms": timeout_ms})
}

fn call(name: &str, order: u64) -> Value {
    json!({"tool_calls": [{"name": name, "input": {"order": order}}]})
}

/// Creates a scripted agent with these HTTP tools through `POST /agents`.
async fn http_agent(api: &Api, http_tools: Value, script: Value) -> String {
    api.create_agent(json!({"name": "orders", "tools": [], "http_tools": http_tools, "options": {"script": script}}))
        .await
}

/// Runs a message to its end and returns the run's ID and events.
async fn run_to_end(api: &Api, agent: &str) -> (String, Vec<Value>) {
    let session = api.create_session(agent, None).await;
    let run = api.send(&session, "check my orders").await;
    let finished = api.wait_terminal(&run, Duration::from_secs(90)).await;
    assert_eq!(finished["status"], "succeeded", "a tool's failure is not the run's: {finished}");
    let events = api.events(&run).await;
    assert_dense(&events);
    (run, events)
}

/// The `tool_result` of the call to `name`, and its call's ID.
fn result_of<'a>(events: &'a [Value], name: &str) -> (&'a Value, String) {
    let result = events.iter().find(|e| e["type"] == "tool_result" && e["name"] == name).expect(name);
    (result, result["call_id"].as_str().unwrap().to_string())
}

/// Checks that the service got `tries` requests for the call, all with its
/// key, a valid signature and the same body.
fn assert_tries(service: &Service, case: &str, run: &str, call_id: &str, tries: usize) {
    let seen = service.requests(case);
    assert_eq!(seen.len(), tries, "{case}: {seen:?}");
    for request in &seen {
        assert_eq!(request.key, format!("{run}/{call_id}"), "{case}: one key for every try");
        assert!(request.signed, "{case}: every try is signed: {request:?}");
        assert_eq!(request.body["run_id"], run);
        assert_eq!(request.body["call_id"], call_id);
        assert_eq!(request.body["tool"], format!("{case}_order"));
        assert!(request.body["input"]["order"].is_u64(), "{request:?}");
    }
}

// Each way a service answers, in one run: the answers that end a call, the
// retries that end in an answer or an error, and the run going on after each.
on_both_backends! {
async fn a_signed_call_is_retried_with_one_key_and_every_answer_becomes_a_result(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_ALLOW_TOOL_HOSTS", "127.0.0.1");
    env.set("WINGMAN_TOOL_SIGNING_SECRET", SECRET);
    let server = env.server(0);
    let worker = env.worker();
    let api = server.api();
    let (service, base) = Service::start(Some(SECRET)).await;
    let tools = json!(["flaky", "missing", "down", "slow"].map(|c| http_tool(&format!("{c}_order"), &base, c, 400)));
    let script = json!([call("flaky_order", 7), call("missing_order", 8), call("down_order", 9),
                        call("slow_order", 10), {"text": "all four answered"}]);
    let agent = http_agent(&api, tools, script).await;
    let (run, events) = run_to_end(&api, &agent).await;
    assert_eq!(api.run(&run).await["response"], "all four answered", "the run went on after every result");

    let (flaky, id) = result_of(&events, "flaky_order");
    assert_eq!((flaky["is_error"].clone(), flaky["output"].clone()), (json!(false), json!("order 7 ships tomorrow")));
    assert_tries(&service, "flaky", &run, &id, 3);
    let (missing, id) = result_of(&events, "missing_order");
    let text = missing["output"].as_str().unwrap();
    assert!(missing["is_error"] == true && text.contains("404 Not Found") && text.contains("no such order: 404-7"), "{missing}");
    assert_tries(&service, "missing", &run, &id, 1);
    let (down, id) = result_of(&events, "down_order");
    let text = down["output"].as_str().unwrap();
    assert!(down["is_error"] == true && text.contains("3 tries") && text.contains("500") && text.contains("database on fire"), "{down}");
    assert_tries(&service, "down", &run, &id, 3);
    let (slow, id) = result_of(&events, "slow_order");
    assert!(slow["is_error"] == true && slow["output"].as_str().unwrap().contains("timed out after 400 ms"), "{slow}");
    assert_tries(&service, "slow", &run, &id, 3);

    assert!(service.requests("flaky").iter().all(|r| r.body["input"] == json!({"order": 7})));
    let shown = format!("{}{}{}", api.transcript(), worker.log_text(), server.process.log_text());
    assert!(!shown.contains(SECRET), "the signing secret is never shown or logged");
}
}

// The service is on loopback: unless the operator allows it, no request
// leaves the worker and the result says which setting would allow it.
on_both_backends! {
async fn a_private_address_is_refused_unless_the_host_is_allowed(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let (service, base) = Service::start(None).await;
    let tools = json!([http_tool("echo_order", &base, "echo", 5_000)]);
    let agent = http_agent(&api, tools, json!([call("echo_order", 1), {"text": "refused"}])).await;
    let (_, events) = run_to_end(&api, &agent).await;
    let (refused, _) = result_of(&events, "echo_order");
    let text = refused["output"].as_str().unwrap();
    assert_eq!(refused["is_error"], true, "{refused}");
    assert!(text.contains("127.0.0.1") && text.contains("loopback"), "{text}");
    assert!(text.contains("--allow-tool-host 127.0.0.1") && text.contains("WINGMAN_ALLOW_TOOL_HOSTS"), "{text}");
    assert!(service.requests("echo").is_empty(), "the service got no request");
}
}

// Without a secret, calls go unsigned; the tool's own headers are sent.
#[tokio::test]
async fn an_unsigned_call_sends_the_body_and_the_key_without_a_signature() {
    use wingman::domain::model::ToolCall;
    let (service, base) = Service::start(None).await;
    let agent = agent_with(http_tool("echo_order", &base, "echo", 5_000));
    let mut ctx = wingman::tools::ToolContext::new(std::env::temp_dir());
    ctx.granted = vec!["echo_order".into()];
    ctx.run_id = "run_1".into();
    ctx.outside = Arc::new(wingman::tools::outside::OutsideConfig::new(&["127.0.0.1".into()], None));
    let call = ToolCall { id: "call_9".into(), name: "echo_order".into(), input: json!({"order": 3}) };
    let output = wingman::tools::call(&call, &agent, &ctx).await;
    assert_eq!((output.is_error, output.output.as_str()), (false, r#"{"order":3}"#));
    let seen = service.requests("echo");
    assert_eq!(seen.len(), 1);
    assert!(seen[0].signed, "no signature header without a secret");
    assert_eq!(seen[0].key, "run_1/call_9");
    assert_eq!(
        seen[0].body,
        json!({"run_id": "run_1", "call_id": "call_9", "tool": "echo_order", "input": {"order": 3}})
    );
}

// A cancelled run stops a call in flight at once, whatever its timeout.
#[tokio::test]
async fn a_cancelled_run_stops_a_call_at_once() {
    use wingman::domain::model::ToolCall;
    let (service, base) = Service::start(None).await;
    let agent = agent_with(http_tool("slow_order", &base, "slow", 600_000));
    let mut ctx = wingman::tools::ToolContext::new(std::env::temp_dir());
    ctx.granted = vec!["slow_order".into()];
    ctx.allow_private_network = true;
    let call = ToolCall { id: "call_1".into(), name: "slow_order".into(), input: json!({"order": 1}) };
    let cancel = ctx.cancel.clone();
    let calling = tokio::spawn(async move { wingman::tools::call(&call, &agent, &ctx).await });
    while service.requests("slow").is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    cancel.cancel();
    let output = tokio::time::timeout(Duration::from_secs(60), calling).await.expect("the call stopped").unwrap();
    assert!(output.is_error && output.output.contains("cancelled"), "{output:?}");
}

fn agent_with(tool: Value) -> wingman::domain::model::Agent {
    serde_json::from_value(json!({
        "id": "a", "name": "a", "provider": "scripted", "model": "echo", "tools": [], "http_tools": [tool],
        "max_steps": 5, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    }))
    .unwrap()
}

// The secret is a flag and a variable; help names them and never the value.
#[test]
fn help_shows_the_signing_flags_but_never_the_secret() {
    for command in ["serve", "worker"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_wingman"))
            .args([command, "--help"])
            .env("WINGMAN_TOOL_SIGNING_SECRET", SECRET)
            .env("WINGMAN_ALLOW_TOOL_HOSTS", "tools.internal")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--tool-signing-secret") && help.contains("WINGMAN_TOOL_SIGNING_SECRET"), "{help}");
        assert!(help.contains("--allow-tool-host") && help.contains("WINGMAN_ALLOW_TOOL_HOSTS"), "{help}");
        assert!(!help.contains(SECRET), "{command} --help shows the secret");
    }
}
