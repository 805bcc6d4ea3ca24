//! Concurrency keys and owners' running limits on PostgreSQL: a claim's
//! pick of queued runs, holding those whose key (or owner) is at its limit,
//! and the return of held runs as slots free
//! ([`crate::domain::lifecycle::slots`]).
//!
//! A key's running runs are counted when a claim decides, so two claims on
//! two hosts must not decide at once: every claim that decides about keys
//! takes one transaction-scoped advisory lock first, and counts after it
//! was granted (each statement of a READ COMMITTED transaction sees what
//! committed before it began, the other claim's starts included). Claims
//! of runs without a key never take it: the one-statement claim
//! (`queue::claim_queued`) starts them and leaves any keyed run to here.

use std::collections::HashMap;

use sqlx::PgConnection;

use crate::domain::lifecycle::slots::{self, Candidate, Slot, Taken};
use crate::store::{StoreError, StoreResult};

/// The advisory lock of the claims that decide about keys ("wingman keys").
const KEYS_LOCK: i64 = 0x77_6b_65_79_73;

/// Whether a held run's key has a free slot: `has_claimable` asks it, and
/// the one-statement claim hands over to [`pick`]'s locked path only then.
pub const HELD_WITH_FREE_SLOT: &str = "(EXISTS(SELECT 1 FROM held_keys h WHERE h.lim >
     (SELECT COUNT(*) FROM runs WHERE concurrency_key = h.key AND status = 'running'))
   OR EXISTS(SELECT 1 FROM held_owners h LEFT JOIN owner_quotas q ON q.owner = h.owner
     WHERE q.max_running_runs IS NULL OR q.max_running_runs >
       (SELECT COUNT(*) FROM runs WHERE owner = h.owner AND status = 'running')))";

/// Whether some owner's quota limits its running runs: the one-statement
/// claim then leaves every run to [`pick`], which counts owners' slots.
pub const OWNERS_LIMITED: &str = "EXISTS(SELECT 1 FROM owner_quotas WHERE max_running_runs IS NOT NULL)";

/// Takes the lock of claims that decide about keys, until the transaction ends.
pub async fn lock(c: &mut PgConnection) -> StoreResult<()> {
    sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(KEYS_LOCK).execute(&mut *c).await?;
    Ok(())
}

/// A claim's pick, up to `room` runs, under [`lock`]: rows taken `FOR
/// UPDATE SKIP LOCKED` (its own earlier picks left out by value, since its
/// own locks do not skip them); the `queue_seq`s that start, locked.
pub async fn pick(c: &mut PgConnection, room: u32) -> StoreResult<Vec<i64>> {
    let mut picked: Vec<i64> = Vec::new();
    let mut taken = Taken::default();
    let limited: HashMap<String, u32> = sqlx::query_as::<_, (String, i64)>(
        "SELECT owner, max_running_runs FROM owner_quotas WHERE max_running_runs IS NOT NULL",
    )
    .fetch_all(&mut *c)
    .await?
    .into_iter()
    .map(|(owner, limit)| (owner, limit.max(1) as u32))
    .collect();
    for _ in 0..slots::MAX_ROUNDS {
        let need = room as usize - picked.len();
        if need == 0 {
            break;
        }
        let rows: Vec<(i64, Option<String>, Option<i32>, String)> = sqlx::query_as(
            "SELECT queue_seq, concurrency_key, concurrency_limit, owner FROM runs
             WHERE status = 'queued' AND blocked = 0 AND held = 0 AND NOT (queue_seq = ANY($2))
             ORDER BY priority DESC, vt, queue_seq LIMIT $1 FOR UPDATE SKIP LOCKED",
        )
        .bind(need as i64)
        .bind(&picked)
        .fetch_all(&mut *c)
        .await?;
        let seen = rows.len();
        let candidates: Vec<Candidate> = rows
            .into_iter()
            .map(|(queue_seq, key, limit, owner)| Candidate {
                queue_seq,
                key: key.map(|key| (key, limit.unwrap_or(1).max(1) as u32)),
                owner: limited.get(&owner).map(|limit| (owner, *limit)),
            })
            .collect();
        // The sort cannot await: the keys it will ask about are counted first.
        let mut counted = HashMap::new();
        for slot in taken.uncounted(&candidates) {
            let n = running(c, &slot).await?;
            counted.insert(slot, n);
        }
        let sorted = taken.sort(candidates, need, |slot| {
            counted.get(slot).copied().ok_or_else(|| StoreError::internal("a slot's running runs were not counted"))
        })?;
        picked.extend_from_slice(&sorted.start);
        hold(c, &sorted.full_keys(), &picked).await?;
        if sorted.hold.is_empty() || seen < need {
            break;
        }
    }
    Ok(picked)
}

/// Counts the running rows of a key (`runs_keyed`) or an owner (`runs_owner_running`).
async fn running(c: &mut PgConnection, slot: &Slot) -> StoreResult<u32> {
    let (sql, value) = match slot {
        Slot::Key(key) => ("SELECT COUNT(*) FROM runs WHERE concurrency_key = $1 AND status = 'running'", key),
        Slot::Owner(owner) => ("SELECT COUNT(*) FROM runs WHERE owner = $1 AND status = 'running'", owner),
    };
    let n: i64 = sqlx::query_scalar(sql).bind(value).fetch_one(&mut *c).await?;
    Ok(n as u32)
}

