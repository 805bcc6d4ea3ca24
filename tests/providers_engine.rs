//! Real providers through the agent loop: a SQLite store, an in-process
//! worker, and a local server replaying the captures. Retries are proven by
//! counting requests and reading the delays the engine chose; credentials come
//! from the store; usage and cost are recorded per step and summed per run.

mod providers_support;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use providers_support::{fixture, openai_text, MockServer, Reply};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use wingman::domain::model::{new_id, Agent, Run, RunInput, RunKind, Session};
use wingman::engine::LoopConfig;
use wingman::provider::auth::ApiKey;
use wingman::store::{NewRun, Store, StoreOptions};
use wingman::worker::{self, WorkerConfig};

/// The first admin: the owner of the values stored before owners existed, which every owner shares.
const ADMIN: &str = wingman::domain::model::FIRST_ADMIN;

const KEY: &str = "sk-ant-test-SENTINEL-engine-5e6f7a8b";

struct Harness {
    store: Arc<dyn Store>,
    dir: tempfile::TempDir,
    shutdown: CancellationToken,
    wake: Arc<tokio::sync::Notify>,
}

impl Harness {
    async fn start() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wingman.db");
        let store = wingman::store::open(path.to_str().unwrap(), &StoreOptions::default()).await.unwrap();
        let engine = LoopConfig {
            delta_flush: Duration::from_millis(5),
            provider_retries: 3,
            retry_base: Duration::from_millis(40),
            retry_cap: Duration::from_millis(120),
            ..LoopConfig::default()
        };
        let config = WorkerConfig {
            name: "providers-test".into(),
            concurrency: 2,
            poll: Duration::from_millis(5),
            engine,
            ..WorkerConfig::default()
        };
        let (shutdown, wake) = (CancellationToken::new(), Arc::new(tokio::sync::Notify::new()));
        tokio::spawn(worker::run(store.clone(), config, wake.clone(), shutdown.clone()));
        Harness { store, dir, shutdown, wake }
    }

    /// Runs one message through an agent and returns the finished run and its events.
    async fn run(
        &self,
        provider: &str,
        model: &str,
        options: Value,
        output_schema: Option<Value>,
    ) -> (Run, Vec<Value>) {
        let now = Utc::now();
        let agent = Agent {
            id: new_id(),
            owner: wingman::domain::model::first_admin(),
            shared: false,
            name: "t".into(),
            provider: provider.into(),
            model: model.into(),
            options: options.as_object().cloned().unwrap_or_else(Map::new),
            instructions: Some("Be brief.".into()),
            tools: vec![],
            output_schema,
            max_steps: 5,
            guards: Default::default(),
            approve_tools: Vec::new(),
            http_tools: Vec::new(),
            client_tools: Vec::new(),
            mcp_servers: Vec::new(),
            reasoning: Default::default(),
            reasoning_byte_limit: wingman::domain::model::DEFAULT_REASONING_BYTE_LIMIT,
            compaction: Default::default(),
            subagents: Vec::new(),
            max_depth: wingman::domain::subagent::DEFAULT_MAX_DEPTH,
            webhook: None,
            concurrency: None,
            limits: None,
            version: 1,
            created_at: now,
            updated_at: now,
        };
        wingman::provider::validate_options(provider, &agent.options).unwrap();
        self.store.insert_agent(&agent).await.unwrap();
        let work_dir = self.dir.path().join(new_id()).to_string_lossy().into_owned();
        let session = Session {
            id: new_id(),
            owner: wingman::domain::model::first_admin(),
            agent_id: Some(agent.id.clone()),
            title: None,
            work_dir: work_dir.clone(),
            metadata: json!({}),
            added_tools: Default::default(),
            forked_from: None,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_session(&session).await.unwrap();
        let run = NewRun {
            id: new_id(),
            kind: RunKind::Message,
            session_id: Some(session.id),
            agent,
            input: RunInput::new("What is the weather in SF?", Default::default()),
            work_dir,
            max_attempts: 3,
            strategy: Default::default(),
            from_past: None,
        };
        let run_id = self.store.enqueue_run(run, None).await.unwrap().run.id;
        self.wake.notify_waiters();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let run = self.store.get_run(&run_id).await.unwrap().unwrap();
            if run.status.is_terminal() {
                let events = self.store.read_events(&run_id, 0, 10_000).await.unwrap();
                return (run, events.iter().map(|e| e.to_json()).collect());
            }
            assert!(tokio::time::Instant::now() < deadline, "the run did not finish");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The text a client shows: each `step_restarted` voids the text of its step so far.
fn shown_text(events: &[Value]) -> String {
    let mut kept: Vec<(u64, String)> = Vec::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "text_delta" => kept.push((e["step"].as_u64().unwrap(), e["text"].as_str().unwrap().into())),
            "step_restarted" => kept.retain(|(step, _)| *step != e["step"].as_u64().unwrap()),
            _ => {}
        }
    }
    kept.into_iter().map(|(_, t)| t).collect()
}

