//! Ending runs on PostgreSQL: their summaries, `done`, histories and the
//! sessions' turns, for a worker's commits and for ends decided elsewhere
//! (cancel, a run out of attempts, a deleted session).

use std::collections::HashMap;

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

use super::queue::{get_run, get_run_locked};
use super::{children, deliveries, fleet, formations, load, quotas, Pending};
use crate::domain::access::By;
use crate::domain::lifecycle::{self, EndReason, EndedRow, Ending, Stored};
use crate::domain::model::{Message, Run};
use crate::domain::quota::{self, DayUsage};
use crate::store::{rows, StoreError, StoreResult};

/// What the store holds of a run for the rules that summarise it.
pub async fn stored(c: &mut PgConnection, run_id: &str) -> StoreResult<Stored> {
    let input: String =
        sqlx::query_scalar("SELECT input FROM runs WHERE id = $1").bind(run_id).fetch_one(&mut *c).await?;
    Ok(Stored { input: serde_json::from_str(&input)?, checkpoints: load::checkpoints(c, run_id).await? })
}

/// Ends a run outside a worker's commit (cancel, a run out of attempts, a
/// deleted session, a newer message's strategy), for `reason`. The caller
/// holds, or here takes, the run's row lock.
pub async fn finish(c: &mut PgConnection, p: &mut Pending, run_id: &str, reason: &EndReason) -> StoreResult<()> {
    // The `done` number first: the update takes the run's row lock.
    let seq: i64 = sqlx::query_scalar(
        "UPDATE runs SET event_seq = event_seq + 1, updated_at = wingman_ms() WHERE id = $1 RETURNING event_seq",
    )
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    let ending = Ending::of(reason, &stored(c, run_id).await?);
    p.push(run_id, seq as u64, std::slice::from_ref(&ending.done));
    end_runs(c, p, &[(run_id, &ending)]).await
}

/// A run to end, with its end.
pub type Ends<'a> = (&'a str, &'a Ending);

