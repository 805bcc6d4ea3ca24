//! The SQLite backend: one file in WAL mode, written by one group-commit
//! writer per process and read through a small pool.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use rusqlite::params;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Row};

use crate::credential::{ApiKey, CredentialInfo};
use crate::model::{Agent, Event, Fleet, FleetRun, Message, RunStatus, Session};
use crate::store::{
    Claim, Commit, Enqueued, EnqueuedFleetRun, EventCursor, FleetRunFilter, HandBack, Heartbeat, IdempotencyKey, Lease,
    NewFleetRun, NewRun, QueueStats, Run, RunContext, RunFilter, Store, StoreError, StoreOptions, StoreResult,
};

mod credentials;
mod fleet;
mod load;
mod migrate;
mod progress;
mod queue;
mod readers;
mod resources;
mod rows;
mod watch;
mod workers;
mod writer;

use readers::Readers;
use resources::{Body, BodyTable};
use rows::ms;
use writer::Writer;

/// A Wingman store in one SQLite file.
pub struct SqliteStore {
    /// sqlx connections for the API's resource reads.
    reads: SqlitePool,
    /// In-thread connections for the reads on the hot path.
    readers: Readers,
    writer: Writer,
    changes: Option<tokio::sync::watch::Receiver<u64>>,
}

impl SqliteStore {
    /// Opens (creating and migrating if needed) the database at `url`: a
    /// `sqlite:` URL or a plain file path.
    pub async fn open(url: &str, options: &StoreOptions) -> anyhow::Result<SqliteStore> {
        let connect = connect_options(url)?.synchronous(if options.synchronous_full {
            SqliteSynchronous::Full
        } else {
            SqliteSynchronous::Normal
        });
        if let Some(dir) = connect.get_filename().parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)?;
            }
        }
        let mut migrate_conn = connect.connect().await?;
        migrate::run(&mut migrate_conn).await?;
        sqlx::Connection::close(migrate_conn).await?;
        let writer = Writer::spawn(connect.get_filename(), options.synchronous_full)?;
        // SQLite connections do not go stale: skip the ping on every acquire
        // (one more round trip to the connection's thread).
        let reads = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(4)
            .min_connections(1)
            .connect_with(connect.clone())
            .await?;
        // The migration made the file WAL, so its `-wal` file exists now.
        let mut wal = connect.get_filename().as_os_str().to_owned();
        wal.push("-wal");
        let changes = watch::spawn(connect.get_filename(), std::path::Path::new(&wal));
        Ok(SqliteStore { reads, readers: Readers::new(connect.get_filename()), writer, changes })
    }
}

fn connect_options(url: &str) -> anyhow::Result<SqliteConnectOptions> {
    let base = if url.starts_with("sqlite:") {
        SqliteConnectOptions::from_str(url)?
    } else {
        SqliteConnectOptions::new().filename(url)
    };
    Ok(base
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .busy_timeout(Duration::from_secs(30))
        .pragma("cache_size", "-32000")
        .pragma("temp_store", "memory"))
}

