//! The PostgreSQL backend: the same store on a server that workers on many
//! hosts share.
//!
//! Each call is one transaction on a connection of a pool. The rules that
//! SQLite gets from its single writer come from row locks here, always taken
//! in one order (a run's row, then its session's or fleet run's row), so
//! that concurrent transactions wait for one another instead of deadlocking:
//!
//! - a run is claimed by one worker: the claim selects with
//!   `FOR UPDATE SKIP LOCKED` and every fenced write re-checks the lease
//!   epoch on the locked row;
//! - a session's turn changes only under a lock on the session's row
//!   (enqueue, the end of its run), a fleet run's slots under its row's;
//! - the global event cursor follows commit order without a lock: each
//!   row of events records the ID of the transaction that wrote it, and the
//!   cursor reads in (transaction, row number) order only rows of
//!   transactions older than the oldest one still open, which can no longer
//!   commit anything ([`Pending::flush`], [`events`]).
//!
//! Times are the database's clock (`wingman_ms()`), one clock for every host.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow};
use sqlx::{ConnectOptions, Row};

use crate::domain::event::RunEvent;
use crate::store::event_rows;
use crate::store::rows::Columns;
use crate::store::{Enqueued, NewRun, StoreError, StoreResult};

pub use migrate::up_to as migrate_up_to;

mod audit;
mod branches;
mod budgets;
mod children;
mod commit;
mod committer;
mod deliveries;
mod events;
mod fleet;
mod formations;
mod keys;
mod listen;
mod listings;
mod load;
mod migrate;
mod people;
mod progress;
mod queue;
mod queue_view;
mod quotas;
mod resources;
mod retention;
mod schedules;
pub mod scratch;
mod sealed;
mod slots;
mod store;
mod workers;

/// The channel of change hints: sent after event-writing commits, or by a
/// lone submission's own commit (`wingman_enqueue_run`).
const CHANNEL: &str = "wingman";

/// Settings of every connection, for a client that vanishes mid-transaction
/// (its host cut off, its process frozen). No transaction here waits between
/// statements on anything but the network, so one idle for seconds is
/// abandoned: the server ends it, releasing its row locks (which would keep
/// its runs from being taken over) and letting the event horizon move on.
/// Keepalives let the server notice a dead client between transactions too.
///
/// JIT compilation is off: no statement here reads more than a few thousand
/// rows, but the loads of a claimed batch (histories, checkpoints) are
/// costed above `jit_above_cost` and were compiled, which cost more CPU than
/// it saved (about 5 % of the database's CPU in a burn-down,
/// docs/benchmarks.md, change 13).
const SESSION_SETTINGS: &[(&str, &str)] = &[
    ("jit", "off"),
    ("idle_in_transaction_session_timeout", "5s"),
    ("tcp_keepalives_idle", "10"),
    ("tcp_keepalives_interval", "5"),
    ("tcp_keepalives_count", "3"),
];

/// Connections per process. A worker holds one per claim or load in flight,
/// and its commits share one (they go in batches, one batch at a time); the
/// server one per API request in flight plus its event pump's
/// reads. Kept small: a process also holds the control pool, a listener and
/// a notifier connection, and PostgreSQL's default `max_connections` is 100.
pub const POOL_SIZE: u32 = 8;

/// Connections per process kept for heartbeats and worker registration, so
/// that a lease is renewed on time however many commits wait for the main pool.
pub const CONTROL_POOL_SIZE: u32 = 2;

/// A Wingman store in a PostgreSQL database.
pub struct PgStore {
    pool: PgPool,
    /// Heartbeats and registrations only (see [`CONTROL_POOL_SIZE`]).
    control: PgPool,
    changes: Option<tokio::sync::watch::Receiver<u64>>,
    /// Workers' commits, written in batches.
    commits: committer::Committer,
    /// Change hints, sent after commits or, by a write alone, inside them.
    hints: Arc<listen::Notifier>,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://…`), migrating it if needed.
    pub async fn open(url: &str) -> anyhow::Result<PgStore> {
        let options: PgConnectOptions = url.parse()?;
        let options = options
            .log_statements(tracing::log::LevelFilter::Trace)
            .application_name("wingman")
            .options(SESSION_SETTINGS.iter().copied());
        let pool = pool_options(POOL_SIZE).min_connections(1).connect_with(options.clone()).await?;
        migrate::run(&pool).await?;
        let control = pool_options(CONTROL_POOL_SIZE).min_connections(0).connect_lazy_with(options.clone());
        let changes = Some(listen::spawn(pool.clone()));
        let hints = Arc::new(listen::Notifier::spawn(options));
        let commits = committer::Committer::spawn(pool.clone(), hints.clone());
        Ok(PgStore { pool, control, changes, commits, hints })
    }

