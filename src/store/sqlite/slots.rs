//! Concurrency keys and owners' running limits on SQLite: a claim's pick
//! of queued runs, holding those whose key (or owner) is at its limit, and
//! the return of held runs as slots free
//! ([`crate::domain::lifecycle::slots`]). Each runs in the writer's
//! transaction, which no other claim shares.

use std::collections::HashMap;

use rusqlite::{params, Connection};

use super::rows;
use crate::domain::lifecycle::slots::{self, Candidate, Slot, Taken};
use crate::store::StoreResult;

/// The owners whose quota limits their running runs, with the limit.
fn limited_owners(conn: &Connection) -> StoreResult<HashMap<String, u32>> {
    rows::all(
        conn.prepare_cached("SELECT owner, max_running_runs FROM owner_quotas WHERE max_running_runs IS NOT NULL")?
            .query([])?,
        |row| Ok((row.get(0)?, row.get::<_, i64>(1)?.max(1) as u32)),
    )
    .map(|owners| owners.into_iter().collect())
}

/// A claim's pick, up to `room` runs, through `runs_ready` (the runs
/// picked so far skipped by offset, since they stay in it until the claim's
/// update): the `queue_seq`s that start.
pub fn pick(conn: &Connection, room: u32) -> StoreResult<Vec<i64>> {
    let mut picked = Vec::new();
    let mut taken = Taken::default();
    // A run's owner is read (from its input) only while some owner has a limit.
    let limited = limited_owners(conn)?;
    for _ in 0..slots::MAX_ROUNDS {
        let need = room as usize - picked.len();
        if need == 0 {
            break;
        }
        let candidates = rows::all(
            conn.prepare_cached(
                "SELECT queue_seq, concurrency_key, concurrency_limit, CASE WHEN ?3 THEN owner END
                 FROM runs INDEXED BY runs_ready WHERE status = 'queued' AND blocked = 0 AND held = 0
                 ORDER BY priority DESC, vt, queue_seq LIMIT ?1 OFFSET ?2",
            )?
            .query(params![need as i64, picked.len() as i64, !limited.is_empty()])?,
            |row| candidate(row, &limited),
        )?;
        let seen = candidates.len();
        let sorted = taken.sort(candidates, need, |key| running(conn, key))?;
        picked.extend_from_slice(&sorted.start);
        hold(conn, &sorted.full_keys(), &picked)?;
        if sorted.hold.is_empty() || seen < need {
            break;
        }
    }
    Ok(picked)
}

fn candidate(row: &rusqlite::Row<'_>, limited: &HashMap<String, u32>) -> StoreResult<Candidate> {
    let key: Option<String> = row.get(1)?;
    let limit: Option<i64> = row.get(2)?;
    let owner: Option<String> = row.get(3)?;
    let owner = owner.and_then(|owner| limited.get(&owner).map(|limit| (owner, *limit)));
    Ok(Candidate { queue_seq: row.get(0)?, key: key.map(|key| (key, limit.unwrap_or(1).max(1) as u32)), owner })
}

/// How many runs of a key, or of an owner, are running.
fn running(conn: &Connection, slot: &Slot) -> StoreResult<u32> {
    let (sql, value) = match slot {
        Slot::Key(key) => {
            ("SELECT COUNT(*) FROM runs INDEXED BY runs_keyed WHERE concurrency_key = ?1 AND status = 'running'", key)
        }
        Slot::Owner(owner) => {
            ("SELECT COUNT(*) FROM runs INDEXED BY runs_owner_running WHERE owner = ?1 AND status = 'running'", owner)
        }
    };
    let n: i64 = conn.prepare_cached(sql)?.query_row([value], |r| r.get(0))?;
    Ok(n as u32)
}

/// Holds every ready run of each full key but those this claim starts
/// (`picked`), found through `runs_keyed_ready`, and upserts the key's row:
/// one claim takes a key with thousands queued out of the ready index, so
/// the claims after it do not read past the key again. A full owner's
/// ready runs are held the same way, and the owner listed in `held_owners`.
fn hold(conn: &Connection, full: &[(&Slot, u32)], picked: &[i64]) -> StoreResult<()> {
    let picked = serde_json::to_string(picked)?;
    for (slot, limit) in full {
        let key = match slot {
            Slot::Key(key) => key,
            Slot::Owner(owner) => {
                conn.prepare_cached(
                    "UPDATE runs INDEXED BY runs_owner_queued SET held = 1 WHERE owner = ?1 AND status = 'queued'
                       AND blocked = 0 AND held = 0 AND queue_seq NOT IN (SELECT value FROM json_each(?2))",
                )?
                .execute(params![owner, &picked])?;
                conn.prepare_cached("INSERT INTO held_owners (owner) VALUES (?1) ON CONFLICT (owner) DO NOTHING")?
                    .execute([owner])?;
                continue;
            }
        };
        conn.prepare_cached(
            "UPDATE runs INDEXED BY runs_keyed_ready SET held = 1 WHERE concurrency_key = ?1 AND status = 'queued'
               AND blocked = 0 AND held = 0 AND queue_seq NOT IN (SELECT value FROM json_each(?2))",
        )?
        .execute(params![key, &picked])?;
        conn.prepare_cached(
            "INSERT INTO held_keys (key, lim) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET lim = ?2",
        )?
        .execute(params![key, limit])?;
    }
    Ok(())
}

