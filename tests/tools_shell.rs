//! The session's persistent shell through a real server and separate worker
//! processes: `cd` and `export` hold from one bash call to the next, in the
//! same run, in the session's next run and after a worker is SIGKILLed
//! mid-call; a directory outside the work_dir is never carried.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::Backend;
use common::{assert_dense, bash_script, Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// The outputs of a finished run's bash calls, in order.
async fn outputs(api: &Api, run: &str) -> Vec<String> {
    let finished = api.wait_terminal(run, LIMIT).await;
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let events = api.events(run).await;
    assert_dense(&events);
    events.iter().filter(|e| e["type"] == "tool_result").map(|e| e["output"].as_str().unwrap().to_string()).collect()
}

/// A directory as `pwd` prints it inside the shell (symlinks resolved).
fn real(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap().display().to_string()
}

/// Submits a message to a session for the given agent.
async fn send_as(api: &Api, session: &str, agent: &str, message: &str) -> String {
    let (status, body) =
        api.post(&format!("/sessions/{session}/message"), json!({"agent_id": agent, "message": message})).await;
    assert_eq!(status, 202, "{body}");
    body["run_id"].as_str().unwrap().to_string()
}

// `cd` and `export` hold in the next call of the run and in the session's
// next run; another session in the same directory starts afresh.
on_both_backends! {
async fn cd_and_export_hold_across_calls_and_runs_of_a_session(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = env.path().join("work");
    let show = "pwd; echo \"x=$X\"".to_string();
    let first = api.create_agent(bash_script(&["mkdir -p sub && cd sub && export X=1".into(), show.clone()], "one")).await;
    let session = api.create_session(&first, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let results = outputs(&api, &run).await;
    let in_sub = format!("{}\nx=1\n[exit code 0]", real(&work.join("sub")));
    assert_eq!(results[1], in_sub, "the next call of the run");
    let kept = env.count("SELECT COUNT(*) FROM sessions WHERE id = $1 AND shell IS NOT NULL", &[&session]).await;
    assert_eq!(kept, 1, "the session keeps its shell");

    let second = api.create_agent(bash_script(std::slice::from_ref(&show), "two")).await;
    let run = send_as(&api, &session, &second, "again").await;
    assert_eq!(outputs(&api, &run).await, [in_sub], "the session's next run, with another agent");

    let other = api.create_session(&second, Some(&work)).await;
    let run = api.send(&other, "elsewhere").await;
    assert_eq!(outputs(&api, &run).await, [format!("{}\nx=\n[exit code 0]", real(&work))], "another session");
}
}

// A worker SIGKILLed while a bash call runs: the call is made again from
// the state before it, and the state after it reaches the following call.
on_both_backends! {
async fn a_call_cut_short_by_a_crash_runs_again_from_the_state_before_it(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_MAX_ATTEMPTS", "10");
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let log = work.join("calls.log");
    // The first attempt at the second call waits to be killed; the next goes on.
    let commands = [
        "mkdir -p a b && cd a && export N=1".to_string(),
        "echo \"$(pwd -P) $N\" >> \"$HOME/calls.log\"; cd ../b; export N=2; \
         [ \"$(wc -l < \"$HOME/calls.log\")\" -gt 1 ] || sleep 100"
            .to_string(),
        "pwd; echo \"n=$N\"".to_string(),
    ];
    let agent = api.create_agent(bash_script(&commands, "done")).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let mut worker = env.worker();
    let start = Instant::now();
    while std::fs::read_to_string(&log).unwrap_or_default().lines().count() < 1 {
        assert!(start.elapsed() < LIMIT, "the second call never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    worker.kill9();
    let _worker = env.worker();
    let results = outputs(&api, &run).await;
    let calls = std::fs::read_to_string(&log).unwrap();
    let from_a = format!("{} 1", real(&work.join("a")));
    assert!(calls.lines().count() >= 2 && calls.lines().all(|l| l == from_a), "each attempt started in a with N=1: {calls}");
    assert_eq!(results[2], format!("{}\nn=2\n[exit code 0]", real(&work.join("b"))), "{results:?}");
    let events: Vec<Value> = api.events(&run).await;
    assert!(events.iter().any(|e| e["type"] == "step_restarted" && e["call_id"] == "call_2_1"), "{events:?}");
}
}

// A `cd` that leaves the work_dir is not carried, and its result says so;
// the next call runs in the last directory inside the work_dir.
on_both_backends! {
async fn a_cd_out_of_the_work_dir_is_not_carried_and_the_result_says_so(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let work = env.path().join("work");
    let commands = ["mkdir -p sub && cd sub", "cd /", "pwd; cd ../..", "pwd"].map(String::from);
    let agent = api.create_agent(bash_script(&commands, "done")).await;
    let session = api.create_session(&agent, Some(&work)).await;
    let run = api.send(&session, "go").await;
    let results = outputs(&api, &run).await;
    let sub = real(&work.join("sub"));
    let refused = "outside the work_dir: that is not carried over; the next call starts in sub";
    assert!(results[1].starts_with("[exit code 0]\n[the shell ended in /,") && results[1].contains(refused), "{results:?}");
    assert!(results[2].starts_with(&format!("{sub}\n[exit code 0]\n")) && results[2].contains(refused), "{results:?}");
    assert_eq!(results[3], format!("{sub}\n[exit code 0]"), "{results:?}");
}
}
