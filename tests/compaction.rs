//! Compaction end to end, through real processes: a long session kept inside
//! a small window by a local OpenAI-compatible server that counts what it is
//! sent; a worker SIGKILLed while the summary is being written; a provider
//! that answers "prompt too long" (Anthropic and OpenAI), after which the run
//! compacts and tries again; and `POST /sessions/{id}/compact`, whose run
//! takes its place in the session's order.

mod common;
mod providers_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{assert_dense, Api, Backend, TestEnv};
use providers_support::{openai_text, MockServer, Received, Reply};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);
/// How the instructions of a summary request begin.
const SUMMARY_INSTRUCTIONS: &str = "You compact conversations";
/// How the message holding a summary begins in later requests.
const PREAMBLE: &str = "[The earlier part of this conversation was compacted";
/// What every ordinary request is answered: ten words.
const ANSWER: &str = "Noted, I have read your message and kept it in mind.";

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// Message `n`: `count` words no other message has (`m{n}w{k}`).
fn message(n: usize, count: usize) -> String {
    (0..count).map(|k| format!("m{n}w{k}")).collect::<Vec<_>>().join(" ")
}

/// Summary `i` (from 1): about sixty words.
fn summary(i: usize) -> String {
    let words: Vec<String> = (0..58).map(|k| format!("s{i}w{k}")).collect();
    format!("Summary {i}: {}", words.join(" "))
}

/// The text of a message's `content`, as a string or as blocks.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match (&b["text"], &b["content"]) {
                (Value::String(t), _) => t.clone(),
                (_, c @ (Value::String(_) | Value::Array(_))) => text_of(c),
                _ => String::new(),
            })
            .collect(),
        _ => String::new(),
    }
}

/// The text of the first block of a message's `content` (or all of it, when
/// it is a string): Anthropic's requests join consecutive user turns, the
/// summary's included, into one message of several blocks.
fn first_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks.first().map(|b| text_of(&Value::Array(vec![b.clone()]))).unwrap_or_default(),
        other => text_of(other),
    }
}

/// The text of the last block of a message's `content` (or all of it).
fn last_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks.last().map(|b| text_of(&Value::Array(vec![b.clone()]))).unwrap_or_default(),
        other => text_of(other),
    }
}

/// The instructions a request carries: OpenAI's first `system` message, or
/// Anthropic's `system`.
fn system_of(body: &Value) -> String {
    if !body["system"].is_null() {
        return text_of(&body["system"]);
    }
    let first = &body["messages"][0];
    if first["role"] == "system" {
        text_of(&first["content"])
    } else {
        String::new()
    }
}

/// Whether a request asks for a summary.
fn is_summary(body: &Value) -> bool {
    system_of(body).starts_with(SUMMARY_INSTRUCTIONS)
}

/// The characters of a request's messages and instructions.
fn content_chars(body: &Value) -> usize {
    let messages: usize =
        body["messages"].as_array().map_or(0, |m| m.iter().map(|m| text_of(&m["content"]).len()).sum());
    let system = if body["system"].is_null() { 0 } else { text_of(&body["system"]).len() };
    messages + system
}

/// A request's size, at four characters a token.
fn tokens_of(body: &Value) -> usize {
    content_chars(body) / 4
}

/// The messages of a request that are not its instructions.
fn conversation(body: &Value) -> Vec<Value> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages.into_iter().filter(|m| m["role"] != "system").collect()
}

/// An OpenAI answer of `text`, streamed or not as the request asked.
fn openai_reply(request: &Value, text: &str) -> Reply {
    let prompt = tokens_of(request) as u64;
    let completion = (text.len() / 4) as u64;
    if request["stream"] == true {
        return Reply::sse(openai_text(text, prompt, completion));
    }
    let body = json!({"id": "c", "object": "chat.completion", "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}});
    Reply::json(200, body.to_string().into_bytes())
}

/// An Anthropic answer of `text`, streamed (the documented event shapes) or
/// not as the request asked.
fn anthropic_reply(request: &Value, text: &str) -> Reply {
    let input = tokens_of(request) as u64;
    let output = (text.len() / 4) as u64;
    if request["stream"] != true {
        let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": request["model"],
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"input_tokens": input, "output_tokens": output}});
        return Reply::json(200, body.to_string().into_bytes());
    }
    let event = |data: Value| format!("event: {}\ndata: {data}\n\n", data["type"].as_str().unwrap());
    let mut body = event(json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "content": [], "model": request["model"], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": input, "output_tokens": 1}}}));
    body += &event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}));
    body += &event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}));
    body += &event(json!({"type": "content_block_stop", "index": 0}));
    body += &event(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": output}}));
    body += &event(json!({"type": "message_stop"}));
    Reply::sse(body.into_bytes())
}

