//! The global event cursor follows commit order: a reader that follows it
//! while many writers commit at once sees every event exactly once. (On
//! PostgreSQL, numbers taken from a sequence do not commit in order; a
//! cursor over them alone would skip events that commit late. PostgreSQL
//! also keeps a write's events in one row, so reads that stop inside a
//! write's events must resume there.)

mod store_support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store_support::*;
use wingman::domain::event::RunEvent;
use wingman::store::{Commit, EventCursor, Store};

const RUNS: usize = 24;
const COMMITS: u32 = 25;

store_tests! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_reader_following_the_cursor_sees_every_event_once_while_many_commit(store, dir) {
        let a = agent(json!({}), 100);
        for r in 0..RUNS {
            let s = session(&store, dir.path()).await;
            enqueue(&store, &s, &a, &format!("{r}")).await;
        }
        let w = patient_worker(&store).await;
        let claims = store.claim_runs(&w, RUNS as u32).await.unwrap();
        assert_eq!(claims.len(), RUNS);
        let start = store.event_cursor().await.unwrap();
        let writing = Arc::new(AtomicBool::new(true));
        let reader = tokio::spawn(follow(store.clone(), start, RUNS * COMMITS as usize * 3, writing.clone()));
        let writers: Vec<_> = claims
            .into_iter()
            .map(|claim| {
                let store = store.clone();
                tokio::spawn(async move {
                    for step in 1..=COMMITS {
                        let commit = Commit { events: write_of(step), ..Default::default() };
                        store.commit(&claim.lease, commit).await.unwrap();
                    }
                    claim.lease.run_id
                })
            })
            .collect();
        let mut run_ids = Vec::new();
        for writer in writers {
            run_ids.push(writer.await.unwrap());
        }
        writing.store(false, Ordering::SeqCst);
        let seen = reader.await.unwrap();
        // Every event the writers committed, and nothing else, each once.
        let mut expected = HashSet::new();
        for run_id in &run_ids {
            for event in store.read_events(run_id, 0, 1000).await.unwrap() {
                if WRITTEN.contains(&event.kind.as_str()) {
                    expected.insert((run_id.clone(), event.seq));
                }
            }
        }
        assert_eq!(expected.len(), RUNS * COMMITS as usize * 3);
        assert_eq!(seen.len(), expected.len(), "events skipped or repeated");
        assert_eq!(seen.into_iter().collect::<HashSet<_>>(), expected);
    }
}

/// Follows the cursor from `start` until it has read `total` of the
/// writers' events, or the writers have been done for a while (an event then
/// missing was skipped); returns each of their events' (run, seq) in the
/// order read. (On PostgreSQL the cursor may also bring events committed
/// just before `start`, which it held back behind a transaction still open
/// elsewhere on the server: those are the claims' `run_started`, left out.)
async fn follow(
    store: Arc<dyn Store>,
    start: EventCursor,
    total: usize,
    writing: Arc<AtomicBool>,
) -> Vec<(String, u64)> {
    let (mut cursor, mut seen) = (start, Vec::new());
    let mut done_since = None;
    while seen.len() < total {
        if !writing.load(Ordering::SeqCst) {
            let since = *done_since.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() > Duration::from_secs(10) {
                break;
            }
        }
        // Not a multiple of a write's three events: reads stop inside writes.
        let events = store.events_since(cursor, 7).await.unwrap();
        assert!(events.len() <= 7, "at most the limit");
        for (position, event) in &events {
            assert!(*position > cursor, "positions only grow");
            cursor = *position;
            if WRITTEN.contains(&event.kind.as_str()) {
                seen.push((event.run_id.clone(), event.seq));
            }
        }
        tokio::task::yield_now().await;
    }
    // Anything more than the total would be an event read twice.
    let more = store.events_since(cursor, 50).await.unwrap().into_iter().map(|(_, e)| e);
    seen.extend(more.filter(|e| WRITTEN.contains(&e.kind.as_str())).map(|e| (e.run_id, e.seq)));
    seen
}

/// The kinds of the writers' events.
const WRITTEN: [&str; 2] = ["step_started", "text_delta"];

/// One writer's commit: three events.
fn write_of(step: u32) -> Vec<RunEvent> {
    let delta = |text: &str| RunEvent::TextDelta { step, text: text.into() };
    vec![RunEvent::StepStarted { step }, delta("a"), delta("b")]
}

