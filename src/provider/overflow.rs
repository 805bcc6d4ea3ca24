//! Recognising a provider's answer that the prompt is too long for the
//! model, so that the run compacts and tries again instead of failing.
//!
//! The answers recognised (docs/providers.md lists them with their bodies):
//! Anthropic's `invalid_request_error` "prompt is too long: N tokens > M
//! maximum" and its 413 `request_too_large`; OpenAI's
//! `context_length_exceeded` ("This model's maximum context length is M
//! tokens…"), which vLLM and other OpenAI-compatible servers send as well;
//! and llama.cpp's `exceed_context_size_error`.

use super::Overflow;

/// Phrases that say the prompt does not fit, as providers write them.
const PHRASES: &[&str] = &[
    "prompt is too long",
    "maximum context length",
    "context_length_exceeded",
    "exceeds the context window",
    "exceeds the available context size",
    "exceed_context_size_error",
    "input is too long",
];

/// Whether an error answer (`status`, the body's error `code` or `type`,
/// and its message) says the prompt is too long, and with what window.
pub fn recognise(status: u16, code: Option<&str>, message: &str) -> Option<Overflow> {
    if !(400..500).contains(&status) || matches!(status, 401 | 403 | 404 | 429) {
        return None;
    }
    let lower = message.to_lowercase();
    let said = status == 413
        || code.is_some_and(|c| c == "context_length_exceeded" || c == "exceed_context_size_error")
        || PHRASES.iter().any(|p| lower.contains(p));
    said.then(|| Overflow { window: window_in(&lower) })
}

/// The window a message names: "maximum context length is M" (OpenAI,
/// vLLM) or "N tokens > M maximum" (Anthropic).
fn window_in(message: &str) -> Option<u64> {
    if let Some(n) = number_after(message, "maximum context length is ") {
        return Some(n);
    }
    let (_, after) = message.split_once("tokens > ")?;
    let n = number_after(after, "")?;
    after.contains("maximum").then_some(n)
}

fn number_after(text: &str, phrase: &str) -> Option<u64> {
    let at = text.find(phrase)? + phrase.len();
    let digits: String =
        text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == ',').filter(|c| *c != ',').collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_openai_and_llama_cpp_answers_are_recognised_with_their_window() {
        let anthropic = recognise(
            400,
            Some("invalid_request_error"),
            "invalid_request_error: prompt is too long: 208363 tokens > 200000 maximum",
        );
        assert_eq!(anthropic, Some(Overflow { window: Some(200_000) }));
        let openai = recognise(
            400,
            Some("context_length_exceeded"),
            "invalid_request_error: This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
        );
        assert_eq!(openai, Some(Overflow { window: Some(128_000) }));
        let llama = recognise(
            400,
            Some("exceed_context_size_error"),
            "the request exceeds the available context size, try increasing it",
        );
        assert_eq!(llama, Some(Overflow { window: None }));
        assert_eq!(
            recognise(413, None, "request_too_large: Request exceeds the maximum size"),
            Some(Overflow { window: None })
        );
    }

    #[test]
    fn other_errors_are_not_overflows() {
        assert_eq!(
            recognise(400, Some("invalid_request_error"), "max_tokens: 10000 > 4096, which is the maximum allowed"),
            None
        );
        assert_eq!(recognise(429, None, "prompt is too long"), None, "a rate limit is a rate limit");
        assert_eq!(recognise(500, None, "maximum context length is 8 tokens"), None);
        assert_eq!(recognise(401, None, "invalid x-api-key"), None);
    }
}
