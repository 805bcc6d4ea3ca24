//! The change watch across processes: every write that makes work or events
//! visible wakes the watch of another handle on the same database, which is
//! how workers and event pumps on other hosts learn of it without polling.
//! On PostgreSQL a write that is the only one under way in its process sends
//! its hint inside its own commit, and the others after theirs: a write
//! that did neither would be found only by the fallback poll.

mod store_support;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store_support::*;
use tokio::sync::watch;
use wingman::store::{self, Store, StoreOptions};

/// Long enough for any hint on a loaded machine; the watch itself never polls.
const HINT_WITHIN: Duration = Duration::from_secs(5);

store_tests! {
    #[tokio::test]
    async fn a_submission_a_claim_and_a_commit_each_wake_another_processes_watch(store, guard) {
        let other = store::open(guard.url(), &StoreOptions::default()).await.unwrap();
        let mut changes = other.changes().expect("the backend has a change watch");
        let a = agent(json!({}), 5);
        watching(&store, guard.path(), &mut changes).await;
        let s = session(&store, guard.path()).await;

        let run = enqueue(&store, &s, &a, "hello").await;
        woken(&mut changes, "a submission alone").await;
        let w = worker(&store).await;
        let claims = store.claim_runs(&w, 10).await.unwrap();
        let claim = claims.iter().find(|c| c.lease.run_id == run).expect("the run was claimed");
        woken(&mut changes, "a claim alone").await;
        store.commit(&claim.lease, text_commit(1, "hi", true)).await.unwrap();
        woken(&mut changes, "a worker's commit").await;

        // Submissions under way together hint after their commits.
        let sessions = [session(&store, guard.path()).await, session(&store, guard.path()).await];
        let (first, second) = (enqueue(&store, &sessions[0], &a, "1"), enqueue(&store, &sessions[1], &a, "2"));
        tokio::join!(first, second);
        woken(&mut changes, "submissions together").await;
    }
}

/// Waits until the watch is live: a write before it was ready may not have
/// reached it, so write until one does, then forget what it saw.
/// Its runs are in a session of their own.
async fn watching(store: &Arc<dyn Store>, dir: &std::path::Path, changes: &mut watch::Receiver<u64>) {
    let a = agent(json!({}), 5);
    let s = session(store, dir).await;
    for _ in 0..50 {
        enqueue(store, &s, &a, "are you there").await;
        if tokio::time::timeout(Duration::from_millis(200), changes.changed()).await.is_ok() {
            settle(changes).await;
            return;
        }
    }
    panic!("the change watch never woke");
}

async fn woken(changes: &mut watch::Receiver<u64>, what: &str) {
    let woke = tokio::time::timeout(HINT_WITHIN, changes.changed()).await;
    assert!(matches!(woke, Ok(Ok(()))), "{what} woke no other process within {HINT_WITHIN:?}");
    settle(changes).await;
}

/// Lets hints still on their way arrive, then marks everything seen, so the
/// next wait is woken by the next write alone.
async fn settle(changes: &mut watch::Receiver<u64>) {
    tokio::time::sleep(Duration::from_millis(100)).await;
    changes.borrow_and_update();
}
