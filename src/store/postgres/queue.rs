//! The queue's writes on PostgreSQL: enqueue, claim and hand-back.

use std::collections::BTreeMap;

use sqlx::postgres::{PgPool, PgRow};
use sqlx::{PgConnection, Row};

use super::commit::fence;
use super::progress::finish;
use super::slots::{HELD_WITH_FREE_SLOT, OWNERS_LIMITED};
use super::Pending;
use crate::domain::lifecycle::{self, Effect, HandBack, IdempotencyKey, Lease, NewRun, Rescue, TaskRun};
use crate::domain::model::Run;
use crate::store::agent_snapshots::AgentSnapshot;
use crate::store::rows::{self, Columns};
use crate::store::{Claim, Enqueued, StoreError, StoreResult};

/// Writes a new run and its `run_queued` event; with an idempotency key
/// already used, returns the first run instead (or refuses another body).
pub async fn enqueue(
    c: &mut PgConnection,
    p: &mut Pending,
    new: NewRun,
    key: Option<IdempotencyKey>,
) -> StoreResult<Enqueued> {
    if let Some(key) = &key {
        if let Some(run_id) = remembered(c, key).await? {
            let run = get_run(c, &run_id).await?.ok_or(StoreError::NotFound("run"))?;
            return Ok(Enqueued { run, created: false });
        }
    }
    let from_past = new.from_past.clone().unwrap_or_default();
    if let (Some(session_id), Some(to)) = (&new.session_id, &from_past.rewind) {
        super::branches::rewind(c, session_id, to).await?;
    }
    if let Some(session_id) = &new.session_id {
        super::people::make_way(c, p, session_id, new.strategy).await?;
    }
    let mut run = insert_run(&mut *c, &new, false).await?;
    if let Some(reused) = &from_past.reused {
        super::branches::reuse(c, p, &new.id, reused).await?;
        run = get_run(c, &new.id).await?.ok_or(StoreError::NotFound("run"))?;
    }
    p.hint();
    if let Some(key) = &key {
        remember_key(c, key, &new.id).await?;
    }
    Ok(Enqueued { run, created: true })
}

/// Whether a submission needs nothing but its insert: no idempotency key to
/// look up and remember, no multitask strategy to apply to the session's
/// unfinished runs first, nothing taken from the session's past. Such a one
/// is written by [`insert_run`] alone, outside any explicit transaction.
pub fn is_plain(new: &NewRun, key: &Option<IdempotencyKey>) -> bool {
    key.is_none() && !lifecycle::reads_unfinished(new.strategy) && new.from_past.is_none()
}

/// Writes one submitted run and its `run_queued` event in one call of
/// `wingman_enqueue_run` (migration 6), and answers with its row: it locks
/// the session, then inserts the run, blocked if the session already has a
/// run holding the turn. The check is a statement of its own, taken after the
/// lock was granted, so it sees a run that ended (and passed the turn on)
/// while the lock was awaited; the migration says why that matters. With
/// `notify`, the change hint goes out with its commit instead of after it.
pub async fn insert_run<'c>(c: impl sqlx::PgExecutor<'c>, new: &NewRun, notify: bool) -> StoreResult<Run> {
    let queued = lifecycle::queued(new, None);
    let agent = AgentSnapshot::of(&new.agent)?;
    let row = sqlx::query(&format!(
        "SELECT {} FROM wingman_enqueue_run($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        rows::RUN_COLUMNS
    ))
    .bind(&new.id)
    .bind(new.kind.as_str())
    .bind(&new.session_id)
    .bind(&new.agent.id)
    .bind(agent.digest)
    .bind(agent.body)
    .bind(serde_json::to_string(&new.input)?)
    .bind(&new.work_dir)
    .bind(new.max_attempts as i64)
    .bind(queued.kind())
    .bind(queued.data_json())
    .bind(notify.then_some(super::CHANNEL))
    .bind(i16::from(new.input.carried.priority))
    .bind(new.input.carried.concurrency.as_ref().map(|c| c.key.as_str()))
    .bind(new.input.carried.concurrency.as_ref().map(|c| c.limit as i32))
    .bind(&new.input.carried.owner)
    .fetch_optional(c)
    .await?;
    rows::run(&row.ok_or(StoreError::NotFound("session"))?)
}

