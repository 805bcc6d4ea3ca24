//! A run's answer and tool calls, stored once where the history holds them.
//!
//! A run that ends appends its messages to its session's history in the
//! transaction that ends it, and those messages spell the run's `response`
//! and `tool_calls` (each call with its input and output) a second time.
//! Where a backend stores one message a row (SQLite), the run's row then
//! holds where those messages are instead of the copy: `tool_calls` holds
//! `{"history": [first, last]}`, the numbers of the run's first and last
//! history rows, and `response` is NULL. Every read of the row puts both
//! back from those rows ([`spelled`]), so what a client reads is what the
//! copy said; a run whose messages do not spell its answer exactly (a call
//! that never ran, whose history holds an error result in its place; a
//! compaction marker; a retry's reused steps) keeps its copy.
//!
//! History rows are never rewritten: a rewind sets rows aside under a
//! branch number, a fork copies them into another session, and numbers
//! are never reused. The one write that deletes them, a session's deletion,
//! first writes the copies back into its runs' rows (on SQLite,
//! `store/sqlite/run_rows.rs`). The reference is written by the statement
//! that ends the run, which numbers the rows it appends.

use serde::Deserialize;

use super::StoreResult;
use crate::domain::checkpoint::RunSummary;
use crate::domain::model::{storable_text, Content, Message, Role, ToolCallRecord};

/// The history rows (by number, both included) that hold a run's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: i64,
    pub last: i64,
}

/// What a run row's `tool_calls` column holds.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum StoredCalls {
    Listed(Vec<ToolCallRecord>),
    InHistory { history: (i64, i64) },
}

/// A run row's answer as stored: its calls listed, or where its history
/// rows hold them and its response.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredAnswer {
    Listed(Vec<ToolCallRecord>),
    InHistory(Span),
}

/// Decodes a run row's `tool_calls` column (NULL: no calls).
pub fn parse(tool_calls: Option<&str>) -> StoreResult<StoredAnswer> {
    let Some(text) = tool_calls else { return Ok(StoredAnswer::Listed(Vec::new())) };
    Ok(match serde_json::from_str(text)? {
        StoredCalls::Listed(calls) => StoredAnswer::Listed(calls),
        StoredCalls::InHistory { history: (first, last) } => StoredAnswer::InHistory(Span { first, last }),
    })
}

/// The `tool_calls` column of a run that keeps its own copy.
pub fn listed(calls: &[ToolCallRecord]) -> StoreResult<String> {
    Ok(serde_json::to_string(calls)?)
}

/// Whether the messages a run appends to its history spell its response
/// and calls exactly, so that its row need not copy them.
pub fn history_spells(summary: &RunSummary) -> bool {
    match spelled(&summary.history) {
        Some((response, calls)) => response == summary.response && calls == summary.tool_calls,
        None => false,
    }
}

