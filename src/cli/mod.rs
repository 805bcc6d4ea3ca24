//! The command line: server, worker, migrations and client commands.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Parser, Subcommand};
use tokio_util::sync::CancellationToken;

use anyhow::Context;

use crate::api::{ApiConfig, AuthToken, CorsPolicy};
use crate::app::{Application, ServerConfig};
use crate::config::{ConnectionArgs, DatabaseArgs, RetentionArgs, WebhookArgs, WorkerArgs};
use crate::provider::models::ModelCatalog;
use crate::store;
use crate::submit::SubmitConfig;
use crate::telemetry::{LogArgs, LogFormat};
use crate::tools::sandbox;

mod agents;
mod approvals;
mod audit;
mod client;
mod fleet;
mod format;
mod formation;
mod keys;
mod limits;
pub mod outcome;
mod owners;
mod queue;
mod remote;
mod runs;
mod schedule;
mod secrets;
mod sessions;
mod style;
mod tail;
mod tool_results;
mod transcript;
mod view;

/// Wingman: a durable job-queue orchestrator for LLM agents.
#[derive(Debug, Parser)]
#[command(name = "wingman", version)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP API with embedded workers.
    Serve(Box<ServeArgs>),
    /// Run a worker process that executes runs from the database.
    Worker(WorkerProcessArgs),
    /// Create or upgrade the database schema, then exit.
    Migrate {
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Measure throughput and latency (see docs/benchmarks.md).
    Bench(crate::bench::BenchArgs),
    /// Print the API's OpenAPI 3.1 document (what `GET /openapi.json`
    /// answers), for generating clients without a server.
    Openapi,
    #[command(flatten)]
    Client(client::ClientCommand),
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, env = "WINGMAN_ADDR", default_value = "127.0.0.1:2323")]
    addr: SocketAddr,
    /// Embedded workers; 0 for an API-only server.
    #[arg(long, env = "WINGMAN_WORKERS", default_value_t = 2)]
    workers: u32,
    /// Attempts a run gets before a run that keeps crashing its workers is failed.
    #[arg(long, env = "WINGMAN_MAX_ATTEMPTS", default_value_t = 3)]
    max_attempts: u32,
    /// The largest request body, in bytes.
    #[arg(long, env = "WINGMAN_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    max_body_bytes: usize,
    /// The largest body of a fleet run's submission, in bytes (10,000 tasks fit in the default).
    #[arg(long, env = "WINGMAN_MAX_FLEET_BODY_BYTES", default_value_t = 16 * 1024 * 1024)]
    max_fleet_body_bytes: usize,
    /// How often the event hub looks for events written by other processes
    /// when no change hint woke it, in milliseconds (hints wake it at once).
    #[arg(long, env = "WINGMAN_EVENT_POLL_MS", default_value_t = 250)]
    event_poll_ms: u64,
    #[command(flatten)]
    connections: ConnectionArgs,
    /// A host name the server answers to besides localhost, 127.0.0.1, [::1]
    /// and its --addr (a name behind a proxy, say), with any port; `*` turns
    /// the check off. Repeatable; the variable takes a comma-separated list.
    #[arg(long = "allowed-host", env = "WINGMAN_ALLOWED_HOSTS", value_delimiter = ',')]
    allowed_hosts: Vec<String>,
    #[command(flatten)]
    access: AccessArgs,
    /// A JSON file of models laid over the shipped catalogue that
    /// `GET /provider/{id}/models` answers from (docs/providers.md).
    #[arg(long, env = "WINGMAN_MODELS_FILE")]
    models_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    retention: RetentionArgs,
    #[command(flatten)]
    webhooks: WebhookArgs,
    #[command(flatten)]
    log: LogArgs,
}

/// Who may call the server, and where agents may work.
#[derive(Debug, clap::Args)]
struct AccessArgs {
    /// A token every route but /health asks for, as `Authorization: Bearer
    /// <token>`. Needed to listen on an address other than loopback.
    #[arg(long = "auth-token", env = "WINGMAN_AUTH_TOKEN", hide_env_values = true)]
    auth_token: Option<String>,
    /// Listens on a non-loopback --addr without --auth-token: anyone who
    /// reaches the port can then read every conversation and run tools.
    #[arg(long, env = "WINGMAN_INSECURE_PUBLIC", value_parser = clap::builder::BoolishValueParser::new())]
    insecure_public: bool,
    /// A directory every work_dir a client gives must resolve inside (422
    /// otherwise). Set it with --auth-token or a non-loopback --addr.
    #[arg(long, env = "WINGMAN_WORK_ROOT")]
    work_root: Option<std::path::PathBuf>,
    /// The origin (`scheme://host[:port]`) of a web UI served elsewhere that
    /// may call the API. Repeatable; the variable takes a comma-separated list.
    #[arg(long = "cors-origin", env = "WINGMAN_CORS_ORIGINS", value_delimiter = ',')]
    cors_origins: Vec<String>,
}

