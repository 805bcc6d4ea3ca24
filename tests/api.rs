//! The API against real processes: submit and poll, ordering within a
//! session, bad input, idempotency and cancel.

mod common;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, bash_script, marked_gone, marker, wait_marked, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

on_both_backends! {
async fn hundred_messages_over_ten_sessions_succeed_in_order(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _workers = [env.worker(), env.standalone_worker()];
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let mut sessions = Vec::new();
    for _ in 0..10 {
        sessions.push(api.create_session(&agent, None).await);
    }
    let mut runs = Vec::new();
    for m in 0..10 {
        for (s, session) in sessions.iter().enumerate() {
            runs.push(api.send(session, &format!("session {s} message {m}")).await);
        }
    }
    for run in &runs {
        let run = api.wait_terminal(run, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
    }
    for (s, session) in sessions.iter().enumerate() {
        let (_, body) = api.get(&format!("/sessions/{session}")).await;
        let messages = body["history"].as_array().unwrap();
        assert_eq!(messages.len(), 20, "a user message and an answer per run");
        for (m, pair) in messages.chunks(2).enumerate() {
            let expected = format!("session {s} message {m}");
            assert_eq!(pair[0]["role"], "user");
            assert_eq!(pair[0]["content"][0]["text"], expected.as_str());
            assert_eq!(pair[1]["role"], "assistant");
            assert_eq!(pair[1]["content"][0]["text"], expected.as_str(), "echo answers the message");
        }
    }
    // Runs of one session never overlapped: each started after the previous ended.
    for session in &sessions {
        let (_, page) = api.get(&format!("/runs?session_id={session}&limit=500")).await;
        let runs = page["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 10);
        for pair in runs.windows(2) {
            assert!(pair[0]["finished_at"].as_str() <= pair[1]["started_at"].as_str(), "{pair:?}");
        }
    }
}
}

on_both_backends! {
async fn health_shows_the_queue_and_the_live_workers(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let (status, body) = api.get("/health").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!((&body["status"], &body["queue"]), (&json!("ok"), &json!({"queued": 0, "running": 0, "workers": 0})));
    // What this machine gives the tools of the server's own workers.
    assert_eq!(body["sandbox"]["mode"], "auto", "{body}");
    assert!(body["sandbox"]["process_tree"].is_string() && body["sandbox"]["confined"].is_boolean(), "{body}");
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let runs = [api.send(&session, "one").await, api.send(&session, "two").await];
    let (_, body) = api.get("/health").await;
    assert_eq!(body["queue"]["queued"], 2, "{body}");
    let _worker = env.worker();
    for run in &runs {
        api.wait_terminal(run, LIMIT).await;
    }
    // The worker's lease is live as long as it heartbeats; a starved machine
    // may let it lapse for a moment, so look again rather than once.
    let expected = json!({"queued": 0, "running": 0, "workers": 1});
    let start = std::time::Instant::now();
    loop {
        let (_, body) = api.get("/health").await;
        if body["queue"] == expected {
            break;
        }
        assert!(start.elapsed() < LIMIT, "{body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
}

on_both_backends! {
async fn wait_true_answers_with_the_finished_run(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(bash_script(&["echo tool-ran".into()], "all done")).await;
    let session = api.create_session(&agent, None).await;
    let (status, body) = api.post(&format!("/sessions/{session}/message?wait=true"), json!({"message": "go"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "succeeded");
    assert_eq!(body["response"], "all done");
    assert_eq!(body["steps"], 2);
    assert_eq!(body["tool_calls"][0]["name"], "bash");
    assert!(body["tool_calls"][0]["output"].as_str().unwrap().contains("tool-ran"));
    assert!(body["usage"]["output_tokens"].as_u64().unwrap() > 0);
}
}

/// Row counts of every table, and the newest change: the database's fingerprint.
async fn fingerprint(env: &TestEnv) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for table in ["agents", "sessions", "session_messages", "runs", "run_events", "checkpoints", "idempotency_keys"] {
        out.push((table.to_string(), env.count(&format!("SELECT COUNT(*) FROM {table}"), &[]).await));
    }
    for table in ["agents", "sessions", "runs"] {
        let newest = env.count(&format!("SELECT COALESCE(MAX(updated_at), 0) FROM {table}"), &[]).await;
        out.push((format!("{table}.updated_at"), newest));
    }
    out
}

on_both_backends! {
async fn bad_input_is_a_4xx_with_an_error_and_changes_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let finished = api.send(&session, "hello").await;
    api.wait_terminal(&finished, LIMIT).await;
    let doomed = api.create_session(&agent, None).await;
    let (status, _) = api.get(&format!("/sessions/{doomed}")).await;
    assert_eq!(status, 200);
    let deleted = api.http.delete(format!("{}/sessions/{doomed}", api.base)).send().await.unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    assert_eq!(deleted.json::<Value>().await.unwrap(), json!({"status": "deleted"}));
    let before = fingerprint(&env).await;

    let msg = format!("/sessions/{session}/message");
    let raw = |method: reqwest::Method, path: String, body: &'static str, ctype: Option<&'static str>| {
        let mut r = api.http.request(method, format!("{}{path}", api.base)).body(body);
        if let Some(c) = ctype {
            r = r.header("content-type", c);
        }
        r
    };
    let big = "x".repeat(2 * 1024 * 1024);
    let cases: Vec<(&str, reqwest::RequestBuilder, u16)> = vec![
        ("malformed JSON", raw(reqwest::Method::POST, "/agents".into(), "{\"name\": ", Some("application/json")), 400),
        ("not JSON's type", raw(reqwest::Method::POST, "/agents".into(), "{\"name\":\"a\"}", Some("text/plain")), 415),
        ("wrong type", api.http.post(format!("{}/agents", api.base)).json(&json!({"name": 5})), 422),
        ("name missing", api.http.post(format!("{}/agents", api.base)).json(&json!({"model": "echo"})), 422),
        ("unknown field", api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "colour": 1})), 422),
        (
            "unknown provider",
            api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "provider": "nope"})),
            400,
        ),
        (
            "unknown tool",
            api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "tools": ["rm"]})),
            400,
        ),
        (
            "bad script",
            api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "options": {"script": 3}})),
            400,
        ),
        ("max_steps 0", api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "max_steps": 0})), 400),
        ("loop_guard 1", api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "loop_guard": 1})), 400),
        (
            "a budget of nothing",
            api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "max_cost_usd": 0})),
            400,
        ),
        (
            "no time for a step",
            api.http.post(format!("{}/agents", api.base)).json(&json!({"name": "a", "step_timeout_secs": 0})),
            400,
        ),
        ("relative work_dir", api.http.post(format!("{}/sessions", api.base)).json(&json!({"work_dir": "rel"})), 400),
        (
            "session of unknown agent",
            api.http.post(format!("{}/sessions", api.base)).json(&json!({"agent_id": "nope"})),
            404,
        ),
        (
            "unknown session",
            api.http.post(format!("{}/sessions/nope/message", api.base)).json(&json!({"message": "hi"})),
            404,
        ),
        (
            "deleted session",
            api.http.post(format!("{}/sessions/{doomed}/message", api.base)).json(&json!({"message": "hi"})),
            404,
        ),
        (
            "unknown agent",
            api.http.post(format!("{}{msg}", api.base)).json(&json!({"message": "hi", "agent_id": "nope"})),
            404,
        ),
        ("empty message", api.http.post(format!("{}{msg}", api.base)).json(&json!({"message": "  "})), 400),
        ("message missing", api.http.post(format!("{}{msg}", api.base)).json(&json!({"agent_id": agent})), 422),
        ("message wrong type", api.http.post(format!("{}{msg}", api.base)).json(&json!({"message": ["hi"]})), 422),
        (
            "oversized body",
            // Its own client: the server closes a connection whose body it refused
            // unread, and a pooled client would reuse it for the next case.
            reqwest::Client::new()
                .post(format!("{}{msg}", api.base))
                .header("content-type", "application/json")
                .body(format!("{{\"message\": \"{big}\"}}")),
            413,
        ),
        ("unknown run", api.http.get(format!("{}/runs/nope", api.base)), 404),
        ("unknown run events", api.http.get(format!("{}/runs/nope/events", api.base)), 404),
        ("cancel unknown run", api.http.post(format!("{}/runs/nope/cancel", api.base)), 404),
        ("cancel finished run", api.http.post(format!("{}/runs/{finished}/cancel", api.base)), 409),
        ("bad status filter", api.http.get(format!("{}/runs?status=bogus", api.base)), 400),
        ("bad limit", api.http.get(format!("{}/runs?limit=0", api.base)), 400),
        (
            "bad Last-Event-ID",
            api.http.get(format!("{}/runs/{finished}/events", api.base)).header("Last-Event-ID", "x"),
            400,
        ),
        ("bad after", api.http.get(format!("{}/runs/{finished}/events?after=-1", api.base)), 400),
        ("unknown agent id", api.http.get(format!("{}/agents/nope", api.base)), 404),
        ("update unknown agent", api.http.put(format!("{}/agents/nope", api.base)).json(&json!({"name": "b"})), 404),
        ("delete unknown session", api.http.delete(format!("{}/sessions/nope", api.base)), 404),
        ("unknown route", api.http.get(format!("{}/nope", api.base)), 404),
        ("wrong method", api.http.delete(format!("{}/runs", api.base)), 405),
        (
            "idempotency key too long",
            api.http
                .post(format!("{}{msg}", api.base))
                .header("Idempotency-Key", "k".repeat(300))
                .json(&json!({"message": "hi"})),
            400,
        ),
    ];
    for (name, request, expected) in cases {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        assert_eq!(status, expected, "{name}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{name}: no error message in {body}");
    }
    assert_eq!(before, fingerprint(&env).await, "bad input changed the database");
}
}

