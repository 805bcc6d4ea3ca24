//! Provider keys and secrets belong to an owner: a run uses its owner's
//! value of a name, else the first admin's, which every owner shares, and
//! never another owner's. Checked where it matters, in the environment an
//! MCP server is started with and in the requests a provider receives.

mod common;
mod mcp_support;
mod providers_support;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use mcp_support::Recorder;
use providers_support::{openai_text, MockServer, Reply};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const LIMIT: Duration = Duration::from_secs(90);
const TOKEN: &str = "wm-test-token-owner-secrets-91d2";
const ALPHAS: &str = "alpha-only-value-5e1c";
const SHARED: &str = "shared-value-0b7d";
const ALPHA_KEY: &str = "sk-alpha-0123456789abcdefghij";
const SHARED_KEY: &str = "sk-shared-0123456789abcdefghij";

/// A member's client for `owner`, its key made by the admin.
async fn member(admin: &Api, owner: &str) -> Api {
    let (status, made) = admin.post("/keys", json!({"owner": owner, "role": "member"})).await;
    assert_eq!(status, 201, "{made}");
    admin.with_key(made["key"].as_str().unwrap())
}

/// What the `env` tool of the MCP server `own` answered in a run of a new
/// session with `agent`: the digest of its `TOKEN`, `unset`, or why the
/// server could not start.
async fn token_seen(api: &Api, agent: &str) -> String {
    let session = api.create_session(agent, None).await;
    let run = api.send(&session, "go").await;
    let ended = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(ended["status"], "succeeded", "{ended}");
    let events = api.events(&run).await;
    if let Some(unavailable) = events.iter().find(|e| e["type"] == "tool_source_unavailable") {
        return unavailable["error"].as_str().unwrap().to_string();
    }
    let result = events.iter().find(|e| e["type"] == "tool_result" && e["name"] == "own__env").unwrap();
    result["output"].as_str().unwrap().to_string()
}

fn digest(value: &str) -> String {
    format!("sha256:{:x}", Sha256::digest(value.as_bytes()))
}

/// An agent whose one MCP server gets the secret `token` as its `TOKEN`.
fn secret_agent(recorder: &Recorder) -> Value {
    let own = recorder.stdio("own", json!({"TOKEN": {"secret": "token"}}));
    let script = json!([{"tool_calls": [{"name": "own__env", "input": {}}]}, {"text": "checked"}]);
    json!({"name": "keyed", "mcp_servers": [own], "options": {"script": script}})
}

on_both_backends! {
async fn a_run_uses_its_owners_secret_else_the_shared_one_and_never_anothers(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let recorder = Recorder::new(env.path(), "own");
    let server = env.server(0);
    let _worker = env.worker();
    let admin = server.api_with_token(TOKEN);
    let (alpha, beta) = (member(&admin, "alpha").await, member(&admin, "beta").await);
    let (status, stored) = alpha.put("/secrets/token", json!({"value": ALPHAS})).await;
    assert_eq!((status, stored["owner"].as_str()), (200, Some("alpha")), "{stored}");
    assert_eq!(beta.get("/secrets").await.1, json!([]), "beta's list shows none of alpha's");
    assert_eq!(beta.request(reqwest::Method::DELETE, "/secrets/token", None).await.0, 404, "nor deletes it");

    let alphas_agent = alpha.create_agent(secret_agent(&recorder)).await;
    let betas_agent = beta.create_agent(secret_agent(&recorder)).await;
    assert_eq!(token_seen(&alpha, &alphas_agent).await, digest(ALPHAS));
    let refused = token_seen(&beta, &betas_agent).await;
    assert!(refused.contains("secret \"token\" is not set"), "beta's run has no such secret: {refused}");

    // The first admin's value is every owner's that has none of its own.
    assert_eq!(admin.put("/secrets/token", json!({"value": SHARED})).await.0, 200);
    assert_eq!(token_seen(&beta, &betas_agent).await, digest(SHARED));
    assert_eq!(token_seen(&alpha, &alphas_agent).await, digest(ALPHAS), "alpha's own comes first");
    let (_, listed) = beta.get("/secrets").await;
    assert_eq!((listed[0]["name"].as_str(), listed[0]["owner"].as_str()), (Some("token"), Some("admin")), "{listed}");
    assert!(!format!("{listed}{}", alpha.get("/secrets").await.1).contains(ALPHAS), "no value is ever shown");
}

async fn a_run_is_given_its_owners_provider_key_else_the_shared_one(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(0);
    let _worker = env.worker();
    let admin = server.api_with_token(TOKEN);
    let (alpha, beta) = (member(&admin, "alpha").await, member(&admin, "beta").await);
    let put = |key: &str| json!({"providers": {"openai": {"type": "api_key", "key": key}}});
    assert_eq!(alpha.put("/provider/auth", put(ALPHA_KEY)).await.0, 200);
    assert_eq!(admin.put("/provider/auth", put(SHARED_KEY)).await.0, 200);
    let (_, listed) = beta.get("/provider/auth").await;
    assert_eq!(listed["providers"]["openai"]["owner"], "admin", "beta is shown the shared key's hint: {listed}");
    assert_eq!(alpha.get("/provider/auth").await.1["providers"]["openai"]["owner"], "alpha");

    let answer = || Reply::sse(openai_text("fine", 10, 2));
    let provider = MockServer::start(vec![answer(), answer(), answer()]).await;
    let agent = json!({"name": "o", "provider": "openai", "model": "m",
        "options": {"base_url": format!("{}/v1", provider.url)}});
    for (api, expected) in [(&alpha, ALPHA_KEY), (&beta, SHARED_KEY)] {
        let agent = api.create_agent(agent.clone()).await;
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "hi").await;
        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        let sent = provider.requests().last().unwrap().headers["authorization"].clone();
        assert_eq!(sent, format!("Bearer {expected}"), "the key a run of this owner is given");
    }
    // With alpha's own key deleted, alpha's runs fall back to the shared one.
    assert_eq!(alpha.request(reqwest::Method::DELETE, "/provider/auth/openai", None).await.0, 200);
    assert_eq!(beta.request(reqwest::Method::DELETE, "/provider/auth/openai", None).await.0, 404, "not beta's to delete");
    assert_eq!(alpha.get("/provider/auth").await.1["providers"]["openai"]["owner"], "admin");
    let agent = alpha.create_agent(agent).await;
    let session = alpha.create_session(&agent, None).await;
    let run = alpha.send(&session, "again").await;
    assert_eq!(alpha.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let sent: Vec<String> = provider.requests().iter().map(|r| r.headers["authorization"].clone()).collect();
    let shared = format!("Bearer {SHARED_KEY}");
    assert_eq!(sent, [format!("Bearer {ALPHA_KEY}"), shared.clone(), shared], "only alpha's first run had its key");
}
}
