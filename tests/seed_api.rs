//! A client of the original Wingman API, replayed against the real server:
//! every route of that API's reference, with its documented request bodies
//! verbatim (sent as its curl examples send them, without a JSON content type
//! where they do), each answer checked field by field. The agent's provider
//! is a local server replaying recorded Anthropic answers, so the blocking and
//! streaming messages go through a real worker process and a real provider.

mod common;
mod providers_support;

use std::time::Duration;

use common::Backend;
use common::{Api, SseDecoder, TestEnv};
use futures_util::StreamExt;
use providers_support::{fixture, retool, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

/// The documented bodies, verbatim.
const SET_AUTH: &str = r#"{"providers": {"anthropic": {"type": "api_key", "key": "sk-ant-..."}}}"#;
const CREATE_AGENT: &str = r#"{
  "name": "Assistant",
  "instructions": "Be helpful",
  "tools": ["bash", "read", "write", "edit", "glob", "grep"],
  "provider": "anthropic",
  "model": "claude-sonnet-4-5",
  "options": {
    "max_tokens": 4096,
    "temperature": 0.7
  },
  "output_schema": null
}"#;
const CREATE_FLEET: &str = r#"{
  "name": "doc-processor",
  "agent_id": "{{agent_id}}",
  "worker_count": 5,
  "work_dir": "/data/documents"
}"#;
const UPDATE_FLEET: &str = r#"{
  "name": "doc-processor-v2",
  "worker_count": 10
}"#;
const MESSAGE: &str = "Write a Python script";

/// Sends a body the way `curl -d` does: `application/x-www-form-urlencoded`.
async fn curl_d(api: &Api, method: reqwest::Method, path: &str, body: &str) -> (u16, Value) {
    let response = api
        .http
        .request(method, format!("{}{path}", api.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null))
}

async fn delete(api: &Api, path: &str) -> (u16, Value) {
    api.request(reqwest::Method::DELETE, path, None).await
}

fn is_timestamp(v: &Value) -> bool {
    v.as_str().is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok())
}

fn is_ulid(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.len() == 26 && s.parse::<ulid::Ulid>().is_ok())
}

/// `keys` are exactly the object's keys the original API had, all present.
fn has_fields(v: &Value, keys: &[&str]) {
    let obj = v.as_object().unwrap_or_else(|| panic!("not an object: {v}"));
    for key in keys {
        assert!(obj.contains_key(*key), "{key} missing from {v}");
    }
}

