//! Logging to stderr, filtered by `WINGMAN_LOG` (or `RUST_LOG`), `info` by default.

/// Installs the log subscriber once.
pub fn init() {
    let filter = std::env::var("WINGMAN_LOG").or_else(|_| std::env::var("RUST_LOG")).unwrap_or_else(|_| "info".into());
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        // Colour codes only help a terminal; in a log file they are noise.
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}