/// The response and calls a run's messages spell, as the run's summary
/// made them ([`crate::domain::checkpoint::summarize`]): each assistant
/// message is a step, numbered from 1, whose tool uses are its calls, each
/// given the result the tool message after it holds; the response is the
/// text of the last assistant message. `None` when the messages hold no
/// assistant message, or anything a summary's messages would not hold in
/// that shape (a compaction marker, a result of a call not asked for).
pub fn spelled(messages: &[Message]) -> Option<(Option<String>, Vec<ToolCallRecord>)> {
    let mut step = 0;
    let mut response = None;
    let mut calls: Vec<ToolCallRecord> = Vec::new();
    for message in messages {
        match message.role {
            Role::User => {}
            Role::Assistant => {
                step += 1;
                for content in &message.content {
                    match content {
                        Content::ToolUse { id, name, input } => calls.push(ToolCallRecord {
                            step,
                            call_id: id.clone(),
                            name: name.clone(),
                            input: input.clone(),
                            output: None,
                            is_error: None,
                        }),
                        Content::Text { .. } | Content::Thinking { .. } | Content::RedactedThinking { .. } => {}
                        _ => return None,
                    }
                }
                response = Some(storable_text(message.text()));
            }
            Role::Tool => {
                for content in &message.content {
                    let Content::ToolResult { tool_use_id, content, is_error } = content else { return None };
                    let call = calls
                        .iter_mut()
                        .rev()
                        .take_while(|c| c.step == step)
                        .find(|c| c.call_id == *tool_use_id && c.output.is_none())?;
                    call.output = Some(content.clone());
                    call.is_error = Some(*is_error);
                }
            }
        }
    }
    response.map(|response| (Some(response), calls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assistant(content: Vec<Content>) -> Message {
        Message { role: Role::Assistant, content }
    }

    fn tool_use(id: &str) -> Content {
        Content::ToolUse { id: id.into(), name: "write".into(), input: json!({"path": id}) }
    }

    fn results(pairs: &[(&str, &str)]) -> Message {
        let content = pairs
            .iter()
            .map(|(id, out)| Content::ToolResult { tool_use_id: (*id).into(), content: (*out).into(), is_error: false })
            .collect();
        Message { role: Role::Tool, content }
    }

    fn record(step: u32, id: &str, output: Option<&str>) -> ToolCallRecord {
        ToolCallRecord {
            step,
            call_id: id.into(),
            name: "write".into(),
            input: json!({"path": id}),
            output: output.map(str::to_string),
            is_error: output.map(|_| false),
        }
    }

    #[test]
    fn a_run_of_two_steps_is_spelled_by_its_messages() {
        let messages = vec![
            Message::user_text("go"),
            assistant(vec![Content::Text { text: "first ".into() }, tool_use("a"), tool_use("b")]),
            results(&[("a", "done a"), ("b", "done b")]),
            Message::user_text("a steer"),
            assistant(vec![Content::Text { text: "the answer".into() }]),
        ];
        let (response, calls) = spelled(&messages).unwrap();
        assert_eq!(response.as_deref(), Some("the answer"));
        assert_eq!(calls, vec![record(1, "a", Some("done a")), record(1, "b", Some("done b"))]);
    }

    #[test]
    fn messages_that_hold_no_answer_or_a_stray_result_spell_nothing() {
        assert_eq!(spelled(&[Message::user_text("go")]), None);
        let stray = vec![Message::user_text("go"), assistant(vec![tool_use("a")]), results(&[("b", "x")])];
        assert_eq!(spelled(&stray), None);
        let twice = vec![assistant(vec![tool_use("a")]), results(&[("a", "x"), ("a", "y")])];
        assert_eq!(spelled(&twice), None);
    }

    #[test]
    fn a_summary_is_spelled_only_when_its_calls_and_response_agree() {
        let history = vec![Message::user_text("go"), assistant(vec![tool_use("a")]), results(&[("a", "ok")])];
        let mut summary = RunSummary {
            response: Some(String::new()),
            steps: 1,
            tool_calls: vec![record(1, "a", Some("ok"))],
            history,
            ..Default::default()
        };
        assert!(history_spells(&summary));
        // The history holds an error result for a call that never ran.
        summary.tool_calls[0].output = None;
        summary.tool_calls[0].is_error = None;
        assert!(!history_spells(&summary));
    }

    #[test]
    fn the_column_reads_back_either_form() {
        let calls = vec![record(2, "a", None)];
        assert_eq!(parse(Some(&listed(&calls).unwrap())).unwrap(), StoredAnswer::Listed(calls));
        let span = Span { first: 4, last: 7 };
        assert_eq!(parse(Some(r#"{"history":[4,7]}"#)).unwrap(), StoredAnswer::InHistory(span));
        assert_eq!(parse(None).unwrap(), StoredAnswer::Listed(Vec::new()));
        assert_eq!(parse(Some("[]")).unwrap(), StoredAnswer::Listed(Vec::new()));
    }
}
