//! The command line as a user runs it against a real server.

mod common;

use std::io::{BufRead, BufReader};
use std::time::Duration;

use common::{assert_dense, Backend, TestEnv};
use serde_json::{json, Value};

fn id_of(output: &str) -> String {
    let value: Value = serde_json::from_str(output).expect("JSON output");
    value["id"].as_str().expect("id").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_an_agent_and_a_session_then_send_and_follow() {
    let env = TestEnv::new();
    let server = env.server(1);
    let (ok, out) = env.client(&["agent", "create", "--name", "cli", "--json", "--server", &server.url]);
    assert!(ok, "{out}");
    let agent = id_of(&out);
    let (ok, out) = env.client(&["session", "create", "--agent", &agent, "--json", "--server", &server.url]);
    assert!(ok, "{out}");
    let session = id_of(&out);
    let (ok, out) = env.client(&["send", &session, "hello from the command line", "--follow", "--server", &server.url]);
    assert!(ok, "{out}");
    assert!(out.contains("hello from the command line"), "{out}");
    assert!(out.contains("[succeeded]"), "{out}");
    let (ok, out) = env.client(&["send", "nope", "hi", "--server", &server.url]);
    assert!(!ok, "an unknown session is an error: {out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_models_a_blocking_send_and_deletes_from_the_command_line() {
    let env = TestEnv::new();
    let server = env.server(1);
    let url = server.url.as_str();
    let key = "sk-cli-0123456789abcdefghij";
    let (ok, out) = env.client(&["auth", "set", "openai", "--key", key, "--json", "--server", url]);
    assert!(ok && serde_json::from_str::<Value>(&out).unwrap() == json!({"status": "ok"}), "{out}");
    let (ok, out) = env.client(&["auth", "set", "anthropic", "--server", url]);
    assert!(!ok, "an empty key from standard input is refused: {out}");
    let (ok, out) = env.client(&["auth", "list", "--json", "--server", url]);
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert!(ok && listed["providers"]["openai"]["configured"] == true && !out.contains(key), "{out}");
    let (ok, out) = env.client(&["models", "anthropic", "claude-haiku-4-5", "--json", "--server", url]);
    let model: Value = serde_json::from_str(&out).unwrap();
    assert!(ok && model["limit"]["output"] == 64000, "{out}");

    let (_, out) = env.client(&["agent", "create", "--name", "cli", "--json", "--server", url]);
    let agent = id_of(&out);
    let (_, out) = env.client(&["session", "create", "--agent", &agent, "--json", "--server", url]);
    let session = id_of(&out);
    let (ok, out) = env.client(&["send", &session, "wait for me", "--wait", "--json", "--server", url]);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert!(ok && answer["response"] == "wait for me" && answer["steps"] == 1, "{out}");
    let (ok, out) = env.client(&["session", "list", "--json", "--server", url]);
    let sessions: Value = serde_json::from_str(&out).unwrap();
    assert!(ok && sessions[0]["history"].as_array().unwrap().len() == 2, "{out}");
    let flow = ["--priority", "-3", "--concurrency-key", "k", "--concurrency-limit", "2"];
    let (ok, out) = env.client(&[&["send", &session, "soon", "--wait", "--json", "--server", url][..], &flow].concat());
    let answer: Value = serde_json::from_str(&out).unwrap();
    let run = server.api().run(answer["run_id"].as_str().unwrap()).await;
    assert!(ok && run["input"]["priority"] == -3, "{out} {run}");
    assert_eq!(run["input"]["concurrency"], json!({"key": "k", "limit": 2}));
    let (code, _, stderr) = env.client_exit(&["send", &session, "never", "--priority", "11", "--server", url]);
    assert!(code == 2 && stderr.contains("-10..=10"), "{code} {stderr}");
    for (what, id) in [("session", &session), ("agent", &agent)] {
        let (ok, out) = env.client(&[what, "delete", id, "--json", "--server", url]);
        assert!(ok && serde_json::from_str::<Value>(&out).unwrap() == json!({"status": "deleted"}), "{out}");
    }
    let (ok, out) = env.client(&["auth", "delete", "openai", "--server", url]);
    assert!(ok && out.contains("deleted"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tail_survives_a_server_restart_and_prints_each_event_once() {
    let env = TestEnv::new();
    let server = env.server(0);
    let addr = server.url.trim_start_matches("http://").to_string();
    let api = server.api();
    let words: Vec<String> = (0..60).map(|i| format!("word{i}")).collect();
    let agent = api
        .create_agent(json!({"name": "slow", "options": {"chunk_delay_ms": 40, "script": [{"text": words.join(" ")}]}}))
        .await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "go").await;
    let _worker = env.worker();
    let mut tail = env.spawn_client(&["tail", &run, "--json", "--server", &server.url]);
    let mut lines = BufReader::new(tail.child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    // Read a few events, then kill the server under the tail.
    while printed.len() < 4 {
        printed.push(lines.next().expect("tail output").expect("line"));
    }
    let mut server = server;
    server.process.kill9();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let server = env.server_at(0, &addr);
    for line in lines {
        printed.push(line.expect("line"));
    }
    assert!(tail.child.wait().unwrap().success(), "tail ends with the run");
    let events: Vec<Value> = printed.iter().map(|l| serde_json::from_str(l).expect("JSON line")).collect();
    let whole = server.api().events(&run).await;
    assert_dense(&whole);
    assert_eq!(events, whole, "the tail printed every event exactly once");
}

#[test]
fn migrate_creates_the_database_and_can_run_again() {
    let mut env = TestEnv::new();
    let db = env.path().join("nested/dir/w.db");
    env.set("WINGMAN_DATABASE_URL", db.to_str().unwrap());
    for _ in 0..2 {
        let (ok, out) = env.client(&["migrate"]);
        assert!(ok, "{out}");
        assert!(out.contains("up to date"), "{out}");
    }
    assert!(db.exists());
}

#[test]
fn a_port_in_use_is_named_with_its_flag_and_creates_no_database() {
    let mut env = TestEnv::new();
    let db = env.path().join("fresh/w.db");
    env.set("WINGMAN_DATABASE_URL", db.to_str().unwrap());
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, _, stderr) = env.client_exit(&["serve", "--addr", &addr, "--workers", "0"]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains(&format!("cannot listen on {addr}")), "the address: {stderr}");
    assert!(stderr.contains("--addr") && stderr.contains("WINGMAN_ADDR"), "the flag: {stderr}");
    assert!(!db.exists() && !db.parent().unwrap().exists(), "no database was created");
}

/// Runs `wingman migrate` with no database named, `HOME` at `home` and
/// `XDG_DATA_HOME` set to `xdg` (or unset), from `cwd`.
fn migrate_by_default(home: &std::path::Path, xdg: Option<&str>, cwd: &std::path::Path) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_wingman"));
    command.arg("migrate").current_dir(cwd).env("HOME", home).env_remove("XDG_DATA_HOME");
    for name in ["WINGMAN_DATABASE_URL", "WINGMAN_DATA_DIR"] {
        command.env_remove(name);
    }
    if let Some(xdg) = xdg {
        command.env("XDG_DATA_HOME", xdg);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_default_database_follows_xdg_data_home_when_it_is_absolute() {
    let env = TestEnv::new();
    let (home, xdg) = (env.path().join("home"), env.path().join("xdg"));
    migrate_by_default(&home, Some(xdg.to_str().unwrap()), env.path());
    assert!(xdg.join("wingman/wingman.db").exists(), "$XDG_DATA_HOME/wingman is the data directory");
    assert!(!home.join(".local/share/wingman").exists());
    // A relative or empty XDG_DATA_HOME is ignored, as the XDG rule says.
    for (n, ignored) in [Some("relative/data"), Some(""), None].into_iter().enumerate() {
        let home = env.path().join(format!("home{n}"));
        migrate_by_default(&home, ignored, env.path());
        assert!(home.join(".local/share/wingman/wingman.db").exists(), "{ignored:?}");
    }
    assert!(!env.path().join("relative").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_run_from_the_command_line_survives_a_server_restart() {
    let env = TestEnv::new();
    let server = env.server(0);
    let addr = server.url.trim_start_matches("http://").to_string();
    let url = server.url.clone();
    let api = server.api();
    let (_, out) = env.client(&[
        "agent",
        "create",
        "--name",
        "slow",
        "--json",
        "--options",
        r#"{"chunk_delay_ms": 30}"#,
        "--server",
        &url,
    ]);
    let agent = id_of(&out);
    let (ok, out) = env.client(&[
        "fleet",
        "create",
        "--name",
        "f",
        "--agent",
        &agent,
        "--worker-count",
        "2",
        "--json",
        "--server",
        &url,
    ]);
    assert!(ok, "{out}");
    let fleet = id_of(&out);
    let file = env.path().join("tasks.jsonl");
    let lines: Vec<String> =
        (2..20).map(|i| json!({"message": format!("task {i} of many"), "data": i}).to_string()).collect();
    std::fs::write(&file, lines.join("\n") + "\n\n").unwrap();
    let _worker = env.worker();
    let mut run = env.spawn_client(&[
        "fleet",
        "run",
        &fleet,
        "--task",
        "task 0 of many",
        "--task",
        "task 1 of many",
        "--tasks-file",
        file.to_str().unwrap(),
        "--json",
        "--server",
        &url,
    ]);
    // Once some tasks have ended, kill the server under the client.
    let start = std::time::Instant::now();
    loop {
        let (_, listed) = api.get("/fleet-runs").await;
        if listed["fleet_runs"][0]["progress"]["succeeded"].as_u64().unwrap_or(0) >= 3 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{listed}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut server = server;
    server.process.kill9();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let _server = env.server_at(0, &addr);
    let output = BufReader::new(run.child.stdout.take().unwrap()).lines().map(|l| l.unwrap()).collect::<Vec<_>>();
    assert!(run.child.wait().unwrap().success(), "{}", run.log_text());
    let results: Vec<Value> = output.iter().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let indexes: Vec<u64> = results.iter().map(|r| r["task_index"].as_u64().unwrap()).collect();
    assert_eq!(indexes, (0..20).collect::<Vec<u64>>(), "every task once, in order");
    assert!(results
        .iter()
        .all(|r| r["status"] == "succeeded" && r["response"] == format!("task {} of many", r["task_index"])));
    assert_eq!(results[5]["data"], 5);
    assert!(run.log_text().contains("reconnecting"), "the client said it reconnected: {}", run.log_text());

    // Re-attached later: the same results, as a table.
    let id = api.get("/fleet-runs").await.1["fleet_runs"][0]["id"].as_str().unwrap().to_string();
    let (ok, table) = env.client(&["fleet", "tail", &id, "--server", &url]);
    assert!(ok, "{table}");
    assert_eq!(table.lines().count(), 21, "a header and a row per task: {table}");
    assert!(table.lines().nth(20).unwrap().contains("succeeded") && table.contains("task 19 of many"), "{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_are_listed_and_answered_from_the_command_line() {
    let env = TestEnv::new();
    let server = env.server(1);
    let url = server.url.as_str();
    let work = tempfile::tempdir().unwrap();
    let call = |name: &str| json!({"name": "bash", "input": {"command": format!("echo {name} >> log.txt")}});
    let script = json!({"script": [{"tool_calls": [call("a"), call("b"), call("c")]}, {"text": "done"}]});
    let (ok, out) = env.client(&[
        "agent",
        "create",
        "--json",
        "--name",
        "careful",
        "--tool",
        "bash",
        "--approve-tool",
        "bash",
        "--options",
        &script.to_string(),
        "--server",
        url,
    ]);
    assert!(ok, "{out}");
    let agent = id_of(&out);
    let work_dir = work.path().to_string_lossy().into_owned();
    let (ok, out) =
        env.client(&["session", "create", "--agent", &agent, "--work-dir", &work_dir, "--json", "--server", url]);
    assert!(ok, "{out}");
    let session = id_of(&out);
    // Followed without a terminal: the request is shown with how to answer it.
    let mut follow = env.spawn_client(&["send", &session, "go", "--follow", "--server", url]);
    let api = server.api();
    let run = loop {
        let (_, body) = api.get("/runs?status=waiting").await;
        if let Some(run) = body["runs"].as_array().and_then(|r| r.first()) {
            break run["id"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (ok, out) = env.client(&["approvals", "--server", url]);
    assert!(ok && out.contains(&run) && out.contains("call_1_3") && out.contains("echo b"), "{out}");
    let (ok, out) = env.client(&["approve", &run, "--edit", "call_1_9", "--input", "{}", "--server", url]);
    assert!(!ok, "a call the run does not wait on is refused: {out}");
    let (ok, out) = env.client(&[
        "approve",
        &run,
        "--reject",
        "call_1_2",
        "--message",
        "not b",
        "--edit",
        "call_1_3",
        "--input",
        r#"{"command": "echo edited >> log.txt"}"#,
        "--server",
        url,
    ]);
    assert!(ok, "{out}");
    let status = follow.child.wait().unwrap();
    assert!(status.success());
    let mut printed = String::new();
    std::io::Read::read_to_string(follow.child.stdout.as_mut().unwrap(), &mut printed).unwrap();
    assert!(printed.contains("waiting for a person's decision on 3 call(s)"), "{printed}");
    assert!(printed.contains("[succeeded]"), "{printed}");
    let hint = std::fs::read_to_string(&follow.log).unwrap_or_default();
    assert!(hint.contains(&format!("wingman approve {run}")), "{hint}");
    let log = std::fs::read_to_string(work.path().join("log.txt")).unwrap();
    assert_eq!(log.lines().collect::<Vec<_>>(), ["a", "edited"]);
    let (ok, out) = env.client(&["approvals", "--server", url]);
    assert!(ok && out.contains("no run is waiting"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_send_asks_for_the_decision_at_a_terminal() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let work = tempfile::tempdir().unwrap();
    let call = |name: &str| json!({"name": "bash", "input": {"command": format!("echo {name} >> log.txt")}});
    let agent = api
        .create_agent(json!({"name": "careful", "tools": ["bash"], "approve_tools": ["*"],
            "options": {"script": [{"tool_calls": [call("a"), call("b")]}, {"text": "done"}]}}))
        .await;
    let session = api.create_session(&agent, Some(work.path())).await;
    let Some(mut terminal) = env.on_a_terminal(&format!("send {session} go --follow --server {}", server.url)) else {
        return;
    };
    // Wait for the run to wait, then answer: approve the first, reject the second.
    loop {
        let (_, body) = api.get("/runs?status=waiting").await;
        if body["runs"].as_array().is_some_and(|r| !r.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    terminal.type_in("a\nr\nnot b\n");
    let (ok, seen) = terminal.finish();
    assert!(ok, "{seen}");
    assert!(seen.contains("wants to run bash"), "{seen}");
    assert!(seen.contains("[\x1b[32msucceeded\x1b[0m]"), "in colour, on a terminal: {seen}");
    let log = std::fs::read_to_string(work.path().join("log.txt")).unwrap();
    assert_eq!(log.lines().collect::<Vec<_>>(), ["a"], "approved ran, rejected did not");
}

on_both_backends! {
async fn exit_codes_say_how_the_run_ended(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let url = server.url.as_str();
    let api = server.api();
    let ok = api.create_agent(json!({"name": "ok"})).await;
    let failing = api
        .create_agent(json!({"name": "bad", "options": {"script": [{"error": {"status": 400, "message": "no"}}]}}))
        .await;
    let slow = api
        .create_agent(
            json!({"name": "slow", "options": {"chunk_delay_ms": 300, "script": [{"text": "a b c d e f g h"}]}}),
        )
        .await;
    let session = api.create_session(&ok, None).await;
    let send = |agent: &str, extra: &[&str]| {
        let mut args = vec!["send", session.as_str(), "hi", "--agent", agent, "--server", url];
        args.extend(extra);
        env.client_exit(&args)
    };
    let (code, _, err) = send(&ok, &["--follow"]);
    assert_eq!(code, 0);
    assert!(summary_of(&err).contains(" succeeded · 1 step · "), "{err}");
    let (code, _, err) = send(&failing, &["--follow"]);
    assert_eq!(code, 3, "a failed run");
    assert!(summary_of(&err).contains(" failed · "), "{err}");
    let failed = err.lines().find_map(|l| l.strip_prefix("run ")?.strip_suffix(" queued")).unwrap().to_string();
    let (code, _, err) = env.client_exit(&["tail", &failed, "--server", url]);
    assert_eq!(code, 3, "tailing a failed run");
    assert!(summary_of(&err).starts_with(&format!("run {failed} failed")), "{err}");
    assert_eq!(send(&failing, &["--wait"]).0, 3, "a failed run, waited for");
    let (code, out, _) = send(&ok, &[]);
    assert_eq!(code, 0);
    let (code, _, err) = env.client_exit(&["tail", out.trim(), "--server", url]);
    assert_eq!(code, 0, "tailing a succeeded run");
    let usage = &api.run(out.trim()).await["usage"];
    let tokens = format!("{} in / {} out tokens · cost unknown · ", usage["input_tokens"], usage["output_tokens"]);
    assert!(summary_of(&err).contains(&tokens), "{err}");

    // A run cancelled while it is tailed, and tailed again afterwards.
    let (_, out, _) = send(&slow, &[]);
    let run = out.trim().to_string();
    let mut tail = env.spawn_client(&["tail", &run, "--server", url]);
    api.wait_event(&run, Duration::from_secs(30), |e| e["type"] == "text_delta").await;
    let (status, _) = api.post(&format!("/runs/{run}/cancel"), json!({})).await;
    assert_eq!(status, 202);
    assert_eq!(tail.child.wait().unwrap().code(), Some(4), "a cancelled run");
    assert!(summary_of(&tail.log_text()).starts_with(&format!("run {run} cancelled")), "{}", tail.log_text());
    assert_eq!(env.client_exit(&["tail", &run, "--after", "1000", "--server", url]).0, 4, "from past its end");

    // A run cancelled while `send --follow` follows it.
    let mut follow = env.spawn_client(&["send", &session, "hi", "--agent", &slow, "--follow", "--server", url]);
    let (_, listed) = loop {
        let (status, body) = api.get("/runs?status=running").await;
        if body["runs"].as_array().is_some_and(|r| !r.is_empty()) {
            break (status, body);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let (status, _) = api.post(&format!("/runs/{}/cancel", listed["runs"][0]["id"].as_str().unwrap()), json!({})).await;
    assert_eq!(status, 202);
    assert_eq!(follow.child.wait().unwrap().code(), Some(4), "a cancelled run, followed after sending it");

    // No server: the error says how to point at one.
    let (code, _, stderr) = env.client_exit(&["send", &session, "hi", "--server", "http://127.0.0.1:9"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("--server") && stderr.contains("WINGMAN_SERVER"), "{stderr}");
}
}

/// The summary line a followed run ends with: the last line of stderr.
fn summary_of(stderr: &str) -> &str {
    stderr.lines().rev().find(|l| l.starts_with("run ") && l.contains(" · ")).unwrap_or_default()
}
