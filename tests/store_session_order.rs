//! One run at a time per session, in submission order: the storage contract,
//! checked on every backend for each way a run can end (cancel, fail, the
//! worker's own finish, a hand-back, deleting the session) in each position
//! of a session's queue.
//!
//! The rule under test: only the run that holds the session's turn passes
//! it on. Ending a run that waits behind another must not start the next
//! one beside the run that is still going.

mod store_support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store_support::*;
use wingman::domain::model::{Agent, RunStatus};
use wingman::store::{Claim, Commit, Finish, HandBack, Store};

/// How many runs each scenario queues in one session.
const RUNS: usize = 4;

/// A session with `RUNS` runs queued in it, in order.
async fn queued_session(store: &Arc<dyn Store>, dir: &std::path::Path) -> (String, Vec<String>, Agent) {
    let a = agent(json!({}), 5);
    let s = session(store, dir).await;
    let mut runs = Vec::new();
    for i in 0..RUNS {
        runs.push(enqueue(store, &s, &a, &format!("m{i}")).await);
    }
    (s, runs, a)
}

/// Claims as much as a worker could take, and checks it is exactly `expected`.
async fn claim_exactly(store: &Arc<dyn Store>, w: &str, expected: Option<&str>) -> Option<Claim> {
    let mut claims = store.claim_runs(w, 10).await.unwrap();
    let ids: Vec<&str> = claims.iter().map(|c| c.lease.run_id.as_str()).collect();
    assert_eq!(ids, expected.into_iter().collect::<Vec<_>>(), "one run of the session at a time, in order");
    claims.pop()
}

/// Runs every remaining run to success one by one, checking that each is
/// the only one claimable, in submission order; then checks the history
/// holds the finished runs' messages in that order.
async fn drain_in_order(store: &Arc<dyn Store>, session: &str, remaining: &[String], finished_before: &[&str]) {
    let w = patient_worker(store).await;
    for run in remaining {
        let claim = claim_exactly(store, &w, Some(run)).await.expect("claimed");
        assert!(!store.has_claimable().await.unwrap(), "nothing else of the session is claimable while {run} runs");
        store.commit(&claim.lease, text_commit(1, &format!("answer to {run}"), true)).await.unwrap();
    }
    claim_exactly(store, &w, None).await;
    let history: Vec<String> = store.session_history(session).await.unwrap().iter().map(|m| m.text()).collect();
    let mut expected: Vec<String> = finished_before.iter().map(|s| s.to_string()).collect();
    for run in remaining {
        let input = store.get_run(run).await.unwrap().unwrap().input.message;
        expected.extend([input, format!("answer to {run}")]);
    }
    assert_eq!(history, expected, "the history follows submission order");
}

