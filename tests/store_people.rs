//! The storage contract for people in the loop, on every backend: runs that
//! wait hold no worker, decisions and steers are written atomically, a run
//! never ends or parks with something unread in its inbox, and a new
//! message's strategy applies to its session's unfinished runs.

mod store_support;

use std::sync::Arc;

use serde_json::json;
use store_support::*;
use wingman::domain::approval::{Decided, Decision};
use wingman::domain::checkpoint::{Checkpoint, CheckpointBody};
use wingman::domain::event::RunEvent;
use wingman::domain::model::{new_id, MultitaskStrategy, RunInput, RunKind, RunStatus};
use wingman::store::{Commit, Heartbeat, InboxKind, NewRun, RunFilter, Store, StoreError};

async fn status(store: &Arc<dyn Store>, run: &str) -> RunStatus {
    store.get_run(run).await.unwrap().unwrap().status
}

async fn event_count(store: &Arc<dyn Store>, run: &str) -> usize {
    store.read_events(run, 0, 1000).await.unwrap().len()
}

async fn submit(store: &Arc<dyn Store>, session: &str, strategy: MultitaskStrategy) -> Result<String, StoreError> {
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(session.into()),
        agent: agent(json!({}), 5),
        input: RunInput::new("next", Default::default()),
        work_dir: std::env::temp_dir().to_string_lossy().into_owned(),
        max_attempts: 2,
        strategy,
        from_past: None,
    };
    Ok(store.enqueue_run(run, None).await?.run.id)
}

