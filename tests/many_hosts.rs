//! Wingman on several hosts, under network faults: a PostgreSQL of the
//! test's own on a bridge, the API server beside it, and a worker process on
//! each of three hosts (network namespaces). Three faults, each with its
//! figures printed: a host cut off mid-run, PostgreSQL restarted mid-run,
//! and 50 ms more on every round trip between the workers and the database.
//!
//! Needs root (namespaces) and PostgreSQL's binaries; skipped otherwise.
//! `cargo test --test many_hosts -- --nocapture` prints the figures.

mod common;
#[path = "many_hosts/delay.rs"]
mod delay;
#[path = "many_hosts/net.rs"]
mod net;
#[path = "many_hosts/postgres.rs"]
mod postgres;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{assert_run_survived, report_figure, step_agent, Api, Process, TestEnv};
use futures_util::stream::{self, StreamExt};
use serde_json::json;
use sqlx::PgPool;

const HOSTS: usize = 3;
const STEPS: usize = 6;
const LEASE: Duration = Duration::from_secs(2);
const LIMIT: Duration = Duration::from_secs(180);

/// The whole installation: hosts, database, server, one worker per host.
struct Cluster {
    network: net::Network,
    postgres: postgres::OwnPostgres,
    env: TestEnv,
    api: Api,
    db: PgPool,
    workers: Vec<Process>,
    agent: String,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_on_three_hosts_ride_out_network_faults() {
    if let Some(why) = net::unavailable() {
        eprintln!("skipped: {why}");
        return;
    }
    let Some(bin) = postgres::binaries() else {
        eprintln!("skipped: no PostgreSQL binaries under /usr/lib/postgresql");
        return;
    };
    if let Some(why) = postgres::cannot_run_as_postgres() {
        eprintln!("skipped: {why}");
        return;
    }
    let network = net::Network::build(HOSTS);
    let postgres = postgres::OwnPostgres::start(bin, &network.gateway);
    let mut env = TestEnv::new();
    env.set("WINGMAN_DATABASE_URL", &postgres.url());
    let data = env.path().to_string_lossy().into_owned();
    env.set("WINGMAN_DATA_DIR", &data);
    env.set("WINGMAN_LEASE_MS", &LEASE.as_millis().to_string());
    env.set("WINGMAN_CONCURRENCY", "4");
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(step_agent(STEPS)).await;
    let db = PgPool::connect(&postgres.url()).await.expect("connect to the test's PostgreSQL");
    let mut cluster = Cluster { network, postgres, env, api, db, workers: Vec::new(), agent };
    let url = cluster.postgres.url();
    cluster.start_workers(&url, 4);

    a_host_is_cut_off(&mut cluster).await;
    postgres_restarts(&mut cluster).await;
    every_round_trip_is_slower(&mut cluster).await;
}

impl Cluster {
    /// One worker on each host, named after it, reaching the database at `url`.
    fn start_workers(&mut self, url: &str, concurrency: u32) {
        self.workers = (0..HOSTS)
            .map(|h| {
                let on = self.network.on(h);
                let wrapper: Vec<&str> = on.iter().map(String::as_str).collect();
                let name = format!("host-{}", h + 1);
                let concurrency = concurrency.to_string();
                self.env.worker_via(
                    &wrapper,
                    &[
                        ("WINGMAN_DATABASE_URL", url),
                        ("WINGMAN_WORKER_NAME", &name),
                        ("WINGMAN_CONCURRENCY", &concurrency),
                    ],
                )
            })
            .collect();
    }

    /// Submits `n` runs of the step agent, each in a session (and work dir) of its own.
    async fn submit(&self, n: usize, tag: &str) -> Vec<(String, PathBuf)> {
        let mut runs = Vec::new();
        for r in 0..n {
            let work = self.env.path().join(format!("{tag}-{r}"));
            let session = self.api.create_session(&self.agent, Some(&work)).await;
            runs.push((self.api.send(&session, "go").await, work));
        }
        runs
    }

