//! Tailing a run from the command line: follows its events, reconnecting
//! by itself, and prints them as text or JSON lines.

use std::io::Write;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

use super::outcome::{done_status, judge};
use super::sse::Parser;

/// Follows a run's events until `done`, printing them. A dropped connection
/// or a server restart is survived: it reconnects with `Last-Event-ID` and
/// goes on after the last event it printed.
pub async fn tail(http: &reqwest::Client, server: &str, run_id: &str, after: u64, as_json: bool) -> anyhow::Result<()> {
    follow_run(http, server, run_id, after, |event| print_event(event, as_json)).await
}

/// [`tail`] for a run just sent: an approval request met on the way is
/// shown and, when standard input is a terminal, answered at a prompt.
pub async fn tail_answering(http: &reqwest::Client, server: &str, run_id: &str) -> anyhow::Result<()> {
    follow_run(http, server, run_id, 0, |event| {
        print_event(event, false);
        if event["type"] == "approval_requested" {
            let answered = tokio::task::block_in_place(|| {
                let answer = super::approvals::answer_at_prompt(http, server, run_id, event);
                tokio::runtime::Handle::current().block_on(answer)
            });
            if let Err(e) = answered {
                eprintln!("[the decision was not sent: {e}]");
            }
        }
    })
    .await
}

/// Follows a run's events to its end, handing each to `on_event`; the
/// result says how the run ended (see [`super::outcome`]).
async fn follow_run(
    http: &reqwest::Client,
    server: &str,
    run_id: &str,
    after: u64,
    mut on_event: impl FnMut(&Value),
) -> anyhow::Result<()> {
    let url = format!("{server}/runs/{run_id}/events");
    let mut ended = None;
    let each = |event: &Value| {
        on_event(event);
        ended = ended.take().or_else(|| done_status(event));
    };
    follow(http, &url, after, each, |why| eprintln!("\n[{why}]")).await?;
    match ended {
        Some(status) => judge(Some(&status)),
        // Followed from past its `done`: the run itself says how it ended.
        None => judge(super::client::call(http.get(format!("{server}/runs/{run_id}"))).await?["status"].as_str()),
    }
}

/// Follows a log (`…/events` of a run or a fleet run) from after `after`
/// until its `done`, calling `on_event` with each event once, in order, and
/// `on_retry` with the reason whenever it reconnects.
pub async fn follow(
    http: &reqwest::Client,
    url: &str,
    after: u64,
    mut on_event: impl FnMut(&Value),
    mut on_retry: impl FnMut(&str),
) -> anyhow::Result<()> {
    let mut last = after;
    let mut delay = Duration::from_millis(100);
    loop {
        match follow_once(http, url, &mut last, &mut on_event).await {
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
    http: &reqwest::Client,
    url: &str,
    last: &mut u64,
    on_event: &mut impl FnMut(&Value),
) -> Result<bool, TailError> {
    let response = http
        .get(url)
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", last.to_string())
        .send()
        .await
        .map_err(|e| TailError::Retry(e.to_string()))?;
    let status = response.status();
    if status.is_client_error() {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        return Err(TailError::Fatal(anyhow::anyhow!("{status}: {}", body["error"].as_str().unwrap_or(""))));
    }
    if !status.is_success() {
        return Err(TailError::Retry(format!("server answered {status}")));
    }
    if status == reqwest::StatusCode::NO_CONTENT {
        // The log has ended and every event after `last` was already seen.
        return Ok(true);
    }
    let mut parser = Parser::default();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| TailError::Retry(e.to_string()))?;
        for frame in parser.push(&chunk) {
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

fn print_event(event: &Value, as_json: bool) {
    let mut out = std::io::stdout().lock();
    if as_json {
        let _ = writeln!(out, "{event}");
        return;
    }
    let _ = match event["type"].as_str().unwrap_or("") {
        "text_delta" => write!(out, "{}", event["text"].as_str().unwrap_or("")),
        "tool_call" => writeln!(out, "\n→ {} {}", event["name"].as_str().unwrap_or(""), event["input"]),
        "tool_result" => {
            let output = event["output"].as_str().unwrap_or("");
            let short: String = output.chars().take(300).collect();
            writeln!(out, "← {short}")
        }
        "step_restarted" => {
            writeln!(out, "\n[step {} restarted: {}]", event["step"], event["reason"].as_str().unwrap_or(""))
        }
        "approval_requested" => {
            let calls = event["calls"].as_array().map(Vec::len).unwrap_or(0);
            writeln!(out, "\n[waiting for a person's decision on {calls} call(s) of step {}]", event["step"])
        }
        "approval_decided" => writeln!(out, "[decided; the run goes on]"),
        "steered" => writeln!(out, "\n[steered: {}]", event["message"].as_str().unwrap_or("")),
        "done" => {
            let error = event["error"].as_str().map(|e| format!(": {e}")).unwrap_or_default();
            writeln!(out, "\n[{}{error}]", event["status"].as_str().unwrap_or(""))
        }
        _ => Ok(()),
    };
    let _ = out.flush();
}
