//! `GET /metrics` on the server and on a separate worker (`--metrics-addr`):
//! after a workload that succeeds and fails runs, runs tools, is charged at a
//! price, has a run rescued from a killed worker and a stalled worker's write
//! refused, both scrapes parse as the Prometheus text format and every family
//! holds the counts the workload produced. A worker started with a token
//! asks a scrape for it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use common::{step_agent, Api, Backend, Process, TestEnv};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);

/// Every family the server serves; the worker serves those up to the lease ones.
const WORKER_FAMILIES: &[&str] = &[
    "wingman_runs_finished_total",
    "wingman_step_duration_seconds",
    "wingman_provider_request_duration_seconds",
    "wingman_tokens_total",
    "wingman_cost_usd_total",
    "wingman_lease_rescues_total",
    "wingman_fenced_writes_refused_total",
    "wingman_compactions_total",
    "wingman_history_cache_bytes",
    "wingman_history_cache_sessions",
    "process_resident_memory_bytes",
    "wingman_sqlite_memory_bytes",
];
const SERVER_FAMILIES: &[&str] = &[
    "wingman_event_pump_lag_seconds",
    "wingman_http_requests_total",
    "wingman_event_tails_open",
    "wingman_http_connections_stalled_total",
    "wingman_queue_depth",
    "wingman_workers_live",
];

on_both_backends! {
async fn the_server_and_a_worker_count_a_workload(backend: Backend) {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_MAX_ATTEMPTS", "10");
    // A dollar per input token and two per output token: the cost is a
    // function of the token counts the test can check.
    let pricing = env.path().join("pricing.json");
    std::fs::write(&pricing, json!({"scripted": {"*": {"input": 1_000_000, "output": 2_000_000}}}).to_string()).unwrap();
    env.set("WINGMAN_PRICING_FILE", &pricing.to_string_lossy());
    let server = env.server(0);
    let api = server.api();

    let (rescued, mut watched) = rescue_a_run(&mut env, &api).await;
    let worker_url = metrics_url(&watched).await;
    let refusing = json!({"name": "refused", "options": {"script": [{"error": {"status": 400, "message": "no"}}]}});
    let failed = api.send(&api.create_session(&api.create_agent(refusing).await, None).await, "go").await;
    assert_eq!(api.wait_terminal(&failed, LIMIT).await["status"], "failed");
    let (stalled, _rescuer) = stall_past_the_lease(&env, &api, &mut watched).await;
    let parked = park_two_runs(&api).await;
    let (status, _) = api.get("/no/such/route").await;
    assert_eq!(status, 404);

    let worker = scrape(&worker_url).await;
    let served = WORKER_FAMILIES.iter().all(|f| worker.typed.contains_key(*f));
    assert!(served, "the worker serves every family of its own:\n{}", worker.text);
    assert!(!worker.typed.contains_key("wingman_http_requests_total"), "{}", worker.text);
    check_worker(&worker);
    let scraped = scrape(&format!("{}/metrics", server.url)).await;
    check_server(&scraped, 5);
    for process in [&scraped, &worker] {
        let resident = process.value("process_resident_memory_bytes", &[]).unwrap_or(0.0);
        assert!(resident > 5e6, "a process's resident memory is megabytes: {resident}");
        let sqlite = process.value("wingman_sqlite_memory_bytes", &[]).unwrap_or(-1.0);
        match backend {
            Backend::Sqlite => assert!(sqlite > 0.0 && sqlite < resident, "SQLite's share: {sqlite}"),
            Backend::Postgres => assert_eq!(sqlite, 0.0, "no SQLite in a process on PostgreSQL"),
        }
    }
    for run in [&rescued, &failed, &stalled, &parked[0], &parked[1]] {
        assert!(!scraped.text.contains(run.as_str()) && !worker.text.contains(run.as_str()), "no run ID in a label");
    }
    // Only /metrics is served beside the worker.
    let other = reqwest::get(worker_url.replace("/metrics", "/runs")).await.unwrap();
    assert_eq!(other.status().as_u16(), 404);
}
}

