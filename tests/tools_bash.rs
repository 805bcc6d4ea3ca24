//! The bash tool: output, exit codes, timeouts and cancels that kill the
//! whole process tree (in each kind of tree this machine can make), an
//! environment that leaks nothing, and the shell state carried from call to
//! call.

mod common;

use std::time::{Duration, Instant};

use std::sync::Arc;

use common::{marked, marked_gone, marker, wait_marked};
use serde_json::json;
use tempfile::TempDir;

use wingman::domain::shell::ShellState;
use wingman::tools::sandbox::contain::{self, ProcessTree};
use wingman::tools::sandbox::SandboxConfig;
use wingman::tools::{self, ToolContext, ToolOutput};

fn setup() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

async fn bash(ctx: &ToolContext, input: serde_json::Value) -> ToolOutput {
    tools::run("bash", &input, ctx).await
}

/// Waits for `count` processes with the marker to be running.
async fn started(marker: &str, count: usize) -> Vec<i32> {
    wait_marked(marker, count, Duration::from_secs(10)).await
}

/// Waits a little for every process with the marker to die; killing and reaping are not instant.
async fn all_gone(marker: &str) -> bool {
    marked_gone(marker, Duration::from_secs(5)).await
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

/// A context for each process tree this machine can make: PID namespaces
/// where they are allowed, and the process-group fallback always.
/// Under `WINGMAN_TEST_SANDBOX=required`, a namespace must be among them.
fn tree_contexts(dir: &TempDir) -> Vec<(ProcessTree, ToolContext)> {
    let trees: Vec<ProcessTree> = [ProcessTree::PidNamespace, ProcessTree::UserNamespace, ProcessTree::ProcessGroup]
        .into_iter()
        .filter(|tree| *tree == ProcessTree::ProcessGroup || contain::available(*tree))
        .collect();
    let namespaced = trees.iter().any(|tree| *tree != ProcessTree::ProcessGroup);
    assert!(namespaced || !common::sandbox_required(), "WINGMAN_TEST_SANDBOX=required, but no namespace can be made");
    trees
        .into_iter()
        .map(|tree| {
            let mut ctx = ToolContext::new(dir.path());
            ctx.sandbox = Arc::new(SandboxConfig { process_tree: Some(tree), ..Default::default() });
            (tree, ctx)
        })
        .collect()
}

/// Background children, with a `setsid` one where the tree can hold it: a
/// new session leaves the process group, so only a namespace catches it.
fn background(tree: ProcessTree, m: &str) -> (String, usize) {
    match tree {
        ProcessTree::ProcessGroup => (format!("sleep {m} &"), 1),
        _ => (format!("sleep {m} & setsid sleep {m} &"), 2),
    }
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_its_background_children() {
    let (dir, _) = setup();
    for (tree, ctx) in tree_contexts(&dir) {
        let m = marker();
        let started_at = Instant::now();
        let command = format!("{} echo started; wait", background(tree, &m).0);
        let out = bash(&ctx, json!({"command": command, "timeout_ms": 500})).await;
        assert!(started_at.elapsed() < Duration::from_secs(5), "{tree:?} took {:?}", started_at.elapsed());
        assert!(out.is_error);
        assert!(out.output.starts_with("started\n"), "{tree:?}: {}", out.output);
        assert!(
            out.output.ends_with("[timed out after 500 ms; the command and its children were killed]"),
            "{tree:?}: {}",
            out.output
        );
        assert!(all_gone(&m).await, "{tree:?}: a background sleep survived the timeout: {:?}", marked(&m));
    }
}

#[tokio::test]
async fn cancel_kills_a_running_command_and_its_children() {
    let (dir, _) = setup();
    for (tree, ctx) in tree_contexts(&dir) {
        let m = marker();
        let (children, count) = background(tree, &m);
        let command = format!("{children} sleep {m}");
        let task_ctx = ctx.clone();
        let task = tokio::spawn(async move { tools::run("bash", &json!({"command": command}), &task_ctx).await });
        started(&m, count + 1).await;
        ctx.cancel.cancel();
        let out = tokio::time::timeout(Duration::from_secs(5), task).await.expect("bash ignored the cancel").unwrap();
        assert!(out.is_error);
        assert!(out.output.ends_with("[cancelled; the command and its children were killed]"), "{}", out.output);
        assert!(all_gone(&m).await, "{tree:?}: a background sleep survived the cancel: {:?}", marked(&m));
    }
}

#[tokio::test]
async fn a_finished_command_leaves_no_background_process_and_does_not_wait_for_it() {
    let (dir, _) = setup();
    for (tree, ctx) in tree_contexts(&dir) {
        let m = marker();
        let started_at = Instant::now();
        let out = bash(&ctx, json!({"command": format!("{} echo done", background(tree, &m).0)})).await;
        assert_eq!(out, ToolOutput::ok("done\n[exit code 0]"), "{tree:?}");
        assert!(started_at.elapsed() < Duration::from_secs(5), "{tree:?} took {:?}", started_at.elapsed());
        assert!(all_gone(&m).await, "{tree:?}: a background sleep outlived the command: {:?}", marked(&m));
    }
}

#[tokio::test]
async fn dropping_a_running_call_kills_its_process_tree() {
    let (dir, _) = setup();
    for (tree, ctx) in tree_contexts(&dir) {
        let m = marker();
        let (children, count) = background(tree, &m);
        let command = format!("{children} sleep {m}");
        let task = tokio::spawn(async move { tools::run("bash", &json!({"command": command}), &ctx).await });
        started(&m, count + 1).await;
        task.abort();
        let _ = task.await;
        assert!(all_gone(&m).await, "{tree:?}: a background sleep outlived the dropped call: {:?}", marked(&m));
    }
}

#[tokio::test]
async fn exit_statuses_pass_through_every_process_tree() {
    let (dir, _) = setup();
    for (tree, ctx) in tree_contexts(&dir) {
        assert_eq!(bash(&ctx, json!({"command": "echo hi; exit 7"})).await, ToolOutput::error("hi\n[exit code 7]"));
        assert_eq!(bash(&ctx, json!({"command": "kill -9 $$"})).await, ToolOutput::error("[killed by signal 9]"));
        let out = bash(&ctx, json!({"command": "touch made && id -u && ls -n made | cut -d' ' -f3"})).await;
        // The tool keeps the worker's user, inside a user namespace too.
        let uid = unsafe { libc::getuid() }.to_string();
        assert_eq!(out.output, format!("{uid}\n{uid}\n[exit code 0]"), "{tree:?}");
    }
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

/// Runs a command from a carried shell state, as a worker does.
async fn from_state(ctx: &ToolContext, state: ShellState, command: &str) -> ToolOutput {
    let mut ctx = ctx.clone();
    ctx.shell = Some(state);
    bash(&ctx, json!({"command": command, "timeout_ms": 10_000})).await
}

#[tokio::test]
async fn the_directory_and_exported_variables_carry_to_the_next_call_in_every_process_tree() {
    let (dir, _) = setup();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    for (tree, ctx) in tree_contexts(&dir) {
        let fresh = from_state(&ctx, ShellState::default(), "true").await;
        assert_eq!(fresh.shell, Some(ShellState::default()), "{tree:?}: a shell that changed nothing carries nothing");
        let first = from_state(
            &ctx,
            ShellState::default(),
            "mkdir -p sub/deeper && cd sub && export X=1 Y='two words'; echo ok",
        )
        .await;
        assert_eq!(first.output, "ok\n[exit code 0]", "{tree:?}: the output is the command's alone");
        let state = first.shell.unwrap();
        assert_eq!(state.dir, "sub", "{tree:?}");
        assert_eq!((state.vars["X"].as_str(), state.vars["Y"].as_str()), ("1", "two words"), "{tree:?}: {state:?}");
        let second = from_state(&ctx, state, "pwd; echo \"$X|$Y\"; unset X; cd deeper").await;
        let lines: Vec<&str> = second.output.lines().collect();
        assert_eq!(lines[..2], [real.join("sub").to_str().unwrap(), "1|two words"], "{tree:?}");
        let state = second.shell.unwrap();
        assert_eq!(state.dir, "sub/deeper", "{tree:?}");
        assert!(
            !state.vars.contains_key("X") && state.vars.contains_key("Y"),
            "{tree:?}: unset X is carried: {state:?}"
        );
        let third = from_state(&ctx, state, "echo ${X-none}; pwd").await;
        assert_eq!(third.output, format!("none\n{}\n[exit code 0]", real.join("sub/deeper").display()), "{tree:?}");
    }
}

#[tokio::test]
async fn a_directory_outside_the_work_dir_is_not_carried_and_the_result_says_so() {
    let (dir, ctx) = setup();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let in_sub = ShellState { dir: "sub".into(), ..Default::default() };
    for command in ["cd /", "cd ../.."] {
        let out = from_state(&ctx, in_sub.clone(), &format!("{command}; export Z=1")).await;
        assert!(!out.is_error, "{}", out.output);
        assert!(
            out.output.contains("outside the work_dir: that is not carried over; the next call starts in sub"),
            "{}",
            out.output
        );
        let state = out.shell.unwrap();
        assert_eq!((state.dir.as_str(), state.vars["Z"].as_str()), ("sub", "1"), "the variables still carry");
    }
    // A saved directory that is gone is not where the call starts either.
    let gone = ShellState { dir: "gone".into(), ..Default::default() };
    let out = from_state(&ctx, gone, "pwd").await;
    assert!(out.output.contains("where the last call ended is gone"), "{}", out.output);
    assert_eq!(out.shell.unwrap().dir, "", "it started, and ended, in the work_dir");
}

#[tokio::test]
async fn the_state_is_read_after_exit_and_never_from_a_killed_shell() {
    let (dir, ctx) = setup();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let exited = from_state(&ctx, ShellState::default(), "cd sub; echo bye; exit 3").await;
    assert_eq!(exited.output, "bye\n[exit code 3]");
    assert_eq!(exited.shell.unwrap().dir, "sub", "exit ends the command, not what it did");
    let timed_out = tools::run("bash", &json!({"command": "cd sub; sleep 5", "timeout_ms": 300}), &{
        let mut ctx = ctx.clone();
        ctx.shell = Some(ShellState::default());
        ctx
    })
    .await;
    assert!(timed_out.output.contains("timed out") && timed_out.shell.is_none(), "{timed_out:?}");
    let killed = from_state(&ctx, ShellState::default(), "cd sub; kill -9 $$").await;
    assert_eq!((killed.output.as_str(), killed.shell), ("[killed by signal 9]", None));
    let replaced = from_state(&ctx, ShellState::default(), "cd sub; exec true").await;
    assert!(replaced.output.contains("could not be read") && replaced.shell.is_none(), "{replaced:?}");
    // Tracing and verbose modes of the command never show the worker's part.
    let traced = from_state(&ctx, ShellState::default(), "set -x; cd sub").await;
    assert_eq!(traced.output, "+ cd sub\n[exit code 0]");
    assert_eq!(traced.shell.unwrap().dir, "sub");
}
