//! Who did what, through the real binaries on both backends: the events of
//! people's actions (`approval_decided`, `steered`, `tool_results_received`,
//! and the `done` of a cancel, a run's own or its fleet run's) carry `by`,
//! the key's owner, name and ID; `GET /audit` (an admin's alone) lists
//! every change made through the API and nothing else (no read, no refused
//! request), newest first, by owner and a page at a time, and never a key.

mod common;

use std::time::Duration;

use common::{Api, Backend, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const TOKEN: &str = "wm-test-token-audit-5c2e";
const LIMIT: Duration = Duration::from_secs(60);

fn keyed_env(backend: Backend) -> TestEnv {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    env
}

/// A member key of `owner` named `name`: its client and its ID.
async fn named_key(admin: &Api, owner: &str, name: &str) -> (Api, String) {
    let (status, made) = admin.post("/keys", json!({"owner": owner, "role": "member", "name": name})).await;
    assert_eq!(status, 201, "{made}");
    (admin.with_key(made["key"].as_str().unwrap()), made["id"].as_str().unwrap().to_string())
}

/// An agent whose first step asks for a `bash` call that needs approval.
fn careful_agent() -> Value {
    let call = json!({"name": "bash", "input": {"command": "echo hi"}});
    json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"],
           "options": {"script": [{"tool_calls": [call]}, {"text": "done"}]}})
}

