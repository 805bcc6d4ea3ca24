//! The storage contract for what a dashboard lists, on every backend:
//! workers with their leases and the runs they hold, and lists paged from
//! either end.

mod store_support;

use serde_json::json;
use store_support::*;
use wingman::domain::model::RunStatus;
use wingman::store::{Heartbeat, Order, RunFilter, SessionFilter, WorkerStatus};

store_tests! {
    #[tokio::test]
    async fn workers_are_listed_with_their_leases_and_the_runs_they_hold(store, dir) {
        assert!(store.list_workers().await.unwrap().is_empty());
        let a = agent(json!({}), 5);
        let s1 = session(&store, dir.path()).await;
        let s2 = session(&store, dir.path()).await;
        let first = enqueue(&store, &s1, &a, "1").await;
        let second = enqueue(&store, &s2, &a, "2").await;
        let busy = worker(&store).await;
        let claimed = store.claim_runs(&busy, 10).await.unwrap();
        assert_eq!(claimed.len(), 2);
        let idle = patient_worker(&store).await;
        let gone = worker(&store).await;
        store.deregister_worker(&gone).await.unwrap();

        let listed = store.list_workers().await.unwrap();
        let find = |id: &str| listed.iter().find(|w| w.id == id).unwrap_or_else(|| panic!("{id} in {listed:?}"));
        assert_eq!(listed.len(), 3);
        assert_eq!((find(&busy).status, find(&busy).runs.clone()), (WorkerStatus::Live, vec![first, second.clone()]));
        assert_eq!(find(&busy).name, "test");
        assert!(find(&busy).lease_expires_at.is_some_and(|t| t > find(&busy).started_at));
        assert_eq!((find(&idle).status, find(&idle).runs.len()), (WorkerStatus::Live, 0));
        assert_eq!((find(&gone).status, find(&gone).lease_expires_at), (WorkerStatus::Stopped, None));
        assert_eq!(listed.last().map(|w| w.id.as_str()), Some(gone.as_str()), "a stopped worker comes last");

        // The busy worker's lease lapses: it still holds its runs (until
        // another worker rescues them), and says so.
        tokio::time::sleep(LEASE + LEASE / 3).await;
        let renewed = store.heartbeat(&idle, PATIENT_LEASE).await.unwrap();
        assert_eq!(renewed, Heartbeat::Renewed { held_runs: vec![] });
        let listed = store.list_workers().await.unwrap();
        assert_eq!(listed[0].id, idle, "the live worker first: {listed:?}");
        let lapsed = listed.iter().find(|w| w.id == busy).unwrap();
        assert_eq!((lapsed.status, lapsed.runs.len()), (WorkerStatus::Lapsed, 2));
        let ended = store.claim_runs(&idle, 1).await.unwrap();
        store.commit(&ended[0].lease, text_commit(1, "done", true)).await.unwrap();
        let listed = store.list_workers().await.unwrap();
        let held: Vec<usize> = listed.iter().map(|w| w.runs.len()).collect();
        assert_eq!(held.iter().sum::<usize>(), 1, "a finished run is held by no one: {listed:?}");
        let running = RunFilter { status: Some(RunStatus::Running), limit: 10, ..Default::default() };
        assert_eq!(store.list_runs(&running).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn runs_and_sessions_page_from_the_newest_as_from_the_oldest(store, dir) {
        let a = agent(json!({}), 5);
        let mut sessions = Vec::new();
        let mut runs = Vec::new();
        for i in 0..5 {
            let s = session(&store, dir.path()).await;
            runs.push(enqueue(&store, &s, &a, &i.to_string()).await);
            sessions.push(s);
            // IDs order by their millisecond first.
            tokio::time::sleep(std::time::Duration::from_millis(3)).await;
        }
        let mut newest = RunFilter { limit: 2, order: Order::NewestFirst, ..Default::default() };
        let mut seen = Vec::new();
        loop {
            let page = store.list_runs(&newest).await.unwrap();
            seen.extend(page.iter().map(|r| r.id.clone()));
            let Some(last) = page.last() else { break };
            newest.after = Some(last.id.clone());
        }
        let reversed: Vec<String> = runs.iter().rev().cloned().collect();
        assert_eq!(seen, reversed, "every run once, newest first");
        let queued = RunFilter { status: Some(RunStatus::Queued), after: Some(runs[2].clone()), ..newest };
        let older: Vec<String> = store.list_runs(&queued).await.unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(older, [runs[1].clone(), runs[0].clone()], "a status filter pages the same way");

        let all = store.list_sessions(&SessionFilter::default()).await.unwrap();
        assert_eq!(all.iter().map(|s| s.id.clone()).collect::<Vec<_>>(), sessions, "every session, oldest first");
        let filter = SessionFilter { limit: Some(2), order: Order::NewestFirst, after: Some(sessions[3].clone()), owner: None };
        let page: Vec<String> = store.list_sessions(&filter).await.unwrap().into_iter().map(|s| s.id).collect();
        assert_eq!(page, [sessions[2].clone(), sessions[1].clone()]);
        let filter = SessionFilter { limit: Some(2), after: Some(sessions[3].clone()), ..Default::default() };
        let page: Vec<String> = store.list_sessions(&filter).await.unwrap().into_iter().map(|s| s.id).collect();
        assert_eq!(page, [sessions[4].clone()]);
    }
}
