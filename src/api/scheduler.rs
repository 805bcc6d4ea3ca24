//! The scheduler: a task of every `wingman serve` that fires schedules'
//! ticks. A tick submits its target as a client would, through the same
//! checks, with an idempotency key made of the schedule and the tick's
//! time, so that the servers that fire one tick at once make one run (fleet
//! run, formation run) of it; the schedule then moves on from the tick it
//! read, once ([`crate::store::Store::record_tick`]).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::error::ApiResult;
use super::runs::KeyFrom;
use super::AppState;
use crate::model::timestamp;
use crate::schedule::{self, Schedule, Target, Tick};
use crate::store::StoreResult;

/// The longest sleep between two looks at the schedules: a schedule made or
/// resumed by another server is seen within it.
const POLL: Duration = Duration::from_secs(1);

/// Schedules fired in one pass at most; more wait for the next, at once.
const BATCH: u32 = 100;

/// Fires due ticks until `shutdown`.
pub async fn run(state: AppState, shutdown: CancellationToken) {
    loop {
        let wait = match pass(&state).await {
            Ok(wait) => wait,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the schedules");
                POLL
            }
        };
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Fires what is due; answers how long to sleep before the next look.
async fn pass(state: &AppState) -> StoreResult<Duration> {
    let due = state.store.due_schedules(Utc::now(), BATCH).await?;
    let full = due.len() as u32 == BATCH;
    for schedule in due {
        fire(state, &schedule).await?;
    }
    if full {
        return Ok(Duration::ZERO);
    }
    Ok(match state.store.next_schedule_due().await? {
        Some(due) => (due - Utc::now()).to_std().unwrap_or_default().min(POLL),
        None => POLL,
    })
}

/// Fires the tick of `schedule` due now, if it still is.
async fn fire(state: &AppState, schedule: &Schedule) -> StoreResult<()> {
    let Some(expected) = schedule.next_tick_at else { return Ok(()) };
    let when = match schedule.when() {
        Ok(when) => when,
        Err(e) => {
            tracing::warn!(schedule = %schedule.id, error = %e, "a stored schedule does not parse");
            return Ok(());
        }
    };
    let Some((tick_at, following)) = schedule::due(&when, expected, Utc::now()) else { return Ok(()) };
    let previous_open = previous_open(state, &schedule.id).await?;
    let tick = if schedule::fires(schedule.overlap, previous_open) {
        match submit(state, schedule, tick_at).await {
            Ok((kind, id)) => Tick { tick_at, kind: Some(kind.into()), id: Some(id), skipped: None },
            Err(e) => {
                tracing::warn!(schedule = %schedule.id, error = %e, "a schedule's tick could not submit");
                Tick { tick_at, kind: None, id: None, skipped: Some(e.to_string()) }
            }
        }
    } else {
        let why = "the previous tick's work has not ended (overlap: skip)";
        Tick { tick_at, kind: None, id: None, skipped: Some(why.into()) }
    };
    state.store.record_tick(&schedule.id, expected, &tick, following).await?;
    Ok(())
}

/// Whether what the schedule's last submission made has not ended.
async fn previous_open(state: &AppState, schedule_id: &str) -> StoreResult<bool> {
    let newest = state.store.last_submission(schedule_id).await?;
    let Some(Tick { kind: Some(kind), id: Some(id), .. }) = newest else { return Ok(false) };
    Ok(match kind.as_str() {
        "run" => state.store.get_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
        "fleet_run" => state.store.get_fleet_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
        _ => state.store.get_formation_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
    })
}

/// Submits the schedule's target for the tick at `tick_at`: its kind and ID.
async fn submit(state: &AppState, schedule: &Schedule, tick_at: DateTime<Utc>) -> ApiResult<(&'static str, String)> {
    let tick = timestamp::format(&tick_at);
    let keyed = KeyFrom::Tick { schedule_id: &schedule.id, tick: &tick };
    let body_error = |e: serde_json::Error| super::error::ApiError::BadRequest(format!("the target: {e}"));
    match &schedule.target {
        Target::Message { session_id, agent_id, message } => {
            let body = serde_json::from_value(json!({"message": message, "agent_id": agent_id})).map_err(body_error)?;
            let enqueued = super::messages::enqueue(state, session_id, keyed, body).await?;
            Ok(("run", enqueued.run.id))
        }
        Target::Fleet { fleet_id, tasks } => {
            let body = serde_json::from_value(json!({ "tasks": tasks })).map_err(body_error)?;
            let enqueued = super::fleet_runs::enqueue(state, fleet_id, keyed, body).await?;
            Ok(("fleet_run", enqueued.fleet_run.id))
        }
        Target::Formation { formation_id, input } => {
            let body = serde_json::from_value(json!({ "input": input })).map_err(body_error)?;
            let enqueued = super::formations::enqueue(state, formation_id, keyed, body).await?;
            Ok(("formation_run", enqueued.formation_run.id))
        }
    }
}
