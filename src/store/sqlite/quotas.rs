//! Owners' quotas and usage by day in SQLite (`owner_quotas`,
//! `owner_usage`): a commit's inferences and a run's end are counted in the
//! writer's transaction that writes them, in the one part SQLite's one
//! writer keeps.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::rows::select_all;
use crate::domain::quota::{self, DayUsage, Quota};
use crate::store::rows::ms;
use crate::store::StoreResult;

/// Sets an owner's quota, or removes it when it limits nothing.
pub fn put(conn: &Connection, owner: &str, quota: &Quota, now: DateTime<Utc>) -> StoreResult<()> {
    if quota.is_empty() {
        conn.prepare_cached("DELETE FROM owner_quotas WHERE owner = ?1")?.execute([owner])?;
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT INTO owner_quotas (owner, body, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (owner) DO UPDATE SET body = ?2, updated_at = ?3",
    )?
    .execute(params![owner, serde_json::to_string(quota)?, ms(now)])?;
    Ok(())
}

/// Every quota, by owner.
pub fn list(conn: &Connection) -> StoreResult<Vec<(String, Quota)>> {
    select_all(conn, "SELECT owner, body FROM owner_quotas ORDER BY owner", [], |row| {
        let body: String = row.get(1)?;
        Ok((row.get(0)?, serde_json::from_str(&body)?))
    })
}

/// Adds what a run's commit used (`charged`) and, when it ends the run, one
/// run, to its owner's day `now` falls on.
pub fn charge(conn: &Connection, run_id: &str, charged: &DayUsage, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO owner_usage AS u (owner, day, part, runs, input_tokens, output_tokens,
                                  cache_read_input_tokens, cache_creation_input_tokens, cost_usd)
         SELECT owner, ?2, '', ?3, ?4, ?5, ?6, ?7, ?8 FROM runs WHERE id = ?1
         ON CONFLICT (owner, day, part) DO UPDATE SET runs = u.runs + excluded.runs,
           input_tokens = u.input_tokens + excluded.input_tokens,
           output_tokens = u.output_tokens + excluded.output_tokens,
           cache_read_input_tokens = u.cache_read_input_tokens + excluded.cache_read_input_tokens,
           cache_creation_input_tokens = u.cache_creation_input_tokens + excluded.cache_creation_input_tokens,
           cost_usd = u.cost_usd + excluded.cost_usd",
    )?
    .execute(params![
        run_id,
        quota::day_of(now),
        charged.runs as i64,
        charged.input_tokens as i64,
        charged.output_tokens as i64,
        charged.cache_read_input_tokens as i64,
        charged.cache_creation_input_tokens as i64,
        charged.cost_usd
    ])?;
    Ok(())
}

/// What an owner's runs used each day from `from` to `to`, the oldest first.
pub fn usage(conn: &Connection, owner: &str, from: &str, to: &str) -> StoreResult<Vec<DayUsage>> {
    select_all(
        conn,
        "SELECT day, SUM(runs), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_input_tokens),
                SUM(cache_creation_input_tokens), SUM(cost_usd)
         FROM owner_usage WHERE owner = ?1 AND day >= ?2 AND day <= ?3 GROUP BY day ORDER BY day",
        params![owner, from, to],
        |row| {
            let count = |i: usize| row.get::<_, i64>(i).map(|n| n as u64);
            Ok(DayUsage {
                day: row.get(0)?,
                runs: count(1)?,
                input_tokens: count(2)?,
                output_tokens: count(3)?,
                cache_read_input_tokens: count(4)?,
                cache_creation_input_tokens: count(5)?,
                cost_usd: row.get(6)?,
            })
        },
    )
}

/// How many of an owner's runs are queued, through `runs_owner_queued`.
pub fn count_queued(conn: &Connection, owner: &str) -> StoreResult<u64> {
    let n: i64 = conn
        .prepare_cached(
            "SELECT COUNT(*) FROM runs INDEXED BY runs_owner_queued WHERE owner = ?1 AND status = 'queued'",
        )?
        .query_row([owner], |r| r.get(0))?;
    Ok(n as u64)
}