impl AccessArgs {
    /// Checks the settings against the address: a server others can reach
    /// needs a token unless told otherwise.
    fn check(&self, addr: SocketAddr) -> anyhow::Result<AccessConfig> {
        // An empty variable reads as unset, as it does for the client commands.
        let token = self.auth_token.as_deref().filter(|t| !t.is_empty());
        let auth_token = token.map(AuthToken::new).transpose().map_err(anyhow::Error::msg)?;
        if !addr.ip().is_loopback() && auth_token.is_none() && !self.insecure_public {
            anyhow::bail!(
                "refusing to listen on {addr} without --auth-token: anyone who reaches it could read every \
                 conversation and run tools. Set --auth-token (or WINGMAN_AUTH_TOKEN), or pass --insecure-public"
            );
        }
        let work_root = match &self.work_root {
            Some(dir) => Some(dir.canonicalize().with_context(|| format!("--work-root {}", dir.display()))?),
            None => None,
        };
        let cors = CorsPolicy::new(&self.cors_origins).map_err(anyhow::Error::msg)?;
        Ok(AccessConfig { auth_token, work_root, cors })
    }
}

/// [`AccessArgs`] checked.
struct AccessConfig {
    auth_token: Option<AuthToken>,
    work_root: Option<std::path::PathBuf>,
    cors: CorsPolicy,
}

#[derive(Debug, clap::Args)]
pub struct WorkerProcessArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    /// A name for this worker in logs.
    #[arg(long, env = "WINGMAN_WORKER_NAME")]
    name: Option<String>,
    /// Serve Prometheus metrics on this address (`GET /metrics`); off unless given.
    #[arg(long, env = "WINGMAN_METRICS_ADDR")]
    metrics_addr: Option<SocketAddr>,
    /// The token a scrape of --metrics-addr must present
    /// (`Authorization: Bearer <token>`); the server's variable, so that one
    /// setting guards both.
    #[arg(long = "auth-token", env = "WINGMAN_AUTH_TOKEN", hide_env_values = true)]
    auth_token: Option<String>,
    #[command(flatten)]
    log: LogArgs,
}

impl WorkerProcessArgs {
    /// How this worker writes its log.
    pub fn log_format(&self) -> LogFormat {
        self.log.log_format
    }
}

impl Cli {
    /// How this command writes its log: as `--log-format` says for a server
    /// or a worker, as text for the rest (they print their results to stdout).
    pub fn log_format(&self) -> LogFormat {
        match &self.command {
            Command::Serve(args) => args.log.log_format,
            Command::Worker(args) => args.log_format(),
            _ => LogFormat::Text,
        }
    }
}

/// Runs the command line.
pub async fn main(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => serve(*args).await,
        Command::Worker(args) => run_worker(args).await,
        Command::Migrate { db } => {
            store::open(&db.database_url, &db.store_options()).await?;
            println!("database at {} is up to date", db.shown());
            Ok(())
        }
        Command::Bench(args) => crate::bench::run(args).await,
        Command::Openapi => {
            let document = crate::api::openapi::stable_json(&crate::api::document());
            println!("{}", serde_json::to_string_pretty(&document)?);
            Ok(())
        }
        Command::Client(command) => client::run(command).await,
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let open_files = crate::fdlimit::raise_and_log();
    let access = args.access.check(args.addr)?;
    // Bound before the database is opened, so that a port in use creates
    // and migrates nothing.
    let listener = crate::app::bind(args.addr).await?;
    let store = store::open(&args.db.database_url, &args.db.store_options()).await?;
    let worker = worker_config(&args.worker, &args.db, format!("serve-{}", std::process::id()))?;
    let models = ModelCatalog::load(args.models_file.as_deref(), &worker.engine.pricing)?;
    let delivery = args.webhooks.config();
    let config = ServerConfig {
        api: ApiConfig {
            submit: SubmitConfig {
                data_dir: args.db.data_dir(),
                protected: worker.engine.sandbox.protected.clone(),
                work_root: access.work_root,
                max_attempts: args.max_attempts.max(1),
                webhooks: delivery.reach.clone(),
            },
            max_body_bytes: args.max_body_bytes,
            max_fleet_body_bytes: args.max_fleet_body_bytes,
            allowed_hosts: args.allowed_hosts,
            tool_sandbox: worker.engine.sandbox.mode,
            models: std::sync::Arc::new(models),
            auth_token: access.auth_token,
            cors: access.cors,
            mcp_commands: args.worker.mcp.commands(),
        },
        workers: args.workers,
        worker,
        event_poll: Duration::from_millis(args.event_poll_ms.max(1)),
        connections: args.connections.limits(open_files),
        retention: args.retention.config(),
        delivery,
    };
    let exporter = start_traces(&args.worker).await?;
    let app = Application::on(listener, store, config);
    println!("wingman listening on http://{}:{}", args.addr.ip(), app.port());
    let served = app.run_until_stopped(shutdown_signal()).await;
    stop_traces(exporter).await;
    served
}