store_tests! {
    #[tokio::test]
    async fn a_run_neither_ends_nor_parks_with_an_unread_message_in_its_inbox(store, dir) {
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &agent(json!({}), 5), "x").await;
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        store.steer_run(&run, "wait, one more thing", &admin()).await.unwrap();
        let before = event_count(&store, &run).await;
        let ending = store.commit(&claim.lease, text_commit(1, "answer", true)).await;
        assert!(matches!(ending, Err(StoreError::InboxWaiting)), "{ending:?}");
        let parking = Commit { wait: true, ..Default::default() };
        assert!(matches!(store.commit(&claim.lease, parking).await, Err(StoreError::InboxWaiting)));
        assert_eq!(event_count(&store, &run).await, before, "a refused commit writes nothing");
        assert_eq!(status(&store, &run).await, RunStatus::Running);
        // Without the end it goes through and says what is waiting.
        let committed = store.commit(&claim.lease, text_commit(1, "answer", false)).await.unwrap();
        let inbox = store.read_inbox(&run).await.unwrap();
        assert_eq!(committed.inbox_newest, Some(inbox[0].seq));
        assert_eq!(inbox[0].kind, InboxKind::Steer("wait, one more thing".into()));
        assert_eq!(inbox[0].by, Some(admin()), "who sent it is kept with it");
        // Taking it in removes it, and then the run may end.
        let steer = Checkpoint { step: 1, body: CheckpointBody::Steer { seq: inbox[0].seq, message: "m".into() } };
        let taken = Commit { checkpoints: vec![steer], delivered: vec![inbox[0].seq], ..Default::default() };
        assert_eq!(store.commit(&claim.lease, taken).await.unwrap().inbox_newest, None);
        store.commit(&claim.lease, text_commit(2, "done", true)).await.unwrap();
        assert_eq!(status(&store, &run).await, RunStatus::Succeeded);
        let late = store.steer_run(&run, "too late", &admin()).await;
        assert!(matches!(late, Err(StoreError::Conflict(_))), "{late:?}");
    }

    #[tokio::test]
    async fn a_waiting_run_holds_no_worker_until_a_decision_queues_it_again(store, dir) {
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &agent(json!({}), 5), "x").await;
        let next = enqueue(&store, &s, &agent(json!({}), 5), "y").await;
        let w = patient_worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        let asked = RunEvent::ApprovalRequested { step: 1, calls: vec![] };
        store.commit(&claim.lease, Commit { events: vec![asked], wait: true, ..Default::default() }).await.unwrap();
        assert_eq!(status(&store, &run).await, RunStatus::Waiting);
        match store.heartbeat(&w, PATIENT_LEASE).await.unwrap() {
            Heartbeat::Renewed { held_runs } => assert!(held_runs.is_empty(), "{held_runs:?}"),
            Heartbeat::Lost => panic!("lease lost"),
        }
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "neither the waiting run nor the next one");
        assert!(matches!(store.commit(&claim.lease, Commit::default()).await, Err(StoreError::Fenced)));
        let decision = |d: Decision| Checkpoint {
            step: 1,
            body: CheckpointBody::Decision { call_id: "call_1_1".into(), decision: d },
        };
        let decided = RunEvent::ApprovalDecided {
            step: 1,
            decisions: vec![Decided { call_id: "call_1_1".into(), decision: Decision::Approve, original_input: None }],
            by: Some(admin()),
        };
        let before = event_count(&store, &run).await;
        let queued = store.decide(&run, 1, vec![decision(Decision::Approve)], vec![decided.clone()]).await.unwrap();
        assert_eq!(queued.status, RunStatus::Queued);
        assert_eq!(event_count(&store, &run).await, before + 1);
        let again = store.decide(&run, 1, vec![decision(Decision::Approve)], vec![decided]).await;
        assert!(matches!(again, Err(StoreError::Conflict(_))), "deciding twice: {again:?}");
        let resumed = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(resumed.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [run.as_str()]);
        let ctx = store.load_run(&run).await.unwrap();
        assert!(ctx.handed_back, "it resumes at a step boundary");
        assert!(ctx.checkpoints.iter().any(|c| matches!(c.body, CheckpointBody::Decision { .. })));
        assert_eq!(status(&store, &next).await, RunStatus::Queued);
    }

    #[tokio::test]
    async fn a_new_message_rejects_interrupts_or_rolls_back_the_unfinished_runs(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let first = enqueue(&store, &s, &a, "first").await;
        let queued = enqueue(&store, &s, &a, "second").await;
        let w = worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);

        let refused = submit(&store, &s, MultitaskStrategy::Reject).await;
        assert!(matches!(refused, Err(StoreError::Busy(_))), "{refused:?}");
        let runs = store.list_runs(&RunFilter { limit: 100, ..Default::default() }).await.unwrap();
        assert_eq!(runs.len(), 2, "a refused message writes nothing");

        // Interrupt: the queued run ends now, the running one is asked to stop.
        let third = submit(&store, &s, MultitaskStrategy::Interrupt).await.unwrap();
        assert_eq!(status(&store, &queued).await, RunStatus::Interrupted);
        assert_eq!(status(&store, &first).await, RunStatus::Running);
        assert_eq!(store.read_inbox(&first).await.unwrap()[0].kind, InboxKind::Interrupt);
        assert!(store.claim_runs(&w, 10).await.unwrap().is_empty(), "the new one waits for the first");
        let committed = store.commit(&claim.lease, text_commit(1, "partial", false)).await.unwrap();
        assert!(committed.inbox_newest.is_some());

        // Rollback: every unfinished run is cancelled and forgotten.
        store.commit(&claim.lease, text_commit(2, "more", false)).await.unwrap();
        let fourth = submit(&store, &s, MultitaskStrategy::Rollback).await.unwrap();
        for run in [&first, &third] {
            assert_eq!(status(&store, run).await, RunStatus::Cancelled);
        }
        assert!(matches!(store.commit(&claim.lease, Commit::default()).await, Err(StoreError::Fenced)));
        let history = store.session_history(&s).await.unwrap();
        assert!(history.is_empty(), "rolled back runs leave nothing: {history:?}");
        let claims = store.claim_runs(&w, 10).await.unwrap();
        assert_eq!(claims.iter().map(|c| c.lease.run_id.as_str()).collect::<Vec<_>>(), [fourth.as_str()]);
    }
}
