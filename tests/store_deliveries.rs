//! The storage contract for webhook deliveries, on every backend: the
//! transaction that ends a run with a webhook writes its delivery (and one
//! without writes none); a claim takes a due delivery for one attempt and
//! keeps other claims off it for its lease; an attempt is recorded only
//! under the claim that made it; a retry comes due at its time.

mod store_support;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::Value;
use store_support::*;
use wingman::domain::model::{new_id, RunInput, RunKind};
use wingman::domain::webhook::{Attempt, DeliveryStatus, Next, Subject};
use wingman::store::{NewRun, Store};

/// Enqueues a message run announcing its end to `webhook`, and runs it to
/// its end; returns its ID.
async fn ended_run(store: &Arc<dyn Store>, dir: &std::path::Path, webhook: Option<&str>) -> String {
    let agent = agent(serde_json::json!({}), 5);
    store.insert_agent(&agent).await.unwrap();
    let session = session(store, dir).await;
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(session),
        agent,
        input: RunInput {
            message: "hi".into(),
            webhook: webhook.map(String::from),
            ..RunInput::new("", Default::default())
        },
        work_dir: dir.to_string_lossy().into_owned(),
        max_attempts: 2,
        strategy: Default::default(),
        from_past: None,
    };
    let id = store.enqueue_run(run, None).await.unwrap().run.id;
    let w = worker(store).await;
    let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
    store.commit(&claim.lease, text_commit(1, "hello", true)).await.unwrap();
    id
}

fn attempt(n: u32, code: Option<u16>) -> Attempt {
    Attempt { attempt: n, at: Utc::now(), duration_ms: 3, status_code: code, error: None }
}

store_tests! {
    #[tokio::test]
    async fn a_run_s_end_writes_its_delivery_and_a_claim_takes_it_once(store, dir) {
        let quiet = ended_run(&store, dir.path(), None).await;
        assert!(store.list_deliveries(&quiet).await.unwrap().is_empty(), "no webhook, no delivery");
        let id = ended_run(&store, dir.path(), Some("https://hooks.example/x")).await;
        let listed = store.list_deliveries(&id).await.unwrap();
        assert_eq!(listed.len(), 1);
        let delivery = &listed[0];
        assert_eq!((delivery.subject, delivery.status, delivery.attempts), (Subject::Run, DeliveryStatus::Pending, 0));
        let payload: Value = serde_json::from_str(&delivery.payload).unwrap();
        assert_eq!((payload["type"].as_str(), payload["id"].as_str()), (Some("run.finished"), Some(id.as_str())));
        assert_eq!((payload["status"].as_str(), payload["response"].as_str()), (Some("succeeded"), Some("hello")));
        assert!(store.next_delivery_due().await.unwrap().is_some());

        let claimed = store.claim_deliveries(Duration::from_secs(60), 10).await.unwrap();
        assert_eq!(claimed.iter().map(|d| (d.id.as_str(), d.attempts)).collect::<Vec<_>>(), [(delivery.id.as_str(), 1)]);
        assert_eq!(claimed[0].payload, delivery.payload, "the same bytes on every attempt");
        assert!(store.claim_deliveries(Duration::from_secs(60), 10).await.unwrap().is_empty(), "held by its claim");

        let retry = Next::RetryAt(Utc::now());
        assert!(store.record_delivery_attempt(&delivery.id, &attempt(1, Some(500)), &retry).await.unwrap());
        let again = store.claim_deliveries(Duration::from_secs(60), 10).await.unwrap();
        assert_eq!(again.iter().map(|d| d.attempts).collect::<Vec<_>>(), [2], "due again at its retry time");
        assert!(
            !store.record_delivery_attempt(&delivery.id, &attempt(1, Some(200)), &Next::Delivered).await.unwrap(),
            "a late outcome of an earlier claim is dropped"
        );
        assert!(store.record_delivery_attempt(&delivery.id, &attempt(2, Some(200)), &Next::Delivered).await.unwrap());
        let done = store.list_deliveries(&id).await.unwrap().remove(0);
        assert_eq!((done.status, done.attempts, done.next_attempt_at), (DeliveryStatus::Delivered, 2, None));
        assert!(done.delivered_at.is_some());
        assert_eq!(done.log.iter().map(|a| (a.attempt, a.status_code)).collect::<Vec<_>>(), [(1, Some(500)), (2, Some(200))]);
        assert_eq!(store.next_delivery_due().await.unwrap(), None, "nothing pending");
        assert!(!store.record_delivery_attempt(&delivery.id, &attempt(2, None), &Next::GaveUp).await.unwrap());
    }

    #[tokio::test]
    async fn a_lapsed_claim_lets_another_take_the_delivery_and_a_retry_waits_for_its_time(store, dir) {
        let id = ended_run(&store, dir.path(), Some("https://hooks.example/y")).await;
        let first = store.claim_deliveries(Duration::from_millis(1), 1).await.unwrap().remove(0);
        tokio::time::sleep(Duration::from_millis(20)).await;
        let second = store.claim_deliveries(Duration::from_secs(60), 1).await.unwrap().remove(0);
        assert_eq!((first.id == second.id, second.attempts), (true, 2), "the claim's server died: another takes it");
        let later = Next::RetryAt(Utc::now() + chrono::Duration::hours(1));
        assert!(store.record_delivery_attempt(&second.id, &attempt(2, None), &later).await.unwrap());
        assert!(store.claim_deliveries(Duration::from_secs(60), 1).await.unwrap().is_empty(), "not due for an hour");
        let due = store.next_delivery_due().await.unwrap().unwrap();
        assert!(due > Utc::now() + chrono::Duration::minutes(59), "{due}");
        let twice = store.record_delivery_attempt(&second.id, &attempt(2, None), &Next::GaveUp).await.unwrap();
        assert!(!twice, "an attempt is recorded once");
        let listed = store.list_deliveries(&id).await.unwrap().remove(0);
        assert_eq!((listed.status, listed.log.len()), (DeliveryStatus::Pending, 1));
    }
}
