//! The queue's writes: enqueue, claim and hand-back. Each function runs
//! inside the writer's transaction, on the writer's thread.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::progress::{fence, finish, insert_events};
use super::rows::{self, ms};
use crate::domain::event::RunEvent;
use crate::domain::lifecycle::{self, turn, Effect, HandBack, IdempotencyKey, Lease, NewRun, Rescue};
use crate::domain::model::Run;
use crate::store::agent_snapshots::AgentSnapshot;
use crate::store::{Claim, Enqueued, StoreError, StoreResult};

/// Statuses of a run that still holds its session's turn.
const ACTIVE: &str = "('queued','running','waiting')";

/// [`crate::store::Store::enqueue_run`]: the key looked up, the strategy
/// carried out, then the run inserted, in the writer's transaction.
pub fn enqueue(conn: &Connection, new: &NewRun, key: Option<&IdempotencyKey>) -> StoreResult<Enqueued> {
    if let Some(key) = key {
        if let Some(run) = replayed(conn, key)? {
            return Ok(Enqueued { run, created: false });
        }
    }
    let at = Utc::now();
    let from_past = new.from_past.clone().unwrap_or_default();
    if let (Some(session_id), Some(to)) = (&new.session_id, &from_past.rewind) {
        super::branches::rewind(conn, session_id, to, at)?;
    }
    if let Some(session_id) = &new.session_id {
        super::people::make_way(conn, session_id, new.strategy, at)?;
    }
    let blocked = match &new.session_id {
        Some(session_id) => turn::starts_blocked(session_is_busy(conn, session_id)?),
        None => false,
    };
    let vt = super::fair::first_start(conn, new, 1)?;
    insert_run(conn, new, blocked, None, vt, &lifecycle::queued(new, None), at)?;
    if let Some(reused) = &from_past.reused {
        super::branches::reuse(conn, &new.id, reused, at)?;
    }
    if let Some(key) = key {
        remember_key(conn, key, &new.id, at)?;
    }
    let run = get_run(conn, &new.id)?.ok_or(StoreError::NotFound("run"))?;
    Ok(Enqueued { run, created: true })
}

/// Writes a queued run and its `run_queued` event (`queued`), and its
/// agent's snapshot unless a run wrote it before; `task` places it in a
/// fleet run: (fleet run ID, task index); `vt` is its start in fair queuing
/// (`super::fair`).
pub fn insert_run(
    conn: &Connection,
    new: &NewRun,
    blocked: bool,
    task: Option<(&str, u32)>,
    vt: i64,
    queued: &RunEvent,
    at: DateTime<Utc>,
) -> StoreResult<()> {
    let agent = AgentSnapshot::of(&new.agent)?;
    conn.prepare_cached(
        "INSERT INTO agent_snapshots (digest, body, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (digest) DO NOTHING",
    )?
    .execute(params![agent.digest, agent.body, ms(at)])?;
    conn.prepare_cached(
        "INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent, agent_digest, input, work_dir,
                           max_attempts, event_seq, fleet_run_id, task_index, priority, concurrency_key,
                           concurrency_limit, vt, created_at, updated_at, owner)
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5, '', ?6, ?7, ?8, ?9, 1, ?10, ?11, ?13, ?14, ?15, ?16, ?12, ?12, ?17)",
    )?
    .execute(params![
        new.id,
        new.kind.as_str(),
        blocked,
        new.session_id,
        new.agent.id,
        agent.digest,
        serde_json::to_string(&new.input)?,
        new.work_dir,
        new.max_attempts as i64,
        task.map(|t| t.0),
        task.map(|t| t.1 as i64),
        ms(at),
        new.input.carried.priority,
        new.input.carried.concurrency.as_ref().map(|c| &c.key),
        new.input.carried.concurrency.as_ref().map(|c| c.limit),
        vt,
        new.input.carried.owner
    ])?;
    insert_events(conn, &new.id, 1, std::slice::from_ref(queued), at)
}

/// Stores `key` beside the ID it submitted (a run's or a fleet run's).
pub fn remember_key(conn: &Connection, key: &IdempotencyKey, id: &str, at: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO idempotency_keys (scope, key, request_hash, run_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![key.scope, key.key, key.request_hash, id, ms(at)])?;
    Ok(())
}

