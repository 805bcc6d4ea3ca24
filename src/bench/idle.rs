//! (f) At rest: the CPU an API server and a worker use with nothing to do.

use std::time::{Duration, Instant};

use clap::Args;

use super::cpu::process_time as cpu_time;
use super::Setup;

#[derive(Debug, Args)]
pub struct IdleArgs {
    /// How long to measure, in seconds (after a 5 s settling time).
    #[arg(long, default_value_t = 30)]
    seconds: u64,
}

/// Starts an API-only server and a worker on an empty database, lets them
/// settle, and reports the share of a core each used over the window.
pub async fn run(setup: &Setup, args: IdleArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    super::server_url(&mut server)?;
    let worker = setup.spawn(&["worker"], &[])?;
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (server_pid, worker_pid) = (server.id(), worker.id());
    let before = (cpu_time(server_pid)?, cpu_time(worker_pid)?);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let wall = started.elapsed().as_secs_f64();
    let share = |now: Duration, then: Duration| (now - then).as_secs_f64() * 100.0 / wall;
    let (server_share, worker_share) = (share(cpu_time(server_pid)?, before.0), share(cpu_time(worker_pid)?, before.1));
    super::stop_all(&mut [server, worker]);
    println!(
        "at rest over {:.0} s: API server {server_share:.2} % of a core, worker {worker_share:.2} % of a core",
        wall
    );
    Ok(())
}
