//! (j) A large answer: what a model's answer of some megabytes costs the API
//! server in memory on its way to an SSE tail.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use futures_util::StreamExt;
use serde_json::json;

use super::http::post;
use super::memory::{mb, resident};
use super::Setup;
use crate::sse::Decoder;

#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The answer's size in bytes.
    #[arg(long, default_value_t = 5_000_000)]
    bytes: usize,
    /// The binary of the API server and the worker (another build of
    /// Wingman, to compare); this one by default.
    #[arg(long)]
    server_binary: Option<PathBuf>,
}

/// Sends a message to a scripted agent whose answer is `bytes` long (in one
/// piece, as a provider that does not stream would give it), tails
/// the run, and reports the server's peak resident memory over the run
/// against its memory before the worker started.
pub async fn run(setup: &Setup, args: AnswerArgs) -> anyhow::Result<()> {
    let binary = args.server_binary.as_deref();
    let limit = (args.bytes * 2 + 65_536).to_string();
    let serve = ["serve", "--addr", "127.0.0.1:0", "--workers", "0", "--max-body-bytes", &limit];
    let mut server = setup.spawn_binary(binary, &serve, &[])?;
    let base = super::server_url(&mut server)?;
    let pid = server.id();
    let http = reqwest::Client::new();
    let answer: String = "word ".repeat(args.bytes / 5);
    let agent = json!({"name": "answer", "provider": "scripted", "model": "echo",
        "max_step_output_bytes": args.bytes * 2, "options": {"script": [{"text": answer}]}});
    drop(answer);
    let agent = post(&http, &format!("{base}/agents"), agent).await?;
    let session = post(&http, &format!("{base}/sessions"), json!({"agent_id": agent["id"]})).await?;
    let url = format!("{base}/sessions/{}/message", session["id"].as_str().context("session id")?);
    let run = post(&http, &url, json!({"message": "answer at length"})).await?;
    let run = run["run_id"].as_str().context("run id")?.to_string();
    tokio::time::sleep(Duration::from_secs(1)).await;
    // The peak so far was the submission's; the answer's is measured from here.
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").context("resetting the server's peak memory")?;
    let (before, _) = resident(pid)?;
    let response = http.get(format!("{base}/runs/{run}/events")).header("accept", "text/event-stream").send().await?;
    let worker = setup.spawn_binary(binary, &["worker"], &[])?;
    let mut body = response.bytes_stream();
    let (mut decoder, mut received) = (Decoder::default(), 0usize);
    'read: while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        received += chunk.len();
        for frame in decoder.push(&chunk) {
            if frame.event.as_deref() == Some("done") {
                break 'read;
            }
        }
    }
    let (after, peak) = resident(pid)?;
    super::stop_all(&mut [server, worker]);
    println!(
        "an answer of {}: {} of SSE read; server resident {} before the run, peak {} (+{}, {:.1}× the answer), {} after",
        mb(args.bytes as u64),
        mb(received as u64),
        mb(before),
        mb(peak),
        mb(peak.saturating_sub(before)),
        peak.saturating_sub(before) as f64 / args.bytes as f64,
        mb(after)
    );
    Ok(())
}
