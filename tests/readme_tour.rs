//! The README's tour, with curl and then from the command line, run as
//! written: its blocks, read from the README itself, run in order in one bash against `wingman serve` (started
//! with the flags the README gives it, one embedded worker) and a separate
//! `wingman worker` on a temporary database; every answer the README shows
//! is checked (tests/tour_support says how). A tour edited into something
//! that does not work fails, shown here on broken copies.
//!
//! It needs bash, curl, jq, python3 and, for the MCP step, Node.js with the
//! reference MCP server that `bash .ci/mcp.sh` installs into `target/mcp`:
//! the processes run there, so `npx` finds it without the network. Without
//! them it skips with a message, and fails instead under
//! `WINGMAN_TEST_TOUR=required`.

mod common;
mod mcp_support;
mod tour_support;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Process, TestEnv};
use tour_support::Tour;

/// How long the whole tour may take.
const LIMIT: Duration = Duration::from_secs(240);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_tour_runs_as_written() {
    let Some(mcp) = tools_or_skip() else { return };
    let tour = tour_support::read(&readme()).expect("the README's tour is readable");
    if let Err(why) = run(&tour, &mcp).await {
        panic!("the README's tour failed:\n{why}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tour_whose_answer_differs_from_the_readme_fails_at_that_line() {
    let Some(mcp) = tools_or_skip() else { return };
    let shown = r#"# → 201 {"id": "…", "name": "demo","#;
    let (broken, line) = break_line(&readme(), shown, r#"# → 201 {"id": "…", "name": "dmeo","#);
    let why = run(&tour_support::read(&broken).unwrap(), &mcp).await.expect_err("a wrong answer fails");
    assert!(why.contains(&format!("README.md line {line}: the answer is not what the README shows")), "{why}");
    assert!(why.contains(r#""name":"demo""#), "the answer it got is shown: {why}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tour_that_calls_a_missing_route_fails_at_that_command() {
    let Some(mcp) = tools_or_skip() else { return };
    let (broken, line) = break_line(
        &readme(),
        "SESSION=$(curl -s localhost:2323/sessions -H",
        "SESSION=$(curl -s localhost:2323/sesions -H",
    );
    let why = run(&tour_support::read(&broken).unwrap(), &mcp).await.expect_err("a missing route fails");
    assert!(why.contains("answered HTTP 404"), "{why}");
    // bash names the line a command ends on: this one goes on for a line.
    let at = why.split("the tour stopped at the command that ends at README.md line ").nth(1);
    let at: usize = at.and_then(|a| a.split_whitespace().next()).and_then(|n| n.parse().ok()).expect(&why);
    assert!((line..line + 3).contains(&at), "stopped at {at}, broken at {line}: {why}");
}

#[test]
fn a_status_other_than_the_one_shown_and_a_shown_nothing_are_refused() {
    let readme = readme();
    let (wrong, line) =
        break_line(&readme, r#"# → 201 {"id": "…", "name": "demo","#, r#"# → 200 {"id": "…", "name": "demo","#);
    let tour = tour_support::read(&wrong).unwrap();
    let (script, _) = tour.script(1, 2);
    assert!(script.contains(&format!("__tour_check {line} 200 ")), "the status is checked");
    let agent_line = readme.lines().find(|l| l.starts_with(r#"# → 201 {"id": "…", "name": "demo","#)).unwrap();
    let (empty, line) = break_line(&readme, agent_line, "# →");
    let why = tour_support::read(&empty).err().expect("a `# →` that shows nothing is refused");
    assert!(why.contains(&format!("line {line}")), "{why}");
    assert_eq!(tour_support::pattern(r#"{"a": [1, …], "b": "x\n"}"#), r#"*{"a":\[1*\],"b":"x\\n"}*"#);
}

/// The README's text.
fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md")
}

/// The README with the first line that starts with `from` starting with
/// `to` instead, and that line's number.
fn break_line(readme: &str, from: &str, to: &str) -> (String, usize) {
    let index = readme.lines().position(|l| l.starts_with(from)).unwrap_or_else(|| panic!("no line {from:?}"));
    let lines: Vec<String> = readme
        .lines()
        .enumerate()
        .map(|(i, l)| if i == index { l.replacen(from, to, 1) } else { l.to_string() })
        .collect();
    (lines.join("\n"), index + 1)
}

/// The directory the reference MCP server is installed in, when the tour's
/// tools are all here.
fn tools_or_skip() -> Option<PathBuf> {
    let missing: Vec<&str> = ["bash", "curl", "jq", "python3", "npx"]
        .into_iter()
        .filter(|tool| {
            !Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().is_ok_and(|o| o.status.success())
        })
        .collect();
    let why = if missing.is_empty() { None } else { Some(format!("the README's tour needs {}", missing.join(", "))) };
    let required = std::env::var("WINGMAN_TEST_TOUR").as_deref() == Ok("required");
    match why {
        Some(why) if required => panic!("{why}"),
        Some(why) => {
            eprintln!("skipped: {why}");
            None
        }
        // target/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js
        None => mcp_support::everything().map(|entry| entry.ancestors().nth(5).expect("target/mcp").to_path_buf()),
    }
}

/// Runs the tour against fresh processes; `Err` says where and why it failed.
async fn run(tour: &Tour, mcp_dir: &Path) -> Result<(), String> {
    let mut env = TestEnv::new();
    // The README's flags alone say which commands MCP servers may run.
    env.unset("WINGMAN_ALLOW_MCP_COMMANDS");
    let (server, url) = serve(&env, tour, mcp_dir);
    let _worker = worker(&env, tour, mcp_dir);
    wait_for_workers(&url, 2).await;
    let port: u16 = url.rsplit(':').next().and_then(|p| p.parse().ok()).expect("the server's port");
    let (script, lines) = tour.script(port, common::free_port());
    let dir = env.path().join("tour");
    std::fs::create_dir_all(&dir).expect("the tour's directory");
    std::fs::write(dir.join("tour.sh"), &script).expect("the tour's script");
    let (ok, stderr) = run_script(&dir, &url).await;
    let checked = std::fs::read_to_string(dir.join("checked")).unwrap_or_default().lines().count();
    if ok && checked == tour.checks {
        return Ok(());
    }
    let mut why = stderr.clone();
    if let Some(line) = stopped_at(&stderr, &lines) {
        why.push_str(&format!("\nthe tour stopped at the command that ends at README.md line {line}"));
    }
    why.push_str(&format!(
        "\n{checked} of {} answers checked\n--- server log (tail)\n{}",
        tour.checks,
        tail(&server.log_text())
    ));
    Err(why)
}

/// The README line the script's error trap names, if it fired.
fn stopped_at(stderr: &str, lines: &[usize]) -> Option<usize> {
    let at = stderr.lines().find_map(|l| l.strip_prefix("the tour stopped at script line "))?;
    at.trim().parse::<usize>().ok().and_then(|n| lines.get(n - 1).copied())
}

async fn run_script(dir: &Path, url: &str) -> (bool, String) {
    let mut child = Command::new("bash")
        .arg(dir.join("tour.sh"))
        .arg(dir)
        .current_dir(dir)
        .env("PATH", path_with_wingman())
        // The command line's server, as `localhost:2323` is curl's.
        .env("WINGMAN_SERVER", url)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr")).expect("stderr file"))
        .process_group(0)
        .spawn()
        .expect("start bash");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for bash") {
            break Some(status);
        }
        if started.elapsed() > LIMIT {
            break None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // The webhook receiver and anything else the tour left running.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let _ = child.wait();
    let mut stderr = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
    if status.is_none() {
        stderr.push_str(&format!("\nthe tour did not end within {LIMIT:?}"));
    }
    (status.is_some_and(|s| s.success()), stderr)
}

/// `wingman serve` with the README's flags, on a free port, with one
/// embedded worker (the other is a process of its own).
fn serve(env: &TestEnv, tour: &Tour, mcp_dir: &Path) -> (Process, String) {
    let log = env.path().join("serve.log");
    let mut child = wingman(env, mcp_dir, &log)
        .arg("serve")
        .args(&tour.serve_args)
        .args(["--addr", "127.0.0.1:0", "--workers", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start wingman serve");
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
    let process = Process { child, log };
    assert!(url.starts_with("http://"), "the server did not start: {line:?}\n{}", process.log_text());
    (process, url)
}

/// A separate `wingman worker`, allowed the MCP commands the README allows
/// the server (workers read that setting too).
fn worker(env: &TestEnv, tour: &Tour, mcp_dir: &Path) -> Process {
    let log = env.path().join("worker.log");
    let mut allowed = Vec::new();
    for pair in tour.serve_args.windows(2) {
        if pair[0] == "--allow-mcp-command" {
            allowed.extend(["--allow-mcp-command".to_string(), pair[1].clone()]);
        }
    }
    let child = wingman(env, mcp_dir, &log)
        .arg("worker")
        .args(allowed)
        .stdout(Stdio::null())
        .spawn()
        .expect("start wingman worker");
    Process { child, log }
}

fn wingman(env: &TestEnv, mcp_dir: &Path, log: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wingman"));
    cmd.envs(env.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("WINGMAN_DATA_DIR", env.path())
        .current_dir(mcp_dir)
        .stdin(Stdio::null())
        .stderr(std::fs::File::create(log).expect("log file"));
    cmd
}

async fn wait_for_workers(url: &str, workers: u64) {
    let started = Instant::now();
    loop {
        let health: serde_json::Value = match reqwest::get(format!("{url}/health")).await {
            Ok(answer) => answer.json().await.unwrap_or_default(),
            Err(_) => serde_json::Value::Null,
        };
        if health["queue"]["workers"].as_u64() == Some(workers) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{workers} workers did not come up: {health}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// PATH with the directory of the `wingman` under test first.
fn path_with_wingman() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_wingman")).parent().unwrap().display().to_string();
    format!("{bin}:{}", std::env::var("PATH").unwrap_or_default())
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
