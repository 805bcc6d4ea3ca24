//! What each provider is sent for each reasoning level (docs/providers.md's
//! table), for the agent's level and a message's override, as local servers
//! speaking each API record it; thinking from OpenAI-compatible and Ollama
//! servers streamed as `thinking_delta`; and `reasoning_byte_limit` cutting a
//! step that only thinks, closing the provider's stream, retrying, then
//! failing the run with an error that names the guard.

mod common;
mod providers_support;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use providers_support::{fixture, openai_text, MockServer, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);
/// The agent's level (none), then each override a message may carry.
const OVERRIDES: [Option<&str>; 5] = [None, Some("off"), Some("low"), Some("high"), Some("max")];

async fn agent_on(api: &Api, provider: &str, model: &str, reasoning: &str, base_url: String) -> String {
    let (status, body) =
        api.put("/provider/auth", json!({"providers": {provider: {"type": "api_key", "key": "sk-test"}}})).await;
    assert_eq!(status, 200, "{body}");
    let agent = json!({"name": provider, "provider": provider, "model": model, "reasoning": reasoning,
        "options": {"base_url": base_url}});
    api.create_agent(agent).await
}

/// Sends one message per override in one session, each after the last ended,
/// and returns their runs' IDs.
async fn send_each(api: &Api, agent: &str) -> Vec<String> {
    let session = api.create_session(agent, None).await;
    let mut runs = Vec::new();
    for level in OVERRIDES {
        let mut body = json!({"message": "Think it over."});
        if let Some(level) = level {
            body["reasoning"] = json!(level);
        }
        let (status, answer) = api.post(&format!("/sessions/{session}/message"), body).await;
        assert_eq!(status, 202, "{answer}");
        let run_id = answer["run_id"].as_str().unwrap().to_string();
        let run = api.wait_terminal(&run_id, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{level:?}: {run}");
        runs.push(run_id);
    }
    runs
}

async fn thinking_of(api: &Api, run_id: &str) -> String {
    let events = api.events(run_id).await;
    events.iter().filter(|e| e["type"] == "thinking_delta").map(|e| e["text"].as_str().unwrap()).collect()
}

fn field_per_request(server: &MockServer, field: &str) -> Vec<Option<Value>> {
    server.requests().iter().map(|r| r.body.get(field).cloned()).collect()
}

on_both_backends! {
async fn each_provider_is_sent_the_documented_value_of_each_level(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();

    // Anthropic: thinking.budget_tokens, and nothing for off.
    let text = || Reply::sse(fixture("anthropic_stream_text_padded.sse"));
    let anthropic = MockServer::start((0..5).map(|_| text()).collect()).await;
    let agent = agent_on(&api, "anthropic", "claude-sonnet-4-5", "off", anthropic.url.clone()).await;
    send_each(&api, &agent).await;
    let budget = |n: u64| Some(json!({"type": "enabled", "budget_tokens": n}));
    assert_eq!(field_per_request(&anthropic, "thinking"), [None, None, budget(1024), budget(16384), budget(32000)]);

    // OpenAI-compatible: reasoning_effort; reasoning_content streams as thinking.
    let thinking = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Pondering.\"}}]}\n\n";
    let reply = || Reply::sse([thinking.as_bytes(), &openai_text("Done.", 5, 2)].concat());
    let openai = MockServer::start((0..5).map(|_| reply()).collect()).await;
    let agent = agent_on(&api, "openai", "deepseek-reasoner", "medium", format!("{}/v1", openai.url)).await;
    let runs = send_each(&api, &agent).await;
    let effort = |e: &str| Some(json!(e));
    assert_eq!(
        field_per_request(&openai, "reasoning_effort"),
        [effort("medium"), None, effort("low"), effort("high"), effort("high")]
    );
    assert_eq!(thinking_of(&api, &runs[0]).await, "Pondering.");

    // Ollama: think, by level name for gpt-oss; message.thinking streams as thinking.
    let lines = concat!(
        "{\"model\":\"gpt-oss:20b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Hmm.\"},\"done\":false}\n",
        "{\"model\":\"gpt-oss:20b\",\"message\":{\"role\":\"assistant\",\"content\":\"Done.\"},\"done\":false}\n",
        "{\"model\":\"gpt-oss:20b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":5,\"eval_count\":2}\n",
    );
    let ollama = MockServer::start((0..5).map(|_| Reply::ndjson(lines.as_bytes().to_vec())).collect()).await;
    let agent = agent_on(&api, "ollama", "gpt-oss:20b", "medium", ollama.url.clone()).await;
    let runs = send_each(&api, &agent).await;
    let think = |t: &str| Some(json!(t));
    assert_eq!(field_per_request(&ollama, "think"), [think("medium"), None, think("low"), think("high"), think("high")]);
    assert_eq!(thinking_of(&api, &runs[0]).await, "Hmm.");
}

async fn a_step_that_only_thinks_is_cut_retried_and_fails_naming_the_guard(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_PROVIDER_RETRIES", "1");
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let endless = MockServer::start(vec![endless_thinking(), endless_thinking()]).await;
    let (status, body) =
        api.put("/provider/auth", json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-test"}}})).await;
    assert_eq!(status, 200, "{body}");
    let agent = api
        .create_agent(json!({"name": "staller", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "reasoning": "max", "reasoning_byte_limit": 4096, "options": {"base_url": endless.url}}))
        .await;
    let session = api.create_session(&agent, None).await;
    let run_id = api.send(&session, "Think forever.").await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!(run["status"], "failed", "{run}");
    let error = run["error"].as_str().unwrap();
    assert!(error.contains("reasoning stall") && error.contains("reasoning_byte_limit"), "{error}");

    // The thinking before the cut stays in the log, before the step_restarted that voids it.
    let events = api.events(&run_id).await;
    let restarted = events.iter().position(|e| e["type"] == "step_restarted").expect("a retry");
    assert!(events[restarted]["reason"].as_str().unwrap().contains("reasoning_byte_limit"), "{}", events[restarted]);
    let before: usize = events[..restarted]
        .iter()
        .filter(|e| e["type"] == "thinking_delta")
        .map(|e| e["text"].as_str().unwrap().len())
        .sum();
    assert!(before > 4096, "{before} bytes of thinking were logged before the cut");
    assert!(events[restarted..].iter().any(|e| e["type"] == "thinking_delta"), "the retry thought again");
    assert_eq!(endless.requests().len(), 2);

    // Both streams were closed by the worker, not read to their end.
    let deadline = tokio::time::Instant::now() + LIMIT;
    while endless.cut_short() < 2 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(endless.cut_short(), 2, "the provider saw both connections closed");
}
}

/// An Anthropic stream that thinks for far longer than any test waits:
/// 100-byte thinking deltas, a few milliseconds apart.
fn endless_thinking() -> Reply {
    let head = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",",
        "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
    );
    let piece = "hmm ".repeat(25);
    let delta = format!(
        "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\"{piece}\"}}}}\n\n"
    );
    let mut reply = Reply::sse(head.as_bytes().to_vec());
    reply.parts.extend((0..20_000).map(|_| (delta.clone().into_bytes(), Duration::from_millis(3))));
    reply
}
