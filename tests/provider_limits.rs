//! Provider limits shared by every worker, seen from outside: a server,
//! two worker processes, and a local OpenAI-compatible provider that admits
//! a few requests a second and answers the rest 429 with `retry-after: 1`
//! (`wingman::bench::fake_provider`, also what `wingman bench ratelimit`
//! runs against). With the credential's limit declared, a fleet's calls are
//! paced across both workers and the provider refuses none of them; without
//! it, a 429 pauses the credential for every worker, no task fails, and the
//! calls stay under two a task. A run waiting for its share says so in its
//! events and its run; one that waits long is handed back and holds no
//! worker meanwhile; bad declarations change nothing.

mod common;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use serde_json::{json, Value};
use wingman::bench::fake_provider::{FakeConfig, RateLimited};

const LIMIT: Duration = Duration::from_secs(120);

async fn provider(requests_per_second: u32) -> RateLimited {
    let config = FakeConfig {
        requests_per_second,
        answer: "ok".into(),
        send_rate_limit_headers: false,
        latency: Duration::from_millis(20),
    };
    RateLimited::start(config).await.unwrap()
}

/// An agent on the fake provider, with the key stored.
async fn openai_agent(api: &Api, fake: &RateLimited) -> String {
    let key = json!({"providers": {"openai": {"type": "api_key", "key": "sk-test-0000000000000000"}}});
    assert_eq!(api.put("/provider/auth", key).await.0, 200);
    api.create_agent(json!({"name": "paced", "provider": "openai", "model": "gpt-4o-mini",
        "instructions": "Answer.", "options": {"base_url": fake.url()}}))
        .await
}