on_both_backends! {
async fn idempotency_key_replays_the_first_answer_and_refuses_another_body(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let url = format!("{}/sessions/{session}/message", api.base);
    let submit = |message: &'static str| {
        api.http.post(&url).header("Idempotency-Key", "order-42").json(&json!({"message": message}))
    };
    let first = submit("hello").send().await.unwrap();
    assert_eq!(first.status().as_u16(), 202);
    assert!(first.headers().get("idempotent-replayed").is_none());
    let first: Value = first.json().await.unwrap();
    let again = submit("hello").send().await.unwrap();
    assert_eq!(again.status().as_u16(), 202);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: Value = again.json().await.unwrap();
    assert_eq!(first["run_id"], again["run_id"], "the same run");
    let other = submit("something else").send().await.unwrap();
    assert_eq!(other.status().as_u16(), 422);
    let (_, page) = api.get(&format!("/runs?session_id={session}")).await;
    assert_eq!(page["runs"].as_array().unwrap().len(), 1, "one run for one key");
}
}

on_both_backends! {
async fn cancel_a_queued_run_and_a_running_one(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_LEASE_MS", "1000");
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    // Queued: nothing runs it, so it is cancelled before it starts.
    let echo = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&echo, None).await;
    let queued = api.send(&session, "never runs").await;
    let (status, run) = api.post(&format!("/runs/{queued}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{run}");
    assert_eq!(run["status"], "cancelled");
    let events = api.events(&queued).await;
    assert_dense(&events);
    assert_eq!(events.last().unwrap()["status"], "cancelled");
    let (_, session_body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(session_body["history"].as_array().unwrap().len(), 0, "a run that never started leaves no history");

    // Running: a long bash is killed, and the run is never resumed.
    let m = marker();
    let slow = api.create_agent(bash_script(&[format!("sleep {m}")], "unreachable")).await;
    let session = api.create_session(&slow, Some(&work)).await;
    let _worker = env.worker();
    let running = api.send(&session, "go").await;
    api.wait_event(&running, LIMIT, |e| e["type"] == "tool_call").await;
    wait_marked(&m, 1, LIMIT).await;
    let (status, run) = api.post(&format!("/runs/{running}/cancel"), json!({})).await;
    assert_eq!(status, 202, "{run}");
    assert_eq!(run["status"], "cancelled");
    assert!(marked_gone(&m, Duration::from_secs(10)).await, "the running bash was not killed");
    // Well past the lease: nobody resumed it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let run = api.run(&running).await;
    assert_eq!(run["status"], "cancelled");
    let events = api.events(&running).await;
    assert_dense(&events);
    let (_, session_body) = api.get(&format!("/sessions/{session}")).await;
    let history = session_body["history"].as_array().unwrap();
    // The cancelled run left a valid history: the tool call is closed by an error result.
    assert_eq!(history.last().unwrap()["role"], "user");
    assert_eq!(history.last().unwrap()["content"][0]["type"], "tool_result");
    assert_eq!(history.last().unwrap()["content"][0]["is_error"], true);
}
}

on_both_backends! {
async fn message_stream_enqueues_then_streams_the_run(backend: Backend) {
    use futures_util::StreamExt;
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let response = api
        .http
        .post(format!("{}/sessions/{session}/message/stream", api.base))
        .json(&json!({"message": "stream me"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["x-accel-buffering"], "no");
    let mut parser = common::SseDecoder::default();
    let mut events: Vec<Value> = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        // The frames without an id are the original API's names beside the log (message_stop).
        let frames = parser.push(&chunk.unwrap());
        events
            .extend(frames.iter().filter(|f| f.id.is_some()).map(|f| serde_json::from_str::<Value>(&f.data).unwrap()));
    }
    assert_eq!(events[0]["type"], "run_queued", "the first event names the run");
    let run_id = events[0]["run_id"].as_str().unwrap();
    assert_dense(&events);
    assert_eq!(events.last().unwrap()["response"], "stream me");
    assert_eq!(events, api.events(run_id).await, "the stream is the stored log");
    let (status, body) = api.post(&format!("/sessions/{session}/message/stream"), json!({"message": ""})).await;
    assert_eq!(status, 400, "bad input is refused before any stream starts: {body}");
}
}

on_both_backends! {
    async fn a_run_of_an_unknown_kind_is_not_read_as_a_message(backend: Backend) {
        // A stored run whose kind this version does not know (a newer
        // version's, say) is an error the server logs, never a message run.
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let agent = api.create_agent(json!({"name": "a", "provider": "scripted", "model": "echo"})).await;
        let session = api.create_session(&agent, None).await;
        let run = api.send(&session, "hi").await;
        assert_eq!(api.run(&run).await["kind"], "message");
        env.execute(&format!("UPDATE runs SET kind = 'from_a_newer_version' WHERE id = '{run}'")).await;
        let (status, body) = api.get(&format!("/runs/{run}")).await;
        assert_eq!(status, 500, "{body}");
        assert!(!body.to_string().contains("from_a_newer_version"), "the cause is logged, not answered: {body}");
        let log = server.process.log_text();
        assert!(log.contains(r#"unknown run kind "from_a_newer_version""#), "{log}");
    }
}
