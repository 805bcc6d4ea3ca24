//! `wingman bench`: throughput and latency figures, measured with real
//! processes (a server and separate workers on a temporary database).
//! docs/benchmarks.md records each figure with the command that produced it.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::store::ScratchDatabase;

mod answer;
mod burn;
mod cpu;
pub mod fake_provider;
mod fanout;
mod fleet;
mod formation;
mod history;
mod http;
mod idle;
mod memory;
mod ratelimit;
mod soak;
mod steps;

/// Benchmark arguments.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    which: Which,
    /// Keep the database here instead of a temporary directory.
    #[arg(long, global = true)]
    dir: Option<PathBuf>,
    /// `full` (the durable default) or `normal`.
    #[arg(long, global = true, default_value = "full", value_parser = ["full", "normal"])]
    synchronous: String,
    /// Run on PostgreSQL: the URL of a server on which the benchmark creates
    /// a database of its own (dropped when it ends) instead of a SQLite file.
    #[arg(long, global = true, env = "WINGMAN_BENCH_POSTGRES_URL")]
    postgres: Option<String>,
    /// Export the runs' traces to this OTLP/HTTP endpoint, to measure what
    /// they cost (worker processes a benchmark starts take it from the
    /// environment).
    #[arg(long, global = true, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Which {
    /// (a) Burn-down: pre-enqueue one-step scripted runs, then time worker processes draining them.
    Burndown(burn::BurnArgs),
    /// (b) Enqueue rate over HTTP against an API-only server.
    Enqueue(http::EnqueueArgs),
    /// (c) Submit → `run_started` seen on an SSE tail, with the worker in a separate process.
    Pickup(http::PickupArgs),
    /// (d) Per-step cost of an 11-step scripted tool loop, one run at a time and many in flight.
    Steps(steps::StepsArgs),
    /// (e) A fleet run: submit N one-step tasks in one request, then time worker processes draining them.
    Fleet(fleet::FleetArgs),
    /// (f) The CPU an API server and a worker use at rest.
    Idle(idle::IdleArgs),
    /// (g) Messages one after another to one session: whether a message's cost grows with its history.
    History(history::HistoryArgs),
    /// (h) A formation 1 → fleet of N → 1, submission to `done`, beside the same work as a fleet run.
    Formation(formation::FormationArgs),
    /// (i) Thousands of SSE tails on a few streaming runs: memory per tail, idle CPU, CPU per delivered event.
    Fanout(fanout::FanoutArgs),
    /// (j) A model's answer of some megabytes: the API server's peak memory on its way to a tail.
    Answer(answer::AnswerArgs),
    /// (k) Steady mixed load for a while: every process's resident memory, sampled.
    Soak(soak::SoakArgs),
    /// (l) A fleet against a local provider that admits N requests a second and answers the rest 429: provider calls, 429s and wall time, with and without declared limits.
    Ratelimit(ratelimit::RatelimitArgs),
}

