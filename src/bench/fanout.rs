//! (i) Many watchers: thousands of SSE tails on a few streaming runs. What a
//! connected tail costs the API server in memory, what idle tails cost it in
//! CPU, and what each delivered event costs it in CPU, with every tail's log
//! checked against the stored one (dense, no duplicate, same bytes).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::cpu::process_time;
use super::http::post;
use super::memory::{mb, resident};
use super::Setup;
use crate::sse::Decoder;

#[derive(Debug, Args)]
pub struct FanoutArgs {
    /// SSE tails in all, spread evenly over the runs.
    #[arg(long, default_value_t = 10_000)]
    tails: usize,
    /// Streaming runs.
    #[arg(long, default_value_t = 10)]
    runs: usize,
    /// Inference steps per run, each streaming `--words` words then calling a tool.
    #[arg(long, default_value_t = 20)]
    steps: usize,
    /// Words each step streams, one every `--chunk-delay-ms`.
    #[arg(long, default_value_t = 40)]
    words: usize,
    /// Milliseconds between two streamed words.
    #[arg(long, default_value_t = 25)]
    chunk_delay_ms: u64,
    /// How long the server is measured idle, in seconds, before the tails
    /// connect and again with them (runs queued, no worker yet). Long
    /// enough for several rounds of the 15 s keep-alives, which are most of
    /// what idle tails cost, so that where the window falls among them
    /// hardly counts.
    #[arg(long, default_value_t = 120)]
    idle_seconds: u64,
    /// The binary of the API server and the worker (another build of
    /// Wingman, to compare); this one by default.
    #[arg(long)]
    server_binary: Option<PathBuf>,
    /// Start the worker first and open the tails this many milliseconds
    /// later, while the runs stream, as watchers who arrive late do: each
    /// tail then catches up on what it missed from the store before the
    /// live feed, and the server's CPU per delivered event counts the
    /// connections and those catch-ups (the idle measurements are skipped).
    #[arg(long)]
    join_after_ms: Option<u64>,
}

/// What one tail read: its events' count, a digest of their bytes, and how
/// often it had to reconnect.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Read {
    events: u64,
    digest: u64,
    reconnects: u64,
}

