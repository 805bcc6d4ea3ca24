//! Settings, from flags and `WINGMAN_*` environment variables.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::api::serve::ConnectionLimits;
use crate::domain::commands::AllowedCommands;
use crate::domain::history::HistoryCache;
use crate::engine::LoopConfig;
use crate::services::delivery::DeliveryConfig;
use crate::services::retention::RetentionConfig;
use crate::store::StoreOptions;
use crate::tools::mcp::{McpPool, McpSettings, Reach};
use crate::tools::outside::OutsideConfig;
use crate::tools::sandbox::{SandboxConfig, SandboxMode};
use crate::tools::signature::SigningSecret;
use crate::worker::WorkerConfig;

/// The default database: `wingman.db` in [`default_data_dir`].
pub fn default_database_url() -> String {
    default_data_dir().join("wingman.db").to_string_lossy().into_owned()
}

/// The default data directory: `$XDG_DATA_HOME/wingman`, or
/// `~/.local/share/wingman` when that variable is unset, empty or relative.
pub fn default_data_dir() -> PathBuf {
    data_dir_in(std::env::var_os("XDG_DATA_HOME"), std::env::var_os("HOME"))
}

/// [`default_data_dir`] for these values of `XDG_DATA_HOME` and `HOME`. The
/// XDG base directory rule says a relative path in its variables is invalid
/// and is ignored: it would name a different directory from every working
/// directory.
fn data_dir_in(xdg_data_home: Option<OsString>, home: Option<OsString>) -> PathBuf {
    let base = match xdg_data_home.map(PathBuf::from).filter(|dir| dir.is_absolute()) {
        Some(dir) => dir,
        None => home.map(PathBuf::from).unwrap_or_else(|| PathBuf::from(".")).join(".local/share"),
    };
    base.join("wingman")
}

/// Where the database lives and how it is written.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// A SQLite file path or `sqlite:` URL, or a `postgres://` URL.
    #[arg(long, env = "WINGMAN_DATABASE_URL", default_value_t = default_database_url())]
    pub database_url: String,
    /// Where sessions created without a `work_dir` get one: beside the
    /// SQLite file by default, `$XDG_DATA_HOME/wingman` (or
    /// `~/.local/share/wingman`) with PostgreSQL.
    #[arg(long, env = "WINGMAN_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// `full` survives power loss (the default); `normal` is faster but may
    /// lose the last acknowledged writes if the machine loses power.
    #[arg(long, env = "WINGMAN_SYNCHRONOUS", default_value = "full", value_parser = ["full", "normal"])]
    pub synchronous: String,
}

impl DatabaseArgs {
    /// The store settings these flags describe.
    pub fn store_options(&self) -> StoreOptions {
        StoreOptions { synchronous_full: self.synchronous == "full" }
    }

    /// The database as messages name it: a SQLite file, or a PostgreSQL URL
    /// without its password and options.
    pub fn shown(&self) -> String {
        match self.database_file() {
            Some(file) => file.display().to_string(),
            None => match url::Url::parse(&self.database_url) {
                Ok(mut url) => {
                    let _ = url.set_password(None);
                    url.set_query(None);
                    url.set_fragment(None);
                    url.to_string()
                }
                Err(_) => "[a PostgreSQL URL that does not parse]".into(),
            },
        }
    }

    /// The SQLite database file; `None` for PostgreSQL.
    pub fn database_file(&self) -> Option<PathBuf> {
        if crate::store::is_postgres(&self.database_url) {
            return None;
        }
        let path = self.database_url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
        Some(PathBuf::from(path.split('?').next().unwrap_or(path)))
    }

    /// The data directory: `--data-dir`, else beside the SQLite file, else
    /// the default one ([`default_data_dir`]).
    pub fn data_dir(&self) -> PathBuf {
        if let Some(dir) = &self.data_dir {
            return dir.clone();
        }
        match self.database_file() {
            Some(file) => file.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from(".")),
            None => default_data_dir(),
        }
    }
}

