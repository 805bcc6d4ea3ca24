//! Owners' quotas through the real binaries, on both backends: past
//! `max_queued_runs` a submission is a 429 with `Retry-After` that writes
//! nothing (and one larger than the quota a 422); `max_cost_usd_per_day`
//! stops an owner's runs before the inference that would spend past it
//! (`budget_exhausted` with the owner), counting what every run of the owner
//! spent that day, and no other owner's; `GET /owners/{owner}/usage` adds up
//! to the runs' own usage. Quotas are an admin's to set; a member reads its
//! own owner and no other.

mod common;
mod providers_support;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use providers_support::{openai_bash_call, openai_text, MockServer, Reply};
use serde_json::{json, Value};

const TOKEN: &str = "wm-test-token-quotas-8d1f";
const LIMIT: Duration = Duration::from_secs(60);

fn keyed_env(backend: Backend) -> TestEnv {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    env
}

/// The number of runs `api`'s owner sees.
async fn runs_seen(api: &Api) -> usize {
    let (status, runs) = api.get("/runs?limit=200").await;
    assert_eq!(status, 200, "{runs}");
    runs["runs"].as_array().unwrap().len()
}

on_both_backends! {
    async fn past_max_queued_runs_a_submission_is_a_429_that_writes_nothing(backend: Backend) {
        let env = keyed_env(backend);
        // No worker: every run stays queued.
        let server = env.server(0);
        let admin = server.api().with_key(TOKEN);
        let bob = admin.key_for("bob", "member").await;
        let carol = admin.key_for("carol", "member").await;

        let (status, set) = admin.put("/owners/bob", json!({"max_queued_runs": 2})).await;
        assert_eq!(status, 200, "{set}");
        assert_eq!(set, json!({"owner": "bob", "max_queued_runs": 2, "queued_runs": 0, "spent_today_usd": 0.0}));
        let agent = bob.create_agent(json!({"name": "echo"})).await;
        let session = bob.create_session(&agent, None).await;
        bob.send(&session, "one").await;
        bob.send(&session, "two").await;

        let refused = bob
            .send_with(reqwest::Method::POST, &format!("/sessions/{session}/message"), Some(json!({"message": "three"})), &[])
            .await;
        assert_eq!(refused.status, 429, "{}", refused.body);
        assert_eq!(refused.header("retry-after"), Some("5"));
        let error = refused.body["error"].as_str().unwrap();
        assert!(error.contains("owner bob has 2 runs queued") && error.contains("max_queued_runs is 2"), "{error}");
        assert_eq!(runs_seen(&bob).await, 2, "the refused message made no run");

        // A fleet is counted by its tasks: one larger than the quota never fits.
        let (status, fleet) = bob.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
        assert_eq!(status, 201, "{fleet}");
        let fleet_run = |n: usize| json!({"tasks": (0..n).map(|i| json!({"message": format!("t{i}")})).collect::<Vec<_>>()});
        let path = format!("/fleets/{}/run", fleet["id"].as_str().unwrap());
        let (status, body) = bob.post(&path, fleet_run(3)).await;
        assert_eq!(status, 422, "{body}");
        assert!(body["error"].as_str().unwrap().contains("more than owner bob's max_queued_runs (2)"), "{body}");
        assert_eq!(bob.post(&path, fleet_run(1)).await.0, 429);
        assert_eq!(runs_seen(&bob).await, 2);
        let (status, fleet_runs) = bob.get("/fleet-runs").await;
        assert_eq!((status, fleet_runs["fleet_runs"].as_array().unwrap().len()), (200, 0), "no fleet run was made");

        // Another owner's queue is its own.
        let theirs = carol.create_agent(json!({"name": "echo"})).await;
        let theirs = carol.create_session(&theirs, None).await;
        for message in ["a", "b", "c"] {
            carol.send(&theirs, message).await;
        }

        // Quotas are an admin's to set; an owner reads its own, no other's.
        let (status, body) = bob.put("/owners/bob", json!({"max_queued_runs": 100})).await;
        assert_eq!(status, 403, "{body}");
        let (status, mine) = bob.get("/owners/bob").await;
        assert_eq!((status, &mine["queued_runs"], &mine["max_queued_runs"]), (200, &json!(2), &json!(2)), "{mine}");
        let (status, body) = carol.get("/owners/bob").await;
        assert_eq!((status, body), (404, json!({"error": "owner bob not found"})));
        assert_eq!(carol.get("/owners/bob/usage").await.0, 404);
        let (_, listed) = carol.get("/owners").await;
        assert_eq!(listed, json!([]), "carol has no quota and sees no other owner's");
        let (_, listed) = admin.get("/owners").await;
        assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

        // Raised, it holds on this server from the next submission on.
        assert_eq!(admin.put("/owners/bob", json!({"max_queued_runs": 3})).await.0, 200);
        bob.send(&session, "three").await;
        assert_eq!(runs_seen(&bob).await, 3);
        // `{}` removes the quota, as does a PUT without a body.
        let (status, cleared) = admin.put("/owners/bob", json!({})).await;
        assert_eq!((status, cleared["max_queued_runs"].is_null()), (200, true), "{cleared}");
        assert_eq!(admin.put("/owners/bob", json!({"max_queued_runs": 9})).await.0, 200);
        let (status, cleared) = admin.request(reqwest::Method::PUT, "/owners/bob", None).await;
        assert_eq!((status, cleared["max_queued_runs"].is_null()), (200, true), "{cleared}");
        assert_eq!(admin.get("/owners").await.1, json!([]));
        bob.send(&session, "four").await;

        // Refused shapes change nothing.
        for (body, status) in [
            (json!({"max_queued_runs": 0}), 400),
            (json!({"max_cost_usd_per_day": -1}), 400),
            (json!({"max_running": 1}), 422),
            (json!({"max_queued_runs": "2"}), 422),
        ] {
            let (got, answer) = admin.put("/owners/bob", body.clone()).await;
            assert_eq!(got, status, "{body}: {answer}");
        }
        assert_eq!(admin.put("/owners/no%20spaces", json!({})).await.0, 400);
        assert_eq!(admin.get("/owners").await.1, json!([]));
    }

    async fn a_daily_budget_stops_an_owners_runs_and_usage_adds_up_to_the_runs(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let admin = server.api().with_key(TOKEN);
        let bob = admin.key_for("bob", "member").await;
        let carol = admin.key_for("carol", "member").await;
        // Set before any run infers, so every worker reads it at its first step.
        assert_eq!(admin.put("/owners/bob", json!({"max_cost_usd_per_day": 0.05})).await.0, 200);

        // gpt-4o-mini costs $0.15 and $0.60 per million tokens: each answer $0.021.
        let mut replies: Vec<Reply> =
            (1..=3).map(|i| openai_bash_call(&format!("call_{i}"), &format!("echo {i}"), 100_000, 10_000)).collect();
        replies.push(Reply::sse(openai_text("carol's answer", 1000, 100)));
        let provider = MockServer::start(replies).await;
        let credential = json!({"providers": {"openai": {"type": "api_key", "key": "sk-quota-test"}}});
        assert_eq!(admin.put("/provider/auth", credential).await.0, 200);
        let agent = json!({"name": "priced", "provider": "openai", "model": "gpt-4o-mini", "tools": ["bash"],
            "options": {"base_url": provider.url}});

        let bobs = bob.create_agent(agent.clone()).await;
        let session = bob.create_session(&bobs, None).await;
        let first = bob.send(&session, "spend").await;
        let failed = bob.wait_terminal(&first, LIMIT).await;
        assert_eq!(failed["status"], "failed", "{failed}");
        assert_eq!(failed["error"], "budget exhausted: owner bob spent $0.063 of $0.05 today (max_cost_usd_per_day)");
        assert_eq!(provider.requests().len(), 3, "the fourth inference was never asked");
        let events = bob.events(&first).await;
        let exhausted: Vec<&Value> = events.iter().filter(|e| e["type"] == "budget_exhausted").collect();
        assert_eq!(exhausted.len(), 1, "{events:?}");
        assert_eq!((&exhausted[0]["step"], &exhausted[0]["owner"]), (&json!(4), &json!("bob")));
        assert_eq!(exhausted[0]["limit_usd"], 0.05);

        // The day's spending is the owner's, whichever run spent it.
        let second = bob.send(&session, "more").await;
        let failed = bob.wait_terminal(&second, LIMIT).await;
        assert!(failed["error"].as_str().unwrap().starts_with("budget exhausted: owner bob"), "{failed}");
        assert_eq!(provider.requests().len(), 3, "a run of a spent owner asks the provider nothing");

        // Another owner's runs are not held to bob's budget.
        let carols = carol.create_agent(agent).await;
        let theirs = carol.create_session(&carols, None).await;
        let run = carol.send(&theirs, "answer").await;
        assert_eq!(carol.wait_terminal(&run, LIMIT).await["status"], "succeeded");

        // Usage by day adds up to the runs' own usage.
        let (status, usage) = bob.get("/owners/bob/usage").await;
        assert_eq!(status, 200, "{usage}");
        let total = &usage["total"];
        // The second run inferred nothing: its usage has no cost.
        let spent = bob.run(&first).await["usage"]["cost_usd"].as_f64().unwrap()
            + bob.run(&second).await["usage"]["cost_usd"].as_f64().unwrap_or(0.0);
        assert!((total["cost_usd"].as_f64().unwrap() - spent).abs() < 1e-9, "{usage} vs {spent}");
        assert!((spent - 0.063).abs() < 1e-9, "{spent}");
        assert_eq!((&total["runs"], &total["input_tokens"], &total["output_tokens"]), (&json!(2), &json!(300_000), &json!(30_000)));
        let days = usage["days"].as_array().unwrap();
        assert!(!days.is_empty() && days.len() <= 2, "today (and yesterday, past midnight): {usage}");
        let (_, theirs) = admin.get("/owners/carol/usage").await;
        assert_eq!((&theirs["total"]["runs"], &theirs["total"]["input_tokens"]), (&json!(1), &json!(1000)), "{theirs}");
        let (_, view) = admin.get("/owners/bob").await;
        assert!((view["spent_today_usd"].as_f64().unwrap() - 0.063).abs() < 1e-9 || days.len() == 2, "{view}");
        let (_, none) = admin.get("/owners/bob/usage?from=2001-01-01&to=2001-01-31").await;
        assert_eq!((none["days"].clone(), &none["total"]["runs"]), (json!([]), &json!(0)), "{none}");
        assert_eq!(admin.get("/owners/bob/usage?from=2001-02-30").await.0, 400);
    }
}