#[async_trait]
impl Store for SqliteStore {
    async fn insert_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.created_at, agent.updated_at)?;
        self.writer.write(move |c| resources::insert_body(c, BodyTable::Agents, &body)).await
    }

    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>> {
        let row = sqlx::query("SELECT body FROM agents WHERE id = ?").bind(id).fetch_optional(&self.reads).await?;
        row.as_ref().map(rows::body).transpose()
    }

    async fn list_agents(&self) -> StoreResult<Vec<Agent>> {
        let found = sqlx::query("SELECT body FROM agents ORDER BY id").fetch_all(&self.reads).await?;
        found.iter().map(rows::body).collect()
    }

    async fn update_agent(&self, agent: &Agent) -> StoreResult<()> {
        let body = Body::of(&agent.id, agent, agent.created_at, agent.updated_at)?;
        self.writer.write(move |c| resources::update_body(c, BodyTable::Agents, &body)).await
    }

    async fn delete_agent(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_body(c, BodyTable::Agents, &id)).await
    }

    async fn insert_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.created_at, fleet.updated_at)?;
        self.writer.write(move |c| resources::insert_body(c, BodyTable::Fleets, &body)).await
    }

    async fn get_fleet(&self, id: &str) -> StoreResult<Option<Fleet>> {
        let row =
            sqlx::query(&format!("{} WHERE id = ?", rows::FLEET_SELECT)).bind(id).fetch_optional(&self.reads).await?;
        row.as_ref().map(rows::fleet).transpose()
    }

    async fn list_fleets(&self) -> StoreResult<Vec<Fleet>> {
        let found = sqlx::query(&format!("{} ORDER BY id", rows::FLEET_SELECT)).fetch_all(&self.reads).await?;
        found.iter().map(rows::fleet).collect()
    }

    async fn update_fleet(&self, fleet: &Fleet) -> StoreResult<()> {
        let body = Body::of(&fleet.id, fleet, fleet.created_at, fleet.updated_at)?;
        self.writer.write(move |c| resources::update_body(c, BodyTable::Fleets, &body)).await
    }

    async fn delete_fleet(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_body(c, BodyTable::Fleets, &id)).await
    }

    async fn insert_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.writer.write(move |c| resources::insert_session(c, &session)).await
    }

    async fn get_session(&self, id: &str) -> StoreResult<Option<Session>> {
        let row = sqlx::query("SELECT * FROM sessions WHERE id = ?").bind(id).fetch_optional(&self.reads).await?;
        row.as_ref().map(rows::session).transpose()
    }

    async fn list_sessions(&self) -> StoreResult<Vec<Session>> {
        let found = sqlx::query("SELECT * FROM sessions ORDER BY id").fetch_all(&self.reads).await?;
        found.iter().map(rows::session).collect()
    }

    async fn update_session(&self, session: &Session) -> StoreResult<()> {
        let session = session.clone();
        self.writer.write(move |c| resources::update_session(c, &session)).await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| resources::delete_session(c, &id)).await
    }

    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>> {
        let found = sqlx::query("SELECT message FROM session_messages WHERE session_id = ? ORDER BY idx")
            .bind(id)
            .fetch_all(&self.reads)
            .await?;
        found.iter().map(|r| Ok(serde_json::from_str(&r.try_get::<String, _>(0)?)?)).collect()
    }

    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued> {
        self.writer.write(move |c| queue::enqueue(c, run, key)).await
    }

    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>> {
        let row = sqlx::query(&format!("SELECT {} FROM runs WHERE id = ?", rows::RUN_COLUMNS))
            .bind(id)
            .fetch_optional(&self.reads)
            .await?;
        row.as_ref().map(rows::run).transpose()
    }

    async fn list_runs(&self, filter: &RunFilter) -> StoreResult<Vec<Run>> {
        let found = sqlx::query(&format!(
            "SELECT {} FROM runs
             WHERE (?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR status = ?2)
               AND (?3 IS NULL OR queue_seq > (SELECT queue_seq FROM runs WHERE id = ?3))
             ORDER BY queue_seq LIMIT ?4",
            rows::RUN_COLUMNS
        ))
        .bind(&filter.session_id)
        .bind(filter.status.map(|s| s.as_str()))
        .bind(&filter.after)
        .bind(filter.limit as i64)
        .fetch_all(&self.reads)
        .await?;
        found.iter().map(rows::run).collect()
    }

    async fn count_runs(&self, status: RunStatus) -> StoreResult<u64> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs WHERE status = ?")
            .bind(status.as_str())
            .fetch_one(&self.reads)
            .await?;
        Ok(n as u64)
    }

    async fn queue_stats(&self) -> StoreResult<QueueStats> {
        self.readers
            .read(|c| {
                let stats = c
                    .prepare_cached(
                        "SELECT (SELECT COUNT(*) FROM runs INDEXED BY runs_status WHERE status = 'queued'),
                                (SELECT COUNT(*) FROM runs INDEXED BY runs_running WHERE status = 'running'),
                                (SELECT COUNT(*) FROM workers WHERE lease_expires_at > ?1)",
                    )?
                    .query_row([ms(Utc::now())], |r| {
                        Ok(QueueStats {
                            queued: r.get::<_, i64>(0)? as u64,
                            running: r.get::<_, i64>(1)? as u64,
                            workers: r.get::<_, i64>(2)? as u64,
                        })
                    })?;
                Ok(stats)
            })
            .await
    }

    async fn cancel_run(&self, id: &str) -> StoreResult<Run> {
        let id = id.to_string();
        self.writer.write(move |c| progress::cancel(c, &id, Utc::now())).await
    }

    async fn enqueue_fleet_run(&self, run: NewFleetRun, key: Option<IdempotencyKey>) -> StoreResult<EnqueuedFleetRun> {
        self.writer.write(move |c| fleet::enqueue(c, run, key)).await
    }

    async fn get_fleet_run(&self, id: &str) -> StoreResult<Option<FleetRun>> {
        let row =
            sqlx::query(&format!("{} WHERE f.id = ?", fleet::SELECT)).bind(id).fetch_optional(&self.reads).await?;
        row.as_ref().map(rows::fleet_run).transpose()
    }

    async fn list_fleet_runs(&self, filter: &FleetRunFilter) -> StoreResult<Vec<FleetRun>> {
        let found = sqlx::query(&format!(
            "{} WHERE (?1 IS NULL OR f.fleet_id = ?1) AND (?2 IS NULL OR f.id > ?2) ORDER BY f.id LIMIT ?3",
            fleet::SELECT
        ))
        .bind(&filter.fleet_id)
        .bind(&filter.after)
        .bind(filter.limit as i64)
        .fetch_all(&self.reads)
        .await?;
        found.iter().map(rows::fleet_run).collect()
    }

    async fn fleet_run_tasks(&self, id: &str, after_index: Option<u32>, limit: u32) -> StoreResult<Vec<Run>> {
        let found = sqlx::query(&format!(
            "SELECT {} FROM runs INDEXED BY runs_fleet WHERE fleet_run_id = ?1 AND task_index > ?2
             ORDER BY task_index LIMIT ?3",
            rows::RUN_COLUMNS
        ))
        .bind(id)
        .bind(after_index.map(i64::from).unwrap_or(-1))
        .bind(limit as i64)
        .fetch_all(&self.reads)
        .await?;
        found.iter().map(rows::run).collect()
    }

    async fn cancel_fleet_run(&self, id: &str) -> StoreResult<FleetRun> {
        let id = id.to_string();
        self.writer.write(move |c| fleet::cancel(c, &id, Utc::now())).await
    }

    async fn read_events(&self, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
        let run_id = run_id.to_string();
        self.readers
            .read(move |c| {
                let mut select = c.prepare_cached(
                    "SELECT run_id, seq, type, data, at FROM run_events WHERE run_id = ?1 AND seq > ?2
                     ORDER BY seq LIMIT ?3",
                )?;
                // Sequence numbers are stored as i64: anything above is after every event, not a wrap to below zero.
                let after = i64::try_from(after).unwrap_or(i64::MAX);
                let events = rows::all(select.query(params![run_id, after, limit as i64])?, |row| rows::event(row))?;
                Ok(events)
            })
            .await
    }

    async fn event_cursor(&self) -> StoreResult<EventCursor> {
        self.readers
            .read(|c| {
                let max: Option<i64> =
                    c.prepare_cached("SELECT MAX(gid) FROM run_events")?.query_row([], |r| r.get(0))?;
                Ok(EventCursor { tx: 0, gid: max.unwrap_or(0) as u64 })
            })
            .await
    }

    /// SQLite commits one transaction at a time, so event numbers are in
    /// commit order by themselves.
    async fn events_since(&self, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>> {
        self.readers
            .read(move |c| {
                let mut select = c.prepare_cached(
                    "SELECT gid, run_id, seq, type, data, at FROM run_events WHERE gid > ?1 ORDER BY gid LIMIT ?2",
                )?;
                let events = rows::all(select.query(params![cursor.gid as i64, limit as i64])?, |row| {
                    Ok((EventCursor { tx: 0, gid: row.get::<_, i64>("gid")? as u64 }, rows::event(row)?))
                })?;
                Ok(events)
            })
            .await
    }

    async fn register_worker(&self, id: &str, name: &str, lease: Duration) -> StoreResult<()> {
        let (id, name) = (id.to_string(), name.to_string());
        self.writer.write(move |c| workers::register(c, &id, &name, lease, Utc::now())).await
    }

    async fn heartbeat(&self, id: &str, lease: Duration) -> StoreResult<Heartbeat> {
        let id = id.to_string();
        self.writer.write(move |c| workers::heartbeat(c, &id, lease, Utc::now())).await
    }

    async fn deregister_worker(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer.write(move |c| workers::deregister(c, &id)).await
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.changes.clone()
    }

    async fn has_claimable(&self) -> StoreResult<bool> {
        self.readers
            .read(|c| {
                let now = ms(Utc::now());
                let yes = c
                    .prepare_cached(
                        "SELECT EXISTS(SELECT 1 FROM runs INDEXED BY runs_ready WHERE status = 'queued' AND blocked = 0)
                             OR EXISTS(SELECT 1 FROM runs INDEXED BY runs_running WHERE status = 'running' AND NOT EXISTS
                                 (SELECT 1 FROM workers w WHERE w.id = runs.worker_id AND w.lease_expires_at > ?1))",
                    )?
                    .query_row([now], |r| r.get(0))?;
                Ok(yes)
            })
            .await
    }

    async fn claim_runs(&self, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>> {
        let worker_id = worker_id.to_string();
        self.writer.write(move |c| queue::claim(c, &worker_id, limit, Utc::now())).await
    }

    async fn load_run(&self, run_id: &str) -> StoreResult<RunContext> {
        let mut contexts = self.load_runs(vec![run_id.to_string()]).await?;
        contexts.pop().ok_or(StoreError::NotFound("run"))
    }

    async fn load_runs(&self, run_ids: Vec<String>) -> StoreResult<Vec<RunContext>> {
        self.readers.read(move |c| load::run_contexts(c, &run_ids)).await
    }

    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<()> {
        let lease = lease.clone();
        self.writer.write(move |c| progress::commit(c, &lease, commit, Utc::now())).await
    }

    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()> {
        let lease = lease.clone();
        self.writer.write(move |c| queue::release(c, &lease, how, Utc::now())).await
    }

    async fn put_credentials(&self, keys: Vec<(String, ApiKey)>) -> StoreResult<Vec<CredentialInfo>> {
        self.writer
            .write(move |c| {
                let now = Utc::now();
                keys.iter().map(|(name, key)| credentials::put(c, name, key, now)).collect()
            })
            .await
    }

    async fn get_credential(&self, name: &str) -> StoreResult<Option<ApiKey>> {
        credentials::get(&self.reads, name).await
    }

    async fn list_credentials(&self) -> StoreResult<Vec<CredentialInfo>> {
        credentials::list(&self.reads).await
    }

    async fn delete_credential(&self, name: &str) -> StoreResult<()> {
        let name = name.to_string();
        self.writer.write(move |c| credentials::delete(c, &name)).await
    }
}
