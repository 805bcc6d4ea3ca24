//! The scripted provider: offline, deterministic answers for demos, tests and
//! benchmarks. It goes through the same loop, checkpoints and events as any.
//!
//! `model: "echo"` answers with the user's last message. `options.script` is a
//! list of turns, one consumed per provider call: `{"text": …}`,
//! `{"tool_calls": [{"name", "input"}], "text"?: …}`, `{"echo": true}` (the
//! text is the last user message, which shows what a steering message did) or
//! `{"error": {"status", "message"}}`, or `{"panic": "message"}`, which makes
//! the provider call panic: a fault to show that a run whose code panics is
//! failed with the message and frees its worker's slot. Past the end it
//! answers with empty text. A turn with `"thinking": …` thinks before it
//! answers: the thinking streams as thinking and the answer holds it as a
//! thinking block, signed with [`signature`].
//! `options.chunk_delay_ms` streams text and thinking word by word with that
//! delay; each tool call's input is sent as one piece of tool input, counted
//! against the step's output cap like any provider's. Usage counts one token
//! per whitespace-separated word.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use super::{Delta, Deltas, InferenceRequest, InferenceResponse, Provider, ProviderError, ProviderInfo};
use crate::domain::compaction::{self, words};
use crate::domain::model::{Content, Message, Role, ToolCall, Usage};

/// The scripted provider.
pub struct Scripted;

/// Its entry in the provider catalogue.
pub fn info() -> ProviderInfo {
    ProviderInfo {
        id: "scripted",
        name: "Scripted (offline, deterministic)",
        auth: "none",
        env: None,
        default_base_url: None,
        models: vec!["echo"],
        options: vec!["script", "chunk_delay_ms", "tool_env", "context_window"],
    }
}

/// Checks the options of an agent that uses the scripted provider.
pub fn validate_options(options: &serde_json::Map<String, Value>) -> Result<(), String> {
    if let Some(script) = options.get("script") {
        let turns = script.as_array().ok_or("options.script must be an array of turns")?;
        for (i, turn) in turns.iter().enumerate() {
            validate_turn(turn).map_err(|e| format!("options.script[{i}]: {e}"))?;
        }
    }
    if let Some(window) = options.get("context_window") {
        if window.as_u64().is_none_or(|w| w == 0) {
            return Err("options.context_window must be a positive whole number of tokens".into());
        }
    }
    if let Some(delay) = options.get("chunk_delay_ms") {
        if delay.as_u64().is_none_or(|d| d > 60_000) {
            return Err("options.chunk_delay_ms must be a number of milliseconds up to 60000".into());
        }
    }
    Ok(())
}

fn validate_turn(turn: &Value) -> Result<(), String> {
    let obj = turn.as_object().ok_or("a turn must be an object")?;
    if let Some(message) = obj.get("panic") {
        message.as_str().ok_or("panic must be a string")?;
        return Ok(());
    }
    if let Some(error) = obj.get("error") {
        let status = error.get("status").and_then(Value::as_u64).ok_or("error.status must be a number")?;
        if !(400..=599).contains(&status) {
            return Err("error.status must be an HTTP error status".into());
        }
        return Ok(());
    }
    if let Some(text) = obj.get("text") {
        text.as_str().ok_or("text must be a string")?;
    }
    if let Some(thinking) = obj.get("thinking") {
        thinking.as_str().ok_or("thinking must be a string")?;
    }
    if let Some(echo) = obj.get("echo") {
        echo.as_bool().ok_or("echo must be true or false")?;
    }
    if let Some(calls) = obj.get("tool_calls") {
        for call in calls.as_array().ok_or("tool_calls must be an array")? {
            call.get("name").and_then(Value::as_str).ok_or("each tool call needs a name")?;
            if !call.get("input").is_none_or(Value::is_object) {
                return Err("a tool call's input must be an object".into());
            }
        }
    }
    Ok(())
}

/// What a request sends, in the words usage counts: the history's count
/// is kept as it grows ([`crate::domain::history::History::words`]), so a
/// long session costs each call only the run's own messages.
fn input_tokens(request: &InferenceRequest) -> u64 {
    let system = request.system.as_deref().map(words).unwrap_or(0);
    let own: u64 = request.messages.iter().map(compaction::words_of).sum();
    system + request.history.words() + own
}

fn is_summary_request(request: &InferenceRequest) -> bool {
    request.system.as_deref().is_some_and(|s| s.starts_with(compaction::SUMMARY_INSTRUCTIONS_START))
}

/// A compaction's summary, written without a model: the first and the last
/// words of the transcript, so that it is short, deterministic, and shows
/// what it summarized.
fn summary(request: &InferenceRequest) -> InferenceResponse {
    const EACH: usize = 20;
    let transcript = last_user_text(request);
    let all: Vec<&str> = transcript.split_whitespace().collect();
    let text = match all.len() > 2 * EACH {
        true => format!("Summary: {} … {}", all[..EACH].join(" "), all[all.len() - EACH..].join(" ")),
        false => format!("Summary: {}", all.join(" ")),
    };
    let usage = Usage { input_tokens: input_tokens(request), output_tokens: words(&text), ..Default::default() };
    InferenceResponse {
        text,
        tool_calls: Vec::new(),
        usage,
        stop_reason: "end_turn".into(),
        thinking: Vec::new(),
        heard: None,
    }
}