/// The terminal state of runs whose rows the caller has locked: their
/// summaries, their fleet tasks' ends, their messages appended to their
/// sessions' histories, and each session's turn passed on if one of them
/// held it (under the sessions' row locks, which enqueue takes too, taken
/// in ID order).
pub async fn end_runs(c: &mut PgConnection, p: &mut Pending, endings: &[Ends<'_>]) -> StoreResult<()> {
    if endings.is_empty() {
        return Ok(());
    }
    let ended = mark_ended(c, endings).await?;
    // Ends no worker wrote count in the day's shared part.
    let counted: Vec<(&str, DayUsage)> = endings.iter().map(|(run_id, _)| (*run_id, quota::ended())).collect();
    quotas::charge(c, &vec![""; counted.len()], &counted).await?;
    pass_on(c, p, ended, endings).await
}

/// What follows the terminal state of runs already written (as
/// [`mark_ended`] or a worker's fenced update writes it), as
/// [`lifecycle::after_end`] decides for each: its fleet task's end, its
/// history and its session's turn; and the deletion of the checkpoints of
/// those that succeeded ([`Ending::keeps_checkpoints`]).
pub async fn pass_on(
    c: &mut PgConnection,
    p: &mut Pending,
    mut ended: Vec<EndedRowAt>,
    endings: &[Ends<'_>],
) -> StoreResult<()> {
    // Fleet runs' rows are locked in ID order too.
    ended.sort_by(|a, b| a.row.fleet_run_id.cmp(&b.row.fleet_run_id));
    let mut sessions: Vec<&str> = Vec::new();
    let mut histories: Vec<(&str, &str, &[Message])> = Vec::new();
    let mut turns: Vec<(&str, i64)> = Vec::new();
    let mut finished: Vec<&str> = Vec::new();
    // By ID, not by a search per row: a batch ends hundreds of runs.
    let by_id: HashMap<&str, &Ending> = endings.iter().copied().collect();
    for ended in &ended {
        let Some(ending) = by_id.get(ended.row.run_id.as_str()) else { continue };
        if !ending.keeps_checkpoints() {
            finished.push(&ended.row.run_id);
        }
        let after = lifecycle::after_end(&ended.row, ending);
        if let Some(task) = after.task {
            fleet::task_ended(c, p, task).await?;
        }
        if let Some(end) = &after.parent {
            children::ended(c, p, end).await?;
        }
        if let Some(parent) = after.cancels_children {
            children::cancel(c, p, parent).await?;
        }
        if let Some((node, outcome)) = after.node {
            formations::node_ended(c, p, node, outcome).await?;
        }
        if let Some(delivery) = &after.delivery {
            deliveries::insert(c, delivery).await?;
        }
        sessions.extend(ended.row.session_id.as_deref());
        if let Some((session_id, messages)) = after.history {
            histories.push((session_id, &ended.row.run_id, messages));
        }
        if let Some(session_id) = after.passes_turn {
            turns.push((session_id, ended.queue_seq));
        }
    }
    if !finished.is_empty() {
        sqlx::query("DELETE FROM checkpoints WHERE run_id = ANY($1)").bind(&finished).execute(&mut *c).await?;
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
    append_histories(c, endings, &histories).await?;
    pass_turns(c, &turns).await
}

/// What ending a run's row tells about where it belongs, and its place in
/// the queue (where the search for its session's next run starts).
pub struct EndedRowAt {
    pub row: EndedRow,
    queue_seq: i64,
}

impl EndedRowAt {
    /// What an update that ends runs returns for each: [`EndedRowAt::read`] reads it.
    pub const RETURNING: &'static str = "runs.id, runs.queue_seq, runs.session_id, runs.blocked, runs.fleet_run_id,
         runs.task_index, runs.children_open,
         CASE WHEN runs.fleet_run_id IS NOT NULL OR runs.parent_run_id IS NOT NULL OR runs.formation_run_id IS NOT NULL
              THEN runs.input END AS input,
         runs.input::json ->> 'webhook' AS webhook";

    /// Reads the columns of [`EndedRowAt::RETURNING`].
    pub fn read(row: &PgRow) -> StoreResult<EndedRowAt> {
        let input: Option<String> = row.try_get("input")?;
        let input = rows::ended_input(input.as_deref())?;
        let task_index: Option<i64> = row.try_get("task_index")?;
        Ok(EndedRowAt {
            row: EndedRow {
                run_id: row.try_get("id")?,
                session_id: row.try_get("session_id")?,
                blocked: row.try_get::<i64, _>("blocked")? != 0,
                fleet_run_id: row.try_get("fleet_run_id")?,
                task_index: task_index.map(|i| i as u32),
                task_data: input.data,
                parent: input.parent,
                node: input.node,
                children_open: row.try_get::<i64, _>("children_open")? as u32,
                webhook: row.try_get("webhook")?,
            },
            queue_seq: row.try_get("queue_seq")?,
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
    pub fn push(&mut self, ending: Option<&'a Ending>) -> StoreResult<()> {
        let summary = ending.map(|e| &e.summary);
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
async fn mark_ended(c: &mut PgConnection, endings: &[Ends<'_>]) -> StoreResult<Vec<EndedRowAt>> {
    let ids: Vec<&str> = endings.iter().map(|(run_id, _)| *run_id).collect();
    let mut columns = EndColumns::default();
    for (_, ending) in endings {
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
        EndedRowAt::RETURNING
    );
    let rows = columns.bind(sqlx::query(&statement).bind(&ids)).fetch_all(&mut *c).await?;
    rows.iter().map(EndedRowAt::read).collect()
}

/// Appends the ended runs' messages to their sessions' histories, a row per
/// run (migration 9) numbered after each session's last one, in the order
/// of `endings` (so runs of one session in the order they ended).
async fn append_histories(
    c: &mut PgConnection,
    endings: &[Ends<'_>],
    histories: &[(&str, &str, &[Message])],
) -> StoreResult<()> {
    let of_run: HashMap<&str, (&str, &[Message])> =
        histories.iter().map(|&(session_id, run_id, messages)| (run_id, (session_id, messages))).collect();
    let (mut sessions, mut runs, mut texts, mut ords) = (vec![], vec![], vec![], vec![]);
    let mut next: HashMap<&str, i64> = HashMap::new();
    for (run_id, _) in endings {
        let Some(&(session_id, messages)) = of_run.get(run_id) else { continue };
        let ord = next.entry(session_id).or_insert(0);
        *ord += 1;
        sessions.push(session_id);
        runs.push(*run_id);
        texts.push(serde_json::to_string(messages)?);
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

/// Cancels a run that has not ended; the rules refuse an ended one.
pub async fn cancel(c: &mut PgConnection, p: &mut Pending, id: &str, by: &By) -> StoreResult<Run> {
    // A sub-agent's end writes into its parent, which is locked first.
    children::lock_with_parents(c, &[id]).await?;
    let run = get_run_locked(c, id).await?;
    finish(c, p, id, &lifecycle::cancel(&run, by)?).await?;
    get_run(c, id).await?.ok_or(StoreError::NotFound("run"))
}