#[tokio::test]
async fn a_workers_metrics_ask_for_the_token_it_was_started_with() {
    const TOKEN: &str = "wm-metrics-token-51d0";
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let worker = metrics_worker(&mut env);
    let url = metrics_url(&worker).await;
    let client = reqwest::Client::new();
    for presented in [None, Some("Bearer not-the-token"), Some("Basic d206dG9rZW4=")] {
        let mut request = client.get(&url);
        if let Some(value) = presented {
            request = request.header("authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), 401, "{presented:?}");
        assert!(response.headers().contains_key("www-authenticate"));
        let body: serde_json::Value = response.json().await.unwrap();
        assert!(body["error"].as_str().is_some_and(|e| !e.contains(TOKEN)), "{body}");
    }
    let response = client.get(&url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let scraped = Scrape::parse(&response.text().await.unwrap());
    assert!(WORKER_FAMILIES.iter().all(|f| scraped.typed.contains_key(*f)), "{}", scraped.text);
    assert!(!worker.log_text().contains(TOKEN), "the token is never logged");
}

/// A run of three tool steps, followed live over SSE (the event pump
/// delivers while someone listens): a plain worker starts it and is killed;
/// a worker serving its metrics, started then, rescues it. Returns the run
/// and that worker.
async fn rescue_a_run(env: &mut TestEnv, api: &Api) -> (String, Process) {
    let run = api.send(&api.create_session(&api.create_agent(step_agent(3)).await, None).await, "go").await;
    let tail = tokio::spawn({
        let (api, run) = (api.clone(), run.clone());
        async move { api.sse_read(&run, None, None).await }
    });
    let mut victim = env.worker();
    api.wait_event(&run, LIMIT, |e| e["type"] == "tool_result").await;
    victim.kill9();
    let watched = metrics_worker(env);
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let (_, done) = tail.await.unwrap();
    assert!(done, "the live tail saw the run end");
    (run, watched)
}

/// A run that waits for approval, and one queued behind it in its session.
async fn park_two_runs(api: &Api) -> [String; 2] {
    let asks = json!({"name": "asks", "tools": ["bash"], "approve_tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": "true"}}]}, {"text": "ok"}]}});
    let session = api.create_session(&api.create_agent(asks).await, None).await;
    let waiting = api.send(&session, "ask first").await;
    api.wait_event(&waiting, LIMIT, |e| e["type"] == "approval_requested").await;
    let queued = api.send(&session, "then this").await;
    [waiting, queued]
}

/// What the server saw: every family, the queue as the workload left it,
/// `sends` messages submitted, one request to no route, live deliveries,
/// and no run ended by a worker of its own.
fn check_server(scraped: &Scrape, sends: u32) {
    let text = &scraped.text;
    for family in WORKER_FAMILIES.iter().chain(SERVER_FAMILIES) {
        assert!(scraped.typed.contains_key(*family), "the server serves {family}:\n{text}");
    }
    assert_eq!(scraped.total("wingman_runs_finished_total", &[]), 0.0, "no embedded worker ran anything");
    assert_eq!(scraped.value("wingman_queue_depth", &[("status", "waiting")]), Some(1.0), "{text}");
    assert_eq!(scraped.value("wingman_queue_depth", &[("status", "queued")]), Some(1.0), "{text}");
    assert_eq!(scraped.value("wingman_queue_depth", &[("status", "running")]), Some(0.0), "{text}");
    let live = scraped.value("wingman_workers_live", &[]).unwrap_or(0.0);
    assert!((1.0..=2.0).contains(&live), "two workers run, one was killed: {live}");
    let submitted = [("method", "POST"), ("route", "/sessions/{id}/message"), ("status", "202")];
    assert_eq!(scraped.value("wingman_http_requests_total", &submitted), Some(sends as f64), "{text}");
    let unmatched = [("method", "GET"), ("route", "unmatched"), ("status", "404")];
    assert_eq!(scraped.value("wingman_http_requests_total", &unmatched), Some(1.0), "{text}");
    assert!(scraped.total("wingman_event_pump_lag_seconds_count", &[]) > 0.0, "{text}");
}

/// What the metrics worker did: one rescue at least, one run of each end,
/// tool and inference steps, answers and refusals of the provider, tokens
/// charged at the test's prices, and the refused write of its stall.
fn check_worker(worker: &Scrape) {
    let text = &worker.text;
    assert!(worker.total("wingman_runs_finished_total", &[("status", "succeeded")]) >= 1.0, "{text}");
    assert_eq!(worker.value("wingman_runs_finished_total", &[("status", "failed")]), Some(1.0), "{text}");
    assert!(worker.total("wingman_lease_rescues_total", &[]) >= 1.0, "{text}");
    assert!(worker.total("wingman_fenced_writes_refused_total", &[]) >= 1.0, "{text}");
    for kind in ["inference", "tool"] {
        assert!(worker.total("wingman_step_duration_seconds_count", &[("kind", kind)]) >= 1.0, "{kind}: {text}");
    }
    for outcome in ["ok", "error"] {
        let labels = [("provider", "scripted"), ("model", "echo"), ("outcome", outcome)];
        assert!(worker.total("wingman_provider_request_duration_seconds_count", &labels) >= 1.0, "{text}");
    }
    let model = [("provider", "scripted"), ("model", "echo")];
    let tokens = |kind| worker.value("wingman_tokens_total", &[model[0], model[1], ("kind", kind)]).unwrap_or(0.0);
    let (input, output) = (tokens("input"), tokens("output"));
    assert!(input > 0.0 && output > 0.0, "{text}");
    let cost = worker.value("wingman_cost_usd_total", &model).unwrap_or(0.0);
    assert!((cost - (input + 2.0 * output)).abs() < 1e-6, "cost {cost} for {input} in, {output} out: {text}");
}

