//! Ending runs on PostgreSQL: their summaries, `done`, histories and the
//! sessions' turns, for a worker's commits and for ends decided elsewhere
//! (cancel, a run out of attempts, a deleted session).

use std::collections::HashMap;

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

use super::queue::{get_run, get_run_locked};
use super::{fleet, load, Pending};
use crate::checkpoint::{summarize, Checkpoint, RunSummary};
use crate::event::RunEvent;
use crate::model::{Run, RunInput, RunStatus};
use crate::store::task_end::EndedTask;
use crate::store::{StoreError, StoreResult};

/// Summarises a run from its stored checkpoints plus `pending` ones not yet written.
pub async fn summary_from_store(
    c: &mut PgConnection,
    run_id: &str,
    status: RunStatus,
    pending: &[Checkpoint],
) -> StoreResult<RunSummary> {
    let input: String =
        sqlx::query_scalar("SELECT input FROM runs WHERE id = $1").bind(run_id).fetch_one(&mut *c).await?;
    let input: RunInput = serde_json::from_str(&input)?;
    let mut checkpoints = load::checkpoints(c, run_id).await?;
    checkpoints.extend(pending.iter().cloned());
    Ok(summarize(&input, &checkpoints, status))
}

/// Ends a run outside a worker's commit (cancel, a run out of attempts, a
/// deleted session). The caller holds, or here takes, the run's row lock.
pub async fn finish(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
) -> StoreResult<()> {
    let seq = reserve_done(c, run_id).await?;
    let summary = summary_from_store(c, run_id, status, &[]).await?;
    end_with(c, p, run_id, seq, status, error, summary).await
}

/// Takes the run's row lock and the number of its `done`.
async fn reserve_done(c: &mut PgConnection, run_id: &str) -> StoreResult<u64> {
    let seq: i64 = sqlx::query_scalar(
        "UPDATE runs SET event_seq = event_seq + 1, updated_at = wingman_ms() WHERE id = $1 RETURNING event_seq",
    )
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    Ok(seq as u64)
}

/// Ends a run as [`finish`] does, with the summary given (a rolled-back
/// run's leaves nothing in the history).
pub async fn finish_with(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    status: RunStatus,
    error: Option<String>,
    summary: RunSummary,
) -> StoreResult<()> {
    let seq = reserve_done(c, run_id).await?;
    end_with(c, p, run_id, seq, status, error, summary).await
}

async fn end_with(
    c: &mut PgConnection,
    p: &mut Pending,
    run_id: &str,
    seq: u64,
    status: RunStatus,
    error: Option<String>,
    summary: RunSummary,
) -> StoreResult<()> {
    p.push(run_id, seq, &[RunEvent::done(status, error.clone(), &summary)]);
    end_runs(c, p, &[Ending { run_id, status, error: &error, summary: &summary }]).await
}

/// A run to end, with what its end records.
pub struct Ending<'a> {
    pub run_id: &'a str,
    pub status: RunStatus,
    pub error: &'a Option<String>,
    pub summary: &'a RunSummary,
}