#[tokio::test]
async fn transient_failures_are_retried_with_the_delays_chosen_and_partial_text_voided() {
    let h = Harness::start().await;
    h.store.put_credential(ADMIN, "anthropic", &ApiKey::new(KEY)).await.unwrap();
    let server = MockServer::start(vec![
        Reply::recorded("anthropic_error_529.headers.json", "anthropic_error_529.json"),
        Reply::recorded("anthropic_error_429.headers.json", "anthropic_error_429.json"),
        Reply::sse(fixture("anthropic_stream_midstream_error.sse"))
            .pause_before("event: error", Duration::from_millis(150)),
        Reply::sse(fixture("anthropic_stream_text_padded.sse")),
    ])
    .await;
    let (run, events) = h.run("anthropic", "claude-haiku-4-5", json!({"base_url": server.url}), None).await;
    assert_eq!(run.status.as_str(), "succeeded", "{:?}", run.error);

    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests.iter().all(|r| r.headers["x-api-key"] == KEY), "the stored key is sent");
    assert!(requests.iter().all(|r| r.body == requests[0].body), "a retry repeats the same request");
    assert_eq!(requests[0].body["system"], "Be brief.");

    let restarts = of_type(&events, "step_restarted");
    let summary: Vec<_> = restarts.iter().map(|e| (e["retry"].as_u64().unwrap(), e["status"].as_u64())).collect();
    assert_eq!(summary, [(1, Some(529)), (2, Some(429)), (3, None)]);
    let delays: Vec<u64> = restarts.iter().map(|e| e["delay_ms"].as_u64().unwrap()).collect();
    // A 529 or 429 pauses the credential for every run instead: the run
    // adds no delay of its own and waits for the pause like any other.
    assert_eq!(&delays[..2], [0, 0], "{delays:?}");
    let waits: Vec<_> = of_type(&events, "rate_limited")
        .iter()
        .map(|e| (e["reason"].as_str().unwrap().to_string(), e["wait_ms"].as_u64().unwrap()))
        .collect();
    // The 529's pause (capped at retry_cap), then the pace the 429 taught
    // the credential (its headers name its limit), which every later call keeps.
    assert!(waits.len() >= 2, "{waits:?}");
    assert!(waits[0].0 == "paused" && waits[0].1 <= 120, "{waits:?}");
    assert!(waits[1..].iter().all(|(why, _)| why == "requests_per_minute"), "{waits:?}");
    assert!((60..=120).contains(&delays[2]), "backoff with jitter: {delays:?}");
    assert!(restarts[2]["reason"].as_str().unwrap().contains("api_error: Internal server error"));

    let deltas = of_type(&events, "text_delta");
    assert!(
        deltas.iter().any(|e| e["text"].as_str().unwrap().contains("replacement character")),
        "the failed attempt's partial text was streamed before its step_restarted"
    );
    let response = run.response.clone().unwrap();
    assert!(response.starts_with("The weather in San Francisco"));
    assert_eq!(shown_text(&events), response, "a replaying client shows the text once");

    assert_eq!((run.usage.input_tokens, run.usage.output_tokens), (770, 38));
    let cost = run.usage.cost_usd.expect("claude-haiku-4-5 has a price");
    assert!((cost - 0.00096).abs() < 1e-12, "{cost}");
    let completed = of_type(&events, "step_completed");
    assert_eq!(completed[0]["usage"]["cost_usd"].as_f64(), Some(cost));

    let everything = format!("{events:?}{:?}", serde_json::to_string(&run).unwrap());
    assert!(!everything.contains(KEY) && !everything.contains("SENTINEL"));
}

#[tokio::test]
async fn a_fatal_error_fails_the_run_at_once_with_the_providers_message() {
    let h = Harness::start().await;
    h.store.put_credential(ADMIN, "anthropic", &ApiKey::new(KEY)).await.unwrap();
    let server = MockServer::start(vec![Reply::json(401, fixture("anthropic_error_401.json"))]).await;
    let (run, events) = h.run("anthropic", "claude-haiku-4-5", json!({"base_url": server.url}), None).await;
    assert_eq!(run.status.as_str(), "failed");
    assert_eq!(run.error.as_deref(), Some("provider error (401): authentication_error: invalid x-api-key"));
    assert_eq!(server.requests().len(), 1);
    assert!(of_type(&events, "step_restarted").is_empty());
    assert_eq!(of_type(&events, "done")[0]["error"], run.error.clone().unwrap());
}