/// Writes a fleet run's tasks' runs, all at once, and their `run_queued`
/// events, in task order.
pub async fn insert_runs(
    c: &mut PgConnection,
    p: &mut Pending,
    tasks: &[TaskRun],
    fleet_run_id: Option<&str>,
) -> StoreResult<()> {
    let Some(first) = tasks.first() else { return Ok(()) };
    let key = first.run.input.carried.concurrency.as_ref().map(|c| c.key.as_str());
    let start: i64 = sqlx::query_scalar("SELECT wingman_fair_start($1, $2)")
        .bind(key)
        .bind(tasks.len() as i64)
        .fetch_one(&mut *c)
        .await?;
    let mut columns = RunColumns::default();
    for (i, task) in tasks.iter().enumerate() {
        columns.push(&task.run, task.blocked, start + i as i64)?;
        p.push(&task.run.id, 1, std::slice::from_ref(&task.queued));
    }
    insert_snapshots(c, &columns.snapshots).await?;
    sqlx::query(
        "INSERT INTO runs (id, kind, status, blocked, session_id, agent_id, agent_digest, input, work_dir,
                           max_attempts, event_seq, fleet_run_id, task_index, priority, concurrency_key,
                           concurrency_limit, vt, created_at, updated_at, owner)
         SELECT id, kind, 'queued', blocked, session_id, agent_id, agent_digest, input, work_dir, max_attempts,
                1, $10, CASE WHEN $10::text IS NULL THEN NULL ELSE ord - 1 END, priority, concurrency_key,
                concurrency_limit, vt, wingman_ms(), wingman_ms(), owner
         FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::bigint[], $11::smallint[], $12::text[], $13::int[], $14::bigint[], $15::text[])
              WITH ORDINALITY
              AS u(id, kind, blocked, session_id, agent_id, agent_digest, input, work_dir, max_attempts, priority,
                   concurrency_key, concurrency_limit, vt, owner, ord)
         ORDER BY ord",
    )
    .bind(&columns.ids)
    .bind(&columns.kinds)
    .bind(&columns.blocked)
    .bind(&columns.session_ids)
    .bind(&columns.agent_ids)
    .bind(&columns.agent_digests)
    .bind(&columns.inputs)
    .bind(&columns.work_dirs)
    .bind(&columns.max_attempts)
    .bind(fleet_run_id)
    .bind(&columns.priorities)
    .bind(&columns.concurrency_keys)
    .bind(&columns.concurrency_limits)
    .bind(&columns.vts)
    .bind(&columns.owners)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Writes the agents' snapshots no run wrote before, in one statement. The