store_tests! {
    /// A run's log read from a number inside one write's events, with a limit
    /// that ends inside it, and the global cursor stepped one event at a time
    /// through it: every event once, in order, from where the reader stopped.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_that_stop_inside_a_write_resume_there(store, dir) {
        let a = agent(json!({}), 100);
        let s = session(&store, dir.path()).await;
        enqueue(&store, &s, &a, "one").await;
        let w = patient_worker(&store).await;
        let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
        let run = claim.lease.run_id.clone();
        let start = store.event_cursor().await.unwrap();
        let mut events = write_of(1);
        events.extend(write_of(2));
        store.commit(&claim.lease, Commit { events, ..Default::default() }).await.unwrap();
        // run_queued is 1, run_started 2, the write 3 to 8.
        let seqs = |events: Vec<wingman::domain::model::Event>| events.into_iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(store.read_events(&run, 3, 2).await.unwrap()), vec![4, 5]);
        assert_eq!(seqs(store.read_events(&run, 7, 10).await.unwrap()), vec![8]);
        assert_eq!(seqs(store.read_events(&run, 8, 10).await.unwrap()), Vec::<u64>::new());
        assert_eq!(seqs(store.read_events(&run, u64::MAX, 10).await.unwrap()), Vec::<u64>::new());
        // On PostgreSQL a transaction open elsewhere on the server (another
        // test's) may hold the events back for a moment: read until the last.
        let (mut cursor, mut stepped) = (start, Vec::new());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while stepped.last() != Some(&8) && std::time::Instant::now() < deadline {
            let next = store.events_since(cursor, 1).await.unwrap();
            assert!(next.len() <= 1, "at most the limit");
            let Some((position, event)) = next.into_iter().next() else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            assert!(position > cursor, "positions only grow");
            cursor = position;
            if event.run_id == run {
                stepped.push(event.seq);
            }
        }
        // The claim's run_started may come too, held back until now.
        stepped.retain(|seq| *seq >= 3);
        assert_eq!(stepped, (3..=8).collect::<Vec<_>>());
        assert_eq!(store.events_since(cursor, 10).await.unwrap(), vec![], "nothing after the last event");
    }

    /// Commits that arrive together (and that a backend may write together):
    /// each is judged alone. The cancelled runs' commits are refused and change
    /// nothing; the others end their runs, append their answers to their
    /// sessions' histories and pass each session's turn to its next run.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn commits_arriving_together_are_each_fenced_ended_and_pass_their_turn(store, dir) {
        let a = agent(json!({}), 100);
        let mut sessions = Vec::new();
        for r in 0..RUNS {
            let s = session(&store, dir.path()).await;
            enqueue(&store, &s, &a, &format!("first {r}")).await;
            enqueue(&store, &s, &a, &format!("second {r}")).await;
            sessions.push(s);
        }
        let w = patient_worker(&store).await;
        let claims = store.claim_runs(&w, 100).await.unwrap();
        assert_eq!(claims.len(), RUNS, "one run per session");
        let cancelled: HashSet<String> = claims.iter().step_by(5).map(|c| c.lease.run_id.clone()).collect();
        for run_id in &cancelled {
            store.cancel_run(run_id, &admin()).await.unwrap();
        }
        let writers: Vec<_> = claims
            .into_iter()
            .map(|claim| {
                let store = store.clone();
                tokio::spawn(async move {
                    let answer = format!("answer of {}", claim.lease.run_id);
                    let outcome = store.commit(&claim.lease, text_commit(1, &answer, true)).await;
                    (claim.lease.run_id, outcome)
                })
            })
            .collect();
        for writer in writers {
            let (run_id, outcome) = writer.await.unwrap();
            let run = store.get_run(&run_id).await.unwrap().expect("the run");
            let events = store.read_events(&run_id, 0, 1000).await.unwrap();
            assert_eq!(seqs(&events), (1..=events.len() as u64).collect::<Vec<_>>(), "dense: {events:?}");
            if cancelled.contains(&run_id) {
                assert!(matches!(outcome, Err(wingman::store::StoreError::Fenced)), "{outcome:?}");
                assert_eq!(run.status.as_str(), "cancelled");
                assert!(events.iter().all(|e| e.kind != "step_completed"), "a refused commit writes nothing");
            } else {
                outcome.unwrap();
                assert_eq!(run.status.as_str(), "succeeded");
                assert_eq!(run.response.as_deref(), Some(format!("answer of {run_id}").as_str()));
            }
        }
        // The user's message and its answer, in the sessions whose run succeeded.
        let mut answered = 0;
        for s in &sessions {
            let history = store.session_history(s).await.unwrap();
            if history.len() == 2 {
                assert!(history[1].text().starts_with("answer of "), "{history:?}");
                answered += 1;
            }
        }
        assert_eq!(answered, RUNS - cancelled.len());
        // Every session's turn passed on: its second run is claimable now.
        let next = store.claim_runs(&w, 100).await.unwrap();
        assert_eq!(next.len(), RUNS, "each session's second run");
    }
}
