//! Schedules through real processes: three API servers on one database fire
//! an `every: "1s"` schedule for a minute and each tick makes one run; a
//! 6-field cron in a time zone, after every process was SIGKILLed, runs only
//! the newest tick it missed; `overlap: skip` skips while a run goes on;
//! pause and resume; the CLI.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

async fn echo_session(api: &Api) -> String {
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    api.create_session(&agent, None).await
}

async fn create(api: &Api, body: Value) -> Value {
    let (status, schedule) = api.post("/schedules", body).await;
    assert_eq!(status, 201, "{schedule}");
    schedule
}

/// A schedule's ticks, oldest first.
async fn ticks(api: &Api, id: &str) -> Vec<Value> {
    let (status, answer) = api.get(&format!("/schedules/{id}/runs?limit=500")).await;
    assert_eq!(status, 200, "{answer}");
    let mut ticks = answer["ticks"].as_array().unwrap().clone();
    ticks.reverse();
    ticks
}

fn tick_time(tick: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(tick["tick_at"].as_str().unwrap()).unwrap().with_timezone(&Utc)
}

/// The runs of a session, oldest first.
async fn session_runs(api: &Api, session: &str) -> Vec<Value> {
    let (_, page) = api.get(&format!("/runs?session_id={session}&limit=500")).await;
    page["runs"].as_array().unwrap().clone()
}

on_both_backends! {
async fn three_servers_enqueue_each_tick_of_every_second_once(backend: Backend) {
    let env = TestEnv::on(backend);
    let servers = [env.server(1), env.server(1), env.server(1)];
    let api = servers[0].api();
    let session = echo_session(&api).await;
    let target = json!({"session_id": session, "message": "tick"});
    let schedule = create(&api, json!({"name": "each second", "every": "1s", "target": target, "overlap": "enqueue"})).await;
    let id = schedule["id"].as_str().unwrap();
    tokio::time::sleep(Duration::from_secs(60)).await;
    let (status, _) = servers[1].api().post(&format!("/schedules/{id}/pause"), json!({})).await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;

    let ticks = ticks(&api, id).await;
    let runs = session_runs(&api, &session).await;
    let times: Vec<DateTime<Utc>> = ticks.iter().map(tick_time).collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "one record per tick");
    assert!(times.iter().all(|t| t.timestamp_subsec_millis() == 0), "ticks fall on whole seconds");
    let submitted: Vec<&str> = ticks.iter().filter_map(|t| t["id"].as_str()).collect();
    assert_eq!(submitted.len(), ticks.len(), "every tick submitted: {ticks:?}");
    assert_eq!(submitted.iter().collect::<HashSet<_>>().len(), submitted.len(), "a run per tick");
    let run_ids: HashSet<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(run_ids, submitted.iter().copied().collect(), "no run without its tick, no tick without its run");
    let span = (*times.last().unwrap() - times[0]).num_seconds() + 1;
    let missed = span - times.len() as i64;
    eprintln!("{backend:?}: {} ticks over {span} s, {missed} missed", times.len());
    assert!(times.len() >= 55 && missed <= 2, "{} ticks over {span} s", times.len());
}
}

