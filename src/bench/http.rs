//! (b) Enqueue rate over HTTP and (c) submit → `run_started` on an SSE tail.

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::{ms, percentile, Setup};
use crate::sse::Decoder;

#[derive(Debug, Args)]
pub struct EnqueueArgs {
    /// Messages to submit.
    #[arg(long, default_value_t = 10_000)]
    messages: u32,
    /// Concurrent HTTP clients.
    #[arg(long, default_value_t = 32)]
    clients: u32,
    /// Open the server with a token, and submit under a member's API key
    /// made with it, as a shared server is used.
    #[arg(long)]
    keys: bool,
    /// With --keys: give the key's owner a quota of queued runs (above what
    /// the benchmark queues), so every submission counts the owner's queue.
    #[arg(long, requires = "keys")]
    quota: bool,
}

/// The token a benchmark's server is opened with under `--keys`.
const BENCH_TOKEN: &str = "wingman-bench-token-0123456789abcdef";

/// A client sending `key` as its bearer.
fn keyed_client(key: &str) -> anyhow::Result<reqwest::Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {key}").parse()?);
    Ok(reqwest::Client::builder().default_headers(headers).build()?)
}

/// The client the enqueue benchmark submits with: an open server's, or a
/// member's key (its owner given a queue quota with `quota`).
async fn submitter(base: &str, args: &EnqueueArgs) -> anyhow::Result<reqwest::Client> {
    if !args.keys {
        return Ok(reqwest::Client::new());
    }
    let admin = keyed_client(BENCH_TOKEN)?;
    let made = post(&admin, &format!("{base}/keys"), json!({"owner": "bench", "role": "member"})).await?;
    if args.quota {
        let quota = json!({"max_queued_runs": 10_000_000});
        let response = admin.put(format!("{base}/owners/bench")).json(&quota).send().await?;
        anyhow::ensure!(response.status().is_success(), "PUT /owners/bench: {}", response.status());
    }
    keyed_client(made["key"].as_str().context("no key in POST /keys")?)
}

#[derive(Debug, Args)]
pub struct PickupArgs {
    /// Submissions, one at a time.
    #[arg(long, default_value_t = 200)]
    submissions: u32,
    /// Queue this many fleet tasks under one concurrency key first (each
    /// streaming for a second, `--backlog-limit` of them at once), so that
    /// the messages are measured behind them: fairness, seen from outside.
    #[arg(long, default_value_t = 0)]
    backlog: u32,
    /// The backlog key's limit: fewer than the worker runs at once, so it
    /// has room for the messages.
    #[arg(long, default_value_t = 8)]
    backlog_limit: u32,
}

/// Queues `tasks` one-second fleet tasks under the concurrency key `backlog`.
async fn queue_backlog(http: &reqwest::Client, base: &str, tasks: u32, limit: u32) -> anyhow::Result<()> {
    let words = (0..10).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    let script = json!({"chunk_delay_ms": 100, "script": [{"text": words}]});
    let agent = post(http, &format!("{base}/agents"), json!({"name": "backlog", "options": script})).await?;
    let fleet = post(http, &format!("{base}/fleets"), json!({"name": "backlog", "agent_id": agent["id"]})).await?;
    let tasks: Vec<Value> = (0..tasks).map(|i| json!({"message": format!("task {i}")})).collect();
    let body = json!({"tasks": tasks, "concurrency": {"key": "backlog", "limit": limit}});
    post(http, &format!("{base}/fleets/{}/run", fleet["id"].as_str().unwrap_or_default()), body).await?;
    Ok(())
}

pub async fn post(http: &reqwest::Client, url: &str, body: Value) -> anyhow::Result<Value> {
    let response = http.post(url).json(&body).send().await?;
    let status = response.status();
    let body: Value = response.json().await?;
    anyhow::ensure!(status.is_success(), "{url}: {status} {body}");
    Ok(body)
}

async fn agent_and_sessions(http: &reqwest::Client, base: &str, sessions: u32) -> anyhow::Result<Vec<String>> {
    let agent = post(http, &format!("{base}/agents"), json!({"name": "bench"})).await?;
    let mut ids = Vec::new();
    for _ in 0..sessions {
        let session = post(http, &format!("{base}/sessions"), json!({"agent_id": agent["id"]})).await?;
        ids.push(session["id"].as_str().context("session id")?.to_string());
    }
    Ok(ids)
}