on_both_backends! {
    async fn an_owners_runs_run_no_more_at_once_than_its_max_running_runs(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let admin = server.api().with_key(TOKEN);
        let bob = admin.key_for("bob", "member").await;
        let (status, set) = admin.put("/owners/bob", json!({"max_running_runs": 1})).await;
        assert_eq!((status, &set["max_running_runs"]), (200, &json!(1)), "{set}");
        let script = json!([{"tool_calls": [{"name": "bash", "input": {"command": "sleep 0.3"}}]}, {"text": "slept"}]);
        let agent = bob.create_agent(json!({"name": "sleeper", "tools": ["bash"], "options": {"script": script}})).await;
        let mut runs = Vec::new();
        for _ in 0..3 {
            let session = bob.create_session(&agent, None).await;
            runs.push(bob.send(&session, "sleep").await);
        }
        let mut spans = Vec::new();
        for run in &runs {
            let ended = bob.wait_terminal(run, LIMIT).await;
            assert_eq!(ended["status"], "succeeded", "{ended}");
            let at = |field: &str| chrono::DateTime::parse_from_rfc3339(ended[field].as_str().unwrap()).unwrap();
            spans.push((at("started_at"), at("finished_at")));
        }
        spans.sort();
        for pair in spans.windows(2) {
            assert!(pair[1].0 >= pair[0].1, "one of bob's runs at a time: {spans:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_sets_shows_and_reads_owners() {
    let env = keyed_env(Backend::Sqlite);
    let server = env.server(0);
    let url = server.url.clone();
    let cli = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--auth-token", TOKEN, "--server", &url]);
        env.client_exit(&all)
    };
    let (code, out, err) = cli(&["owners"]);
    assert_eq!((code, out.trim()), (0, "no owner has a quota"), "{err}");
    let (code, out, err) = cli(&[
        "owners",
        "set",
        "bob",
        "--max-queued-runs",
        "3",
        "--max-running-runs",
        "2",
        "--max-cost-usd-per-day",
        "2.5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bob") && out.contains("3") && out.contains("2.5") && out.contains("$0.00"), "{out}");
    let (_, listed, _) = cli(&["owners", "list", "--json"]);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["max_cost_usd_per_day"], 2.5, "{listed}");
    let (_, shown, _) = cli(&["owners", "show", "bob", "--json"]);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!((&shown["max_queued_runs"], &shown["max_running_runs"]), (&json!(3), &json!(2)), "{shown}");
    let (code, out, err) = cli(&["owners", "usage", "bob", "--from", "2001-01-01", "--to", "2001-01-02"]);
    assert_eq!((code, out.trim()), (0, "owner bob used nothing from 2001-01-01 to 2001-01-02"), "{err}");
    let (code, _, err) = cli(&["owners", "set", "bob", "--max-queued-runs", "0"]);
    assert!(code != 0 && err.contains("max_queued_runs must be from 1"), "{err}");
    let (code, _, _) = cli(&["owners", "set", "bob"]);
    assert_eq!(code, 0, "no limit at all removes the quota");
    assert_eq!(cli(&["owners"]).1.trim(), "no owner has a quota");
}
