//! The scheduler: a service of every `wingman serve` that fires schedules'
//! ticks. A tick submits its target through the one door
//! ([`crate::submit`]), with an idempotency key made of the schedule and
//! the tick it is due to move on from (its stored `next_tick_at`), so that
//! the servers that fire one tick at once make one run (fleet run,
//! formation run) of it; the schedule then moves on from the tick it read,
//! once ([`crate::store::Store::record_tick`]). The key is the stored tick
//! and not the one fired: a schedule behind by several ticks fires only the
//! latest, which depends on when it is looked at, and two looks at one
//! stored tick (two servers, or one before an outage and one after) must
//! still make one run.
//!
//! A submission the door refuses for good (a deleted session, a refused
//! input) is recorded as a skipped tick with the reason. One that meets a
//! database that cannot take it now ends the pass with the error, records
//! nothing, and leaves the schedule due: the supervisor starts the
//! scheduler again, and the same tick is submitted again under the same
//! key, so it runs once. A stored schedule whose rule no longer parses is
//! paused with the reason, so that no server keeps finding it due.
//!
//! Times are compared by the database's clock, which every server shares.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::ServiceResult;
use crate::domain::model::timestamp;
use crate::domain::schedule::{self, Schedule, Target, Tick};
use crate::store::{Store, StoreError, StoreResult};
use crate::submit::{Door, Envelope, FleetRunSubmission, FormationRunSubmission, MessageSubmission, SubmitError, Task};

/// The longest sleep between two looks at the schedules: a schedule made or
/// resumed by another server is seen within it.
const POLL: Duration = Duration::from_secs(1);

/// Schedules fired in one pass at most; more wait for the next, at once.
const BATCH: u32 = 100;

/// Fires due ticks until `shutdown`.
pub async fn run(store: Arc<dyn Store>, door: Door, shutdown: CancellationToken) -> ServiceResult {
    loop {
        let wait = pass(&store, &door).await?;
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Fires what is due; answers how long to sleep before the next look.
async fn pass(store: &Arc<dyn Store>, door: &Door) -> anyhow::Result<Duration> {
    let now = store.now().await.context("reading the database's clock")?;
    let due = store.due_schedules(now, BATCH).await.context("reading the due schedules")?;
    let full = due.len() as u32 == BATCH;
    for schedule in due {
        fire(store, door, &schedule, now).await?;
    }
    if full {
        return Ok(Duration::ZERO);
    }
    Ok(match store.next_schedule_due().await? {
        Some(due) => (due - now).to_std().unwrap_or_default().min(POLL),
        None => POLL,
    })
}

/// Fires the tick of `schedule` due at `now`, if it still is: the
/// scheduler's single step, public so that tests can fire a schedule as two
/// servers would, from one read of it at two moments.
pub async fn fire(store: &Arc<dyn Store>, door: &Door, schedule: &Schedule, now: DateTime<Utc>) -> anyhow::Result<()> {
    let Some(expected) = schedule.next_tick_at else { return Ok(()) };
    let when = match schedule.when() {
        Ok(when) => when,
        Err(e) => return pause_broken(store, schedule, &e, now).await,
    };
    let Some((tick_at, following)) = schedule::due(&when, expected, now) else { return Ok(()) };
    let tick = if schedule::fires(schedule.overlap, previous_open(store, &schedule.id).await?) {
        match submit(door, schedule, expected).await {
            Ok((kind, id)) => Tick { tick_at, kind: Some(kind.into()), id: Some(id), skipped: None },
            Err(e) if e.retryable() => {
                return Err(e).with_context(|| format!("schedule {}'s tick of {}", schedule.id, fmt(tick_at)))
            }
            Err(e) => {
                tracing::warn!(schedule = %schedule.id, error = %e, "a schedule's tick was refused");
                Tick { tick_at, kind: None, id: None, skipped: Some(e.to_string()) }
            }
        }
    } else {
        let why = "the previous tick's work has not ended (overlap: skip)";
        Tick { tick_at, kind: None, id: None, skipped: Some(why.into()) }
    };
    store.record_tick(&schedule.id, expected, &tick, following).await?;
    Ok(())
}

fn fmt(at: DateTime<Utc>) -> String {
    timestamp::format(&at)
}

/// Pauses a schedule whose stored rule no longer parses (written by an
/// older or newer version, say), saying why, unless it changed since it
/// was read.
async fn pause_broken(
    store: &Arc<dyn Store>,
    schedule: &Schedule,
    error: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let reason = format!("its stored rule no longer parses ({error}): replace it (PUT), then resume it");
    let mut paused = schedule.clone();
    (paused.paused, paused.paused_reason, paused.next_tick_at, paused.updated_at) = (true, Some(reason), None, now);
    paused.version += 1;
    // Over the version read only: a schedule replaced or deleted meanwhile
    // is left as its client made it.
    match store.update_schedule(&paused).await {
        Ok(()) => {
            tracing::warn!(schedule = %schedule.id, reason = paused.paused_reason.as_deref(), "paused a schedule")
        }
        Err(StoreError::Stale { .. } | StoreError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// Whether what the schedule's last submission made has not ended.
async fn previous_open(store: &Arc<dyn Store>, schedule_id: &str) -> StoreResult<bool> {
    let newest = store.last_submission(schedule_id).await?;
    let Some(Tick { kind: Some(kind), id: Some(id), .. }) = newest else { return Ok(false) };
    Ok(match kind.as_str() {
        "run" => store.get_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
        "fleet_run" => store.get_fleet_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
        _ => store.get_formation_run(&id).await?.is_some_and(|run| !run.status.is_terminal()),
    })
}

/// Submits the schedule's target for its stored tick `expected`: its kind
/// and ID.
async fn submit(
    door: &Door,
    schedule: &Schedule,
    expected: DateTime<Utc>,
) -> Result<(&'static str, String), SubmitError> {
    let envelope = Envelope::tick(&schedule.id, &fmt(expected))
        .owned_by(&schedule.owner)
        .with_priority(Some(i64::from(schedule.priority)))?
        .with_concurrency(schedule.concurrency.clone())?;
    match &schedule.target {
        Target::Message { session_id, agent_id, message } => {
            let submission = MessageSubmission {
                session_id: session_id.clone(),
                agent_id: agent_id.clone(),
                message: message.clone(),
                ..Default::default()
            };
            Ok(("run", door.message(&envelope, submission).await?.run.id))
        }
        Target::Fleet { fleet_id, tasks } => {
            let tasks = tasks_of(tasks)?;
            let submission = FleetRunSubmission { fleet_id: fleet_id.clone(), tasks, webhook: None };
            Ok(("fleet_run", door.fleet_run(&envelope, submission).await?.fleet_run.id))
        }
        Target::Formation { formation_id, input } => {
            let submission =
                FormationRunSubmission { formation_id: formation_id.clone(), input: input.clone(), webhook: None };
            Ok(("formation_run", door.formation_run(&envelope, submission).await?.formation_run.id))
        }
    }
}

/// A fleet target's tasks, as a fleet run's submission takes them.
fn tasks_of(tasks: &[serde_json::Value]) -> Result<Vec<Task>, SubmitError> {
    tasks
        .iter()
        .enumerate()
        .map(|(i, task)| {
            serde_json::from_value(task.clone())
                .map_err(|e| SubmitError::Invalid(format!("the target's tasks[{i}]: {e}")))
        })
        .collect()
}
