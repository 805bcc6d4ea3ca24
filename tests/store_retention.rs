//! The storage contract for retention, on every backend: pruning removes the
//! logs of what has ended and nothing else, in batches no larger than asked,
//! and keeps runs, their results and sessions' histories; deleting a run
//! works only once it has ended, and takes its whole log with it. Pruning
//! records removes ended webhook deliveries with their attempts, old
//! schedule ticks and idempotency keys, and keeps what is still needed: a
//! pending delivery, a schedule's newest submission, the key of a run that
//! has not ended. An agent's definition is stored once for all the runs
//! that ran it and deleted with the last of them. A run that succeeds
//! deletes its checkpoints as it ends; one that fails or is cancelled keeps
//! them, read back as written, for a retry.

mod store_support;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::json;
use store_support::*;
use wingman::domain::event::RunEvent;
use wingman::domain::model::{new_id, Agent, Fleet, FleetStatus, RunInput, RunKind, RunStatus};
use wingman::domain::schedule::Tick;
use wingman::domain::webhook::{Attempt, DeliveryStatus, Next};
use wingman::store::{Commit, Finish, IdempotencyKey, NewFleetRun, NewRun, NewTask, Pruned, Store, StoreError};

/// Everything that ended before now.
const ENDED: Duration = Duration::ZERO;

async fn event_count(store: &Arc<dyn Store>, log: &str) -> usize {
    store.read_events(log, 0, 10_000).await.unwrap().len()
}

/// Claims the oldest claimable run, which must be `run`.
async fn claim(store: &Arc<dyn Store>, run: &str) -> wingman::store::Lease {
    let w = worker(store).await;
    let claim = store.claim_runs(&w, 1).await.unwrap().remove(0);
    assert_eq!(claim.lease.run_id, run);
    claim.lease
}

/// A run of its own session that answered and succeeded; returns (session, run).
async fn ended_run(store: &Arc<dyn Store>, dir: &std::path::Path, answer: &str) -> (String, String) {
    let s = session(store, dir).await;
    let run = enqueue(store, &s, &agent(json!({}), 5), "question").await;
    let lease = claim(store, &run).await;
    store.commit(&lease, text_commit(1, answer, true)).await.unwrap();
    (s, run)
}

/// A fleet run of `tasks` tasks of `agent`, enqueued; returns its ID and its
/// tasks' runs.
async fn fleet_of(store: &Arc<dyn Store>, dir: &std::path::Path, agent: &Agent, tasks: u32) -> (String, Vec<String>) {
    let now = Utc::now();
    let fleet = Fleet {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        shared: false,
        name: "f".into(),
        agent_id: agent.id.clone(),
        worker_count: 1,
        work_dir: None,
        status: FleetStatus::Stopped,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    store.insert_fleet(&fleet).await.unwrap();
    let tasks: Vec<NewTask> = (0..tasks)
        .map(|i| NewTask {
            run_id: new_id(),
            session: new_session(dir, Some(&agent.id)),
            input: RunInput { message: format!("task {i}"), ..RunInput::new("", Default::default()) },
        })
        .collect();
    let task_ids = tasks.iter().map(|t| t.run_id.clone()).collect();
    let new = NewFleetRun {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        fleet_id: fleet.id,
        agent: agent.clone(),
        worker_count: 1,
        tasks,
        max_attempts: 2,
        webhook: None,
    };
    (store.enqueue_fleet_run(new, None).await.unwrap().fleet_run.id, task_ids)
}

/// Prunes batch after batch until nothing is left, checking each batch's size.
async fn prune_all(store: &Arc<dyn Store>, limit: u32) -> (Pruned, u32) {
    let (mut total, mut batches) = (Pruned::default(), 0);
    loop {
        let batch = store.prune_logs(ENDED, limit).await.unwrap();
        assert!(batch.rows <= u64::from(limit), "a batch removed {batch:?}, over its limit of {limit}");
        assert!(batch.rows <= batch.events + batch.checkpoints, "{batch:?}");
        if batch.is_empty() {
            return (total, batches);
        }
        total.add(batch);
        batches += 1;
    }
}

/// A message run announcing its end to a webhook, with an idempotency key;
/// ended (with its delivery written) when `end` is set.
async fn webhook_run(store: &Arc<dyn Store>, dir: &std::path::Path, key: &str, end: bool) -> String {
    let s = session(store, dir).await;
    let new = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(s.clone()),
        agent: agent(json!({}), 5),
        input: RunInput { webhook: Some("https://hooks.example/x".into()), ..RunInput::new("hi", Default::default()) },
        work_dir: dir.to_string_lossy().into_owned(),
        max_attempts: 2,
        strategy: Default::default(),
        from_past: None,
    };
    let key = IdempotencyKey { scope: format!("message:{s}"), key: key.into(), request_hash: "h".into() };
    let run = store.enqueue_run(new, Some(key)).await.unwrap().run.id;
    if end {
        let lease = claim(store, &run).await;
        store.commit(&lease, text_commit(1, "hello", true)).await.unwrap();
    }
    run
}

