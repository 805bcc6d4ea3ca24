//! Logging to stderr, filtered by `WINGMAN_LOG` (or `RUST_LOG`), `info` by
//! default: as text for people, or as one JSON object a line for machines
//! (`--log-format json`, see [`json`]).
//!
//! A worker executes each run inside a span that carries its `run_id` and
//! `attempt`, so every line logged while a run executes, whichever module
//! logs it (the engine, a tool, a provider), names the run: in the text
//! format as the span's prefix, in JSON as fields of the line itself.

pub mod json;

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Lines for people to read.
    #[default]
    Text,
    /// One JSON object a line, with the fields of the spans it was logged in.
    Json,
}

/// How a process logs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LogArgs {
    /// `text` for people, `json` for machines: one object a line, with
    /// `timestamp`, `level`, `target`, `message`, the line's fields and those
    /// of its spans (every line about a run carries its `run_id`).
    #[arg(long, env = "WINGMAN_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// Installs the log subscriber once.
pub fn init(format: LogFormat) {
    let filter = std::env::var("WINGMAN_LOG").or_else(|_| std::env::var("RUST_LOG")).unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => {
            use std::io::IsTerminal;
            // Colour codes only help a terminal; in a log file they are noise.
            builder.with_ansi(std::io::stderr().is_terminal()).try_init()
        }
        LogFormat::Json => {
            builder.with_ansi(false).fmt_fields(json::JsonFields).event_format(json::JsonLines).try_init()
        }
    };
}