    /// Runs a write on the control pool: heartbeats and registrations.
    async fn control<T, F>(&self, write: F) -> StoreResult<T>
    where
        T: Send,
        F: for<'c> FnOnce(&'c mut PgConnection) -> BoxFuture<'c, StoreResult<T>> + Send,
    {
        let mut conn = self.control.acquire().await?;
        write(&mut conn).await
    }

    /// Writes a plain submission ([`queue::is_plain`]) in one round trip,
    /// outside any explicit transaction. Alone, its hint goes out with its
    /// commit; among concurrent writes, after it, since PostgreSQL serialises
    /// notifying commits ([`listen::Notifier`]). When the database could not
    /// answer, the run may still have been written (the answer was lost
    /// after its commit): it is looked for by its ID, and `None` says it is
    /// absent, to be written in a transaction of its own.
    async fn enqueue_plain(&self, run: &NewRun) -> StoreResult<Option<Enqueued>> {
        let writing = self.hints.writing();
        let written = match queue::insert_run(&self.pool, run, writing.alone).await {
            Ok(written) => {
                if !writing.alone {
                    self.hints.hint();
                }
                return Ok(Some(Enqueued { run: written, created: true }));
            }
            Err(e) if e.is_retryable() => {
                tracing::debug!(error = %e, "a submission's insert went unanswered; looking for its run");
                crate::store::Store::get_run(self, &run.id).await?
            }
            Err(e) => return Err(e),
        };
        if written.is_some() {
            self.hints.hint();
        }
        Ok(written.map(|run| Enqueued { run, created: true }))
    }

    /// Runs `write` in one transaction and commits it, with the events it
    /// left in `Pending` written last. An error rolls everything back.
    async fn write<T, F>(&self, write: F) -> StoreResult<T>
    where
        T: Send,
        F: for<'c> FnOnce(&'c mut PgConnection, &'c mut Pending) -> BoxFuture<'c, StoreResult<T>> + Send,
    {
        let mut tx = begin(&self.pool).await?;
        let mut pending = Pending::default();
        let written = write(&mut tx, &mut pending).await;
        let (value, wrote_events) = settle(tx, pending, written).await?;
        if wrote_events {
            self.hints.hint();
        }
        Ok(value)
    }
}

/// Ends a transaction after its writes: with the events they left in
/// `pending` written last and a commit, answering whether there were
/// events (then listeners want a hint); or, if anything failed, rolled back
/// before the error is answered. A dropped transaction is rolled back only
/// when its connection is next used, and until then it keeps its row locks:
/// a claim right after a refused write (a decision given twice, say) would
/// skip the run it locked.
pub async fn settle<T>(
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    pending: Pending,
    written: StoreResult<T>,
) -> StoreResult<(T, bool)> {
    let flushed = match written {
        Ok(value) => pending.flush(&mut tx).await.map(|wrote_events| (value, wrote_events)),
        Err(e) => Err(e),
    };
    match flushed {
        Ok(settled) => {
            tx.commit().await?;
            Ok(settled)
        }
        Err(e) => {
            if let Err(rollback) = tx.rollback().await {
                tracing::debug!(error = %rollback, "a failed transaction's rollback failed; its connection is dropped");
            }
            Err(e)
        }
    }
}

/// How long a pooled connection may sit unused before it is tested with an
/// empty round trip when taken.
const TEST_IF_IDLE_FOR: Duration = Duration::from_secs(1);

/// When this process last saw a connection die (milliseconds since
/// [`process_start`]; 0 for never).
static LAST_CONNECTION_LOST: AtomicU64 = AtomicU64::new(0);

fn process_start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// A connection of this process died (the server went away, shut down or
/// restarted): every pooled connection released before now is tested when
/// next taken, since it likely died with it.
pub fn note_connection_lost() {
    let now = process_start().elapsed().as_millis() as u64;
    LAST_CONNECTION_LOST.fetch_max(now.max(1), Ordering::Relaxed);
}

/// Whether a connection idle for `idle_for` was released before a
/// connection was last seen to die.
fn released_before_a_loss(idle_for: Duration) -> bool {
    let lost = LAST_CONNECTION_LOST.load(Ordering::Relaxed);
    lost != 0 && process_start().elapsed().saturating_sub(idle_for).as_millis() as u64 <= lost
}

