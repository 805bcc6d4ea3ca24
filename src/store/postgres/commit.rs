//! Workers' commits on PostgreSQL, many runs in one transaction: a
//! statement per kind of row (the fence, checkpoints, ends, histories,
//! sessions' shell states) for the whole batch rather than per run, so a
//! batch costs about the round trips and the WAL flush of one commit. A
//! single commit is a batch of one.

use std::collections::HashMap;

use sqlx::{PgConnection, Row};

use super::progress::{self, pass_on, EndColumns, EndedRowAt, Ends};
use super::{children, people, quotas, Pending};
use crate::domain::checkpoint::Checkpoint;
use crate::domain::lifecycle::{self, Commit, Completion, Effect, Ending, Lease, Refusal};
use crate::domain::quota;
use crate::store::rows;
use crate::store::{Committed, StoreError, StoreResult};

/// One run's fenced write: its lease and what it changes.
pub struct Fenced<'a> {
    pub lease: &'a Lease,
    pub effect: Effect,
    /// The inbox items the write takes in.
    pub delivered: &'a [u64],
    /// The run's end, when the write ends it: the fence's update writes it
    /// too, so that a run's last commit makes one new version of its row.
    pub ending: Option<&'a Ending>,
}

/// What the fence tells of a run whose lease held.
pub struct Passed {
    /// The first event number reserved.
    pub first: u64,
    /// The newest inbox item the write does not take in ([`lifecycle::inbox_newest`]).
    pub inbox_newest: Option<u64>,
    /// The run's row as its end left it, when the write ended it.
    pub ended: Option<EndedRowAt>,
}

/// Reserves event numbers for each run whose lease is still held, and
/// records the resume facts its write changes and the terminal state of a
/// run it ends; returns, for each run that passed, what [`Passed`] says (a
/// run missing from the map is fenced).
/// Each run may appear once. Several runs' rows must be locked already, in
/// queue order ([`lock_runs`]).
///
/// The worker is compared with `IS NOT DISTINCT FROM` (`worker_id` is never
/// null on a running run) so that the planner reaches each row by its ID: an
/// equality would let it go from the workers' table into `runs_running`, and
/// with statistics that lag a young table's growth it did, reading all of a
/// worker's running runs for each run in the batch.
pub async fn fence_many(c: &mut PgConnection, writes: &[Fenced<'_>]) -> StoreResult<HashMap<String, Passed>> {
    let ids: Vec<&str> = writes.iter().map(|w| w.lease.run_id.as_str()).collect();
    let epochs: Vec<i64> = writes.iter().map(|w| w.lease.epoch as i64).collect();
    let workers: Vec<&str> = writes.iter().map(|w| w.lease.worker_id.as_str()).collect();
    let counts: Vec<i64> = writes.iter().map(|w| w.effect.events as i64).collect();
    let progressed: Vec<bool> = writes.iter().map(|w| w.effect.progressed).collect();
    let moves: Vec<bool> = writes.iter().map(|w| w.effect.open_step.is_some()).collect();
    let open: Vec<Option<i64>> = writes.iter().map(|w| w.effect.open_step.flatten().map(i64::from)).collect();
    let mut ends = EndColumns::default();
    for write in writes {
        ends.push(write.ending)?;
    }
    let statement = format!(
        "UPDATE runs SET event_seq = runs.event_seq + u.n, updated_at = wingman_ms(),
                progressed = CASE WHEN u.progressed THEN 1 ELSE runs.progressed END,
                open_step = CASE WHEN u.moves THEN u.open_step ELSE runs.open_step END,
                status = COALESCE(u.status, runs.status),
                response = CASE WHEN u.status IS NULL THEN runs.response ELSE u.response END,
                usage = CASE WHEN u.status IS NULL THEN runs.usage ELSE u.usage END,
                steps = CASE WHEN u.status IS NULL THEN runs.steps ELSE u.steps END,
                tool_calls = CASE WHEN u.status IS NULL THEN runs.tool_calls ELSE u.calls END,
                error = CASE WHEN u.status IS NULL THEN runs.error ELSE u.error END,
                finished_at = CASE WHEN u.status IS NULL THEN runs.finished_at ELSE wingman_ms() END,
                worker_id = CASE WHEN u.status IS NULL THEN runs.worker_id END
         FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bool[], $6::bool[], $7::bigint[],
                     $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::text[])
              AS u(id, epoch, worker, n, progressed, moves, open_step,
                   status, response, usage, steps, calls, error)
         WHERE runs.id = u.id AND runs.status = 'running' AND runs.lease_epoch = u.epoch
           AND runs.worker_id IS NOT DISTINCT FROM u.worker
           AND EXISTS (SELECT 1 FROM workers w WHERE w.id = u.worker AND w.lease_expires_at > wingman_ms())
         RETURNING {}, runs.event_seq, u.status IS NOT NULL AS ended,
           ARRAY(SELECT i.seq FROM run_inbox i WHERE i.run_id = runs.id) AS inbox",
        EndedRowAt::RETURNING
    );
    let reserved = sqlx::query(&statement)
        .bind(&ids)
        .bind(&epochs)
        .bind(&workers)
        .bind(&counts)
        .bind(&progressed)
        .bind(&moves)
        .bind(&open);
    let reserved = ends.bind(reserved).fetch_all(&mut *c).await?;
    let by_id: HashMap<&str, &Fenced> = writes.iter().map(|w| (w.lease.run_id.as_str(), w)).collect();
    let mut passed = HashMap::with_capacity(reserved.len());
    for row in &reserved {
        let id: String = row.try_get("id")?;
        let write = by_id[id.as_str()];
        let last: i64 = row.try_get("event_seq")?;
        let inbox: Vec<u64> = row.try_get::<Vec<i64>, _>("inbox")?.into_iter().map(|n| n as u64).collect();
        let ended = if row.try_get("ended")? { Some(EndedRowAt::read(row)?) } else { None };
        let first = last as u64 + 1 - write.effect.events;
        let inbox_newest = lifecycle::inbox_newest(write.delivered, &inbox);
        passed.insert(id, Passed { first, inbox_newest, ended });
    }
    Ok(passed)
}