/// insert's lock on the table, held to the commit, keeps a deletion from
/// removing one of them before the runs that name it are committed
/// (`retention::lock_last_snapshot`).
async fn insert_snapshots(c: &mut PgConnection, snapshots: &BTreeMap<String, String>) -> StoreResult<()> {
    let (digests, bodies): (Vec<&String>, Vec<&String>) = snapshots.iter().unzip();
    sqlx::query(
        "INSERT INTO agent_snapshots (digest, body, created_at)
         SELECT digest, body, wingman_ms() FROM UNNEST($1::text[], $2::text[]) AS u(digest, body)
         ON CONFLICT (digest) DO NOTHING",
    )
    .bind(digests)
    .bind(bodies)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// New runs' columns as arrays, for one `INSERT … SELECT FROM UNNEST`.
#[derive(Default)]
struct RunColumns {
    ids: Vec<String>,
    kinds: Vec<String>,
    blocked: Vec<i64>,
    session_ids: Vec<Option<String>>,
    agent_ids: Vec<String>,
    agent_digests: Vec<String>,
    /// The distinct agents of the runs, by digest.
    snapshots: BTreeMap<String, String>,
    inputs: Vec<String>,
    work_dirs: Vec<String>,
    max_attempts: Vec<i64>,
    priorities: Vec<i16>,
    concurrency_keys: Vec<Option<String>>,
    concurrency_limits: Vec<Option<i32>>,
    vts: Vec<i64>,
    owners: Vec<String>,
}

impl RunColumns {
    fn push(&mut self, new: &NewRun, blocked: bool, vt: i64) -> StoreResult<()> {
        self.ids.push(new.id.clone());
        self.kinds.push(new.kind.as_str().to_string());
        self.blocked.push(blocked as i64);
        self.session_ids.push(new.session_id.clone());
        self.agent_ids.push(new.agent.id.clone());
        let agent = AgentSnapshot::of(&new.agent)?;
        self.agent_digests.push(agent.digest.clone());
        self.snapshots.entry(agent.digest).or_insert(agent.body);
        self.inputs.push(serde_json::to_string(&new.input)?);
        self.work_dirs.push(new.work_dir.clone());
        self.max_attempts.push(new.max_attempts as i64);
        self.priorities.push(i16::from(new.input.carried.priority));
        let concurrency = new.input.carried.concurrency.as_ref();
        self.concurrency_keys.push(concurrency.map(|c| c.key.clone()));
        self.concurrency_limits.push(concurrency.map(|c| c.limit as i32));
        self.vts.push(vt);
        self.owners.push(new.input.carried.owner.clone());
        Ok(())
    }
}

/// Serialises submissions with the same key: the second waits for the
/// first's commit and then finds it remembered.
async fn lock_key(c: &mut PgConnection, key: &IdempotencyKey) -> StoreResult<()> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))")
        .bind(&key.scope)
        .bind(&key.key)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// Records that `key` submitted what `id` names (a run or a fleet run).
pub async fn remember_key(c: &mut PgConnection, key: &IdempotencyKey, id: &str) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO idempotency_keys (scope, key, request_hash, run_id, created_at) VALUES ($1, $2, $3, $4, wingman_ms())",
    )
    .bind(&key.scope)
    .bind(&key.key)
    .bind(&key.request_hash)
    .bind(id)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// The ID first submitted with this key, if the key was used and the rules
/// replay it ([`lifecycle::replay`]). Takes the key's lock first.
pub async fn remembered(c: &mut PgConnection, key: &IdempotencyKey) -> StoreResult<Option<String>> {
    lock_key(c, key).await?;
    let found: Option<(String, String)> =
        sqlx::query_as("SELECT request_hash, run_id FROM idempotency_keys WHERE scope = $1 AND key = $2")
            .bind(&key.scope)
            .bind(&key.key)
            .fetch_optional(&mut *c)
            .await?;
    let Some((hash, id)) = found else { return Ok(None) };
    lifecycle::replay(key, &hash)?;
    Ok(Some(id))
}

/// Reads a run inside a transaction with its row locked, as a run is locked
/// before anything that hangs off it.
pub async fn get_run_locked(c: &mut PgConnection, id: &str) -> StoreResult<Run> {
    let row = sqlx::query(&format!("SELECT {} FROM runs WHERE id = $1 FOR UPDATE", rows::RUN_COLUMNS))
        .bind(id)
        .fetch_optional(&mut *c)
        .await?;
    row.as_ref().map(rows::run).transpose()?.ok_or(StoreError::NotFound("run"))
}

/// Reads a run inside a transaction.
pub async fn get_run(c: &mut PgConnection, id: &str) -> StoreResult<Option<Run>> {
    let row = sqlx::query(&format!("SELECT {} FROM runs WHERE id = $1", rows::RUN_COLUMNS))
        .bind(id)
        .fetch_optional(&mut *c)
        .await?;
    row.as_ref().map(rows::run).transpose()
}

/// Whether worker `$1`'s lease holds.
const LEASE_LIVE: &str = "EXISTS(SELECT 1 FROM workers WHERE id = $1 AND lease_expires_at > wingman_ms())";