#[tokio::test]
async fn credentials_come_from_the_store_and_a_missing_one_fails_clearly() {
    let h = Harness::start().await;
    let server = MockServer::start(vec![Reply::sse(fixture("anthropic_stream_text_padded.sse"))]).await;
    let options = json!({"base_url": server.url, "credential": "anthropic:team"});
    let (run, _) = h.run("anthropic", "claude-haiku-4-5", options.clone(), None).await;
    assert_eq!(run.status.as_str(), "failed");
    assert!(run.error.as_deref().unwrap().contains("no API key for anthropic"), "{:?}", run.error);
    assert!(server.requests().is_empty());

    h.store.put_credential(ADMIN, "anthropic:team", &ApiKey::new("sk-ant-team-key-0001")).await.unwrap();
    let (run, _) = h.run("anthropic", "claude-haiku-4-5", options, None).await;
    assert_eq!(run.status.as_str(), "succeeded", "{:?}", run.error);
    assert_eq!(server.requests()[0].headers["x-api-key"], "sk-ant-team-key-0001");
}

#[tokio::test]
async fn tool_calls_become_tool_steps_and_usage_and_cost_add_up() {
    let h = Harness::start().await;
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]});
    let server = MockServer::start(vec![
        Reply::sse(fixture("openai_stream_tool_calls.sse")),
        Reply::sse(openai_text("{\"answer\": \"68°F and sunny\"}", 60, 8)),
    ])
    .await;
    let (run, events) = h.run("openai", "gpt-4o-2024-08-06", json!({"base_url": server.url}), Some(schema)).await;
    assert_eq!(run.status.as_str(), "succeeded", "{:?}", run.error);
    assert_eq!(run.steps, 2);
    let call = of_type(&events, "tool_call")[0];
    assert_eq!(
        (call["call_id"].as_str(), call["input"].clone()),
        (Some("call_CTf1nWJLqSeRgDqaCG27xZ74"), json!({"city": "San Francisco", "state": "CA"}))
    );
    let result = of_type(&events, "tool_result")[0];
    assert_eq!(result["is_error"], true, "get_weather is not a Wingman tool; the model is told so");

    let second = &server.requests()[1].body;
    assert!(!server.requests()[0].headers.contains_key("authorization"), "a local server needs no key");
    assert_eq!(second["response_format"]["json_schema"]["schema"]["required"], json!(["answer"]));
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(messages[0], json!({"role": "system", "content": "Be brief."}));
    assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], "{\"city\":\"San Francisco\",\"state\":\"CA\"}");
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_CTf1nWJLqSeRgDqaCG27xZ74");
    assert_eq!(messages[3]["content"], result["output"]);

    assert_eq!((run.usage.input_tokens, run.usage.output_tokens), (48 + 60, 19 + 8));
    let step_costs: Vec<f64> =
        of_type(&events, "step_completed").iter().map(|e| e["usage"]["cost_usd"].as_f64().unwrap()).collect();
    assert!((step_costs[0] - 0.00031).abs() < 1e-12 && (step_costs[1] - 0.00023).abs() < 1e-12, "{step_costs:?}");
    assert!((run.usage.cost_usd.unwrap() - 0.00054).abs() < 1e-12);
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_schema_fails_the_run() {
    let h = Harness::start().await;
    let schema = json!({"type": "object", "required": ["answer"]});
    let server = MockServer::start(vec![
        Reply::sse(openai_text("It is sunny.", 10, 3)),
        Reply::sse(openai_text("{\"temperature\": 68}", 10, 3)),
    ])
    .await;
    let options = json!({"base_url": server.url});
    let (run, _) = h.run("openai", "gpt-4o", options.clone(), Some(schema.clone())).await;
    assert_eq!(run.status.as_str(), "failed");
    assert!(run.error.as_deref().unwrap().starts_with("structured output: the answer is not JSON"), "{:?}", run.error);
    assert_eq!(run.response.as_deref(), Some("It is sunny."));
    let (run, _) = h.run("openai", "gpt-4o", options, Some(schema)).await;
    assert!(run.error.as_deref().unwrap().contains("does not match output_schema"), "{:?}", run.error);
}

#[tokio::test]
async fn a_model_without_a_price_has_an_unknown_cost_and_still_succeeds() {
    let h = Harness::start().await;
    let server = MockServer::start(vec![Reply::ndjson(fixture("ollama_stream_text.ndjson"))]).await;
    let (run, events) = h.run("ollama", "llama3.2", json!({"base_url": server.url}), None).await;
    assert_eq!(run.status.as_str(), "succeeded", "{:?}", run.error);
    assert_eq!(run.usage.cost_usd, None);
    assert_eq!(serde_json::to_value(run.usage).unwrap(), json!({"input_tokens": 26, "output_tokens": 282}));
    assert!(of_type(&events, "step_completed")[0]["usage"].get("cost_usd").is_none());
}
