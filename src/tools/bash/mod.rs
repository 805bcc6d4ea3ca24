//! `bash {command, timeout_ms?}`: a shell command in the work_dir.
//!
//! The command runs in a process tree of its own ([`super::sandbox`]): when
//! it ends, times out or is cancelled, or its worker dies, everything it
//! started is killed, background and `setsid` children included. Where the
//! kernel allows, it is confined to its work_dir and a private temporary
//! directory (Landlock) without privileges. stdout and stderr share one pipe,
//! so their output is merged in the order it was written. The environment is
//! rebuilt from an allowlist and the agent's `tool_env`: no provider key or
//! server setting leaks in. A worker's calls carry the session's shell from
//! one to the next ([`state`]): the directory and the exported variables.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use super::args;
use super::output::Tail;
use super::sandbox::{self, contain, Prepared};
use super::{ToolContext, ToolOutput};

mod state;

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
    let env = base_env(ctx, &prepared);
    let (carry, refused) = restore(ctx, &env, &prepared);
    let (dir, env) = match &carry {
        Some(start) => (start.dir.as_path(), &start.env),
        None => (ctx.work_dir.as_path(), &env),
    };
    let (text, outcome) = match execute(command, dir, env, &prepared, timeout_ms, &ctx.cancel).await {
        Ok(done) => done,
        Err(e) => return ToolOutput::error(format!("could not start bash: {e}")),
    };
    let exited = matches!(&outcome, Outcome::Exited(Ok(status)) if status.code().is_some());
    let mut output = finish(text, outcome, timeout_ms);
    report(&mut output, carry, refused, exited, prepared.tmp_dir());
    output
}

/// Where a call starts when its context carries a shell state: the state's
/// directory and variables. One that cannot be restored is not carried
/// (the second value says why) and the command still runs.
fn restore(
    ctx: &ToolContext,
    env: &BTreeMap<String, OsString>,
    prepared: &Prepared,
) -> (Option<state::Start>, Option<String>) {
    match ctx.shell.as_ref().map(|s| state::start(&ctx.work_dir, s, env.clone(), prepared.tmp_dir())) {
        Some(Ok(start)) => (Some(start), None),
        Some(Err(e)) => (None, Some(format!("[the shell's directory and variables are not carried: {e}]"))),
        None => (None, None),
    }
}

/// Adds to a carried call's result the state it left and the notes about
/// it, each a line after the command's status.
fn report(output: &mut ToolOutput, carry: Option<state::Start>, refused: Option<String>, exited: bool, tmp: &Path) {
    let (shell, mut notes) = match carry {
        Some(start) => state::after(start, exited, tmp),
        None => (None, Vec::new()),
    };
    notes.extend(refused);
    for note in notes {
        output.output = format!("{}\n{note}", output.output);
    }
    output.shell = shell;
}

/// Runs the shell until it ends, times out or is cancelled, and returns
/// the output it left and how it ended.
async fn execute(
    command: &str,
    dir: &Path,
    env: &BTreeMap<String, OsString>,
    prepared: &Prepared,
    timeout_ms: u64,
    cancel: &CancellationToken,
) -> std::io::Result<(String, Outcome)> {
    let (mut child, receiver) = spawn(command, dir, env, prepared)?;
    // From here on, dropping this (even if this future is dropped) kills the group.
    let group = child.id().map(ProcessGroup);
    let tail = Arc::new(Mutex::new(Tail::default()));
    let mut reader = tokio::spawn(tracing::Instrument::in_current_span(read_into(receiver, tail.clone())));
    let outcome = tokio::select! {
        status = child.wait() => Outcome::Exited(status),
        _ = tokio::time::sleep(Duration::from_millis(timeout_ms)) => Outcome::TimedOut,
        _ = cancel.cancelled() => Outcome::Cancelled,
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
    Ok((text, outcome))
}

/// The timeout asked for, or the default, capped at the maximum.
fn timeout_ms(input: &Value) -> Result<u64, ToolOutput> {
    Ok(args::opt_positive(input, "timeout_ms")?.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_TIMEOUT_MS))
}

/// The environment every call starts with: the allowlist from the worker's
/// own, `HOME` at the work_dir, `PATH` cut to what the shell may run (when
/// it is confined), the call's `TMPDIR`, and the agent's `tool_env` on top.
fn base_env(ctx: &ToolContext, prepared: &Prepared) -> BTreeMap<String, OsString> {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), ctx.work_dir.clone().into_os_string());
    env.insert("PATH".to_string(), OsString::from(sandbox::DEFAULT_PATH));
    for key in ENV_ALLOWLIST {
        if let Some(value) = std::env::var_os(key) {
            env.insert(key.to_string(), value);
        }
    }
    if let Some(path) = &prepared.path {
        env.insert("PATH".to_string(), path.clone());
    }
    env.insert("TMPDIR".to_string(), prepared.tmp_dir().as_os_str().to_owned());
    env.extend(ctx.env.iter().map(|(k, v)| (k.clone(), OsString::from(v))));
    env
}

/// Starts `bash -c command` in `dir`, in a new process group and the
/// prepared sandbox, with exactly the environment `env` and stdout and
/// stderr on one pipe.
fn spawn(
    command: &str,
    dir: &Path,
    env: &BTreeMap<String, OsString>,
    prepared: &Prepared,
) -> std::io::Result<(Child, pipe::Receiver)> {
    let (read_end, write_end) = std::io::pipe()?;
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(write_end.try_clone()?)
        .stderr(write_end)
        .process_group(0)
        .kill_on_drop(true);
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