/// How workers claim and hold runs.
#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// Export traces of runs (spans `invoke_agent`, `chat`, `execute_tool`)
    /// to this OTLP/HTTP endpoint (`/v1/traces` is added); none are made without one.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
    /// Runs executed at once by each worker.
    #[arg(long, env = "WINGMAN_CONCURRENCY", default_value_t = 16)]
    pub concurrency: u32,
    /// How long a worker's lease lasts without a heartbeat, in milliseconds.
    /// A dead worker's runs resume on another worker after about this long.
    #[arg(long, env = "WINGMAN_LEASE_MS", default_value_t = 3000)]
    pub lease_ms: u64,
    /// How often a worker looks for work when no change hint woke it, in
    /// milliseconds: hints wake it at once; the poll finds what no hint
    /// announces (a lapsed lease's runs to rescue).
    #[arg(long, env = "WINGMAN_POLL_MS", default_value_t = 250)]
    pub poll_ms: u64,
    /// How long in-flight steps may take to finish at shutdown, in milliseconds.
    #[arg(long, env = "WINGMAN_GRACE_MS", default_value_t = 10_000)]
    pub grace_ms: u64,
    /// Retries of a transient provider failure within one step.
    #[arg(long, env = "WINGMAN_PROVIDER_RETRIES", default_value_t = 4)]
    pub provider_retries: u32,
    /// The first provider retry delay in milliseconds (doubles each retry;
    /// each wait is drawn uniformly between half the delay and all of it).
    #[arg(long, env = "WINGMAN_RETRY_BASE_MS", default_value_t = 500)]
    pub retry_base_ms: u64,
    /// The decoded session histories each worker process keeps for the
    /// sessions' next runs, in MB (estimated; the least recently used go
    /// first). 0 keeps none: every run reads its session's whole history.
    #[arg(long, env = "WINGMAN_HISTORY_CACHE_MB", default_value_t = 64)]
    pub history_cache_mb: usize,
    /// A JSON file of model prices laid over the shipped ones (docs/providers.md).
    #[arg(long, env = "WINGMAN_PRICING_FILE")]
    pub pricing_file: Option<PathBuf>,
    /// Lets webfetch and HTTP tools reach loopback, private, link-local and
    /// unique-local addresses. Only for deployments that trust their agents.
    #[arg(long, env = "WINGMAN_ALLOW_PRIVATE_NETWORK", value_parser = clap::builder::BoolishValueParser::new())]
    pub allow_private_network: bool,
    /// How bash is confined: `auto` uses what the kernel offers (Landlock, PID
    /// namespaces) and warns about what it lacks; `required` refuses to start
    /// without both; `off` runs bash unconfined (docs/tools.md).
    #[arg(long, env = "WINGMAN_TOOL_SANDBOX", value_enum, default_value_t = SandboxMode::Auto)]
    pub tool_sandbox: SandboxMode,
    /// A directory bash may read and run programs from, besides the system's
    /// (a toolchain under /opt or a home directory, say). Repeatable; the
    /// variable takes a colon-separated list.
    #[arg(long = "tool-read-path", env = "WINGMAN_TOOL_READ_PATHS", value_delimiter = ':')]
    pub tool_read_paths: Vec<PathBuf>,
    #[command(flatten)]
    pub outside: OutsideArgs,
    #[command(flatten)]
    pub mcp: McpArgs,
}

/// How workers run and keep MCP servers.
#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// A program stdio MCP servers may run (`node`, `uvx`, a full path), as
    /// a definition's `command` writes it; `*` allows any. None may run
    /// without it: a declaration naming another is refused (422), and a
    /// worker refuses to start one. Read by servers and workers alike.
    /// Repeatable; the variable takes a comma-separated list.
    #[arg(long = "allow-mcp-command", env = "WINGMAN_ALLOW_MCP_COMMANDS", value_delimiter = ',')]
    pub allow_mcp_commands: Vec<String>,
    /// How long a worker keeps an MCP connection no run uses, in seconds;
    /// a stdio server ends with its connection.
    #[arg(long, env = "WINGMAN_MCP_IDLE_SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub mcp_idle_secs: u64,
    /// The most MCP connections a worker process keeps; past it, the least
    /// recently used idle one is closed.
    #[arg(long, env = "WINGMAN_MCP_MAX_CONNECTIONS", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    pub mcp_max_connections: u64,
}