    /// Waits until every run is terminal, then checks each as after any crash.
    async fn all_survived(&self, runs: &[(String, PathBuf)]) -> usize {
        let mut lost_attempts = 0;
        for (run_id, work) in runs {
            self.api.wait_terminal(run_id, LIMIT).await;
            lost_attempts += assert_run_survived(&self.api, run_id, work, STEPS).await.claims - 1;
        }
        lost_attempts
    }
}

/// A number from the database, asked again while the database is away.
async fn scalar(db: &PgPool, sql: &str, arg: &str) -> i64 {
    let start = Instant::now();
    loop {
        match sqlx::query_scalar::<_, i64>(sql).bind(arg).fetch_one(db).await {
            Ok(n) => return n,
            Err(e) => assert!(start.elapsed() < LIMIT, "{sql}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Fault 1: a worker host loses its network mid-run. Its runs resume on the
/// other hosts once its lease has lapsed; when the link comes back, every
/// write it had in flight is refused, and it goes back to work.
async fn a_host_is_cut_off(cluster: &mut Cluster) {
    let runs = cluster.submit(24, "cut").await;
    // Wait until the first host holds runs that have checkpointed a result.
    let held_sql = "SELECT COUNT(*) FROM runs r JOIN workers w ON w.id = r.worker_id \
                    WHERE r.status = 'running' AND w.name = $1 AND r.progressed > 0";
    let start = Instant::now();
    while scalar(&cluster.db, held_sql, "host-1").await == 0 {
        assert!(start.elapsed() < LIMIT, "host-1 never held a run");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let held: Vec<(String, String)> = sqlx::query_as(
        "SELECT r.id, r.worker_id FROM runs r JOIN workers w ON w.id = r.worker_id \
         WHERE r.status = 'running' AND w.name = 'host-1'",
    )
    .fetch_all(&cluster.db)
    .await
    .expect("runs held by host-1");
    cluster.network.cut(0);
    let cut = Instant::now();
    let mut resumed_after = Duration::ZERO;
    for (run_id, worker_id) in &held {
        wait_taken_over(&cluster.db, run_id, worker_id).await;
        resumed_after = resumed_after.max(cut.elapsed());
    }
    // Keep the host cut off well past its lease, then bring it back.
    tokio::time::sleep((3 * LEASE).saturating_sub(cut.elapsed())).await;
    cluster.network.restore(0);
    let lost_attempts = cluster.all_survived(&runs).await;
    let refused = refused_writes(&cluster.workers[0]).await;
    report(format!(
        "fault 1, host-1 cut off for {:.1} s (lease {} ms): its {} runs resumed on other hosts within {} ms \
         of the cut; {} writes it sent late were refused; 24 runs, 0 lost, 0 failed, {lost_attempts} attempts lost",
        (3 * LEASE).as_secs_f64(),
        LEASE.as_millis(),
        held.len(),
        resumed_after.as_millis(),
        refused,
    ));
    assert!(resumed_after < 3 * LEASE, "resumed {resumed_after:?} after the cut, lease {LEASE:?}");
    // Each run it held was mid-step when the link went down, so each had a
    // write waiting to go out, which arrived once the link was back.
    assert!(refused > 0, "host-1's late writes arrived and were refused");
}

/// Waits until a run that `worker_id` held is started by another worker.
async fn wait_taken_over(db: &PgPool, run_id: &str, worker_id: &str) {
    let start = Instant::now();
    loop {
        let others: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM run_events r, json_array_elements(r.events::json) e \
             WHERE r.run_id = $1 AND e->>0 IN ('run_started', 'done') AND COALESCE(e->1->>'worker_id', '') <> $2",
        )
        .bind(run_id)
        .bind(worker_id)
        .fetch_one(db)
        .await
        .expect("read events");
        if others > 0 {
            return;
        }
        assert!(start.elapsed() < LIMIT, "run {run_id} was never taken over from {worker_id}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the cut-off worker to hear, once back, that its lease lapsed;
/// returns how many of its writes were refused for a lease no longer held.
async fn refused_writes(worker: &Process) -> usize {
    let start = Instant::now();
    loop {
        let log = worker.log_text();
        if log.contains("lease lapsed") {
            // The writes' refusals are logged as their answers arrive, a
            // few milliseconds after the heartbeat's.
            tokio::time::sleep(Duration::from_millis(500)).await;
            return worker.log_text().matches("no longer held").count();
        }
        assert!(start.elapsed() < LIMIT, "host-1's worker never heard that its lease lapsed: {log}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Fault 2: PostgreSQL restarts mid-run. The server and the workers
/// reconnect by themselves; no run is lost or stuck.
async fn postgres_restarts(cluster: &mut Cluster) {
    // A row holds a write's events, as [type, data] pairs.
    let results_sql = "SELECT COUNT(*) FROM run_events r, json_array_elements(r.events::json) e WHERE e->>0 = $1";
    let before = scalar(&cluster.db, results_sql, "tool_result").await;
    let runs = cluster.submit(24, "restart").await;
    while scalar(&cluster.db, results_sql, "tool_result").await < before + 6 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let events_sql = "SELECT COUNT(*) FROM run_events r, json_array_elements(r.events::json) e WHERE e->>0 <> $1";
    let events_before = scalar(&cluster.db, events_sql, "").await;
    let began = Instant::now();
    cluster.postgres.restart();
    let down = began.elapsed();
    while scalar(&cluster.db, events_sql, "").await <= events_before {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first_write = began.elapsed();
    let lost_attempts = cluster.all_survived(&runs).await;
    let api = &cluster.api;
    let (status, _) = api.get("/sessions").await;
    assert_eq!(status, 200, "the server answers from the restarted database");
    report(format!(
        "fault 2, PostgreSQL restarted: down {} ms; the first event written {} ms after the restart began; \
         all 24 runs finished {:.1} s after it; 0 lost, 0 failed, {lost_attempts} attempts lost",
        down.as_millis(),
        first_write.as_millis(),
        began.elapsed().as_secs_f64(),
    ));
}

/// Fault 3: 50 ms more on every round trip between the workers and the
/// database. Everything stays correct; the throughput is measured with and
/// without the delay on the same workload.
async fn every_round_trip_is_slower(cluster: &mut Cluster) {
    let echo = cluster.api.create_agent(json!({"name": "echo"})).await;
    let direct = burn_down(cluster, &echo, 300).await;
    let gateway = cluster.network.gateway.clone();
    let upstream = format!("{gateway}:{}", cluster.postgres.port);
    let port = delay::spawn(&gateway, upstream, Duration::from_millis(25)).await;
    let delayed_url = cluster.postgres.url_at(&gateway, port);
    cluster.workers.clear();
    cluster.start_workers(&delayed_url, 16);
    let runs = cluster.submit(12, "latency").await;
    let delayed = burn_down(cluster, &echo, 300).await;
    let lost_attempts = cluster.all_survived(&runs).await;
    report(format!(
        "fault 3, +50 ms per round trip between workers and PostgreSQL: 300 one-step runs burn down at \
         {direct:.0} runs/s direct (3 workers x 4) and {delayed:.0} runs/s delayed (3 workers x 16); \
         12 six-step runs correct, {lost_attempts} attempts lost"
    ));
}

/// Submits `n` one-step runs (in sessions of their own, 16 requests at a
/// time) and returns how many finished per second, from the first
/// submission to the last end.
async fn burn_down(cluster: &Cluster, agent: &str, n: usize) -> f64 {
    let api = &cluster.api;
    let sessions: Vec<String> =
        stream::iter(0..n).map(|_| api.create_session(agent, None)).buffer_unordered(16).collect().await;
    let start = Instant::now();
    let runs: Vec<String> =
        stream::iter(&sessions).map(|session| api.send(session, "ping")).buffer_unordered(16).collect().await;
    for run_id in &runs {
        let run = cluster.api.wait_terminal(run_id, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn report(line: String) {
    report_figure("many_hosts", &line);
}
