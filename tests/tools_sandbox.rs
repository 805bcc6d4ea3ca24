//! The bash tool's sandbox, from inside: what a command can read, write,
//! see and hold. The Landlock checks run where the kernel has Landlock and
//! say so where it does not.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use wingman::tools::sandbox::contain::ProcessTree;
use wingman::tools::sandbox::{self, landlock, SandboxConfig, SandboxMode};
use wingman::tools::{self, ToolContext, ToolOutput};

/// A work_dir inside a temporary base, with a file beside it (outside).
struct Fixture {
    _base: tempfile::TempDir,
    work: PathBuf,
    outside: PathBuf,
    ctx: ToolContext,
}

fn fixture() -> Fixture {
    let base = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(base.path()).unwrap();
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let outside = root.join("outside.txt");
    std::fs::write(&outside, "OUTSIDE SECRET\n").unwrap();
    let ctx = ToolContext::new(&work);
    Fixture { _base: base, work, outside, ctx }
}

async fn bash(ctx: &ToolContext, command: &str) -> ToolOutput {
    tools::run("bash", &json!({"command": command}), ctx).await
}

fn landlock_or_skip(test: &str) -> bool {
    let available = landlock::abi().is_some();
    let required = std::env::var("WINGMAN_TEST_SANDBOX").is_ok_and(|v| v == "required");
    assert!(available || !required, "{test}: WINGMAN_TEST_SANDBOX=required, but this kernel has no Landlock");
    if !available {
        eprintln!("{test}: skipped, this kernel has no Landlock (the fallback is documented in docs/tools.md)");
    }
    available
}

#[tokio::test]
async fn reads_outside_the_allowed_paths_fail() {
    if !landlock_or_skip("reads_outside_the_allowed_paths_fail") {
        return;
    }
    let f = fixture();
    for path in ["/etc/shadow", "/root/.bashrc", f.outside.to_str().unwrap(), "../outside.txt"] {
        let out = bash(&f.ctx, &format!("cat {path}")).await;
        assert!(out.is_error, "{path} was readable: {}", out.output);
        assert!(!out.output.contains("OUTSIDE SECRET") && !out.output.contains("root:"), "{}", out.output);
    }
    let listing = bash(&f.ctx, "ls /root /home /var 2>&1; echo end").await;
    assert!(listing.output.contains("Permission denied"), "{}", listing.output);
    // What a shell needs still works: programs, libraries, users, time zones, devices.
    let ok =
        bash(&f.ctx, "ls /usr/bin >/dev/null && grep -c root /etc/passwd && date -u +%Y >/dev/null && echo fine").await;
    assert!(!ok.is_error && ok.output.contains("fine"), "{}", ok.output);
}

#[tokio::test]
async fn writes_land_only_in_the_work_dir_and_a_private_tmp() {
    if !landlock_or_skip("writes_land_only_in_the_work_dir_and_a_private_tmp") {
        return;
    }
    let f = fixture();
    for command in [
        format!("echo x >> {}", f.outside.display()),
        "echo x > ../escaped.txt".to_string(),
        "mkdir /usr/wingman-test".to_string(),
        "echo x > /etc/wingman-test".to_string(),
    ] {
        let out = bash(&f.ctx, &command).await;
        assert!(out.is_error, "{command} succeeded: {}", out.output);
    }
    assert!(!f.work.parent().unwrap().join("escaped.txt").exists() && !Path::new("/etc/wingman-test").exists());
    assert_eq!(std::fs::read_to_string(&f.outside).unwrap(), "OUTSIDE SECRET\n");
    // /tmp itself is not the shell's: $TMPDIR, a private directory of the call, is.
    let name = format!("wingman-sandbox-{}", wingman::domain::model::new_id());
    let out = bash(&f.ctx, &format!("echo t > /tmp/{name}")).await;
    assert!(out.is_error && !Path::new("/tmp").join(&name).exists(), "{}", out.output);
    let command = format!(
        "echo in > inside.txt && mkdir -p a/b && mv inside.txt a/b/ && echo t > \"$TMPDIR/{name}\" \
         && cat \"$TMPDIR/{name}\" && echo \"$TMPDIR\" && ls -ld \"$TMPDIR\" | cut -c1-10"
    );
    let out = bash(&f.ctx, &command).await;
    assert!(!out.is_error, "{}", out.output);
    assert!(f.work.join("a/b/inside.txt").exists());
    let lines: Vec<&str> = out.output.lines().collect();
    let tmp = PathBuf::from(lines[1]);
    assert_eq!(lines[2], "drwx------", "only the tool's user may enter it");
    assert!(tmp.starts_with(std::env::temp_dir()) && !tmp.exists(), "{tmp:?} is removed after the call");
    // Shared memory (POSIX semaphores, multiprocessing) is the tool's own where it has a mount namespace.
    if sandbox::status(SandboxMode::Auto).process_tree != "process_group" {
        let out = bash(&f.ctx, &format!("echo s > /dev/shm/{name} && cat /dev/shm/{name}")).await;
        assert_eq!(out.output, "s\n[exit code 0]");
        assert!(!Path::new("/dev/shm").join(&name).exists(), "the tool wrote the host's /dev/shm");
    }
}