impl McpArgs {
    /// The commands these flags allow.
    pub fn commands(&self) -> AllowedCommands {
        AllowedCommands::new(&self.allow_mcp_commands)
    }
}

/// How workers reach the tools agents declare outside them (HTTP tools).
#[derive(Debug, Clone, Args)]
pub struct OutsideArgs {
    /// A host that HTTP tool URLs may reach even though it is not public
    /// (`tools.internal`, `10.0.0.7`), as a URL writes it. Repeatable; the
    /// variable takes a comma-separated list.
    #[arg(long = "allow-tool-host", env = "WINGMAN_ALLOW_TOOL_HOSTS", value_delimiter = ',')]
    pub allow_tool_hosts: Vec<String>,
    /// The key HTTP tool calls are signed with (the `Wingman-Signature`
    /// header); calls go unsigned without one. Never logged or shown.
    #[arg(long, env = "WINGMAN_TOOL_SIGNING_SECRET", hide_env_values = true)]
    pub tool_signing_secret: Option<SigningSecret>,
}

impl OutsideArgs {
    /// The settings these flags describe.
    pub fn config(&self) -> OutsideConfig {
        OutsideConfig::new(&self.allow_tool_hosts, self.tool_signing_secret.clone())
    }
}

impl WorkerArgs {
    /// The price table: the shipped defaults, with the pricing file over them.
    pub fn pricing(&self) -> anyhow::Result<crate::provider::pricing::Pricing> {
        match &self.pricing_file {
            Some(path) => crate::provider::pricing::Pricing::load(path),
            None => Ok(crate::provider::pricing::Pricing::defaults()),
        }
    }

    /// The tool sandbox these flags describe; no work_dir may contain the
    /// `protected` files (the database).
    pub fn sandbox(&self, protected: Vec<PathBuf>) -> SandboxConfig {
        SandboxConfig {
            mode: self.tool_sandbox,
            read_paths: self.tool_read_paths.clone(),
            protected,
            process_tree: None,
        }
    }

    /// The worker settings these flags describe.
    pub fn worker_config(&self, name: String) -> WorkerConfig {
        let lease = Duration::from_millis(self.lease_ms.max(100));
        WorkerConfig {
            name,
            concurrency: self.concurrency.max(1),
            lease,
            heartbeat: lease / 3,
            poll: Duration::from_millis(self.poll_ms.max(1)),
            grace: Duration::from_millis(self.grace_ms),
            engine: LoopConfig {
                provider_retries: self.provider_retries,
                retry_base: Duration::from_millis(self.retry_base_ms),
                allow_private_network: self.allow_private_network,
                outside: std::sync::Arc::new(self.outside.config()),
                mcp: std::sync::Arc::new(McpPool::new(McpSettings {
                    reach: Reach { allow_private_network: self.allow_private_network, outside: self.outside.config() },
                    commands: self.mcp.commands(),
                    idle: Duration::from_secs(self.mcp.mcp_idle_secs),
                    max_connections: usize::try_from(self.mcp.mcp_max_connections).unwrap_or(usize::MAX),
                })),
                histories: std::sync::Arc::new(HistoryCache::new(self.history_cache_mb.saturating_mul(1 << 20))),
                ..LoopConfig::default()
            },
        }
    }
}

/// Where and how the server announces ends (webhooks).
#[derive(Debug, Clone, Args)]
pub struct WebhookArgs {
    /// A host that webhook URLs may reach even though it is not public
    /// (`hooks.internal`, `10.0.0.7`), as a URL writes it. Repeatable; the
    /// variable takes a comma-separated list.
    #[arg(long = "allow-webhook-host", env = "WINGMAN_ALLOW_WEBHOOK_HOSTS", value_delimiter = ',')]
    pub allow_webhook_hosts: Vec<String>,
    /// The key webhook requests are signed with (the `Wingman-Signature`
    /// header); they go unsigned without one. Never logged or shown.
    #[arg(long, env = "WINGMAN_WEBHOOK_SECRET", hide_env_values = true)]
    pub webhook_secret: Option<SigningSecret>,
    /// How long a webhook attempt may take before it counts as failed, in
    /// milliseconds.
    #[arg(long, env = "WINGMAN_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000)]
    pub webhook_timeout_ms: u64,
}

