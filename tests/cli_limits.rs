//! `wingman limits` and the budgets of `wingman queue`, as a user runs them
//! against a real server: limits declared, listed as a table and as the
//! API's JSON, shown under the queue, and removed; a `set` without a limit
//! is refused before any request, and the server's refusals are errors.

mod common;

use common::{Backend, TestEnv};
use serde_json::{json, Value};

on_both_backends! {
async fn limits_are_declared_listed_shown_in_the_queue_and_removed(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let url = server.url.as_str();
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--server", url]);
        env.client_exit(&all)
    };
    let (code, out, err) = run(&["limits"]);
    assert_eq!((code, out.trim()), (0, "no provider limits declared or learned"), "{err}");
    let (code, out, _) = run(&["queue"]);
    assert!(code == 0 && !out.contains("BUDGET"), "no budgets table without budgets: {out}");

    // Declared: one line, or the budget as the API's JSON.
    let (code, out, err) = run(&["limits", "set", "openai", "--requests-per-minute", "1200"]);
    assert_eq!((code, out.as_str()), (0, "limits of openai set: 1200 requests/min\n"), "{err}");
    let team = ["limits", "set", "anthropic:team", "--tokens-per-minute", "90000", "--max-concurrent", "4", "--json"];
    let (code, out, err) = run(&team);
    let budget: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    assert_eq!(code, 0);
    assert_eq!(budget["name"], "anthropic:team");
    assert_eq!(budget["declared"]["max_concurrent"], 4);
    assert_eq!(budget["tokens_per_minute"], 90000);

    for list in [&["limits", "list", "--json"][..], &["limits", "--json"]] {
        let (code, out, err) = run(list);
        let listed: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{list:?}: {e}: {out} {err}"));
        assert_eq!(code, 0);
        let openai = listed.as_array().unwrap().iter().find(|b| b["name"] == "openai").expect("openai listed");
        assert_eq!(openai["declared"]["requests_per_minute"], 1200, "{listed}");
        assert_eq!(openai["requests_per_minute"], 1200, "in force: {listed}");
        assert_eq!((openai["waiting"].as_u64(), openai["in_flight"].as_u64()), (Some(0), Some(0)), "{listed}");
    }

    // The table: a header, a row a budget, "—" where nothing is set.
    let header = ["BUDGET", "RPM", "TPM", "MAX AT ONCE", "PAUSED UNTIL", "WAITING", "IN FLIGHT"];
    let (code, table, err) = run(&["limits", "list"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(header.iter().all(|h| lines[0].contains(h)), "{table}");
    let cells = |line: &str| -> Vec<String> {
        line.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect()
    };
    assert_eq!(cells(lines[1]), ["anthropic:team", "—", "90000", "4", "—", "0", "0"], "{table}");
    assert_eq!(cells(lines[2]), ["openai", "1200", "—", "—", "—", "0", "0"], "{table}");
    assert_eq!(run(&["limits"]).1, table, "`wingman limits` alone lists");

    // Under the queue's tables.
    let (code, queue, err) = run(&["queue"]);
    assert_eq!(code, 0, "{err}");
    let at = queue.find("BUDGET").unwrap_or_else(|| panic!("a budgets table: {queue}"));
    assert!(queue[at..].lines().any(|l| cells(l) == cells(lines[2])), "{queue}");
    let (_, json, _) = run(&["queue", "--json"]);
    let shown: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(shown["budgets"].as_array().map(Vec::len), Some(2), "{shown}");

    // A set without a limit is refused before any request: here no server answers.
    let (code, _, err) = env.client_exit(&["limits", "set", "openai", "--server", "http://127.0.0.1:9"]);
    assert_eq!(code, 2, "{err}");
    let names_the_flags = err.contains("--requests-per-minute") && err.contains("--max-concurrent");
    assert!(err.starts_with("error: ") && names_the_flags, "{err}");
    assert!(!err.contains("could not reach"), "{err}");
    let (code, _, err) = run(&["limits", "set", "openai", "--max-concurrent", "0"]);
    assert!(code == 2 && err.contains("1..=10000"), "{code} {err}");
    let (code, _, err) = run(&["limits", "set", "nobody/else", "--max-concurrent", "1"]);
    assert!(code == 1 && err.starts_with("error: 400 Bad Request: "), "{code} {err}");

    // Removed, then removed again: the server's 404.
    let (code, out, err) = run(&["limits", "remove", "openai"]);
    assert_eq!((code, out.as_str()), (0, "limits of openai removed\n"), "{err}");
    let (code, out, err) = run(&["limits", "remove", "openai"]);
    assert_eq!(code, 1, "{out}");
    assert!(err.starts_with("error: 404 Not Found: ") && err.contains("openai"), "{err}");
    let (code, out, _) = run(&["limits", "delete", "anthropic:team", "--json"]);
    assert_eq!((code, serde_json::from_str::<Value>(&out).unwrap()), (0, json!({"status": "deleted"})));
    let (_, out, _) = run(&["limits", "list", "--json"]);
    let listed: Value = serde_json::from_str(&out).unwrap();
    let openai = listed.as_array().unwrap().iter().find(|b| b["name"] == "openai");
    assert!(openai.is_none_or(|b| b["declared"] == json!({}) && b["requests_per_minute"].is_null()), "{listed}");
}
}
