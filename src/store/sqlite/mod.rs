//! The SQLite backend: one file in WAL mode, written by one group-commit
//! writer per process and read through a small pool.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Row};

use crate::model::{Agent, Event, Message, RunStatus, Session};
use crate::provider::auth::{ApiKey, CredentialInfo};
use crate::store::{
    Claim, Commit, Enqueued, HandBack, Heartbeat, IdempotencyKey, Lease, NewRun, Run, RunContext, RunFilter, Store,
    StoreError, StoreOptions, StoreResult,
};

mod credentials;
mod migrate;
mod progress;
mod queue;
mod rows;
mod watch;
mod writer;

use rows::ms;
use writer::Writer;

/// A Wingman store in one SQLite file.
pub struct SqliteStore {
    reads: SqlitePool,
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
        let mut write_conn = connect.connect().await?;
        migrate::run(&mut write_conn).await?;
        // Short: the writer retries the write lock itself, more fairly than
        // SQLite's busy handler (see writer::begin_immediate).
        sqlx::raw_sql(&format!("PRAGMA busy_timeout = {}", writer::WRITE_BUSY_TIMEOUT_MS))
            .execute(&mut write_conn)
            .await?;
        // Per-connection scratch space for the fenced commit script.
        sqlx::raw_sql("CREATE TEMP TABLE IF NOT EXISTS fence (ok INTEGER NOT NULL, first_seq INTEGER)")
            .execute(&mut write_conn)
            .await?;
        // SQLite connections do not go stale: skip the ping on every acquire
        // (one more round trip to the connection's thread).
        let reads = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(4)
            .min_connections(1)
            .connect_with(connect.clone())
            .await?;
        // The write connection made the file WAL, so its `-wal` file exists now.
        let mut wal = connect.get_filename().as_os_str().to_owned();
        wal.push("-wal");
        let changes = watch::spawn(std::path::Path::new(&wal));
        Ok(SqliteStore { reads, writer: Writer::spawn(write_conn), changes })
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
        let agent = agent.clone();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    sqlx::query("INSERT INTO agents (id, body, created_at, updated_at) VALUES (?, ?, ?, ?)")
                        .bind(&agent.id)
                        .bind(serde_json::to_string(&agent)?)
                        .bind(ms(agent.created_at))
                        .bind(ms(agent.updated_at))
                        .execute(&mut *c)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    async fn get_agent(&self, id: &str) -> StoreResult<Option<Agent>> {
        let row = sqlx::query("SELECT body FROM agents WHERE id = ?").bind(id).fetch_optional(&self.reads).await?;
        row.as_ref().map(rows::agent).transpose()
    }

    async fn list_agents(&self) -> StoreResult<Vec<Agent>> {
        let found = sqlx::query("SELECT body FROM agents ORDER BY id").fetch_all(&self.reads).await?;
        found.iter().map(rows::agent).collect()
    }