pub async fn enqueue(setup: &Setup, args: EnqueueArgs) -> anyhow::Result<()> {
    let token: &[(&str, &str)] = if args.keys { &[("WINGMAN_AUTH_TOKEN", BENCH_TOKEN)] } else { &[] };
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], token)?;
    let base = super::server_url(&mut server)?;
    let http = submitter(&base, &args).await?;
    let sessions = agent_and_sessions(&http, &base, args.clients).await?;
    let per_client = args.messages / args.clients.max(1);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for session in sessions {
        let (http, url) = (http.clone(), format!("{base}/sessions/{session}/message"));
        tasks.spawn(async move {
            let mut latencies = Vec::new();
            for i in 0..per_client {
                let t = Instant::now();
                post(&http, &url, json!({"message": format!("m{i}")})).await?;
                latencies.push(t.elapsed());
            }
            anyhow::Ok(latencies)
        });
    }
    let mut latencies = Vec::new();
    while let Some(done) = tasks.join_next().await {
        latencies.extend(done??);
    }
    let elapsed = started.elapsed();
    latencies.sort();
    super::stop_all(&mut [server]);
    let keyed = match (args.keys, args.quota) {
        (false, _) => "",
        (true, false) => " under a member's key",
        (true, true) => " under a member's key with a queue quota",
    };
    println!(
        "enqueue over HTTP{keyed}: {} messages, {} clients: {:.0} runs/s (latency p50 {}, p99 {})",
        latencies.len(),
        args.clients,
        latencies.len() as f64 / elapsed.as_secs_f64(),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 99.0))
    );
    Ok(())
}

pub async fn pickup(setup: &Setup, args: PickupArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let worker = setup.spawn(&["worker"], &[])?;
    let http = reqwest::Client::new();
    if args.backlog > 0 {
        queue_backlog(&http, &base, args.backlog, args.backlog_limit).await?;
        // Let the worker start the key's first runs and hold the rest.
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    let sessions = agent_and_sessions(&http, &base, 1).await?;
    let url = format!("{base}/sessions/{}/message/stream", sessions[0]);
    let (mut latencies, mut after_answer) = (Vec::new(), Vec::new());
    for i in 0..args.submissions {
        let started = Instant::now();
        let response = http.post(&url).json(&json!({"message": format!("m{i}")})).send().await?;
        // The stream's headers come back once the run is enqueued.
        let answered = started.elapsed();
        anyhow::ensure!(response.status().is_success(), "stream submit failed: {}", response.status());
        let mut stream = response.bytes_stream();
        let mut decoder = Decoder::default();
        let mut seen = None;
        'read: while let Some(chunk) = stream.next().await {
            for frame in decoder.push(&chunk?) {
                if frame.event.as_deref() == Some("run_started") && seen.is_none() {
                    seen = Some(started.elapsed());
                }
                if frame.event.as_deref() == Some("done") {
                    break 'read;
                }
            }
        }
        let seen = seen.context("no run_started event")?;
        latencies.push(seen);
        after_answer.push(seen.saturating_sub(answered));
    }
    latencies.sort();
    after_answer.sort();
    super::stop_all(&mut [server, worker]);
    let behind = match args.backlog {
        0 => String::new(),
        n => format!(", behind {n} queued tasks of one key at {}", args.backlog_limit),
    };
    println!(
        "submit -> run_started on SSE, worker in another process{behind}: {} submissions: p50 {}, p99 {}, max {}",
        latencies.len(),
        ms(percentile(&latencies, 50.0)),
        ms(percentile(&latencies, 99.0)),
        ms(*latencies.last().unwrap_or(&Duration::ZERO))
    );
    println!(
        "  of which after the enqueue answered (its stream's headers) -> run_started on SSE: p50 {}, p99 {}",
        ms(percentile(&after_answer, 50.0)),
        ms(percentile(&after_answer, 99.0)),
    );
    Ok(())
}
