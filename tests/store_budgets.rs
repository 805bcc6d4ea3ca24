//! The storage contract for provider budgets, on every backend: a call's
//! share is taken or reserved, a reservation stands when asked again, a
//! pause from a 429 holds every run of the credential, `max_concurrent`
//! counts only the calls of running runs under their lease epoch, and a
//! credential nobody limited costs no row until the provider says something.

mod store_support;

use std::sync::Arc;

use store_support::{admin, agent, enqueue, session, worker};
use wingman::domain::budget::{Outcome, WaitReason};
use wingman::domain::model::ProviderLimits;
use wingman::domain::share::{BudgetRef, Share, ShareAsk};
use wingman::store::{Finish, HandBack, Store};

fn ask(run_id: &str, epoch: i64, budgets: &[(&str, Option<ProviderLimits>)]) -> ShareAsk {
    let budgets =
        budgets.iter().map(|(name, declared)| BudgetRef { name: name.to_string(), declared: *declared }).collect();
    ShareAsk { run_id: run_id.into(), epoch, budgets, tokens: 100 }
}

fn rpm(n: u32) -> Option<ProviderLimits> {
    Some(ProviderLimits { requests_per_minute: Some(n), ..Default::default() })
}

async fn names(store: &Arc<dyn Store>) -> Vec<String> {
    store.provider_budgets().await.unwrap().1.into_iter().map(|b| b.name).collect()
}