/// Looks `key` up: the ID it submitted first, if [`lifecycle::replay`] says
/// this request replays it.
pub fn remembered(conn: &Connection, key: &IdempotencyKey) -> StoreResult<Option<String>> {
    let found: Option<(String, String)> = conn
        .prepare_cached("SELECT request_hash, run_id FROM idempotency_keys WHERE scope = ?1 AND key = ?2")?
        .query_row(params![key.scope, key.key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((hash, id)) = found else { return Ok(None) };
    lifecycle::replay(key, &hash)?;
    Ok(Some(id))
}

/// The run first submitted with this key, if the key was used.
fn replayed(conn: &Connection, key: &IdempotencyKey) -> StoreResult<Option<Run>> {
    let Some(run_id) = remembered(conn, key)? else { return Ok(None) };
    Ok(Some(get_run(conn, &run_id)?.ok_or(StoreError::NotFound("run"))?))
}

/// Whether the session already has a run holding its turn (the new one then
/// waits, blocked); a missing session is refused.
fn session_is_busy(conn: &Connection, session_id: &str) -> StoreResult<bool> {
    let (present, busy): (bool, bool) = conn
        .prepare_cached(&format!(
            "SELECT EXISTS(SELECT 1 FROM sessions WHERE id = ?1),
                    EXISTS(SELECT 1 FROM runs INDEXED BY runs_session_active WHERE session_id = ?1 AND status IN {ACTIVE})"
        ))?
        .query_row([session_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    if !present {
        return Err(StoreError::NotFound("session"));
    }
    Ok(busy)
}

/// Reads a run inside the writer's transaction.
pub fn get_run(conn: &Connection, id: &str) -> StoreResult<Option<Run>> {
    let mut select = conn.prepare_cached(&format!("SELECT {} FROM runs WHERE id = ?1", rows::RUN_COLUMNS))?;
    let mut found = select.query([id])?;
    match found.next()? {
        Some(row) => Ok(Some(super::run_rows::run(conn, row)?)),
        None => Ok(None),
    }
}

/// [`crate::store::Store::claim_runs`]: rescues first, then queued runs at
/// the head of their session by `runs_ready` (the highest priority first,
/// then the oldest) whose concurrency key has a free slot, all in the
/// writer's transaction.
pub fn claim(conn: &Connection, worker_id: &str, limit: u32, now: DateTime<Utc>) -> StoreResult<Vec<Claim>> {
    // A worker whose own lease lapsed must not claim: its runs are orphans now,
    // and claiming them under the same id would run one twice in one process.
    let live: Option<i64> = conn
        .prepare_cached("SELECT 1 FROM workers WHERE id = ?1 AND lease_expires_at > ?2")?
        .query_row(params![worker_id, ms(now)], |r| r.get(0))
        .optional()?;
    if live.is_none() {
        return Err(StoreError::Fenced);
    }
    let mut started = rescue_orphans(conn, worker_id, limit, now)?;
    let room = limit.saturating_sub(started.len() as u32);
    wake_parked(conn, now)?;
    super::slots::return_held(conn)?;
    let picked = super::slots::pick(conn, room)?;
    let mut queued = conn.prepare_cached(
        "UPDATE runs SET status = 'running', worker_id = ?1, lease_epoch = lease_epoch + 1, attempt = attempt + 1,
                progressed = 0, started_at = COALESCE(started_at, ?2), updated_at = ?2, event_seq = event_seq + 1
         WHERE queue_seq IN (SELECT value FROM json_each(?3))
         RETURNING id, lease_epoch, attempt, charged, event_seq",
    )?;
    let picked = serde_json::to_string(&picked)?;
    let found = rows::all(queued.query(params![worker_id, ms(now), picked])?, |row| claimed(row, worker_id))?;
    started.extend(found);
    write_started(conn, &started, now)?;
    for (claim, _) in &started {
        super::fleet::task_started(conn, &claim.lease.run_id, now)?;
    }
    Ok(started.into_iter().map(|(claim, _)| claim).collect())
}

/// Makes the runs handed back for their provider budget ready again once
/// their time has come, through `runs_parked` (empty but for them).
fn wake_parked(conn: &Connection, now: DateTime<Utc>) -> StoreResult<()> {
    conn.prepare_cached(
        "UPDATE runs SET held = 0, wake_at = NULL WHERE queue_seq IN
           (SELECT queue_seq FROM runs INDEXED BY runs_parked WHERE status = 'queued' AND held = 2 AND wake_at <= ?1)",
    )?
    .execute([ms(now)])?;
    Ok(())
}

/// The runs of lapsed leases, by `runs_running`, each taken over or failed
/// as [`lifecycle::rescue`] says.
fn rescue_orphans(
    conn: &Connection,
    worker_id: &str,
    limit: u32,
    now: DateTime<Utc>,
) -> StoreResult<Vec<(Claim, u64)>> {
    let orphans: Vec<(String, u32, bool, u32)> = conn
        .prepare_cached(
            "SELECT id, charged, progressed, max_attempts FROM runs INDEXED BY runs_running
             WHERE status = 'running' AND NOT EXISTS
               (SELECT 1 FROM workers w WHERE w.id = runs.worker_id AND w.lease_expires_at > ?1)
             ORDER BY queue_seq LIMIT ?2",
        )?
        .query_map(params![ms(now), limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let mut started = Vec::new();
    for (id, charged, progressed, max_attempts) in orphans {
        let charged = match lifecycle::rescue(charged, progressed, max_attempts) {
            Rescue::Resume { charged } => charged,
            Rescue::GiveUp { charged, reason } => {
                conn.prepare_cached("UPDATE runs SET charged = ?2 WHERE id = ?1")?.execute(params![id, charged])?;
                finish(conn, &id, &reason, now)?;
                continue;
            }
        };
        let mut take = conn.prepare_cached(
            "UPDATE runs SET worker_id = ?1, lease_epoch = lease_epoch + 1, attempt = attempt + 1, charged = ?4,
                    progressed = 0, handed_back = 0, updated_at = ?2, event_seq = event_seq + 1
             WHERE id = ?3 RETURNING id, lease_epoch, attempt, charged, event_seq",
        )?;
        let mut taken = take.query(params![worker_id, ms(now), id, charged])?;
        if let Some(row) = taken.next()? {
            let (mut claim, seq) = claimed(row, worker_id)?;
            claim.rescued = true;
            started.push((claim, seq));
        }
    }
    Ok(started)
}

/// Reads a claimed row (`RETURNING id, lease_epoch, attempt, charged, event_seq`).
fn claimed(row: &rusqlite::Row<'_>, worker_id: &str) -> StoreResult<(Claim, u64)> {
    let claim = Claim {
        lease: Lease {
            run_id: row.get("id")?,
            worker_id: worker_id.to_string(),
            epoch: row.get::<_, i64>("lease_epoch")? as u64,
        },
        attempt: row.get::<_, i64>("attempt")? as u32,
        charged_attempts: row.get::<_, i64>("charged")? as u32,
        rescued: false,
        context: None,
    };
    Ok((claim, row.get::<_, i64>("event_seq")? as u64))
}

/// Writes `run_started` for every claimed run (each number was reserved by
/// the claim's update), so every attempt shows in the log even if it crashes
/// before its first step ends.
fn write_started(conn: &Connection, started: &[(Claim, u64)], now: DateTime<Utc>) -> StoreResult<()> {
    for (claim, seq) in started {
        let event = lifecycle::started(claim.attempt, &claim.lease.worker_id, claim.charged_attempts);
        insert_events(conn, &claim.lease.run_id, *seq, &[event], now)?;
    }
    Ok(())
}

/// Puts a run back in the queue, uncharged, if the lease is still held, and
/// says so in its log: `run_handed_back` tells the next attempt whether a
/// step was in flight.
pub fn release(conn: &Connection, lease: &Lease, how: HandBack, now: DateTime<Utc>) -> StoreResult<()> {
    let handed_back = lifecycle::hand_back(how);
    let seq = fence(conn, lease, Effect::events(1), now)?;
    insert_events(conn, &lease.run_id, seq, &[handed_back.event], now)?;
    conn.prepare_cached(
        "UPDATE runs SET status = 'queued', worker_id = NULL, handed_back = COALESCE(?3, handed_back),
                updated_at = ?1, wake_at = ?4, held = CASE WHEN ?4 IS NULL THEN held ELSE 2 END
         WHERE id = ?2",
    )?
    .execute(params![ms(now), lease.run_id, handed_back.clean_boundary, handed_back.wake_at])?;
    Ok(())
}
