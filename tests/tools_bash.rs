//! The bash tool: output, exit codes, timeouts and cancels that kill the
//! whole process group, and an environment that leaks nothing.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;
use wingman::tools::{self, ToolContext, ToolOutput};

fn setup() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

async fn bash(ctx: &ToolContext, input: serde_json::Value) -> ToolOutput {
    tools::run("bash", &input, ctx).await
}

/// True while `pid` is a live (not zombie) process.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start().chars().next();
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

/// Waits a little for `pid` to die; killing and reaping are not instant.
async fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// Reads the pid a command wrote, waiting for the file to appear.
async fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "the command never wrote {}", path.display());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn output_and_exit_codes_are_reported() {
    let (_dir, ctx) = setup();
    let ok = bash(&ctx, json!({"command": "echo hello"})).await;
    assert_eq!(ok, ToolOutput::ok("hello\n[exit code 0]"));
    let failed = bash(&ctx, json!({"command": "echo oops; exit 3"})).await;
    assert_eq!(failed, ToolOutput::error("oops\n[exit code 3]"));
    let silent = bash(&ctx, json!({"command": "true"})).await;
    assert_eq!(silent, ToolOutput::ok("[exit code 0]"));
    let signalled = bash(&ctx, json!({"command": "kill -9 $$"})).await;
    assert_eq!(signalled, ToolOutput::error("[killed by signal 9]"));
}

#[tokio::test]
async fn stdout_and_stderr_are_merged_in_order() {
    let (_dir, ctx) = setup();
    let out = bash(&ctx, json!({"command": "echo one; echo two >&2; echo three; echo four >&2"})).await;
    assert_eq!(out.output, "one\ntwo\nthree\nfour\n[exit code 0]");
}

#[tokio::test]
async fn the_command_runs_in_the_work_dir_with_home_there() {
    let (dir, ctx) = setup();
    let out = bash(&ctx, json!({"command": "pwd; echo \"$HOME\"; touch made-here"})).await;
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let lines: Vec<&str> = out.output.lines().collect();
    assert_eq!(std::fs::canonicalize(lines[0]).unwrap(), real);
    assert_eq!(std::fs::canonicalize(lines[1]).unwrap(), real);
    assert!(dir.path().join("made-here").exists());
}

#[tokio::test]
async fn the_environment_holds_no_planted_secret() {
    // Set before any command of this test runs; nothing else reads these.
    std::env::set_var("WINGMAN_TEST_SECRET", "sk-test-0123456789abcdef");
    std::env::set_var("ANTHROPIC_API_KEY", "sk-ant-planted-key");
    std::env::set_var("WINGMAN_DATABASE_URL", "sqlite:///srv/secret.db");
    let (dir, ctx) = setup();
    let out = bash(&ctx, json!({"command": "env"})).await;
    assert!(!out.is_error, "{}", out.output);
    for leaked in
        ["WINGMAN_TEST_SECRET", "sk-test-", "ANTHROPIC_API_KEY", "sk-ant-", "WINGMAN_DATABASE_URL", "secret.db"]
    {
        assert!(!out.output.contains(leaked), "{leaked} leaked into: {}", out.output);
    }
    assert!(out.output.lines().any(|l| l.starts_with("PATH=")), "{}", out.output);
    let home = format!("HOME={}", dir.path().display());
    assert!(out.output.lines().any(|l| l == home), "{}", out.output);
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_its_background_children() {
    let (dir, ctx) = setup();
    let started = Instant::now();
    let out =
        bash(&ctx, json!({"command": "sleep 1000 & echo $! > child.pid; echo started; wait", "timeout_ms": 500})).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert!(out.is_error);
    assert!(out.output.starts_with("started\n"), "{}", out.output);
    assert!(
        out.output.ends_with("[timed out after 500 ms; the command and its children were killed]"),
        "{}",
        out.output
    );
    let pid = read_pid(&dir.path().join("child.pid")).await;
    assert!(gone(pid).await, "the background sleep {pid} survived the timeout");
}

#[tokio::test]
async fn cancel_kills_a_running_command_and_its_children() {
    let (dir, ctx) = setup();
    let task_ctx = ctx.clone();
    let task = tokio::spawn(async move {
        tools::run("bash", &json!({"command": "sleep 1000 & echo $! > child.pid; sleep 1000"}), &task_ctx).await
    });
    let pid = read_pid(&dir.path().join("child.pid")).await;
    assert!(alive(pid));
    ctx.cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(5), task).await.expect("bash ignored the cancel").unwrap();
    assert!(out.is_error);
    assert!(out.output.ends_with("[cancelled; the command and its children were killed]"), "{}", out.output);
    assert!(gone(pid).await, "the background sleep {pid} survived the cancel");
}