/// How a test's provider treats the first summary request.
#[derive(Clone, Copy, PartialEq)]
enum FirstSummary {
    Answered,
    /// No answer at all.
    Held,
    /// A 429 asking for a second's pause.
    Refused,
}

/// A local OpenAI-compatible server: summary requests get summary 1, 2, …
/// (the first one as `first` says); every other request gets [`ANSWER`].
/// Usage counts the request's characters ÷ 4.
async fn openai_server(first: FirstSummary) -> MockServer {
    let summaries = Arc::new(AtomicUsize::new(0));
    MockServer::answering(move |request: &Received| {
        if is_summary(&request.body) {
            let i = summaries.fetch_add(1, Ordering::SeqCst) + 1;
            match first {
                FirstSummary::Held if i == 1 => return Reply::silence(),
                FirstSummary::Refused if i == 1 => {
                    let body = br#"{"error": {"message": "Rate limit reached", "type": "requests"}}"#.to_vec();
                    return Reply::json(429, body).header("retry-after", "1");
                }
                _ => {}
            }
            return openai_reply(&request.body, &summary(i));
        }
        openai_reply(&request.body, ANSWER)
    })
    .await
}

/// An OpenAI agent of `server` with a 4000-token window that compacts past
/// 3000 tokens and keeps the newest 1000 as they are.
async fn small_window_agent(api: &Api, server: &MockServer) -> String {
    let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-compaction-test"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    api.create_agent(json!({"name": "small-window", "provider": "openai", "model": "local-model",
        "options": {"base_url": server.url, "context_window": 4000},
        "compaction": {"reserve_tokens": 1000, "keep_recent_tokens": 1000}}))
        .await
}

