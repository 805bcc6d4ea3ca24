//! Fair queuing's starts on SQLite ([`crate::domain::lifecycle::fair`]),
//! in the writer's transaction.

use rusqlite::{params, Connection, OptionalExtension};

use crate::domain::lifecycle::{fair, NewRun};
use crate::store::StoreResult;

/// The first of `n` consecutive starts for a batch of runs carrying
/// `first`'s concurrency key (the runs of one submission carry the same).
pub fn first_start(conn: &Connection, first: &NewRun, n: usize) -> StoreResult<i64> {
    let clock: i64 = conn
        .prepare_cached(
            "SELECT COALESCE(
                (SELECT vt FROM runs INDEXED BY runs_ready WHERE status = 'queued' AND blocked = 0 AND held = 0
                 ORDER BY priority DESC, vt, queue_seq LIMIT 1),
                (SELECT MAX(vt) FROM runs), 0)",
        )?
        .query_row([], |r| r.get(0))?;
    let Some(concurrency) = &first.input.carried.concurrency else { return Ok(clock) };
    let last: Option<i64> = conn
        .prepare_cached("SELECT last_vt FROM fair_keys WHERE key = ?1")?
        .query_row([&concurrency.key], |r| r.get(0))
        .optional()?;
    let start = fair::first_start(clock, last);
    conn.prepare_cached(
        "INSERT INTO fair_keys (key, last_vt) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET last_vt = ?2",
    )?
    .execute(params![concurrency.key, fair::last_of(start, n)])?;
    Ok(start)
}