#[tokio::test]
async fn the_shell_holds_no_privilege_and_sees_only_its_own_processes() {
    let f = fixture();
    let out = bash(&f.ctx, "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status").await;
    assert!(!out.is_error, "{}", out.output);
    assert!(out.output.contains("CapEff:\t0000000000000000"), "{}", out.output);
    assert!(out.output.contains("CapBnd:\t0000000000000000"), "{}", out.output);
    assert!(out.output.contains("NoNewPrivs:\t1"), "{}", out.output);
    if sandbox::status(SandboxMode::Auto).process_tree != "process_group" {
        let out = bash(&f.ctx, "ls /proc | grep -c '^[0-9]'").await;
        let count: u32 = out.output.lines().next().unwrap().trim().parse().unwrap();
        assert!(count <= 5, "the tool's /proc shows {count} processes: {}", out.output);
        // PID 1 there is a copy of the worker: its command line is blanked.
        let out = bash(&f.ctx, "tr '\\0' ' ' < /proc/1/cmdline; echo; echo end").await;
        assert_eq!(out.output.trim_start(), "end\n[exit code 0]");
    }
}

#[tokio::test]
async fn no_process_the_shell_can_see_shows_the_workers_environment() {
    // Set before any command of this test runs; nothing else reads it.
    std::env::set_var("OPENAI_API_KEY", "sk-sandbox-planted-0123456789");
    let f = fixture();
    let out = bash(&f.ctx, "for e in /proc/[0-9]*/environ /proc/$PPID/environ; do cat $e; echo; done 2>&1; env").await;
    assert!(!out.output.contains("sk-sandbox-planted"), "a key leaked: {}", out.output);
}

#[tokio::test]
async fn the_agents_tool_env_is_added_and_read_paths_extend_the_sandbox() {
    let f = fixture();
    let extra = tempfile::tempdir().unwrap();
    std::fs::write(extra.path().join("tool.sh"), "echo from-extra-path").unwrap();
    let mut ctx = f.ctx.clone();
    ctx.env = vec![("GIT_AUTHOR_NAME".into(), "agent smith".into())];
    ctx.sandbox = Arc::new(SandboxConfig { read_paths: vec![extra.path().to_path_buf()], ..Default::default() });
    let out = bash(&ctx, &format!("echo \"$GIT_AUTHOR_NAME\"; bash {}/tool.sh", extra.path().display())).await;
    assert_eq!(out.output, "agent smith\nfrom-extra-path\n[exit code 0]");
}

#[tokio::test]
async fn no_tool_runs_in_a_work_dir_that_holds_the_database() {
    let f = fixture();
    let db = f.work.join("sub/wingman.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, "SQLite format 3").unwrap();
    let mut ctx = f.ctx.clone();
    ctx.sandbox = Arc::new(SandboxConfig { protected: vec![db.clone()], ..Default::default() });
    for (tool, input) in
        [("bash", json!({"command": "echo ran > ran.txt"})), ("read", json!({"path": "sub/wingman.db"}))]
    {
        let out = tools::run(tool, &input, &ctx).await;
        assert!(out.is_error && out.output.contains("contains Wingman's database"), "{tool}: {}", out.output);
    }
    assert!(!f.work.join("ran.txt").exists());
    assert!(sandbox::check_work_dir(&f.work.join("sub2"), std::slice::from_ref(&db)).is_ok());
    assert!(sandbox::check_work_dir(Path::new("/"), &[db]).is_err());
}

#[tokio::test]
async fn off_mode_leaves_bash_unconfined_but_still_contains_its_tree() {
    let f = fixture();
    let mut ctx = f.ctx.clone();
    ctx.sandbox = Arc::new(SandboxConfig { mode: SandboxMode::Off, ..Default::default() });
    let out = bash(&ctx, &format!("cat {}", f.outside.display())).await;
    assert_eq!(out.output, "OUTSIDE SECRET\n[exit code 0]");
}

#[tokio::test]
async fn without_a_pid_namespace_the_undumpable_worker_still_keeps_its_environment() {
    // Set before any command of this test runs; nothing else reads it.
    std::env::set_var("ANTHROPIC_API_KEY", "sk-sandbox-fallback-planted-0123");
    // What every worker does at start-up.
    sandbox::protect_worker_process();
    let f = fixture();
    let mut ctx = f.ctx.clone();
    ctx.sandbox = Arc::new(SandboxConfig { process_tree: Some(ProcessTree::ProcessGroup), ..Default::default() });
    let out = bash(&ctx, "cat /proc/$PPID/environ").await;
    assert!(!out.output.contains("sk-sandbox-fallback-planted"), "the key leaked: {}", out.output);
    assert!(out.output.contains("Permission denied"), "{}", out.output);
}
