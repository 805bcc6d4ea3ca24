//! The storage contract, checked against the `Store` trait so that every
//! backend runs the same suite, and the agent loop driven step by step
//! against a real store (no processes, no timers but the lease).

mod store_support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store_support::*;
use wingman::domain::checkpoint::{Checkpoint, CheckpointBody};
use wingman::domain::compaction::Marker;
use wingman::domain::event::RunEvent;
use wingman::domain::history::HistoryCache;
use wingman::domain::model::{new_id, RunInput, RunKind, RunStatus, Usage};
use wingman::engine::{self, LoopConfig, RunExit, RunSignals};
use wingman::store::{Claim, Commit, HandBack, Heartbeat, IdempotencyKey, NewRun, Store, StoreError};

store_tests! {
    #[tokio::test]
    async fn claims_take_the_highest_priority_first_among_the_heads_of_sessions(store, dir) {
        let a = agent(json!({}), 5);
        let (s1, s2, s3) = (session(&store, dir.path()).await, session(&store, dir.path()).await, session(&store, dir.path()).await);
        let plain = enqueue_at(&store, &s1, &a, "plain", 0).await;
        let urgent = enqueue_at(&store, &s2, &a, "urgent", 5).await;
        let behind_urgent = enqueue_at(&store, &s2, &a, "behind", 10).await;
        let low = enqueue_at(&store, &s3, &a, "low", -2).await;
        let plain_too = enqueue_at(&store, &s3, &a, "plain too", 0).await;
        let w = worker(&store).await;
        let claim = |n| {
            let store = store.clone();
            let w = w.clone();
            async move { store.claim_runs(&w, n).await.unwrap() }
        };
        let first = claim(1).await;
        assert_eq!(first[0].lease.run_id, urgent, "the highest priority first");
        let second = claim(1).await;
        assert_eq!(second[0].lease.run_id, plain, "then 0, though its session's next waits at 10");
        store.commit(&first[0].lease, text_commit(1, "done", true)).await.unwrap();
        let third = claim(1).await;
        assert_eq!(third[0].lease.run_id, behind_urgent, "its turn come, 10 goes before -2");
        let fourth = claim(5).await;
        assert_eq!(fourth.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [low.as_str()]);
        store.commit(&fourth[0].lease, text_commit(1, "done", true)).await.unwrap();
        assert_eq!(claim(5).await[0].lease.run_id, plain_too, "a session's order whatever the priorities");
    }

    #[tokio::test]
    async fn a_key_at_its_limit_holds_its_runs_until_a_slot_frees(store, dir) {
        let a = agent(json!({}), 5);
        let mut keyed = Vec::new();
        for _ in 0..4 {
            keyed.push(enqueue_keyed(&store, &session(&store, dir.path()).await, &a, "k", 2).await);
        }
        let other = enqueue_keyed(&store, &session(&store, dir.path()).await, &a, "other", 1).await;
        let plain = enqueue(&store, &session(&store, dir.path()).await, &a, "plain").await;
        let w = worker(&store).await;
        let ids = |claims: &[Claim]| {
            let mut ids: Vec<String> = claims.iter().map(|c| c.lease.run_id.clone()).collect();
            ids.sort();
            ids
        };
        let lease_of = |claims: &[Claim], id: &str| claims.iter().find(|c| c.lease.run_id == id).unwrap().lease.clone();
        let first = store.claim_runs(&w, 3).await.unwrap();
        let mut expected = vec![keyed[0].clone(), other.clone(), plain.clone()];
        expected.sort();
        assert_eq!(ids(&first), expected, "keys take turns: k's first, the other key's, the plain one's");
        let second = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(ids(&second), [keyed[1].as_str()], "then k's second; its third and fourth are held");
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "k is full");
        assert!(!store.has_claimable().await.unwrap(), "a full key's held runs are not claimable");
        store.commit(&lease_of(&first, &keyed[0]), text_commit(1, "done", true)).await.unwrap();
        assert!(store.has_claimable().await.unwrap(), "a slot of k is free");
        let third = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(ids(&third), [keyed[2].as_str()], "one slot, the oldest held");
        store.commit(&second[0].lease, text_commit(1, "done", true)).await.unwrap();
        store.commit(&third[0].lease, text_commit(1, "done", true)).await.unwrap();
        let fourth = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(ids(&fourth), [keyed[3].as_str()]);
        store.commit(&fourth[0].lease, text_commit(1, "done", true)).await.unwrap();
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty());
        assert!(!store.has_claimable().await.unwrap(), "nothing is left held");
    }

    #[tokio::test]
    async fn a_full_key_is_held_whole_so_the_next_claim_reaches_the_run_behind_it(store, dir) {
        let a = agent(json!({}), 5);
        let mut keyed = Vec::new();
        for _ in 0..12 {
            keyed.push(enqueue_keyed(&store, &session(&store, dir.path()).await, &a, "k", 1).await);
        }
        // Below the key's runs in priority, so that fair queuing does not
        // put it before them: a claim reaches it only past all of them.
        let plain = enqueue_at(&store, &session(&store, dir.path()).await, &a, "plain", -1).await;
        let w = patient_worker(&store).await;
        let first = store.claim_runs(&w, 1).await.unwrap();
        assert_eq!(first[0].lease.run_id, keyed[0]);
        // Eight rounds of one row each would hold only eight of the 11 left
        // and start nothing: the whole key is held at the first of them.
        let second = store.claim_runs(&w, 1).await.unwrap();
        assert_eq!(second.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [plain.as_str()]);
        assert!(!store.has_claimable().await.unwrap(), "the key's 11 wait held");
        let mut running = first[0].lease.clone();
        for next_of_key in &keyed[1..] {
            store.heartbeat(&w, PATIENT_LEASE).await.unwrap();
            store.commit(&running, text_commit(1, "done", true)).await.unwrap();
            let next = store.claim_runs(&w, 10).await.unwrap();
            let ids: Vec<&str> = next.iter().map(|c| c.lease.run_id.as_str()).collect();
            assert_eq!(ids, [next_of_key.as_str()], "held runs come back one slot at a time, in order");
            running = next[0].lease.clone();
        }
    }

    #[tokio::test]
    async fn runs_of_a_session_are_claimed_one_at_a_time_in_order(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let first = enqueue(&store, &s, &a, "1").await;
        let second = enqueue(&store, &s, &a, "2").await;
        let stats = store.queue_stats().await.unwrap();
        assert_eq!((stats.queued, stats.running, stats.workers), (2, 0, 0));
        let w = worker(&store).await;
        let claims = store.claim_runs(&w, 10).await.unwrap();
        let stats = store.queue_stats().await.unwrap();
        assert_eq!((stats.queued, stats.running, stats.workers), (1, 1, 1));
        assert_eq!(claims.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [first.as_str()]);
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "the second waits for the first");
        assert!(!store.has_claimable().await.unwrap());
        store.commit(&claims[0].lease, text_commit(1, "one", true)).await.unwrap();
        let next = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(next[0].lease.run_id, second);
        let history = store.session_history(&s).await.unwrap();
        assert_eq!(history.len(), 2);
        assert_eq!(history[0].text(), "1");
        assert_eq!(history[1].text(), "one");
        // The second run sees the first one's messages as its history, loaded
        // alone or in a batch alike.
        let alone = store.load_run(&second).await.unwrap();
        let batch = store.load_runs(vec![first.clone(), second.clone()], Arc::default()).await.unwrap();
        assert_eq!(batch.iter().map(|c| c.run.id.as_str()).collect::<Vec<_>>(), [first.as_str(), second.as_str()]);
        assert_eq!(batch[1].history, alone.history);
        assert_eq!(alone.history.len(), 2);
        assert!(batch[0].checkpoints.is_empty(), "the first run succeeded: its answer is in the history");
        assert!(matches!(store.load_runs(vec![new_id()], Arc::default()).await, Err(StoreError::NotFound(_))));
    }

    #[tokio::test]
    async fn a_known_history_is_read_on_from_its_last_row(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let w = worker(&store).await;
        let cache = Arc::new(HistoryCache::default());
        let mut texts = Vec::new();
        for i in 0..3 {
            let run = enqueue(&store, &s, &a, &format!("q{i}")).await;
            let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
            let cached = store.load_runs(vec![run.clone()], cache.clone()).await.unwrap().remove(0);
            let whole = store.load_run(&run).await.unwrap();
            // What a worker reads on from its cache is what a fresh load reads.
            assert_eq!(cached.history.iter().map(|m| m.text()).collect::<Vec<_>>(), texts);
            assert_eq!(cached.history, whole.history);
            store.commit(&claim.lease, text_commit(1, &format!("a{i}"), true)).await.unwrap();
            texts.extend([format!("q{i}"), format!("a{i}")]);
        }
        let (sessions, bytes) = cache.size();
        assert_eq!(sessions, 1);
        assert!(bytes > 0);
    }

    #[tokio::test]
    async fn a_compaction_leaves_a_marker_that_every_load_applies(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let w = worker(&store).await;
        let cache = Arc::new(HistoryCache::default());
        for i in 0..2 {
            enqueue(&store, &s, &a, &format!("q{i}")).await;
            let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
            store.commit(&claim.lease, text_commit(1, &format!("a{i}"), true)).await.unwrap();
        }
        // The third run compacts before its answer: the first question and
        // answer give way to a summary.
        let run = enqueue(&store, &s, &a, "q2").await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        let marker = Marker {
            summary: Some("they said q0 and a0".into()),
            first_kept: 2,
            pruned_before: 2,
            tokens_before: 40,
            tokens_after: 20,
            pruned_results: 0,
            summarized_messages: 2,
        };
        let body = CheckpointBody::Compaction { index: 1, marker: marker.clone(), usage: Usage::default(), forced: false };
        let mut commit = text_commit(1, "a2", true);
        commit.checkpoints.insert(0, Checkpoint { step: 1, body });
        store.commit(&claim.lease, commit).await.unwrap();
        assert!(store.load_run(&run).await.unwrap().checkpoints.is_empty(), "the run succeeded");
        // The stored history keeps every message, and the marker where it happened.
        let stored: Vec<String> = store.session_history(&s).await.unwrap().iter().map(|m| m.text()).collect();
        assert_eq!(stored, ["q0", "a0", "q1", "a1", "q2", "", "a2"]);
        let raw = store.session_history(&s).await.unwrap();
        assert_eq!(wingman::domain::compaction::marker_of(&raw[5]), Some(&marker));
        // What the next run is sent starts at the marker, cached or fresh.
        let next = enqueue(&store, &s, &a, "q3").await;
        store.claim_runs(&w, 1).await.unwrap();
        let cached = store.load_runs(vec![next.clone()], cache.clone()).await.unwrap().remove(0);
        let whole = store.load_run(&next).await.unwrap();
        assert_eq!(cached.history, whole.history);
        let sent: Vec<String> = whole.history.iter().map(|m| m.text()).collect();
        assert_eq!(sent.len(), 5, "{sent:?}");
        assert!(sent[0].ends_with("they said q0 and a0"), "{sent:?}");
        assert_eq!(sent[1..], ["q1", "a1", "q2", "a2"]);
    }

    #[tokio::test]
    async fn writes_are_fenced_by_the_claim_and_the_workers_lease(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &a, "x").await;
        let stalled = worker(&store).await;
        let old: Claim = store.claim_runs(&stalled, 1).await.unwrap().remove(0);
        store
            .commit(
                &old.lease,
                Commit { events: vec![RunEvent::TextDelta { step: 1, text: "a".into() }], ..Default::default() },
            )
            .await
            .unwrap();
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        // The lease lapsed: nothing it writes lands, even before a takeover.
        assert!(matches!(store.commit(&old.lease, text_commit(1, "late", false)).await, Err(StoreError::Fenced)));
        // Nor may it claim: not even its own run back under the same id.
        assert!(matches!(store.claim_runs(&stalled, 1).await, Err(StoreError::Fenced)));
        assert_eq!(store.heartbeat(&stalled, LEASE).await.unwrap(), Heartbeat::Lost, "a lapsed lease is not renewed");
        let rescuer = worker(&store).await;
        let new = store.claim_runs(&rescuer, 1).await.unwrap().remove(0);
        assert_eq!(new.lease.run_id, run);
        assert_eq!(new.attempt, 2);
        assert!(new.lease.epoch > old.lease.epoch);
        assert!(matches!(store.commit(&old.lease, text_commit(1, "late", true)).await, Err(StoreError::Fenced)));
        assert!(matches!(store.release_run(&old.lease, HandBack::AtStepBoundary).await, Err(StoreError::Fenced)));
        store.commit(&new.lease, text_commit(1, "on time", true)).await.unwrap();
        let events = store.read_events(&run, 0, 100).await.unwrap();
        assert_eq!(seqs(&events), (1..=events.len() as u64).collect::<Vec<_>>(), "dense");
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["run_queued", "run_started", "text_delta", "run_started", "step_completed", "done"]);
        assert_eq!(store.get_run(&run).await.unwrap().unwrap().response.as_deref(), Some("on time"));
    }

    #[tokio::test]
    async fn a_run_whose_workers_keep_dying_fails_after_its_attempts(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &a, "x").await; // max_attempts: 2
        for _ in 0..2 {
            let w = worker(&store).await;
            assert_eq!(store.claim_runs(&w, 1).await.unwrap().len(), 1);
            tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        }
        let w = patient_worker(&store).await;
        assert!(store.claim_runs(&w, 1).await.unwrap().is_empty());
        let failed = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!(failed.status, RunStatus::Failed);
        assert!(failed.error.unwrap().contains("gave up after 2 attempts"));
    }

    #[tokio::test]
    async fn a_lost_attempt_is_charged_only_when_it_checkpointed_nothing(store, dir) {
        let a = agent(json!({}), 10);
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &a, "x").await; // max_attempts: 2
                                                      // Five attempts in a row each checkpoint a step, then lose their worker.
        for step in 1..=5 {
            let w = worker(&store).await;
            let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
            assert_eq!((claim.attempt, claim.charged_attempts), (step, 0), "progress is never charged");
            let started = RunEvent::StepStarted { step: step + 1 };
            let mut commit = text_commit(step, "some", false);
            commit.events.push(started);
            store.commit(&claim.lease, commit).await.unwrap();
            let ctx = store.load_run(&run).await.unwrap();
            assert_eq!(ctx.open_step, Some(step + 1), "a step was started and not completed");
            tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        }
        // Then one makes none: charged, but the run goes on.
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        assert_eq!((claim.attempt, claim.charged_attempts), (6, 0));
        let ctx = store.load_run(&run).await.unwrap();
        assert!(ctx.resumed && !ctx.handed_back && ctx.open_step == Some(6), "{:?}", ctx.open_step);
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        assert_eq!((claim.attempt, claim.charged_attempts), (7, 1));
        let started: Vec<_> = store.read_events(&run, 0, 100).await.unwrap();
        let last = started.iter().rev().find(|e| e.kind == "run_started").unwrap();
        assert_eq!(last.data["charged_attempts"], 1, "the log says which attempts were charged");
        // A second attempt without progress exhausts max_attempts 2.
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        let w = worker(&store).await;
        assert!(store.claim_runs(&w, 1).await.unwrap().is_empty());
        let failed = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!(failed.status, RunStatus::Failed);
        assert!(failed.error.unwrap().contains("gave up after 2 attempts that made no progress"));
    }

    #[tokio::test]
    async fn a_hand_back_is_not_charged_and_cancel_wins(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &a, "x").await;
        let w = patient_worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        store.release_run(&claim.lease, HandBack::AtStepBoundary).await.unwrap();
        let queued = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!((queued.status, queued.attempt), (RunStatus::Queued, 1));
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        assert_eq!((claim.attempt, claim.charged_attempts), (2, 0), "every claim counts; a hand-back is not charged");
        let resumed = store.load_run(&run).await.unwrap();
        assert!(resumed.resumed && resumed.handed_back, "the next attempt knows nothing was in flight");
        let kinds: Vec<String> = store.read_events(&run, 0, 100).await.unwrap().into_iter().map(|e| e.kind).collect();
        assert_eq!(kinds, ["run_queued", "run_started", "run_handed_back", "run_started"]);
        store.release_run(&claim.lease, HandBack::Interrupted).await.unwrap();
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        assert!(!store.load_run(&run).await.unwrap().handed_back, "an interrupted step is redone and announced");
        let cancelled = store.cancel_run(&run, &admin()).await.unwrap();
        assert_eq!(cancelled.status, RunStatus::Cancelled);
        assert!(matches!(store.commit(&claim.lease, text_commit(1, "late", true)).await, Err(StoreError::Fenced)));
        assert!(matches!(store.cancel_run(&run, &admin()).await, Err(StoreError::Conflict(_))));
        match store.heartbeat(&w, PATIENT_LEASE).await.unwrap() {
            Heartbeat::Renewed { held_runs } => assert!(held_runs.is_empty(), "the worker learns it lost the run"),
            Heartbeat::Lost => panic!("the lease is still valid"),
        }
    }

    #[tokio::test]
    async fn a_claim_never_received_is_handed_back_with_the_resume_facts_it_found(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &a, "x").await;
        let w = patient_worker(&store).await;
        for (before, clean) in
            [(HandBack::AtStepBoundary, true), (HandBack::Interrupted, false), (HandBack::DatabaseLost, false)]
        {
            let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
            store.release_run(&claim.lease, before).await.unwrap();
            // The claim's answer is lost: the heartbeat names the run with the
            // lease that claim took, so the worker can hand back exactly it.
            let lost = store.claim_runs(&w, 1).await.unwrap().remove(0);
            match store.heartbeat(&w, PATIENT_LEASE).await.unwrap() {
                Heartbeat::Renewed { held_runs } => assert_eq!(held_runs, std::slice::from_ref(&lost.lease)),
                Heartbeat::Lost => panic!("the lease is still valid"),
            }
            store.release_run(&lost.lease, HandBack::Unstarted).await.unwrap();
            let next = store.claim_runs(&w, 1).await.unwrap().remove(0);
            assert_eq!(next.charged_attempts, 0, "a claim that ran nothing is not charged");
            let context = store.load_run(&run).await.unwrap();
            assert_eq!(
                context.handed_back, clean,
                "after {before:?}, the next attempt knows what the lost one would have"
            );
            store.release_run(&next.lease, HandBack::AtStepBoundary).await.unwrap();
        }
        let events = store.read_events(&run, 0, 100).await.unwrap();
        let unstarted: Vec<_> = events
            .iter()
            .filter(|e| e.data.get("reason").is_some_and(|r| r.to_string().contains("never received")))
            .collect();
        assert_eq!(unstarted.len(), 3, "{events:?}");
        assert!(unstarted.iter().all(|e| e.kind == "run_handed_back" && e.data["interrupted"] == false));
    }

    #[tokio::test]
    async fn idempotency_keys_return_the_first_run(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let key =
            |hash: &str| IdempotencyKey { scope: format!("message:{s}"), key: "k".into(), request_hash: hash.into() };
        let new = |id: String| NewRun {
            id,
            kind: RunKind::Message,
            session_id: Some(s.clone()),
            agent: a.clone(),
            input: RunInput::new("m", Default::default()),
            work_dir: "/tmp".into(),
            max_attempts: 3,
            strategy: Default::default(),
            from_past: None,
        };
        let first = store.enqueue_run(new(new_id()), Some(key("h1"))).await.unwrap();
        let again = store.enqueue_run(new(new_id()), Some(key("h1"))).await.unwrap();
        assert!(first.created && !again.created);
        assert_eq!(first.run.id, again.run.id);
        assert!(matches!(store.enqueue_run(new(new_id()), Some(key("h2"))).await, Err(StoreError::Conflict(_))));
        let missing = NewRun { session_id: Some("nope".into()), ..new(new_id()) };
        assert!(matches!(store.enqueue_run(missing, None).await, Err(StoreError::NotFound(_))));
    }
}

