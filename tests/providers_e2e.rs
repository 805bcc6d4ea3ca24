//! Real providers through real processes: `wingman serve --workers 0`, a
//! separate `wingman worker`, and a server in the test process replaying
//! provider answers on 127.0.0.1. One tool-using run per provider, checked in
//! its events, its run, its session and the requests the provider received;
//! and a planted API key that must show nowhere but in those requests.

mod common;
mod providers_support;

use std::time::Duration;

use common::Backend;
use common::{assert_dense, Api, TestEnv};
use providers_support::{fixture, openai_text, retool, MockServer, Received, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);
const MESSAGE: &str = "Run the check, then tell me the weather.";
const COMMAND: &str = "echo wingman-e2e-ok";
/// What the bash tool answers for COMMAND.
const TOOL_OUTPUT: &str = "wingman-e2e-ok\n[exit code 0]";

fn bash_call(command: &str) -> Value {
    json!({"command": command})
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// A provider's side of a run: an agent on it, and the two answers replayed.
struct Case {
    provider: &'static str,
    model: &'static str,
    key: &'static str,
    /// Appended to the replay server's URL to make `options.base_url`.
    base_path: &'static str,
    /// A tool call of `bash` running COMMAND, then a text answer.
    replies: Vec<Reply>,
    call_id: &'static str,
    /// Input and output tokens of the two answers.
    usage: [(u64, u64); 2],
}

/// Stores the case's key, runs MESSAGE through an agent on its provider in
/// separate server and worker processes, and checks what every provider
/// shares: events, run, session history. Returns the requests the replay
/// server received, for the provider's own checks.
async fn full_run(case: Case) -> Vec<Received> {
    let env = TestEnv::new();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let replay = MockServer::start(case.replies).await;
    let credential = json!({"providers": {case.provider: {"type": "api_key", "key": case.key}}});
    let (status, body) = api.put("/provider/auth", credential).await;
    assert_eq!((status, body), (200, json!({"status": "ok"})));
    let options = json!({"base_url": format!("{}{}", replay.url, case.base_path)});
    let agent = api
        .create_agent(json!({"name": "e2e", "provider": case.provider, "model": case.model,
        "instructions": "Be brief.", "tools": ["bash"], "options": options}))
        .await;
    let session = api.create_session(&agent, None).await;
    let run_id = api.send(&session, MESSAGE).await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "succeeded", "{run}");
    let events = api.events(&run_id).await;
    assert_dense(&events);

    let (call, result) = (of_type(&events, "tool_call"), of_type(&events, "tool_result"));
    assert_eq!(call.len(), 1, "{events:?}");
    assert_eq!(
        (&call[0]["step"], &call[0]["call_id"], &call[0]["name"], &call[0]["input"]),
        (&json!(1), &json!(case.call_id), &json!("bash"), &bash_call(COMMAND))
    );
    assert_eq!(result.len(), 1, "{events:?}");
    assert_eq!(
        (&result[0]["step"], &result[0]["call_id"], &result[0]["output"], &result[0]["is_error"]),
        (&json!(1), &json!(case.call_id), &json!(TOOL_OUTPUT), &json!(false))
    );
    let response = run["response"].as_str().expect("a response");
    assert!(!response.is_empty());
    let streamed: String = of_type(&events, "text_delta").iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert_eq!(streamed, response, "the text_deltas add up to the response");
    assert!(of_type(&events, "text_delta").iter().all(|e| e["step"] == 2));

    let completed = of_type(&events, "step_completed");
    let usage: Vec<(u64, u64)> = completed
        .iter()
        .map(|e| (e["usage"]["input_tokens"].as_u64().unwrap(), e["usage"]["output_tokens"].as_u64().unwrap()))
        .collect();
    assert_eq!(usage, case.usage);
    let stops: Vec<_> = completed.iter().map(|e| e["stop_reason"].as_str().unwrap()).collect();
    assert_eq!(stops, ["tool_use", "end_turn"]);
    assert_eq!(run["steps"], 2);
    let total = (case.usage[0].0 + case.usage[1].0, case.usage[0].1 + case.usage[1].1);
    assert_eq!(
        (run["usage"]["input_tokens"].as_u64(), run["usage"]["output_tokens"].as_u64()),
        (Some(total.0), Some(total.1))
    );
    let step_costs: Option<Vec<f64>> = completed.iter().map(|e| e["usage"]["cost_usd"].as_f64()).collect();
    match (step_costs, run["usage"]["cost_usd"].as_f64()) {
        (Some(steps), Some(cost)) => assert!((steps.iter().sum::<f64>() - cost).abs() < 1e-12, "{steps:?} {cost}"),
        (None, None) => {}
        other => panic!("a run's cost is known exactly when every step's is: {other:?}"),
    }
    assert_eq!(
        run["tool_calls"],
        json!([{"step": 1, "call_id": case.call_id, "name": "bash", "input": bash_call(COMMAND),
        "output": TOOL_OUTPUT, "is_error": false}])
    );
    let done = events.last().unwrap();
    assert_eq!(
        (&done["status"], &done["response"], &done["steps"], &done["usage"]),
        (&json!("succeeded"), &run["response"], &json!(2), &run["usage"])
    );

    let (status, body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["history"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": MESSAGE}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": case.call_id, "name": "bash", "input": bash_call(COMMAND)}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": case.call_id, "content": TOOL_OUTPUT, "is_error": false}]},
            {"role": "assistant", "content": [{"type": "text", "text": response}]},
        ])
    );

    let requests = replay.requests();
    assert_eq!((requests.len(), replay.unused()), (2, 0), "one request per step");
    assert!(requests.iter().all(|r| r.method == "POST" && r.body["model"] == case.model));
    requests
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_runs_bash_and_answers_through_separate_processes() {
    const KEY: &str = "sk-ant-e2e-0123456789abcdef";
    const ID: &str = "toolu_018acGYLtfR52q9yDbWaEdQZ";
    // The capture calls get_weather; only the tool's name and its partial_json fragments are changed.
    let tool = retool(
        &fixture("anthropic_stream_tool_padded.sse"),
        "get_weather",
        "bash",
        "partial_json",
        &bash_call(COMMAND),
    );
    let requests = full_run(Case {
        provider: "anthropic",
        model: "claude-haiku-4-5",
        key: KEY,
        base_path: "",
        replies: vec![Reply::sse(tool), Reply::sse(fixture("anthropic_stream_text_padded.sse"))],
        call_id: ID,
        usage: [(656, 74), (770, 38)],
    })
    .await;
    for r in &requests {
        assert_eq!((r.path.as_str(), r.headers["x-api-key"].as_str()), ("/v1/messages", KEY));
        assert_eq!((&r.body["system"], &r.body["tools"][0]["name"]), (&json!("Be brief."), &json!("bash")));
    }
    assert_eq!(requests[0].body["messages"], json!([{"role": "user", "content": MESSAGE}]));
    assert_eq!(
        requests[1].body["messages"],
        json!([
            {"role": "user", "content": MESSAGE},
            {"role": "assistant", "content": [{"type": "tool_use", "id": ID, "name": "bash", "input": bash_call(COMMAND)}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ID, "content": TOOL_OUTPUT}]},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_runs_bash_and_answers_through_separate_processes() {
    const KEY: &str = "sk-proj-e2e-0123456789abcdef";
    const ID: &str = "call_CTf1nWJLqSeRgDqaCG27xZ74";
    // The capture calls get_weather; only the tool's name and its argument fragments are changed.
    let tool =
        retool(&fixture("openai_stream_tool_calls.sse"), "get_weather", "bash", "arguments", &bash_call(COMMAND));
    let requests = full_run(Case {
        provider: "openai",
        model: "gpt-4o-2024-08-06",
        key: KEY,
        base_path: "/v1",
        replies: vec![
            Reply::sse(tool),
            Reply::sse(openai_text("The check printed wingman-e2e-ok; it is sunny.", 60, 8)),
        ],
        call_id: ID,
        usage: [(48, 19), (60, 8)],
    })
    .await;
    for r in &requests {
        assert_eq!(
            (r.path.as_str(), r.headers["authorization"].as_str()),
            ("/v1/chat/completions", format!("Bearer {KEY}").as_str())
        );
        assert_eq!(r.body["tools"][0]["function"]["name"], "bash");
    }
    let system = json!({"role": "system", "content": "Be brief."});
    assert_eq!(requests[0].body["messages"], json!([system, {"role": "user", "content": MESSAGE}]));
    assert_eq!(
        requests[1].body["messages"],
        json!([system, {"role": "user", "content": MESSAGE},
            {"role": "assistant", "content": null, "tool_calls": [{"id": ID, "type": "function",
                "function": {"name": "bash", "arguments": bash_call(COMMAND).to_string()}}]},
            {"role": "tool", "tool_call_id": ID, "content": TOOL_OUTPUT},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_runs_bash_and_answers_through_separate_processes() {
    // Ollama needs no key; one stored is sent as a bearer token (Ollama's cloud).
    const KEY: &str = "ollama-e2e-0123456789abcdef";
    const ID: &str = "call_k3v9x2qa";
    // The capture calls get_weather; only the tool's name and its arguments object are changed.
    let tool = retool(
        &fixture("ollama_stream_tool_current_format.ndjson"),
        "get_weather",
        "bash",
        "arguments",
        &bash_call(COMMAND),
    );
    let requests = full_run(Case {
        provider: "ollama",
        model: "llama3.2",
        key: KEY,
        base_path: "",
        replies: vec![Reply::ndjson(tool), Reply::ndjson(fixture("ollama_stream_text.ndjson"))],
        call_id: ID,
        usage: [(169, 15), (26, 282)],
    })
    .await;
    for r in &requests {
        assert_eq!(
            (r.path.as_str(), r.headers["authorization"].as_str()),
            ("/api/chat", format!("Bearer {KEY}").as_str())
        );
        assert_eq!(r.body["tools"][0]["function"]["name"], "bash");
    }
    let system = json!({"role": "system", "content": "Be brief."});
    assert_eq!(requests[0].body["messages"], json!([system, {"role": "user", "content": MESSAGE}]));
    assert_eq!(
        requests[1].body["messages"],
        json!([system, {"role": "user", "content": MESSAGE},
            {"role": "assistant", "content": "", "tool_calls": [{"id": ID, "function": {"name": "bash", "arguments": bash_call(COMMAND)}}]},
            {"role": "tool", "content": TOOL_OUTPUT, "tool_call_id": ID, "tool_name": "bash"},
        ])
    );
}

const SENTINEL: &str = "sk-wingman-sentinel-7f3a9c1e5b2d8046aa31";

/// Submits a message in a session of its own and waits for the run to end.
async fn run_once(api: &Api, agent: &str) -> (String, String, Value) {
    let session = api.create_session(agent, None).await;
    let run_id = api.send(&session, MESSAGE).await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    (session, run_id, run)
}

on_both_backends! {
async fn a_planted_key_shows_only_in_the_requests_sent_to_the_provider(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_LOG", "debug");
    // The worker's environment holds it too; the bash tool must not pass it on.
    env.set("ANTHROPIC_API_KEY", SENTINEL);
    let mut server = env.server(0);
    let mut worker = env.worker();
    let api = server.api();
    // Both keys in one PUT, in the original API's shape.
    let both = json!({"providers": {"anthropic": {"type": "api_key", "key": SENTINEL},
        "openai": {"type": "api_key", "key": SENTINEL}}});
    let (status, body) = api.put("/provider/auth", both).await;
    assert_eq!((status, body), (200, json!({"status": "ok"})));
    // A misbehaving server: OpenAI's recorded 401, echoing the whole key where the real one masks it.
    let masked = "sk-svcac****************************************************r-IL";
    let echo = String::from_utf8(fixture("openai_error_401.json")).unwrap().replace(masked, SENTINEL);
    assert!(echo.contains(SENTINEL));
    let tool =
        retool(&fixture("anthropic_stream_tool_padded.sse"), "get_weather", "bash", "partial_json", &bash_call("env"));
    let replay = MockServer::start(vec![
        Reply::json(401, echo.into_bytes()),
        Reply::recorded("anthropic_error_400.response_headers.json", "anthropic_error_400.json"),
        Reply::sse(tool),
        Reply::sse(fixture("anthropic_stream_text_padded.sse")),
    ])
    .await;
    let agent = |provider: &str, base_path: &str| {
        json!({"name": "sentinel", "provider": provider, "model": "m",
        "tools": ["bash"], "options": {"base_url": format!("{}{base_path}", replay.url)}})
    };
    let openai = api.create_agent(agent("openai", "/v1")).await;
    let anthropic = api.create_agent(agent("anthropic", "")).await;

    let rejected = run_once(&api, &openai).await;
    assert_eq!(rejected.2["status"], "failed");
    let error = rejected.2["error"].as_str().unwrap();
    assert!(
        error.starts_with("provider error (401): invalid_request_error: Incorrect API key provided: [redacted]."),
        "{error}"
    );
    let invalid = run_once(&api, &anthropic).await;
    assert!(
        invalid.2["error"].as_str().unwrap().starts_with("provider error (400): invalid_request_error: messages.0"),
        "{}",
        invalid.2
    );
    let ok = run_once(&api, &anthropic).await;
    assert_eq!(ok.2["status"], "succeeded", "{}", ok.2);
    assert!(ok.2["tool_calls"][0]["output"].as_str().unwrap().contains("PATH="), "the tool printed its environment");

    // Read everything a client can, each answer landing in the transcript.
    for (session, run_id, _) in [&rejected, &invalid, &ok] {
        api.run(run_id).await;
        assert_dense(&api.events(run_id).await);
        let (events, done) = api.sse_read(run_id, None, None).await;
        assert!(done && events.len() > 1);
        assert_eq!(api.get(&format!("/sessions/{session}")).await.0, 200);
    }
    for path in ["/provider/auth", "/runs", "/sessions", "/agents"] {
        assert_eq!(api.get(path).await.0, 200, "{path}");
    }
    let (_, listed) = api.get("/provider/auth").await;
    for provider in ["anthropic", "openai"] {
        let entry = &listed["providers"][provider];
        assert_eq!(
            (&entry["type"], &entry["configured"], &entry["hint"]),
            (&json!("api_key"), &json!(true), &json!("…aa31"))
        );
    }
    assert_eq!(listed["providers"].as_object().map(|p| p.len()), Some(2), "{listed}");
    assert!(listed["updated_at"].is_string(), "{listed}");

    let requests = replay.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[0].headers["authorization"], format!("Bearer {SENTINEL}"), "the key was sent");
    assert!(requests[1..].iter().all(|r| r.headers["x-api-key"] == SENTINEL), "the key was sent");

    assert!(server.process.terminate().success() && worker.terminate().success());
    let (server_log, worker_log) = (server.process.log_text(), worker.log_text());
    assert!(worker_log.contains("DEBUG") && worker_log.contains("claimed"), "debug logging is on: {worker_log}");
    assert!(server_log.contains("DEBUG"), "debug logging is on: {server_log}");
    let tail = &SENTINEL[SENTINEL.len() - 12..];
    for (place, text) in
        [("an API answer", api.transcript()), ("the server log", server_log), ("the worker log", worker_log)]
    {
        for needle in [SENTINEL, tail] {
            let around = text.find(needle).map(|i| {
                text[..i]
                    .chars()
                    .rev()
                    .take(300)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .chain(text[i..].chars().take(100))
                    .collect::<String>()
            });
            assert!(around.is_none(), "{place} shows {needle:?}: …{}…", around.unwrap_or_default());
        }
    }
}
}