/// A pool's settings. A connection is tested when taken only after it sat
/// unused for a while, or when it was released before a connection of the
/// process was seen to die: sqlx's default tests every one, an empty round
/// trip before each group of statements (six of them on the way from a
/// submission to its `run_started`). A connection in steady use that died
/// (the server restarted) fails its `BEGIN` instead, see [`begin`]; after
/// the first such failure the others are tested before a read meets them.
fn pool_options(size: u32) -> PgPoolOptions {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(Duration::from_secs(10))
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= TEST_IF_IDLE_FOR || released_before_a_loss(meta.idle_for) {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
}

/// Begins a read-only transaction at `REPEATABLE READ`, so that each of
/// its statements reads the same snapshot.
pub async fn begin_snapshot(pool: &PgPool) -> StoreResult<sqlx::Transaction<'static, sqlx::Postgres>> {
    let mut tx = begin(pool).await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    Ok(tx)
}

/// Begins a transaction. A pooled connection that died since its last use
/// fails its `BEGIN`, before anything is written: it is dropped and another
/// taken, up to once per connection the pool may hold.
pub async fn begin(pool: &PgPool) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    let mut tries = 0;
    loop {
        match pool.begin().await {
            Err(e) if tries < POOL_SIZE && is_connection_lost(&e) => {
                note_connection_lost();
                tries += 1;
                tracing::debug!(error = %e, "a pooled connection was dead; taking another");
            }
            outcome => return outcome,
        }
    }
}

/// Whether an error says the connection itself is gone: a broken socket, or
/// the server's word that it ended the session (it shut down or restarted),
/// which a connection idle at the time reads with its next statement.
pub fn is_connection_lost(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(db) => {
            db.code().is_some_and(|code| code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03"))
        }
        _ => false,
    }
}

/// The events a transaction writes, held back to its end: each call of
/// [`Pending::push`] becomes one row of `run_events` (migration 8).
#[derive(Default)]
pub struct Pending {
    run_ids: Vec<String>,
    first_seqs: Vec<i64>,
    last_seqs: Vec<i64>,
    events: Vec<String>,
    /// A change with no event of its own that workers must hear of.
    hint: bool,
}

impl Pending {
    /// Asks for a hint after the commit though no event is written (a run
    /// queued again).
    pub fn hint(&mut self) {
        self.hint = true;
    }

    /// Queues a log's events numbered from `first_seq`.
    pub fn push(&mut self, run_id: &str, first_seq: u64, events: &[RunEvent]) {
        if events.is_empty() {
            return;
        }
        self.run_ids.push(run_id.to_string());
        self.first_seqs.push(first_seq as i64);
        self.last_seqs.push(event_rows::last_seq(first_seq, events) as i64);
        self.events.push(event_rows::encode(events));
    }

    /// Writes every queued row in one statement; returns whether there
    /// were any (then listeners want a hint once the transaction commits).
    /// No lock is taken: each row records its transaction's ID, and
    /// readers follow transaction order (see `events_since`).
    async fn flush(self, c: &mut PgConnection) -> StoreResult<bool> {
        if self.run_ids.is_empty() {
            return Ok(self.hint);
        }
        sqlx::query(
            "INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
             SELECT r, f, l, e, wingman_ms() FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS u(r, f, l, e)",
        )
        .bind(&self.run_ids)
        .bind(&self.first_seqs)
        .bind(&self.last_seqs)
        .bind(&self.events)
        .execute(&mut *c)
        .await?;
        Ok(true)
    }
}

impl Columns for PgRow {
    fn text(&self, col: &str) -> StoreResult<String> {
        Ok(self.try_get(col)?)
    }
    fn opt_text(&self, col: &str) -> StoreResult<Option<String>> {
        Ok(self.try_get(col)?)
    }
    fn int(&self, col: &str) -> StoreResult<i64> {
        self.opt_int(col)?.ok_or_else(|| StoreError::internal(format!("column {col} is NULL")))
    }
    fn opt_int(&self, col: &str) -> StoreResult<Option<i64>> {
        // Columns and counts are BIGINT; an EXISTS is a BOOLEAN.
        match self.try_get::<Option<i64>, _>(col) {
            Ok(value) => Ok(value),
            Err(_) => Ok(self.try_get::<Option<bool>, _>(col)?.map(i64::from)),
        }
    }
}

/// Turns "no row changed" into a not-found refusal.
fn found(rows: u64, what: &'static str) -> StoreResult<()> {
    if rows == 0 {
        Err(StoreError::NotFound(what))
    } else {
        Ok(())
    }
}
