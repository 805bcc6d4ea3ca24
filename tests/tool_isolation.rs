//! What bash can reach from inside a real worker process: no provider key
//! (not in its environment, not in any /proc it can read), not the database
//! or its WAL, nothing outside its allowed paths; and nothing it starts
//! outlives a SIGKILL of its worker, `setsid` children included.

mod common;

use std::time::Duration;

use common::{bash_script, marked, marked_gone, marker, wait_marked, Api, TestEnv};
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);
const KEY: &str = "sk-ant-isolation-planted-0123456789";

/// Runs one bash command in a fresh session with the default work_dir
/// (beside the database) and returns its tool result.
async fn run_bash(api: &Api, command: &str) -> Value {
    let agent = api.create_agent(bash_script(&[command.to_string()], "done")).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "look around").await;
    let finished = api.wait_terminal(&run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let events = api.events(&run).await;
    events.into_iter().find(|e| e["type"] == "tool_result").expect("a tool result")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_reaches_no_key_and_not_the_database() {
    let mut env = TestEnv::new();
    env.set("ANTHROPIC_API_KEY", KEY);
    env.set("OPENAI_API_KEY", KEY);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let (_, health) = api.get("/health").await;

    let environment =
        run_bash(&api, "env; for e in /proc/[0-9]*/environ /proc/$PPID/environ; do cat $e; done 2>&1").await;
    let output = environment["output"].as_str().unwrap();
    assert!(!output.contains(KEY) && !output.contains("WINGMAN_"), "the worker's environment leaked: {output}");

    // The session's default work_dir is <data dir>/sessions/<id>: the database is two levels up.
    let db = env.db();
    let command =
        format!("cat ../../wingman.db ../../wingman.db-wal ../../wingman.db-shm {} | head -c 64", db.display());
    let database = run_bash(&api, &command).await;
    let output = database["output"].as_str().unwrap();
    if health["sandbox"]["confined"] != true {
        assert!(!common::sandbox_required(), "WINGMAN_TEST_SANDBOX=required, but bash is not confined: {health}");
        eprintln!("the database check is skipped: this kernel has no Landlock ({})", health["sandbox"]);
        return;
    }
    assert!(!output.contains("SQLite format"), "bash read the database: {output}");
    assert_eq!(output.matches("Permission denied").count(), 4, "{output}");
    let shadow = run_bash(&api, "cat /etc/shadow; ls /root").await;
    assert_eq!(shadow["is_error"], true, "{shadow}");
    assert!(shadow["output"].as_str().unwrap().contains("Permission denied"), "{shadow}");
    // What it may use still works.
    let fine = run_bash(&api, "echo ok > here.txt && cat here.txt && ls /usr/bin >/dev/null && echo listed").await;
    assert_eq!(fine["output"], "ok\nlisted\n[exit code 0]", "{fine}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sigkilled_workers_tool_processes_all_die_with_it() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let m = marker();
    let agent = api.create_agent(bash_script(&[format!("sleep {m} & setsid sleep {m} & wait")], "never")).await;
    let session = api.create_session(&agent, None).await;
    let mut worker = env.worker();
    let run = api.send(&session, "start and wait").await;
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_call").await;
    wait_marked(&m, 2, LIMIT).await;
    worker.kill9();
    assert!(marked_gone(&m, Duration::from_secs(2)).await, "tool processes outlived their worker: {:?}", marked(&m));
}
