//! The kill storm: worker processes SIGKILLed every 0.5–2 s and the server
//! twice, while multi-step runs with side effects go through the queue. No
//! run is lost or fails, no checkpointed step runs again (only the step in
//! flight at a kill may), every run's log is dense, and every log reads the
//! same over JSON pages of any size and over SSE from any `Last-Event-ID`.
//!
//! CI runs it small. The size is set from the environment, for the large
//! storm an operator would try:
//!
//! ```text
//! WINGMAN_STORM_RUNS=200 WINGMAN_STORM_WORKERS=3 cargo test --release --test kill_storm -- --nocapture
//! ```

mod common;

use std::time::{Duration, Instant};

use common::storm::storm;
use common::{assert_log_reads_agree, assert_run_survived, report_figure, step_agent, Backend, Process, TestEnv};

/// Tool steps per run, each a slow command that leaves its mark in the run's work dir.
const STEPS: usize = 6;
/// How long the whole storm may take before the test gives up.
const LIMIT: Duration = Duration::from_secs(600);

/// The storm's size: runs in the queue and worker processes alive at once.
struct Size {
    runs: usize,
    workers: usize,
}

impl Size {
    fn from_env() -> Size {
        let read = |key: &str, default: usize| std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
        Size { runs: read("WINGMAN_STORM_RUNS", 40), workers: read("WINGMAN_STORM_WORKERS", 3) }
    }
}

on_both_backends! {
async fn runs_survive_a_storm_of_worker_and_server_kills(backend: Backend) {
    let size = Size::from_env();
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_CONCURRENCY", "8");
    // A worker is killed every 0.5–2 s, so by chance a run can lose three
    // attempts in a row before its first checkpoint, which the default of 3
    // charged attempts takes for a run that kills its workers (seen twice in
    // about 50 storms on PostgreSQL). The rule itself, that only attempts
    // without progress are charged, is checked exactly from every run's
    // events (`assert_run_survived`).
    env.set("WINGMAN_MAX_ATTEMPTS", "20");
    let mut server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(step_agent(STEPS)).await;
    // One session per run, so each run's side effects land in a work dir of its own.
    let mut runs = Vec::new();
    for r in 0..size.runs {
        let work = env.path().join(format!("work-{r}"));
        let session = api.create_session(&agent, Some(&work)).await;
        runs.push((api.send(&session, "go").await, work));
    }
    let started = Instant::now();
    let mut workers: Vec<Process> = (0..size.workers).map(|_| env.worker()).collect();
    let unfinished = "SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running')";
    let tally = storm(&env, &mut server, &mut workers, unfinished, LIMIT).await;
    let elapsed = started.elapsed();
    let api = server.api();
    let mut restarts = 0;
    let mut lost_attempts = 0;
    for (run_id, work) in &runs {
        let report = assert_run_survived(&api, run_id, work, STEPS).await;
        restarts += report.restarted_calls;
        lost_attempts += report.claims - 1;
        assert_log_reads_agree(&api, run_id).await;
    }
    report_figure("kill_storm", &format!(
        "kill storm ({backend:?}): {} runs of {STEPS} steps, {} workers, {} worker kills, {} server kills, \
         {lost_attempts} attempts lost, {restarts} steps in flight run again, {:.1} s",
        size.runs, size.workers, tally.worker_kills, tally.server_kills, elapsed.as_secs_f64()
    ));
    assert_eq!(tally.server_kills, 2, "the server was killed twice during the storm");
    assert!(tally.worker_kills >= 3, "a storm, not a breeze: {} worker kills", tally.worker_kills);
}
}
