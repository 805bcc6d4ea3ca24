//! The storage contract for rewind and fork ([`wingman::domain::branch`]):
//! a fork copies a history as it was after a run into a new session; a
//! rewind sets the rows after a run aside as a branch, never deletes them,
//! and is refused while a run of the session is unfinished or for a run
//! already set aside; the history reads as it was after any run or in any
//! branch. A fork needs no checkpoints: a run that succeeded keeps none.

mod store_support;

use std::sync::Arc;

use store_support::{agent, enqueue, new_session, text_commit, worker};
use wingman::domain::branch::{HistoryAt, RewindTo};
use wingman::domain::model::{new_id, Agent, Message, Session};
use wingman::store::{Store, StoreError};

/// Enqueues `message` and has a worker answer it, ending the run.
async fn said(store: &Arc<dyn Store>, session: &str, agent: &Agent, message: &str) -> String {
    let run = enqueue(store, session, agent, message).await;
    let w = worker(store).await;
    let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
    assert_eq!(claim.lease.run_id, run);
    store.commit(&claim.lease, text_commit(1, &format!("answer to {message}"), true)).await.unwrap();
    run
}

fn texts(history: &[Message]) -> Vec<String> {
    history.iter().map(Message::text).collect()
}

/// A session that three runs (`a`, `b`, `c`) answered, with its agent,
/// the runs and the texts of its whole history.
async fn three_runs(store: &Arc<dyn Store>, dir: &std::path::Path) -> (Agent, Session, [String; 3], Vec<String>) {
    let agent = agent(serde_json::json!({}), 5);
    let session = new_session(dir, None);
    store.insert_session(&session).await.unwrap();
    let a = said(store, &session.id, &agent, "a").await;
    let b = said(store, &session.id, &agent, "b").await;
    let c = said(store, &session.id, &agent, "c").await;
    let whole = texts(&store.session_history(&session.id).await.unwrap());
    (agent, session, [a, b, c], whole)
}

/// A new session like `session`, to fork into.
fn another(session: &Session) -> Session {
    Session { id: new_id(), ..session.clone() }
}

store_tests! {
    #[tokio::test]
    async fn a_fork_copies_the_history_as_it_was_after_a_run(store, dir) {
        let (_, session, [a, b, _c], whole) = three_runs(&store, dir.path()).await;
        assert_eq!(whole.len(), 6);
        assert!(store.run_checkpoints(&a).await.unwrap().is_empty(), "a succeeded: a fork reads the history");

        let at_b = store.session_history_at(&session.id, &HistoryAt::AfterRun(b.clone())).await.unwrap();
        assert_eq!(texts(&at_b), whole[..4]);
        let fork = another(&session);
        let made = store.fork_session(&fork, &session.id, Some(&b)).await.unwrap();
        let from = made.forked_from.clone().expect("forked_from");
        assert_eq!((from.session_id.as_str(), from.run_id.as_deref()), (session.id.as_str(), Some(b.as_str())));
        assert_eq!(store.get_session(&fork.id).await.unwrap().unwrap().forked_from, made.forked_from);
        assert_eq!(texts(&store.session_history(&fork.id).await.unwrap()), whole[..4]);
        assert_eq!(texts(&store.session_history(&session.id).await.unwrap()), whole, "the original is untouched");

        let whole_fork = another(&session);
        store.fork_session(&whole_fork, &session.id, None).await.unwrap();
        assert_eq!(texts(&store.session_history(&whole_fork.id).await.unwrap()), whole);
        let missing = store.fork_session(&another(&session), &session.id, Some("01JNORUN")).await;
        assert!(matches!(missing, Err(StoreError::NotFound("run"))), "{missing:?}");
    }

    #[tokio::test]
    async fn a_rewind_sets_rows_aside_as_a_branch_and_is_refused_while_a_run_is_unfinished(store, dir) {
        let (agent, session, [a, b, c], whole) = three_runs(&store, dir.path()).await;

        let branch = store.rewind_session(&session.id, &RewindTo::After(a.clone())).await.unwrap().expect("a branch");
        assert_eq!((branch.branch, branch.after_run_id.as_deref()), (1, Some(a.as_str())));
        assert_eq!((branch.runs.clone(), branch.messages), (vec![b.clone(), c.clone()], 4));
        assert_eq!(store.session_branches(&session.id).await.unwrap(), vec![branch]);
        assert_eq!(texts(&store.session_history(&session.id).await.unwrap()), whole[..2]);
        assert_eq!(texts(&store.session_history_at(&session.id, &HistoryAt::Branch(1)).await.unwrap()), whole);
        assert_eq!(texts(&store.session_history_at(&session.id, &HistoryAt::AfterRun(c.clone())).await.unwrap()), whole);
        let none = store.session_history_at(&session.id, &HistoryAt::Branch(2)).await;
        assert!(matches!(none, Err(StoreError::NotFound("branch"))), "{none:?}");

        // Nothing more after a; b is set aside.
        assert_eq!(store.rewind_session(&session.id, &RewindTo::After(a.clone())).await.unwrap(), None);
        let aside = store.rewind_session(&session.id, &RewindTo::After(b.clone())).await;
        assert!(matches!(aside, Err(StoreError::Busy(ref m)) if m.contains("fork at it")), "{aside:?}");

        // A queued run of the session refuses a rewind, which changes nothing.
        let d = said(&store, &session.id, &agent, "d").await;
        let queued = enqueue(&store, &session.id, &agent, "e").await;
        let busy = store.rewind_session(&session.id, &RewindTo::After(a.clone())).await;
        assert!(matches!(busy, Err(StoreError::Busy(ref m)) if m.contains(&queued)), "{busy:?}");
        assert_eq!(store.session_branches(&session.id).await.unwrap().len(), 1);
        let live = texts(&store.session_history(&session.id).await.unwrap());
        assert_eq!((live.len(), live[2].as_str()), (4, "d"), "a's and d's messages: {live:?} ({d})");
    }
}
