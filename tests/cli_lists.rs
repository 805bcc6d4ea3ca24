//! The command line as one tool: every list and show command prints an
//! aligned table or a readable block, and with `--json` the API's JSON;
//! lists put the newest first; creates and actions print one line naming
//! what they made or changed (`--json`: the API's answer); each resource
//! has its plural alias.

mod common;

use std::time::Duration;

use common::{Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

/// One of everything the lists show, made through the API.
struct Made {
    agent: String,
    newer_agent: String,
    session: String,
    run: String,
    fleet: String,
    formation: String,
    schedule: String,
}

async fn make(api: &Api) -> Made {
    let agent = api.create_agent(json!({"name": "first"})).await;
    let newer_agent = api.create_agent(json!({"name": "second"})).await;
    let session = api.create_session(&agent, None).await;
    let older = api.send(&session, "one").await;
    api.wait_terminal(&older, LIMIT).await;
    let run = api.send(&session, "two").await;
    api.wait_terminal(&run, LIMIT).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "crew", "agent_id": agent, "worker_count": 2})).await;
    let (_, formation) =
        api.post("/formations", json!({"name": "line", "nodes": [{"id": "only", "agent_id": agent}]})).await;
    let target = json!({"session_id": session, "message": "tick"});
    let (_, schedule) = api.post("/schedules", json!({"name": "daily", "cron": "0 0 9 * * *", "target": target})).await;
    let (status, _) = api.put("/secrets/A_TOKEN", json!({"value": "shh"})).await;
    assert_eq!(status, 200);
    let key = json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-ant-0123456789abcdefghij"}}});
    assert_eq!(api.put("/provider/auth", key).await.0, 200);
    let id = |v: &Value| v["id"].as_str().unwrap().to_string();
    Made { agent, newer_agent, session, run, fleet: id(&fleet), formation: id(&formation), schedule: id(&schedule) }
}

/// Runs a client command against `url`; its standard output, or a failure with both streams.
fn run_ok(env: &TestEnv, url: &str, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--server", url]);
    let (code, out, err) = env.client_exit(&all);
    assert_eq!(code, 0, "wingman {}:\n{out}\n{err}", args.join(" "));
    out
}