/// The first step of a claim: for each row of `held_keys`, counts its
/// running runs through `runs_keyed` and its ready ones (up to the limit)
/// through `runs_keyed_ready`, and releases through `runs_held`; the row
/// goes once none of its runs is held. Then the same for `held_owners`.
pub fn return_held(conn: &Connection) -> StoreResult<()> {
    return_held_keys(conn)?;
    return_held_owners(conn)
}

fn return_held_keys(conn: &Connection) -> StoreResult<()> {
    let keys: Vec<(String, i64)> = conn
        .prepare_cached("SELECT key, lim FROM held_keys")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (key, limit) in keys {
        let running = running(conn, &Slot::Key(key.clone()))?;
        // Counted no further than the limit: past it, no slot is free anyway.
        let ready: i64 = conn
            .prepare_cached(
                "SELECT COUNT(*) FROM (SELECT 1 FROM runs INDEXED BY runs_keyed_ready WHERE concurrency_key = ?1
                   AND status = 'queued' AND blocked = 0 AND held = 0 LIMIT ?2)",
            )?
            .query_row(params![&key, limit], |r| r.get(0))?;
        let free = slots::free_slots(limit as u32, running, ready as u32);
        if free > 0 {
            conn.prepare_cached(
                "UPDATE runs SET held = 0 WHERE queue_seq IN
                   (SELECT queue_seq FROM runs INDEXED BY runs_held WHERE concurrency_key = ?1 AND held = 1
                      AND status = 'queued' ORDER BY priority DESC, vt, queue_seq LIMIT ?2)",
            )?
            .execute(params![key, free])?;
        }
        conn.prepare_cached(
            "DELETE FROM held_keys WHERE key = ?1 AND NOT EXISTS
               (SELECT 1 FROM runs INDEXED BY runs_held WHERE concurrency_key = ?1 AND held = 1 AND status = 'queued')",
        )?
        .execute([&key])?;
    }
    Ok(())
}

/// Gives each listed owner's held runs back as its slots free, its limit
/// read from its quota now (none left: every held run goes back). A run
/// held for its key, which is listed too, is left for its key to give back.
fn return_held_owners(conn: &Connection) -> StoreResult<()> {
    let owners: Vec<(String, Option<i64>)> = conn
        .prepare_cached(
            "SELECT h.owner, q.max_running_runs FROM held_owners h LEFT JOIN owner_quotas q ON q.owner = h.owner",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (owner, limit) in owners {
        let limit = limit.map_or(u32::MAX, |n| n.max(0) as u32);
        let running = running(conn, &Slot::Owner(owner.clone()))?;
        let ready: i64 = conn
            .prepare_cached(
                "SELECT COUNT(*) FROM (SELECT 1 FROM runs INDEXED BY runs_owner_queued WHERE owner = ?1
                   AND status = 'queued' AND blocked = 0 AND held = 0 LIMIT ?2)",
            )?
            .query_row(params![&owner, i64::from(limit)], |r| r.get(0))?;
        let free = slots::free_slots(limit, running, ready as u32);
        if free > 0 {
            conn.prepare_cached(
                "UPDATE runs SET held = 0 WHERE queue_seq IN
                   (SELECT queue_seq FROM runs INDEXED BY runs_owner_queued WHERE owner = ?1 AND held = 1
                      AND status = 'queued' AND (concurrency_key IS NULL OR concurrency_key NOT IN (SELECT key FROM held_keys))
                    ORDER BY priority DESC, vt, queue_seq LIMIT ?2)",
            )?
            .execute(params![owner, i64::from(free)])?;
        }
        conn.prepare_cached(
            "DELETE FROM held_owners WHERE owner = ?1 AND NOT EXISTS
               (SELECT 1 FROM runs INDEXED BY runs_owner_queued WHERE owner = ?1 AND held = 1 AND status = 'queued')",
        )?
        .execute([&owner])?;
    }
    Ok(())
}
