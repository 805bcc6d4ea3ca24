//! The storage contract for schedules, on every backend: a due schedule is
//! found by its next tick; a tick moves the schedule on only from the tick
//! it read, so two servers firing one tick move it once; a tick that
//! submitted replaces a record of it as skipped, never the other way; a
//! paused schedule is never due.

mod store_support;

use chrono::{Duration, Utc};
use store_support::schedule;
use wingman::domain::schedule::Tick;
use wingman::store::StoreError;

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
