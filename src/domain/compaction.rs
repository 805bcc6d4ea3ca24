//! Compaction: keeping a long conversation inside its model's context window.
//!
//! Before an inference whose prompt would pass the window less
//! `reserve_tokens`, or after the provider said the prompt is too long, a
//! run compacts what it sends. First the results of tool calls older than
//! the newest `keep_recent_tokens` are replaced by a stub; if that is not
//! enough, the messages before the kept ones are summarized by a model into
//! one summary. Nothing stored is removed: a [`Marker`] is appended to the
//! session's history, and what a provider receives is read from the newest
//! one on ([`crate::domain::history::History`] applies them).
//!
//! Sizes are estimated at four characters a token, the rule most agent
//! servers use; the provider's own count replaces the estimate where it
//! reported one (see the engine).

use std::sync::Arc;

pub use crate::domain::model::{CompactionSettings, Marker, DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_RESERVE_TOKENS};
use crate::domain::model::{Content, Message, Role};

/// The largest token count a setting takes.
pub const MAX_SETTING_TOKENS: u64 = 10_000_000;

impl CompactionSettings {
    /// Checks the settings an agent is saved with.
    pub fn check(&self) -> Result<(), String> {
        if self.reserve_tokens > MAX_SETTING_TOKENS || self.keep_recent_tokens > MAX_SETTING_TOKENS {
            return Err(format!("compaction token counts must be at most {MAX_SETTING_TOKENS}"));
        }
        if let Some(model) = &self.model {
            if model.trim().is_empty() || model.chars().count() > 200 || model.contains('\0') {
                return Err("compaction.model must be a model name (1 to 200 characters)".into());
            }
        }
        Ok(())
    }
}

/// The marker a history message holds, if it is one.
pub fn marker_of(message: &Message) -> Option<&Marker> {
    match message.content.first() {
        Some(Content::Compaction(marker)) => Some(marker),
        _ => None,
    }
}

const SUMMARY_PREAMBLE: &str =
    "[The earlier part of this conversation was compacted to fit the context window. Its summary:]\n\n";

/// The message a provider receives in place of the summarized ones.
pub fn summary_message(summary: &str) -> Message {
    Message::user_text(format!("{SUMMARY_PREAMBLE}{summary}"))
}

/// The summary a [`summary_message`] holds.
pub fn summary_of(message: &Message) -> String {
    let text = message.text();
    text.strip_prefix(SUMMARY_PREAMBLE).map(str::to_string).unwrap_or(text)
}

const STUB_PREFIX: &str = "[tool output pruned to save context: ";

/// `message` with the output of each tool result replaced by a stub, or
/// `None` when it holds no result that is not a stub already.
pub fn stubbed(message: &Message) -> Option<Message> {
    let fresh = |c: &Content| matches!(c, Content::ToolResult { content, .. } if !content.starts_with(STUB_PREFIX));
    if message.role != Role::Tool || !message.content.iter().any(fresh) {
        return None;
    }
    let content = message
        .content
        .iter()
        .map(|block| match block {
            Content::ToolResult { tool_use_id, content, is_error } if fresh(block) => Content::ToolResult {
                tool_use_id: tool_use_id.clone(),
                content: format!("{STUB_PREFIX}{} characters]", content.chars().count()),
                is_error: *is_error,
            },
            other => other.clone(),
        })
        .collect();
    Some(Message { role: Role::Tool, content })
}

/// The characters of a message that a provider is sent, plus a little for
/// its framing: what the estimates count.
pub fn chars_of(message: &Message) -> usize {
    let block = |c: &Content| match c {
        Content::Text { text } => text.len(),
        Content::ToolUse { name, input, .. } => name.len() + input.to_string().len() + 16,
        Content::ToolResult { content, .. } => content.len() + 16,
        Content::Thinking { thinking, .. } => thinking.len(),
        Content::RedactedThinking { data } => data.len() / 4,
        Content::Compaction(_) => 0,
    };
    16 + message.content.iter().map(block).sum::<usize>()
}

