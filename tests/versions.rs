//! Concurrent edits, on both backends: agents, fleets, formations and
//! schedules carry a `version`, one more with each change; a `PUT` (and a
//! schedule's pause and resume) made over a stale version (`If-Match`, or
//! `version` in the body) is a 409 that changes nothing; without one the
//! change is made over the newest version, so a pause racing a replace of
//! the same schedule keeps both.

mod common;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

async fn send(
    api: &Api,
    method: reqwest::Method,
    path: &str,
    if_match: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = api.http.request(method, format!("{}{path}", api.base));
    if let Some(version) = if_match {
        request = request.header("if-match", version);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

async fn put(api: &Api, path: &str, if_match: Option<&str>, body: Value) -> (u16, Value) {
    send(api, reqwest::Method::PUT, path, if_match, Some(body)).await
}

fn schedule_body(session: &str, name: &str) -> Value {
    json!({"name": name, "every": "1h", "target": {"session_id": session, "message": "tick"}})
}

on_both_backends! {
async fn a_stale_version_is_a_409_that_changes_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let (status, agent) = api.post("/agents", json!({"name": "first"})).await;
    assert_eq!((status, &agent["version"]), (201, &json!(1)), "{agent}");
    let id = agent["id"].as_str().unwrap();
    let path = format!("/agents/{id}");

    let (status, changed) = put(&api, &path, Some("1"), json!({"name": "second"})).await;
    assert_eq!((status, &changed["version"]), (200, &json!(2)), "{changed}");
    let (status, refused) = put(&api, &path, Some("\"1\""), json!({"name": "lost"})).await;
    assert_eq!(status, 409, "{refused}");
    assert!(refused["error"].as_str().unwrap().contains("version 2"), "{refused}");
    let (status, refused) = put(&api, &path, None, json!({"name": "lost", "version": 1})).await;
    assert_eq!(status, 409, "the body's version too: {refused}");
    let (_, stored) = api.get(&path).await;
    assert_eq!((&stored["name"], &stored["version"]), (&json!("second"), &json!(2)), "nothing changed");

    let (status, _) = put(&api, &path, Some("W/\"2\""), json!({"name": "third", "version": 2})).await;
    assert_eq!(status, 200);
    let (status, last) = put(&api, &path, None, json!({"name": "fourth"})).await;
    assert_eq!((status, &last["version"]), (200, &json!(4)), "without a version the last write wins");
    for (if_match, body) in [(Some("four"), json!({})), (Some("3"), json!({"version": 4}))] {
        let (status, refused) = put(&api, &path, if_match, body).await;
        assert_eq!(status, 400, "{refused}");
    }
    let (status, refused) = api.post("/agents", json!({"name": "x", "version": 3})).await;
    assert_eq!(status, 400, "a version on create: {refused}");

    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": id})).await;
    assert_eq!(fleet["version"], 1, "{fleet}");
    let fleet_path = format!("/fleets/{}", fleet["id"].as_str().unwrap());
    assert_eq!(put(&api, &fleet_path, Some("1"), json!({"worker_count": 2})).await.0, 200);
    let (status, refused) = put(&api, &fleet_path, Some("1"), json!({"worker_count": 5})).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(api.get(&fleet_path).await.1["worker_count"], 2);

    let formation = json!({"name": "g", "nodes": [{"id": "a", "agent_id": id}], "edges": []});
    let (status, formation) = api.post("/formations", formation).await;
    assert_eq!((status, &formation["version"]), (201, &json!(1)), "{formation}");

    let session = api.create_session(id, None).await;
    let (status, schedule) = api.post("/schedules", schedule_body(&session, "s")).await;
    assert_eq!((status, &schedule["version"]), (201, &json!(1)), "{schedule}");
    let schedule_path = format!("/schedules/{}", schedule["id"].as_str().unwrap());
    assert_eq!(put(&api, &schedule_path, Some("1"), schedule_body(&session, "s2")).await.0, 200);
    let pause = format!("{schedule_path}/pause");
    let (status, refused) = send(&api, reqwest::Method::POST, &pause, Some("1"), None).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(api.get(&schedule_path).await.1["paused"], false, "a stale pause changes nothing");
    let (status, paused) = send(&api, reqwest::Method::POST, &pause, Some("2"), None).await;
    assert_eq!((status, &paused["paused"], &paused["version"]), (200, &json!(true), &json!(3)), "{paused}");
}

async fn a_pause_racing_a_replace_keeps_both(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "a"})).await;
    let session = api.create_session(&agent, None).await;
    let (_, schedule) = api.post("/schedules", schedule_body(&session, "round 0")).await;
    let path = format!("/schedules/{}", schedule["id"].as_str().unwrap());
    for round in 1..=50 {
        assert_eq!(api.post(&format!("{path}/resume"), json!({})).await.0, 200);
        let (name, pause) = (format!("round {round}"), format!("{path}/pause"));
        let (paused, replaced) = tokio::join!(api.post(&pause, json!({})), api.put(&path, schedule_body(&session, &name)));
        assert_eq!((paused.0, replaced.0), (200, 200), "{paused:?} {replaced:?}");
        let (_, stored) = api.get(&path).await;
        assert_eq!((&stored["paused"], &stored["name"]), (&json!(true), &json!(name)), "round {round}: {stored}");
    }
}
}