/// The session's history as `GET /sessions/{id}` shows it.
async fn history(api: &Api, session: &str) -> Vec<Value> {
    let (status, body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(status, 200, "{body}");
    body["history"].as_array().expect("a history").clone()
}

fn is_marker(message: &Value) -> bool {
    message["role"] == "compaction"
}

/// A timestamp of the API, parsed.
fn at(value: &Value) -> chrono::DateTime<chrono::FixedOffset> {
    let text = value.as_str().unwrap_or_else(|| panic!("a timestamp, not {value}"));
    chrono::DateTime::parse_from_rfc3339(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

on_both_backends! {
    async fn a_long_session_stays_inside_a_small_window(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let provider = openai_server(FirstSummary::Answered).await;
        let agent = small_window_agent(&api, &provider).await;
        let session = api.create_session(&agent, None).await;

        let mut events = Vec::new();
        for n in 0..30 {
            let run = api.send(&session, &message(n, 200)).await;
            let done = api.wait_terminal(&run, LIMIT).await;
            assert_eq!(done["status"], "succeeded", "message {n}: {done}");
            assert_eq!(done["response"], ANSWER, "message {n}: {done}");
            let run_events = api.events(&run).await;
            assert_dense(&run_events);
            events.extend(run_events);
        }

        // Nothing the server was sent passed the window.
        let requests = provider.requests();
        for (i, request) in requests.iter().enumerate() {
            let tokens = tokens_of(&request.body);
            assert!(tokens <= 4000, "request {i} holds {tokens} tokens: {}", request.body);
        }

        // At least one compaction, which made the prompt smaller.
        let completed = of_type(&events, "compaction_completed");
        assert!(!completed.is_empty(), "no compaction_completed in {} events", events.len());
        for c in &completed {
            let (before, after) = (c["tokens_before"].as_u64().unwrap(), c["tokens_after"].as_u64().unwrap());
            assert!(after < before, "{c}");
        }
        assert!(requests.iter().any(|r| is_summary(&r.body)), "no summary was asked for");

        // The history keeps every message, in order, and the markers.
        let history = history(&api, &session).await;
        let markers: Vec<&Value> = history.iter().filter(|m| is_marker(m)).collect();
        assert!(!markers.is_empty(), "no compaction marker in the history: {history:?}");
        for marker in &markers {
            assert_eq!(marker["content"][0]["type"], "compaction", "{marker}");
        }
        let messages: Vec<&Value> = history.iter().filter(|m| !is_marker(m)).collect();
        assert_eq!(messages.len(), 60, "every question and answer, once");
        for (i, m) in messages.iter().enumerate() {
            if i % 2 == 0 {
                assert_eq!(m["role"], "user", "message {i}: {m}");
                assert_eq!(m["content"][0]["text"], json!(message(i / 2, 200)), "message {i}");
            } else {
                assert_eq!(m["role"], "assistant", "message {i}: {m}");
                assert_eq!(m["content"][0]["text"], ANSWER, "message {i}");
            }
        }

        // The last request starts with the summary and ends with the 30th message.
        let last = &requests.last().unwrap().body;
        assert!(!is_summary(last), "the last request is the 30th run's: {last}");
        let turns = conversation(last);
        let first = first_text(&turns[0]["content"]);
        assert_eq!(turns[0]["role"], "user", "{last}");
        assert!(first.starts_with(PREAMBLE), "the summary comes first: {last}");
        assert!(first.contains("Summary "), "it holds a summary the server wrote: {first}");
        assert_eq!(last_text(&turns.last().unwrap()["content"]), message(29, 200), "{last}");
    }

    async fn a_fork_after_a_compaction_keeps_its_marker_and_starts_at_the_summary(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let provider = openai_server(FirstSummary::Answered).await;
        let agent = small_window_agent(&api, &provider).await;
        let session = api.create_session(&agent, None).await;
        let mut n = 0;
        while !history(&api, &session).await.iter().any(is_marker) {
            assert!(n < 20, "no compaction after {n} messages");
            let run = api.send(&session, &message(n, 200)).await;
            assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
            n += 1;
        }
        let at = api.send(&session, &message(n, 200)).await;
        assert_eq!(api.wait_terminal(&at, LIMIT).await["status"], "succeeded");
        let original = history(&api, &session).await;

        let (status, fork) = api.post(&format!("/sessions/{session}/fork"), json!({"at": at})).await;
        assert_eq!(status, 201, "{fork}");
        let fork_id = fork["id"].as_str().unwrap().to_string();
        assert_eq!(history(&api, &fork_id).await, original, "the marker is copied with the messages");
        let next = api.send(&fork_id, "a first question to the fork").await;
        assert_eq!(api.wait_terminal(&next, LIMIT).await["status"], "succeeded");
        let requests = provider.requests();
        let sent = &requests.last().unwrap().body;
        assert!(!is_summary(sent), "the fork's run asks no summary of its own: {sent}");
        let turns = conversation(sent);
        let first = first_text(&turns[0]["content"]);
        assert!(first.starts_with(PREAMBLE) && first.contains("Summary "), "the fork starts at the summary: {sent}");
        assert!(!sent.to_string().contains(&message(0, 200)), "the summarized messages are not sent: {sent}");
        assert_eq!(last_text(&turns.last().unwrap()["content"]), "a first question to the fork", "{sent}");
    }

    async fn a_refused_summary_pauses_the_credential_like_any_inference(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let provider = openai_server(FirstSummary::Refused).await;
        let agent = small_window_agent(&api, &provider).await;
        let session = api.create_session(&agent, None).await;
        let mut compacted = None;
        for n in 0..20 {
            let run = api.send(&session, &message(n, 200)).await;
            assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded", "message {n}");
            if provider.requests().iter().any(|r| is_summary(&r.body)) {
                compacted = Some(run);
                break;
            }
        }
        let events = api.events(&compacted.expect("a run that compacts within 20 messages")).await;
        let restarted = of_type(&events, "step_restarted");
        assert_eq!(restarted.len(), 1, "{events:?}");
        assert_eq!((&restarted[0]["status"], &restarted[0]["delay_ms"]), (&json!(429), &json!(0)), "{events:?}");
        // The summary's retry waited for the credential's pause, as every call to it does.
        let waited = of_type(&events, "rate_limited");
        assert!(waited.iter().any(|e| e["budget"] == "openai" && e["reason"] == "paused"), "{events:?}");
        assert_eq!(of_type(&events, "compaction_completed").len(), 1, "{events:?}");
    }

    async fn a_worker_killed_during_the_summary_repeats_only_the_summary(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let mut worker = env.worker();
        let api = server.api();
        let provider = openai_server(FirstSummary::Held).await;
        let agent = small_window_agent(&api, &provider).await;
        let session = api.create_session(&agent, None).await;

        // Messages until one compacts: its summary is never answered.
        let start = Instant::now();
        let mut compacting = None;
        for n in 0..20 {
            let run = api.send(&session, &message(n, 200)).await;
            loop {
                if provider.requests().iter().any(|r| is_summary(&r.body)) {
                    compacting = Some(run.clone());
                    break;
                }
                let now = api.run(&run).await;
                if now["status"] == "succeeded" {
                    break;
                }
                assert!(["queued", "running"].contains(&now["status"].as_str().unwrap()), "message {n}: {now}");
                assert!(start.elapsed() < LIMIT, "no summary was asked for: {now}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if compacting.is_some() {
                break;
            }
        }
        let run = compacting.expect("a run that compacts within 20 messages");
        let first_summary = provider.requests().iter().position(|r| is_summary(&r.body)).unwrap();

        // The worker dies with the summary in flight; another one finishes the run.
        tokio::time::sleep(Duration::from_millis(200)).await;
        worker.kill9();
        let _second = env.worker();
        let done = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(done["status"], "succeeded", "{done}");
        assert_eq!(done["response"], ANSWER, "{done}");

        let requests = provider.requests();
        let summaries: Vec<&Received> = requests.iter().filter(|r| is_summary(&r.body)).collect();
        assert_eq!(summaries.len(), 2, "the summary was asked for again, once");
        assert_eq!(summaries[0].body, summaries[1].body, "the same summary request both times");
        // After the compaction started, no request was sent twice but the summary.
        let after: Vec<&Received> = requests[first_summary..].iter().filter(|r| !is_summary(&r.body)).collect();
        assert_eq!(after.len(), 1, "one inference after the compaction: {:?}", after.iter().map(|r| &r.body).collect::<Vec<_>>());
        let sent = &after[0].body;
        assert!(first_text(&conversation(sent)[0]["content"]).starts_with(PREAMBLE), "{sent}");
        assert!(first_text(&conversation(sent)[0]["content"]).contains(&summary(2)), "the second summary is used: {sent}");

        let events = api.events(&run).await;
        assert_dense(&events);
        assert_eq!(of_type(&events, "compaction_completed").len(), 1, "{events:?}");
        assert!(!of_type(&events, "run_resumed").is_empty(), "a second worker finished it: {events:?}");
        assert!(!of_type(&events, "step_restarted").is_empty(), "the step is restarted: {events:?}");
    }
}

/// Which API an overflow test speaks.
#[derive(Clone, Copy, PartialEq)]
enum Wire {
    OpenAi,
    Anthropic,
}

/// A provider that answers its `refuse`-th ordinary request (from 0) with
/// its documented "prompt too long" 400, and every other one normally.
async fn overflowing_server(kind: Wire, refuse: usize) -> MockServer {
    let (ordinary, summaries) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    MockServer::answering(move |request: &Received| {
        let reply = |text: &str| match kind {
            Wire::OpenAi => openai_reply(&request.body, text),
            Wire::Anthropic => anthropic_reply(&request.body, text),
        };
        if is_summary(&request.body) {
            return reply(&summary(summaries.fetch_add(1, Ordering::SeqCst) + 1));
        }
        if ordinary.fetch_add(1, Ordering::SeqCst) != refuse {
            return reply(ANSWER);
        }
        let body = match kind {
            Wire::OpenAi => json!({"error": {"message": "This model's maximum context length is 4000 tokens. However, your messages resulted in 5210 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            Wire::Anthropic => json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 208363 tokens > 200000 maximum"}}),
        };
        Reply::json(400, body.to_string().into_bytes())
    })
    .await
}

/// Three messages answered, then a fourth whose first request is refused as
/// too long: the run compacts (reason `overflow`) and sends a smaller one.
async fn overflow_case(kind: Wire) {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let provider = overflowing_server(kind, 3).await;
    let (name, model) = match kind {
        Wire::OpenAi => ("openai", "gpt-4o"),
        Wire::Anthropic => ("anthropic", "claude-sonnet-4-5"),
    };
    let credential = json!({"providers": {name: {"type": "api_key", "key": "sk-overflow-test"}}});
    assert_eq!(api.put("/provider/auth", credential).await.0, 200);
    let agent = api
        .create_agent(json!({"name": "overflows", "provider": name, "model": model,
            "options": {"base_url": provider.url},
            "compaction": {"reserve_tokens": 1000, "keep_recent_tokens": 300}}))
        .await;
    let session = api.create_session(&agent, None).await;
    for n in 0..3 {
        let run = api.send(&session, &message(n, 200)).await;
        let done = api.wait_terminal(&run, LIMIT).await;
        assert_eq!(done["status"], "succeeded", "message {n}: {done}");
        assert!(of_type(&api.events(&run).await, "compaction_started").is_empty(), "message {n} fits");
    }

    let run = api.send(&session, &message(3, 200)).await;
    let done = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["response"], ANSWER, "{done}");
    let events = api.events(&run).await;
    assert_dense(&events);
    let started = of_type(&events, "compaction_started");
    let completed = of_type(&events, "compaction_completed");
    assert_eq!((started.len(), completed.len()), (1, 1), "{events:?}");
    assert_eq!(started[0]["reason"], "overflow", "{:?}", started[0]);
    assert!(started[0]["seq"].as_u64() < completed[0]["seq"].as_u64(), "{events:?}");
    assert!(completed[0]["summarized_messages"].as_u64().unwrap() > 0, "{:?}", completed[0]);

    // Refused, summarized, sent again smaller.
    let requests = provider.requests();
    assert_eq!(requests.len(), 6, "three answers, the refused one, the summary, the retry");
    let (refused, asked, retried) = (&requests[3].body, &requests[4].body, &requests[5].body);
    assert!(!is_summary(refused) && is_summary(asked) && !is_summary(retried), "{requests:?}");
    assert!(
        content_chars(retried) < content_chars(refused),
        "the retry ({} characters) is smaller than the refused request ({})",
        content_chars(retried),
        content_chars(refused)
    );
    let turns = conversation(retried);
    assert!(first_text(&turns[0]["content"]).starts_with(PREAMBLE), "{retried}");
    assert_eq!(last_text(&turns.last().unwrap()["content"]), message(3, 200), "{retried}");
}

mod overflow_answers_compact_and_retry {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn openai() {
        overflow_case(Wire::OpenAi).await
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn anthropic() {
        overflow_case(Wire::Anthropic).await
    }
}

on_both_backends! {
    async fn compact_endpoint_runs_in_the_session_order(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(1);
        let api = server.api();
        let agent = api.create_agent(json!({"name": "e", "model": "echo", "options": {"chunk_delay_ms": 20}})).await;
        let session = api.create_session(&agent, None).await;
        for n in 0..3 {
            let run = api.send(&session, &message(n, 30)).await;
            assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        }

        // A, the compaction and B, queued without waiting.
        let (a_text, b_text) = (message(10, 30), message(11, 30));
        let a = api.send(&session, &a_text).await;
        let (status, queued) = api.post(&format!("/sessions/{session}/compact"), json!({})).await;
        assert_eq!(status, 202, "{queued}");
        let b = api.send(&session, &b_text).await;
        let compaction = queued["run_id"].as_str().expect("a run_id").to_string();
        assert_eq!(queued["status"], "queued", "{queued}");
        assert_eq!(queued["session_id"], json!(session), "{queued}");
        assert_eq!(queued["agent_id"], json!(agent), "{queued}");
        assert!(queued["created_at"].is_string(), "{queued}");

        let a_run = api.wait_terminal(&a, LIMIT).await;
        let c_run = api.wait_terminal(&compaction, LIMIT).await;
        let b_run = api.wait_terminal(&b, LIMIT).await;
        for run in [&a_run, &c_run, &b_run] {
            assert_eq!(run["status"], "succeeded", "{run}");
        }
        assert_eq!(c_run["kind"], "compaction", "{c_run}");
        assert!(at(&a_run["finished_at"]) <= at(&c_run["started_at"]), "A ended before the compaction started: {a_run} {c_run}");
        assert!(at(&c_run["finished_at"]) <= at(&b_run["started_at"]), "the compaction ended before B started: {c_run} {b_run}");
        let c_events = api.events(&compaction).await;
        assert_dense(&c_events);
        let started = of_type(&c_events, "compaction_started");
        assert_eq!(started.len(), 1, "{c_events:?}");
        assert_eq!(started[0]["reason"], "requested", "{c_events:?}");
        assert_eq!(of_type(&c_events, "compaction_completed").len(), 1, "{c_events:?}");

        // The marker sits between A's answer and B's question.
        let history = history(&api, &session).await;
        let markers: Vec<usize> = (0..history.len()).filter(|&i| is_marker(&history[i])).collect();
        assert_eq!(markers.len(), 1, "{history:?}\ncompaction run: {c_run}\nits events: {c_events:?}");
        let m = markers[0];
        assert!(m >= 2 && m + 1 < history.len(), "{history:?}");
        assert_eq!((&history[m - 2]["role"], &history[m - 2]["content"][0]["text"]), (&json!("user"), &json!(a_text)));
        assert_eq!(history[m - 1]["role"], "assistant", "{history:?}");
        assert_eq!((&history[m + 1]["role"], &history[m + 1]["content"][0]["text"]), (&json!("user"), &json!(b_text)));
        let marker = &history[m]["content"][0];
        assert_eq!(marker["type"], "compaction", "{marker}");
        assert!(marker["summary"].as_str().is_some_and(|s| s.starts_with("Summary:")), "{marker}");
        assert_eq!(history.len(), 6 + 2 + 1 + 2, "every message, and the marker");

        let (status, body) = api.post("/sessions/no-such-session/compact", json!({})).await;
        assert_eq!(status, 404, "{body}");
    }
}