/// The first statement of a single fenced write (see [`fence_many`]).
pub async fn fence(c: &mut PgConnection, lease: &Lease, effect: Effect) -> StoreResult<u64> {
    let passed = fence_many(c, &[Fenced { lease, effect, delivered: &[], ending: None }]).await?;
    passed.get(&lease.run_id).map(|p| p.first).ok_or(StoreError::Fenced)
}

/// Locks runs' rows in queue order, the order every transaction that locks
/// several runs takes.
async fn lock_runs(c: &mut PgConnection, ids: &[&str]) -> StoreResult<()> {
    sqlx::query("SELECT 1 FROM runs WHERE id = ANY($1) ORDER BY queue_seq FOR UPDATE")
        .bind(ids)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// A commit and what the rules make of it ([`lifecycle::complete`]).
struct Prepared<'a> {
    lease: &'a Lease,
    commit: &'a Commit,
    done: Completion,
}

/// Writes each commit under its lease, in the caller's transaction: per
/// write, what it saw, or [`StoreError::Fenced`] or the rules' refusal
/// (either of which changed nothing). An `Err` is the transaction's as a
/// whole. Each run may appear once.
pub async fn commit_many(
    c: &mut PgConnection,
    p: &mut Pending,
    writes: &[(&Lease, &Commit)],
) -> StoreResult<Vec<StoreResult<Committed>>> {
    let mut prepared = Vec::with_capacity(writes.len());
    for &(lease, commit) in writes {
        let stored = if commit.needs_stored() { Some(progress::stored(c, &lease.run_id).await?) } else { None };
        prepared.push(Prepared { lease, commit, done: lifecycle::complete(commit, stored) });
    }
    let mut refused = refusals(c, &prepared).await?;
    let fenced: Vec<Fenced> = prepared
        .iter()
        .filter(|w| !refused.contains_key(&w.lease.run_id))
        .map(|w| Fenced {
            lease: w.lease,
            effect: w.done.effect,
            delivered: &w.commit.delivered,
            ending: w.done.ending.as_ref(),
        })
        .collect();
    let mut firsts = fence_many(c, &fenced).await?;
    let passed: Vec<&Prepared> = prepared.iter().filter(|w| firsts.contains_key(&w.lease.run_id)).collect();
    let checkpoints: Vec<(&str, &Checkpoint)> = passed
        .iter()
        .filter(|w| w.done.writes_checkpoints())
        .flat_map(|w| w.commit.checkpoints.iter().map(|cp| (w.lease.run_id.as_str(), cp)))
        .collect();
    insert_checkpoints(c, checkpoints).await?;
    charge(c, &passed).await?;
    for w in &passed {
        p.push(&w.lease.run_id, firsts[&w.lease.run_id].first, &w.done.events);
    }
    // The runs the fence ended: their fleet tasks, histories and turns.
    let ended: Vec<EndedRowAt> = firsts.values_mut().filter_map(|passed| passed.ended.take()).collect();
    let endings: Vec<Ends> = fenced.iter().filter_map(|f| Some((f.lease.run_id.as_str(), f.ending?))).collect();
    pass_on(c, p, ended, &endings).await?;
    keep_shells(c, &passed).await?;
    for w in &passed {
        children::start(c, p, &w.lease.run_id, &w.commit.children).await?;
    }
    let parks = |for_children: bool| -> Vec<&str> {
        let parked = passed.iter().filter(|w| w.commit.wait && w.commit.awaits_children == for_children);
        parked.map(|w| w.lease.run_id.as_str()).collect()
    };
    people::wait(c, &parks(false)).await?;
    children::park(c, p, &parks(true)).await?;
    let delivered = passed.iter().map(|w| (w.lease.run_id.as_str(), w.commit.delivered.as_slice()));
    people::take_delivered(c, delivered).await?;
    Ok(prepared
        .iter()
        .map(|w| match firsts.get(&w.lease.run_id) {
            Some(passed) => Ok(Committed { inbox_newest: passed.inbox_newest }),
            None => Err(refused.remove(&w.lease.run_id).map_or(StoreError::Fenced, StoreError::from)),
        })
        .collect())
}