fn last_user_text(request: &InferenceRequest) -> String {
    request.conversation().rev().find(|m| m.role == Role::User).map(Message::text).unwrap_or_default()
}

#[async_trait]
impl Provider for Scripted {
    async fn infer(&self, request: &InferenceRequest, deltas: &Deltas) -> Result<InferenceResponse, ProviderError> {
        if is_summary_request(request) {
            return Ok(summary(request));
        }
        let turn = match request.options.get("script").and_then(Value::as_array) {
            Some(script) => script.get(request.call_index as usize).cloned().unwrap_or(Value::Null),
            None if request.model == "echo" => serde_json::json!({"text": last_user_text(request)}),
            None => Value::Null,
        };
        if let Some(message) = turn.get("panic").and_then(Value::as_str) {
            panic!("{message}");
        }
        if let Some(error) = turn.get("error") {
            let status = error.get("status").and_then(Value::as_u64).unwrap_or(500) as u16;
            let message = error.get("message").and_then(Value::as_str).unwrap_or("scripted provider error");
            return Err(ProviderError::from_status(status, message));
        }
        let text = match turn.get("echo").and_then(Value::as_bool) {
            Some(true) => last_user_text(request),
            _ => turn.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
        };
        let delay = request.options.get("chunk_delay_ms").and_then(Value::as_u64).unwrap_or(0);
        let thinking = turn.get("thinking").and_then(Value::as_str).unwrap_or("").to_string();
        stream(&thinking, delay, deltas, Delta::Thinking).await;
        stream(&text, delay, deltas, Delta::Text).await;
        let tool_calls: Vec<ToolCall> = turn
            .get("tool_calls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ToolCall {
                        // Deterministic, so a repeated inference asks for the same calls.
                        id: format!("call_{}_{}", request.call_index + 1, i + 1),
                        name: c.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                        input: c.get("input").cloned().unwrap_or_else(|| serde_json::json!({})),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut input_words = 0;
        for call in &tool_calls {
            let input = call.input.to_string();
            let _ = deltas.send(Delta::ToolInput(input.len()));
            input_words += words(&input);
        }
        let output_tokens = words(&thinking) + words(&text) + input_words;
        let stop_reason = if tool_calls.is_empty() { "end_turn" } else { "tool_use" };
        let thinking = match thinking.is_empty() {
            true => Vec::new(),
            false => vec![Content::Thinking { signature: Some(signature(&thinking)), thinking }],
        };
        Ok(InferenceResponse {
            text,
            tool_calls,
            usage: Usage { input_tokens: input_tokens(request), output_tokens, ..Usage::default() },
            stop_reason: stop_reason.into(),
            thinking,
            heard: None,
        })
    }
}

/// The scripted signature of some thinking: `scripted-` and the FNV-1a hash
/// of its bytes in hex, the same on every run, like a real signature of the
/// same block.
pub fn signature(thinking: &str) -> String {
    let hash =
        thinking.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("scripted-{hash:016x}")
}

/// Sends `text` in one piece, or word by word with a delay between words,
/// as the pieces `piece` makes.
async fn stream(text: &str, delay_ms: u64, deltas: &Deltas, piece: fn(String) -> Delta) {
    if text.is_empty() {
        return;
    }
    if delay_ms == 0 {
        let _ = deltas.send(piece(text.to_string()));
        return;
    }
    for chunk in text.split_inclusive(' ') {
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        let _ = deltas.send(piece(chunk.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(options: Value, call_index: u32) -> InferenceRequest {
        InferenceRequest {
            model: "echo".into(),
            options: options.as_object().cloned().unwrap_or_default(),
            system: None,
            history: Default::default(),
            messages: vec![Message::user_text("say this back")],
            tools: vec![],
            output_schema: None,
            call_index,
            reasoning: Default::default(),
        }
    }

    async fn infer(options: Value, call_index: u32) -> (Result<InferenceResponse, ProviderError>, Vec<String>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let result = Scripted.infer(&request(options, call_index), &tx).await;
        drop(tx);
        let mut deltas = Vec::new();
        while let Some(d) = rx.recv().await {
            if let Delta::Text(text) = d {
                deltas.push(text);
            }
        }
        (result, deltas)
    }

    #[test]
    fn words_are_counted_as_split_whitespace_counts_them() {
        for text in ["", " ", "one", " one  two\tthree\n", "a\x0Bb\r\nc ", "é ü  ß"] {
            assert_eq!(words(text), text.split_whitespace().count() as u64, "{text:?}");
        }
    }

    #[tokio::test]
    async fn echo_answers_with_the_users_message() {
        let (result, deltas) = infer(json!({}), 0).await;
        let response = result.unwrap();
        assert_eq!(response.text, "say this back");
        assert_eq!(deltas, ["say this back"]);
        assert_eq!(response.usage, Usage { input_tokens: 3, output_tokens: 3, ..Default::default() });
        assert_eq!(response.stop_reason, "end_turn");
    }

    #[tokio::test]
    async fn a_script_is_consumed_one_turn_per_call() {
        let script = json!({"script": [
            {"tool_calls": [{"name": "bash", "input": {"command": "ls"}}], "text": "looking"},
            {"error": {"status": 429, "message": "slow down"}},
            {"error": {"status": 400, "message": "bad"}},
            {"text": "done"}
        ]});
        let first = infer(script.clone(), 0).await.0.unwrap();
        assert_eq!(first.tool_calls[0].id, "call_1_1");
        assert_eq!(first.tool_calls[0].input, json!({"command": "ls"}));
        assert_eq!(first.stop_reason, "tool_use");
        let transient = infer(script.clone(), 1).await.0.unwrap_err();
        assert!(transient.transient);
        assert_eq!(transient.status, Some(429));
        let fatal = infer(script.clone(), 2).await.0.unwrap_err();
        assert!(!fatal.transient);
        assert_eq!(infer(script.clone(), 3).await.0.unwrap().text, "done");
        let past_end = infer(script, 4).await.0.unwrap();
        assert_eq!((past_end.text.as_str(), past_end.tool_calls.len()), ("", 0));
    }

    #[tokio::test]
    async fn tool_inputs_are_counted_as_output() {
        let input = json!({"command": "echo counted"});
        let script = json!({"script": [{"tool_calls": [{"name": "bash", "input": input}]}]});
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        Scripted.infer(&request(script, 0), &tx).await.unwrap();
        assert_eq!(rx.try_recv().unwrap(), Delta::ToolInput(input.to_string().len()));
    }

    #[tokio::test]
    async fn chunk_delay_streams_word_by_word() {
        let (result, deltas) = infer(json!({"chunk_delay_ms": 1, "script": [{"text": "one two three"}]}), 0).await;
        assert_eq!(deltas, ["one ", "two ", "three"]);
        assert_eq!(result.unwrap().text, "one two three");
    }

    #[tokio::test]
    async fn a_thinking_turn_streams_its_thinking_and_signs_it() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let options = json!({"chunk_delay_ms": 1, "script": [{"thinking": "let me see", "text": "ok"}]});
        let response = Scripted.infer(&request(options, 0), &tx).await.unwrap();
        drop(tx);
        let mut pieces = Vec::new();
        while let Some(d) = rx.recv().await {
            pieces.push(d);
        }
        let thinking = |t: &str| Delta::Thinking(t.into());
        assert_eq!(pieces, [thinking("let "), thinking("me "), thinking("see"), Delta::Text("ok".into())]);
        let signed = Content::Thinking { thinking: "let me see".into(), signature: Some(signature("let me see")) };
        assert_eq!(response.thinking, [signed]);
        assert_eq!(signature("let me see"), signature("let me see"));
        assert_ne!(signature("let me see"), signature("let me sea"));
        assert_eq!(response.usage.output_tokens, 4);
    }

    #[test]
    fn options_are_validated() {
        let ok = json!({"script": [{"text": "a"}, {"tool_calls": [{"name": "bash", "input": {}}]}, {"error": {"status": 500}}]});
        assert!(validate_options(ok.as_object().unwrap()).is_ok());
        for bad in [
            json!({"script": {}}),
            json!({"script": [1]}),
            json!({"script": [{"error": {"status": 200}}]}),
            json!({"script": [{"tool_calls": [{"input": {}}]}]}),
            json!({"script": [{"thinking": 1}]}),
            json!({"chunk_delay_ms": -1}),
        ] {
            assert!(validate_options(bad.as_object().unwrap()).is_err(), "{bad}");
        }
    }

    #[tokio::test]
    async fn a_summary_request_is_answered_without_taking_a_turn() {
        let mut asked = request(json!({"script": [{"error": {"status": 500, "message": "x"}}]}), 0);
        asked.system = Some(compaction::summary_instructions(100));
        let words: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        asked.messages = vec![Message::user_text(words.join(" "))];
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let answer = Scripted.infer(&asked, &tx).await.expect("the script's error is not its answer");
        assert!(answer.text.starts_with("Summary: w0 w1"), "{}", answer.text);
        assert!(answer.text.ends_with("w48 w49") && answer.text.contains(" … "), "{}", answer.text);
        assert_eq!(answer.usage.output_tokens, 42);
    }

    #[test]
    fn a_context_window_is_a_positive_count() {
        assert!(validate_options(json!({"context_window": 4000}).as_object().unwrap()).is_ok());
        for bad in [json!(0), json!(-1), json!("4000")] {
            assert!(validate_options(json!({"context_window": bad}).as_object().unwrap()).is_err(), "{bad}");
        }
    }
}
