//! The storage contract for owners' quotas and usage: a quota is kept per
//! owner (an empty one removes it); an owner's queued runs are counted as
//! its own; each commit of an inference adds its tokens and cost to its
//! run's owner's day, and each end one run, whichever worker wrote it (on
//! PostgreSQL each worker keeps its own part of a day, which reads add up),
//! so a day adds up to its runs' usage. An owner's `max_running_runs` holds
//! its runs past the limit as a concurrency key's does, and gives them back
//! as its runs end or its quota is raised or removed.

mod store_support;

use std::sync::Arc;

use store_support::{admin, agent, enqueue_owned, session, text_commit, worker};
use wingman::domain::checkpoint::CheckpointBody;
use wingman::domain::model::Usage;
use wingman::domain::quota::{self, Quota};
use wingman::store::{Claim, Commit, Store};

/// A commit of one inference that used `tokens` input tokens for `usd`, ending the run.
fn priced(tokens: u64, usd: f64) -> Commit {
    let mut commit = text_commit(1, "done", true);
    if let CheckpointBody::Inference { usage, .. } = &mut commit.checkpoints[0].body {
        *usage = Usage { input_tokens: tokens, output_tokens: 2, cost_usd: Some(usd), ..Usage::default() };
    }
    commit
}

/// Today's usage of `owner`, by the store's clock.
async fn today(store: &Arc<dyn Store>, owner: &str) -> Option<quota::DayUsage> {
    let day = quota::day_of(store.now().await.unwrap());
    let days = store.owner_usage(owner, &day, &day).await.unwrap();
    assert!(days.len() <= 1, "{days:?}");
    days.into_iter().next()
}

store_tests! {
    #[tokio::test]
    async fn a_quota_is_kept_per_owner_and_an_empty_one_removed(store, _dir) {
        assert!(store.list_quotas().await.unwrap().is_empty());
        let bob = Quota { max_queued_runs: Some(3), max_running_runs: Some(2), max_cost_usd_per_day: Some(1.5) };
        store.put_quota("bob", &bob).await.unwrap();
        store.put_quota("amy", &Quota { max_queued_runs: Some(1), ..Quota::default() }).await.unwrap();
        let changed = Quota { max_cost_usd_per_day: Some(2.0), ..Quota::default() };
        store.put_quota("bob", &changed).await.unwrap();
        let listed = store.list_quotas().await.unwrap();
        let owners: Vec<&str> = listed.iter().map(|(owner, _)| owner.as_str()).collect();
        assert_eq!(owners, ["amy", "bob"], "by owner");
        assert_eq!(listed[1].1, changed, "replaced as a whole");
        store.put_quota("bob", &Quota::default()).await.unwrap();
        assert_eq!(store.list_quotas().await.unwrap().len(), 1, "an empty quota is no quota");
    }

    #[tokio::test]
    async fn an_owners_queued_runs_and_days_are_its_own(store, dir) {
        let a = agent(serde_json::json!({}), 5);
        store.insert_agent(&a).await.unwrap();
        let mut bobs = Vec::new();
        for _ in 0..3 {
            bobs.push(enqueue_owned(&store, &session(&store, dir.path()).await, &a, "bob", None).await);
        }
        let amys = enqueue_owned(&store, &session(&store, dir.path()).await, &a, "amy", None).await;
        assert_eq!((store.count_queued("bob").await.unwrap(), store.count_queued("amy").await.unwrap()), (3, 1));
        assert_eq!(store.count_queued("nobody").await.unwrap(), 0);

        // Two workers commit bob's runs: their counts add up in one day.
        let (w1, w2) = (worker(&store).await, worker(&store).await);
        let mut claims = store.claim_runs(&w1, 2).await.unwrap();
        claims.extend(store.claim_runs(&w2, 10).await.unwrap());
        assert_eq!(claims.len(), 4);
        assert_eq!(store.count_queued("bob").await.unwrap(), 0, "a running run is not queued");
        let lease = |id: &str| claims.iter().find(|c| c.lease.run_id == id).unwrap().lease.clone();
        store.commit(&lease(&bobs[0]), priced(100, 0.25)).await.unwrap();
        store.commit(&lease(&bobs[1]), priced(50, 0.5)).await.unwrap();
        store.commit(&lease(&amys), priced(7, 1.0)).await.unwrap();
        // An end no worker wrote counts one run, and nothing spent.
        store.cancel_run(&bobs[2], &admin()).await.unwrap();

        let bob = today(&store, "bob").await.expect("bob used something today");
        assert_eq!((bob.runs, bob.input_tokens, bob.output_tokens), (3, 150, 4), "{bob:?}");
        assert!((bob.cost_usd - 0.75).abs() < 1e-9, "{bob:?}");
        assert!((store.spent_today("bob").await.unwrap() - 0.75).abs() < 1e-9);
        let amy = today(&store, "amy").await.unwrap();
        assert_eq!((amy.runs, amy.input_tokens), (1, 7));
        assert_eq!(store.spent_today("nobody").await.unwrap(), 0.0);
        assert!(today(&store, "nobody").await.is_none());
        assert!(store.owner_usage("bob", "2001-01-01", "2001-12-31").await.unwrap().is_empty(), "no use then");
        let mut runs_cost = 0.0;
        for id in &bobs {
            runs_cost += store.get_run(id).await.unwrap().unwrap().usage.cost_usd.unwrap_or(0.0);
        }
        assert!((runs_cost - bob.cost_usd).abs() < 1e-9, "the day adds up to the runs' usage: {runs_cost}");
    }

    #[tokio::test]
    async fn an_owners_running_limit_holds_its_runs_until_a_slot_frees(store, dir) {
        let a = agent(serde_json::json!({}), 5);
        store.insert_agent(&a).await.unwrap();
        store.put_quota("bob", &Quota { max_running_runs: Some(2), ..Quota::default() }).await.unwrap();
        let mut bobs = Vec::new();
        for key in [None, None, Some("k"), None] {
            bobs.push(enqueue_owned(&store, &session(&store, dir.path()).await, &a, "bob", key).await);
        }
        let amys = enqueue_owned(&store, &session(&store, dir.path()).await, &a, "amy", None).await;
        let w = worker(&store).await;
        let ids = |claims: &[Claim]| claims.iter().map(|c| c.lease.run_id.clone()).collect::<Vec<_>>();
        let first = store.claim_runs(&w, 10).await.unwrap();
        let started = ids(&first);
        assert_eq!(started.len(), 3, "two of bob's and amy's: {started:?}");
        assert!(started.contains(&bobs[0]) && started.contains(&bobs[1]) && started.contains(&amys));
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "bob is at his limit");
        assert!(!store.has_claimable().await.unwrap(), "a full owner's held runs are not claimable");
        assert_eq!(store.count_queued("bob").await.unwrap(), 2, "held runs are still queued");

        // One of bob's runs ends: his oldest waiting run takes the slot.
        let lease = first.iter().find(|c| c.lease.run_id == bobs[0]).unwrap().lease.clone();
        store.commit(&lease, text_commit(1, "done", true)).await.unwrap();
        assert!(store.has_claimable().await.unwrap(), "a slot of bob's is free");
        let second = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(ids(&second), [bobs[2].clone()], "the oldest of bob's held runs, its key free too");
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty());

        // Removing the quota gives the rest back at once.
        store.put_quota("bob", &Quota::default()).await.unwrap();
        assert!(store.has_claimable().await.unwrap());
        assert_eq!(ids(&store.claim_runs(&w, 10).await.unwrap()), [bobs[3].clone()]);
    }
}
