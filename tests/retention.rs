//! Retention with the real binaries: `DELETE /runs/{id}` of a run that has
//! ended (and only of one), and the server's pruner deleting 100,000 old
//! events in small batches while new runs keep flowing through a separate
//! worker.

mod common;

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use common::Backend;
use common::{assert_dense, report_figure, Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

fn echo_agent() -> Value {
    json!({"name": "echo", "provider": "scripted", "model": "echo"})
}

async fn history(api: &Api, session: &str) -> Vec<Value> {
    let (status, body) = api.get(&format!("/sessions/{session}")).await;
    assert_eq!(status, 200, "{body}");
    body["history"].as_array().expect("history").clone()
}

/// The status of an SSE request for a run's events.
async fn sse_status(api: &Api, run: &str) -> u16 {
    let url = format!("{}/runs/{run}/events", api.base);
    api.http.get(url).header("Accept", "text/event-stream").send().await.unwrap().status().as_u16()
}

on_both_backends! {
    async fn a_run_that_has_ended_is_deleted_and_one_that_has_not_is_refused(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        let agent = api.create_agent(echo_agent()).await;
        let session = api.create_session(&agent, None).await;

        let (status, body) = api.request(reqwest::Method::DELETE, "/runs/no-such-run", None).await;
        assert_eq!((status, body["error"].as_str()), (404, Some("run no-such-run not found")));
        // No worker yet: the run stays queued, and a queued run is not deleted.
        let run = api.send(&session, "hello").await;
        let (status, body) = api.request(reqwest::Method::DELETE, &format!("/runs/{run}"), None).await;
        assert_eq!(status, 409, "{body}");
        assert!(body["error"].as_str().unwrap().contains("queued"), "{body}");
        assert_eq!(api.run(&run).await["status"], "queued", "a refused deletion changes nothing");

        let _worker = env.worker();
        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        let before = history(&api, &session).await;
        assert_eq!(before.len(), 2, "{before:?}");
        let (status, body) = api.request(reqwest::Method::DELETE, &format!("/runs/{run}"), None).await;
        assert_eq!((status, body), (200, json!({"status": "deleted"})));

        assert_eq!(api.get(&format!("/runs/{run}")).await.0, 404);
        assert_eq!(api.get(&format!("/runs/{run}/events")).await.0, 404);
        assert_eq!(sse_status(&api, &run).await, 404, "a tail of a deleted run is refused");
        let (_, listed) = api.get(&format!("/runs?session_id={session}")).await;
        assert_eq!(listed["runs"], json!([]), "{listed}");
        assert_eq!(history(&api, &session).await, before, "the session keeps its conversation");
        let (status, _) = api.request(reqwest::Method::DELETE, &format!("/runs/{run}"), None).await;
        assert_eq!(status, 404);
        // A cursor that names the deleted run has no place in the queue: a
        // 400 that says so, never a silently empty page.
        let (status, body) = api.get(&format!("/runs?after={run}")).await;
        assert!(status == 400 && body["error"].as_str().unwrap().contains("first page"), "{status} {body}");
        // The session goes on.
        let next = api.send(&session, "again").await;
        assert_eq!(api.wait_terminal(&next, LIMIT).await["status"], "succeeded");
        assert_eq!(history(&api, &session).await.len(), 4);
    }

    async fn the_pruner_deletes_100k_old_events_in_batches_while_runs_flow(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_RETAIN_DAYS", "7");
        env.set("WINGMAN_PRUNE_INTERVAL_MS", "300");
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let agent = api.create_agent(echo_agent()).await;
        let (sessions, old_runs) = sessions_with_history(&api, &agent).await;

        let flow = Flow::start(&api, &agent).await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (seeding, seed_began) = (Instant::now(), Utc::now());
        let month_ago = Utc::now().timestamp_millis() - 30 * 86_400_000;
        env.execute(&seed_sql(&old_runs, month_ago)).await;
        let (seed_took, seeded_at) = (seeding.elapsed(), Utc::now());
        let old_events = format!(
            "SELECT COUNT(*) FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.finished_at < {}",
            month_ago + 86_400_000
        );
        let pruned_in = wait_for_none(&env, &old_events).await;
        let pruned_at = Utc::now();
        tokio::time::sleep(Duration::from_secs(1)).await;
        let runs = flow.stop().await;
        assert_eq!(env.count(&old_events.replace("run_events", "checkpoints"), &[]).await, 0, "old checkpoints too");

        let timings = check_flowed(&api, &runs).await;
        for (session, before) in &sessions {
            assert_eq!(&history(&api, session).await, before, "the history stays");
        }
        let old_run = api.run(&old_runs[0]).await;
        assert_eq!((&old_run["status"], &old_run["response"]), (&json!("succeeded"), &json!("message 0.0")));
        assert_eq!(api.events(&old_runs[0]).await, Vec::<Value>::new());
        assert_eq!(sse_status(&api, &old_runs[0]).await, 204, "a pruned log is a finished one");
        let log = server.process.log_text();
        let pass = log.lines().find(|l| l.contains("pruned old logs")).unwrap_or_else(|| panic!("no pass:\n{log}"));
        let events: u64 = field(pass, "events=").parse().unwrap();
        assert!(events >= 100_000, "one pass pruned every old event: {pass}");

        let before: Vec<&Timing> = timings.iter().filter(|t| t.created < seed_began).collect();
        let during: Vec<&Timing> = timings.iter().filter(|t| t.created > seeded_at && t.created < pruned_at).collect();
        assert!(!during.is_empty(), "runs flowed while the pruner worked");
        let report = |line: String| report_figure("retention_flow", &format!("{backend:?}: {line}"));
        report(format!("seeded 100,000 old events and 2,000 checkpoints in {} ms", seed_took.as_millis()));
        report(format!("old events gone {} ms after the seed; the pass: {}", pruned_in.as_millis(), pass_fields(pass)));
        report(format!("before pruning, {} runs: {}", before.len(), Timing::summary(&before)));
        report(format!("while pruning, {} runs: {}", during.len(), Timing::summary(&during)));
    }
}

/// Three sessions with three finished runs each: (each session with its
/// history, every run).
async fn sessions_with_history(api: &Api, agent: &str) -> (Vec<(String, Vec<Value>)>, Vec<String>) {
    let mut sessions = Vec::new();
    let mut runs = Vec::new();
    for i in 0..3 {
        let session = api.create_session(agent, None).await;
        for j in 0..3 {
            let run = api.send(&session, &format!("message {i}.{j}")).await;
            assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
            runs.push(run);
        }
        sessions.push((session.clone(), history(api, &session).await));
    }
    (sessions, runs)
}

/// Waits until a `SELECT COUNT(*)` finds none; returns how long that took.
async fn wait_for_none(env: &TestEnv, count: &str) -> Duration {
    let started = Instant::now();
    while env.count(count, &[]).await > 0 {
        assert!(started.elapsed() < Duration::from_secs(300), "still some after 5 minutes: {count}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    started.elapsed()
}

/// Checks that every run of the flow succeeded with a dense log; returns their timings.
async fn check_flowed(api: &Api, runs: &[String]) -> Vec<Timing> {
    let mut timings = Vec::new();
    for id in runs {
        let run = api.wait_terminal(id, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
        assert_dense(&api.events(id).await);
        timings.push(Timing::of(&run));
    }
    timings
}

/// The SQL that makes `runs` a month old and adds 1,000 runs that ended a
/// month ago, with 100 events and 2 checkpoints each, copied from the first.
/// A write's events are one row: each run's 100 come as 20 writes of 5.
fn seed_sql(runs: &[String], month_ago: i64) -> String {
    let ids: Vec<String> = runs.iter().map(|r| format!("'{r}'")).collect();
    let (ids, template) = (ids.join(", "), &runs[0]);
    let numbers =
        |n: u32| format!("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {})", n - 1);
    format!(
        "UPDATE runs SET finished_at = {month_ago} WHERE id IN ({ids});
         {} INSERT INTO runs (id, kind, status, agent_id, agent, agent_digest, input, work_dir, max_attempts,
                              event_seq, response, created_at, started_at, finished_at, updated_at, owner)
            SELECT 'old-' || CAST(i AS TEXT), kind, status, agent_id, agent, agent_digest, input, work_dir, max_attempts, 100,
                   response, {month_ago}, {month_ago}, {month_ago}, {month_ago}, owner
            FROM runs, n WHERE runs.id = '{template}';
         {} {};
         {} INSERT INTO checkpoints (run_id, step, kind, call_id, body, created_at)
            SELECT 'old-' || CAST(i / 2 AS TEXT), 1 + i % 2, 'inference', '', '{{}}', {month_ago} FROM n",
        numbers(1000),
        numbers(20_000),
        old_events_sql(month_ago),
        numbers(2000),
    )
}

/// The insert of [`seed_sql`]'s old events, from the numbers `n(i)`:
/// each run's 100 as 20 writes of 5.
fn old_events_sql(month_ago: i64) -> String {
    let delta = r#"["text_delta",{"step":1,"text":"old"}]"#;
    format!(
        "INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
         SELECT 'old-' || CAST(i / 20 AS TEXT), i % 20 * 5 + 1, i % 20 * 5 + 5, '[{}]', {month_ago} FROM n",
        [delta; 5].join(",")
    )
}

/// The figures of the pass line the server logged (`events=… took_ms=…`).
fn pass_fields(line: &str) -> String {
    let keep = ["events=", "checkpoints=", "logs=", "batches=", "took_ms="];
    line.split_whitespace().filter(|w| keep.iter().any(|k| w.starts_with(k))).collect::<Vec<_>>().join(" ")
}

/// The value of `name` in a logged line.
fn field<'a>(line: &'a str, name: &str) -> &'a str {
    line.split_whitespace().find_map(|w| w.strip_prefix(name)).unwrap_or_else(|| panic!("no {name} in {line}"))
}

/// Runs submitted steadily, round-robin over a few sessions, until stopped.
struct Flow {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Vec<String>>,
}

impl Flow {
    async fn start(api: &Api, agent: &str) -> Flow {
        let mut sessions = Vec::new();
        for _ in 0..8 {
            sessions.push(api.create_session(agent, None).await);
        }
        let (stop, mut stopped) = tokio::sync::oneshot::channel();
        let api = api.clone();
        let task = tokio::spawn(async move {
            let mut runs = Vec::new();
            let mut tick = tokio::time::interval(Duration::from_millis(25));
            while stopped.try_recv().is_err() {
                tick.tick().await;
                let session = &sessions[runs.len() % sessions.len()];
                runs.push(api.send(session, &format!("flowing {}", runs.len())).await);
            }
            runs
        });
        Flow { stop, task }
    }

    async fn stop(self) -> Vec<String> {
        let _ = self.stop.send(());
        self.task.await.unwrap()
    }
}

/// When a run was submitted, how long until a worker picked it up, and how
/// long its execution and commits took from there.
struct Timing {
    created: DateTime<Utc>,
    pickup: Duration,
    execution: Duration,
}

impl Timing {
    fn of(run: &Value) -> Timing {
        let at = |field: &str| -> DateTime<Utc> { run[field].as_str().unwrap().parse().unwrap() };
        let (created, started, finished) = (at("created_at"), at("started_at"), at("finished_at"));
        let ms = |d: chrono::Duration| Duration::from_millis(d.num_milliseconds().max(0) as u64);
        Timing { created, pickup: ms(started - created), execution: ms(finished - started) }
    }

    fn summary(all: &[&Timing]) -> String {
        let quantiles = |mut d: Vec<Duration>| {
            d.sort();
            let at = |q: f64| d.get(((d.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default().as_millis();
            format!("p50 {} ms, p99 {} ms, max {} ms", at(0.5), at(0.99), at(1.0))
        };
        format!(
            "pickup {}; execution and commit {}",
            quantiles(all.iter().map(|t| t.pickup).collect()),
            quantiles(all.iter().map(|t| t.execution).collect())
        )
    }
}