/// Freezes the metrics worker in the middle of a tool call until another
/// worker has taken the run over, then lets it go on: its write of the call's
/// result is refused by the fence. Returns the run and the worker that took
/// it over (alive while the caller keeps it).
async fn stall_past_the_lease(env: &TestEnv, api: &Api, watched: &mut Process) -> (String, Process) {
    let seconds = format!("1.{}", fastrand::u32(100_000..1_000_000));
    let agent = json!({"name": "slow", "tools": ["bash"], "options": {"script": [
        {"tool_calls": [{"name": "bash", "input": {"command": format!("sleep {seconds}")}}]}, {"text": "done"}]}});
    let run = api.send(&api.create_session(&api.create_agent(agent).await, None).await, "go").await;
    let tool = common::wait_marked(&seconds, 1, LIMIT).await[0];
    match env.backend {
        Backend::Sqlite => watched.stop_outside_transaction(&env.db()).await,
        Backend::Postgres => watched.stop(),
    }
    // Past the 1 s lease another worker takes the run over.
    let rescuer = env.worker();
    api.wait_event(&run, LIMIT, |e| e["type"] == "run_started" && e["attempt"] == 2).await;
    let start = Instant::now();
    while common::running(tool) {
        assert!(start.elapsed() < LIMIT, "the stalled worker's tool call never ended");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    watched.resume();
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    wait_for_log(watched, "lease lapsed").await;
    (run, rescuer)
}

/// Starts a worker that serves its metrics on a free port.
fn metrics_worker(env: &mut TestEnv) -> Process {
    env.set("WINGMAN_METRICS_ADDR", "127.0.0.1:0");
    let worker = env.worker();
    env.env.retain(|(key, _)| key != "WINGMAN_METRICS_ADDR");
    worker
}

/// The worker's metrics URL, from the line its log gives the bound address in.
async fn metrics_url(worker: &Process) -> String {
    let line = wait_for_log(worker, "serving metrics").await;
    let addr = line.split_whitespace().find_map(|w| w.strip_prefix("addr=")).expect("the address in the log line");
    format!("http://{addr}/metrics")
}

async fn wait_for_log(worker: &Process, text: &str) -> String {
    let start = Instant::now();
    loop {
        if let Some(line) = worker.log_text().lines().find(|l| l.contains(text)) {
            return line.to_string();
        }
        assert!(start.elapsed() < LIMIT, "no {text:?} in the worker's log: {}", worker.log_text());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn scrape(url: &str) -> Scrape {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_string();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    Scrape::parse(&response.text().await.unwrap())
}

/// A scrape read as the text format: every line a `# HELP`, a `# TYPE` or a
/// sample `name{label="value",…} value` of a family declared above it.
struct Scrape {
    text: String,
    typed: BTreeMap<String, String>,
    samples: Vec<Sample>,
}

struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

impl Scrape {
    fn parse(text: &str) -> Scrape {
        let mut helped = BTreeSet::new();
        let mut typed = BTreeMap::new();
        let mut samples = Vec::new();
        for line in text.lines() {
            if let Some(help) = line.strip_prefix("# HELP ") {
                let (name, doc) = help.split_once(' ').unwrap_or_else(|| panic!("HELP without text: {line}"));
                assert!(valid_name(name) && !doc.trim().is_empty(), "{line}");
                assert!(helped.insert(name.to_string()), "HELP twice: {line}");
            } else if let Some(kind) = line.strip_prefix("# TYPE ") {
                let (name, kind) = kind.split_once(' ').unwrap_or_else(|| panic!("TYPE without a type: {line}"));
                assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
                assert!(helped.contains(name), "TYPE before HELP: {line}");
                assert!(typed.insert(name.to_string(), kind.to_string()).is_none(), "TYPE twice: {line}");
            } else {
                assert!(!line.starts_with('#') && !line.is_empty(), "unexpected line {line:?}");
                let sample = parse_sample(line);
                let family = family_of(&sample.name, &typed).unwrap_or_else(|| panic!("no TYPE above {line}"));
                check_suffix(&sample, &typed[&family], line);
                samples.push(sample);
            }
        }
        let scrape = Scrape { text: text.to_string(), typed, samples };
        scrape.check_histograms();
        scrape
    }

    /// The value of the sample with exactly these labels.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let wanted: BTreeMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        self.samples.iter().find(|s| s.name == name && s.labels == wanted).map(|s| s.value)
    }

    /// The sum of the samples of `name` whose labels include these.
    fn total(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let matches = |s: &&Sample| labels.iter().all(|(k, v)| s.labels.get(*k).is_some_and(|x| x == v));
        self.samples.iter().filter(|s| s.name == name).filter(matches).map(|s| s.value).sum()
    }

    /// Each histogram series: buckets that never decrease, ending with
    /// `+Inf`, which equals `_count`.
    fn check_histograms(&self) {
        type Labels = BTreeMap<String, String>;
        let mut series: BTreeMap<(String, Labels), Vec<(String, f64)>> = BTreeMap::new();
        for sample in self.samples.iter().filter(|s| s.name.ends_with("_bucket")) {
            let family = sample.name.trim_end_matches("_bucket").to_string();
            let mut labels = sample.labels.clone();
            let le = labels.remove("le").unwrap_or_else(|| panic!("a bucket without le: {}", sample.name));
            series.entry((family, labels)).or_default().push((le, sample.value));
        }
        for ((family, labels), buckets) in series {
            assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{family} {labels:?}: {buckets:?}");
            let last = buckets.last().expect("a bucket");
            assert_eq!(last.0, "+Inf", "{family} {labels:?}: the last bucket is +Inf");
            let count = self.samples.iter().find(|s| s.name == format!("{family}_count") && s.labels == labels);
            assert_eq!(count.map(|c| c.value), Some(last.1), "{family} {labels:?}: +Inf is the count");
        }
    }
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// The family a sample belongs to: its own name, or a histogram's.
fn family_of(name: &str, typed: &BTreeMap<String, String>) -> Option<String> {
    if typed.contains_key(name) {
        return Some(name.to_string());
    }
    ["_bucket", "_sum", "_count"]
        .iter()
        .filter_map(|suffix| name.strip_suffix(suffix))
        .find(|base| typed.get(*base).is_some_and(|t| t == "histogram"))
        .map(str::to_string)
}

fn check_suffix(sample: &Sample, kind: &str, line: &str) {
    match kind {
        "counter" => assert!(sample.name.ends_with("_total") && sample.value >= 0.0, "{line}"),
        "histogram" => assert!(sample.value >= 0.0, "{line}"),
        _ => assert!(!sample.value.is_nan(), "{line}"),
    }
}

/// `name{label="value",…} value`, with the format's escapes in values.
fn parse_sample(line: &str) -> Sample {
    let name_end = line.find(['{', ' ']).unwrap_or_else(|| panic!("no value: {line}"));
    let name = &line[..name_end];
    assert!(valid_name(name), "bad name: {line}");
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(inner) = rest.strip_prefix('{') {
        let mut chars = inner.char_indices().peekable();
        loop {
            let (start, _) = *chars.peek().unwrap_or_else(|| panic!("unclosed labels: {line}"));
            if inner[start..].starts_with('}') {
                rest = &inner[start + 1..];
                break;
            }
            let eq = inner[start..].find("=\"").unwrap_or_else(|| panic!("bad label: {line}")) + start;
            let label = &inner[start..eq];
            assert!(valid_name(label) && !label.starts_with("__"), "bad label name: {line}");
            while chars.peek().is_some_and(|(i, _)| *i <= eq + 1) {
                chars.next();
            }
            let mut value = String::new();
            loop {
                match chars.next().unwrap_or_else(|| panic!("unterminated value: {line}")).1 {
                    '"' => break,
                    '\\' => match chars.next().map(|c| c.1) {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        other => panic!("bad escape {other:?}: {line}"),
                    },
                    c => value.push(c),
                }
            }
            assert!(labels.insert(label.to_string(), value).is_none(), "label twice: {line}");
            if chars.peek().is_some_and(|(_, c)| *c == ',') {
                chars.next();
            }
        }
    }
    let value = rest.strip_prefix(' ').unwrap_or_else(|| panic!("no space before the value: {line}"));
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v.parse().unwrap_or_else(|_| panic!("bad value: {line}")),
    };
    Sample { name: name.to_string(), labels, value }
}

#[test]
fn the_parser_reads_escapes_and_refuses_what_is_not_the_format() {
    let sample = parse_sample(r#"x_total{a="q\"uote",b="back\\slash\nline"} 3.5"#);
    assert_eq!(sample.labels["a"], "q\"uote");
    assert_eq!(sample.labels["b"], "back\\slash\nline");
    assert_eq!(sample.value, 3.5);
    let good = "# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n";
    assert_eq!(Scrape::parse(good).value("x_total", &[]), Some(1.0));
    for bad in [
        "x_total 1\n",
        "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"1\" 1\n",
        "# HELP x_total X.\n# TYPE x_total counter\nx_total one\n",
        "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
    ] {
        assert!(std::panic::catch_unwind(|| Scrape::parse(bad)).is_err(), "accepted {bad:?}");
    }
}