store_tests! {
    #[tokio::test]
    async fn a_spent_share_is_reserved_once_and_a_pause_holds_every_run_of_the_credential(store, _dir) {
        let first = store.take_provider_share(&ask("r1", 1, &[("agent:a", rpm(60))])).await.unwrap();
        let Share::Go { now, tracked: true } = first else { panic!("{first:?}") };
        let second = store.take_provider_share(&ask("r2", 1, &[("agent:a", rpm(60))])).await.unwrap();
        let Share::Wait { until, wait_ms, budget, reason, .. } = second else { panic!("{second:?}") };
        assert_eq!((budget.as_str(), reason), ("agent:a", WaitReason::RequestsPerMinute));
        assert!((until - now - 1000).abs() < 200 && wait_ms <= 1000, "one a second: {until} {now} {wait_ms}");
        // Asked again, the run keeps its reservation rather than taking another.
        let again = store.take_provider_share(&ask("r2", 1, &[("agent:a", rpm(60))])).await.unwrap();
        assert!(matches!(again, Share::Wait { until: u, .. } if u == until), "{again:?}");
        assert_eq!(store.provider_wait("r2").await.unwrap(), Some(("agent:a".to_string(), until)));
        assert_eq!(store.provider_wait("r1").await.unwrap(), None);
        let (_, seen) = store.provider_budgets().await.unwrap();
        assert_eq!((seen.len(), seen[0].waiting), (1, 1));

        // A credential nobody limited: no row for an answer, one for a 429.
        let free = store.take_provider_share(&ask("r3", 1, &[("openai", None)])).await.unwrap();
        let Share::Go { now, tracked: false } = free else { panic!("{free:?}") };
        let answered = Outcome::Answered { tokens_estimated: 100, tokens_used: 120 };
        store.settle_provider_call("r3", &["openai".into()], answered, None).await.unwrap();
        assert_eq!(names(&store).await, ["agent:a"]);
        let limited = Outcome::Limited { retry_after_ms: 5000, sent_at: now };
        store.settle_provider_call("r3", &["openai".into()], limited, None).await.unwrap();
        assert_eq!(names(&store).await, ["agent:a", "openai"]);
        for run in ["r4", "r5"] {
            let paused = store.take_provider_share(&ask(run, 1, &[("openai", None)])).await.unwrap();
            let Share::Wait { wait_ms, reason, .. } = paused else { panic!("{paused:?}") };
            assert_eq!(reason, WaitReason::Paused);
            assert!((4000..=5000).contains(&wait_ms), "{wait_ms}");
        }
        let view = store.provider_budgets().await.unwrap();
        let openai = view.1.iter().find(|b| b.name == "openai").unwrap().view(view.0);
        assert!(openai.paused_until.is_some() && openai.waiting == 2, "{openai:?}");
    }

    #[tokio::test]
    async fn max_concurrent_counts_the_calls_of_running_runs_under_their_epoch(store, dir) {
        let a = agent(serde_json::json!({}), 5);
        store.insert_agent(&a).await.unwrap();
        let (s1, s2) = (session(&store, dir.path()).await, session(&store, dir.path()).await);
        let (one, two) = (enqueue(&store, &s1, &a, "one").await, enqueue(&store, &s2, &a, "two").await);
        let w = worker(&store).await;
        let claims = store.claim_runs(&w, 2).await.unwrap();
        let epoch = |run: &str| claims.iter().find(|c| c.lease.run_id == run).unwrap().lease.epoch as i64;
        let lease_one = claims.iter().find(|c| c.lease.run_id == one).unwrap().lease.clone();
        let at_once = ProviderLimits { max_concurrent: Some(1), ..Default::default() };
        store.set_provider_limits("openai", Some(at_once)).await.unwrap();

        let go = store.take_provider_share(&ask(&one, epoch(&one), &[("openai", None)])).await.unwrap();
        assert!(matches!(go, Share::Go { tracked: true, .. }), "{go:?}");
        let full = store.take_provider_share(&ask(&two, epoch(&two), &[("openai", None)])).await.unwrap();
        assert!(matches!(full, Share::Wait { reason: WaitReason::MaxConcurrent, .. }), "{full:?}");
        let view = store.provider_budgets().await.unwrap();
        assert_eq!(view.1[0].in_flight, 1);

        // The call's run ends without settling (its worker died mid-call and
        // the run was failed): its place no longer counts.
        let end = Finish { status: wingman::domain::model::RunStatus::Failed, error: None, summary: None };
        store.commit(&lease_one, wingman::store::Commit { finish: Some(end), ..Default::default() }).await.unwrap();
        let room = store.take_provider_share(&ask(&two, epoch(&two), &[("openai", None)])).await.unwrap();
        assert!(matches!(room, Share::Go { .. }), "{room:?}");
        store.settle_provider_call(&two, &["openai".into()], Outcome::Failed, None).await.unwrap();
        assert_eq!(store.provider_budgets().await.unwrap().1[0].in_flight, 0);
    }

    #[tokio::test]
    async fn a_run_handed_back_for_its_budget_keeps_its_session_and_is_claimed_only_once_due(store, dir) {
        let a = agent(serde_json::json!({}), 5);
        store.insert_agent(&a).await.unwrap();
        let s = session(&store, dir.path()).await;
        let first = enqueue(&store, &s, &a, "one").await;
        let next = enqueue(&store, &s, &a, "two").await;
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 4).await.unwrap().pop().unwrap();
        assert_eq!(claim.lease.run_id, first);
        let soon = chrono::Utc::now().timestamp_millis() + 800;
        store.release_run(&claim.lease, HandBack::ForBudget { wake_at: soon }).await.unwrap();
        // Not claimable before its time, and its session's next message still waits behind it.
        assert!(store.claim_runs(&w, 4).await.unwrap().is_empty());
        assert!(!store.has_claimable().await.unwrap());
        let queue = store.queue_view(10).await.unwrap();
        assert_eq!((queue.queued.rate_limited, queue.queued.ready, queue.queued.session_busy), (1, 0, 1));
        tokio::time::sleep(std::time::Duration::from_millis(900)).await;
        assert!(store.has_claimable().await.unwrap());
        // (The first worker's short lease has lapsed by now.)
        let again = store.claim_runs(&worker(&store).await, 4).await.unwrap();
        assert_eq!(again.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [first.as_str()]);
        assert_eq!((again[0].charged_attempts, again[0].attempt), (claim.charged_attempts, 2), "not charged");
        assert_eq!(store.queue_view(10).await.unwrap().queued.rate_limited, 0);
        assert_ne!(next, first);
    }

    #[tokio::test]
    async fn calls_beyond_the_horizon_line_up_behind_the_live_runs_waiting_before_them(store, dir) {
        let a = agent(serde_json::json!({}), 5);
        store.insert_agent(&a).await.unwrap();
        let mut runs = Vec::new();
        for i in 0..5 {
            let s = session(&store, dir.path()).await;
            runs.push(enqueue(&store, &s, &a, &format!("m{i}")).await);
        }
        // One a second: the first goes, the next two reserve, the fourth is
        // more than the horizon off and reserves nothing.
        let mut until = Vec::new();
        for run in &runs {
            match store.take_provider_share(&ask(run, 1, &[("agent:a", rpm(60))])).await.unwrap() {
                Share::Go { now, .. } => until.push(now),
                Share::Wait { until: u, .. } => until.push(u),
            }
        }
        // The fifth asks again after the fourth, a share later, not at the same moment.
        let gap = until[4] - until[3];
        assert!((900..=1100).contains(&gap), "lined up one share behind: {until:?}");
        // Asked again, the fourth still stands before the fifth (only earlier waits count).
        let again = store.take_provider_share(&ask(&runs[3], 1, &[("agent:a", rpm(60))])).await.unwrap();
        assert!(matches!(again, Share::Wait { until: u, .. } if (u - until[3]).abs() < 200), "{again:?}");
        // A run that ended no longer holds a place in the line.
        store.cancel_run(&runs[3], &admin()).await.unwrap();
        let after = store.take_provider_share(&ask(&runs[4], 1, &[("agent:a", rpm(60))])).await.unwrap();
        assert!(matches!(after, Share::Wait { until: u, .. } if u < until[4] - 500), "{after:?}");
    }

    #[tokio::test]
    async fn declared_limits_are_replaced_and_removed_and_what_was_learned_stays(store, _dir) {
        store.set_provider_limits("openai", rpm(1200)).await.unwrap();
        let heard = wingman::domain::budget::Heard { tokens_per_minute: Some(30_000.0), ..Default::default() };
        let answered = Outcome::Answered { tokens_estimated: 0, tokens_used: 0 };
        store.settle_provider_call("r", &["openai".into()], answered, Some(heard)).await.unwrap();
        let (now, seen) = store.provider_budgets().await.unwrap();
        let view = seen[0].view(now);
        assert_eq!((view.requests_per_minute, view.tokens_per_minute), (Some(1200), Some(30_000)));
        store.set_provider_limits("openai", None).await.unwrap();
        let (now, seen) = store.provider_budgets().await.unwrap();
        let view = seen[0].view(now);
        assert!(view.declared.is_none());
        assert_eq!((view.requests_per_minute, view.learned_tokens_per_minute), (None, Some(30_000)));
    }
}
