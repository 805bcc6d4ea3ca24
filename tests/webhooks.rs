//! Webhooks through real processes: a local receiver that times out, then
//! answers 500, then 200 gets the run's end with a valid signature and one
//! delivery ID on every attempt; deliveries pending when every process is
//! SIGKILLed arrive after the restart; fleet and formation runs announce
//! their ends too; a private address is refused unless its host is allowed.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};
use wingman::tools::signature::{hex, hmac_sha256};

const SECRET: &str = "whsec_webhooks_test_key";
const LIMIT: Duration = Duration::from_secs(30);

/// One request the receiver took.
#[derive(Debug, Clone)]
struct Received {
    delivery: String,
    signed: bool,
    body: Value,
}

/// The test's receiver: what it took, and how it answers the next request.
#[derive(Clone, Default)]
struct Receiver {
    received: Arc<Mutex<Vec<Received>>>,
    /// Answers for the requests to come, in order: a status, or 0 for an
    /// answer that comes too late. Past them, 200.
    script: Arc<Mutex<Vec<u16>>>,
}

impl Receiver {
    /// Starts on 127.0.0.1; returns it and its URL.
    async fn start(script: &[u16]) -> (Receiver, String) {
        let receiver = Receiver { script: Arc::new(Mutex::new(script.to_vec())), ..Default::default() };
        let app = axum::Router::new().route("/hook", axum::routing::post(receive)).with_state(receiver.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (receiver, url)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until `count` requests came whose body is of type `kind`.
    async fn wait_for(&self, count: usize, kind: &str) -> Vec<Received> {
        let began = Instant::now();
        loop {
            let of_kind: Vec<Received> = self.received().into_iter().filter(|r| r.body["type"] == kind).collect();
            if of_kind.len() >= count {
                return of_kind;
            }
            assert!(began.elapsed() < LIMIT, "{count} × {kind} not received: {:?}", self.received());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(String::from);
    receiver.received.lock().unwrap().push(Received {
        delivery: header("wingman-delivery").unwrap_or_default(),
        signed: signature_holds(header("wingman-signature").as_deref(), &body),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let next = {
        let mut script = receiver.script.lock().unwrap();
        if script.is_empty() {
            200
        } else {
            script.remove(0)
        }
    };
    if next == 0 {
        tokio::time::sleep(Duration::from_secs(3)).await;
        return StatusCode::OK;
    }
    StatusCode::from_u16(next).unwrap()
}

/// True if `header` is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
/// under the test's secret, made within the last five minutes.
fn signature_holds(header: Option<&str>, body: &[u8]) -> bool {
    let Some((t, v1)) = header.and_then(|h| h.strip_prefix("t=")).and_then(|h| h.split_once(",v1=")) else {
        return false;
    };
    let Ok(seconds) = t.parse::<i64>() else { return false };
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(body);
    (chrono::Utc::now().timestamp() - seconds).abs() < 300 && hex(&hmac_sha256(SECRET.as_bytes(), &signed)) == v1
}

/// A test installation whose webhooks may reach 127.0.0.1, signed, with
/// attempts cut off after a second.
fn env_with_webhooks(backend: Backend) -> TestEnv {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_WEBHOOK_SECRET", SECRET);
    env.set("WINGMAN_ALLOW_WEBHOOK_HOSTS", "127.0.0.1");
    env.set("WINGMAN_WEBHOOK_TIMEOUT_MS", "1000");
    env
}

/// Sends `message` to a new session of an echo agent, announcing to `url`.
async fn send_announced(api: &Api, url: &str) -> String {
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let body = json!({"message": "ping", "webhook": {"url": url}});
    let (status, answer) = api.post(&format!("/sessions/{session}/message"), body).await;
    assert_eq!(status, 202, "{answer}");
    answer["run_id"].as_str().unwrap().to_string()
}

async fn deliveries(api: &Api, path: &str) -> Vec<Value> {
    let (status, answer) = api.get(path).await;
    assert_eq!(status, 200, "{answer}");
    answer["deliveries"].as_array().unwrap().clone()
}

/// Waits until the one delivery at `path` is `delivered`, and returns it.
async fn wait_delivered(api: &Api, path: &str) -> Value {
    let began = Instant::now();
    loop {
        let found = deliveries(api, path).await;
        if found.len() == 1 && found[0]["status"] == "delivered" {
            return found[0].clone();
        }
        assert!(began.elapsed() < LIMIT, "not delivered: {found:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

on_both_backends! {
async fn a_receiver_that_times_out_then_fails_gets_the_delivery_signed_with_one_id(backend: Backend) {
    let env = env_with_webhooks(backend);
    let (receiver, url) = Receiver::start(&[0, 500]).await;
    let server = env.server(1);
    let api = server.api();
    let run_id = send_announced(&api, &url).await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded");

    let received = receiver.wait_for(3, "run.finished").await;
    let delivery = wait_delivered(&api, &format!("/runs/{run_id}/deliveries")).await;
    assert!(received.iter().all(|r| r.signed), "every attempt signed: {received:?}");
    assert!(received.iter().all(|r| r.delivery == delivery["id"]), "one delivery ID: {received:?} {delivery}");
    assert!(received.iter().all(|r| r.body == received[0].body), "the same body every time");
    let body = &received[0].body;
    assert_eq!((body["id"].as_str(), body["status"].as_str()), (Some(run_id.as_str()), Some("succeeded")));
    assert_eq!(body["response"], "ping");
    assert_eq!(body["usage"]["output_tokens"], run["usage"]["output_tokens"]);

    assert_eq!((delivery["attempts"].as_u64(), delivery["subject"].as_str()), (Some(3), Some("run")));
    let log = delivery["log"].as_array().unwrap();
    let codes: Vec<Value> = log.iter().map(|a| a["status_code"].clone()).collect();
    assert_eq!(codes, [Value::Null, json!(500), json!(200)], "{delivery}");
    assert!(log[0]["error"].as_str().unwrap().contains("no answer within 1000 ms"), "{delivery}");
    assert!(log[1]["error"].as_str().unwrap().contains("500"), "{delivery}");

    let metrics = reqwest::get(format!("{}/metrics", server.url)).await.unwrap().text().await.unwrap();
    for line in ["wingman_webhook_deliveries_total{outcome=\"delivered\"} 1", "wingman_webhook_deliveries_total{outcome=\"retried\"} 2"] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
    assert_eq!(receiver.received().len(), 3, "nothing more once delivered");
}
}

on_both_backends! {
async fn deliveries_pending_when_every_process_is_killed_arrive_after_the_restart(backend: Backend) {
    let env = env_with_webhooks(backend);
    // Down until the restart: every attempt before it fails.
    let (receiver, url) = Receiver::start(&[503; 1000]).await;
    let mut server = env.server(0);
    let mut worker = env.worker();
    let api = server.api();
    let run_id = send_announced(&api, &url).await;
    api.wait_terminal(&run_id, LIMIT).await;
    receiver.wait_for(1, "run.finished").await;
    server.process.kill9();
    worker.kill9();

    receiver.script.lock().unwrap().clear();
    let server = env.server(0);
    let api = server.api();
    let delivery = wait_delivered(&api, &format!("/runs/{run_id}/deliveries")).await;
    let received = receiver.received();
    assert!(received.len() >= 2, "{received:?}");
    assert!(received.iter().all(|r| r.delivery == delivery["id"] && r.signed), "{received:?}");
    let log = delivery["log"].as_array().unwrap();
    assert_eq!(log.last().unwrap()["status_code"], 200, "{delivery}");
}
}

on_both_backends! {
async fn fleet_and_formation_runs_announce_their_ends(backend: Backend) {
    let env = env_with_webhooks(backend);
    let (receiver, url) = Receiver::start(&[]).await;
    let server = env.server(2);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let fleet = fleet["id"].as_str().unwrap().to_string();
    let tasks = json!({"tasks": [{"message": "a"}, {"message": "b"}], "webhook": {"url": url}});
    let (status, fleet_run) = api.post(&format!("/fleets/{fleet}/run"), tasks).await;
    assert_eq!(status, 202, "{fleet_run}");
    let fleet_run = fleet_run["fleet_run_id"].as_str().unwrap().to_string();
    let nodes = json!({"name": "one", "nodes": [{"id": "only", "agent_id": agent}], "edges": []});
    let (status, formation) = api.post("/formations", nodes).await;
    assert_eq!(status, 201, "{formation}");
    let path = format!("/formations/{}/run", formation["id"].as_str().unwrap());
    let (status, formation_run) = api.post(&path, json!({"input": "hello", "webhook": {"url": url}})).await;
    assert_eq!(status, 202, "{formation_run}");
    let formation_run = formation_run["formation_run_id"].as_str().unwrap().to_string();

    let fleet_body = &receiver.wait_for(1, "fleet_run.finished").await[0].body;
    assert_eq!((fleet_body["id"].as_str(), fleet_body["status"].as_str()), (Some(fleet_run.as_str()), Some("succeeded")));
    assert_eq!(fleet_body["counts"], json!({"total": 2, "succeeded": 2, "failed": 0, "cancelled": 0}));
    let formation_body = &receiver.wait_for(1, "formation_run.finished").await[0].body;
    assert_eq!(formation_body["id"], formation_run.as_str());
    assert_eq!(formation_body["outputs"], json!({"only": "hello"}));
    wait_delivered(&api, &format!("/fleet-runs/{fleet_run}/deliveries")).await;
    wait_delivered(&api, &format!("/formation-runs/{formation_run}/deliveries")).await;
    let (_, tasks) = api.get(&format!("/runs?fleet_run_id={fleet_run}")).await;
    for task in tasks["runs"].as_array().unwrap() {
        let id = task["id"].as_str().unwrap();
        assert!(deliveries(&api, &format!("/runs/{id}/deliveries")).await.is_empty(), "a task is not announced");
    }
    assert_eq!(receiver.received().len(), 2, "{:?}", receiver.received());
    let (status, _) = api.get("/fleet-runs/nope/deliveries").await;
    assert_eq!(status, 404);
}
}

#[tokio::test]
async fn a_private_address_is_refused_unless_its_host_is_allowed() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let message = |url: &str| json!({"message": "ping", "webhook": {"url": url}});
    let (status, answer) = api.post(&format!("/sessions/{session}/message"), message("http://127.0.0.1:9/hook")).await;
    assert_eq!(status, 422, "{answer}");
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("--allow-webhook-host 127.0.0.1 (WINGMAN_ALLOW_WEBHOOK_HOSTS)"), "{error}");
    let (status, answer) = api.post(&format!("/sessions/{session}/message"), message("ftp://example.com/")).await;
    assert_eq!(status, 400, "{answer}");
    let (status, answer) = api.post("/agents", json!({"name": "a", "webhook": {"url": "http://localhost/h"}})).await;
    assert_eq!(status, 422, "{answer}");
    let (_, runs) = api.get(&format!("/runs?session_id={session}")).await;
    assert_eq!(runs["runs"], json!([]), "nothing written");

    // A public name passes; its addresses are checked at each attempt.
    let (status, answer) =
        api.post(&format!("/sessions/{session}/message"), message("https://hooks.example.com/x")).await;
    assert_eq!(status, 202, "{answer}");
    let (status, agent) =
        api.put(&format!("/agents/{agent}"), json!({"webhook": {"url": "https://hooks.example.com/a"}})).await;
    assert_eq!((status, agent["webhook"]["url"].as_str()), (200, Some("https://hooks.example.com/a")));
    let (status, agent) =
        api.put(&format!("/agents/{}", agent["id"].as_str().unwrap()), json!({"webhook": null})).await;
    assert_eq!((status, agent.get("webhook")), (200, None), "null removes it");
}
