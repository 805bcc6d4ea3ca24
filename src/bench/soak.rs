//! (k) Soak: steady mixed load for a given time, every process's resident
//! memory sampled. An API-only server and two worker processes serve three
//! clients that each send a message (one `write` call of 2 KB, then a 1 KB
//! answer) and follow its SSE stream to its end, one after another, and a
//! fourth that sends fleet runs of 20 such tasks and waits for each. The
//! agent's model has a context window, as every real one has, so the three
//! long sessions are compacted as they grow. Each process's memory should
//! climb while its caches fill (SQLite's page caches, the workers' history
//! caches, the connection pools) and then stay flat: the figures are its
//! peak during the warm-up and its lowest, highest and last after it, and
//! the slope after it. Each sample also shows what the processes' `/metrics`
//! say SQLite and the history caches hold.

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
    /// How long the load lasts, in minutes (fractions are allowed).
    #[arg(long, default_value_t = 30.0)]
    minutes: f64,
    /// How often memory is sampled, in seconds.
    #[arg(long, default_value_t = 30)]
    sample_secs: u64,
    /// The share of the time counted as warm-up, in percent.
    #[arg(long, default_value_t = 20)]
    warm_up_percent: u64,
    /// The agent's context window in tokens (a 200,000-token model's by
    /// default); 0 gives it none, so that its sessions are never compacted
    /// and their histories grow for as long as the soak lasts.
    #[arg(long, default_value_t = 200_000)]
    context_window: u64,
}

/// Runs the load and prints a line per sample, then each process's figures.
pub async fn run(setup: &Setup, args: SoakArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let scrapes = [format!("127.0.0.1:{}", super::free_port()?), format!("127.0.0.1:{}", super::free_port()?)];
    let workers = [
        setup.spawn(&["worker", "--metrics-addr", &scrapes[0]], &[])?,
        setup.spawn(&["worker", "--metrics-addr", &scrapes[1]], &[])?,
    ];
    let processes = [
        Process { name: "server", pid: server.id(), metrics: format!("{base}/metrics") },
        Process { name: "worker-1", pid: workers[0].id(), metrics: format!("http://{}/metrics", scrapes[0]) },
        Process { name: "worker-2", pid: workers[1].id(), metrics: format!("http://{}/metrics", scrapes[1]) },
    ];
    let outcome = soak(setup, &base, &processes, &args).await;
    let [w1, w2] = workers;
    super::stop_all(&mut [server, w1, w2]);
    report(&processes, &outcome?, &args);
    Ok(())
}

/// A process the soak samples: its name, its pid and where it serves
/// `/metrics`.
struct Process {
    name: &'static str,
    pid: u32,
    metrics: String,
}

/// One sample: when, and each process's resident memory.
struct Sample {
    at: Duration,
    resident: Vec<u64>,
}

async fn soak(setup: &Setup, base: &str, processes: &[Process], args: &SoakArgs) -> anyhow::Result<Vec<Sample>> {
    let http = reqwest::Client::new();
    let work = super::work_dir(setup);
    std::fs::create_dir_all(&work)?;
    let script = json!([
        {"tool_calls": [{"name": "write", "input": {"path": "out.txt", "content": "x".repeat(2048)}}]},
        {"text": "y".repeat(1024)}
    ]);
    let mut options = json!({"script": script});
    if args.context_window > 0 {
        options["context_window"] = json!(args.context_window);
    }
    let agent =
        post(&http, &format!("{base}/agents"), json!({"name": "soak", "tools": ["write"], "options": options})).await?;
    let agent_id = agent["id"].as_str().context("agent id")?.to_string();
    let until = Instant::now() + Duration::from_secs_f64(args.minutes.max(0.0) * 60.0);
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
    let samples = sample(&http, processes, until, Duration::from_secs(args.sample_secs.max(1)), &ran).await;
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

async fn sample(
    http: &reqwest::Client,
    processes: &[Process],
    until: Instant,
    every: Duration,
    ran: &AtomicU64,
) -> anyhow::Result<Vec<Sample>> {
    let started = Instant::now();
    let mut samples = Vec::new();
    while Instant::now() < until {
        tokio::time::sleep(every.min(until.saturating_duration_since(Instant::now()))).await;
        let mut sizes = Vec::new();
        let mut shown = Vec::new();
        for process in processes {
            let bytes = resident(process.pid)?.0;
            let held = held(http, &process.metrics).await;
            shown.push(format!("{} {} ({held})", process.name, mb(bytes)));
            sizes.push(bytes);
        }
        let at = started.elapsed();
        println!("{:>5} s  {} runs  {}", at.as_secs(), ran.load(Ordering::Relaxed), shown.join(", "));
        samples.push(Sample { at, resident: sizes });
    }
    Ok(samples)
}

/// What a process's `/metrics` say SQLite and its history cache hold, as
/// `sqlite 31.5 MB, histories 12.0 MB in 40`.
async fn held(http: &reqwest::Client, url: &str) -> String {
    let text = match http.get(url).send().await.and_then(|r| r.error_for_status()) {
        Ok(response) => response.text().await.unwrap_or_default(),
        Err(e) => return format!("no metrics: {e}"),
    };
    let gauge = |name: &str| {
        text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse::<f64>().ok()).unwrap_or(0.0)
    };
    format!(
        "sqlite {}, histories {} in {}",
        mb(gauge("wingman_sqlite_memory_bytes") as u64),
        mb(gauge("wingman_history_cache_bytes") as u64),
        gauge("wingman_history_cache_sessions")
    )
}

/// Each process's peak during the warm-up, its lowest, highest and last
/// after it, and the least-squares slope after it.
fn report(processes: &[Process], samples: &[Sample], args: &SoakArgs) {
    let warm_up = Duration::from_secs_f64(args.minutes.max(0.0) * 60.0 * args.warm_up_percent as f64 / 100.0);
    let (warming, after): (Vec<&Sample>, Vec<&Sample>) = samples.iter().partition(|s| s.at < warm_up);
    for (i, Process { name, .. }) in processes.iter().enumerate() {
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