/// The one event of `kind` in a run's log.
async fn event_of(api: &Api, run: &str, kind: &str) -> Value {
    let events = api.events(run).await;
    let found: Vec<&Value> = events.iter().filter(|e| e["type"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind}: {events:?}");
    found[0].clone()
}

/// The audit log's entries as an admin reads them with `query`.
async fn audit(admin: &Api, query: &str) -> Vec<Value> {
    let (status, page) = admin.get(&format!("/audit{query}")).await;
    assert_eq!(status, 200, "{page}");
    page["entries"].as_array().unwrap().clone()
}

on_both_backends! {
    async fn peoples_actions_on_a_run_name_the_key_that_took_them(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(1);
        let admin = server.api().with_key(TOKEN);
        let (alpha, key_id) = named_key(&admin, "alpha", "ci-bot").await;
        let by = json!({"owner": "alpha", "name": "ci-bot", "key_id": key_id});

        let agent = alpha.create_agent(careful_agent()).await;
        let waiting = || async {
            let run = alpha.send(&alpha.create_session(&agent, None).await, "go").await;
            alpha.wait_waiting(&run, LIMIT).await;
            run
        };
        let run = waiting().await;
        let decisions = json!({"decisions": [{"call_id": "call_1_1", "decision": "approve"}]});
        let (status, body) = alpha.post(&format!("/runs/{run}/approve"), decisions).await;
        assert_eq!(status, 202, "{body}");
        assert_eq!(event_of(&alpha, &run, "approval_decided").await["by"], by);
        // A steer's sender is kept with the message until the run takes it in.
        let run = waiting().await;
        let (status, body) = alpha.post(&format!("/runs/{run}/steer"), json!({"message": "say bye instead"})).await;
        assert_eq!(status, 202, "{body}");
        alpha.wait_terminal(&run, LIMIT).await;
        assert_eq!(event_of(&alpha, &run, "steered").await["by"], by);

        // A client tool's results, by the admin's token: no name, no key ID.
        let pick = json!({"name": "pick", "description": "Pick", "input_schema": {"type": "object"}});
        let asks = json!({"name": "asks", "client_tools": [pick],
                          "options": {"script": [{"tool_calls": [{"name": "pick", "input": {}}]}, {"text": "ok"}]}});
        let asks = alpha.create_agent(asks).await;
        let session = alpha.create_session(&asks, None).await;
        let run = alpha.send(&session, "pick").await;
        alpha.wait_waiting(&run, LIMIT).await;
        let results = json!({"results": [{"call_id": "call_1_1", "output": "red"}]});
        let (status, body) = admin.post(&format!("/runs/{run}/tool-results"), results).await;
        assert_eq!(status, 202, "{body}");
        assert_eq!(event_of(&alpha, &run, "tool_results_received").await["by"], json!({"owner": "admin"}));

        // A cancel: the run's own, and a fleet run's for each of its tasks.
        let run = waiting().await;
        assert_eq!(alpha.post(&format!("/runs/{run}/cancel"), json!({})).await.0, 202);
        let done = event_of(&alpha, &run, "done").await;
        assert_eq!((done["status"].clone(), done["by"].clone()), (json!("cancelled"), by.clone()));
        let (status, fleet) = alpha.post("/fleets", json!({"name": "f", "agent_id": agent})).await;
        assert_eq!(status, 201, "{fleet}");
        let tasks = json!({"tasks": [{"message": "a"}, {"message": "b"}]});
        let (status, fleet_run) = alpha.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), tasks).await;
        assert_eq!(status, 202, "{fleet_run}");
        let fleet_run = fleet_run["id"].as_str().unwrap();
        assert_eq!(alpha.post(&format!("/fleet-runs/{fleet_run}/cancel"), json!({})).await.0, 202);
        let (_, page) = alpha.get(&format!("/runs?fleet_run_id={fleet_run}")).await;
        for task in page["runs"].as_array().unwrap() {
            let task = alpha.wait_terminal(task["id"].as_str().unwrap(), LIMIT).await;
            assert_eq!(event_of(&alpha, task["id"].as_str().unwrap(), "done").await["by"], by, "{task}");
        }
    }

    async fn the_audit_log_lists_every_change_made_through_the_api_and_nothing_else(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(0);
        let admin = server.api().with_key(TOKEN);
        let (status, made) = admin.post("/keys", json!({"owner": "alpha", "role": "member", "name": "ci-bot"})).await;
        assert_eq!(status, 201, "{made}");
        let (key, key_id) = (made["key"].as_str().unwrap().to_string(), made["id"].as_str().unwrap().to_string());
        let alpha = admin.with_key(&key);
        let beta = admin.key_for("beta", "member").await;

        let agent = alpha.create_agent(json!({"name": "echo"})).await;
        let session = alpha.create_session(&agent, None).await;
        let run = alpha.send(&session, "hello").await;
        beta.create_agent(json!({"name": "theirs"})).await;
        // Neither a read nor a refused request is a change.
        assert_eq!(alpha.get(&format!("/runs/{run}")).await.0, 200);
        assert_eq!(alpha.post("/agents", json!({"name": ""})).await.0, 400);
        assert_eq!(beta.post(&format!("/runs/{run}/cancel"), json!({})).await.0, 404, "another owner's run");
        let revoked = admin.send_with(Method::DELETE, &format!("/keys/{key_id}"), None, &[]).await;
        assert_eq!(revoked.status, 200, "{}", revoked.body);

        let entries = audit(&admin, "").await;
        let actions: Vec<(&str, &str)> =
            entries.iter().map(|e| (e["by"]["owner"].as_str().unwrap(), e["action"].as_str().unwrap())).collect();
        assert_eq!(
            actions,
            [
                ("admin", "DELETE /keys/{id}"),
                ("beta", "POST /agents"),
                ("alpha", "POST /sessions/{id}/message"),
                ("alpha", "POST /sessions"),
                ("alpha", "POST /agents"),
                ("admin", "POST /keys"),
                ("admin", "POST /keys"),
            ],
            "newest first: {entries:?}"
        );
        let message = &entries[2];
        assert_eq!(message["by"], json!({"owner": "alpha", "name": "ci-bot", "key_id": key_id}));
        assert_eq!((message["role"].clone(), message["status"].clone()), (json!("member"), json!(202)));
        assert_eq!((message["target"].as_str(), message["made"].as_str()), (Some(session.as_str()), Some(run.as_str())));
        assert_eq!(message["path"], format!("/sessions/{session}/message"));
        assert_eq!(entries[4]["made"], agent.as_str(), "a creation names what it made");
        assert_eq!(entries[0]["target"], key_id.as_str(), "a revocation names the key's ID");
        assert_eq!(entries[6]["made"], key_id.as_str(), "a key's creation names its ID");
        let whole = serde_json::to_string(&entries).unwrap();
        assert!(!whole.contains(&key), "the audit log never holds a key");

        // By owner, and a page at a time.
        let alphas = audit(&admin, "?owner=alpha").await;
        assert_eq!(alphas.len(), 3);
        assert!(alphas.iter().all(|e| e["by"]["owner"] == "alpha"));
        let (status, first) = admin.get("/audit?limit=2").await;
        assert_eq!(status, 200);
        assert_eq!(first["entries"].as_array().unwrap().len(), 2);
        let after = first["next_after"].as_str().unwrap();
        let rest = audit(&admin, &format!("?after={after}")).await;
        assert_eq!(rest, entries[2..].to_vec(), "the page after the first");
        assert_eq!(admin.get("/audit?after=not-an-id").await.0, 400);

        // The admin's alone.
        assert_eq!(beta.get("/audit").await.0, 403);
        assert_eq!(audit(&admin, "").await.len(), entries.len(), "reading the log is no change");
    }
}

on_both_backends! {
    async fn what_a_server_queued_before_a_graceful_stop_is_in_the_log(backend: Backend) {
        let env = keyed_env(backend);
        let mut server = env.server(0);
        let admin = server.api().with_key(TOKEN);
        let mut made = tokio::task::JoinSet::new();
        for i in 0..100 {
            let admin = admin.clone();
            made.spawn(async move { admin.create_agent(json!({"name": format!("agent-{i}")})).await });
        }
        while let Some(agent) = made.join_next().await {
            agent.unwrap();
        }
        // Stopped (SIGTERM) as soon as the last answer came back.
        assert!(server.process.terminate().success());
        let server = env.server(0);
        let admin = server.api().with_key(TOKEN);
        assert_eq!(audit(&admin, "?limit=500").await.len(), 100, "every change of the stopped server");
    }
}
