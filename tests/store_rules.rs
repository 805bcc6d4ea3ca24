//! Where a rule of a run also stays in SQL for speed, the SQL and the
//! rule's Rust must agree. PostgreSQL's one-call enqueue
//! (`wingman_enqueue_run`) decides in SQL whether a new run waits for its
//! session's turn; SQLite calls the rule itself. Every case runs through the
//! store on both backends and is held to `lifecycle::turn::starts_blocked`.
//! (The other rule kept in SQL, the one-statement claim's `run_started`, is
//! held to `lifecycle::started` in tests/store.rs.)

mod store_support;

use std::sync::Arc;

use serde_json::json;
use store_support::*;
use wingman::domain::lifecycle::turn;
use wingman::domain::model::{new_id, RunInput, RunKind, RunStatus};
use wingman::store::{Commit, Finish, NewRun, RunFilter, Store, StoreError};

/// The states a session's earlier run can be in when a message comes.
#[derive(Debug, Clone, Copy)]
enum Earlier {
    Queued,
    Running,
    Waiting,
    Ended(RunStatus),
}

const CASES: &[&[Earlier]] = &[
    &[],
    &[Earlier::Queued],
    &[Earlier::Running],
    &[Earlier::Waiting],
    &[Earlier::Ended(RunStatus::Succeeded)],
    &[Earlier::Ended(RunStatus::Failed)],
    &[Earlier::Ended(RunStatus::Cancelled)],
    &[Earlier::Ended(RunStatus::Interrupted)],
    &[Earlier::Ended(RunStatus::Succeeded), Earlier::Ended(RunStatus::Cancelled)],
    &[Earlier::Ended(RunStatus::Failed), Earlier::Waiting],
];

/// Puts a new run of session `s` in the state `earlier` says.
async fn earlier_run(store: &Arc<dyn Store>, s: &str, earlier: Earlier) {
    let run = enqueue(store, s, &agent(json!({}), 5), "earlier").await;
    let end = |status| Finish { status, error: None, summary: None };
    match earlier {
        Earlier::Queued => {}
        Earlier::Ended(RunStatus::Cancelled) => {
            store.cancel_run(&run, &admin()).await.unwrap();
        }
        _ => {
            let w = patient_worker(store).await;
            let claim = store.claim_runs(&w, 10).await.unwrap();
            let claim = claim.into_iter().find(|c| c.lease.run_id == run).expect("the earlier run is claimed");
            let commit = match earlier {
                Earlier::Running => return,
                Earlier::Waiting => Commit { wait: true, ..Default::default() },
                Earlier::Ended(status) => Commit { finish: Some(end(status)), ..Default::default() },
                Earlier::Queued => unreachable!(),
            };
            store.commit(&claim.lease, commit).await.unwrap();
        }
    }
}

/// Whether the store let `run` be claimed at once: not blocked.
async fn claimable(store: &Arc<dyn Store>, run: &str) -> bool {
    let w = patient_worker(store).await;
    store.claim_runs(&w, 100).await.unwrap().iter().any(|c| c.lease.run_id == run)
}

store_tests! {
    #[tokio::test]
    async fn whether_a_new_run_waits_for_its_turn_is_the_rules_answer(store, dir) {
        for case in CASES {
            let s = session(&store, dir.path()).await;
            for earlier in *case {
                earlier_run(&store, &s, *earlier).await;
            }
            let statuses: Vec<RunStatus> = store
                .list_runs(&RunFilter { session_id: Some(s.clone()), limit: 100, ..Default::default() })
                .await
                .unwrap()
                .iter()
                .map(|r| r.status)
                .collect();
            let expected = turn::starts_blocked(statuses.iter().any(|s| turn::is_unfinished(*s)));
            let run = enqueue(&store, &s, &agent(json!({}), 5), "new").await;
            assert_eq!(!claimable(&store, &run).await, expected, "session with {case:?} (stored {statuses:?})");
        }
    }

    #[tokio::test]
    async fn a_run_without_a_session_starts_at_once_and_a_missing_session_is_refused(store, dir) {
        let new = |session_id: Option<String>| NewRun {
            id: new_id(),
            kind: RunKind::Message,
            session_id,
            agent: agent(json!({}), 5),
            input: RunInput::new("m", Default::default()),
            work_dir: dir.path().to_string_lossy().into_owned(),
            max_attempts: 2,
            strategy: Default::default(),
            from_past: None,
        };
        let alone = store.enqueue_run(new(None), None).await.unwrap().run.id;
        assert_eq!(claimable(&store, &alone).await, !turn::starts_blocked(false));
        let missing = store.enqueue_run(new(Some(new_id())), None).await;
        assert!(matches!(missing, Err(StoreError::NotFound("session"))), "{missing:?}");
    }
}
