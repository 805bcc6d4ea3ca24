//! API keys, seen from outside on both backends: each opens the API for its
//! owner with its role, is shown once and stored as a digest, and once
//! revoked is refused by every server within a second; a server without a
//! token is open until its first key, which must be an admin's.

mod common;

use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const TOKEN: &str = "wm-test-token-keys-4e1d";

/// Makes a key through `admin`; answers (key, id).
async fn make_key(admin: &Api, body: Value) -> (String, String) {
    let (status, made) = admin.post("/keys", body.clone()).await;
    assert_eq!(status, 201, "{body}: {made}");
    let key = made["key"].as_str().unwrap().to_string();
    (key, made["id"].as_str().unwrap().to_string())
}

async fn status(api: &Api, method: Method, path: &str, body: Option<Value>) -> u16 {
    api.request(method, path, body).await.0
}

on_both_backends! {
    async fn each_key_opens_the_api_to_its_role_and_is_shown_once(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_AUTH_TOKEN", TOKEN);
        let server = env.server(0);
        let admin = server.api_with_token(TOKEN);
        let (member_key, _) = make_key(&admin, json!({"owner": "alice", "role": "member", "name": "ci"})).await;
        // A reader of alice's work: it reads what her member key makes.
        let (reader_key, reader_id) = make_key(&admin, json!({"owner": "alice", "role": "reader"})).await;
        assert!(member_key.starts_with("wmk_") && member_key.len() == 68, "{member_key}");
        let (code, listed) = admin.get("/keys").await;
        assert_eq!(code, 200);
        assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
        assert_eq!(listed[0]["role"], "reader", "the newest first: {listed}");
        assert_eq!(listed[1]["name"], "ci");
        let text = listed.to_string();
        assert!(!text.contains(&member_key) && !text.contains(&reader_key[4..]), "a list shows no key: {text}");
        assert!(listed[0].get("key").is_none() && listed[0].get("digest").is_none(), "{listed}");
        assert_eq!(listed[1]["hint"].as_str().unwrap(), format!("…{}", &member_key[64..]));

        let member = admin.with_key(&member_key);
        let agent = member.create_agent(json!({"name": "mine"})).await;
        let session = member.create_session(&agent, None).await;
        assert_eq!(status(&member, Method::GET, "/secrets", None).await, 200);
        // A member keeps its owner's own secrets; the shared ones are the first admin's.
        let (code, mine) = member.put("/secrets/MINE", json!({"value": "alice's own"})).await;
        assert_eq!((code, mine["owner"].as_str()), (200, Some("alice")), "{mine}");
        for (method, path, body) in [
            (Method::GET, "/keys", None),
            (Method::POST, "/keys", Some(json!({"owner": "alice", "role": "admin"}))),
            (Method::GET, "/workers", None),
            (Method::GET, "/metrics", None),
            (Method::PUT, "/provider/limits/openai", Some(json!({"requests_per_minute": 1}))),
        ] {
            assert_eq!(status(&member, method.clone(), path, body).await, 403, "a member's {method} {path}");
        }
        let reader = admin.with_key(&reader_key);
        assert_eq!(status(&reader, Method::GET, &format!("/sessions/{session}"), None).await, 200);
        let message = json!({"message": "hi"});
        assert_eq!(status(&reader, Method::POST, &format!("/sessions/{session}/message"), Some(message)).await, 403);
        assert_eq!(status(&reader, Method::POST, "/agents", Some(json!({"name": "no"}))).await, 403);
        assert_eq!(admin.get("/runs").await.1["runs"], json!([]), "a reader's refused message made no run");
        assert_eq!(admin.get("/agents").await.1.as_array().unwrap().len(), 1, "nor an agent");

        let (code, refused) = admin.with_key(&format!("wmk_{}", "0".repeat(64))).get("/agents").await;
        assert_eq!(code, 401);
        let (code, revoked) = admin.request(Method::DELETE, &format!("/keys/{reader_id}"), None).await;
        assert_eq!(code, 200, "{revoked}");
        assert!(revoked["revoked_at"].is_string(), "{revoked}");
        let (code, after) = reader.get("/agents").await;
        assert_eq!(code, 401, "refused at once by the server that revoked it");
        assert_eq!(after, refused, "a revoked key reads as an unknown one");
        let (code, again) = admin.request(Method::DELETE, &format!("/keys/{reader_id}"), None).await;
        assert_eq!((code, &again["revoked_at"]), (200, &revoked["revoked_at"]), "revoked once");
        let no_such = "/keys/01JNOKEY000000000000000000";
        assert_eq!(status(&admin, Method::DELETE, no_such, None).await, 404);
    }

    async fn a_refused_key_request_makes_nothing(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_AUTH_TOKEN", TOKEN);
        let server = env.server(0);
        let admin = server.api_with_token(TOKEN);
        let past = "2020-01-01T00:00:00Z";
        for (body, code) in [
            (json!({"owner": "a b", "role": "member"}), 400),
            (json!({"owner": "", "role": "member"}), 400),
            (json!({"owner": "a", "role": "member", "name": "x\ny"}), 400),
            (json!({"owner": "a", "role": "member", "expires_at": past}), 400),
            (json!({"owner": "a", "role": "root"}), 422),
            (json!({"owner": "a", "role": "member", "digest": "00"}), 422),
            (json!({"role": "member"}), 422),
        ] {
            let (status, answer) = admin.post("/keys", body.clone()).await;
            assert_eq!(status, code, "{body}: {answer}");
            assert!(answer["error"].is_string(), "{answer}");
        }
        assert_eq!(admin.get("/keys").await.1, json!([]));
    }

    async fn a_revoked_key_is_refused_by_a_second_server_within_a_second(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_AUTH_TOKEN", TOKEN);
        let first = env.server(0);
        let second = env.server(0);
        let admin = first.api_with_token(TOKEN);
        let (key, id) = make_key(&admin, json!({"owner": "alice", "role": "member"})).await;
        let elsewhere = second.api().with_key(&key);
        // Used on the second server right up to the revocation, so that its
        // memory of the key is fresh when the key is revoked.
        for _ in 0..20 {
            assert_eq!(status(&elsewhere, Method::GET, "/agents", None).await, 200);
        }
        let (code, _) = admin.request(Method::DELETE, &format!("/keys/{id}"), None).await;
        assert_eq!(code, 200);
        let revoked = Instant::now();
        while status(&elsewhere, Method::GET, "/agents", None).await != 401 {
            assert!(revoked.elapsed() < Duration::from_secs(1), "the second server still takes the key");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        common::report_figure("api_keys", &format!("revocation seen by another server after {:?}", revoked.elapsed()));
    }

    async fn a_server_without_a_token_is_open_until_its_first_key(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let open = server.api();
        assert_eq!(status(&open, Method::GET, "/agents", None).await, 200);
        let (code, refused) = open.post("/keys", json!({"owner": "alice", "role": "member"})).await;
        assert_eq!(code, 409, "{refused}");
        assert_eq!(open.get("/keys").await.1, json!([]), "the refused key was not made");
        let (admin_key, admin_id) = make_key(&open, json!({"owner": "admin", "role": "admin"})).await;
        assert_eq!(status(&open, Method::GET, "/agents", None).await, 401, "keys now guard the server");
        let admin = open.with_key(&admin_key);
        let (_, member_id) = make_key(&admin, json!({"owner": "alice", "role": "member"})).await;
        let last_admin = format!("/keys/{admin_id}");
        assert_eq!(status(&admin, Method::DELETE, &last_admin, None).await, 409, "the last admin key stays");
        assert_eq!(status(&admin, Method::DELETE, &format!("/keys/{member_id}"), None).await, 200);
        assert_eq!(status(&admin, Method::DELETE, &last_admin, None).await, 200, "no other key is live now");
        assert_eq!(status(&open, Method::GET, "/agents", None).await, 200, "without a live key it is open again");
    }

    async fn an_expired_key_is_refused(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_AUTH_TOKEN", TOKEN);
        let server = env.server(0);
        let admin = server.api_with_token(TOKEN);
        let soon = (chrono::Utc::now() + chrono::Duration::milliseconds(1500)).to_rfc3339();
        let (key, _) = make_key(&admin, json!({"owner": "alice", "role": "reader", "expires_at": soon})).await;
        let reader = admin.with_key(&key);
        assert_eq!(status(&reader, Method::GET, "/agents", None).await, 200);
        tokio::time::sleep(Duration::from_millis(1800)).await;
        assert_eq!(status(&reader, Method::GET, "/agents", None).await, 401);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_makes_lists_and_revokes_keys() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(0);
    let url = server.url.clone();
    let (code, key, err) = env
        .client_exit(&["key", "create", "--owner", "alice", "--role", "member", "--name", "laptop", "--server", &url]);
    assert_eq!(code, 0, "{err}");
    let key = key.trim().to_string();
    assert!(key.starts_with("wmk_") && err.contains("shown this once"), "{key} / {err}");
    let (code, table, _) = env.client_exit(&["keys", "list", "--server", &url]);
    assert_eq!(code, 0);
    assert!(table.contains("alice") && table.contains("member") && table.contains("laptop"), "{table}");
    assert!(!table.contains(&key) && table.contains(&key[64..]), "the list shows the last four characters only");
    let (_, listed, _) = env.client_exit(&["keys", "list", "--json", "--server", &url]);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    let id = listed[0]["id"].as_str().unwrap();
    let (code, agents, err) = env.client_exit(&["agents", "--json", "--auth-token", &key, "--server", &url]);
    assert_eq!((code, agents.trim()), (0, "[]"), "the member's key opens the server: {err}");
    let mut member = TestEnv::new();
    member.set("WINGMAN_API_KEY", &key);
    let (code, agents, err) = member.client_exit(&["agents", "--json", "--server", &url]);
    assert_eq!((code, agents.trim()), (0, "[]"), "WINGMAN_API_KEY carries the key too: {err}");
    let (code, _, err) = env.client_exit(&["keys", "list", "--auth-token", &key, "--server", &url]);
    assert_ne!(code, 0);
    assert!(err.contains("403") && err.contains("admin"), "a member lists no keys: {err}");
    let (code, out, _) = env.client_exit(&["key", "revoke", id, "--server", &url]);
    assert_eq!(code, 0);
    assert!(out.contains("revoked"), "{out}");
    let (code, _, err) = env.client_exit(&["agents", "--auth-token", &key, "--server", &url]);
    assert!(code != 0 && err.contains("401"), "{err}");
}