/// One update per full key marks its ready rows `held` (not those in
/// `picked`), and its `held_keys` row is upserted. The one-statement claim
/// stays one statement for other work afterwards, since no keyed row is
/// left among the best for it to meet. A full owner's rows are marked the
/// same way and the owner listed in `held_owners`.
async fn hold(c: &mut PgConnection, full: &[(&Slot, u32)], picked: &[i64]) -> StoreResult<()> {
    for &(slot, limit) in full {
        let key = match slot {
            Slot::Key(key) => key,
            Slot::Owner(owner) => {
                sqlx::query(
                    "UPDATE runs SET held = 1 WHERE owner = $1 AND status = 'queued' AND blocked = 0
                       AND held = 0 AND NOT (queue_seq = ANY($2))",
                )
                .bind(owner)
                .bind(picked)
                .execute(&mut *c)
                .await?;
                sqlx::query("INSERT INTO held_owners (owner) VALUES ($1) ON CONFLICT (owner) DO NOTHING")
                    .bind(owner)
                    .execute(&mut *c)
                    .await?;
                continue;
            }
        };
        sqlx::query(
            "UPDATE runs SET held = 1 WHERE concurrency_key = $1 AND status = 'queued' AND blocked = 0
               AND held = 0 AND NOT (queue_seq = ANY($2))",
        )
        .bind(key)
        .bind(picked)
        .execute(&mut *c)
        .await?;
        sqlx::query("INSERT INTO held_keys (key, lim) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET lim = $2")
            .bind(key)
            .bind(limit as i32)
            .execute(&mut *c)
            .await?;
    }
    Ok(())
}

/// The first step of a claim under [`lock`]: each row of `held_keys`, in
/// key order, counted in one statement, released, and deleted once none of
/// its runs is held; then each of `held_owners`.
pub async fn return_held(c: &mut PgConnection) -> StoreResult<()> {
    return_held_keys(c).await?;
    return_held_owners(c).await
}

async fn return_held_keys(c: &mut PgConnection) -> StoreResult<()> {
    let keys: Vec<(String, i32)> =
        sqlx::query_as("SELECT key, lim FROM held_keys ORDER BY key").fetch_all(&mut *c).await?;
    for (key, limit) in keys {
        // The ready runs are counted up to the limit only (`runs_keyed_ready`):
        // a key with thousands queued costs a claim no more than one with few.
        let (running, ready): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM runs WHERE concurrency_key = $1 AND status = 'running'),
                    (SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE concurrency_key = $1
                       AND status = 'queued' AND blocked = 0 AND held = 0 LIMIT $2) ready)",
        )
        .bind(&key)
        .bind(i64::from(limit.max(0)))
        .fetch_one(&mut *c)
        .await?;
        let free = slots::free_slots(limit.max(0) as u32, running as u32, ready as u32);
        if free > 0 {
            sqlx::query(
                "UPDATE runs SET held = 0 WHERE queue_seq IN
                   (SELECT queue_seq FROM runs WHERE concurrency_key = $1 AND held = 1 AND status = 'queued'
                    ORDER BY priority DESC, vt, queue_seq LIMIT $2)",
            )
            .bind(&key)
            .bind(free as i64)
            .execute(&mut *c)
            .await?;
        }
        sqlx::query(
            "DELETE FROM held_keys WHERE key = $1 AND NOT EXISTS
               (SELECT 1 FROM runs WHERE concurrency_key = $1 AND held = 1 AND status = 'queued')",
        )
        .bind(&key)
        .execute(&mut *c)
        .await?;
    }
    Ok(())
}

/// Each listed owner in owner order, its limit read from `owner_quotas` now
/// (an owner whose quota no longer limits it gets every held run back), its
/// rows counted in one statement; a row held for a key that `held_keys`
/// lists stays for that key to release.
async fn return_held_owners(c: &mut PgConnection) -> StoreResult<()> {
    let owners: Vec<(String, Option<i64>)> = sqlx::query_as(
        "SELECT h.owner, q.max_running_runs FROM held_owners h LEFT JOIN owner_quotas q ON q.owner = h.owner
         ORDER BY h.owner",
    )
    .fetch_all(&mut *c)
    .await?;
    for (owner, limit) in owners {
        let limit = limit.map_or(u32::MAX, |n| n.clamp(0, i64::from(u32::MAX)) as u32);
        let (running, ready): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM runs WHERE owner = $1 AND status = 'running'),
                    (SELECT COUNT(*) FROM (SELECT 1 FROM runs WHERE owner = $1
                       AND status = 'queued' AND blocked = 0 AND held = 0 LIMIT $2) ready)",
        )
        .bind(&owner)
        .bind(i64::from(limit))
        .fetch_one(&mut *c)
        .await?;
        let free = slots::free_slots(limit, running as u32, ready as u32);
        if free > 0 {
            sqlx::query(
                "UPDATE runs SET held = 0 WHERE queue_seq IN
                   (SELECT queue_seq FROM runs WHERE owner = $1 AND held = 1 AND status = 'queued'
                      AND (concurrency_key IS NULL OR concurrency_key NOT IN (SELECT key FROM held_keys))
                    ORDER BY priority DESC, vt, queue_seq LIMIT $2)",
            )
            .bind(&owner)
            .bind(i64::from(free))
            .execute(&mut *c)
            .await?;
        }
        sqlx::query(
            "DELETE FROM held_owners WHERE owner = $1 AND NOT EXISTS
               (SELECT 1 FROM runs WHERE owner = $1 AND held = 1 AND status = 'queued')",
        )
        .bind(&owner)
        .execute(&mut *c)
        .await?;
    }
    Ok(())
}
