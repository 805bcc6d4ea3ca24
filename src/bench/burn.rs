//! (a) Burn-down of pre-enqueued one-step scripted runs by worker processes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use clap::Args;
use serde_json::json;

use super::{cpu, Setup};
use crate::domain::model::{new_id, Agent, RunInput, RunKind, RunStatus, Session};
use crate::store::{NewRun, Store};

/// Enqueues in flight at once. The store has a few connections (8 on
/// PostgreSQL): twice as many keeps each busy, where one task per run put
/// tens of thousands in the pool's queue at once, to wait there past its
/// timeout. The enqueue is not what the benchmark times.
const ENQUEUE_IN_FLIGHT: usize = 16;

#[derive(Debug, Args)]
pub struct BurnArgs {
    /// Runs to enqueue before the workers start.
    #[arg(long, default_value_t = 20_000)]
    runs: u32,
    /// Sessions the runs are spread over (runs of one session execute in order).
    #[arg(long, default_value_t = 2_000)]
    sessions: u32,
    /// Separate worker processes.
    #[arg(long, default_value_t = 1)]
    workers: u32,
    /// Runs each worker executes at once.
    #[arg(long, default_value_t = 64)]
    concurrency: u32,
}

pub async fn run(setup: &Setup, args: BurnArgs) -> anyhow::Result<()> {
    let store = setup.store().await?;
    let now = Utc::now();
    let agent = Agent {
        id: new_id(),
        name: "bench".into(),
        owner: crate::domain::model::first_admin(),
        shared: false,
        provider: "scripted".into(),
        model: "echo".into(),
        options: Default::default(),
        instructions: None,
        tools: vec![],
        output_schema: None,
        max_steps: 5,
        guards: Default::default(),
        approve_tools: Vec::new(),
        http_tools: Vec::new(),
        client_tools: Vec::new(),
        mcp_servers: Vec::new(),
        reasoning: Default::default(),
        reasoning_byte_limit: crate::domain::model::DEFAULT_REASONING_BYTE_LIMIT,
        compaction: Default::default(),
        subagents: Vec::new(),
        max_depth: crate::domain::subagent::DEFAULT_MAX_DEPTH,
        webhook: None,
        concurrency: None,
        limits: None,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    store.insert_agent(&agent).await?;
    let work = super::work_dir(setup).to_string_lossy().into_owned();
    let mut sessions = Vec::new();
    for _ in 0..args.sessions.max(1) {
        let session = Session {
            id: new_id(),
            owner: crate::domain::model::first_admin(),
            agent_id: Some(agent.id.clone()),
            title: None,
            work_dir: work.clone(),
            metadata: json!({}),
            added_tools: Default::default(),
            forked_from: None,
            created_at: now,
            updated_at: now,
        };
        store.insert_session(&session).await?;
        sessions.push(session.id);
    }
    let started = Instant::now();
    enqueue_all(&store, &agent, &sessions, args.runs).await?;
    println!(
        "enqueued {} runs over {} sessions in {:.2} s",
        args.runs,
        sessions.len(),
        started.elapsed().as_secs_f64()
    );
    let concurrency = args.concurrency.to_string();
    let database_before = crate::store::is_postgres(&setup.db).then(|| cpu::named_time("postgres"));
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..args.workers {
        workers.push(setup.spawn(&["worker"], &[("WINGMAN_CONCURRENCY", &concurrency)])?);
    }
    loop {
        // Whether a run is ready to claim is one probe of the ready runs'
        // index; counting the runs is left for the end, when none is ready.
        // Counting every 50 ms throughout read a growing share of the runs'
        // rows each time: a tenth of PostgreSQL's time in a 20,000-run
        // burn-down with four workers, taken from the workers measured.
        if !store.has_claimable().await? {
            let left = store.queue_stats().await?;
            if left.queued + left.running == 0 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    let database = database_before.map(|before| cpu::named_time("postgres").saturating_sub(before));
    let mut worker_time = Duration::ZERO;
    for worker in &workers {
        worker_time += cpu::process_time(worker.id())?;
    }
    super::stop_all(&mut workers);
    let succeeded = store.count_runs(RunStatus::Succeeded).await?;
    anyhow::ensure!(succeeded == args.runs as u64, "only {succeeded} of {} runs succeeded", args.runs);
    println!(
        "burn-down: {} one-step runs, {} worker process(es) x concurrency {}: {:.2} s, {:.0} runs/s",
        args.runs,
        args.workers,
        args.concurrency,
        elapsed.as_secs_f64(),
        args.runs as f64 / elapsed.as_secs_f64()
    );
    print_cpu_per_run(args.runs, worker_time, database);
    Ok(())
}

/// Enqueues `runs` one-step runs of `agent`, spread over `sessions` in turn,
/// with at most [`ENQUEUE_IN_FLIGHT`] enqueues under way.
async fn enqueue_all(store: &Arc<dyn Store>, agent: &Agent, sessions: &[String], runs: u32) -> anyhow::Result<()> {
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..runs {
        if tasks.len() >= ENQUEUE_IN_FLIGHT {
            if let Some(done) = tasks.join_next().await {
                done??;
            }
        }
        let (store, agent) = (store.clone(), agent.clone());
        let session = sessions[i as usize % sessions.len()].clone();
        tasks.spawn(async move {
            let run = NewRun {
                id: new_id(),
                kind: RunKind::Message,
                session_id: Some(session),
                agent,
                input: RunInput::new(format!("message {i}"), Default::default()),
                work_dir: String::new(),
                max_attempts: 3,
                strategy: Default::default(),
                from_past: None,
            };
            store.enqueue_run(run, None).await
        });
    }
    while let Some(done) = tasks.join_next().await {
        done??;
    }
    Ok(())
}

/// The CPU a run cost the worker processes (their whole lives) and, on
/// PostgreSQL, this machine's `postgres` processes over the burn-down (a
/// remote server's does not show; with SQLite the database is the workers').
fn print_cpu_per_run(runs: u32, workers: Duration, database: Option<Duration>) {
    let per_run = |time: Duration| time.as_secs_f64() * 1e6 / runs.max(1) as f64;
    match database {
        Some(database) if !database.is_zero() => println!(
            "CPU per run: worker processes {:.0} µs, postgres processes on this machine {:.0} µs",
            per_run(workers),
            per_run(database)
        ),
        _ => println!("CPU per run: worker processes {:.0} µs", per_run(workers)),
    }
}