store_tests! {
    #[tokio::test]
    async fn cancelling_a_run_in_any_position_keeps_the_session_in_order(store, dir) {
        for position in 0..RUNS {
            let (s, runs, _) = queued_session(&store, dir.path()).await;
            let w = patient_worker(&store).await;
            let head = claim_exactly(&store, &w, Some(&runs[0])).await.unwrap();
            store.cancel_run(&runs[position], &admin()).await.unwrap();
            let mut remaining: Vec<String> = runs.clone();
            remaining.remove(position);
            if position == 0 {
                // The head itself was cancelled: the turn passes to the next.
                drain_in_order(&store, &s, &remaining, &[]).await;
            } else {
                claim_exactly(&store, &w, None).await;
                store.commit(&head.lease, text_commit(1, "first answer", true)).await.unwrap();
                drain_in_order(&store, &s, &remaining[1..], &["m0", "first answer"]).await;
            }
            let cancelled = store.get_run(&runs[position]).await.unwrap().unwrap();
            assert_eq!(cancelled.status, RunStatus::Cancelled, "position {position}");
        }
    }

    #[tokio::test]
    async fn cancelling_queued_runs_before_the_head_is_claimed_keeps_the_order(store, dir) {
        let (s, runs, _) = queued_session(&store, dir.path()).await;
        // Nothing claimed yet: the head holds the turn while queued.
        store.cancel_run(&runs[2], &admin()).await.unwrap();
        store.cancel_run(&runs[0], &admin()).await.unwrap();
        drain_in_order(&store, &s, &[runs[1].clone(), runs[3].clone()], &[]).await;
    }

    #[tokio::test]
    async fn a_run_failed_by_its_worker_or_by_rescue_passes_the_turn_once(store, dir) {
        // The worker ends the head with a failure of its own.
        let (s, runs, _) = queued_session(&store, dir.path()).await;
        let w = patient_worker(&store).await;
        let head = claim_exactly(&store, &w, Some(&runs[0])).await.unwrap();
        store.cancel_run(&runs[1], &admin()).await.unwrap();
        let failed = Commit {
            finish: Some(Finish { status: RunStatus::Failed, error: Some("broken".into()), summary: None }),
            ..Default::default()
        };
        store.commit(&head.lease, failed).await.unwrap();
        drain_in_order(&store, &s, &runs[2..], &[]).await;

        // The head's workers keep dying until rescue gives it up (max_attempts 2).
        let (s, runs, _) = queued_session(&store, dir.path()).await;
        for _ in 0..2 {
            let short = worker(&store).await;
            claim_exactly(&store, &short, Some(&runs[0])).await;
            tokio::time::sleep(LEASE + Duration::from_millis(100)).await;
        }
        store.cancel_run(&runs[2], &admin()).await.unwrap();
        // The claim that fails the head takes the next run in the same breath, and only it.
        let w = patient_worker(&store).await;
        let next = claim_exactly(&store, &w, Some(&runs[1])).await.unwrap();
        assert_eq!(store.get_run(&runs[0]).await.unwrap().unwrap().status, RunStatus::Failed);
        store.commit(&next.lease, text_commit(1, &format!("answer to {}", runs[1]), true)).await.unwrap();
        drain_in_order(&store, &s, &runs[3..], &["m1", &format!("answer to {}", runs[1])]).await;
    }

    #[tokio::test]
    async fn a_handed_back_run_keeps_its_turn(store, dir) {
        let (s, runs, _) = queued_session(&store, dir.path()).await;
        let w = patient_worker(&store).await;
        for how in [HandBack::AtStepBoundary, HandBack::Interrupted] {
            let head = claim_exactly(&store, &w, Some(&runs[0])).await.unwrap();
            store.release_run(&head.lease, how).await.unwrap();
        }
        store.cancel_run(&runs[1], &admin()).await.unwrap();
        let head = claim_exactly(&store, &w, Some(&runs[0])).await.unwrap();
        store.commit(&head.lease, text_commit(1, "first answer", true)).await.unwrap();
        drain_in_order(&store, &s, &runs[2..], &["m0", "first answer"]).await;
    }

    #[tokio::test]
    async fn deleting_a_session_ends_all_its_runs_and_starts_none(store, dir) {
        let (s, runs, _) = queued_session(&store, dir.path()).await;
        let (other, other_runs, _) = queued_session(&store, dir.path()).await;
        let w = patient_worker(&store).await;
        let mut claims = store.claim_runs(&w, 10).await.unwrap();
        claims.sort_by(|a, b| a.lease.run_id.cmp(&b.lease.run_id));
        let heads: Vec<&str> = claims.iter().map(|c| c.lease.run_id.as_str()).collect();
        assert_eq!(heads, [runs[0].as_str(), other_runs[0].as_str()], "one head per session");
        store.delete_session(&s).await.unwrap();
        for run in &runs {
            assert_eq!(store.get_run(run).await.unwrap().unwrap().status, RunStatus::Cancelled);
        }
        // The other session is untouched: its head still runs, the rest wait.
        claim_exactly(&store, &w, None).await;
        store.commit(&claims[1].lease, text_commit(1, "other answer", true)).await.unwrap();
        drain_in_order(&store, &other, &other_runs[1..], &["m0", "other answer"]).await;
    }

    /// A run submitted while the session's running run ends is never stranded
    /// behind it: the submission's busy check sees the end even when the end
    /// committed while the submission waited for the session's lock (a check
    /// that read the session's runs as they were before the wait would block the
    /// new run for a turn that was already passed on).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_run_submitted_as_the_running_one_ends_is_never_stranded(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let w = patient_worker(&store).await;
        enqueue(&store, &s, &a, "m0").await;
        for round in 1..=200 {
            store.heartbeat(&w, PATIENT_LEASE).await.unwrap();
            let running = store.claim_runs(&w, 1).await.unwrap().remove(0);
            // The submission starts up to 1.5 ms after the end, so that across
            // the rounds it meets the end at each of its statements.
            let delay = Duration::from_micros(150 * (round % 11));
            let (store2, s2, a2) = (store.clone(), s.clone(), a.clone());
            let submit = tokio::spawn(async move {
                let start = std::time::Instant::now();
                while start.elapsed() < delay {
                    tokio::task::yield_now().await;
                }
                enqueue(&store2, &s2, &a2, &format!("m{round}")).await
            });
            store.commit(&running.lease, text_commit(1, "done", true)).await.unwrap();
            let submitted = submit.await.unwrap();
            let next = store.claim_runs(&w, 1).await.unwrap();
            let claimed: Vec<&str> = next.iter().map(|c| c.lease.run_id.as_str()).collect();
            assert_eq!(claimed, [submitted.as_str()], "round {round}: the new run waits for a turn passed on already");
            store.release_run(&next[0].lease, HandBack::AtStepBoundary).await.unwrap();
        }
    }
}
