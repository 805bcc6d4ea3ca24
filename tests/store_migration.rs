//! Upgrading a database keeps its event logs (and on PostgreSQL its
//! sessions' histories): events written a row each read back the same, in
//! the same commit order, once a write's events are one row (SQLite's
//! migration 28; PostgreSQL's migrations 8 and 9, which also put a run's
//! messages in one row); and runs keep their owners once the owner is a
//! column written at insert rather than one computed from the input
//! (migration 30 on both backends). The PostgreSQL test is skipped, with a message,
//! unless `WINGMAN_TEST_POSTGRES_URL` is set (failed instead under
//! `WINGMAN_TEST_POSTGRES=required`).

#[path = "pg_support/mod.rs"]
mod pg_support;

use serde_json::json;
use sqlx::Connection;
use wingman::domain::model::{Carried, Message, Role, RunInput};
use wingman::store::{EventCursor, RunFilter, Store, StoreOptions};

/// The last migration before a write's events became one row.
const BEFORE_EVENT_ROWS: i64 = 7;

/// The same on SQLite.
const SQLITE_BEFORE_EVENT_ROWS: i64 = 27;

/// The last migration before a run's owner was a column written at insert
/// (on both backends).
const BEFORE_OWNER_COLUMN: i64 = 29;

/// Two runs as they were written before: their owner in their input only.
fn owned_runs_sql() -> String {
    let input = |owner: &str| {
        let carried = Carried { owner: owner.into(), ..Default::default() };
        serde_json::to_string(&RunInput::new("hi", carried)).unwrap()
    };
    format!(
        "INSERT INTO runs (id, kind, status, agent_id, agent, input, work_dir, max_attempts, created_at, updated_at)
         VALUES ('beta-run', 'message', 'queued', 'a', '{{}}', '{}', '/tmp', 1, 1000, 1000),
                ('admin-run', 'message', 'succeeded', 'a', '{{}}', '{}', '/tmp', 1, 1000, 1000)",
        input("beta"),
        input("admin")
    )
}