/// Claims the session's next run and executes it to the end with the loop.
async fn execute_next(store: &Arc<dyn Store>, config: LoopConfig) -> (String, RunExit) {
    let w = patient_worker(store).await;
    let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
    let run_id = claim.lease.run_id.clone();
    (run_id, engine::execute(store.clone(), config, claim, RunSignals::default()).await)
}

fn quick_retries() -> LoopConfig {
    LoopConfig { retry_base: Duration::from_millis(1), provider_retries: 2, ..Default::default() }
}

store_tests! {
    #[tokio::test]
    async fn transient_provider_errors_are_retried_and_their_partial_output_voided(store, dir) {
        let a = agent(
            json!({"script": [{"error": {"status": 429, "message": "slow down"}}, {"error": {"status": 500, "message": "oops"}}, {"text": "fine"}]}),
            5,
        );
        let s = session(&store, dir.path()).await;
        enqueue(&store, &s, &a, "x").await;
        let (run, exit) = execute_next(&store, quick_retries()).await;
        assert_eq!(exit, RunExit::Finished);
        let done = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!((done.status, done.response.as_deref()), (RunStatus::Succeeded, Some("fine")));
        let events = store.read_events(&run, 0, 100).await.unwrap();
        let restarts: Vec<_> = events.iter().filter(|e| e.kind == "step_restarted").collect();
        assert_eq!(restarts.len(), 2, "each retry is visible");
        assert!(restarts[0].data["reason"].as_str().unwrap().contains("429"));
        assert_eq!(done.steps, 1, "retries are not steps");
    }

    #[tokio::test]
    async fn fatal_provider_errors_and_exhausted_retries_fail_the_run(store, dir) {
        let s = session(&store, dir.path()).await;
        let fatal = agent(json!({"script": [{"error": {"status": 400, "message": "bad request body"}}]}), 5);
        enqueue(&store, &s, &fatal, "x").await;
        let (run, _) = execute_next(&store, quick_retries()).await;
        let failed = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!(failed.status, RunStatus::Failed);
        assert_eq!(failed.error.as_deref(), Some("provider error (400): bad request body"));
        let busy = agent(
            json!({"script": [{"error": {"status": 529, "message": "overloaded"}}, {"error": {"status": 529, "message": "overloaded"}}, {"error": {"status": 529, "message": "overloaded"}}]}),
            5,
        );
        enqueue(&store, &s, &busy, "y").await;
        let (run, _) = execute_next(&store, quick_retries()).await;
        let failed = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!(failed.error.as_deref(), Some("provider error (529) after 2 retries: overloaded"));
    }

    #[tokio::test]
    async fn max_steps_ends_a_runaway_loop_with_a_valid_history(store, dir) {
        let call = json!({"tool_calls": [{"name": "bash", "input": {"command": "true"}}]});
        let a = agent(json!({"script": [call.clone(), call.clone(), call]}), 2);
        let s = session(&store, dir.path()).await;
        enqueue(&store, &s, &a, "loop").await;
        let (run, _) = execute_next(&store, LoopConfig::default()).await;
        let failed = store.get_run(&run).await.unwrap().unwrap();
        assert_eq!(failed.status, RunStatus::Failed);
        assert!(failed.error.unwrap().contains("max_steps"));
        assert_eq!(failed.steps, 2);
        let history = store.session_history(&s).await.unwrap();
        let roles: Vec<_> = history.iter().map(|m| m.role).collect();
        use wingman::domain::model::Role::*;
        assert_eq!(roles, [User, Assistant, Tool, Assistant, Tool]);
    }

    #[tokio::test]
    async fn a_runs_missing_work_dir_is_made_before_its_tools_run(store, dir) {
        let work = dir.path().join("not").join("yet");
        let call = json!({"tool_calls": [{"name": "bash", "input": {"command": "pwd"}}]});
        let a = agent(json!({"script": [call, {"text": "done"}]}), 5);
        let s = session(&store, dir.path()).await;
        // Made at the first run's step, and again at the second's once removed.
        for round in 0..2 {
            assert!(!work.exists());
            let run = NewRun {
                id: new_id(),
                kind: RunKind::Message,
                session_id: Some(s.clone()),
                agent: a.clone(),
                input: RunInput::new("where?", Default::default()),
                work_dir: work.to_string_lossy().into_owned(),
                max_attempts: 1,
                strategy: Default::default(),
                from_past: None,
            };
            store.enqueue_run(run, None).await.unwrap();
            let (run, _) = execute_next(&store, LoopConfig::default()).await;
            assert_eq!(store.get_run(&run).await.unwrap().unwrap().status, RunStatus::Succeeded, "round {round}");
            let result = store.read_events(&run, 0, 100).await.unwrap().into_iter().find(|e| e.kind == "tool_result");
            let result = result.expect("the call ran").data;
            assert_eq!(result["is_error"], false, "{result:?}");
            assert!(result["output"].as_str().unwrap().contains("not/yet"), "{result:?}");
            std::fs::remove_dir_all(&work).unwrap();
        }
    }

    #[tokio::test]
    async fn streamed_text_is_coalesced_but_never_lost(store, dir) {
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let text = words.join(" ");
        let a = agent(json!({"chunk_delay_ms": 10, "script": [{"text": text}]}), 5);
        let s = session(&store, dir.path()).await;
        enqueue(&store, &s, &a, "x").await;
        let config = LoopConfig { delta_flush: Duration::from_millis(100), ..Default::default() };
        let (run, _) = execute_next(&store, config).await;
        let events = store.read_events(&run, 0, 1000).await.unwrap();
        let deltas: Vec<&str> =
            events.iter().filter(|e| e.kind == "text_delta").map(|e| e.data["text"].as_str().unwrap()).collect();
        assert!(deltas.len() >= 2 && deltas.len() < 40, "coalesced into a few deltas: {}", deltas.len());
        assert_eq!(deltas.concat(), text);
    }

    #[tokio::test]
    async fn reading_after_the_largest_sequence_numbers_yields_nothing(store, dir) {
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &agent(json!({}), 5), "x").await;
        assert_eq!(seqs(&store.read_events(&run, 0, 10).await.unwrap()), [1]);
        // Stored as signed 64-bit numbers: 2^63 and above must not wrap to "before everything".
        for after in [1u64, 1 << 62, (1 << 63) - 1, 1 << 63, u64::MAX] {
            assert!(store.read_events(&run, after, 10).await.unwrap().is_empty(), "after {after}");
        }
    }

    #[tokio::test]
    async fn a_runs_standing_is_its_owner_its_status_and_whether_its_log_goes_on(store, dir) {
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &agent(json!({}), 5), "x").await;
        let queued = store.run_standing(&run, 0).await.unwrap().unwrap();
        assert_eq!((queued.owner.as_str(), queued.status, queued.events_after), ("admin", RunStatus::Queued, true));
        assert!(!queued.read_to_the_end());
        let nothing_yet = store.run_standing(&run, 1).await.unwrap().unwrap();
        assert!(!nothing_yet.events_after && !nothing_yet.read_to_the_end(), "a queued run's log goes on");
        let (ended, _) = execute_next(&store, quick_retries()).await;
        assert_eq!(ended, run);
        let log = store.read_events(&run, 0, 1000).await.unwrap();
        let last = log.last().unwrap().seq;
        for event in &log {
            let standing = store.run_standing(&run, event.seq - 1).await.unwrap().unwrap();
            assert!(standing.status.is_terminal() && standing.events_after, "event {} follows", event.seq);
            assert!(!standing.read_to_the_end());
        }
        // Past the end, as far as the numbers go: stored as signed 64-bit, never a wrap.
        for after in [last, (1 << 63) - 1, 1 << 63, u64::MAX] {
            let standing = store.run_standing(&run, after).await.unwrap().unwrap();
            assert!(standing.read_to_the_end(), "after {after}");
        }
        assert_eq!(store.run_standing("01NOSUCHRUN", 0).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_claims_run_started_event_is_the_domains_and_a_rescues_too(store, dir) {
        let a = agent(json!({}), 5);
        let run = enqueue(&store, &session(&store, dir.path()).await, &a, "x").await;
        let lapsed = worker(&store).await;
        let first = store.claim_runs(&lapsed, 1).await.unwrap().remove(0);
        tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        let rescuer = worker(&store).await;
        let second = store.claim_runs(&rescuer, 1).await.unwrap().remove(0);
        assert!(second.rescued && second.attempt == 2);
        let events = store.read_events(&run, 0, 100).await.unwrap();
        let started: Vec<_> = events.iter().filter(|e| e.kind == "run_started").collect();
        assert_eq!(started.len(), 2);
        for (event, claim) in started.iter().zip([&first, &second]) {
            let expected = wingman::domain::lifecycle::started(claim.attempt, &claim.lease.worker_id, claim.charged_attempts);
            assert_eq!((event.kind.as_str(), &event.data), (expected.kind(), &expected.data()));
        }
        assert_eq!(seqs(&events), [1, 2, 3]);
    }

    #[tokio::test]
    async fn a_session_is_read_with_the_agent_that_answers_it(store, dir) {
        let own = agent(json!({}), 5);
        let other = agent(json!({}), 7);
        store.insert_agent(&own).await.unwrap();
        store.insert_agent(&other).await.unwrap();
        let bare = session(&store, dir.path()).await;
        let mut with_agent = store.get_session(&bare).await.unwrap().unwrap();
        with_agent.id = new_id();
        with_agent.agent_id = Some(own.id.clone());
        store.insert_session(&with_agent).await.unwrap();
        let agent_of = |found: Option<(wingman::domain::model::Session, Option<wingman::domain::model::Agent>)>| {
            found.map(|(session, agent)| (session.id, agent.map(|a| a.id)))
        };
        let read = |s: String, a: Option<String>| {
            let store = store.clone();
            async move { agent_of(store.session_and_agent(&s, a.as_deref()).await.unwrap()) }
        };
        assert_eq!(read(bare.clone(), None).await, Some((bare.clone(), None)), "no agent of its own");
        assert_eq!(read(bare.clone(), Some(other.id.clone())).await, Some((bare.clone(), Some(other.id.clone()))));
        assert_eq!(read(with_agent.id.clone(), None).await, Some((with_agent.id.clone(), Some(own.id.clone()))));
        assert_eq!(
            read(with_agent.id.clone(), Some(other.id.clone())).await,
            Some((with_agent.id.clone(), Some(other.id.clone()))),
            "the message's agent wins"
        );
        assert_eq!(read(with_agent.id.clone(), Some(new_id())).await, Some((with_agent.id.clone(), None)));
        assert_eq!(read(new_id(), Some(own.id.clone())).await, None, "no such session");
    }
}