/// Adds what each passed write used, and one run for each it ended, to
/// its run's owner's day, in the part its worker keeps.
async fn charge(c: &mut PgConnection, passed: &[&Prepared<'_>]) -> StoreResult<()> {
    let (mut parts, mut charged) = (Vec::new(), Vec::new());
    for w in passed {
        if let Some(used) = quota::charged(&w.commit.checkpoints, w.done.ending.is_some()) {
            parts.push(w.lease.worker_id.as_str());
            charged.push((w.lease.run_id.as_str(), used));
        }
    }
    quotas::charge(c, &parts, &charged).await
}

/// Stores the shell states the batch's sessions keep from now on, after
/// the runs' rows and their ends, in the order every transaction locks rows.
/// A session has one run at a time, so no two batches write one session.
async fn keep_shells(c: &mut PgConnection, passed: &[&Prepared<'_>]) -> StoreResult<()> {
    let (mut runs, mut shells) = (Vec::new(), Vec::new());
    for w in passed {
        if let Some(state) = &w.commit.shell {
            runs.push(w.lease.run_id.as_str());
            shells.push(rows::shell_text(state)?);
        }
    }
    if runs.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE sessions SET shell = u.shell
         FROM UNNEST($1::text[], $2::text[]) AS u(run_id, shell) JOIN runs r ON r.id = u.run_id
         WHERE sessions.id = r.session_id",
    )
    .bind(&runs)
    .bind(&shells)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// The writes the rules refuse ([`lifecycle::admit`]): those that would end
/// or park their run while its inbox holds something they did not take in.
/// The batch's rows are locked first, as a steer locks a run's row before it
/// adds to the inbox, so no item can arrive unseen before the commit.
async fn refusals(c: &mut PgConnection, writes: &[Prepared<'_>]) -> StoreResult<HashMap<String, Refusal>> {
    let stopping: Vec<&Prepared> = writes.iter().filter(|w| w.commit.stops()).collect();
    let ids: Vec<&str> = writes.iter().map(|w| w.lease.run_id.as_str()).collect();
    if stopping.iter().any(|w| w.commit.finish.is_some()) {
        // A run that ends may be a sub-agent's, whose end writes into its parent.
        children::lock_with_parents(c, &ids).await?;
    } else if writes.len() > 1 || !stopping.is_empty() {
        lock_runs(c, &ids).await?;
    }
    if stopping.is_empty() {
        return Ok(HashMap::new());
    }
    let runs: Vec<&str> = stopping.iter().map(|w| w.lease.run_id.as_str()).collect();
    let items: Vec<(String, i64)> = sqlx::query_as("SELECT run_id, seq FROM run_inbox WHERE run_id = ANY($1)")
        .bind(&runs)
        .fetch_all(&mut *c)
        .await?;
    let mut inboxes: HashMap<&str, Vec<u64>> = HashMap::new();
    for (run_id, seq) in &items {
        inboxes.entry(run_id.as_str()).or_default().push(*seq as u64);
    }
    let mut refused = HashMap::new();
    for w in stopping {
        let inbox = inboxes.get(w.lease.run_id.as_str()).map_or(&[][..], Vec::as_slice);
        if let Err(refusal) = lifecycle::admit(w.commit, inbox) {
            refused.insert(w.lease.run_id.clone(), refusal);
        }
    }
    Ok(refused)
}

/// Inserts checkpoints of any runs, (run ID, checkpoint), in one statement.
pub async fn insert_checkpoints(c: &mut PgConnection, all: Vec<(&str, &Checkpoint)>) -> StoreResult<()> {
    let (mut runs, mut steps, mut kinds, mut call_ids, mut bodies) = (vec![], vec![], vec![], vec![], vec![]);
    for (run_id, checkpoint) in all {
        runs.push(run_id);
        steps.push(checkpoint.step as i64);
        kinds.push(checkpoint.kind());
        call_ids.push(checkpoint.call_id());
        bodies.push(serde_json::to_string(&checkpoint.body)?);
    }
    if runs.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO checkpoints (run_id, step, kind, call_id, body, created_at)
         SELECT r, s, k, i, b, wingman_ms()
         FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(r, s, k, i, b)",
    )
    .bind(&runs)
    .bind(&steps)
    .bind(&kinds)
    .bind(&call_ids)
    .bind(&bodies)
    .execute(&mut *c)
    .await?;
    Ok(())
}
