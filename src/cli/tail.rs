//! Tailing a run from the command line: follows its events, reconnecting
//! by itself, and prints them as text or JSON lines.

use std::io::Write;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

use super::format::Shorten;
use super::outcome::{done_status, judge};
use super::remote::{segment, Remote};
use super::style::{Style, Tone};
use super::transcript::Transcript;
use crate::sse::Decoder;

/// Follows a run's events until `done`, printing them, then prints a
/// summary line on standard error. A dropped connection or a server restart
/// is survived: it reconnects with `Last-Event-ID` and goes on after the
/// last event it printed.
pub async fn tail(remote: &Remote, run_id: &str, after: u64, as_json: bool) -> anyhow::Result<()> {
    let mut printer = LivePrinter::new(as_json);
    follow_run(remote, run_id, after, |event| printer.print(event)).await
}

/// [`tail`] for a run just sent: an approval request met on the way is
/// shown and, when standard input is a terminal, answered at a prompt; a
/// request for tool results is shown with the command that answers it.
pub async fn tail_answering(remote: &Remote, run_id: &str) -> anyhow::Result<()> {
    let mut printer = LivePrinter::new(false);
    follow_run(remote, run_id, 0, |event| {
        printer.print(event);
        if event["type"] == "approval_requested" {
            let answered = tokio::task::block_in_place(|| {
                let answer = super::approvals::answer_at_prompt(remote, run_id, event);
                tokio::runtime::Handle::current().block_on(answer)
            });
            if let Err(e) = answered {
                eprintln!("[the decision was not sent: {e}]");
            }
        }
        if event["type"] == "tool_calls_requested" {
            eprintln!("{}", super::tool_results::how_to_answer(run_id, event));
        }
    })
    .await
}

/// Follows a run's events to its end, handing each to `on_event`, then
/// prints the run's summary line; the result says how the run ended (see
/// [`super::outcome`]).
async fn follow_run(remote: &Remote, run_id: &str, after: u64, mut on_event: impl FnMut(&Value)) -> anyhow::Result<()> {
    let path = format!("/runs/{}/events", segment(run_id));
    let mut ended = None;
    let each = |event: &Value| {
        on_event(event);
        ended = ended.take().or_else(|| done_status(event));
    };
    follow(remote, &path, after, each, |why| eprintln!("\n[{why}]")).await?;
    match remote.read(&format!("/runs/{}", segment(run_id))).await {
        Ok(run) => {
            eprintln!("{}", super::runs::summary(&run, Style::stderr()));
            // Followed from past its `done`: the run itself says how it ended.
            judge(ended.as_deref().or(run["status"].as_str()))
        }
        Err(e) if ended.is_some() => {
            eprintln!("[no summary: {e:#}]");
            judge(ended.as_deref())
        }
        Err(e) => Err(e),
    }
}

/// Follows a log (`…/events` of a run or a fleet run) from after `after`
/// until its `done`, calling `on_event` with each event once, in order, and
/// `on_retry` with the reason whenever it reconnects.
pub async fn follow(
    remote: &Remote,
    path: &str,
    after: u64,
    mut on_event: impl FnMut(&Value),
    mut on_retry: impl FnMut(&str),
) -> anyhow::Result<()> {
    let mut last = after;
    let mut delay = Duration::from_millis(100);
    loop {
        match follow_once(remote, path, &mut last, &mut on_event).await {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(TailError::Fatal(e)) => return Err(e),
            Err(TailError::Retry(e)) => on_retry(&format!("connection lost: {e}; reconnecting after event {last}")),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

enum TailError {
    Retry(String),
    Fatal(anyhow::Error),
}

async fn follow_once(
    remote: &Remote,
    path: &str,
    last: &mut u64,
    on_event: &mut impl FnMut(&Value),
) -> Result<bool, TailError> {
    let response = remote
        .get(path)
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", last.to_string())
        .send()
        .await
        .map_err(|e| TailError::Retry(e.to_string()))?;
    let status = response.status();
    if status.is_client_error() {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        return Err(TailError::Fatal(remote.refusal(status, &body)));
    }
    if !status.is_success() {
        return Err(TailError::Retry(format!("server answered {status}")));
    }
    if status == reqwest::StatusCode::NO_CONTENT {
        // The log has ended and every event after `last` was already seen.
        return Ok(true);
    }
    let mut decoder = Decoder::default();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| TailError::Retry(e.to_string()))?;
        for frame in decoder.push(&chunk) {
            let Some(seq) = frame.id.as_deref().and_then(|id| id.parse::<u64>().ok()) else { continue };
            if seq <= *last {
                continue;
            }
            *last = seq;
            let event: Value = serde_json::from_str(&frame.data).unwrap_or(Value::Null);
            on_event(&event);
            if event["type"] == "done" {
                return Ok(true);
            }
        }
    }
    Err(TailError::Retry("the stream ended before the log did".into()))
}

/// Prints a run's events as they come: text as it streams, everything
/// else as the lines of a transcript; or each event as a JSON line.
struct LivePrinter {
    as_json: bool,
    style: Style,
    /// Whether streamed text left the cursor in the middle of a line.
    mid_line: bool,
    /// Whether the last piece streamed was thinking, so the answer starts on a line of its own.
    thinking: bool,
}

impl LivePrinter {
    fn new(as_json: bool) -> LivePrinter {
        LivePrinter { as_json, style: Style::stdout(), mid_line: false, thinking: false }
    }

    fn print(&mut self, event: &Value) {
        let mut out = std::io::stdout().lock();
        if self.as_json {
            let _ = writeln!(out, "{event}");
            return;
        }
        if event["type"] == "text_delta" || event["type"] == "thinking_delta" {
            let text = event["text"].as_str().unwrap_or_default();
            // Thinking is shown dimmed, so the answer stands out from it.
            let thinking = event["type"] == "thinking_delta";
            let tone = if thinking { Tone::Dim } else { Tone::Plain };
            let lead = if self.thinking && !thinking && self.mid_line { "\n" } else { "" };
            self.thinking = thinking;
            let _ = write!(out, "{lead}{}", self.style.paint(tone, text));
            if !text.is_empty() {
                self.mid_line = !text.ends_with('\n');
            }
        } else {
            let mut lines = Transcript::new(self.style, Shorten::SOME);
            lines.event(event["type"].as_str().unwrap_or_default(), event);
            let text = lines.text();
            if !text.is_empty() {
                let _ = write!(out, "{}{text}", if self.mid_line { "\n" } else { "" });
                self.mid_line = false;
            }
        }
        let _ = out.flush();
    }
}