/// Whether any lapsed lease left runs to rescue: usually no lease has
/// lapsed, and then no run is looked at. `OFFSET 0` keeps the inner query a
/// probe per lapsed worker; as a join, stale statistics made the planner walk
/// every running run on each claim.
pub const ORPHANS_EXIST: &str = "EXISTS(SELECT 1 FROM workers WHERE workers.lease_expires_at <= wingman_ms()
     AND EXISTS(SELECT 1 FROM runs WHERE runs.worker_id = workers.id AND runs.status = 'running' OFFSET 0))";

/// The runs handed back for their provider budget whose time has come
/// (found through `runs_parked`, which holds only those handed back).
pub const PARKED_DUE: &str =
    "SELECT queue_seq FROM runs WHERE status = 'queued' AND held = 2 AND wake_at <= wingman_ms()";

/// Claims the runs a `picked` CTE names (by `queue_seq`) for worker `$1`,
/// answering what [`claimed`] reads.
const CLAIM_PICKED: &str = "UPDATE runs SET status = 'running', worker_id = $1, lease_epoch = lease_epoch + 1,
         attempt = attempt + 1, progressed = 0, started_at = COALESCE(started_at, wingman_ms()),
         updated_at = wingman_ms(), event_seq = event_seq + 1
     FROM picked WHERE runs.queue_seq = picked.queue_seq
     RETURNING runs.id, runs.lease_epoch, runs.attempt, runs.charged, runs.event_seq, runs.fleet_run_id";

/// Claims runs for a worker: first those whose worker's lease expired (they
/// resume), then queued runs at the head of their session, the highest
/// priority first, then the oldest, each keyed one only into a free slot of
/// its key (under the lock every claim that decides about keys takes).
/// Rows another claim holds are skipped, never waited for.
pub async fn claim(c: &mut PgConnection, p: &mut Pending, worker_id: &str, limit: u32) -> StoreResult<Vec<Claim>> {
    // One round trip: whether this worker's lease holds, and whether any
    // lapsed lease left runs to rescue.
    let (live, orphans): (bool, bool) =
        sqlx::query_as(&format!("SELECT {LEASE_LIVE}, {ORPHANS_EXIST}")).bind(worker_id).fetch_one(&mut *c).await?;
    if !live {
        return Err(StoreError::Fenced);
    }
    let mut started = if orphans { rescue_orphans(c, p, worker_id, limit).await? } else { Vec::new() };
    let room = limit.saturating_sub(started.len() as u32);
    if room > 0 {
        super::slots::lock(c).await?;
        sqlx::query(&format!("UPDATE runs SET held = 0, wake_at = NULL WHERE queue_seq IN ({PARKED_DUE})"))
            .execute(&mut *c)
            .await?;
        super::slots::return_held(c).await?;
        let picked = super::slots::pick(c, room).await?;
        let found = sqlx::query(&format!("WITH picked AS (SELECT UNNEST($2::bigint[]) AS queue_seq) {CLAIM_PICKED}"))
            .bind(worker_id)
            .bind(&picked)
            .fetch_all(&mut *c)
            .await?;
        for row in &found {
            started.push(claimed(row, worker_id)?);
        }
    }
    let mut fleet_runs: Vec<String> = Vec::new();
    for (claim, seq, fleet_run_id) in &started {
        let event = lifecycle::started(claim.attempt, worker_id, claim.charged_attempts);
        p.push(&claim.lease.run_id, *seq, &[event]);
        fleet_runs.extend(fleet_run_id.clone());
    }
    if !fleet_runs.is_empty() {
        super::fleet::tasks_started(c, &fleet_runs).await?;
    }
    Ok(started.into_iter().map(|(claim, _, _)| claim).collect())
}

/// What a claim of queued runs in one statement found.
pub enum QuickClaim {
    /// The runs claimed (perhaps none), their `run_started` written.
    Claimed(Vec<Claim>),
    /// The worker's lease has lapsed: nothing was claimed.
    Fenced,
    /// Runs of lapsed leases wait for a rescue, which [`claim`] does first:
    /// nothing was claimed.
    Orphans,
    /// The best queued runs include one with a concurrency key (or some
    /// owner's quota limits its running runs), a key or owner with held
    /// runs has a free slot, or runs handed back for their provider
    /// budget are due: [`claim`] decides about keys and wakes them, nothing
    /// was claimed.
    Keyed,
}

