//! (e) A fleet run of one-step scripted tasks: the time to submit it in one
//! request, and the rate at which worker processes drain its tasks.

use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use super::http::post;
use super::Setup;

#[derive(Debug, Args)]
pub struct FleetArgs {
    /// Tasks in the fleet run (one request).
    #[arg(long, default_value_t = 10_000)]
    tasks: u32,
    /// The fleet's cap on tasks running at once (0: none).
    #[arg(long, default_value_t = 0)]
    worker_count: u32,
    /// Separate worker processes.
    #[arg(long, default_value_t = 1)]
    workers: u32,
    /// Runs each worker executes at once.
    #[arg(long, default_value_t = 64)]
    concurrency: u32,
}

pub async fn run(setup: &Setup, args: FleetArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let http = reqwest::Client::new();
    let agent = post(&http, &format!("{base}/agents"), json!({"name": "bench"})).await?;
    let fleet = json!({"name": "bench", "agent_id": agent["id"], "worker_count": args.worker_count});
    let fleet = post(&http, &format!("{base}/fleets"), fleet).await?;
    let tasks: Vec<Value> = (0..args.tasks).map(|i| json!({"message": format!("task {i}")})).collect();
    let body = json!({"tasks": tasks});
    let started = Instant::now();
    let submitted = post(&http, &format!("{base}/fleets/{}/run", fleet["id"].as_str().unwrap_or("")), body).await?;
    let enqueue = started.elapsed();
    let id = submitted["fleet_run_id"].as_str().unwrap_or_default().to_string();
    println!("submitted {} tasks in one request: {:.0} ms", args.tasks, enqueue.as_secs_f64() * 1000.0);

    let concurrency = args.concurrency.to_string();
    let started = Instant::now();
    let mut children = vec![server];
    for _ in 0..args.workers {
        children.push(setup.spawn(&["worker"], &[("WINGMAN_CONCURRENCY", &concurrency)])?);
    }
    let status = loop {
        let run: Value = http.get(format!("{base}/fleet-runs/{id}?limit=1")).send().await?.json().await?;
        let status = run["status"].as_str().unwrap_or("").to_string();
        if matches!(status.as_str(), "succeeded" | "failed" | "cancelled") {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let elapsed = started.elapsed();
    super::stop_all(&mut children);
    println!(
        "fleet: {} one-step tasks ({status}), cap {}, {} worker process(es) x concurrency {}: {:.2} s, {:.0} tasks/s",
        args.tasks,
        args.worker_count,
        args.workers,
        args.concurrency,
        elapsed.as_secs_f64(),
        args.tasks as f64 / elapsed.as_secs_f64()
    );
    Ok(())
}