impl WebhookArgs {
    /// The deliverer's settings these flags describe.
    pub fn config(&self) -> DeliveryConfig {
        DeliveryConfig {
            reach: std::sync::Arc::new(OutsideConfig::webhooks(&self.allow_webhook_hosts, self.webhook_secret.clone())),
            timeout: Duration::from_millis(self.webhook_timeout_ms.max(1)),
            ..DeliveryConfig::default()
        }
    }
}

/// How the server holds its clients' connections.
#[derive(Debug, Clone, Args)]
pub struct ConnectionArgs {
    /// How long a client may take none of the bytes waiting for it before
    /// its connection is closed, in milliseconds: an SSE reader that stopped
    /// reading is disconnected (and resumes with Last-Event-ID) instead of
    /// holding what the server queued for it.
    #[arg(long, env = "WINGMAN_SEND_TIMEOUT_MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub send_timeout_ms: u64,
    /// How long a client has to send a whole request head, in seconds,
    /// counted from its connection (or from the first byte of a later
    /// request on it); a connection that sends nothing or half a head is
    /// closed.
    #[arg(long, env = "WINGMAN_HEADER_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,
    /// How long a connection may sit idle between requests, in seconds, and
    /// how long a request body may stall. SSE streams and answers still
    /// being sent are not idle.
    #[arg(long, env = "WINGMAN_IDLE_TIMEOUT_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout_secs: u64,
    /// The most connections the server holds at once; past it, new ones
    /// wait in the listen backlog until others close. Kept 256 below the
    /// open-file limit, for the database, files and outside tools.
    #[arg(long, env = "WINGMAN_MAX_CONNECTIONS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
}

impl ConnectionArgs {
    /// The limits these flags describe, with at most `open_files` - 256
    /// connections.
    pub fn limits(&self, open_files: Option<u64>) -> ConnectionLimits {
        let mut max = self.max_connections;
        if let Some(allowed) = open_files.map(|n| n.saturating_sub(RESERVED_FILES).max(1)) {
            if allowed < max {
                tracing::warn!(
                    max_connections = allowed,
                    asked = max,
                    "--max-connections lowered below the open-file limit"
                );
                max = allowed;
            }
        }
        ConnectionLimits {
            send_timeout: Duration::from_millis(self.send_timeout_ms),
            header_timeout: Duration::from_secs(self.header_timeout_secs),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs),
            max_connections: usize::try_from(max).unwrap_or(usize::MAX),
        }
    }
}

/// Descriptors kept for what is not a client's connection.
const RESERVED_FILES: u64 = 256;

/// How long the server keeps the logs of what has ended.
#[derive(Debug, Clone, Args)]
pub struct RetentionArgs {
    /// Delete the events and checkpoints of runs and fleet runs that ended
    /// more than this many days ago, and webhook deliveries that ended,
    /// schedule ticks and idempotency keys older than that, in small
    /// batches. The runs, their results and sessions' histories stay.
    /// Unset: everything is kept.
    #[arg(long, env = "WINGMAN_RETAIN_DAYS", value_parser = clap::value_parser!(u32).range(1..))]
    pub retain_days: Option<u32>,
    /// How often the server looks for logs to delete, in milliseconds.
    #[arg(long, env = "WINGMAN_PRUNE_INTERVAL_MS", default_value_t = 600_000)]
    pub prune_interval_ms: u64,
}

impl RetentionArgs {
    /// The pruner's settings; `None` when everything is kept.
    pub fn config(&self) -> Option<RetentionConfig> {
        let interval = Duration::from_millis(self.prune_interval_ms.max(1));
        self.retain_days.map(|days| RetentionConfig::days(days, interval))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_directory_follows_xdg_data_home_only_when_it_is_absolute() {
        let dir = |xdg: Option<&str>| data_dir_in(xdg.map(OsString::from), Some("/home/u".into()));
        assert_eq!(dir(Some("/data")), PathBuf::from("/data/wingman"));
        for ignored in [None, Some(""), Some("data")] {
            assert_eq!(dir(ignored), PathBuf::from("/home/u/.local/share/wingman"), "{ignored:?}");
        }
    }
}