/// Runs a benchmark and prints its figures.
pub async fn run(args: BenchArgs) -> anyhow::Result<()> {
    let temp;
    let dir = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            dir.clone()
        }
        None => {
            temp = TempDir::new()?;
            temp.0.clone()
        }
    };
    let database = match &args.postgres {
        Some(server) => Some(ScratchDatabase::create(server, "wingman_bench").await?),
        None => None,
    };
    let db = match &database {
        Some(database) => database.url.clone(),
        None => dir.join("bench.db").to_string_lossy().into_owned(),
    };
    let setup = Setup { db, synchronous: args.synchronous, dir: dir.clone() };
    match &database {
        Some(database) => println!("database: PostgreSQL, a fresh database {}", database.name),
        None => println!("database: {} (synchronous={})", setup.db, setup.synchronous),
    }
    let endpoint = args.otlp_endpoint.clone();
    let exporter =
        tokio::task::spawn_blocking(move || crate::otel::init(endpoint.as_deref(), "wingman-bench")).await??;
    let outcome = match args.which {
        Which::Burndown(a) => burn::run(&setup, a).await,
        Which::Enqueue(a) => http::enqueue(&setup, a).await,
        Which::Pickup(a) => http::pickup(&setup, a).await,
        Which::Steps(a) => steps::run(&setup, a).await,
        Which::Fleet(a) => fleet::run(&setup, a).await,
        Which::Idle(a) => idle::run(&setup, a).await,
        Which::History(a) => history::run(&setup, a).await,
        Which::Formation(a) => formation::run(&setup, a).await,
        Which::Fanout(a) => fanout::run(&setup, a).await,
        Which::Answer(a) => answer::run(&setup, a).await,
        Which::Soak(a) => soak::run(&setup, a).await,
        Which::Ratelimit(a) => ratelimit::run(&setup, a).await,
    };
    if let Some(exporter) = exporter {
        tokio::task::spawn_blocking(move || exporter.shutdown()).await?;
    }
    if let Some(database) = database {
        database.drop_it().await?;
    }
    outcome
}

/// Where a benchmark keeps its database.
pub struct Setup {
    /// A SQLite file, or the URL of the benchmark's PostgreSQL database.
    pub db: String,
    pub synchronous: String,
    /// The benchmark's directory (runs' work dirs go below it).
    pub dir: PathBuf,
}

impl Setup {
    /// Opens the store in this process.
    pub async fn store(&self) -> anyhow::Result<std::sync::Arc<dyn crate::store::Store>> {
        let options = crate::store::StoreOptions { synchronous_full: self.synchronous == "full" };
        crate::store::open(&self.db, &options).await
    }

    /// Starts this binary with `args` against the benchmark database.
    pub fn spawn(&self, args: &[&str], extra_env: &[(&str, &str)]) -> anyhow::Result<Child> {
        self.spawn_binary(None, args, extra_env)
    }

    /// Starts `binary` (this one when `None`: another build, to compare
    /// with) with `args` against the benchmark database.
    pub fn spawn_binary(
        &self,
        binary: Option<&std::path::Path>,
        args: &[&str],
        extra_env: &[(&str, &str)],
    ) -> anyhow::Result<Child> {
        let exe = match binary {
            Some(binary) => binary.to_path_buf(),
            None => std::env::current_exe().context("locating the wingman binary")?,
        };
        let child = Command::new(exe)
            .args(args)
            .env("WINGMAN_DATABASE_URL", &self.db)
            .env("WINGMAN_SYNCHRONOUS", &self.synchronous)
            .env("WINGMAN_LOG", "warn")
            .envs(extra_env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()?;
        Ok(child)
    }
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let path = std::env::temp_dir().join(format!("wingman-bench-{}", crate::domain::model::new_id()));
        std::fs::create_dir_all(&path)?;
        Ok(TempDir(path))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Stops child processes with SIGTERM and waits for them.
pub fn stop_all(children: &mut [Child]) {
    for child in children.iter() {
        // SAFETY: kill(2) on our own child's pid has no memory-safety requirements.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
    }
    for child in children.iter_mut() {
        let _ = child.wait();
    }
}

/// The p-th percentile of sorted durations.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// Formats a duration in milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Reads the server's first line to learn its address.
pub fn server_url(child: &mut Child) -> anyhow::Result<String> {
    use std::io::BufRead;
    let stdout = child.stdout.take().context("server stdout")?;
    let mut line = String::new();
    std::io::BufReader::new(stdout).read_line(&mut line)?;
    Ok(line.trim().rsplit(' ').next().unwrap_or_default().to_string())
}

/// A port free on loopback now, for a process that must be told its
/// address before it starts (another process may take it meanwhile, which
/// a benchmark can live with).
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A work directory for benchmark sessions.
pub fn work_dir(setup: &Setup) -> PathBuf {
    setup.dir.join("work")
}