/// The usual claim in one statement, so in one round trip and outside any
/// explicit transaction: the lease checked, queued runs at the head of their
/// sessions claimed, their `run_started` events written and their fleet runs
/// started. It claims nothing when a lapsed lease left runs to rescue, which
/// take precedence and need [`claim`]'s several statements, nor when a
/// concurrency key is involved (a keyed run among the best, or held runs
/// whose key has a free slot), which [`claim`] decides under its lock. Held
/// runs of a key at its limit do not send it there: this claim never starts
/// a keyed run, so it cannot overrun a key, and such a key has nothing to
/// give back yet. With `notify`,
/// a claim that claims something sends its change hint inside its commit
/// (see [`super::listen::Notifier`]); the answer's `hints` column is there
/// only because PostgreSQL runs a reading CTE only when the query refers to
/// it. The event's data is built here as [`lifecycle::started`] builds it,
/// for speed (one round trip); the store conformance suite checks that the
/// two agree.
pub async fn claim_queued(pool: &PgPool, worker_id: &str, limit: u32, notify: bool) -> StoreResult<QuickClaim> {
    let found = sqlx::query(&format!(
        "WITH lease AS (SELECT {LEASE_LIVE} AS live, {ORPHANS_EXIST} AS orphans,
                               {HELD_WITH_FREE_SLOT} OR EXISTS({PARKED_DUE}) AS held),
         candidates AS (
             SELECT queue_seq, concurrency_key FROM runs WHERE status = 'queued' AND blocked = 0 AND held = 0
               AND (SELECT live AND NOT orphans AND NOT held FROM lease)
             ORDER BY priority DESC, vt, queue_seq LIMIT $2 FOR UPDATE SKIP LOCKED),
         keyed AS (SELECT EXISTS(SELECT 1 FROM candidates WHERE concurrency_key IS NOT NULL) OR {OWNERS_LIMITED}
                   AS found),
         picked AS (SELECT queue_seq FROM candidates WHERE NOT (SELECT found FROM keyed)),
         claimed AS (
             {CLAIM_PICKED}),
         started AS (
             INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
             SELECT id, event_seq, event_seq,
                    json_build_array(json_build_array('run_started',
                      json_build_object('attempt', attempt, 'worker_id', $1::text, 'charged_attempts', charged)))::text,
                    wingman_ms()
             FROM claimed),
         fleets AS (
             UPDATE fleet_runs SET status = 'running', started_at = wingman_ms(), updated_at = wingman_ms()
             WHERE status = 'queued' AND id IN (SELECT fleet_run_id FROM claimed)),
         hinted AS (
             SELECT pg_notify($3, '') FROM (SELECT 1 FROM claimed LIMIT 1) AS any_claimed WHERE $3 IS NOT NULL)
         SELECT lease.live, lease.orphans, lease.held OR (SELECT found FROM keyed) AS keyed,
                (SELECT COUNT(*) FROM hinted) AS hints, claimed.*
         FROM lease LEFT JOIN claimed ON true"
    ))
    .bind(worker_id)
    .bind(limit as i64)
    .bind(notify.then_some(super::CHANNEL))
    .fetch_all(pool)
    .await?;
    let (live, orphans, keyed): (bool, bool, bool) = match found.first() {
        Some(row) => (row.try_get("live")?, row.try_get("orphans")?, row.try_get("keyed")?),
        None => return Err(StoreError::internal("a claim answered no row")),
    };
    if !live {
        return Ok(QuickClaim::Fenced);
    }
    if orphans {
        return Ok(QuickClaim::Orphans);
    }
    if keyed {
        return Ok(QuickClaim::Keyed);
    }
    let mut claims = Vec::new();
    for row in found.iter().filter(|row| row.try_get::<Option<String>, _>("id").ok().flatten().is_some()) {
        claims.push(claimed(row, worker_id)?.0);
    }
    Ok(QuickClaim::Claimed(claims))
}

