//! DNS rebinding: the server answers only to its own names, on every route,
//! and takes state-changing requests only from pages served under them.
//! Refused requests are a 403 `{"error"}` and change nothing.

mod common;

use common::routes::every_route as routes;
use common::{Api, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

/// Everything a refused request could have changed.
async fn state(api: &Api) -> Value {
    let mut all = json!({});
    for path in ["/agents", "/sessions", "/fleets", "/fleet-runs", "/runs", "/provider/auth", "/secrets"] {
        all[path] = api.get(path).await.1;
    }
    all
}

async fn send(api: &Api, method: Method, path: &str, body: Option<Value>, headers: &[(&str, &str)]) -> (u16, Value) {
    let answer = api.send_with(method, path, body, headers).await;
    (answer.status, answer.body)
}

/// An agent, a session and a queued run (no worker: it stays queued).
async fn resources(api: &Api) -> (String, String, String) {
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hello").await;
    (agent, session, run)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_is_refused_on_every_route_and_changes_nothing() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let (agent, session, run) = resources(&api).await;
    let port = server.url.rsplit(':').next().unwrap().to_string();
    let before = state(&api).await;
    for host in
        [format!("attacker.example:{port}"), "attacker.example".into(), format!("localhost.evil.example:{port}")]
    {
        for (method, path, body) in routes(&agent, &session, &run) {
            let (status, answer) = send(&api, method.clone(), &path, body, &[("host", &host)]).await;
            assert_eq!(status, 403, "{method} {path} with Host {host}: {answer}");
            let error = answer["error"].as_str().unwrap_or_else(|| panic!("{method} {path}: not a JSON error"));
            assert!(error.contains("does not answer to the host") && error.contains("--allowed-host"), "{error}");
        }
    }
    assert_eq!(state(&api).await, before, "a refused request changed something");
    // The server's own names are answered.
    for host in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
        let (status, _) = send(&api, Method::GET, "/health", None, &[("host", &host)]).await;
        assert_eq!(status, 200, "{host}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_of_other_origins_cannot_change_state() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let (agent, session, run) = resources(&api).await;
    let port = server.url.rsplit(':').next().unwrap().to_string();
    let before = state(&api).await;
    for origin in ["http://attacker.example", "null", "http://localhost:9", "https://127.0.0.1.nip.io"] {
        for (method, path, body) in routes(&agent, &session, &run) {
            let (status, answer) = send(&api, method.clone(), &path, body, &[("origin", origin)]).await;
            if method == Method::GET {
                // Reading is harmless: a browser does not show another origin the answer.
                assert_ne!(status, 403, "{method} {path} from {origin}: {answer}");
            } else {
                assert_eq!(status, 403, "{method} {path} from {origin}: {answer}");
                assert!(answer["error"].as_str().unwrap().contains("not accepted from pages of the origin"));
            }
        }
    }
    assert_eq!(state(&api).await, before, "a refused request changed something");
    // A page the server itself serves may.
    let own = format!("http://localhost:{port}");
    let (status, body) = send(&api, Method::POST, "/agents", Some(json!({"name": "ok"})), &[("origin", &own)]).await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_hosts_reach_the_server_under_other_names() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_ALLOWED_HOSTS", "wingman.internal,ops.example.com");
    let server = env.server(0);
    let api = server.api();
    for host in ["wingman.internal", "wingman.internal:8443", "OPS.example.com:80"] {
        let (status, body) = send(&api, Method::GET, "/health", None, &[("host", host)]).await;
        assert_eq!(status, 200, "{host}: {body}");
    }
    let (status, _) = send(&api, Method::GET, "/health", None, &[("host", "attacker.example")]).await;
    assert_eq!(status, 403);
    let origin = [("host", "wingman.internal"), ("origin", "https://wingman.internal")];
    let (status, body) = send(&api, Method::POST, "/agents", Some(json!({"name": "proxied"})), &origin).await;
    assert_eq!(status, 201, "{body}");
}