/// Each owner's list of runs after the upgrade: its run and no other.
async fn assert_owned_after_the_upgrade(store: &dyn Store) {
    for (owner, run) in [("beta", "beta-run"), ("admin", "admin-run")] {
        let filter = RunFilter { owner: Some(owner.into()), limit: 10, ..Default::default() };
        let listed: Vec<String> = store.list_runs(&filter).await.unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(listed, [run], "{owner}'s runs");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_runs_keep_their_owners_once_the_owner_is_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    wingman::store::sqlite::migrate_up_to(&conn, BEFORE_OWNER_COLUMN).unwrap();
    conn.execute_batch(&owned_runs_sql()).unwrap();
    drop(conn);
    let store = wingman::store::open(path.to_str().unwrap(), &StoreOptions::default()).await.unwrap();
    assert_owned_after_the_upgrade(&*store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_keep_their_owners_once_the_owner_is_a_column() {
    if pg_support::postgres_url_or_skip().is_none() {
        return;
    }
    let db = pg_support::PgDatabase::create();
    let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
    wingman::store::postgres::migrate_up_to(&pool, BEFORE_OWNER_COLUMN).await.unwrap();
    sqlx::raw_sql(&owned_runs_sql()).execute(&pool).await.unwrap();
    pool.close().await;
    let store = wingman::store::open(&db.url, &StoreOptions::default()).await.unwrap();
    assert_owned_after_the_upgrade(&*store).await;
}

/// Two runs' logs as a row each, in the order they were written.
const OLD: [(&str, i64, &str); 4] =
    [("a", 1, "run_queued"), ("b", 1, "run_queued"), ("a", 2, "run_started"), ("a", 3, "step_started")];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_events_written_a_row_each_read_back_the_same_after_the_upgrade() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    wingman::store::sqlite::migrate_up_to(&conn, SQLITE_BEFORE_EVENT_ROWS).unwrap();
    for (run, seq, kind) in OLD {
        let data = json!({ "n": seq, "text": "é \"quoted\"", "z": 1, "a": [1, {"b": null}] }).to_string();
        conn.execute(
            "INSERT INTO run_events (run_id, seq, type, data, at) VALUES (?1, ?2, ?3, ?4, 1000)",
            rusqlite::params![run, seq, kind, data],
        )
        .unwrap();
    }
    drop(conn);

    let store = wingman::store::open(path.to_str().unwrap(), &StoreOptions::default()).await.unwrap();
    let a = store.read_events("a", 0, 100).await.unwrap();
    let summary: Vec<(u64, &str)> = a.iter().map(|e| (e.seq, e.kind.as_str())).collect();
    assert_eq!(summary, vec![(1, "run_queued"), (2, "run_started"), (3, "step_started")]);
    let data = json!({ "n": 3, "text": "é \"quoted\"", "z": 1, "a": [1, {"b": null}] });
    assert_eq!(a[2].data, data.as_object().unwrap().clone());
    assert_eq!(a[0].at.timestamp_millis(), 1000);
    assert_eq!(store.read_events("a", 1, 1).await.unwrap()[0].seq, 2);
    let all = store.events_since(EventCursor::default(), 100).await.unwrap();
    let order: Vec<(&str, u64)> = all.iter().map(|(_, e)| (e.run_id.as_str(), e.seq)).collect();
    assert_eq!(order, vec![("a", 1), ("b", 1), ("a", 2), ("a", 3)], "the commit order is kept");
    let from_second = store.events_since(all[1].0, 100).await.unwrap();
    assert_eq!(from_second, all[2..].to_vec(), "a cursor resumes after its event");
    let newest = store.event_cursor().await.unwrap();
    assert_eq!(newest, all.last().unwrap().0, "the newest place is the last event's");
    assert_eq!(store.events_since(newest, 100).await.unwrap(), vec![]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_and_messages_written_a_row_each_read_back_the_same_after_the_upgrade() {
    if pg_support::postgres_url_or_skip().is_none() {
        return;
    }
    let db = pg_support::PgDatabase::create();
    let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
    wingman::store::postgres::migrate_up_to(&pool, BEFORE_EVENT_ROWS).await.unwrap();
    pool.close().await;
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    // Two runs' logs, their events interleaved over three transactions.
    let old = OLD;
    for batch in [&old[..2], &old[2..3], &old[3..]] {
        let mut tx = conn.begin().await.unwrap();
        for (run, seq, kind) in batch {
            sqlx::query("INSERT INTO run_events (run_id, seq, type, data, at) VALUES ($1, $2, $3, $4, 1000)")
                .bind(run)
                .bind(seq)
                .bind(kind)
                .bind(json!({ "n": seq, "text": "é \"quoted\"" }).to_string())
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
    }
    let history = [Message::user_text("hi"), Message { role: Role::Assistant, ..Message::user_text("hello") }];
    for (idx, message) in history.iter().enumerate() {
        sqlx::query(
            "INSERT INTO session_messages (session_id, idx, run_id, message, created_at) VALUES ('s', $1, 'a', $2, 1000)",
        )
        .bind(idx as i64 + 1)
        .bind(serde_json::to_string(message).unwrap())
        .execute(&mut conn)
        .await
        .unwrap();
    }
    conn.close().await.unwrap();

    let store = wingman::store::open(&db.url, &StoreOptions::default()).await.unwrap();
    assert_eq!(store.session_history("s").await.unwrap(), history, "the history is kept, in order");
    let a = store.read_events("a", 0, 100).await.unwrap();
    let summary: Vec<(u64, &str)> = a.iter().map(|e| (e.seq, e.kind.as_str())).collect();
    assert_eq!(summary, vec![(1, "run_queued"), (2, "run_started"), (3, "step_started")]);
    assert_eq!(a[2].data, json!({ "n": 3, "text": "é \"quoted\"" }).as_object().unwrap().clone());
    assert_eq!(a[0].at.timestamp_millis(), 1000);
    assert_eq!(store.read_events("a", 1, 1).await.unwrap()[0].seq, 2);
    // A transaction open elsewhere on the server (another test's) may hold
    // the log of all runs back for a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut all = store.events_since(EventCursor::default(), 100).await.unwrap();
    while all.len() < old.len() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        all = store.events_since(EventCursor::default(), 100).await.unwrap();
    }
    let order: Vec<(&str, u64)> = all.iter().map(|(_, e)| (e.run_id.as_str(), e.seq)).collect();
    assert_eq!(order, vec![("a", 1), ("b", 1), ("a", 2), ("a", 3)], "the commit order is kept");
    let newest = store.event_cursor().await.unwrap();
    assert_eq!(newest, all.last().unwrap().0, "the newest place is the last event's");
    assert_eq!(store.events_since(newest, 100).await.unwrap(), vec![]);
}
