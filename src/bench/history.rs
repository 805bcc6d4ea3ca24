//! (g) A long session: messages sent one after another to one session,
//! and what each costs Wingman as the session's stored history grows.
//!
//! The figure is CPU time, not latency: an API-only server and a worker
//! process serve the session, and `/proc` says how much CPU the two used
//! for each window of messages. Part of it is the provider's: what a
//! provider is sent grows with the history (the `echo` model counts every
//! word of it, as a provider counts its input), and compaction, not
//! Wingman, bounds that. The worker's `/metrics` says how long its provider
//! calls took (in-process, without a wait, that is CPU), so the figure
//! without them is what Wingman itself does for a message: load, checkpoint,
//! append. It should not depend on how many messages came before; the last
//! window over the first says whether it does.

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};

use super::cpu::{named_time, process_time};
use super::http::post;
use super::Setup;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Messages sent to the session, one after another.
    #[arg(long, default_value_t = 2_000)]
    messages: u32,
    /// Messages per measured window.
    #[arg(long, default_value_t = 100)]
    window: u32,
    /// Words in each message (the `echo` model answers with them, so each
    /// message adds twice as many to the history).
    #[arg(long, default_value_t = 20)]
    words: u32,
}

/// One window's figures.
struct Window {
    first: u32,
    /// The CPU of the server and the worker.
    processes: Duration,
    /// The time spent in provider calls.
    provider: Duration,
    database: Duration,
    wall: Duration,
}

/// Sends the messages with `?wait=true` and prints the CPU per message of
/// each window, then the last window's over the first's.
pub async fn run(setup: &Setup, args: HistoryArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.window > 0 && args.messages >= args.window, "--messages must be at least --window");
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let metrics = format!("127.0.0.1:{}", crate::bench::free_port()?);
    let worker = setup.spawn(&["worker", "--metrics-addr", &metrics], &[])?;
    let http = reqwest::Client::new();
    let agent = post(&http, &format!("{base}/agents"), json!({"name": "history", "model": "echo"})).await?;
    let session = post(&http, &format!("{base}/sessions"), json!({"agent_id": agent["id"]})).await?;
    let url = format!("{base}/sessions/{}/message?wait=true", session["id"].as_str().context("session id")?);
    let pids = [server.id(), worker.id()];
    let probe = Probe { http: http.clone(), pids, metrics: format!("http://{metrics}/metrics") };
    let measured = match probe.ready().await {
        Ok(()) => windows(&probe, &url, &args).await,
        Err(e) => Err(e),
    };
    super::stop_all(&mut [server, worker]);
    report(&measured?, &args);
    Ok(())
}

/// Where the figures come from.
struct Probe {
    http: reqwest::Client,
    /// The server's and the worker's.
    pids: [u32; 2],
    /// The worker's metrics.
    metrics: String,
}

impl Probe {
    fn process_time(&self) -> anyhow::Result<Duration> {
        Ok(process_time(self.pids[0])? + process_time(self.pids[1])?)
    }

    /// Waits until the worker serves its metrics (it starts with the bench).
    async fn ready(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self.provider_time().await {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > deadline => return Err(e.context("the worker's metrics never answered")),
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    /// The time the worker's provider calls took so far.
    async fn provider_time(&self) -> anyhow::Result<Duration> {
        let text = self.http.get(&self.metrics).send().await?.error_for_status()?.text().await?;
        let seconds: f64 = text
            .lines()
            .filter(|l| l.starts_with("wingman_provider_request_duration_seconds_sum"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        Ok(Duration::from_secs_f64(seconds))
    }
}

async fn windows(probe: &Probe, url: &str, args: &HistoryArgs) -> anyhow::Result<Vec<Window>> {
    let mut windows = Vec::new();
    let mut sent = 0;
    while sent + args.window <= args.messages {
        let provider = probe.provider_time().await?;
        let (processes, database, started) = (probe.process_time()?, named_time("postgres"), Instant::now());
        for _ in 0..args.window {
            sent += 1;
            send(&probe.http, url, sent, args.words).await?;
        }
        let wall = started.elapsed();
        let processes = probe.process_time()?.saturating_sub(processes);
        let database = named_time("postgres").saturating_sub(database);
        let provider = probe.provider_time().await?.saturating_sub(provider);
        windows.push(Window { first: sent - args.window + 1, processes, provider, database, wall });
    }
    Ok(windows)
}

/// Sends message `n` and checks that the run succeeded.
async fn send(http: &reqwest::Client, url: &str, n: u32, words: u32) -> anyhow::Result<()> {
    let text: Vec<String> = (0..words).map(|w| format!("m{n}w{w}")).collect();
    let answer: Value = post(http, url, json!({"message": text.join(" ")})).await?;
    anyhow::ensure!(answer["status"] == "succeeded", "message {n} did not succeed: {answer}");
    Ok(())
}

impl Window {
    /// The processes' CPU without the provider's.
    fn wingman(&self) -> Duration {
        self.processes.saturating_sub(self.provider)
    }
}

fn report(windows: &[Window], args: &HistoryArgs) {
    let per_message = |d: Duration| d.as_secs_f64() * 1000.0 / f64::from(args.window);
    println!("{} messages to one session, {} words each, answered by `echo`; per message:", args.messages, args.words);
    for w in windows {
        println!(
            "  messages {:>5}–{:<5}  Wingman {:.2} ms CPU (+ provider {:.2} ms)  database {:.2} ms  wall {:.2} ms",
            w.first,
            w.first + args.window - 1,
            per_message(w.wingman()),
            per_message(w.provider),
            per_message(w.database),
            per_message(w.wall),
        );
    }
    if let (Some(first), Some(last)) = (windows.first(), windows.last()) {
        let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-9);
        println!(
            "last window over first: Wingman's own CPU {:.2}×, with the provider's {:.2}×, wall time {:.2}×",
            ratio(last.wingman(), first.wingman()),
            ratio(last.processes, first.processes),
            ratio(last.wall, first.wall)
        );
    }
}