/// Takes over runs whose worker's lease expired, or fails them, as
/// [`lifecycle::rescue`] decides.
/// Found from the workers whose lease expired, not by checking every running
/// run: a worker's row outlives its running runs (`workers::register`
/// forgets only workers that hold none), so the two are the same runs.
async fn rescue_orphans(
    c: &mut PgConnection,
    p: &mut Pending,
    worker_id: &str,
    limit: u32,
) -> StoreResult<Vec<(Claim, u64, Option<String>)>> {
    let orphans: Vec<(String, i64, i64, i64)> = sqlx::query_as(
        "SELECT runs.id, runs.charged, runs.progressed, runs.max_attempts
         FROM workers JOIN runs ON runs.worker_id = workers.id AND runs.status = 'running'
         WHERE workers.lease_expires_at <= wingman_ms()
         ORDER BY runs.queue_seq LIMIT $1 FOR UPDATE OF runs SKIP LOCKED",
    )
    .bind(limit as i64)
    .fetch_all(&mut *c)
    .await?;
    let mut started = Vec::new();
    for (id, charged, progressed, max_attempts) in orphans {
        let charged = match lifecycle::rescue(charged as u32, progressed != 0, max_attempts as u32) {
            Rescue::Resume { charged } => charged,
            Rescue::GiveUp { charged, reason } => {
                sqlx::query("UPDATE runs SET charged = $2 WHERE id = $1")
                    .bind(&id)
                    .bind(charged as i64)
                    .execute(&mut *c)
                    .await?;
                finish(c, p, &id, &reason).await?;
                continue;
            }
        };
        let row = sqlx::query(
            "UPDATE runs SET worker_id = $1, lease_epoch = lease_epoch + 1, attempt = attempt + 1, charged = $3,
                    progressed = 0, handed_back = 0, updated_at = wingman_ms(), event_seq = event_seq + 1
             WHERE id = $2 RETURNING id, lease_epoch, attempt, charged, event_seq, fleet_run_id",
        )
        .bind(worker_id)
        .bind(&id)
        .bind(charged as i64)
        .fetch_one(&mut *c)
        .await?;
        let (mut claim, seq, fleet_run_id) = claimed(&row, worker_id)?;
        claim.rescued = true;
        started.push((claim, seq, fleet_run_id));
    }
    Ok(started)
}

/// Reads a claimed row: the claim, the number reserved for its
/// `run_started`, and its fleet run.
fn claimed(row: &PgRow, worker_id: &str) -> StoreResult<(Claim, u64, Option<String>)> {
    let claim = Claim {
        lease: Lease {
            run_id: row.text("id")?,
            worker_id: worker_id.to_string(),
            epoch: row.int("lease_epoch")? as u64,
        },
        attempt: row.int("attempt")? as u32,
        charged_attempts: row.int("charged")? as u32,
        rescued: false,
        context: None,
    };
    Ok((claim, row.int("event_seq")? as u64, row.try_get("fleet_run_id")?))
}

/// Puts a run back in the queue, uncharged, if the lease is still held.
pub async fn release(c: &mut PgConnection, p: &mut Pending, lease: &Lease, how: HandBack) -> StoreResult<()> {
    let handed_back = lifecycle::hand_back(how);
    let seq = fence(c, lease, Effect::events(1)).await?;
    p.push(&lease.run_id, seq, std::slice::from_ref(&handed_back.event));
    sqlx::query(
        "UPDATE runs SET status = 'queued', worker_id = NULL, handed_back = COALESCE($2, handed_back),
                updated_at = wingman_ms(), wake_at = $3::bigint,
                held = CASE WHEN $3::bigint IS NULL THEN held ELSE 2 END
         WHERE id = $1",
    )
    .bind(&lease.run_id)
    .bind(handed_back.clean_boundary.map(i64::from))
    .bind(handed_back.wake_at)
    .execute(&mut *c)
    .await?;
    Ok(())
}