on_both_backends! {
async fn health_providers_models_and_auth_answer_the_original_shapes(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();

    let (status, health) = api.get("/health").await;
    assert_eq!((status, &health["status"]), (200, &json!("ok")));

    let (status, providers) = api.get("/provider").await;
    assert_eq!(status, 200);
    let providers = providers.as_array().expect("GET /provider is a plain array");
    for p in providers {
        has_fields(p, &["id", "name", "auth_types"]);
    }
    let (status, anthropic) = api.get("/provider/anthropic").await;
    assert_eq!((status, &anthropic["id"], &anthropic["auth_types"]), (200, &json!("anthropic"), &json!(["api_key"])));
    assert!(anthropic["name"].is_string());

    let (status, models) = api.get("/provider/anthropic/models").await;
    assert_eq!(status, 200);
    let sonnet = &models["claude-sonnet-4-5"];
    has_fields(sonnet, &["id", "name", "tool_call", "reasoning", "attachment", "cost", "limit", "modalities"]);
    assert_eq!(sonnet["id"], "claude-sonnet-4-5");
    assert_eq!((&sonnet["limit"]["context"], &sonnet["limit"]["output"]), (&json!(200000), &json!(64000)));
    assert_eq!((&sonnet["cost"]["input"], &sonnet["cost"]["output"]), (&json!(3.0), &json!(15.0)));
    for (id, model) in models.as_object().unwrap() {
        assert_eq!(&model["id"], id, "keyed by its ID");
    }
    let (status, one) = api.get("/provider/anthropic/models/claude-sonnet-4-5").await;
    assert_eq!((status, &one), (200, sonnet));
    let (status, openai) = api.get("/provider/openai/models").await;
    assert!(status == 200 && openai["gpt-4o"]["limit"]["context"] == 128000, "{openai}");
    for missing in ["/provider/anthropic/models/nope", "/provider/nope/models", "/provider/nope"] {
        let (status, body) = api.get(missing).await;
        assert!(status == 404 && body["error"].is_string(), "{missing}: {status} {body}");
    }

    // Auth: set as documented, read back without the key, delete.
    let (status, body) = curl_d(&api, reqwest::Method::PUT, "/provider/auth", SET_AUTH).await;
    assert_eq!((status, body), (200, json!({"status": "ok"})));
    let (status, auth) = api.get("/provider/auth").await;
    assert_eq!(status, 200);
    let entry = &auth["providers"]["anthropic"];
    assert_eq!((&entry["type"], &entry["configured"]), (&json!("api_key"), &json!(true)));
    assert!(is_timestamp(&auth["updated_at"]), "{auth}");
    assert!(!auth.to_string().contains("sk-ant-"), "the key never comes back: {auth}");
    let (status, body) = delete(&api, "/provider/auth/anthropic").await;
    assert_eq!((status, body), (200, json!({"status": "deleted"})));
    let (_, auth) = api.get("/provider/auth").await;
    assert_eq!(auth, json!({"providers": {}}));
}
}