/// The words of a message that a provider is sent: what the scripted
/// provider counts as tokens.
pub fn words_of(message: &Message) -> u64 {
    let block = |c: &Content| match c {
        Content::Text { text } => words(text),
        Content::ToolUse { input, .. } => words(&input.to_string()),
        Content::ToolResult { content, .. } => words(content),
        Content::Thinking { thinking, .. } => words(thinking),
        Content::RedactedThinking { .. } | Content::Compaction(_) => 0,
    };
    message.content.iter().map(block).sum()
}

/// Words as runs of bytes other than ASCII whitespace (what
/// `split_whitespace` counts in ASCII text), counted as the places where a
/// word starts in a form the compiler vectorizes.
pub fn words(text: &str) -> u64 {
    fn space(b: u8) -> bool {
        // Space, and \t \n \x0B \x0C \r in one comparison.
        (b == b' ') | (b.wrapping_sub(b'\t') < 5)
    }
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else { return 0 };
    let pairs = bytes.iter().zip(&bytes[1..]);
    let starts: u64 = pairs.map(|(&a, &b)| u64::from(space(a) & !space(b))).sum();
    starts + u64::from(!space(first))
}

/// Tokens estimated from characters: four to a token.
pub fn tokens_of(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

/// How much of a prompt fits, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The model's context window.
    pub window: u64,
    /// Past this the prompt is compacted: the window less the reserve (but
    /// never under a quarter of the window).
    pub threshold: u64,
    /// The newest part of the conversation kept as it is: at most half of
    /// the threshold, so that the summary and the answer have room.
    pub keep_recent: u64,
}

impl Budget {
    /// The budget of a model with this window.
    pub fn new(window: u64, settings: &CompactionSettings) -> Budget {
        let threshold = window.saturating_sub(settings.reserve_tokens).max(window / 4);
        Budget { window, threshold, keep_recent: settings.keep_recent_tokens.min(threshold / 2) }
    }

    /// How many tokens a summary may take: enough to be useful, little
    /// next to what it replaces.
    pub fn summary_tokens(&self) -> u64 {
        (self.threshold / 4).clamp(128, 4096)
    }

    /// How many tokens of transcript a summary request may carry, with its
    /// instructions, its answer and a margin for the estimate inside the window.
    pub fn transcript_tokens(&self) -> u64 {
        let margin = self.window / 10 + 256;
        self.window.saturating_sub(self.summary_tokens() + margin).max(256)
    }
}

/// What a compaction does to a conversation, before any summary is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The prompt's estimated size now.
    pub tokens_before: u64,
    /// Tool results of messages before this position get a stub.
    pub pruned_before: u64,
    /// How many results that stubs.
    pub pruned_results: u32,
    /// How many of the leading messages to summarize (0: pruning is enough).
    pub summarize: usize,
    /// The position of the first message kept.
    pub first_kept: u64,
}

impl Plan {
    /// The marker of this compaction, with the summary it wrote, if any
    /// (`tokens_after` is left for the caller to measure).
    pub fn marker(&self, summary: Option<String>) -> Marker {
        Marker {
            summary,
            first_kept: self.first_kept,
            pruned_before: self.pruned_before,
            tokens_before: self.tokens_before,
            tokens_after: 0,
            pruned_results: self.pruned_results,
            summarized_messages: self.summarize as u32,
        }
    }
}