/// The terminal state of runs whose rows the caller has locked: their
/// summaries, their fleet tasks' ends, their messages appended to their
/// sessions' histories, and each session's turn passed on if one of them
/// held it (under the sessions' row locks, which enqueue takes too, taken
/// in ID order).
pub async fn end_runs(c: &mut PgConnection, p: &mut Pending, endings: &[Ending<'_>]) -> StoreResult<()> {
    if endings.is_empty() {
        return Ok(());
    }
    let ended = mark_ended(c, endings).await?;
    pass_on(c, p, ended, endings).await
}

/// What follows the terminal state of runs already written (as
/// [`mark_ended`] or a worker's fenced update writes it): their fleet tasks'
/// ends, histories and sessions' turns, as [`end_runs`] says.
pub async fn pass_on(
    c: &mut PgConnection,
    p: &mut Pending,
    mut ended: Vec<EndedRow>,
    endings: &[Ending<'_>],
) -> StoreResult<()> {
    // Fleet runs' rows are locked in ID order too.
    ended.sort_by(|a, b| a.fleet_run_id.cmp(&b.fleet_run_id));
    let mut sessions: Vec<&str> = Vec::new();
    let mut turns: Vec<(&str, i64)> = Vec::new();
    // By ID, not by a search per row: a batch ends hundreds of runs.
    let by_id: HashMap<&str, &Ending> = endings.iter().map(|e| (e.run_id, e)).collect();
    for (row, ending) in ended.iter().filter_map(|row| Some((row, *by_id.get(row.id.as_str())?))) {
        if let (Some(fleet_run_id), Some(task_index)) = (&row.fleet_run_id, row.task_index) {
            let task = EndedTask {
                run_id: &row.id,
                session_id: row.session_id.as_deref(),
                fleet_run_id,
                task_index: task_index as u32,
                blocked: row.blocked != 0,
                input: &row.input,
                status: ending.status,
                error: ending.error,
                summary: ending.summary,
            };
            fleet::task_ended(c, p, task).await?;
        }
        if let Some(session_id) = row.session_id.as_deref() {
            sessions.push(session_id);
            // A task is the first run of its own session, so it always holds
            // the session's turn: its `blocked` is about its fleet's slots.
            if row.blocked == 0 || row.fleet_run_id.is_some() {
                turns.push((session_id, row.queue_seq));
            }
        }
    }
    sessions.sort_unstable();
    sessions.dedup();
    if sessions.is_empty() {
        return Ok(());
    }
    sqlx::query("SELECT 1 FROM sessions WHERE id = ANY($1) ORDER BY id FOR UPDATE")
        .bind(&sessions)
        .execute(&mut *c)
        .await?;
    append_histories(c, &ended, endings).await?;
    pass_turns(c, &turns).await
}

/// What ending a run's row tells about where it belongs.
pub struct EndedRow {
    id: String,
    queue_seq: i64,
    session_id: Option<String>,
    blocked: i64,
    fleet_run_id: Option<String>,
    task_index: Option<i64>,
    input: String,
}

impl EndedRow {
    /// What an update that ends runs returns for each: [`EndedRow::read`] reads it.
    pub const RETURNING: &'static str =
        "runs.id, runs.queue_seq, runs.session_id, runs.blocked, runs.fleet_run_id, runs.task_index, runs.input";

    /// Reads the columns of [`EndedRow::RETURNING`].
    pub fn read(row: &PgRow) -> StoreResult<EndedRow> {
        Ok(EndedRow {
            id: row.try_get("id")?,
            queue_seq: row.try_get("queue_seq")?,
            session_id: row.try_get("session_id")?,
            blocked: row.try_get("blocked")?,
            fleet_run_id: row.try_get("fleet_run_id")?,
            task_index: row.try_get("task_index")?,
            input: row.try_get("input")?,
        })
    }
}

/// The columns an end writes, one array per column with an entry per run
/// (`None` where a run of the batch does not end), bound by [`EndColumns::bind`].
#[derive(Default)]
pub struct EndColumns<'a> {
    pub statuses: Vec<Option<&'a str>>,
    pub responses: Vec<Option<&'a str>>,
    pub usages: Vec<Option<String>>,
    pub steps: Vec<Option<i64>>,
    pub calls: Vec<Option<String>>,
    pub errors: Vec<Option<&'a str>>,
}

impl<'a> EndColumns<'a> {
    /// Adds a run's entry: its end, or none.
    pub fn push(&mut self, ending: Option<&Ending<'a>>) -> StoreResult<()> {
        let summary = ending.map(|e| e.summary);
        self.statuses.push(ending.map(|e| e.status.as_str()));
        self.responses.push(summary.and_then(|s| s.response.as_deref()));
        self.usages.push(summary.map(|s| serde_json::to_string(&s.usage)).transpose()?);
        self.steps.push(summary.map(|s| s.steps as i64));
        self.calls.push(summary.map(|s| serde_json::to_string(&s.tool_calls)).transpose()?);
        self.errors.push(ending.and_then(|e| e.error.as_deref()));
        Ok(())
    }

    /// Binds the six arrays, in their order, as a statement's next parameters.
    pub fn bind<'q>(&'q self, query: PgQuery<'q>) -> PgQuery<'q> {
        query
            .bind(&self.statuses)
            .bind(&self.responses)
            .bind(&self.usages)
            .bind(&self.steps)
            .bind(&self.calls)
            .bind(&self.errors)
    }
}

/// A statement being given its parameters.
type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// Sets the runs' terminal state and summary, in one statement.
async fn mark_ended(c: &mut PgConnection, endings: &[Ending<'_>]) -> StoreResult<Vec<EndedRow>> {
    let ids: Vec<&str> = endings.iter().map(|e| e.run_id).collect();
    let mut columns = EndColumns::default();
    for ending in endings {
        columns.push(Some(ending))?;
    }
    let statement = format!(
        "UPDATE runs SET status = u.status, response = u.response, usage = u.usage, steps = u.steps,
                tool_calls = u.calls, error = u.error, finished_at = wingman_ms(), updated_at = wingman_ms(),
                worker_id = NULL
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[])
              AS u(id, status, response, usage, steps, calls, error)
         WHERE runs.id = u.id
         RETURNING {}",
        EndedRow::RETURNING
    );
    let rows = columns.bind(sqlx::query(&statement).bind(&ids)).fetch_all(&mut *c).await?;
    rows.iter().map(EndedRow::read).collect()
}

/// Appends the ended runs' messages to their sessions' histories, a row per
/// run (migration 9) numbered after each session's last one (runs of one
/// session in the order given).
async fn append_histories(c: &mut PgConnection, ended: &[EndedRow], endings: &[Ending<'_>]) -> StoreResult<()> {
    let (mut sessions, mut runs, mut texts, mut ords) = (vec![], vec![], vec![], vec![]);
    let mut next: HashMap<&str, i64> = HashMap::new();
    let session_of: HashMap<&str, &str> =
        ended.iter().filter_map(|r| Some((r.id.as_str(), r.session_id.as_deref()?))).collect();
    for ending in endings {
        let Some(&session_id) = session_of.get(ending.run_id) else { continue };
        if ending.summary.history.is_empty() {
            continue;
        }
        let ord = next.entry(session_id).or_insert(0);
        *ord += 1;
        sessions.push(session_id);
        runs.push(ending.run_id);
        texts.push(serde_json::to_string(&ending.summary.history)?);
        ords.push(*ord);
    }
    if texts.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO session_messages (session_id, idx, run_id, messages, created_at)
         SELECT s, (SELECT COALESCE(MAX(idx), 0) FROM session_messages WHERE session_id = s) + o, r, m, wingman_ms()
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::bigint[]) AS u(s, r, m, o)",
    )
    .bind(&sessions)
    .bind(&runs)
    .bind(&texts)
    .bind(&ords)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Unblocks the next queued run of each session whose turn was released,
/// given with the queue position of the run that held it. A session's runs
/// take its turn in queue order, so every run still waiting for it was
/// queued after the one that held it: the search starts there, and skips
/// the index entries of the session's earlier runs, which every change of
/// their rows left behind until a vacuum and which each search read. The
/// positions found are gathered into an array first: as `IN (subquery)`,
/// the plan ran each session's search twice.
async fn pass_turns(c: &mut PgConnection, turns: &[(&str, i64)]) -> StoreResult<()> {
    if turns.is_empty() {
        return Ok(());
    }
    let (sessions, after): (Vec<&str>, Vec<i64>) = turns.iter().copied().unzip();
    sqlx::query(
        "UPDATE runs SET blocked = 0 WHERE queue_seq = ANY(ARRAY(
           SELECT (SELECT queue_seq FROM runs
                   WHERE session_id = s.id AND queue_seq > s.after AND status = 'queued' AND blocked = 1
                   ORDER BY queue_seq LIMIT 1)
           FROM UNNEST($1::text[], $2::bigint[]) AS s(id, after)))",
    )
    .bind(&sessions)
    .bind(&after)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Cancels a run that has not ended; a finished one is a conflict.
pub async fn cancel(c: &mut PgConnection, p: &mut Pending, id: &str) -> StoreResult<Run> {
    let run = get_run_locked(c, id).await?;
    if run.status.is_terminal() {
        return Err(StoreError::Conflict(format!("run {id} is already {}", run.status.as_str())));
    }
    finish(c, p, id, RunStatus::Cancelled, Some("cancelled".into())).await?;
    get_run(c, id).await?.ok_or(StoreError::NotFound("run"))
}