/// Checks a table: a header line, then rows whose cells start where the
/// header's columns do (cells are two spaces or more apart).
fn assert_aligned(what: &str, out: &str) {
    let starts = |line: &str| -> Vec<usize> {
        let mut starts = vec![0];
        let chars: Vec<char> = line.chars().collect();
        for i in 2..chars.len() {
            if chars[i] != ' ' && chars[i - 1] == ' ' && chars[i - 2] == ' ' {
                starts.push(i);
            }
        }
        starts
    };
    let mut lines = out.lines();
    let header = lines.next().unwrap_or_else(|| panic!("{what}: no output"));
    assert!(header.chars().all(|c| !c.is_lowercase()), "{what}: a header line first: {out}");
    let columns = starts(header);
    for row in lines {
        let cells = starts(row);
        for (column, start) in columns.iter().take(columns.len() - 1).enumerate() {
            assert!(cells.contains(start), "{what}: column {column} of {row:?} starts under its header:\n{out}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_list_and_show_prints_text_and_json() {
    let env = TestEnv::new();
    let server = env.server(1);
    let url = server.url.as_str();
    let made = make(&server.api()).await;
    let tables: Vec<(Vec<&str>, &str)> = vec![
        (vec!["agents"], made.agent.as_str()),
        (vec!["agents", "list"], made.agent.as_str()),
        (vec!["sessions"], made.session.as_str()),
        (vec!["runs"], made.run.as_str()),
        (vec!["fleets"], made.fleet.as_str()),
        (vec!["fleet", "list"], made.fleet.as_str()),
        (vec!["formations"], made.formation.as_str()),
        (vec!["formation", "list"], made.formation.as_str()),
        (vec!["schedules"], made.schedule.as_str()),
        (vec!["schedule", "list"], made.schedule.as_str()),
        (vec!["secret", "list"], "A_TOKEN"),
        (vec!["auth", "list"], "anthropic"),
        (vec!["models", "anthropic"], "claude-haiku-4-5"),
    ];
    for (args, shown) in &tables {
        let out = run_ok(&env, url, args);
        assert!(out.contains(shown), "wingman {} shows {shown}:\n{out}", args.join(" "));
        assert_aligned(&args.join(" "), &out);
        let mut with_json = args.clone();
        with_json.push("--json");
        let out = run_ok(&env, url, &with_json);
        let parsed: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{with_json:?}: {e}\n{out}"));
        assert!(parsed.to_string().contains(shown), "{with_json:?}: {parsed}");
    }
    let shows: Vec<(Vec<&str>, &str)> = vec![
        (vec!["agents", "show", &made.agent], "first"),
        (vec!["sessions", "show", &made.session], "two"),
        (vec!["runs", "show", &made.run], "succeeded"),
        (vec!["fleet", "show", &made.fleet], "crew"),
        (vec!["formation", "show", &made.formation], "line"),
        (vec!["schedule", "show", &made.schedule], "daily"),
        (vec!["models", "anthropic", "claude-haiku-4-5"], "200000"),
    ];
    for (args, shown) in &shows {
        let out = run_ok(&env, url, args);
        assert!(
            out.contains(shown) && !out.trim_start().starts_with('{'),
            "wingman {} as text:\n{out}",
            args.join(" ")
        );
        let mut with_json = args.clone();
        with_json.push("--json");
        let out = run_ok(&env, url, &with_json);
        let parsed: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{with_json:?}: {e}\n{out}"));
        assert!(parsed.to_string().contains(shown), "{with_json:?}: {parsed}");
    }
    let out = run_ok(&env, url, &["schedule", "runs", &made.schedule]);
    assert!(out.starts_with("no ticks yet"), "a schedule with no ticks says so: {out}");
    assert_eq!(
        serde_json::from_str::<Value>(&run_ok(&env, url, &["schedule", "runs", &made.schedule, "--json"])).unwrap()
            ["ticks"],
        json!([])
    );

    let out = run_ok(&env, url, &["approvals"]);
    assert!(out.starts_with("no run is waiting"), "{out}");
    assert_eq!(serde_json::from_str::<Value>(&run_ok(&env, url, &["approvals", "--json"])).unwrap(), json!([]));

    // Newest first.
    let agents = run_ok(&env, url, &["agents"]);
    assert!(agents.find(&made.newer_agent) < agents.find(&made.agent), "{agents}");
    let runs = run_ok(&env, url, &["runs"]);
    assert_eq!(runs.lines().nth(1).map(|l| l.starts_with(&made.run)), Some(true), "the newest run first: {runs}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creates_and_actions_print_one_line_with_the_id() {
    let env = TestEnv::new();
    let server = env.server(1);
    let url = server.url.as_str();
    let line = |args: &[&str]| -> String {
        let out = run_ok(&env, url, args);
        assert_eq!(out.lines().count(), 1, "wingman {}: one line: {out}", args.join(" "));
        out.trim().to_string()
    };
    let id_in = |line: &str, what: &str| -> String {
        let rest = line.strip_prefix(&format!("{what} ")).unwrap_or_else(|| panic!("{line:?} names the {what}"));
        rest.split([' ', ':']).next().unwrap().to_string()
    };
    let created = line(&["agents", "create", "--name", "liner"]);
    assert!(created.ends_with("created: liner"), "{created}");
    let agent = id_in(&created, "agent");
    let session = id_in(&line(&["sessions", "create", "--agent", &agent]), "session");
    let fleet = id_in(&line(&["fleet", "create", "--name", "crew", "--agent", &agent]), "fleet");
    let file = env.path().join("formation.json");
    std::fs::write(&file, json!({"name": "line", "nodes": [{"id": "only", "agent_id": agent}]}).to_string()).unwrap();
    let formation = id_in(&line(&["formation", "create", "--file", file.to_str().unwrap()]), "formation");
    let tasks = env.path().join("tasks.jsonl");
    std::fs::write(&tasks, "{\"message\": \"from the file\"}\n").unwrap();
    let schedule = line(&[
        "schedule",
        "create",
        "--name",
        "crew daily",
        "--cron",
        "0 0 9 * * *",
        "--fleet",
        &fleet,
        "--task",
        "one",
        "--tasks-file",
        tasks.to_str().unwrap(),
    ]);
    assert!(schedule.contains("next tick "), "{schedule}");
    let schedule = id_in(&schedule, "schedule");
    let (_, shown) = server.api().get(&format!("/schedules/{schedule}")).await;
    let messages: Vec<&Value> = shown["target"]["tasks"].as_array().unwrap().iter().map(|t| &t["message"]).collect();
    assert_eq!(messages, [&json!("one"), &json!("from the file")], "{shown}");
    assert!(line(&["schedule", "pause", &schedule]).ends_with("paused"));
    assert!(line(&["schedule", "resume", &schedule]).contains("resumed: next tick"));
    assert!(line(&["secret", "set", "TOKEN", "--value", "v"]).contains("TOKEN set"));
    assert!(line(&["auth", "set", "openai", "--key", "sk-test-key"]).contains("openai stored"));
    // A create with --json prints the API's answer.
    let json_out = run_ok(&env, url, &["agents", "create", "--name", "json", "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&json_out).unwrap()["name"], "json");
    // The waiting answer of --wait says what it waits for; the run shows in approvals.
    let careful = id_in(
        &line(&[
            "agents",
            "create",
            "--name",
            "careful",
            "--tool",
            "bash",
            "--approve-tool",
            "bash",
            "--options",
            r#"{"script": [{"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}, {"text": "done"}]}"#,
        ]),
        "agent",
    );
    let (code, out, err) = env.client_exit(&["send", &session, "go", "--agent", &careful, "--wait", "--server", url]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.is_empty()
            && err.contains("[waiting for a decision: wingman approve ")
            && err.contains(" waiting · 1 step"),
        "{out}\n{err}"
    );
    let run = err.split("wingman approve ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    let approved = line(&["approve", &run]);
    assert_eq!(approved, format!("run {run} queued again: call_1_1 approve"));
    let (code, out, err) = env.client_exit(&["send", &session, "again", "--wait", "--server", url]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "again", "the answer's text: {out}");
    assert!(err.contains(" succeeded · 1 step · "), "{err}");
    for (args, said) in [
        (vec!["fleet", "delete", fleet.as_str()], format!("fleet {fleet} deleted")),
        (vec!["formation", "delete", formation.as_str()], format!("formation {formation} deleted")),
        (vec!["schedule", "delete", schedule.as_str()], format!("schedule {schedule} deleted")),
        (vec!["sessions", "delete", session.as_str()], format!("session {session} deleted")),
        (vec!["agents", "delete", agent.as_str()], format!("agent {agent} deleted")),
        (vec!["secret", "delete", "TOKEN"], "secret TOKEN deleted".to_string()),
    ] {
        assert_eq!(line(&args), said);
    }
    // Deleting an agent says what becomes of the sessions it answered.
    let (code, _, err) = env.client_exit(&["agents", "delete", &careful, "--server", url]);
    assert!(code == 0 && err.contains("wingman send --agent ID"), "{err}");
}
