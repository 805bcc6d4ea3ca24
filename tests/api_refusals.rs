//! Bad input gets a 4xx `{"error"}` and changes nothing: event cursors past
//! the end of a log, bodies over the limit or of the wrong type, work_dirs
//! that `POST` and `PUT` must refuse alike, and the framework's own refusals.

mod common;

use std::time::Duration;

use common::Backend;
use common::{Api, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

async fn raw(api: &Api, method: Method, path: &str, headers: &[(&str, &str)], body: Vec<u8>) -> (u16, String) {
    let mut request = api.http.request(method, format!("{}{path}", api.base)).body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

fn is_json_error(text: &str) -> bool {
    serde_json::from_str::<Value>(text).ok().and_then(|v| v["error"].as_str().map(|s| !s.is_empty())) == Some(true)
}

on_both_backends! {
async fn cursors_past_the_end_replay_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hi").await;
    api.wait_terminal(&run, LIMIT).await;
    let all = api.events(&run).await;
    let last = all.len() as u64;
    for after in [last, 1 << 62, (1 << 63) - 1, 1 << 63, u64::MAX] {
        let (status, events) = api.get(&format!("/runs/{run}/events?after={after}")).await;
        assert_eq!((status, events), (200, json!([])), "after={after}");
        // The stream of a finished run the client has to the end: 204, so an EventSource stops.
        let id = after.to_string();
        let (status, body) = raw(
            &api,
            Method::GET,
            &format!("/runs/{run}/events"),
            &[("accept", "text/event-stream"), ("last-event-id", &id)],
            vec![],
        )
        .await;
        assert_eq!((status, body.as_str()), (204, ""), "Last-Event-ID {after}");
    }
    let (events, done) = api.sse_read(&run, Some(0), None).await;
    assert!(done && events.len() as u64 == last, "from 0 the whole log");
    // A stream opens by telling a browser how soon to reconnect.
    let before_done = (last - 1).to_string();
    let headers = [("accept", "text/event-stream"), ("last-event-id", before_done.as_str())];
    let (status, body) = raw(&api, Method::GET, &format!("/runs/{run}/events"), &headers, vec![]).await;
    assert!(status == 200 && body.starts_with("retry: 1000\n\n") && body.contains("event: done"), "{body}");
    for bad in ["-1", "abc", "18446744073709551616"] {
        let (status, body) = raw(&api, Method::GET, &format!("/runs/{run}/events?after={bad}"), &[], vec![]).await;
        assert!(status == 400 && is_json_error(&body), "after={bad}: {status} {body}");
        let (status, body) = raw(
            &api,
            Method::GET,
            &format!("/runs/{run}/events"),
            &[("accept", "text/event-stream"), ("last-event-id", bad)],
            vec![],
        )
        .await;
        assert!(status == 400 && is_json_error(&body), "Last-Event-ID {bad}: {status} {body}");
    }
}
}

on_both_backends! {
async fn provider_auth_refuses_big_and_non_json_bodies_in_json(backend: Backend) {
    let mut env = TestEnv::on(backend);
    // A small limit, so that the client has sent the whole body before the
    // server refuses it (a refusal mid-upload closes the connection).
    env.set("WINGMAN_MAX_BODY_BYTES", "1024");
    let server = env.server(0);
    let api = server.api();
    let json_type = [("content-type", "application/json")];
    let big =
        format!("{{\"providers\": {{\"anthropic\": {{\"type\": \"api_key\", \"key\": \"{}\"}}}}}}", "k".repeat(4096));
    let (status, body) = raw(&api, Method::PUT, "/provider/auth", &json_type, big.into_bytes()).await;
    assert!(status == 413 && is_json_error(&body), "{status} {body}");
    let good = br#"{"providers": {"anthropic": {"type": "api_key", "key": "sk-ant-0123456789abcdef"}}}"#.to_vec();
    for content_type in ["text/plain", "multipart/form-data; boundary=x", "text/html"] {
        let (status, body) =
            raw(&api, Method::PUT, "/provider/auth", &[("content-type", content_type)], good.clone()).await;
        assert!(status == 415 && is_json_error(&body), "{content_type:?}: {status} {body}");
    }
    let (_, stored) = api.get("/provider/auth").await;
    assert_eq!(stored, json!({"providers": {}}), "nothing was stored");
    // What `curl -d` sends (no type, or the form type) is read as JSON, as the original API read it.
    for headers in [vec![], vec![("content-type", "application/x-www-form-urlencoded")], json_type.to_vec()] {
        let (status, body) = raw(&api, Method::PUT, "/provider/auth", &headers, good.clone()).await;
        assert_eq!(status, 200, "{headers:?}: {body}");
    }
}
}

on_both_backends! {
async fn post_and_put_refuse_the_same_work_dirs(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let file = env.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let session = api.create_session(&agent, None).await;
    let (_, before) = api.get(&format!("/sessions/{session}")).await;
    let mut bad = vec![
        "/dev/null".to_string(),
        "relative/dir".to_string(),
        "/tmp/nul\u{0}byte".to_string(),
        file.display().to_string(),
    ];
    if backend == Backend::Sqlite {
        // The directory holding the database file, and any above it.
        bad.extend([env.path().display().to_string(), "/".to_string()]);
    }
    for dir in &bad {
        let (status, body) = api.put(&format!("/sessions/{session}"), json!({"work_dir": dir})).await;
        assert!(status == 400 && body["error"].is_string(), "PUT {dir:?}: {status} {body}");
        let (status, body) = api.post("/sessions", json!({"agent_id": agent, "work_dir": dir})).await;
        assert!(status == 400 && body["error"].is_string(), "POST {dir:?}: {status} {body}");
    }
    let (_, after) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(after, before, "a refused PUT changed the session");
    let (_, list) = api.get("/sessions").await;
    assert_eq!(list.as_array().unwrap().len(), 1, "a refused POST created a session");
    // A directory that does not exist yet is accepted by either, and the API
    // makes nothing on disk: the worker makes it for the session's first run.
    let fresh = env.path().join("work/new");
    let (status, body) = api.put(&format!("/sessions/{session}"), json!({"work_dir": fresh})).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = api.post("/sessions", json!({"agent_id": agent, "work_dir": fresh.join("other")})).await;
    assert_eq!(status, 201, "{body}");
    assert!(!env.path().join("work").exists(), "the API created a work_dir");
}
}

on_both_backends! {
async fn the_frameworks_own_refusals_are_json_too(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    for path in ["/provider/%95%37", "/agents/%FF", "/runs/%C3%28/events"] {
        let (status, body) = raw(&api, Method::GET, path, &[], vec![]).await;
        assert!((400..500).contains(&status) && is_json_error(&body), "{path}: {status} {body}");
    }
    let (status, body) =
        raw(&api, Method::POST, "/agents", &[("content-type", "application/json")], b"{".to_vec()).await;
    assert!(status == 400 && is_json_error(&body), "{status} {body}");
    // A struct's fields in an array are not an object: serde would read them, the document does not allow them.
    let json = [("content-type", "application/json")];
    let (status, body) = raw(&api, Method::POST, "/agents", &json, br#" ["an array", null]"#.to_vec()).await;
    assert!(status == 422 && body.contains("not an array"), "{status} {body}");
    let (_, agents) = api.get("/agents").await;
    assert_eq!(agents, serde_json::json!([]), "nothing written");
}
}

on_both_backends! {
async fn nul_characters_are_refused_wherever_text_comes_in(backend: Backend) {
    // PostgreSQL's text cannot hold NUL: both backends refuse it alike, as
    // the client's mistake, and nothing is written.
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let before = (api.get("/agents").await.1, api.get("/sessions").await.1);
    let bodies = [
        (Method::POST, "/agents".to_string(), json!({"name": "a\u{0}b"})),
        (Method::POST, "/sessions".into(), json!({"title": "a\u{0}b"})),
        (Method::POST, "/sessions".into(), json!({"metadata": {"k\u{0}": 1}})),
        (Method::PUT, format!("/sessions/{session}"), json!({"title": "x", "metadata": {"k": ["\u{0}"]}})),
        (Method::POST, format!("/sessions/{session}/message"), json!({"message": "hi\u{0}"})),
    ];
    for (method, path, body) in bodies {
        let (status, answer) = api.request(method.clone(), &path, Some(body)).await;
        assert_eq!(status, 400, "{method} {path}: {answer}");
        assert_eq!(answer["error"], "text must not contain NUL characters");
    }
    for path in ["/runs?session_id=a%00b", "/runs/a%00b", "/sessions/a%00", "/fleet-runs?after=%00"] {
        let (status, answer) = api.get(path).await;
        assert_eq!(status, 400, "{path}: {answer}");
    }
    assert_eq!((api.get("/agents").await.1, api.get("/sessions").await.1), before, "nothing was written");
    let runs = api.get(&format!("/runs?session_id={session}")).await.1;
    assert_eq!(runs["runs"], json!([]), "no run was queued");
    let escaped = json!({"title": "a\\u0000 is six characters here"});
    let (status, answer) = api.put(&format!("/sessions/{session}"), escaped).await;
    assert_eq!(status, 200, "an escaped backslash is not a NUL: {answer}");
}
}

on_both_backends! {
async fn a_message_to_a_session_whose_agent_was_deleted_says_what_to_do(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "gone"})).await;
    let other = api.create_agent(json!({"name": "other"})).await;
    let session = api.create_session(&agent, None).await;
    let (status, _) = api.request(Method::DELETE, &format!("/agents/{agent}"), None).await;
    assert_eq!(status, 200);
    let (status, body) = api.post(&format!("/sessions/{session}/message"), json!({"message": "hi"})).await;
    assert_eq!(status, 404, "{body}");
    let said = body["error"].as_str().unwrap();
    assert!(said.contains(&format!("this session's agent {agent} no longer exists")), "{said}");
    assert!(said.contains("\"agent_id\"") && said.contains(&format!("PUT /sessions/{session}")), "{said}");
    let (_, runs) = api.get("/runs").await;
    assert_eq!(runs["runs"], json!([]), "nothing was written: {runs}");
    // An agent named in the message that does not exist is still just "not found".
    let (status, body) =
        api.post(&format!("/sessions/{session}/message"), json!({"message": "hi", "agent_id": agent})).await;
    assert_eq!((status, body["error"].as_str().unwrap().to_string()), (404, format!("agent {agent} not found")));
    // Named, another agent answers; given to the session, it answers from then on.
    let (status, _) = api.post(&format!("/sessions/{session}/message"), json!({"message": "hi", "agent_id": other})).await;
    assert_eq!(status, 202);
    let (status, _) = api.put(&format!("/sessions/{session}"), json!({"agent_id": other})).await;
    assert_eq!(status, 200);
    let (status, _) = api.post(&format!("/sessions/{session}/message"), json!({"message": "again"})).await;
    assert_eq!(status, 202);
}
}