/// Decides a compaction of `messages` (the conversation as sent after any
/// summary; the first is at position `first`), whose prompt is estimated at
/// `tokens_before`. Unless `forced`, a prompt within the threshold is left
/// alone (`None`), and pruning that brings it within is enough. `None`
/// also when there is nothing older than what must be kept.
pub fn plan(messages: &[Arc<Message>], first: u64, tokens_before: u64, budget: &Budget, forced: bool) -> Option<Plan> {
    if messages.is_empty() || (!forced && tokens_before <= budget.threshold) {
        return None;
    }
    let recent = recent_start(messages, budget.keep_recent);
    let mut pruned_results = 0;
    let mut saved = 0;
    for message in &messages[..recent] {
        if let Some(stub) = stubbed(message) {
            pruned_results += message.content.iter().filter(|c| matches!(c, Content::ToolResult { .. })).count() as u32;
            saved += tokens_of(chars_of(message)).saturating_sub(tokens_of(chars_of(&stub)));
        }
    }
    let pruned_before = first + recent as u64;
    let enough = !forced && tokens_before.saturating_sub(saved) <= budget.threshold;
    // A kept part starts with a message of its own, never with results
    // whose calls would be summarized away.
    let mut cut = recent;
    while cut > 0 && messages[cut].role == Role::Tool {
        cut -= 1;
    }
    let summarize = if enough { 0 } else { cut };
    if summarize == 0 && pruned_results == 0 {
        return None;
    }
    Some(Plan { tokens_before, pruned_before, pruned_results, summarize, first_kept: first + summarize as u64 })
}

/// The index of the first of the newest messages that together fit in
/// `keep` tokens; the last message is always among them.
fn recent_start(messages: &[Arc<Message>], keep: u64) -> usize {
    let mut total = 0;
    let mut start = messages.len() - 1;
    for (i, message) in messages.iter().enumerate().rev() {
        total += tokens_of(chars_of(message));
        if total > keep {
            break;
        }
        start = i;
    }
    start
}

/// How the instructions of a summary request begin (the scripted provider
/// knows a summary request by them).
pub const SUMMARY_INSTRUCTIONS_START: &str = "You compact conversations";

/// The instructions of a summary request.
pub fn summary_instructions(max_tokens: u64) -> String {
    format!(
        "{SUMMARY_INSTRUCTIONS_START} between a user and an AI agent so that the agent can carry on in a smaller \
         context window. Summarize the conversation you are given, in at most about {} words, keeping what the \
         agent needs to continue: the user's goals and instructions, decisions made, facts found (names, paths, \
         numbers, errors), what was done, and what remains. Answer with the summary only.",
        max_tokens * 3 / 4
    )
}

/// The conversation to summarize as plain text, the earlier summary first,
/// within `max_tokens`: the oldest messages are left out (and counted) when
/// it would not fit, and each block is cut at a few thousand characters.
pub fn transcript<'a>(
    previous: Option<&str>,
    messages: impl DoubleEndedIterator<Item = &'a Message>,
    max_tokens: u64,
) -> String {
    let head = previous.map(|s| format!("Summary of the conversation before this part:\n{s}\n\n")).unwrap_or_default();
    let mut budget = (max_tokens as usize * 4).saturating_sub(head.len());
    let mut kept = Vec::new();
    let mut omitted = 0;
    for message in messages.rev() {
        let text = render(message);
        if text.len() > budget || omitted > 0 {
            omitted += 1;
            continue;
        }
        budget -= text.len();
        kept.push(text);
    }
    kept.reverse();
    let gap = if omitted > 0 { format!("[{omitted} earlier messages left out]\n\n") } else { String::new() };
    format!("{head}{gap}{}", kept.join("\n\n"))
}

/// One message of a transcript.
fn render(message: &Message) -> String {
    const BLOCK: usize = 4000;
    let cut = |s: &str| match s.char_indices().nth(BLOCK) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    };
    let who = match message.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool results",
    };
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            Content::Text { text } => parts.push(cut(text)),
            Content::ToolUse { name, input, .. } => {
                parts.push(format!("[calls {name} with {}]", cut(&input.to_string())))
            }
            Content::ToolResult { content, is_error, .. } => {
                let kind = if *is_error { "error" } else { "result" };
                parts.push(format!("[{kind}: {}]", cut(content)))
            }
            Content::Thinking { .. } | Content::RedactedThinking { .. } | Content::Compaction(_) => {}
        }
    }
    format!("{who}: {}", parts.join("\n"))
}

#[cfg(test)]
mod tests;
