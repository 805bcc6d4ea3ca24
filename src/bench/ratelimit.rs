//! (l) A fleet run against a local fake provider that admits `--rate`
//! requests a second and answers the rest `429` with `retry-after: 1`:
//! how many provider calls the tasks cost, how many were refused, and how
//! long they took beside the `tasks / rate` the limit allows, with the limit
//! declared to Wingman (`PUT /provider/limits/openai`) and without.
//!
//! Each mode runs on a database of its own (a sibling SQLite file, or a
//! scratch PostgreSQL database next to the benchmark's), with a fake of its
//! own, so that nothing one mode learned (a pause, a budget) carries into
//! the next.

use std::process::Child;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use super::fake_provider::{FakeConfig, RateLimited};
use super::http::post;
use super::Setup;
use crate::store::ScratchDatabase;

/// Arguments of `wingman bench ratelimit`: by default 32 runs at once, each
/// call answered in 20 ms, could send far more than the 20 a second admitted.
#[derive(Debug, Args)]
pub struct RatelimitArgs {
    /// One-step tasks in the fleet run (one request).
    #[arg(long, default_value_t = 300)]
    tasks: u32,
    /// Requests a second the fake provider admits (and its largest burst).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    rate: u32,
    /// Separate worker processes.
    #[arg(long, default_value_t = 2)]
    workers: u32,
    /// Runs each worker executes at once.
    #[arg(long, default_value_t = 16)]
    concurrency: u32,
    /// With the limit declared to Wingman, without, or both one after the other.
    #[arg(long, value_enum, default_value_t = Mode::Both)]
    mode: Mode,
    /// The fake sends OpenAI's `x-ratelimit-*-requests` headers on every answer.
    #[arg(long)]
    headers: bool,
    /// Run the server and workers from another build of wingman, to compare
    /// with (a build without provider limits has only `--mode undeclared`).
    #[arg(long)]
    binary: Option<std::path::PathBuf>,
}

/// Which of the two configurations to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Both,
    Declared,
    Undeclared,
}

/// What one mode measured.
struct Outcome {
    status: String,
    succeeded: u64,
    failed: u64,
    calls: u64,
    rejected: u64,
    elapsed: Duration,
    /// How long another agent's message, sent three seconds into the
    /// fleet, took from its submission to its end.
    other: Duration,
    budgets: Option<Value>,
}

/// The server and workers of one mode, stopped however the mode ends.
struct Processes(Vec<Child>);

impl Drop for Processes {
    fn drop(&mut self) {
        super::stop_all(&mut self.0);
    }
}

/// Measures each mode asked for and prints a line of figures per mode, so
/// that the two can be read side by side.
pub async fn run(setup: &Setup, args: RatelimitArgs) -> anyhow::Result<()> {
    let modes: &[bool] = match args.mode {
        Mode::Both => &[false, true],
        Mode::Declared => &[true],
        Mode::Undeclared => &[false],
    };
    for &declared in modes {
        let outcome = on_fresh_database(setup, &args, declared).await?;
        report(&args, declared, &outcome);
    }
    Ok(())
}

/// Measures one mode on a database nothing else has used.
async fn on_fresh_database(setup: &Setup, args: &RatelimitArgs, declared: bool) -> anyhow::Result<Outcome> {
    let sibling = |db: String| Setup { db, synchronous: setup.synchronous.clone(), dir: setup.dir.clone() };
    if crate::store::is_postgres(&setup.db) {
        // Created through the benchmark's own database, on the same server.
        let scratch = ScratchDatabase::create(&setup.db, "wingman_bench_ratelimit").await?;
        let outcome = measure(&sibling(scratch.url.clone()), args, declared).await;
        let dropped = scratch.drop_it().await;
        let outcome = outcome?;
        dropped?;
        return Ok(outcome);
    }
    let db = setup.dir.join(format!("ratelimit-{}.db", label(declared)));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    measure(&sibling(db.to_string_lossy().into_owned()), args, declared).await
}

/// One mode: a fake, a server, the fleet run submitted, then the workers
/// started and timed until the run ends.
async fn measure(setup: &Setup, args: &RatelimitArgs, declared: bool) -> anyhow::Result<Outcome> {
    let config = FakeConfig {
        requests_per_second: args.rate,
        answer: "ok".into(),
        send_rate_limit_headers: args.headers,
        latency: Duration::from_millis(20),
    };
    let fake = RateLimited::start(config).await.context("starting the fake provider")?;
    let serve = ["serve", "--addr", "127.0.0.1:0", "--workers", "0"];
    let mut processes = Processes(vec![setup.spawn_binary(args.binary.as_deref(), &serve, &[])?]);
    let base = super::server_url(&mut processes.0[0])?;
    let http = reqwest::Client::new();
    let fleet = prepare(&http, &base, &fake, args.rate, declared).await?;
    let other_session = other_agents_session(&http, &base).await?;
    let tasks: Vec<Value> = (0..args.tasks).map(|i| json!({"message": format!("task {i}")})).collect();
    let submitted = post(&http, &format!("{base}/fleets/{fleet}/run"), json!({"tasks": tasks})).await?;
    let id = submitted["fleet_run_id"].as_str().context("the fleet run has no id")?.to_string();

    let concurrency = args.concurrency.to_string();
    let started = Instant::now();
    for _ in 0..args.workers {
        let env = [("WINGMAN_CONCURRENCY", concurrency.as_str())];
        processes.0.push(setup.spawn_binary(args.binary.as_deref(), &["worker"], &env)?);
    }
    // Generous: twenty times what the limit allows, and a minute more.
    let deadline =
        Duration::from_secs(60) + Duration::from_secs_f64(20.0 * f64::from(args.tasks) / f64::from(args.rate));
    let other = tokio::spawn(message_after(http.clone(), base.clone(), other_session, Duration::from_secs(3)));
    let run = wait_for_end(&http, &base, &id, deadline).await?;
    let elapsed = started.elapsed();
    let other = other.await??;
    let budgets = budgets(&http, &base).await;
    drop(processes);
    let count = |name: &str| run["progress"][name].as_u64().unwrap_or(0);
    Ok(Outcome {
        status: run["status"].as_str().unwrap_or_default().to_string(),
        succeeded: count("succeeded"),
        failed: count("failed"),
        calls: fake.calls(),
        rejected: fake.rejected(),
        elapsed,
        other,
        budgets,
    })
}