/// Sets up the export of traces when the flags name an endpoint. The
/// exporter's HTTP client blocks, so it is made (and later shut down) on a
/// blocking thread.
async fn start_traces(args: &WorkerArgs) -> anyhow::Result<Option<crate::otel::Exporter>> {
    let endpoint = args.otlp_endpoint.clone();
    tokio::task::spawn_blocking(move || crate::otel::init(endpoint.as_deref(), "wingman")).await?
}

/// Exports the spans still buffered.
async fn stop_traces(exporter: Option<crate::otel::Exporter>) {
    if let Some(exporter) = exporter {
        let _ = tokio::task::spawn_blocking(move || exporter.shutdown()).await;
    }
}

/// Runs a standalone worker process until SIGTERM or SIGINT.
pub async fn run_worker(args: WorkerProcessArgs) -> anyhow::Result<()> {
    let store = store::open(&args.db.database_url, &args.db.store_options()).await?;
    let name = args.name.unwrap_or_else(|| format!("worker-{}", std::process::id()));
    let config = worker_config(&args.worker, &args.db, name)?;
    let wake = std::sync::Arc::new(tokio::sync::Notify::new());
    let shutdown = shutdown_signal();
    if let Some(addr) = args.metrics_addr {
        let histories = config.engine.histories.clone();
        let routes = crate::metrics::worker_routes(move || crate::metrics::Held {
            sqlite_bytes: store::memory_held_by_sqlite(),
            history: histories.size(),
        });
        let routes = match args.auth_token.as_deref().filter(|t| !t.is_empty()) {
            Some(token) => crate::api::behind_token(routes, AuthToken::new(token).map_err(anyhow::Error::msg)?),
            None => routes,
        };
        crate::metrics::serve(addr, routes, shutdown.clone()).await?;
    }
    let exporter = start_traces(&args.worker).await?;
    tokio::spawn(crate::tools::mcp::close_idle_until(config.engine.mcp.clone(), shutdown.clone()));
    let ran = crate::worker::run(store, config, wake, shutdown).await;
    stop_traces(exporter).await;
    ran
}

/// The settings of this process's workers: the flags, the price table the
/// worker records costs with, and a tool sandbox that keeps the database out
/// of reach and that this machine can provide (checked here, once).
fn worker_config(args: &WorkerArgs, db: &DatabaseArgs, name: String) -> anyhow::Result<crate::worker::WorkerConfig> {
    let mut config = args.worker_config(name);
    config.engine.pricing = std::sync::Arc::new(args.pricing()?);
    let sandbox = args.sandbox(db.database_file().into_iter().collect());
    let status = sandbox::check_at_start(&sandbox)?;
    tracing::info!(
        mode = ?status.mode,
        landlock_abi = ?status.landlock_abi,
        process_tree = status.process_tree,
        confined = status.confined,
        "tool sandbox"
    );
    config.engine.sandbox = std::sync::Arc::new(sandbox);
    Ok(config)
}

/// A token cancelled by the first SIGTERM or SIGINT; a second one exits at once.
pub fn shutdown_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let fire = token.clone();
    tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
            return;
        };
        tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
        tracing::info!("shutting down (send the signal again to stop at once)");
        fire.cancel();
        tokio::select! { _ = term.recv() => {}, _ = int.recv() => {} }
        std::process::exit(130);
    });
    token
}

/// Parses the arguments of a standalone worker binary (`wingman-worker`).
pub fn parse_worker_args() -> WorkerProcessArgs {
    #[derive(Parser)]
    #[command(name = "wingman-worker", version, about = "A Wingman worker process")]
    struct WorkerCli {
        #[command(flatten)]
        args: WorkerProcessArgs,
    }
    WorkerCli::parse().args
}
