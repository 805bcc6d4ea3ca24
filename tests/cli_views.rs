//! The command line's list and show commands against a real server and
//! worker: text for people, the API's JSON for scripts, lists paged the way
//! the API pages them, colour only on a terminal.

mod common;

use common::{Backend, TestEnv};
use serde_json::{json, Value};

/// An agent that calls bash once, then answers; priced, so runs have a cost.
fn bash_agent() -> Value {
    json!({"pricing": {"input": 3, "output": 15}, "script": [
        {"text": "Let me look. ", "tool_calls": [{"name": "bash", "input": {"command": "echo from-bash"}}]},
        {"text": "Bash said hello."}
    ]})
}

/// Runs a client command that must succeed; its stdout, which, piped, must
/// carry no colour.
fn ok(env: &TestEnv, args: &[&str]) -> String {
    let (code, out, err) = env.client_exit(args);
    assert_eq!(code, 0, "{args:?}: {out}\n{err}");
    assert!(!out.contains('\x1b'), "no colour into a pipe: {out:?}");
    out
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

on_both_backends! {
async fn agents_sessions_and_runs_are_listed_and_shown(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let url = server.url.as_str();
    let api = server.api();
    let work = tempfile::tempdir().unwrap();
    let options = bash_agent().to_string();
    let agent = json_of(&ok(&env, &["agents", "create", "--name", "looker", "--tool", "bash", "--options", &options, "--json", "--server", url]));
    let agent = agent["id"].as_str().unwrap().to_string();
    let work_dir = work.path().to_string_lossy().into_owned();
    let session = json_of(&ok(&env, &["sessions", "create", "--agent", &agent, "--work-dir", &work_dir, "--json", "--server", url]));
    let session = session["id"].as_str().unwrap().to_string();

    // Followed: the transcript streams, and a summary line ends it on stderr.
    let (code, out, err) = env.client_exit(&["send", &session, "What does bash say?", "--follow", "--server", url]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("→ bash: echo from-bash") && out.contains("← from-bash") && out.contains("[succeeded]"), "{out}");
    let run_id = err.lines().find_map(|l| l.strip_prefix("run ")?.strip_suffix(" queued")).expect("queued line").to_string();
    let run = api.run(&run_id).await;
    let tokens = format!("{} in / {} out tokens", run["usage"]["input_tokens"], run["usage"]["output_tokens"]);
    let summary = err.lines().last().unwrap();
    assert!(summary.starts_with(&format!("run {run_id} succeeded · 2 steps · {tokens} · $0.000")), "{err}");

    // Agents: a table, a description, the API's JSON; the singular name still works.
    let table = ok(&env, &["agents", "--server", url]);
    let row = table.lines().find(|l| l.starts_with(&agent)).unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("looker") && row.contains("scripted/echo") && row.contains("bash"), "{table}");
    let (_, listed) = api.get("/agents").await;
    assert_eq!(json_of(&ok(&env, &["agent", "list", "--json", "--server", url])), listed);
    let shown = ok(&env, &["agents", "show", &agent, "--server", url]);
    assert!(shown.contains("looker") && shown.contains("echo from-bash") && shown.contains("max steps"), "{shown}");
    let (_, one) = api.get(&format!("/agents/{agent}")).await;
    assert_eq!(json_of(&ok(&env, &["agents", "show", &agent, "--json", "--server", url])), one);

    // Sessions: the conversation as a transcript, or the API's JSON.
    let table = ok(&env, &["sessions", "--server", url]);
    assert!(table.lines().any(|l| l.starts_with(&session) && l.contains("“What does bash say?”")), "{table}");
    let shown = ok(&env, &["sessions", "show", &session, "--server", url]);
    let transcript = "user: What does bash say?\nassistant: Let me look.\n  → bash: echo from-bash\n  ← from-bash\n    \
                      [exit code 0]\nassistant: Bash said hello.\n";
    assert!(shown.contains(transcript) && shown.contains(&work_dir) && shown.contains(&run_id), "{shown}");
    let (_, one) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(json_of(&ok(&env, &["session", "show", &session, "--json", "--server", url])), one);

    // A run: fields, then its transcript; or the API's JSON.
    let shown = ok(&env, &["runs", "show", &run_id, "--server", url]);
    for part in ["succeeded", "attempts  1", "2, 1 tool call", &tokens.replace(" tokens", ""), "$0.000", transcript, "[succeeded]"] {
        assert!(shown.contains(part), "{part:?} in {shown}");
    }
    assert_eq!(json_of(&ok(&env, &["runs", "show", &run_id, "--json", "--server", url])), run);
    let (code, _, err) = env.client_exit(&["runs", "show", "nope", "--server", url]);
    assert!(code == 1 && err.contains("404"), "{err}");
}

async fn a_session_is_compacted_from_the_command_line_and_shows_its_marker(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let url = server.url.as_str();
    let api = server.api();
    let settings = json!({"reserve_tokens": 500, "keep_recent_tokens": 50});
    let created = ok(&env, &["agents", "create", "--name", "echo", "--compaction", &settings.to_string(), "--json", "--server", url]);
    let created = json_of(&created);
    assert_eq!(created["compaction"], json!({"reserve_tokens": 500, "keep_recent_tokens": 50, "enabled": true}));
    let agent = created["id"].as_str().unwrap().to_string();
    let session = api.create_session(&agent, None).await;
    for text in ["first question", "second question", "third question"] {
        let run = api.send(&session, text).await;
        api.wait_terminal(&run, std::time::Duration::from_secs(30)).await;
    }
    let queued = json_of(&ok(&env, &["sessions", "compact", &session, "--json", "--server", url]));
    let run = queued["run_id"].as_str().unwrap_or_else(|| panic!("{queued}")).to_string();
    let done = api.wait_terminal(&run, std::time::Duration::from_secs(30)).await;
    assert_eq!((&done["status"], &done["kind"]), (&json!("succeeded"), &json!("compaction")), "{done}");
    // The transcript keeps every message, and says where the compaction is.
    let shown = ok(&env, &["sessions", "show", &session, "--server", url]);
    let at = shown.find("[compacted: 5 messages summarized, 0 tool results pruned]").unwrap_or_else(|| panic!("{shown}"));
    assert!(shown[..at].contains("user: third question"), "{shown}");
    assert!(shown[at..].contains("summary: Summary: User: first question"), "{shown}");
    let followed = ok(&env, &["runs", "show", &run, "--server", url]);
    assert!(followed.contains("[compacted: "), "{followed}");
    let (code, _, err) = env.client_exit(&["sessions", "compact", "nope", "--server", url]);
    assert!(code == 1 && err.contains("404"), "{err}");
}

async fn runs_are_filtered_and_paged_as_the_api_pages_them(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let url = server.url.as_str();
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let other = api.create_session(&agent, None).await;
    for (s, message) in [(&session, "one"), (&other, "two"), (&session, "three"), (&session, "four")] {
        ok(&env, &["send", s, message, "--wait", "--server", url]);
    }
    let (_, all) = api.get("/runs?limit=500&order=desc").await;
    let ids: Vec<&str> = all["runs"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 4);

    let table = ok(&env, &["runs", "--server", url]);
    assert_eq!(table.lines().count(), 5, "a header and a row per run, newest first: {table}");
    assert!(table.lines().nth(1).unwrap().starts_with(ids[0]) && table.contains("succeeded"), "{table}");

    // A page of two, the cursor of the next one, then the rest.
    let page = json_of(&ok(&env, &["runs", "--limit", "2", "--json", "--server", url]));
    let (_, api_page) = api.get("/runs?limit=2&order=desc").await;
    assert_eq!(page, api_page);
    assert_eq!(page["next_after"], ids[1]);
    let (_, _, hint) = env.client_exit(&["runs", "--limit", "2", "--server", url]);
    assert!(hint.contains(&format!("--after {}", ids[1])), "{hint}");
    let rest = json_of(&ok(&env, &["runs", "--after", ids[1], "--json", "--server", url]));
    let rest: Vec<&str> = rest["runs"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(rest, ids[2..]);
    let every = json_of(&ok(&env, &["run", "list", "--all", "--json", "--server", url]));
    assert_eq!(every, all);

    // Filters are the API's.
    let mine = json_of(&ok(&env, &["runs", "--session", &session, "--json", "--server", url]));
    assert_eq!(mine["runs"].as_array().unwrap().len(), 3, "{mine}");
    assert_eq!(ok(&env, &["runs", "--status", "failed", "--server", url]).trim(), "no runs");
    let (code, _, err) = env.client_exit(&["runs", "--status", "nonsense", "--server", url]);
    assert!(code == 1 && err.contains("400") && err.contains("unknown status"), "{err}");

    // Agents and sessions come whole from the API; --limit cuts them.
    let (_, sessions) = api.get("/sessions?order=desc").await;
    let first = json_of(&ok(&env, &["sessions", "--limit", "1", "--json", "--server", url]));
    assert_eq!(first, json!([sessions[0]]));
    let (_, _, hint) = env.client_exit(&["sessions", "--limit", "1", "--server", url]);
    assert!(hint.contains("more") && hint.contains("--all"), "{hint}");
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colour_on_a_terminal_only_and_never_with_no_color() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux), which gives the command a terminal, is not installed");
        return;
    }
    let env = TestEnv::new();
    let server = env.server(0);
    server.api().create_agent(json!({"name": "shown"})).await;
    let on_terminal = |no_color: &str| {
        let command = format!("{} agents --server {}", env!("CARGO_BIN_EXE_wingman"), server.url);
        let out = std::process::Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env("NO_COLOR", no_color)
            .env_remove("TERM")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = on_terminal("");
    assert!(coloured.contains("\x1b[1mID") && coloured.contains("shown"), "{coloured:?}");
    let plain = on_terminal("1");
    assert!(!plain.contains('\x1b') && plain.contains("shown"), "{plain:?}");
    assert!(!ok(&env, &["agents", "--server", &server.url]).contains('\x1b'));
}
