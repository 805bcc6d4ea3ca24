//! The storage contract for schedules, on every backend: a due schedule is
//! found by its next tick; a tick moves the schedule on only from the tick
//! it read, so two servers firing one tick move it once; a tick that
//! submitted replaces a record of it as skipped, never the other way; a
//! paused schedule is never due. And the scheduler's step over a real
//! store: one stored tick fired at two moments makes one run.

mod store_support;

use std::sync::Arc;

use chrono::{Duration, Utc};
use serde_json::json;
use store_support::{agent, new_session, schedule};
use wingman::domain::schedule::{Overlap, Target, Tick};
use wingman::services::scheduler;
use wingman::store::{RunFilter, StoreError};
use wingman::submit::{Door, SubmitConfig};

fn tick(at: chrono::DateTime<Utc>, run: Option<&str>) -> Tick {
    Tick {
        tick_at: at,
        kind: run.map(|_| "run".into()),
        id: run.map(String::from),
        skipped: run.is_none().then(|| "overlap".into()),
    }
}

store_tests! {
    #[tokio::test]
    async fn a_tick_moves_its_schedule_on_once_and_submissions_win_over_skips(store, _dir) {
        let due = schedule(Duration::seconds(-1));
        let later = schedule(Duration::hours(1));
        store.insert_schedule(&due).await.unwrap();
        store.insert_schedule(&later).await.unwrap();
        assert_eq!(store.get_schedule(&due.id).await.unwrap().as_ref(), Some(&due));
        assert_eq!(store.list_schedules().await.unwrap().len(), 2);
        let found = store.due_schedules(Utc::now(), 10).await.unwrap();
        assert_eq!(found.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [due.id.as_str()]);
        assert_eq!(store.next_schedule_due().await.unwrap(), due.next_tick_at);

        let at = due.next_tick_at.unwrap();
        let next = at + Duration::seconds(1);
        let following = Some(next);
        assert!(store.record_tick(&due.id, at, &tick(at, None), following).await.unwrap(), "the first moves it");
        // A second server fired the same tick and submitted: its record wins, the schedule moves no further.
        assert!(!store.record_tick(&due.id, at, &tick(at, Some("r1")), following).await.unwrap());
        assert!(!store.record_tick(&due.id, at, &tick(at, None), following).await.unwrap());
        let ticks = store.schedule_ticks(&due.id, 10).await.unwrap();
        assert_eq!(ticks, [tick(at, Some("r1"))], "one record per tick, the submission's");
        assert_eq!(store.last_submission(&due.id).await.unwrap(), Some(tick(at, Some("r1"))));
        let moved = store.get_schedule(&due.id).await.unwrap().unwrap();
        assert_eq!((moved.next_tick_at, moved.last_tick_at), (following, Some(at)));
        assert!(store.record_tick(&due.id, next, &tick(next, None), Some(next + Duration::seconds(1))).await.unwrap());
        assert_eq!(store.last_submission(&due.id).await.unwrap(), Some(tick(at, Some("r1"))), "a skip submits nothing");
        assert_eq!(store.schedule_ticks(&due.id, 1).await.unwrap(), [tick(next, None)], "newest first");
    }

    #[tokio::test]
    async fn a_submission_fired_from_one_stored_tick_is_recorded_once(store, _dir) {
        let due = schedule(Duration::seconds(-5));
        store.insert_schedule(&due).await.unwrap();
        let stored = due.next_tick_at.unwrap();
        let (early, late) = (stored + Duration::seconds(2), stored + Duration::seconds(4));
        let next = late + Duration::seconds(1);
        let following = Some(next);
        // A server fired the stored tick, fell behind by two, fired the latest
        // due and submitted r1; its record was lost (an outage) and a look
        // later fires a later tick from the same stored one, under one key.
        assert!(store.record_tick(&due.id, stored, &tick(late, Some("r1")), following).await.unwrap());
        assert!(!store.record_tick(&due.id, stored, &tick(early, Some("r1")), following).await.unwrap());
        assert_eq!(store.schedule_ticks(&due.id, 10).await.unwrap(), [tick(late, Some("r1"))], "recorded once");
        // A skip of another moment is a record of its own, and a submission
        // of another stored tick is recorded whatever its subject.
        assert!(!store.record_tick(&due.id, stored, &tick(early, None), following).await.unwrap());
        assert!(store.record_tick(&due.id, next, &tick(next, Some("r2")), None).await.unwrap());
        assert_eq!(
            store.schedule_ticks(&due.id, 10).await.unwrap(),
            [tick(next, Some("r2")), tick(late, Some("r1")), tick(early, None)]
        );
    }

    #[tokio::test]
    async fn one_stored_tick_fired_at_two_moments_makes_one_run(store, dir) {
        let answerer = agent(json!({}), 5);
        store.insert_agent(&answerer).await.unwrap();
        let session = new_session(dir.path(), Some(&answerer.id));
        store.insert_session(&session).await.unwrap();
        let mut read = schedule(Duration::seconds(-5));
        read.overlap = Overlap::Enqueue;
        read.target = Target::Message { session_id: session.id.clone(), agent_id: None, message: "tick".into() };
        store.insert_schedule(&read).await.unwrap();
        let config = SubmitConfig { data_dir: dir.path().to_path_buf(), ..Default::default() };
        let door = Door::new(store.clone(), config, Arc::new(|| {}));
        // Two servers read the schedule at once and fire it a moment apart:
        // five ticks behind, each fires the latest due at its moment, which
        // differ. (One server that submits, loses its record to an outage
        // and fires again later is the same case.)
        let now = store.now().await.unwrap();
        scheduler::fire(&store, &door, &read, now).await.unwrap();
        scheduler::fire(&store, &door, &read, now + Duration::milliseconds(2500)).await.unwrap();
        let filter = RunFilter { session_id: Some(session.id.clone()), limit: 10, ..Default::default() };
        let runs = store.list_runs(&filter).await.unwrap();
        assert_eq!(runs.len(), 1, "one run of one stored tick: {runs:?}");
        let ticks = store.schedule_ticks(&read.id, 10).await.unwrap();
        assert_eq!(ticks.len(), 1, "{ticks:?}");
        assert_eq!(ticks[0].id.as_deref(), Some(runs[0].id.as_str()), "the run has its tick");
        let moved = store.get_schedule(&read.id).await.unwrap().unwrap();
        assert!(moved.next_tick_at > Some(now), "moved on past the first look: {moved:?}");
    }

    #[tokio::test]
    async fn a_paused_schedule_is_never_due_and_a_deleted_one_leaves_nothing(store, _dir) {
        let mut paused = schedule(Duration::seconds(-5));
        store.insert_schedule(&paused).await.unwrap();
        let at = paused.next_tick_at.unwrap();
        (paused.paused, paused.next_tick_at, paused.version) = (true, None, 2);
        store.update_schedule(&paused).await.unwrap();
        assert!(store.due_schedules(Utc::now(), 10).await.unwrap().is_empty());
        assert_eq!(store.next_schedule_due().await.unwrap(), None);
        assert!(!store.record_tick(&paused.id, at, &tick(at, Some("r")), None).await.unwrap(), "paused: not moved");
        store.delete_schedule(&paused.id).await.unwrap();
        assert_eq!(store.get_schedule(&paused.id).await.unwrap(), None);
        assert!(store.schedule_ticks(&paused.id, 10).await.unwrap().is_empty());
        assert!(matches!(store.delete_schedule(&paused.id).await, Err(StoreError::NotFound(_))));
        assert!(matches!(store.update_schedule(&paused).await, Err(StoreError::NotFound(_))));
        store.record_tick(&paused.id, at, &tick(at, Some("r")), None).await.unwrap();
        assert!(store.schedule_ticks(&paused.id, 10).await.unwrap().is_empty(), "no record of a deleted schedule");
    }

    #[tokio::test]
    async fn an_update_writes_only_over_the_version_it_read(store, _dir) {
        let read = schedule(Duration::seconds(-1));
        store.insert_schedule(&read).await.unwrap();
        let mut replaced = read.clone();
        (replaced.every, replaced.version) = (Some("5s".into()), 2);
        store.update_schedule(&replaced).await.unwrap();
        let mut paused = read.clone();
        (paused.paused, paused.paused_reason, paused.next_tick_at, paused.version) =
            (true, Some("its rule".into()), None, 2);
        let stale = store.update_schedule(&paused).await;
        assert!(matches!(stale, Err(StoreError::Stale { current: 2, .. })), "changed since it was read: {stale:?}");
        assert_eq!(store.get_schedule(&read.id).await.unwrap(), Some(replaced.clone()), "the replace stands");
        paused.version = 3;
        store.update_schedule(&paused).await.unwrap();
        let stored = store.get_schedule(&read.id).await.unwrap().unwrap();
        assert_eq!(stored, paused, "written whole, its reason kept");
        assert!(store.due_schedules(Utc::now(), 10).await.unwrap().is_empty(), "paused: never due");
        store.delete_schedule(&read.id).await.unwrap();
        paused.version = 4;
        assert!(matches!(store.update_schedule(&paused).await, Err(StoreError::NotFound(_))), "gone: nothing written");
    }

    #[tokio::test]
    async fn the_store_s_clock_is_the_time(store, _dir) {
        let before = Utc::now() - Duration::seconds(5);
        let now = store.now().await.unwrap();
        assert!(now > before && now < Utc::now() + Duration::seconds(5), "{now} beside {before}");
    }
}
