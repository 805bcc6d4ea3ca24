//! (k) Soak: steady mixed load for a given time, every process's resident
//! memory sampled. An API-only server and two worker processes serve three
//! clients that each send a message (one `write` call of 2 KB, then a 1 KB
//! answer) and follow its SSE stream to its end, one after another, and a
//! fourth that sends fleet runs of 20 such tasks and waits for each. Each
//! process's memory should climb while its caches fill (SQLite's page
//! caches, the connection pools) and then stay flat: the figures are its
//! peak during the warm-up and its lowest, highest and last after it, and
//! the slope after it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::http::post;
use super::memory::{mb, resident};
use super::Setup;

#[derive(Debug, Args)]
pub struct SoakArgs {
    /// How long the load lasts, in minutes.
    #[arg(long, default_value_t = 30)]
    minutes: u64,
    /// How often memory is sampled, in seconds.
    #[arg(long, default_value_t = 30)]
    sample_secs: u64,
    /// The share of the time counted as warm-up, in percent.
    #[arg(long, default_value_t = 20)]
    warm_up_percent: u64,
}

/// Runs the load and prints a line per sample, then each process's figures.
pub async fn run(setup: &Setup, args: SoakArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let workers = [setup.spawn(&["worker"], &[])?, setup.spawn(&["worker"], &[])?];
    let pids = [("server", server.id()), ("worker-1", workers[0].id()), ("worker-2", workers[1].id())];
    let outcome = soak(setup, &base, &pids, &args).await;
    let [w1, w2] = workers;
    super::stop_all(&mut [server, w1, w2]);
    report(&pids, &outcome?, &args);
    Ok(())
}

/// One sample: when, and each process's resident memory.
struct Sample {
    at: Duration,
    resident: Vec<u64>,
}

async fn soak(setup: &Setup, base: &str, pids: &[(&str, u32)], args: &SoakArgs) -> anyhow::Result<Vec<Sample>> {
    let http = reqwest::Client::new();
    let work = super::work_dir(setup);
    std::fs::create_dir_all(&work)?;
    let script = json!([
        {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "x".repeat(2048)}}]},
        {"text": "y".repeat(1024)}
    ]);
    let agent = post(
        &http,
        &format!("{base}/agents"),
        json!({"name": "soak", "tools": ["write"], "options": {"script": script}}),
    )
    .await?;
    let agent_id = agent["id"].as_str().context("agent id")?.to_string();
    let until = Instant::now() + Duration::from_secs(args.minutes * 60);
    let ran = Arc::new(AtomicU64::new(0));
    let mut load = tokio::task::JoinSet::new();
    for client in 0..3 {
        let dir = work.join(format!("client-{client}"));
        std::fs::create_dir_all(&dir)?;
        let body = json!({"agent_id": agent_id, "work_dir": dir});
        let session = post(&http, &format!("{base}/sessions"), body).await?;
        let url = format!("{base}/sessions/{}/message/stream", session["id"].as_str().context("session id")?);
        load.spawn(messages(http.clone(), url, until, ran.clone()));
    }
    let fleet =
        post(&http, &format!("{base}/fleets"), json!({"name": "soak", "agent_id": agent_id, "work_dir": work})).await?;
    let url = format!("{base}/fleets/{}/run?wait=true", fleet["id"].as_str().context("fleet id")?);
    load.spawn(fleets(http.clone(), url, until, ran.clone()));
    let samples = sample(pids, until, Duration::from_secs(args.sample_secs.max(1)), &ran).await;
    while let Some(done) = load.join_next().await {
        done??;
    }
    samples
}

/// Messages one after another, each followed on its stream to the end.
async fn messages(http: reqwest::Client, url: String, until: Instant, ran: Arc<AtomicU64>) -> anyhow::Result<()> {
    while Instant::now() < until {
        let response = http.post(&url).json(&json!({"message": "go"})).send().await?;
        anyhow::ensure!(response.status().is_success(), "{url}: {}", response.status());
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            chunk?;
        }
        ran.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Fleet runs of 20 tasks, one after another, each waited for.
async fn fleets(http: reqwest::Client, url: String, until: Instant, ran: Arc<AtomicU64>) -> anyhow::Result<()> {
    let tasks: Vec<Value> = (0..20).map(|i| json!({"message": format!("task {i}")})).collect();
    while Instant::now() < until {
        let response = http.post(&url).json(&json!({"tasks": tasks})).send().await?;
        anyhow::ensure!(response.status().is_success(), "{url}: {}", response.status());
        response.bytes().await?;
        ran.fetch_add(20, Ordering::Relaxed);
    }
    Ok(())
}

async fn sample(pids: &[(&str, u32)], until: Instant, every: Duration, ran: &AtomicU64) -> anyhow::Result<Vec<Sample>> {
    let started = Instant::now();
    let mut samples = Vec::new();
    while Instant::now() < until {
        tokio::time::sleep(every.min(until.saturating_duration_since(Instant::now()))).await;
        let resident: Vec<u64> = pids.iter().map(|(_, pid)| resident(*pid).map(|r| r.0)).collect::<Result<_, _>>()?;
        let shown: Vec<String> =
            pids.iter().zip(&resident).map(|((name, _), r)| format!("{name} {}", mb(*r))).collect();
        let at = started.elapsed();
        println!("{:>5} s  {} runs  {}", at.as_secs(), ran.load(Ordering::Relaxed), shown.join(", "));
        samples.push(Sample { at, resident });
    }
    Ok(samples)
}

/// Each process's peak during the warm-up, its lowest, highest and last
/// after it, and the least-squares slope after it.
fn report(pids: &[(&str, u32)], samples: &[Sample], args: &SoakArgs) {
    let warm_up = Duration::from_secs(args.minutes * 60 * args.warm_up_percent / 100);
    let (warming, after): (Vec<&Sample>, Vec<&Sample>) = samples.iter().partition(|s| s.at < warm_up);
    for (i, (name, _)) in pids.iter().enumerate() {
        let of = |s: &&Sample| s.resident[i];
        let peak = warming.iter().map(of).max().unwrap_or(0);
        let (low, high) = (after.iter().map(of).min().unwrap_or(0), after.iter().map(of).max().unwrap_or(0));
        let last = after.last().map(of).unwrap_or(0);
        println!(
            "{name}: warm-up peak {}; after the warm-up lowest {}, highest {}, last {}; slope {:+.2} MB a minute",
            mb(peak),
            mb(low),
            mb(high),
            mb(last),
            slope(&after, i) * 60.0 / 1e6
        );
    }
}

/// Bytes a second, fitted over the samples.
fn slope(samples: &[&Sample], i: usize) -> f64 {
    let n = samples.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let xs: Vec<f64> = samples.iter().map(|s| s.at.as_secs_f64()).collect();
    let ys: Vec<f64> = samples.iter().map(|s| s.resident[i] as f64).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if var == 0.0 {
        0.0
    } else {
        cov / var
    }
}
