//! `GET /workers` with real processes, on both backends: a worker holding a
//! run is live; SIGKILLed, its lease lapses while it still holds the run;
//! another worker rescues the run; a worker that shuts down says so.

mod common;

use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use serde_json::Value;
use wingman::store::StoreOptions;

const LIMIT: Duration = Duration::from_secs(60);

/// Polls `GET /workers` until `pred` holds for the list, and returns it.
async fn wait_workers(api: &Api, what: &str, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let (status, body) = api.get("/workers").await;
        assert_eq!(status, 200, "{body}");
        let workers = body["workers"].as_array().expect("workers").clone();
        if pred(&workers) {
            return workers;
        }
        assert!(start.elapsed() < LIMIT, "never {what}: {workers:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn holding<'a>(workers: &'a [Value], run: &str) -> Option<&'a Value> {
    workers.iter().find(|w| w["runs"].as_array().is_some_and(|runs| runs.iter().any(|r| r == run)))
}

on_both_backends! {
    async fn workers_are_listed_with_their_leases_and_the_runs_they_hold(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let api = server.api();
        assert_eq!(api.get("/workers").await.1["workers"], serde_json::json!([]));
        let mut first = env.worker();
        let agent = api.create_agent(common::step_agent(12)).await;
        let session = api.create_session(&agent, Some(&env.path().join("work"))).await;
        let run = api.send(&session, "go").await;

        let workers = wait_workers(&api, "a worker holding the run", |w| holding(w, &run).is_some()).await;
        let worker = holding(&workers, &run).unwrap().clone();
        assert_eq!(worker["status"], "live", "{worker}");
        assert!(worker["name"].as_str().is_some_and(|n| n.starts_with("worker-")), "{worker}");
        let expires = chrono::DateTime::parse_from_rfc3339(worker["lease_expires_at"].as_str().unwrap()).unwrap();
        let started = chrono::DateTime::parse_from_rfc3339(worker["started_at"].as_str().unwrap()).unwrap();
        assert!(expires > started, "{worker}");

        // Killed, it holds the run until its lease lapses and another takes it.
        first.kill9();
        let id = worker["id"].clone();
        let lapsed = |w: &[Value]| w.iter().any(|x| x["id"] == id && x["status"] == "lapsed");
        let workers = wait_workers(&api, "the killed worker's lease lapsed", lapsed).await;
        let dead = workers.iter().find(|w| w["id"] == id).unwrap();
        assert_eq!(dead["runs"], serde_json::json!([run]), "it holds the run until a rescue: {workers:?}");
        let mut second = env.worker();
        let rescued = |w: &[Value]| holding(w, &run).is_some_and(|x| x["id"] != id && x["status"] == "live");
        wait_workers(&api, "a live worker rescued the run", rescued).await;
        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");

        // Shut down, a worker gives up its lease and says so.
        let live = wait_workers(&api, "the rescuer live", |w| w[0]["status"] == "live").await;
        let rescuer = live[0]["id"].clone();
        second.terminate();
        let stopped = |w: &[Value]| w.iter().any(|x| x["id"] == rescuer && x["status"] == "stopped");
        let workers = wait_workers(&api, "the rescuer stopped", stopped).await;
        let gone = workers.iter().find(|w| w["id"] == rescuer).unwrap();
        assert_eq!((gone["lease_expires_at"].clone(), gone["runs"].clone()), (Value::Null, serde_json::json!([])));
    }

    async fn a_claim_whose_answer_never_arrived_is_handed_back_and_runs(backend: Backend) {
        let mut env = TestEnv::on(backend);
        // A lease the frozen worker keeps: the run must come back by the
        // worker's own hand-back, not by a rescue after its lease lapsed.
        env.set("WINGMAN_LEASE_MS", "6000");
        let server = env.server(0);
        let api = server.api();
        let worker = env.worker();
        let live = wait_workers(&api, "the worker registered", |w| w.len() == 1 && w[0]["status"] == "live").await;
        let worker_id = live[0]["id"].as_str().unwrap().to_string();
        let agent = api.create_agent(common::step_agent(1)).await;
        let session = api.create_session(&agent, Some(&env.path().join("work"))).await;

        // The claim commits in the worker's name while the worker cannot
        // receive its answer: what a connection dropped after the commit does.
        env.freeze(&worker).await;
        let run = api.send(&session, "go").await;
        let store = wingman::store::open(&env.database_url(), &StoreOptions::default()).await.unwrap();
        let claims = store.claim_runs(&worker_id, 1).await.unwrap();
        assert_eq!(claims.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [run.as_str()]);
        drop(store);
        worker.resume();

        assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
        let events = api.events(&run).await;
        common::assert_dense(&events);
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds[..4], ["run_queued", "run_started", "run_handed_back", "run_started"], "{events:?}");
        assert!(events[2]["reason"].as_str().unwrap().contains("never received"), "{:?}", events[2]);
        let second = &events[3];
        assert_eq!((second["attempt"].clone(), second["charged_attempts"].clone()), (2.into(), 0.into()), "{second}");
        assert_eq!(second["worker_id"], worker_id.as_str(), "the same live worker runs it: no lease lapsed");
        assert!(worker.log_text().contains("never reached this worker"), "{}", worker.log_text());
    }
}