pub async fn run(setup: &Setup, args: FanoutArgs) -> anyhow::Result<()> {
    let raised = crate::fdlimit::raise()?;
    anyhow::ensure!(
        raised.now as usize > args.tails + 100,
        "{} tails need more open files than this process may have ({})",
        args.tails,
        raised.now
    );
    let binary = args.server_binary.clone();
    let mut server =
        setup.spawn_binary(binary.as_deref(), &["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let pid = server.id();
    let http = reqwest::Client::builder().http1_only().build()?;
    let runs = submit_runs(&http, &base, &args).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (rss_before, _) = resident(pid)?;
    if let Some(join_after) = args.join_after_ms {
        let late = Late { base: &base, pid, runs: &runs, rss_before, join_after: Duration::from_millis(join_after) };
        return join_late(setup, &http, server, &args, late).await;
    }
    let at_rest = share_of_a_core(pid, args.idle_seconds).await?;

    let seen = Arc::new(Seen::default());
    let cpu_before = process_time(pid)?;
    let started = Instant::now();
    let tails = open_tails(&http, &base, &runs, args.tails, seen.clone());
    while seen.connected.load(Ordering::Relaxed) < args.tails {
        anyhow::ensure!(started.elapsed() < Duration::from_secs(300), "tails did not all connect in 300 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let connect_cpu = process_time(pid)? - cpu_before;
    println!(
        "{} tails on {} queued runs connected in {:.1} s, {:.0} µs of server CPU each",
        args.tails,
        runs.len(),
        started.elapsed().as_secs_f64(),
        connect_cpu.as_secs_f64() * 1e6 / args.tails as f64
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (rss_connected, _) = resident(pid)?;
    println!(
        "  server resident {} before, {} with the tails: {:.1} KB per connected tail",
        mb(rss_before),
        mb(rss_connected),
        rss_connected.saturating_sub(rss_before) as f64 / 1024.0 / args.tails as f64
    );
    let keep_alives_before = seen.keep_alives.load(Ordering::Relaxed);
    let idle = share_of_a_core(pid, args.idle_seconds).await?;
    let keep_alives = seen.keep_alives.load(Ordering::Relaxed) - keep_alives_before;
    let tails_cpu = (idle - at_rest) / 100.0 * args.idle_seconds as f64;
    println!(
        "  idle (runs queued, no worker) over {} s: {idle:.2} % of a core with the tails, {at_rest:.2} % before them: the tails {:.2} %",
        args.idle_seconds,
        idle - at_rest
    );
    if keep_alives > 0 {
        println!(
            "  the tails read {keep_alives} keep-alives meanwhile: {:.1} µs of server CPU each",
            tails_cpu * 1e6 / keep_alives as f64
        );
    }

    let stream_before = process_time(pid)?;
    let stream_started = Instant::now();
    let worker_args = ["worker", "--concurrency", &runs.len().max(1).to_string()];
    let worker = setup.spawn_binary(binary.as_deref(), &worker_args, &[])?;
    let reads = collect(tails).await?;
    let stream_cpu = process_time(pid)? - stream_before;
    let wall = stream_started.elapsed();
    let (_, peak) = resident(pid)?;
    let delivered = check(&http, &base, &runs, &reads, args.tails).await?;
    super::stop_all(&mut [server, worker]);
    let reconnects: u64 = reads.iter().map(|(_, read)| read.reconnects).sum();
    println!(
        "streaming: {delivered} events delivered in {:.1} s ({:.0}/s), every tail's log exact, {reconnects} reconnects",
        wall.as_secs_f64(),
        delivered as f64 / wall.as_secs_f64()
    );
    println!(
        "  server CPU {:.2} s: {:.2} µs per delivered event; peak resident {} ({:.1} KB per tail over the start)",
        stream_cpu.as_secs_f64(),
        stream_cpu.as_secs_f64() * 1e6 / delivered.max(1) as f64,
        mb(peak),
        peak.saturating_sub(rss_before) as f64 / 1024.0 / args.tails as f64
    );
    Ok(())
}

/// What [`join_late`] works on: the server's address and pid, its runs,
/// and its resident memory before any tail.
struct Late<'a> {
    base: &'a str,
    pid: u32,
    runs: &'a [String],
    rss_before: u64,
    join_after: Duration,
}

/// The late watchers' workload (`--join-after-ms`): the worker starts, the
/// tails connect that much later and catch up, and the server's CPU from
/// the worker's start to the last `done` is counted per delivered event.
async fn join_late(
    setup: &Setup,
    http: &reqwest::Client,
    server: std::process::Child,
    args: &FanoutArgs,
    late: Late<'_>,
) -> anyhow::Result<()> {
    let binary = args.server_binary.as_deref();
    let cpu_before = process_time(late.pid)?;
    let started = Instant::now();
    let worker_args = ["worker", "--concurrency", &late.runs.len().max(1).to_string()];
    let worker = setup.spawn_binary(binary, &worker_args, &[])?;
    tokio::time::sleep(late.join_after).await;
    let seen = Arc::new(Seen::default());
    let reads = collect(open_tails(http, late.base, late.runs, args.tails, seen)).await?;
    let cpu = process_time(late.pid)? - cpu_before;
    let wall = started.elapsed();
    let (_, peak) = resident(late.pid)?;
    let delivered = check(http, late.base, late.runs, &reads, args.tails).await?;
    super::stop_all(&mut [server, worker]);
    let reconnects: u64 = reads.iter().map(|(_, read)| read.reconnects).sum();
    println!(
        "{} tails joining {} ms after the worker started: {delivered} events delivered in {:.1} s, every tail's log exact, {reconnects} reconnects",
        args.tails,
        late.join_after.as_millis(),
        wall.as_secs_f64()
    );
    println!(
        "  server CPU {:.2} s, connections and catch-ups included: {:.2} µs per delivered event; peak resident {} ({:.1} KB per tail over the start)",
        cpu.as_secs_f64(),
        cpu.as_secs_f64() * 1e6 / delivered.max(1) as f64,
        mb(peak),
        peak.saturating_sub(late.rss_before) as f64 / 1024.0 / args.tails as f64
    );
    Ok(())
}

/// The share of a core the process uses over the next `seconds`.
async fn share_of_a_core(pid: u32, seconds: u64) -> anyhow::Result<f64> {
    let (before, started) = (process_time(pid)?, Instant::now());
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    Ok((process_time(pid)? - before).as_secs_f64() * 100.0 / started.elapsed().as_secs_f64())
}

/// One agent whose every step streams words then calls `glob`, a session
/// per run, and a message to each: the runs wait, queued, for a worker.
async fn submit_runs(http: &reqwest::Client, base: &str, args: &FanoutArgs) -> anyhow::Result<Vec<String>> {
    let words: String = (0..args.words).map(|i| format!("word{i} ")).collect();
    let mut script: Vec<Value> = (0..args.steps)
        .map(|_| json!({"text": words, "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}))
        .collect();
    script.push(json!({"text": "done"}));
    let agent = json!({
        "name": "fanout", "provider": "scripted", "model": "echo", "tools": ["glob"],
        "max_steps": args.steps + 5, "loop_guard": 0,
        "options": {"script": script, "chunk_delay_ms": args.chunk_delay_ms},
    });
    let agent = post(http, &format!("{base}/agents"), agent).await?;
    let mut runs = Vec::new();
    for i in 0..args.runs {
        let session = post(http, &format!("{base}/sessions"), json!({"agent_id": agent["id"]})).await?;
        let url = format!("{base}/sessions/{}/message", session["id"].as_str().context("session id")?);
        let run = post(http, &url, json!({"message": format!("m{i}")})).await?;
        runs.push(run["run_id"].as_str().context("run id")?.to_string());
    }
    Ok(runs)
}

type Tails = tokio::task::JoinSet<anyhow::Result<(usize, Read)>>;

/// What the tails have seen so far, in all.
#[derive(Default)]
struct Seen {
    /// Tails that have read their first event.
    connected: AtomicUsize,
    /// Keep-alive comments read (each comes alone: the log was silent).
    keep_alives: AtomicUsize,
}

/// Opens `count` tails spread over `runs`, a few hundred connecting at a time.
fn open_tails(http: &reqwest::Client, base: &str, runs: &[String], count: usize, seen: Arc<Seen>) -> Tails {
    let gate = Arc::new(tokio::sync::Semaphore::new(200));
    let mut tails = Tails::new();
    for i in 0..count {
        let run = i % runs.len();
        let url = format!("{base}/runs/{}/events", runs[run]);
        let (http, gate, seen) = (http.clone(), gate.clone(), seen.clone());
        tails.spawn(async move {
            let permit = gate.acquire_owned().await?;
            let read = tail(&http, &url, Some(permit), &seen).await?;
            Ok((run, read))
        });
    }
    tails
}

/// Reads a run's log to its `done` as a browser would: reconnecting with
/// `Last-Event-ID` whenever the stream ends first. Every event must be the
/// next one; the digest covers each event's `id`, type and data.
async fn tail(
    http: &reqwest::Client,
    url: &str,
    mut permit: Option<tokio::sync::OwnedSemaphorePermit>,
    seen: &Seen,
) -> anyhow::Result<Read> {
    let mut read = Read::default();
    loop {
        let mut request = http.get(url).header("accept", "text/event-stream");
        if read.events > 0 {
            request = request.header("last-event-id", read.events.to_string());
            read.reconnects += 1;
        }
        let response = request.send().await?;
        anyhow::ensure!(response.status().is_success(), "{url}: {}", response.status());
        let mut body = response.bytes_stream();
        let mut decoder = Decoder::default();
        while let Some(chunk) = body.next().await {
            let Ok(chunk) = chunk else { break };
            if chunk.as_ref() == b":\n\n" {
                seen.keep_alives.fetch_add(1, Ordering::Relaxed);
            }
            for frame in decoder.push(&chunk) {
                let seq: u64 = frame.id.as_deref().context("a frame without id")?.parse()?;
                anyhow::ensure!(seq == read.events + 1, "{url}: event {seq} after {}", read.events);
                read.events = seq;
                read.digest = digest(read.digest, &frame);
                if permit.take().is_some() {
                    seen.connected.fetch_add(1, Ordering::Relaxed);
                }
                if frame.event.as_deref() == Some("done") {
                    return Ok(read);
                }
            }
        }
    }
}

fn digest(state: u64, frame: &crate::sse::Frame) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (state, &frame.id, &frame.event, &frame.data).hash(&mut hasher);
    hasher.finish()
}

async fn collect(mut tails: Tails) -> anyhow::Result<Vec<(usize, Read)>> {
    let mut reads = Vec::new();
    while let Some(done) = tails.join_next().await {
        reads.push(done??);
    }
    Ok(reads)
}

/// Checks every tail's read against its run's stored log (read once as
/// JSON) and returns the events delivered in all.
async fn check(
    http: &reqwest::Client,
    base: &str,
    runs: &[String],
    reads: &[(usize, Read)],
    tails: usize,
) -> anyhow::Result<u64> {
    anyhow::ensure!(reads.len() == tails, "{} of {tails} tails finished", reads.len());
    let mut expected = Vec::new();
    for run in runs {
        let log: Vec<Value> = http.get(format!("{base}/runs/{run}/events")).send().await?.json().await?;
        let mut state = 0;
        for event in &log {
            let frame = crate::sse::Frame {
                id: Some(event["seq"].to_string()),
                event: event["type"].as_str().map(String::from),
                data: event.to_string(),
            };
            state = digest(state, &frame);
        }
        expected.push(Read { events: log.len() as u64, digest: state, reconnects: 0 });
    }
    for (run, read) in reads {
        let want = expected[*run];
        anyhow::ensure!(
            (read.events, read.digest) == (want.events, want.digest),
            "a tail of run {} read {} events that differ from its log of {}",
            runs[*run],
            read.events,
            want.events
        );
    }
    Ok(reads.iter().map(|(_, read)| read.events).sum())
}
