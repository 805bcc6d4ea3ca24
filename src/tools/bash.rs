//! `bash {command, timeout_ms?}`: a shell command in the work_dir.
//!
//! The command runs in a process tree of its own ([`super::sandbox`]): when
//! it ends, times out or is cancelled, or its worker dies, everything it
//! started is killed, background and `setsid` children included. Where the
//! kernel allows, it is confined to its work_dir and a private temporary
//! directory (Landlock) without privileges. stdout and stderr share one pipe,
//! so their output is merged in the order it was written. The environment is
//! rebuilt from an allowlist and the agent's `tool_env`: no provider key or
//! server setting leaks in.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use super::args;
use super::output::Tail;
use super::sandbox::{self, contain, Prepared};
use super::{ToolContext, ToolOutput};

/// The timeout when none is given: two minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest timeout allowed: ten minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// Variables passed through from the worker's environment; nothing else is.
/// `TMPDIR` is the call's own private directory.
const ENV_ALLOWLIST: &[&str] = &["PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "TZ", "USER", "LOGNAME"];
/// How long output still in the pipe is read after the group is killed.
const DRAIN_GRACE: Duration = Duration::from_millis(500);

/// How the shell ended.
enum Outcome {
    Exited(std::io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

/// Runs the command.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let command = match args::string(input, "command") {
        Ok(c) => c,
        Err(e) => return e,
    };
    let timeout_ms = match timeout_ms(input) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if !ctx.work_dir.is_dir() {
        return ToolOutput::error(format!(
            "could not start bash: the working directory {} does not exist",
            ctx.work_dir.display()
        ));
    }
    let prepared = match sandbox::prepare(&ctx.sandbox, &ctx.work_dir) {
        Ok(prepared) => prepared,
        Err(e) => return ToolOutput::error(format!("could not start bash: preparing its sandbox failed: {e}")),
    };
    let (mut child, receiver) = match spawn(command, ctx, &prepared) {
        Ok(started) => started,
        Err(e) => return ToolOutput::error(format!("could not start bash: {e}")),
    };
    // From here on, dropping this (even if this future is dropped) kills the group.
    let group = child.id().map(ProcessGroup);
    let tail = Arc::new(Mutex::new(Tail::default()));
    let mut reader = tokio::spawn(tracing::Instrument::in_current_span(read_into(receiver, tail.clone())));
    let outcome = tokio::select! {
        status = child.wait() => Outcome::Exited(status),
        _ = tokio::time::sleep(Duration::from_millis(timeout_ms)) => Outcome::TimedOut,
        _ = ctx.cancel.cancelled() => Outcome::Cancelled,
    };
    drop(group);
    if !matches!(outcome, Outcome::Exited(_)) {
        // Reap the killed shell so that it leaves no zombie.
        let _ = child.wait().await;
    }
    if tokio::time::timeout(DRAIN_GRACE, &mut reader).await.is_err() {
        // A process that left the group still holds the pipe; stop reading.
        reader.abort();
    }
    let text = tail.lock().unwrap_or_else(|p| p.into_inner()).render();
    finish(text, outcome, timeout_ms)
}

/// The timeout asked for, or the default, capped at the maximum.
fn timeout_ms(input: &Value) -> Result<u64, ToolOutput> {
    Ok(args::opt_positive(input, "timeout_ms")?.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_TIMEOUT_MS))
}

/// Starts `bash -c command` in the work_dir, in a new process group and the
/// prepared sandbox, with a clean environment and stdout and stderr on one pipe.
fn spawn(command: &str, ctx: &ToolContext, prepared: &Prepared) -> std::io::Result<(Child, pipe::Receiver)> {
    let (read_end, write_end) = std::io::pipe()?;
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&ctx.work_dir)
        .env_clear()
        .env("HOME", &ctx.work_dir)
        .env("PATH", sandbox::DEFAULT_PATH)
        .stdin(Stdio::null())
        .stdout(write_end.try_clone()?)
        .stderr(write_end)
        .process_group(0)
        .kill_on_drop(true);
    for key in ENV_ALLOWLIST {
        if let Some(value) = std::env::var_os(key) {
            cmd.env(key, value);
        }
    }
    if let Some(path) = &prepared.path {
        cmd.env("PATH", path);
    }
    cmd.env("TMPDIR", prepared.tmp_dir());
    cmd.envs(ctx.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let plan = prepared.plan;
    // SAFETY: the closure runs between fork and exec and makes only
    // async-signal-safe calls (see sandbox::contain).
    unsafe { cmd.pre_exec(move || contain::in_child(&plan)) };
    let child = cmd.spawn()?;
    // `cmd` holds our copies of the write end; they must close for the
    // reader to see end of file once the group is gone.
    drop(cmd);
    let receiver = pipe::Receiver::from_owned_fd(read_end.into())?;
    Ok((child, receiver))
}

/// Reads the merged output until every writer has closed the pipe.
async fn read_into(mut receiver: pipe::Receiver, tail: Arc<Mutex<Tail>>) {
    let mut chunk = vec![0u8; 16 * 1024];
    while let Ok(n) = receiver.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        tail.lock().unwrap_or_else(|p| p.into_inner()).push(&chunk[..n]);
    }
}

/// The result: the output, then how the command ended.
fn finish(text: String, outcome: Outcome, timeout_ms: u64) -> ToolOutput {
    let (status, ok) = match outcome {
        Outcome::Exited(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => (format!("[exit code {code}]"), code == 0),
            (None, Some(signal)) => (format!("[killed by signal {signal}]"), false),
            (None, None) => ("[exit status unknown]".to_string(), false),
        },
        Outcome::Exited(Err(e)) => (format!("[waiting for bash failed: {e}]"), false),
        Outcome::TimedOut => {
            (format!("[timed out after {timeout_ms} ms; the command and its children were killed]"), false)
        }
        Outcome::Cancelled => ("[cancelled; the command and its children were killed]".to_string(), false),
    };
    let body = if text.is_empty() { status } else { format!("{text}\n{status}") };
    if ok {
        ToolOutput::ok(body)
    } else {
        ToolOutput::error(body)
    }
}

/// A process group that is killed, all of it, when this is dropped.
struct ProcessGroup(u32);

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // A pgid of 0 or 1 would signal our own group or init; never send those.
        let Ok(pgid) = libc::pid_t::try_from(self.0) else { return };
        if pgid > 1 {
            // SAFETY: kill(2) with a negative pid signals a process group; it
            // has no memory-safety requirements.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_timeout_defaults_to_two_minutes_and_is_capped_at_ten() {
        assert_eq!(timeout_ms(&json!({})).unwrap(), 120_000);
        assert_eq!(timeout_ms(&json!({"timeout_ms": 5})).unwrap(), 5);
        assert_eq!(timeout_ms(&json!({"timeout_ms": 3_600_000u64})).unwrap(), 600_000);
        assert!(timeout_ms(&json!({"timeout_ms": 1.5})).is_err());
    }
}