on_both_backends! {
async fn after_downtime_only_the_newest_missed_cron_tick_runs(backend: Backend) {
    let env = TestEnv::on(backend);
    let mut server = env.server(1);
    let api = server.api();
    let session = echo_session(&api).await;
    let target = json!({"session_id": session, "message": "tick"});
    let body = json!({"name": "berlin seconds", "cron": "* * * * * *", "timezone": "Europe/Berlin", "target": target});
    let schedule = create(&api, body).await;
    let id = schedule["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let before = ticks(&api, &id).await.len();
    server.process.kill9();
    assert!(before >= 1, "it ticked before the crash");
    tokio::time::sleep(Duration::from_secs(5)).await;

    let server = env.server(1);
    let api = server.api();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = ticks(&api, &id).await;
    let times: Vec<DateTime<Utc>> = after.iter().map(tick_time).collect();
    let gap = times.windows(2).map(|w| (w[1] - w[0]).num_seconds()).max().unwrap();
    assert!(gap >= 4, "the ticks of the downtime were let go, not made up: {times:?}");
    assert!(after.len() <= before + 2, "only the newest missed tick ran at the restart: {before} then {times:?}");
    let (_, schedule) = api.get(&format!("/schedules/{id}")).await;
    assert!(schedule["next_tick_at"].as_str().is_some(), "{schedule}");
}
}

on_both_backends! {
async fn overlap_skip_waits_for_the_run_and_pause_stops_ticks(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let words = "one two three four five six seven eight nine ten eleven twelve";
    let slow = json!({"name": "slow", "options": {"chunk_delay_ms": 250, "script": [{"text": words}]}});
    let agent = api.create_agent(slow).await;
    let session = api.create_session(&agent, None).await;
    let target = json!({"session_id": session, "message": "go"});
    let schedule = create(&api, json!({"name": "slow", "every": "1s", "target": target})).await;
    assert_eq!(schedule["overlap"], "skip", "the default");
    let id = schedule["id"].as_str().unwrap();
    tokio::time::sleep(Duration::from_secs(6)).await;
    let (status, paused) = api.post(&format!("/schedules/{id}/pause"), json!({})).await;
    assert_eq!((status, paused["paused"].as_bool(), &paused["next_tick_at"]), (200, Some(true), &Value::Null));

    let fired = ticks(&api, id).await;
    let skipped = fired.iter().filter(|t| t["skipped"].is_string()).count();
    assert!(skipped >= 2, "ticks while a run went on were skipped: {fired:?}");
    assert!(fired.iter().any(|t| t["skipped"].as_str().is_some_and(|s| s.contains("overlap: skip"))));
    let runs = session_runs(&api, &session).await;
    assert_eq!(runs.len(), fired.len() - skipped, "{fired:?}");
    assert!(runs.len() >= 2, "a run, and after it ended another: {runs:?}");
    // No run started before the one before it had ended.
    for pair in runs.windows(2) {
        let run = api.wait_terminal(pair[0]["id"].as_str().unwrap(), LIMIT).await;
        assert!(run["finished_at"].as_str().unwrap() <= pair[1]["created_at"].as_str().unwrap(), "{run} {}", pair[1]);
    }

    let count = ticks(&api, id).await.len();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(ticks(&api, id).await.len(), count, "paused: no tick");
    let (status, resumed) = api.post(&format!("/schedules/{id}/resume"), json!({})).await;
    assert_eq!((status, resumed["paused"].as_bool()), (200, Some(false)));
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(ticks(&api, id).await.len() > count, "resumed: ticks again");
}
}

#[tokio::test]
async fn bad_schedules_are_refused_and_write_nothing() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let session = echo_session(&api).await;
    let target = json!({"session_id": session, "message": "x"});
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let fleet = fleet["id"].as_str().unwrap();
    let cases = [
        (json!({"name": "a", "every": "1m", "target": {"fleet_id": fleet, "tasks": []}}), 400, "at least one"),
        (json!({"name": "a", "target": target}), 400, "cron or every"),
        (json!({"name": "a", "cron": "* * * *", "target": target}), 400, "5, or 6"),
        (json!({"name": "a", "cron": "* * * * *", "every": "1s", "target": target}), 400, "not both"),
        (json!({"name": "a", "every": "1w", "target": target}), 400, "period"),
        (json!({"name": "a", "cron": "0 9 * * *", "timezone": "Moon/Base", "target": target}), 400, "IANA"),
        (json!({"name": " ", "every": "1m", "target": target}), 400, "name"),
        (json!({"name": "a", "every": "1m", "target": {"session_id": "nope", "message": "x"}}), 404, "session"),
        (
            json!({"name": "a", "every": "1m", "target": {"fleet_id": "nope", "tasks": [{"message": "x"}]}}),
            404,
            "fleet",
        ),
        (json!({"name": "a", "every": "1m", "target": {"fleet_id": "f", "tasks": []}}), 404, "fleet f"),
        (json!({"name": "a", "every": "1m", "target": {"formation_id": "nope", "input": "x"}}), 404, "formation"),
        (json!({"name": "a", "every": "1m", "target": {"what": 1}}), 422, ""),
    ];
    for (body, expected, words) in cases {
        let (status, answer) = api.post("/schedules", body.clone()).await;
        assert_eq!(status, expected, "{body}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains(words), "{words:?} in {answer}");
    }
    let (_, list) = api.get("/schedules").await;
    assert_eq!(list, json!([]), "nothing written");
    let (status, _) = api.get("/schedules/nope/runs").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_cli_creates_lists_pauses_resumes_and_deletes_schedules() {
    let env = TestEnv::new();
    let server = env.server(1);
    let api = server.api();
    let session = echo_session(&api).await;
    let url = server.url.clone();
    let cli = |args: &[&str]| {
        let mut all = vec!["schedule", "--server", url.as_str()];
        all.extend_from_slice(args);
        env.client(&all)
    };
    let (ok, out) = cli(&[
        "create",
        "--json",
        "--name",
        "morning",
        "--cron",
        "0 30 9 * * MON-FRI",
        "--timezone",
        "Europe/Paris",
        "--session",
        &session,
        "--message",
        "Good morning",
    ]);
    assert!(ok, "{out}");
    let created: Value = serde_json::from_str(&out).unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(
        (created["cron"].as_str(), created["timezone"].as_str()),
        (Some("0 30 9 * * MON-FRI"), Some("Europe/Paris"))
    );
    let (ok, out) = cli(&["list"]);
    assert!(ok && out.contains(&id) && out.contains("morning") && out.contains("Europe/Paris"), "{out}");
    let (ok, out) = cli(&["pause", &id, "--json"]);
    assert!(ok && out.contains("\"paused\": true"), "{out}");
    let (ok, out) = cli(&["list"]);
    assert!(ok && out.contains("paused"), "{out}");
    let (ok, out) = cli(&["resume", &id, "--json"]);
    assert!(ok && out.contains("\"paused\": false"), "{out}");
    let (ok, out) =
        cli(&["create", "--name", "fast", "--every", "1s", "--session", &session, "--message", "hi", "--json"]);
    assert!(ok, "{out}");
    let fast: Value = serde_json::from_str(&out).unwrap();
    let fast = fast["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (ok, out) = cli(&["runs", &fast]);
    assert!(ok && out.contains("run "), "{out}");
    let (ok, out) = cli(&["delete", &fast]);
    assert!(ok, "{out}");
    let (code, _, err) = env.client_exit(&["schedule", "create", "--name", "x", "--every", "1s", "--server", &url]);
    assert!(code != 0 && err.contains("give a target"), "{err}");
    let (status, _) = api.get(&format!("/schedules/{fast}")).await;
    assert_eq!(status, 404);
}