on_both_backends! {
async fn agents_sessions_and_fleets_are_created_listed_read_updated_and_deleted(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();

    let (status, agent) = curl_d(&api, reqwest::Method::POST, "/agents", CREATE_AGENT).await;
    assert_eq!(status, 201, "{agent}");
    let documented: Value = serde_json::from_str(CREATE_AGENT).unwrap();
    for field in ["name", "instructions", "tools", "provider", "model", "options"] {
        assert_eq!(agent[field], documented[field], "{field}");
    }
    assert!(agent["output_schema"].is_null(), "{agent}");
    assert!(is_ulid(&agent["id"]) && is_timestamp(&agent["created_at"]) && is_timestamp(&agent["updated_at"]));
    let agent_id = agent["id"].as_str().unwrap().to_string();
    let (status, listed) = api.get("/agents").await;
    assert_eq!((status, listed), (200, json!([agent.clone()])), "GET /agents is a plain array");
    let (status, read) = api.get(&format!("/agents/{agent_id}")).await;
    assert_eq!((status, &read), (200, &agent));
    let (status, updated) =
        curl_d(&api, reqwest::Method::PUT, &format!("/agents/{agent_id}"), r#"{"name": "Helper"}"#).await;
    assert_eq!((status, &updated["name"], &updated["model"]), (200, &json!("Helper"), &json!("claude-sonnet-4-5")));

    let work_dir = env.path().join("workspace").to_string_lossy().into_owned();
    let (status, session) =
        curl_d(&api, reqwest::Method::POST, "/sessions", &json!({"work_dir": work_dir}).to_string()).await;
    assert_eq!(status, 201, "{session}");
    has_fields(&session, &["id", "work_dir", "history", "created_at", "updated_at"]);
    assert_eq!((&session["work_dir"], &session["history"]), (&json!(work_dir), &json!([])));
    let session_id = session["id"].as_str().unwrap().to_string();
    let (status, empty) = curl_d(&api, reqwest::Method::POST, "/sessions", "").await;
    assert_eq!(status, 201, "an empty body makes a session, as it did: {empty}");
    let (status, listed) = api.get("/sessions").await;
    let listed = listed.as_array().expect("GET /sessions is a plain array").clone();
    assert_eq!((status, listed.len()), (200, 2));
    assert!(listed.iter().all(|s| s["history"] == json!([])), "each with its history");
    let (status, read) = api.get(&format!("/sessions/{session_id}")).await;
    assert_eq!((status, &read["history"]), (200, &json!([])));
    let moved = env.path().join("projects").to_string_lossy().into_owned();
    let (status, updated) =
        curl_d(&api, reqwest::Method::PUT, &format!("/sessions/{session_id}"), &json!({"work_dir": moved}).to_string())
            .await;
    assert_eq!((status, &updated["work_dir"], &updated["history"]), (200, &json!(moved), &json!([])));

    let create = CREATE_FLEET.replace("{{agent_id}}", &agent_id);
    let (status, fleet) = curl_d(&api, reqwest::Method::POST, "/fleets", &create).await;
    assert_eq!(status, 201, "{fleet}");
    let fleet_id = fleet["id"].as_str().unwrap().to_string();
    assert_eq!(
        (&fleet["name"], &fleet["agent_id"], &fleet["worker_count"], &fleet["work_dir"]),
        (&json!("doc-processor"), &json!(agent_id), &json!(5), &json!("/data/documents"))
    );
    assert_eq!(fleet["status"], "stopped", "no fleet run of it is going");
    assert!(is_ulid(&fleet["id"]) && is_timestamp(&fleet["created_at"]) && is_timestamp(&fleet["updated_at"]));
    let (status, listed) = api.get("/fleets").await;
    assert_eq!((status, listed), (200, json!([fleet.clone()])), "GET /fleets is a plain array");
    let (status, read) = api.get(&format!("/fleets/{fleet_id}")).await;
    assert_eq!((status, &read), (200, &fleet));
    let (status, updated) = curl_d(&api, reqwest::Method::PUT, &format!("/fleets/{fleet_id}"), UPDATE_FLEET).await;
    assert_eq!(
        (status, &updated["name"], &updated["worker_count"], &updated["work_dir"]),
        (200, &json!("doc-processor-v2"), &json!(10), &json!("/data/documents"))
    );

    for path in [format!("/fleets/{fleet_id}"), format!("/sessions/{session_id}"), format!("/agents/{agent_id}")] {
        let (status, body) = delete(&api, &path).await;
        assert_eq!((status, body), (200, json!({"status": "deleted"})), "DELETE {path}");
        let (status, body) = api.get(&path).await;
        assert!(status == 404 && body["error"].is_string(), "{path} after DELETE: {status} {body}");
        let (status, body) = delete(&api, &path).await;
        assert!(status == 404 && body["error"].is_string(), "DELETE {path} twice: {status} {body}");
    }
}
}

/// A run of the documented agent answering MESSAGE: a `write` call, then text.
fn write_then_answer() -> Vec<Reply> {
    let write = json!({"path": "hello.py", "content": "print('hello')\n"});
    let tool = retool(&fixture("anthropic_stream_tool_padded.sse"), "get_weather", "write", "partial_json", &write);
    vec![Reply::sse(tool), Reply::sse(fixture("anthropic_stream_text_padded.sse"))]
}

/// The documented agent, on a replay of Anthropic's recorded answers.
async fn documented_agent(api: &Api, replay: &MockServer) -> String {
    let (status, body) = curl_d(api, reqwest::Method::PUT, "/provider/auth", SET_AUTH).await;
    assert_eq!(status, 200, "{body}");
    let mut agent: Value = serde_json::from_str(CREATE_AGENT).unwrap();
    agent["options"]["base_url"] = json!(replay.url);
    api.create_agent(agent).await
}

on_both_backends! {
async fn the_blocking_message_answers_the_original_shape_and_a_plain_one_is_queued(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let replay = MockServer::start(write_then_answer()).await;
    let agent_id = documented_agent(&api, &replay).await;
    let work_dir = env.path().join("blocking");
    let session = api.create_session(&agent_id, Some(&work_dir)).await;

    let body = json!({"agent_id": agent_id, "message": MESSAGE}).to_string();
    let path = format!("/sessions/{session}/message?wait=true");
    let (status, answer) = curl_d(&api, reqwest::Method::POST, &path, &body).await;
    assert_eq!(status, 200, "{answer}");
    has_fields(&answer, &["response", "tool_calls", "usage", "steps"]);
    let run = api.run(answer["run_id"].as_str().unwrap()).await;
    assert_eq!((&answer["status"], &answer["response"]), (&json!("succeeded"), &run["response"]));
    assert!(!answer["response"].as_str().unwrap().is_empty());
    assert_eq!(answer["steps"], 2);
    assert_eq!(
        (&answer["usage"]["input_tokens"], &answer["usage"]["output_tokens"]),
        (&json!(656 + 770), &json!(74 + 38))
    );
    let calls = answer["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{answer}");
    // In the original API `tool_name` holds the call's ID.
    assert_eq!(
        (&calls[0]["tool_name"], &calls[0]["name"]),
        (&json!("toolu_018acGYLtfR52q9yDbWaEdQZ"), &json!("write"))
    );
    assert!(calls[0]["output"].is_string(), "{answer}");
    assert_eq!(std::fs::read_to_string(work_dir.join("hello.py")).unwrap(), "print('hello')\n");

    // The conversation, in the original roles.
    let (_, read) = api.get(&format!("/sessions/{session}")).await;
    let roles: Vec<&str> = read["history"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(read["history"][0]["content"], json!([{"type": "text", "text": MESSAGE}]));
    assert_eq!(read["history"][2]["content"][0]["type"], "tool_result");

    // Without ?wait=true: 202, queued, and where to find the run.
    let plain = api.http.post(format!("{}/sessions/{session}/message", api.base)).body(body).send().await.unwrap();
    assert_eq!(plain.status().as_u16(), 202);
    let location = plain.headers()["location"].to_str().unwrap().to_string();
    let queued: Value = plain.json().await.unwrap();
    assert_eq!(queued["status"], "queued");
    assert_eq!(location, format!("/runs/{}", queued["run_id"].as_str().unwrap()));
}
}

on_both_backends! {
async fn the_message_stream_carries_the_original_event_names(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let replay = MockServer::start(write_then_answer()).await;
    let agent_id = documented_agent(&api, &replay).await;
    let session = api.create_session(&agent_id, Some(&env.path().join("streamed"))).await;

    let response = api
        .http
        .post(format!("{}/sessions/{session}/message/stream", api.base))
        .header("content-type", "application/json")
        .body(json!({"agent_id": agent_id, "message": MESSAGE}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut parser = SseDecoder::default();
    let mut frames = Vec::new();
    let mut body = response.bytes_stream();
    'read: while let Some(chunk) = tokio::time::timeout(LIMIT, body.next()).await.expect("the stream stalled") {
        for frame in parser.push(&chunk.unwrap()) {
            let data: Value = serde_json::from_str(&frame.data).unwrap();
            let name = frame.event.clone().unwrap_or_default();
            assert_eq!(data["type"], name.as_str(), "each frame's data names its type");
            frames.push((name, frame.id.clone(), data));
            if frames.last().unwrap().0 == "done" {
                break 'read;
            }
        }
    }
    let names: Vec<&str> = frames.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names.first(), Some(&"run_queued"), "the first event names the run: {names:?}");
    assert_eq!(names.last(), Some(&"done"));
    let text: String = frames.iter().filter(|f| f.0 == "text_delta").map(|f| f.2["text"].as_str().unwrap()).collect();
    let stops: Vec<&Value> = frames.iter().filter(|f| f.0 == "message_stop").map(|f| &f.2).collect();
    assert_eq!(stops.len(), 2, "one message_stop per step: {names:?}");
    assert_eq!((&stops[0]["stop_reason"], &stops[1]["stop_reason"]), (&json!("tool_use"), &json!("end_turn")));
    let done = &frames.last().unwrap().2;
    assert_eq!((&done["steps"], &done["usage"]["output_tokens"]), (&json!(2), &json!(74 + 38)));
    assert_eq!(done["response"].as_str().unwrap(), text, "the text_deltas add up to the answer");
    // Wingman's own events carry their seq as id:; the added frames carry none.
    for (name, id, data) in &frames {
        match name.as_str() {
            "message_stop" => assert_eq!(id, &None),
            _ => assert_eq!(id.as_deref(), Some(data["seq"].to_string().as_str())),
        }
    }
}
}

/// The documented fleet run, with its work_dirs moved under the test's directory.
const RUN_FLEET: &str = r#"{
  "tasks": [
    {"message": "Explore this dir", "work_dir": "/src/auth", "data": "auth"},
    {"message": "Explore this dir", "work_dir": "/src/api", "data": "api"}
  ]
}"#;

on_both_backends! {
async fn a_fleet_run_answers_the_original_results_blocking_and_streamed(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let create = CREATE_FLEET.replace("{{agent_id}}", &agent).replace("/data/documents", "/nonexistent/documents");
    let (_, fleet) = curl_d(&api, reqwest::Method::POST, "/fleets", &create).await;
    let fleet = fleet["id"].as_str().unwrap().to_string();
    let body = RUN_FLEET.replace("\"/src/", &format!("\"{}/src/", env.path().display()));

    let path = format!("/fleets/{fleet}/run?wait=true");
    let (status, results) = curl_d(&api, reqwest::Method::POST, &path, &body).await;
    assert_eq!(status, 200, "{results}");
    let results = results.as_array().expect("the original answer: an array of results");
    assert_eq!(results.len(), 2);
    for (i, (result, data)) in results.iter().zip(["auth", "api"]).enumerate() {
        has_fields(result, &["task_index", "worker_name", "response", "steps", "data"]);
        assert_eq!(
            (&result["task_index"], &result["worker_name"], &result["response"], &result["steps"], &result["data"]),
            (&json!(i), &json!(format!("worker-{i}")), &json!("Explore this dir"), &json!(1), &json!(data))
        );
        assert!(result.get("error").is_none(), "no error on success: {result}");
    }
    for (result, dir) in results.iter().zip(["src/auth", "src/api"]) {
        let session = api.get(&format!("/sessions/{}", result["session_id"].as_str().unwrap())).await.1;
        assert_eq!(session["work_dir"], json!(env.path().join(dir)), "each task in its work_dir");
    }

    let plain = api.http.post(format!("{}/fleets/{fleet}/run", api.base)).body(body.clone()).send().await.unwrap();
    assert_eq!(plain.status().as_u16(), 202, "without ?wait=true a fleet run is queued");
    let queued: Value = plain.json().await.unwrap();
    assert!(is_ulid(&queued["fleet_run_id"]), "{queued}");

    let response = api.http.post(format!("{}/fleets/{fleet}/run/stream", api.base)).body(body).send().await.unwrap();
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let mut parser = SseDecoder::default();
    let mut names = Vec::new();
    let mut body = response.bytes_stream();
    'read: while let Some(chunk) = tokio::time::timeout(LIMIT, body.next()).await.expect("the stream stalled") {
        for frame in parser.push(&chunk.unwrap()) {
            let data: Value = serde_json::from_str(&frame.data).unwrap();
            let name = frame.event.unwrap_or_default();
            if name == "result" {
                assert_eq!(
                    (&data["worker_name"], &data["response"]),
                    (&json!(format!("worker-{}", data["task_index"])), &json!("Explore this dir"))
                );
            }
            names.push(name);
            if names.last().unwrap() == "done" {
                break 'read;
            }
        }
    }
    assert_eq!(names, ["fleet_queued", "result", "result", "done"], "one result per task, then done");
}
}
