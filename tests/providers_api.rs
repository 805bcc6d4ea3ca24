//! The provider registry and credentials over HTTP: `GET /provider`,
//! `GET|PUT /provider/auth`, `DELETE /provider/auth/{provider}`, and the
//! validation of agents that name real providers. A key put in never comes out.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use wingman::api::ApiConfig;
use wingman::app::{Application, ServerConfig};
use wingman::store::StoreOptions;
use wingman::submit::SubmitConfig;
use wingman::worker::WorkerConfig;

/// The first admin: the owner of the values stored before owners existed, which every owner shares.
const ADMIN: &str = wingman::domain::model::FIRST_ADMIN;

const KEY: &str = "sk-ant-api-SENTINEL-a1b2c3d4e5f6";

struct Server {
    url: String,
    store: std::sync::Arc<dyn wingman::store::Store>,
    shutdown: CancellationToken,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn start() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store =
        wingman::store::open(dir.path().join("w.db").to_str().unwrap(), &StoreOptions::default()).await.unwrap();
    let config = ServerConfig {
        api: ApiConfig {
            submit: SubmitConfig { data_dir: dir.path().to_path_buf(), ..SubmitConfig::default() },
            ..ApiConfig::default()
        },
        workers: 0,
        worker: WorkerConfig::default(),
        event_poll: Duration::from_millis(5),
        connections: Default::default(),
        retention: None,
        delivery: Default::default(),
    };
    let app = Application::build(store.clone(), "127.0.0.1:0".parse().unwrap(), config).await.unwrap();
    let url = format!("http://127.0.0.1:{}", app.port());
    let shutdown = CancellationToken::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    Server { url, store, shutdown, _dir: dir }
}

async fn send(method: reqwest::Method, url: String, body: Option<Value>) -> (StatusCode, String) {
    let mut request = reqwest::Client::new().request(method, url);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn the_catalogue_lists_real_providers_with_auth_and_options() {
    let s = start().await;
    let (status, body) = send(reqwest::Method::GET, format!("{}/provider", s.url), None).await;
    assert_eq!(status, StatusCode::OK);
    let body: Value = serde_json::from_str(&body).unwrap();
    let ids: Vec<_> = body.as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["anthropic", "openai", "ollama", "scripted"]);
    let auth_types: Vec<_> = body.as_array().unwrap().iter().map(|p| p["auth_types"].clone()).collect();
    assert_eq!(auth_types, [json!(["api_key"]), json!(["api_key"]), json!(["api_key"]), json!([])]);
    let (status, body) = send(reqwest::Method::GET, format!("{}/provider/anthropic", s.url), None).await;
    assert_eq!(status, StatusCode::OK);
    let anthropic: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(anthropic["auth"], "api_key");
    assert_eq!(anthropic["env"], "ANTHROPIC_API_KEY");
    assert!(anthropic["options"].as_array().unwrap().contains(&json!("max_tokens")));
    let (status, _) = send(reqwest::Method::GET, format!("{}/provider/nosuch", s.url), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn keys_go_in_and_never_come_out() {
    let s = start().await;
    let auth = format!("{}/provider/auth", s.url);
    let put = |providers: Value| json!({"providers": providers});
    let one = |key: &str| json!({"type": "api_key", "key": key});
    let (status, body) = send(reqwest::Method::PUT, auth.clone(), Some(put(json!({"anthropic": one(KEY)})))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!({"status": "ok"}));
    assert_eq!(s.store.get_credential(ADMIN, "anthropic").await.unwrap().unwrap().expose(), KEY);

    let (status, body) = send(reqwest::Method::GET, auth.clone(), None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!body.contains(KEY) && !body.contains("SENTINEL"));
    let listed: Value = serde_json::from_str(&body).unwrap();
    let entry = &listed["providers"]["anthropic"];
    assert_eq!(
        (&entry["type"], &entry["configured"], &entry["hint"]),
        (&json!("api_key"), &json!(true), &json!("…e5f6"))
    );
    assert_eq!(listed["updated_at"], entry["updated_at"]);

    // Bad bodies are refused without quoting them, and store nothing: not
    // even the good entries beside a bad one.
    for bad in [
        json!({"providers": {"openai": one(KEY)}, "extra": 1}),
        json!({"providers": {"openai": {"type": "api_key", "key": KEY, "extra": 1}}}),
        json!({"providers": {"openai": {"key": KEY}}}),
        json!({"providers": {"openai": {"type": "api_key", "key": 7}}}),
        json!({"providers": {"openai": one(KEY), "ollama": {"type": "oauth", "key": KEY}}}),
        json!({"providers": {}}),
        json!({"provider": "openai", "api_key": KEY}),
    ] {
        let (status, body) = send(reqwest::Method::PUT, auth.clone(), Some(bad.clone())).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert!(!body.contains(KEY) && !body.contains("SENTINEL"), "{body}");
    }
    let malformed = reqwest::Client::new()
        .put(auth.clone())
        .header("content-type", "application/json")
        .body(format!("{{\"providers\": {{\"openai\": {{\"type\": \"api_key\", \"key\": \"{KEY}"))
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);
    assert!(!malformed.text().await.unwrap().contains(KEY));
    for (providers, message) in [
        (json!({"openai": one(KEY), "scripted": one(KEY)}), "takes no credentials"),
        (json!({"openai": one(KEY), "anthropic": one("has space")}), "visible ASCII"),
    ] {
        let (status, body) = send(reqwest::Method::PUT, auth.clone(), Some(put(providers))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains(message) && !body.contains(KEY), "{body}");
    }
    assert!(s.store.get_credential(ADMIN, "openai").await.unwrap().is_none(), "a refused PUT stored nothing");
    assert_eq!(
        s.store.get_credential(ADMIN, "anthropic").await.unwrap().unwrap().expose(),
        KEY,
        "nor replaced anything"
    );

    let (status, body) = send(reqwest::Method::DELETE, format!("{auth}/anthropic"), None).await;
    assert_eq!((status, body.trim()), (StatusCode::OK, r#"{"status":"deleted"}"#));
    let (status, _) = send(reqwest::Method::DELETE, format!("{auth}/anthropic"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = send(reqwest::Method::DELETE, format!("{auth}/nosuch"), None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(s.store.get_credential(ADMIN, "anthropic").await.unwrap().is_none());
}

#[tokio::test]
async fn agents_naming_real_providers_are_validated() {
    let s = start().await;
    let agents = format!("{}/agents", s.url);
    let ok = json!({"name": "a", "provider": "openai", "model": "llama3", "options":
        {"base_url": "http://127.0.0.1:8080/v1", "max_tokens": 512, "strict_tools": false, "extra_body": {"min_p": 0.1}},
        "output_schema": {"type": "object"}});
    let (status, body) = send(reqwest::Method::POST, agents.clone(), Some(ok)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let cases = [
        (
            json!({"name": "a", "provider": "anthropic", "model": "claude-haiku-4-5", "options": {"max_token": 5}}),
            "options.max_token is not an option",
        ),
        (
            json!({"name": "a", "provider": "ollama", "model": "llama3.2", "options": {"base_url": "localhost:11434"}}),
            "URL",
        ),
        (json!({"name": "a", "provider": "anthropic", "model": ""}), "model is required"),
        (
            json!({"name": "a", "provider": "openai", "model": "gpt-4o", "output_schema": {"type": 12}}),
            "not a valid JSON schema",
        ),
    ];
    for (agent, message) in cases {
        let (status, body) = send(reqwest::Method::POST, agents.clone(), Some(agent)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains(message), "{body}");
    }
}