    async fn update_agent(&self, agent: &Agent) -> StoreResult<()> {
        let agent = agent.clone();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    let done = sqlx::query("UPDATE agents SET body = ?, updated_at = ? WHERE id = ?")
                        .bind(serde_json::to_string(&agent)?)
                        .bind(ms(agent.updated_at))
                        .bind(&agent.id)
                        .execute(&mut *c)
                        .await?;
                    found(done.rows_affected(), "agent")
                })
            })
            .await
    }

    async fn delete_agent(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    let done = sqlx::query("DELETE FROM agents WHERE id = ?").bind(&id).execute(&mut *c).await?;
                    found(done.rows_affected(), "agent")
                })
            })
            .await
    }

    async fn insert_session(&self, session: &Session) -> StoreResult<()> {
        let s = session.clone();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO sessions (id, agent_id, title, work_dir, metadata, created_at, updated_at)
                         VALUES (?, ?, ?, ?, ?, ?, ?)",
                    )
                    .bind(&s.id)
                    .bind(&s.agent_id)
                    .bind(&s.title)
                    .bind(&s.work_dir)
                    .bind(serde_json::to_string(&s.metadata)?)
                    .bind(ms(s.created_at))
                    .bind(ms(s.updated_at))
                    .execute(&mut *c)
                    .await?;
                    Ok(())
                })
            })
            .await
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
        let s = session.clone();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    let done = sqlx::query(
                        "UPDATE sessions SET agent_id = ?, title = ?, work_dir = ?, metadata = ?, updated_at = ?
                         WHERE id = ?",
                    )
                    .bind(&s.agent_id)
                    .bind(&s.title)
                    .bind(&s.work_dir)
                    .bind(serde_json::to_string(&s.metadata)?)
                    .bind(ms(s.updated_at))
                    .bind(&s.id)
                    .execute(&mut *c)
                    .await?;
                    found(done.rows_affected(), "session")
                })
            })
            .await
    }

    async fn delete_session(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    // Refuse before writing anything (the writer's contract).
                    let present: bool = sqlx::query_scalar("SELECT EXISTS(SELECT 1 FROM sessions WHERE id = ?)")
                        .bind(&id)
                        .fetch_one(&mut *c)
                        .await?;
                    if !present {
                        return Err(StoreError::NotFound("session"));
                    }
                    let active: Vec<String> = sqlx::query_scalar(
                        "SELECT id FROM runs WHERE session_id = ? AND status IN ('queued','running','waiting')",
                    )
                    .bind(&id)
                    .fetch_all(&mut *c)
                    .await?;
                    for run_id in active {
                        progress::finish(
                            c,
                            &run_id,
                            RunStatus::Cancelled,
                            Some("session deleted".into()),
                            None,
                            Utc::now(),
                        )
                        .await?;
                    }
                    sqlx::query("DELETE FROM session_messages WHERE session_id = ?").bind(&id).execute(&mut *c).await?;
                    let done = sqlx::query("DELETE FROM sessions WHERE id = ?").bind(&id).execute(&mut *c).await?;
                    found(done.rows_affected(), "session")
                })
            })
            .await
    }

    async fn session_history(&self, id: &str) -> StoreResult<Vec<Message>> {
        let found = sqlx::query("SELECT message FROM session_messages WHERE session_id = ? ORDER BY idx")
            .bind(id)
            .fetch_all(&self.reads)
            .await?;
        found.iter().map(|r| Ok(serde_json::from_str(&r.try_get::<String, _>(0)?)?)).collect()
    }

    async fn enqueue_run(&self, run: NewRun, key: Option<IdempotencyKey>) -> StoreResult<Enqueued> {
        self.writer.write(move |c| Box::pin(queue::enqueue(c, run, key))).await
    }

    async fn get_run(&self, id: &str) -> StoreResult<Option<Run>> {
        queue::get_run(&self.reads, id).await
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

    async fn cancel_run(&self, id: &str) -> StoreResult<Run> {
        let id = id.to_string();
        self.writer.write(move |c| Box::pin(async move { progress::cancel(c, &id, Utc::now()).await })).await
    }

    async fn read_events(&self, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
        let found = sqlx::query(
            "SELECT run_id, seq, type, data, at FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        )
        .bind(run_id)
        .bind(after as i64)
        .bind(limit as i64)
        .fetch_all(&self.reads)
        .await?;
        found.iter().map(rows::event).collect()
    }

    async fn event_cursor(&self) -> StoreResult<u64> {
        let max: Option<i64> = sqlx::query_scalar("SELECT MAX(gid) FROM run_events").fetch_one(&self.reads).await?;
        Ok(max.unwrap_or(0) as u64)
    }

    async fn events_since(&self, cursor: u64, limit: u32) -> StoreResult<Vec<(u64, Event)>> {
        let found =
            sqlx::query("SELECT gid, run_id, seq, type, data, at FROM run_events WHERE gid > ? ORDER BY gid LIMIT ?")
                .bind(cursor as i64)
                .bind(limit as i64)
                .fetch_all(&self.reads)
                .await?;
        found.iter().map(|r| Ok((r.try_get::<i64, _>("gid")? as u64, rows::event(r)?))).collect()
    }

    async fn register_worker(&self, id: &str, name: &str, lease: Duration) -> StoreResult<()> {
        let (id, name) = (id.to_string(), name.to_string());
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    let now = Utc::now();
                    let lease_until = now + lease;
                    // Forget workers that have been gone for an hour and hold nothing.
                    sqlx::query(
                        "DELETE FROM workers WHERE lease_expires_at < ? AND NOT EXISTS
                           (SELECT 1 FROM runs WHERE runs.worker_id = workers.id AND runs.status = 'running')",
                    )
                    .bind(ms(now) - 3_600_000)
                    .execute(&mut *c)
                    .await?;
                    sqlx::query("INSERT INTO workers (id, name, started_at, lease_expires_at) VALUES (?, ?, ?, ?)")
                        .bind(&id)
                        .bind(&name)
                        .bind(ms(now))
                        .bind(ms(lease_until))
                        .execute(&mut *c)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    async fn heartbeat(&self, id: &str, lease: Duration) -> StoreResult<Heartbeat> {
        let id = id.to_string();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    let now = Utc::now();
                    let lease_until = now + lease;
                    let renewed =
                        sqlx::query("UPDATE workers SET lease_expires_at = ? WHERE id = ? AND lease_expires_at > ?")
                            .bind(ms(lease_until))
                            .bind(&id)
                            .bind(ms(now))
                            .execute(&mut *c)
                            .await?;
                    if renewed.rows_affected() == 0 {
                        return Ok(Heartbeat::Lost);
                    }
                    let held_runs =
                        sqlx::query_scalar("SELECT id FROM runs WHERE worker_id = ? AND status = 'running'")
                            .bind(&id)
                            .fetch_all(&mut *c)
                            .await?;
                    Ok(Heartbeat::Renewed { held_runs })
                })
            })
            .await
    }

    async fn deregister_worker(&self, id: &str) -> StoreResult<()> {
        let id = id.to_string();
        self.writer
            .write(move |c| {
                Box::pin(async move {
                    sqlx::query("UPDATE workers SET lease_expires_at = 0 WHERE id = ?")
                        .bind(&id)
                        .execute(&mut *c)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.changes.clone()
    }

    async fn has_claimable(&self) -> StoreResult<bool> {
        let now = Utc::now();
        let yes: bool = sqlx::query_scalar(
            "SELECT EXISTS(SELECT 1 FROM runs INDEXED BY runs_ready WHERE status = 'queued' AND blocked = 0)
                 OR EXISTS(SELECT 1 FROM runs INDEXED BY runs_running WHERE status = 'running' AND NOT EXISTS
                     (SELECT 1 FROM workers w WHERE w.id = runs.worker_id AND w.lease_expires_at > ?))",
        )
        .bind(ms(now))
        .fetch_one(&self.reads)
        .await?;
        Ok(yes)
    }

    async fn claim_runs(&self, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>> {
        let worker_id = worker_id.to_string();
        self.writer.write(move |c| Box::pin(async move { queue::claim(c, &worker_id, limit, Utc::now()).await })).await
    }

    async fn load_run(&self, run_id: &str) -> StoreResult<RunContext> {
        load::run_context(&self.reads, run_id).await
    }

    async fn commit(&self, lease: &Lease, commit: Commit) -> StoreResult<()> {
        let lease = lease.clone();
        self.writer.write(move |c| Box::pin(async move { progress::commit(c, &lease, commit, Utc::now()).await })).await
    }

    async fn release_run(&self, lease: &Lease, how: HandBack) -> StoreResult<()> {
        let lease = lease.clone();
        self.writer.write(move |c| Box::pin(async move { queue::release(c, &lease, how, Utc::now()).await })).await
    }

    async fn put_credential(&self, name: &str, key: &ApiKey) -> StoreResult<CredentialInfo> {
        let (name, key) = (name.to_string(), key.clone());
        self.writer.write(move |c| Box::pin(async move { credentials::put(c, &name, &key, Utc::now()).await })).await
    }

    async fn get_credential(&self, name: &str) -> StoreResult<Option<ApiKey>> {
        credentials::get(&self.reads, name).await
    }

    async fn list_credentials(&self) -> StoreResult<Vec<CredentialInfo>> {
        credentials::list(&self.reads).await
    }

    async fn delete_credential(&self, name: &str) -> StoreResult<()> {
        let name = name.to_string();
        self.writer.write(move |c| Box::pin(async move { credentials::delete(c, &name).await })).await
    }
}

mod load;

fn found(rows: u64, what: &'static str) -> StoreResult<()> {
    if rows == 0 {
        Err(StoreError::NotFound(what))
    } else {
        Ok(())
    }
}