#[tokio::test]
async fn a_finished_command_leaves_no_background_process_and_does_not_wait_for_it() {
    let (dir, ctx) = setup();
    let started = Instant::now();
    let out = bash(&ctx, json!({"command": "sleep 1000 & echo $! > child.pid; echo done"})).await;
    assert_eq!(out, ToolOutput::ok("done\n[exit code 0]"));
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    let pid = read_pid(&dir.path().join("child.pid")).await;
    assert!(gone(pid).await, "the background sleep {pid} outlived the command");
}

#[tokio::test]
async fn dropping_a_running_call_kills_its_process_group() {
    let (dir, ctx) = setup();
    let task = tokio::spawn(async move {
        tools::run("bash", &json!({"command": "sleep 1000 & echo $! > child.pid; sleep 1000"}), &ctx).await
    });
    let pid = read_pid(&dir.path().join("child.pid")).await;
    task.abort();
    let _ = task.await;
    assert!(gone(pid).await, "the background sleep {pid} outlived the dropped call");
}

#[tokio::test]
async fn long_output_keeps_its_end_with_a_note() {
    let (_dir, ctx) = setup();
    let out = bash(&ctx, json!({"command": "seq 1 5000"})).await;
    let lines: Vec<&str> = out.output.lines().collect();
    assert!(lines[0].starts_with("[output truncated: the first 3000 lines"), "{}", lines[0]);
    assert_eq!(lines[1], "3001");
    assert_eq!(lines[lines.len() - 2], "5000");
    assert_eq!(lines.len(), 2000 + 2);
}

#[tokio::test]
async fn huge_output_is_capped_in_bytes() {
    let (_dir, ctx) = setup();
    let out = bash(&ctx, json!({"command": "head -c 20000000 /dev/zero | tr '\\0' 'x'; echo; echo tail-marker"})).await;
    assert!(!out.is_error, "{}", &out.output[..200.min(out.output.len())]);
    assert!(out.output.len() < 52 * 1024, "{} bytes", out.output.len());
    // The 20 MB line cannot fit, so it is dropped whole and the next one kept.
    assert!(
        out.output.starts_with("[output truncated: the first 1 lines (20000001 bytes) were dropped"),
        "{}",
        &out.output[..120]
    );
    assert!(out.output.ends_with("tail-marker\n[exit code 0]"));
}

#[tokio::test]
async fn bad_inputs_are_clear_errors() {
    let (_dir, ctx) = setup();
    for (input, needle) in [
        (json!({}), "missing the required \"command\""),
        (json!({"command": 5}), "\"command\" must be a string"),
        (json!({"command": "true", "timeout_ms": "soon"}), "\"timeout_ms\" must be a positive integer"),
        (json!({"command": "true", "timeout_ms": 0}), "\"timeout_ms\" must be a positive integer"),
        (json!({"command": "true", "timeout_ms": -5}), "\"timeout_ms\" must be a positive integer"),
    ] {
        let out = bash(&ctx, input.clone()).await;
        assert!(out.is_error && out.output.contains(needle), "{input}: {}", out.output);
    }
    let missing = ToolContext::new("/nonexistent/wingman-test-dir");
    let out = bash(&missing, json!({"command": "true"})).await;
    assert_eq!(
        out,
        ToolOutput::error("could not start bash: the working directory /nonexistent/wingman-test-dir does not exist")
    );
}