/// Runs a fleet of `tasks` one-step tasks to its end; returns its task runs.
async fn fleet_of(api: &Api, agent: &str, tasks: usize) -> Vec<Value> {
    let (_, fleet) = api.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
    let tasks: Vec<Value> = (0..tasks).map(|i| json!({"message": format!("task {i}")})).collect();
    let (status, body) =
        api.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), json!({"tasks": tasks})).await;
    assert_eq!(status, 202, "{body}");
    let id = body["fleet_run_id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + LIMIT;
    loop {
        let (_, run) = api.get(&format!("/fleet-runs/{id}?limit=1")).await;
        if matches!(run["status"].as_str(), Some("succeeded" | "failed" | "cancelled")) {
            assert_eq!(run["status"], "succeeded", "{run}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the fleet run did not end: {run}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, runs) = api.get(&format!("/runs?fleet_run_id={id}&limit=500")).await;
    runs.as_array().cloned().or_else(|| runs["runs"].as_array().cloned()).unwrap()
}

async fn budget(api: &Api, name: &str) -> Value {
    let (_, budgets) = api.get("/provider/limits").await;
    budgets.as_array().unwrap().iter().find(|b| b["name"] == name).cloned().unwrap_or(Value::Null)
}

/// Polls a run until `ready` says yes.
async fn wait_until(api: &Api, run_id: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let run = api.run(run_id).await;
        if ready(&run) {
            return run;
        }
        assert!(std::time::Instant::now() < deadline, "never reached: {run}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

on_both_backends! {
async fn declared_limits_pace_a_fleet_across_two_workers_and_the_provider_refuses_none(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let fake = provider(5).await;
    let agent = openai_agent(&api, &fake).await;
    let (status, declared) = api.put("/provider/limits/openai", json!({"requests_per_minute": 300})).await;
    assert_eq!((status, &declared["requests_per_minute"]), (200, &json!(300)), "{declared}");
    let _workers = [env.worker(), env.worker()];
    let runs = fleet_of(&api, &agent, 24).await;
    assert_eq!(runs.len(), 24);
    assert!(runs.iter().all(|r| r["status"] == "succeeded"), "{runs:?}");
    assert!(fake.rejected() <= 1 && fake.calls() <= 25, "calls {} refused {}", fake.calls(), fake.rejected());
    let mut waited = 0;
    for run in &runs {
        let events = api.events(run["id"].as_str().unwrap()).await;
        for e in events.iter().filter(|e| e["type"] == "rate_limited") {
            assert_eq!((&e["budget"], &e["reason"]), (&json!("openai"), &json!("requests_per_minute")), "{e}");
            assert!(e["until"].is_string() && e["wait_ms"].as_u64().unwrap() <= 5000, "{e}");
            waited += 1;
        }
        // The wait is no attempt: nothing restarted, one call.
        assert!(!events.iter().any(|e| e["type"] == "step_restarted") || fake.rejected() > 0);
    }
    assert!(waited >= 10, "24 calls at 5 a second: most wait ({waited})");
    let (_, queue) = api.get("/queue").await;
    let shown = queue["budgets"].as_array().unwrap();
    assert!(shown.iter().any(|b| b["name"] == "openai" && b["declared"]["requests_per_minute"] == 300), "{queue}");
}

async fn a_429_pauses_the_credential_for_every_worker_and_no_task_fails(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let fake = provider(5).await;
    let agent = openai_agent(&api, &fake).await;
    let _workers = [env.worker(), env.worker()];
    let tasks = 40;
    let runs = fleet_of(&api, &agent, tasks).await;
    assert!(runs.iter().all(|r| r["status"] == "succeeded"), "{runs:?}");
    // Each run retrying on its own sent about 2.4 calls a task here.
    assert!(fake.calls() <= 2 * tasks as u64, "calls {} refused {}", fake.calls(), fake.rejected());
    let learned = budget(&api, "openai").await;
    assert!(learned["learned_requests_per_minute"].as_u64().is_some_and(|r| r >= 60), "{learned}");
}

async fn a_run_waiting_long_for_its_share_holds_no_worker_meanwhile(backend: Backend) {
    let mut env = TestEnv::on(backend);
    // One worker with room for one run: a wait that held it would stall the queue.
    env.set("WINGMAN_CONCURRENCY", "1");
    let server = env.server(0);
    let api = server.api();
    // Twelve a minute: the second run's share comes five seconds after the first's.
    let limited = api.create_agent(json!({"name": "limited", "limits": {"requests_per_minute": 12}})).await;
    let free = api.create_agent(json!({"name": "free"})).await;
    let first = api.send(&api.create_session(&limited, None).await, "one").await;
    let second = api.send(&api.create_session(&limited, None).await, "two").await;
    let _worker = env.worker();
    assert_eq!(api.wait_terminal(&first, LIMIT).await["status"], "succeeded");
    let parked = wait_until(&api, &second, |run| run["status"] == "queued" && !run["rate_limited"].is_null()).await;
    assert_eq!(parked["rate_limited"]["budget"], json!(format!("agent:{limited}")), "{parked}");
    let (_, queue) = api.get("/queue").await;
    assert_eq!(queue["queued"]["rate_limited"], 1, "{queue}");
    // Someone else's message goes at once, while the limited run still waits.
    let other = api.send(&api.create_session(&free, None).await, "hi").await;
    assert_eq!(api.wait_terminal(&other, Duration::from_secs(3)).await["status"], "succeeded");
    assert_ne!(api.run(&second).await["status"], "succeeded", "the share was five seconds off");
    let done = api.wait_terminal(&second, LIMIT).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let events = api.events(&second).await;
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let handed = kinds.iter().position(|k| *k == "run_handed_back").expect("handed back");
    assert_eq!(&kinds[..=handed], ["run_queued", "run_started", "rate_limited", "run_handed_back"], "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "step_started").count(), 1, "the step began once: {kinds:?}");
    assert!(events.iter().all(|e| e["type"] != "step_restarted"), "the wait is no attempt: {kinds:?}");
    assert_eq!(done["attempt"].as_u64(), Some(2), "claimed again once: {done}");
}

async fn a_run_waiting_for_its_agents_share_says_so_and_bad_declarations_change_nothing(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(1);
    let api = server.api();
    let (status, body) = api.post("/agents", json!({"name": "x", "limits": {"max_concurrent": 0}})).await;
    assert_eq!(status, 400, "{body}");
    let agent = api.create_agent(json!({"name": "once", "limits": {"requests_per_minute": 60}})).await;
    let mut runs = Vec::new();
    for i in 0..3 {
        let session = api.create_session(&agent, None).await;
        runs.push(api.send(&session, &format!("m{i}")).await);
    }
    // One a second: the third waits about two seconds, and its run says so.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let shown = loop {
        let found = futures_util::future::join_all(runs.iter().map(|r| api.run(r))).await;
        if let Some(run) = found.into_iter().find(|r| !r["rate_limited"].is_null()) {
            break run;
        }
        assert!(std::time::Instant::now() < deadline, "no run showed its wait");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // Running while it waits in its worker, queued once handed back for a longer wait.
    assert!(matches!(shown["status"].as_str(), Some("running" | "queued")), "{shown}");
    assert_eq!(shown["rate_limited"]["budget"], json!(format!("agent:{agent}")), "{shown}");
    assert!(shown["rate_limited"]["until"].is_string(), "{shown}");
    for run in &runs {
        assert_eq!(api.wait_terminal(run, LIMIT).await["status"], "succeeded");
    }
    let waits: usize = futures_util::future::join_all(runs.iter().map(|r| api.events(r)))
        .await
        .iter()
        .map(|events| events.iter().filter(|e| e["type"] == "rate_limited").count())
        .sum();
    assert!(waits >= 2, "{waits}");

    for (path, body, want) in [
        ("/provider/limits/nope", json!({"requests_per_minute": 5}), 400),
        ("/provider/limits/openai", json!({}), 400),
        ("/provider/limits/openai", json!({"requests_per_minute": 0}), 400),
        ("/provider/limits/openai", json!({"rpm": 5}), 422),
    ] {
        let (status, answer) = api.put(path, body).await;
        assert_eq!(status, want, "{path}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
    assert_eq!(budget(&api, "openai").await, Value::Null, "nothing was written");
    let (status, _) = api.request(reqwest::Method::DELETE, "/provider/limits/openai", None).await;
    assert_eq!(status, 404);
}
}