fn attempt(n: u32) -> Attempt {
    Attempt { attempt: n, at: Utc::now(), duration_ms: 3, status_code: Some(500), error: None }
}

store_tests! {
    #[tokio::test]
    async fn a_run_that_succeeds_keeps_no_checkpoints_and_one_that_fails_keeps_them_for_a_retry(store, dir) {
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;
        let succeeded = enqueue(&store, &s, &a, "question").await;
        let lease = claim(&store, &succeeded).await;
        store.commit(&lease, text_commit(1, "first", false)).await.unwrap();
        assert_eq!(store.run_checkpoints(&succeeded).await.unwrap().len(), 1, "a running run keeps its steps");
        store.commit(&lease, text_commit(2, "second", true)).await.unwrap();
        assert!(store.run_checkpoints(&succeeded).await.unwrap().is_empty(), "the end deleted them");
        // What they held is in the run's row and the history, which the end
        // wrote from them before they went.
        let run = store.get_run(&succeeded).await.unwrap().unwrap();
        assert_eq!((run.status, run.response.as_deref(), run.steps), (RunStatus::Succeeded, Some("second"), 2));
        let history: Vec<String> = store.session_history(&s).await.unwrap().iter().map(|m| m.text()).collect();
        assert_eq!(history, ["question", "first", "second"]);
        // A run that fails or is cancelled may be retried from its steps.
        let failed = enqueue(&store, &session(&store, dir.path()).await, &a, "question").await;
        let lease = claim(&store, &failed).await;
        store.commit(&lease, text_commit(1, "first", false)).await.unwrap();
        let failure = Finish { status: RunStatus::Failed, error: Some("the provider said no".into()), summary: None };
        store.commit(&lease, Commit { finish: Some(failure), ..text_commit(2, "second", false) }).await.unwrap();
        assert_eq!(store.get_run(&failed).await.unwrap().unwrap().status, RunStatus::Failed);
        let kept = store.run_checkpoints(&failed).await.unwrap();
        assert_eq!(kept, [text_commit(1, "first", false).checkpoints, text_commit(2, "second", false).checkpoints].concat());
        let cancelled = enqueue(&store, &session(&store, dir.path()).await, &a, "question").await;
        let lease = claim(&store, &cancelled).await;
        store.commit(&lease, text_commit(1, "first", false)).await.unwrap();
        store.cancel_run(&cancelled, &admin()).await.unwrap();
        assert_eq!(store.run_checkpoints(&cancelled).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn old_records_are_pruned_and_what_is_still_needed_stays(store, dir) {
        // Two ended runs, each with a delivery: one delivered after a retry,
        // one still pending; and a queued run whose key must stay.
        let delivered = webhook_run(&store, dir.path(), "a", true).await;
        let pending = webhook_run(&store, dir.path(), "b", true).await;
        let queued = webhook_run(&store, dir.path(), "c", false).await;
        let claimed = store.claim_deliveries(Duration::from_secs(60), 10).await.unwrap();
        let ended = claimed.iter().find(|d| d.subject_id == delivered).expect("the first run's delivery");
        let retry = Next::RetryAt(Utc::now() - chrono::Duration::seconds(1));
        assert!(store.record_delivery_attempt(&ended.id, &attempt(1), &retry).await.unwrap());
        let again = store.claim_deliveries(Duration::from_secs(60), 10).await.unwrap();
        assert!(again.iter().any(|d| d.id == ended.id));
        assert!(store.record_delivery_attempt(&ended.id, &attempt(2), &Next::Delivered).await.unwrap());
        // A schedule with ticks: two submitted (r1 older, r2 newest), one skipped.
        let schedule = schedule(chrono::Duration::seconds(-10));
        store.insert_schedule(&schedule).await.unwrap();
        let base = schedule.next_tick_at.unwrap();
        let ticks = [(0, Some("r1")), (1, Some("r2")), (2, None)];
        for (i, run) in ticks {
            let at = base + chrono::Duration::seconds(i);
            let tick = Tick {
                tick_at: at,
                kind: run.map(|_| "run".into()),
                id: run.map(String::from),
                skipped: run.is_none().then(|| "overlap".into()),
            };
            assert!(store.record_tick(&schedule.id, at, &tick, Some(at + chrono::Duration::seconds(1))).await.unwrap());
        }
        // Nothing is an hour old.
        assert!(store.prune_records(Duration::from_secs(3600), 100).await.unwrap().is_empty());
        tokio::time::sleep(Duration::from_millis(5)).await;

        let mut total = Pruned::default();
        loop {
            let batch = store.prune_records(ENDED, 1).await.unwrap();
            assert!(batch.rows <= 1, "a batch removed {batch:?}, over its limit of 1");
            if batch.is_empty() {
                break;
            }
            total.add(batch);
        }
        assert_eq!((total.deliveries, total.attempts), (1, 2), "the ended delivery and its attempts: {total:?}");
        assert_eq!(total.ticks, 2, "the older submission and the skip: {total:?}");
        assert_eq!(total.keys, 2, "the keys of the two ended runs: {total:?}");
        assert!(store.list_deliveries(&delivered).await.unwrap().is_empty());
        let kept = store.list_deliveries(&pending).await.unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].status, DeliveryStatus::Pending, "a pending delivery stays");
        let left = store.schedule_ticks(&schedule.id, 10).await.unwrap();
        assert_eq!(left.iter().map(|t| t.id.as_deref()).collect::<Vec<_>>(), [Some("r2")], "the newest submission stays");
        assert_eq!(store.last_submission(&schedule.id).await.unwrap().and_then(|t| t.id).as_deref(), Some("r2"));
        assert!(store.get_run(&delivered).await.unwrap().is_some(), "runs stay");
        // The queued run's key still replays it; the ended runs' keys are forgotten.
        let s = store.get_run(&queued).await.unwrap().unwrap().session_id.unwrap();
        let replay = IdempotencyKey { scope: format!("message:{s}"), key: "c".into(), request_hash: "h".into() };
        let new = NewRun {
            id: new_id(),
            kind: RunKind::Message,
            session_id: Some(s),
            agent: agent(json!({}), 5),
            input: RunInput::new("hi", Default::default()),
            work_dir: dir.path().to_string_lossy().into_owned(),
            max_attempts: 2,
            strategy: Default::default(),
            from_past: None,
        };
        let enqueued = store.enqueue_run(new, Some(replay)).await.unwrap();
        assert!(!enqueued.created && enqueued.run.id == queued, "the queued run's key stays");
    }

    #[tokio::test]
    async fn pruning_removes_only_the_logs_of_runs_that_ended_and_keeps_their_results_and_histories(store, dir) {
        let (ended_session, ended) = ended_run(&store, dir.path(), "the answer").await;
        // A running run with a checkpoint, a waiting one, and a queued one.
        let running = enqueue(&store, &session(&store, dir.path()).await, &agent(json!({}), 5), "r").await;
        let lease = claim(&store, &running).await;
        store.commit(&lease, text_commit(1, "half", false)).await.unwrap();
        let waiting = enqueue(&store, &session(&store, dir.path()).await, &agent(json!({}), 5), "w").await;
        let lease = claim(&store, &waiting).await;
        store.commit(&lease, Commit { wait: true, ..text_commit(1, "ask", false) }).await.unwrap();
        // A cancelled run keeps its checkpoint until its log is pruned.
        let cancelled = enqueue(&store, &session(&store, dir.path()).await, &agent(json!({}), 5), "c").await;
        let lease = claim(&store, &cancelled).await;
        store.commit(&lease, text_commit(1, "half", false)).await.unwrap();
        store.cancel_run(&cancelled, &admin()).await.unwrap();
        let queued = enqueue(&store, &session(&store, dir.path()).await, &agent(json!({}), 5), "q").await;
        let history = store.session_history(&ended_session).await.unwrap();
        assert_eq!(history.len(), 2, "the question and the answer");
        let unfinished = [&running, &waiting, &queued];
        let mut before = Vec::new();
        for run in unfinished {
            before.push(event_count(&store, run).await);
        }
        let ended_events = event_count(&store, &ended).await as u64 + event_count(&store, &cancelled).await as u64;
        // Nothing ended an hour ago.
        assert!(store.prune_logs(Duration::from_secs(3600), 100).await.unwrap().is_empty());
        // The store's clock must move past the end's millisecond.
        tokio::time::sleep(Duration::from_millis(5)).await;

        let pruned = store.prune_logs(ENDED, 100).await.unwrap();
        assert_eq!(pruned, Pruned { events: ended_events, checkpoints: 1, logs: 2, ..pruned });
        assert_eq!(event_count(&store, &ended).await, 0);
        assert!(store.run_checkpoints(&cancelled).await.unwrap().is_empty());
        let run = store.get_run(&ended).await.unwrap().expect("the run stays");
        assert_eq!((run.status, run.response.as_deref()), (RunStatus::Succeeded, Some("the answer")));
        assert_eq!(store.session_history(&ended_session).await.unwrap(), history, "the history stays");
        for (run, count) in unfinished.iter().zip(before) {
            assert_eq!(event_count(&store, run).await, count, "{run} has not ended: its log is untouched");
        }
        assert_eq!(store.load_run(&running).await.unwrap().checkpoints.len(), 1);
        assert_eq!(store.load_run(&waiting).await.unwrap().checkpoints.len(), 1);
        assert!(store.prune_logs(ENDED, 100).await.unwrap().is_empty(), "a pruned log is not pruned again");
    }

    #[tokio::test]
    async fn pruning_goes_in_batches_no_larger_than_asked_until_every_old_log_is_gone(store, dir) {
        let mut runs = Vec::new();
        let mut events = 0;
        for i in 0..3 {
            let (_, run) = ended_run(&store, dir.path(), &format!("answer {i}")).await;
            events += event_count(&store, &run).await as u64;
            runs.push(run);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (total, batches) = prune_all(&store, 2).await;
        // Runs that succeeded left no checkpoints to prune.
        assert_eq!(total, Pruned { events, checkpoints: 0, logs: 3, ..total });
        let rows = total.rows;
        assert!(rows > 3 && batches as u64 >= rows / 2, "{batches} batches of at most 2 rows for {rows} rows");
        for run in &runs {
            assert_eq!(event_count(&store, run).await, 0);
        }
    }

    #[tokio::test]
    async fn a_finished_fleet_runs_log_is_pruned_with_its_tasks_logs_and_its_counts_stay(store, dir) {
        let (id, task_ids) = fleet_of(&store, dir.path(), &agent(json!({}), 5), 2).await;
        assert!(store.prune_logs(ENDED, 100).await.unwrap().is_empty(), "nothing has ended yet");
        let cancelled = store.cancel_fleet_run(&id, &admin()).await.unwrap();
        assert!(event_count(&store, &id).await > 0);
        tokio::time::sleep(Duration::from_millis(5)).await;

        let (total, _) = prune_all(&store, 3).await;
        assert_eq!(total.logs, 3, "two tasks and the fleet run: {total:?}");
        for log in task_ids.iter().chain([&id]) {
            assert_eq!(event_count(&store, log).await, 0, "{log}");
        }
        let kept = store.get_fleet_run(&id).await.unwrap().expect("the fleet run stays");
        assert_eq!((kept.status, kept.progress), (cancelled.status, cancelled.progress));
        assert_eq!(store.fleet_run_tasks(&id, None, 10).await.unwrap().len(), 2, "its tasks stay");
    }

    #[tokio::test]
    async fn only_a_run_that_has_ended_is_deleted_and_its_whole_log_goes_with_it(store, dir) {
        assert!(matches!(store.delete_run("no-such-run").await, Err(StoreError::NotFound(_))));
        let s = session(&store, dir.path()).await;
        let key = IdempotencyKey { scope: format!("message:{s}"), key: "k".into(), request_hash: "h".into() };
        let new = || NewRun {
            id: new_id(),
            kind: RunKind::Message,
            session_id: Some(s.clone()),
            agent: agent(json!({}), 5),
            input: RunInput::new("question", Default::default()),
            work_dir: std::env::temp_dir().to_string_lossy().into_owned(),
            max_attempts: 2,
            strategy: Default::default(),
            from_past: None,
        };
        let run = store.enqueue_run(new(), Some(key.clone())).await.unwrap().run.id;
        assert!(matches!(store.delete_run(&run).await, Err(StoreError::Conflict(_))), "a queued run");
        let lease = claim(&store, &run).await;
        // A log longer than one deletion batch.
        let deltas = (0..1500).map(|i| RunEvent::TextDelta { step: 1, text: format!("{i} ") }).collect();
        store.commit(&lease, Commit { events: deltas, ..Default::default() }).await.unwrap();
        let refused = store.delete_run(&run).await;
        assert!(matches!(&refused, Err(StoreError::Conflict(m)) if m.contains("running")), "{refused:?}");
        assert!(event_count(&store, &run).await > 1500, "a refused deletion deletes nothing");
        store.commit(&lease, text_commit(1, "the answer", true)).await.unwrap();
        let history = store.session_history(&s).await.unwrap();

        store.delete_run(&run).await.unwrap();
        assert!(store.get_run(&run).await.unwrap().is_none());
        assert_eq!(event_count(&store, &run).await, 0);
        assert_eq!(store.session_history(&s).await.unwrap(), history, "the session keeps what the run said");
        assert!(matches!(store.delete_run(&run).await, Err(StoreError::NotFound(_))));
        let again = store.enqueue_run(new(), Some(key)).await.unwrap();
        assert!(again.created, "the deleted run's idempotency key is forgotten");
    }

    #[tokio::test]
    async fn an_agent_is_stored_once_for_its_runs_and_goes_with_the_last_of_them(store, dir) {
        let snapshots = "SELECT COUNT(*) FROM agent_snapshots";
        // As stored: its times to the millisecond.
        let a: Agent = serde_json::from_value(serde_json::to_value(agent(json!({}), 5)).unwrap()).unwrap();
        let changed = Agent { instructions: Some("be brief".into()), ..a.clone() };
        let mut runs = Vec::new();
        for (agent, message) in [(&a, "one"), (&a, "two"), (&changed, "three")] {
            let run = enqueue(&store, &session(&store, dir.path()).await, agent, message).await;
            let lease = claim(&store, &run).await;
            store.commit(&lease, text_commit(1, "done", true)).await.unwrap();
            runs.push(run);
        }
        let (_, fleet_tasks) = fleet_of(&store, dir.path(), &a, 3).await;
        assert_eq!(count(&dir, snapshots).await, 2, "one per definition, however many runs and tasks");
        let all: Vec<String> = runs.iter().chain(&fleet_tasks).cloned().collect();
        let loaded = store.load_runs(all, Default::default()).await.unwrap();
        let agents: Vec<&str> = loaded.iter().map(|c| c.agent.instructions.as_deref().unwrap_or("-")).collect();
        assert_eq!(agents, ["-", "-", "be brief", "-", "-", "-"], "each run with its own");
        assert!(loaded.iter().all(|c| c.agent == if c.run.id == runs[2] { changed.clone() } else { a.clone() }));

        store.delete_run(&runs[2]).await.unwrap();
        assert_eq!(count(&dir, snapshots).await, 1, "the last run of the changed agent took it along");
        store.delete_run(&runs[0]).await.unwrap();
        store.delete_run(&runs[1]).await.unwrap();
        assert_eq!(count(&dir, snapshots).await, 1, "the fleet's tasks still name the first");
        let again = enqueue(&store, &session(&store, dir.path()).await, &changed, "four").await;
        let loaded = store.load_runs(vec![again], Default::default()).await.unwrap();
        assert_eq!(loaded[0].agent, changed, "a definition deleted with its runs is written again");
        assert_eq!(count(&dir, snapshots).await, 2);
    }

    #[tokio::test]
    async fn a_run_written_with_its_own_copy_of_the_agent_runs_with_it_and_is_deleted(store, dir) {
        // As a version before the snapshots wrote it: the JSON in the row.
        let a: Agent = serde_json::from_value(serde_json::to_value(agent(json!({}), 5)).unwrap()).unwrap();
        let old = enqueue(&store, &session(&store, dir.path()).await, &a, "old").await;
        execute(
            &dir,
            "UPDATE runs SET agent = (SELECT body FROM agent_snapshots WHERE digest = runs.agent_digest),
                             agent_digest = NULL;
             DELETE FROM agent_snapshots;",
        )
        .await;
        let loaded = store.load_runs(vec![old.clone()], Default::default()).await.unwrap();
        assert_eq!(loaded[0].agent, a);
        let lease = claim(&store, &old).await;
        store.commit(&lease, text_commit(1, "done", true)).await.unwrap();
        let new = enqueue(&store, &session(&store, dir.path()).await, &a, "new").await;
        store.delete_run(&old).await.unwrap();
        assert_eq!(count(&dir, "SELECT COUNT(*) FROM agent_snapshots").await, 1, "the new run's");
        assert_eq!(store.load_runs(vec![new], Default::default()).await.unwrap()[0].agent, a);
    }

    #[tokio::test]
    async fn a_tail_of_a_run_deleted_while_it_reads_ends_without_waiting_for_a_done(store, dir) {
        let s = session(&store, dir.path()).await;
        let run = enqueue(&store, &s, &agent(json!({}), 5), "question").await;
        let lease = claim(&store, &run).await;
        // More events than the tail holds in flight, so it is still reading the log.
        let deltas = (0..1500).map(|i| RunEvent::TextDelta { step: 1, text: format!("{i} ") }).collect();
        store.commit(&lease, Commit { events: deltas, ..Default::default() }).await.unwrap();
        store.commit(&lease, text_commit(1, "the answer", true)).await.unwrap();
        let shutdown = tokio_util::sync::CancellationToken::new();
        let mut services = wingman::services::Supervisor::new(shutdown.clone());
        let hub = wingman::services::hub::Hub::new(store.clone());
        hub.supervise(&mut services, Duration::from_millis(50));
        let mut tail = hub.tail(&run, 0, "run_id");
        let first = tail.next().await.unwrap().unwrap();
        assert_eq!(first.seq(), 1);
        store.delete_run(&run).await.unwrap();
        let mut seen = vec![first];
        let ended = tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(event) = tail.next().await {
                seen.push(event.unwrap());
            }
        })
        .await;
        assert!(ended.is_ok(), "the tail still waits for a done after {} events", seen.len());
        let dense = seen.iter().enumerate().all(|(i, e)| e.seq() == i as u64 + 1);
        assert!(dense, "the tail delivered the log in order, without gaps");
        // The hub's pump may have read the whole log before the deletion: on
        // PostgreSQL its cursor starts behind the commits while any
        // transaction on the server (another test's) is open, and what it
        // read reaches the tail from memory. Then the tail ends at `done`;
        // otherwise it ends short of it, the deletion cutting it off.
        let whole = seen.last().is_some_and(|e| e.is_terminal());
        assert!(whole || seen.len() < 1500, "{} events, none terminal", seen.len());
        shutdown.cancel();
    }
}
