//! Reading what a worker needs to execute a run.

use sqlx::sqlite::SqlitePool;
use sqlx::Row;

use super::rows;
use crate::model::{Agent, Message};
use crate::store::{RunContext, StoreError, StoreResult};

/// Loads a run with its agent snapshot, the session history before it, its
/// checkpoints and what its event log says about an interrupted step.
pub async fn run_context(reads: &SqlitePool, run_id: &str) -> StoreResult<RunContext> {
    let mut conn = reads.acquire().await?;
    let row = sqlx::query(&format!("SELECT {}, agent, work_dir FROM runs WHERE id = ?", rows::RUN_COLUMNS))
        .bind(run_id)
        .fetch_optional(&mut *conn)
        .await?
        .ok_or(StoreError::NotFound("run"))?;
    let run = rows::run(&row)?;
    let agent: Agent = serde_json::from_str(&row.try_get::<String, _>("agent")?)?;
    let work_dir: String = row.try_get("work_dir")?;
    // The history before this run: every message written by runs that ended earlier.
    let history = match &run.session_id {
        Some(session_id) => {
            let found = sqlx::query(
                "SELECT message FROM session_messages WHERE session_id = ? AND (run_id IS NULL OR run_id <> ?)
                 ORDER BY idx",
            )
            .bind(session_id)
            .bind(run_id)
            .fetch_all(&mut *conn)
            .await?;
            found
                .iter()
                .map(|r| Ok(serde_json::from_str::<Message>(&r.try_get::<String, _>(0)?)?))
                .collect::<StoreResult<Vec<_>>>()?
        }
        None => Vec::new(),
    };
    let found = sqlx::query("SELECT step, body FROM checkpoints WHERE run_id = ? ORDER BY step, created_at, call_id")
        .bind(run_id)
        .fetch_all(&mut *conn)
        .await?;
    let checkpoints = found.iter().map(rows::checkpoint).collect::<StoreResult<Vec<_>>>()?;
    let last_step_event = sqlx::query(
        "SELECT type, json_extract(data, '$.step') AS step FROM run_events
         WHERE run_id = ? AND type IN ('step_started', 'step_restarted', 'step_completed')
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(run_id)
    .fetch_optional(&mut *conn)
    .await?;
    let open_step = match last_step_event {
        Some(r) if r.try_get::<String, _>("type")? != "step_completed" => {
            r.try_get::<Option<i64>, _>("step")?.map(|s| s as u32)
        }
        _ => None,
    };
    // The claim that handed the run to this worker wrote one `run_started`;
    // any earlier one means an earlier attempt got there first.
    let resumed: bool =
        sqlx::query_scalar("SELECT COUNT(*) > 1 FROM run_events WHERE run_id = ? AND type = 'run_started'")
            .bind(run_id)
            .fetch_one(&mut *conn)
            .await?;
    // The event just before this attempt's `run_started`: a hand-back means
    // the previous attempt stopped at a step boundary with nothing in flight.
    let handed_back: Option<bool> = sqlx::query_scalar(
        "SELECT type = 'run_handed_back' AND data ->> '$.interrupted' = 0 FROM run_events
         WHERE run_id = ?1 AND seq < (SELECT MAX(seq) FROM run_events WHERE run_id = ?1 AND type = 'run_started')
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(run_id)
    .fetch_optional(&mut *conn)
    .await?;
    let handed_back = handed_back.unwrap_or(false);
    Ok(RunContext { run, agent, work_dir, history, checkpoints, open_step, resumed, handed_back })
}
