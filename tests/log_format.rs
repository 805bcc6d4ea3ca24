//! `--log-format json`: a server and a worker write one JSON object a line,
//! and every line the worker logs about a run, whichever module logs it,
//! carries that run's `run_id`.

mod common;

use std::time::Duration;

use common::Backend;
use common::TestEnv;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// Every line of a log, each parsed as JSON.
fn json_lines(log: &str) -> Vec<Value> {
    log.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a line that is not JSON ({e}): {l}")))
        .collect()
}

on_both_backends! {
    async fn every_line_the_worker_logs_about_a_run_carries_its_run_id(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_LOG", "debug");
        env.set("WINGMAN_LOG_FORMAT", "json");
        let server = env.server(0);
        let mut worker = env.spawn_client(&["worker", "--log-format", "json", "--name", "json-worker"]);
        let api = server.api();
        let script = json!([{"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}, {"text": "done"}]);
        let agent = api
            .create_agent(json!({"name": "tools", "provider": "scripted", "model": "echo", "tools": ["bash"],
                                 "options": {"script": script}}))
            .await;
        let failing = api
            .create_agent(json!({"name": "failing", "provider": "scripted", "model": "echo",
                                 "options": {"script": [{"error": {"status": 400, "message": "bad request"}}]}}))
            .await;
        let ok_run = api.send(&api.create_session(&agent, None).await, "go").await;
        let failed_run = api.send(&api.create_session(&failing, None).await, "go").await;
        assert_eq!(api.wait_terminal(&ok_run, LIMIT).await["status"], "succeeded");
        assert_eq!(api.wait_terminal(&failed_run, LIMIT).await["status"], "failed");
        assert!(worker.terminate().success());

        let lines = json_lines(&worker.log_text());
        for line in &lines {
            for field in ["timestamp", "level", "target", "message"] {
                assert!(line[field].is_string(), "no {field}: {line}");
            }
            let text = line.to_string();
            for run in [&ok_run, &failed_run] {
                if text.contains(run.as_str()) {
                    assert_eq!(line["run_id"], json!(run), "a line about {run} without its run_id: {line}");
                }
            }
            if line["target"].as_str().is_some_and(|t| t.starts_with("wingman::engine")) {
                assert!(line["run_id"].is_string(), "an engine line outside a run: {line}");
            }
        }
        let tool = lines.iter().find(|l| l["message"] == "tool call done").expect("the tool call's line");
        assert_eq!((&tool["run_id"], &tool["tool"]), (&json!(ok_run), &json!("bash")), "{tool}");
        for (run, status) in [(&ok_run, "succeeded"), (&failed_run, "failed")] {
            // The engine logs the end without naming the run: the span does.
            let ended = lines.iter().find(|l| l["message"] == "run ended" && l["run_id"] == json!(run));
            let ended = ended.unwrap_or_else(|| panic!("no end of {run} in the worker's log: {lines:?}"));
            assert_eq!((&ended["status"], &ended["attempt"]), (&json!(status), &json!(1)), "{ended}");
        }
        assert!(lines.iter().any(|l| l["message"] == "worker started" && l["name"] == "json-worker"));
        let server_lines = json_lines(&server.process.log_text());
        assert!(server_lines.iter().any(|l| l["message"] == "wingman serving"), "{server_lines:?}");

        // The standalone binary reads WINGMAN_LOG_FORMAT too.
        let mut standalone = env.standalone_worker();
        let started = std::time::Instant::now();
        while !standalone.log_text().contains("worker started") {
            assert!(started.elapsed() < LIMIT, "the standalone worker did not start: {}", standalone.log_text());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(standalone.terminate().success());
        assert!(json_lines(&standalone.log_text()).iter().any(|l| l["message"] == "worker stopped"));
    }
}