/// A session of another agent, on the offline `scripted` provider, whose
/// calls draw from no budget.
async fn other_agents_session(http: &reqwest::Client, base: &str) -> anyhow::Result<String> {
    let agent = post(http, &format!("{base}/agents"), json!({"name": "someone-else"})).await?;
    let session = post(http, &format!("{base}/sessions"), json!({"agent_id": agent["id"]})).await?;
    session["id"].as_str().map(String::from).context("the session has no id")
}

/// Sends one message to `session` after `delay` and answers how long it
/// took from its submission to its end.
async fn message_after(
    http: reqwest::Client,
    base: String,
    session: String,
    delay: Duration,
) -> anyhow::Result<Duration> {
    tokio::time::sleep(delay).await;
    let sent = Instant::now();
    let url = format!("{base}/sessions/{session}/message?wait=true");
    let answer = post(&http, &url, json!({"message": "hello"})).await?;
    anyhow::ensure!(answer["status"] == "succeeded", "the other agent's message did not succeed: {answer}");
    Ok(sent.elapsed())
}

/// Stores a key, declares the limit when asked, and creates the agent and
/// its fleet: answers the fleet's ID.
async fn prepare(
    http: &reqwest::Client,
    base: &str,
    fake: &RateLimited,
    rate: u32,
    declared: bool,
) -> anyhow::Result<String> {
    let key = json!({"providers": {"openai": {"type": "api_key", "key": "sk-bench-0000000000000000"}}});
    put(http, &format!("{base}/provider/auth"), key).await?;
    if declared {
        let limits = json!({"requests_per_minute": u64::from(rate) * 60});
        put(http, &format!("{base}/provider/limits/openai"), limits)
            .await
            .context("declaring the limit (this build may not serve PUT /provider/limits/{provider})")?;
    }
    let agent = json!({"name": "bench", "provider": "openai", "model": "gpt-4o-mini", "instructions": "Answer.",
        "options": {"base_url": fake.url()}});
    let agent = post(http, &format!("{base}/agents"), agent).await?;
    let fleet = post(http, &format!("{base}/fleets"), json!({"name": "bench", "agent_id": agent["id"]})).await?;
    fleet["id"].as_str().map(String::from).context("the fleet has no id")
}

/// `PUT` that reports a refusal with its status and body, even an empty or
/// non-JSON one (a route this build lacks answers 404 or 405 that way).
async fn put(http: &reqwest::Client, url: &str, body: Value) -> anyhow::Result<Value> {
    let response = http.put(url).json(&body).send().await?;
    let status = response.status();
    let text = response.text().await?;
    anyhow::ensure!(status.is_success(), "PUT {url}: {status} {text}");
    Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Polls the fleet run until it ends, or fails past `deadline`.
async fn wait_for_end(http: &reqwest::Client, base: &str, id: &str, deadline: Duration) -> anyhow::Result<Value> {
    let started = Instant::now();
    loop {
        let run: Value = http.get(format!("{base}/fleet-runs/{id}?limit=1")).send().await?.json().await?;
        if matches!(run["status"].as_str(), Some("succeeded" | "failed" | "cancelled")) {
            return Ok(run);
        }
        anyhow::ensure!(started.elapsed() < deadline, "the fleet run had not ended after {deadline:?}: {run}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `GET /queue`'s `budgets`, when this build shows them.
async fn budgets(http: &reqwest::Client, base: &str) -> Option<Value> {
    let queue: Value = http.get(format!("{base}/queue")).send().await.ok()?.json().await.ok()?;
    queue.get("budgets").filter(|b| !b.is_null()).cloned()
}

fn label(declared: bool) -> &'static str {
    if declared {
        "declared"
    } else {
        "undeclared"
    }
}

fn report(args: &RatelimitArgs, declared: bool, o: &Outcome) {
    let tasks = f64::from(args.tasks.max(1));
    let ideal = f64::from(args.tasks) / f64::from(args.rate);
    let headers = if args.headers { " with x-ratelimit headers" } else { "" };
    println!(
        "ratelimit {}: {} tasks ({} succeeded, {} failed; {}) at {}/s{headers}, {} worker(s) x {}: \
         {} provider calls ({:.2} a task), {} answered 429 ({:.1} %), {:.1} s ({:.2} x tasks/rate); \
         another agent's message sent 3 s in took {:.0} ms",
        label(declared),
        args.tasks,
        o.succeeded,
        o.failed,
        o.status,
        args.rate,
        args.workers,
        args.concurrency,
        o.calls,
        o.calls as f64 / tasks,
        o.rejected,
        o.rejected as f64 * 100.0 / (o.calls.max(1) as f64),
        o.elapsed.as_secs_f64(),
        o.elapsed.as_secs_f64() / ideal.max(f64::MIN_POSITIVE),
        o.other.as_secs_f64() * 1000.0,
    );
    if let Some(budgets) = &o.budgets {
        println!("ratelimit {}: GET /queue budgets {budgets}", label(declared));
    }
}
