//! Client tools from the command line, against a real server and a separate
//! worker process: `wingman approvals` says what each waiting run waits for,
//! `wingman tool-results` answers the calls of client tools, and each of
//! `approve` and `tool-results` refuses a run that waits for the other.

mod common;

use std::time::Duration;

use common::{Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

/// An agent whose one step calls the client tool `lookup` twice, each call
/// needing a person's approval first, then answers.
fn lookup_agent() -> Value {
    let lookup = |word: &str| json!({"name": "lookup", "input": {"word": word}});
    json!({
        "name": "looker",
        "client_tools": [{"name": "lookup", "description": "Looks a word up on the client's machine",
            "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}}}],
        "approve_tools": ["lookup"],
        "options": {"script": [{"text": "Let me look.", "tool_calls": [lookup("alpha"), lookup("beta")]},
            {"text": "Both looked up."}]}
    })
}

fn parsed(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

// The run first waits for a decision, then for its client: the listing, the
// refusals and the answer follow what it waits for at each moment.
on_both_backends! {
async fn a_run_waiting_for_tool_results_is_listed_and_answered_from_the_command_line(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let _worker = env.worker();
    let url = server.url.as_str();
    let api = server.api();
    let agent = api.create_agent(lookup_agent()).await;
    let session = api.create_session(&agent, None).await;
    // Followed without a terminal: each request is shown with how to answer it.
    let mut follow = env.spawn_client(&["send", &session, "look both up", "--follow", "--server", url]);
    let run = loop {
        let (_, body) = api.get("/runs?status=waiting").await;
        if let Some(run) = body["runs"].as_array().and_then(|r| r.first()) {
            break run["id"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let results = ["--call", "call_1_1", "--output", "one", "--call", "call_1_2", "--output", "two"];
    let answer = |extra: &[&str]| {
        let mut args = vec!["tool-results", run.as_str()];
        args.extend(extra);
        args.extend(["--server", url]);
        env.client_exit(&args)
    };

    // Waiting for a decision: tool results are refused, saying what answers it.
    let (_, out) = env.client(&["approvals", "--json", "--server", url]);
    assert_eq!(parsed(&out)[0]["waiting_for"], "decision", "{out}");
    let (code, _, err) = answer(&results);
    assert!(code != 0 && err.contains("waits for a person's decision") && err.contains("wingman approve"), "{err}");
    let (ok, out) = env.client(&["approve", &run, "--server", url]);
    assert!(ok, "{out}");

    // Waiting for tool results, once the approved calls reach the client.
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_calls_requested").await;
    let (ok, out) = env.client(&["approvals", "--server", url]);
    assert!(ok && out.contains(&format!("run {run} (session {session}) waits for tool results")), "{out}");
    assert!(out.contains("call_1_1 lookup") && out.contains("beta"), "{out}");
    let (_, out) = env.client(&["approvals", "--json", "--server", url]);
    let listed = parsed(&out);
    assert_eq!((listed[0]["waiting_for"].as_str(), listed[0]["calls"].as_array().map(Vec::len)), (Some("tool_results"), Some(2)));
    let (code, _, err) = env.client_exit(&["approve", &run, "--server", url]);
    assert!(code != 0 && err.contains("waits for tool results") && err.contains("wingman tool-results"), "{err}");

    // A waiting call left out is refused before anything is sent.
    let (code, _, err) = answer(&results[..4]);
    assert!(code != 0 && err.contains("missing: call_1_2") && err.contains("call_1_2 (lookup)"), "{err}");
    let (code, _, err) = answer(&["--call", "call_1_1", "--output", "one", "--call", "call_1_2"]);
    assert!(code != 0 && err.contains("each --call needs its --output"), "{err}");
    assert_eq!(api.run(&run).await["status"], "waiting", "nothing was sent");

    let (code, out, err) = answer(&["--call", "call_1_2", "--output", "no entry for beta", "--error", "call_1_2",
        "--call", "call_1_1", "--output", "alpha: the first letter"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), format!("run {run} queued again with 2 results"), "one line that says so");
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    assert!(follow.child.wait().unwrap().success(), "{}", follow.log_text());
    let hints = follow.log_text();
    assert!(hints.contains(&format!("wingman approve {run}")), "{hints}");
    assert!(hints.contains(&format!("wingman tool-results {run} --call call_1_1 --output TEXT --call call_1_2")), "{hints}");

    // The outputs are in the session's history, the second one as an error.
    let (_, session_body) = api.get(&format!("/sessions/{session}")).await;
    let blocks: Vec<Value> = session_body["history"].as_array().unwrap().iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result").collect();
    let told: Vec<(Value, Value)> = blocks.iter().map(|b| (b["content"].clone(), b["is_error"].clone())).collect();
    assert_eq!(told, [(json!("alpha: the first letter"), json!(false)), (json!("no entry for beta"), json!(true))]);
    let (ok, out) = env.client(&["runs", "show", &run, "--server", url]);
    assert!(ok && out.contains("the client answered: call_1_1, call_1_2"), "{out}");
    let (ok, out) = env.client(&["approvals", "--server", url]);
    assert!(ok && out.contains("no run is waiting"), "{out}");
    let (code, _, err) = answer(&results);
    assert!(code != 0 && err.contains("not waiting for tool results"), "the server refuses a run that ended: {err}");
}
}
