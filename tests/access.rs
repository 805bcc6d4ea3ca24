//! Who may call the server and where agents may work: `--auth-token` on
//! every route, the guard on public addresses, `--work-root`, and
//! `--cors-origin` for a web UI served elsewhere.

mod common;

use common::routes::every_route;
use common::{Answer, Api, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const TOKEN: &str = "wm-test-token-9f3c1a7e5b";

async fn send(api: &Api, method: Method, path: &str, body: Option<Value>, headers: &[(&str, &str)]) -> Answer {
    api.send_with(method, path, body, headers).await
}

/// Everything a refused request could have changed, read with the token.
async fn state(api: &Api) -> Value {
    let bearer = format!("Bearer {TOKEN}");
    let mut all = json!({});
    for path in ["/agents", "/sessions", "/fleets", "/fleet-runs", "/runs", "/provider/auth", "/secrets"] {
        all[path] = send(api, Method::GET, path, None, &[("authorization", &bearer)]).await.body;
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_every_route_but_health_answers_401_without_it() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    // Everything the server logs, request spans included, is searched for the token.
    env.set("WINGMAN_LOG", "debug");
    let server = env.server(0);
    let api = server.api_with_token(TOKEN);
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hello").await;
    let before = state(&api).await;
    let bearer = format!("Bearer {TOKEN}");
    let wrong = format!("Bearer {TOKEN}x");
    let anonymous = server.api();
    for (method, path, body) in every_route(&agent, &session, &run) {
        for headers in [vec![], vec![("authorization", wrong.as_str())], vec![("authorization", "Basic d3Q6eA==")]] {
            let answer = send(&anonymous, method.clone(), &path, body.clone(), &headers).await;
            if path == "/health" {
                assert_eq!(answer.status, 200, "GET /health needs no token");
                continue;
            }
            assert_eq!(answer.status, 401, "{method} {path} with {headers:?}: {}", answer.body);
            assert!(answer.body["error"].is_string(), "{method} {path}: {}", answer.body);
            assert_eq!(answer.header("www-authenticate"), Some("Bearer realm=\"wingman\""), "{method} {path}");
        }
    }
    assert_eq!(state(&api).await, before, "a request without the token changed something");
    // A live tail takes the token too.
    let tail = api.http.get(format!("{}/runs/{run}/events", api.base)).header("accept", "text/event-stream");
    let response = tail.send().await.unwrap();
    assert_eq!(response.status(), 200);
    drop(response);
    // With the token, every route answers as it would without auth (the
    // run is cancelled, then deleted, on the way).
    for (method, path, body) in every_route(&agent, &session, &run) {
        let answer = send(&anonymous, method.clone(), &path, body, &[("authorization", &bearer)]).await;
        assert!(answer.status != 401 && answer.status < 500, "{method} {path}: {} {}", answer.status, answer.body);
    }
    // The scheme's name is case-insensitive.
    let lower = format!("bearer {TOKEN}");
    let answer = send(&anonymous, Method::GET, "/agents", None, &[("authorization", &lower)]).await;
    assert_eq!(answer.status, 200);
    let log = server.process.log_text();
    assert!(log.contains("/agents"), "the debug log shows requests: {log}");
    assert!(!log.contains(TOKEN) && !log.contains(&TOKEN[3..]), "the token reached the log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_address_needs_a_token_unless_told_otherwise() {
    let env = TestEnv::new();
    let (code, _, stderr) = env.client_exit(&["serve", "--addr", "0.0.0.0:0", "--workers", "0"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("--auth-token") && stderr.contains("--insecure-public"), "{stderr}");
    let (code, _, stderr) = env.client_exit(&["serve", "--addr", "127.0.0.1:0", "--workers", "0", "--auth-token", " "]);
    assert!(code != 0 && stderr.contains("must not be empty"), "{stderr}");
    let mut open = TestEnv::new();
    open.set("WINGMAN_INSECURE_PUBLIC", "true");
    let server = open.server_at(0, "0.0.0.0:0");
    assert_eq!(server.api().get("/agents").await.0, 200);
    let mut guarded = TestEnv::new();
    guarded.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = guarded.server_at(0, "0.0.0.0:0");
    assert_eq!(server.api().get("/agents").await.0, 401);
    assert_eq!(server.api_with_token(TOKEN).get("/agents").await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_work_root_every_work_dir_must_resolve_inside_it() {
    let mut env = TestEnv::new();
    let root = env.path().join("root");
    std::fs::create_dir_all(root.join("inside")).unwrap();
    std::os::unix::fs::symlink(env.path(), root.join("escape")).unwrap();
    env.set("WINGMAN_WORK_ROOT", &root.display().to_string());
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let outside = env.path().join("outside");
    let refused = [
        outside.display().to_string(),
        "/etc".to_string(),
        format!("{}/inside/../../outside", root.display()),
        format!("{}/escape/new", root.display()),
    ];
    let session = api.create_session(&agent, Some(&root.join("inside"))).await;
    let (status, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    assert_eq!(status, 201, "{fleet}");
    let fleet = fleet["id"].as_str().unwrap().to_string();
    for dir in &refused {
        let (status, body) = api.post("/sessions", json!({"agent_id": agent, "work_dir": dir})).await;
        assert_eq!(status, 422, "POST /sessions {dir}: {body}");
        assert!(body["error"].as_str().unwrap().contains("work root"), "{body}");
        let (status, body) = api.put(&format!("/sessions/{session}"), json!({"work_dir": dir})).await;
        assert_eq!(status, 422, "PUT {dir}: {body}");
        let (status, body) = api.post("/fleets", json!({"name": "g", "agent_id": agent, "work_dir": dir})).await;
        assert_eq!(status, 422, "POST /fleets {dir}: {body}");
        let tasks = json!({"tasks": [{"message": "x", "work_dir": dir}]});
        let (status, body) = api.post(&format!("/fleets/{fleet}/run"), tasks).await;
        assert_eq!(status, 422, "a fleet run's task in {dir}: {body}");
    }
    assert!(!outside.exists() && !env.path().join("new").exists(), "a refused work_dir was created");
    assert_eq!(api.get("/sessions").await.1.as_array().unwrap().len(), 1, "a refused POST created a session");
    // A directory inside the root that does not exist yet: the API accepts
    // it and creates nothing; the worker makes it for the run.
    let fresh = root.join("inside/new/deeper");
    let bash = api.create_agent(common::bash_script(&["echo made > here.txt".into()], "done")).await;
    let session = api.create_session(&bash, Some(&fresh)).await;
    assert!(!fresh.exists(), "the API created the work_dir");
    let run = api.send(&session, "hello").await;
    let done = api.wait_terminal(&run, std::time::Duration::from_secs(20)).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert!(fresh.join("here.txt").is_file(), "the worker made the work_dir and the tool ran in it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ui_of_another_origin_may_call_the_api_when_named() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_CORS_ORIGINS", "http://ui.example:5173,https://ops.example");
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(0);
    let api = server.api_with_token(TOKEN);
    let anonymous = server.api();
    let ui = "http://ui.example:5173";
    // A preflight carries no token and is answered.
    let preflight = [
        ("origin", ui),
        ("access-control-request-method", "POST"),
        ("access-control-request-headers", "authorization, content-type"),
    ];
    let answer = send(&anonymous, Method::OPTIONS, "/agents", None, &preflight).await;
    assert_eq!(answer.status, 204);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ui));
    let allowed = answer.header("access-control-allow-headers").unwrap();
    assert!(allowed.contains("authorization") && allowed.contains("content-type") && allowed.contains("last-event-id"));
    assert!(answer.header("access-control-allow-methods").unwrap().contains("POST"));
    // Another origin's preflight gets no permission; neither does a plain OPTIONS.
    let other = [("origin", "http://evil.example"), ("access-control-request-method", "POST")];
    let answer = send(&anonymous, Method::OPTIONS, "/agents", None, &other).await;
    assert_eq!((answer.status, answer.header("access-control-allow-origin")), (204, None));
    let answer = send(&anonymous, Method::OPTIONS, "/runs", None, &[]).await;
    assert_eq!(answer.status, 204);
    assert!(answer.header("allow").unwrap().contains("GET"));
    // The request itself: the named origin's page may change state and read the answer.
    let bearer = format!("Bearer {TOKEN}");
    let body = Some(json!({"name": "from-ui"}));
    let answer =
        send(&anonymous, Method::POST, "/agents", body.clone(), &[("origin", ui), ("authorization", &bearer)]).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.header("access-control-allow-origin"), Some(ui));
    // Errors too, so the page can show them.
    let answer = send(&anonymous, Method::GET, "/agents", None, &[("origin", ui)]).await;
    assert_eq!((answer.status, answer.header("access-control-allow-origin")), (401, Some(ui)));
    // Another origin's page is refused before anything changes.
    let evil = [("origin", "http://evil.example"), ("authorization", bearer.as_str())];
    let answer = send(&anonymous, Method::POST, "/agents", body, &evil).await;
    assert_eq!((answer.status, answer.header("access-control-allow-origin")), (403, None));
    assert_eq!(api.get("/agents").await.1.as_array().unwrap().len(), 1);
}
