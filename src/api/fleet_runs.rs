//! Fleet runs: `POST /fleets/{id}/run` (and `/run/stream`), `GET /fleet-runs`,
//! `GET /fleet-runs/{id}` (with a page of its tasks), its events, its cancel.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::error::{naming, naming_submission, ApiError, ApiResult};
use super::extract::{JsonBody, QueryParams};
use super::runs::{accepted, idempotency_key, EventsQuery, WaitQuery, MAX_MESSAGE_BYTES};
use super::work_dir;
use super::{sse, AppState};
use crate::fleet::{self, TaskEnd, MAX_TASKS};
use crate::model::{new_id, Fleet, FleetRun, RunInput, Session};
use crate::store::{EnqueuedFleetRun, FleetRunFilter, NewFleetRun, NewTask, Order};

/// The most tasks one page of `GET /fleet-runs/{id}` shows.
const MAX_PAGE: u32 = 1000;

/// Routes under `/fleets/{id}/run…` take bodies up to `fleet_body_bytes`: 10,000 tasks fit.
pub fn routes(fleet_body_bytes: usize) -> Router<AppState> {
    let submit = Router::new()
        .route("/fleets/{id}/run", post(submit))
        .route("/fleets/{id}/run/stream", post(submit_stream))
        .layer(axum::extract::DefaultBodyLimit::max(fleet_body_bytes));
    Router::new()
        .merge(submit)
        .route("/fleet-runs", get(list))
        .route("/fleet-runs/{id}", get(show))
        .route("/fleet-runs/{id}/events", get(events))
        .route("/fleet-runs/{id}/cancel", post(cancel))
}

/// The body of a fleet run: the original API's.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RunBody {
    tasks: Vec<TaskBody>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct TaskBody {
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    work_dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

fn check_tasks(state: &AppState, tasks: &[TaskBody]) -> ApiResult<()> {
    if tasks.is_empty() {
        return Err(ApiError::BadRequest("tasks must hold at least one task".into()));
    }
    if tasks.len() > MAX_TASKS {
        return Err(ApiError::BadRequest(format!("a fleet run holds at most {MAX_TASKS} tasks")));
    }
    for (i, task) in tasks.iter().enumerate() {
        let bad = |m: &str| ApiError::BadRequest(format!("tasks[{i}]: {m}"));
        if task.message.trim().is_empty() {
            return Err(bad("message must not be empty"));
        }
        if task.message.len() > MAX_MESSAGE_BYTES {
            return Err(bad(&format!("message is longer than {MAX_MESSAGE_BYTES} bytes")));
        }
        if let Some(dir) = &task.work_dir {
            work_dir::check(state, dir).map_err(|e| match e {
                ApiError::Unprocessable(m) => ApiError::Unprocessable(format!("tasks[{i}]: {m}")),
                other => bad(&other.to_string()),
            })?;
        }
    }
    Ok(())
}

/// A task's session: its own, in the task's work_dir, else the fleet's, else
/// a directory of its own under the data directory.
fn task_session(state: &AppState, fleet: &Fleet, fleet_run_id: &str, index: usize, task: &TaskBody) -> Session {
    let id = new_id();
    let work_dir = task
        .work_dir
        .clone()
        .or_else(|| fleet.work_dir.clone())
        .unwrap_or_else(|| state.config.data_dir.join("sessions").join(&id).to_string_lossy().into_owned());
    let now = Utc::now();
    Session {
        id,
        agent_id: Some(fleet.agent_id.clone()),
        title: Some(format!("{} task {index}", fleet.name)),
        work_dir,
        metadata: json!({"fleet_id": fleet.id, "fleet_run_id": fleet_run_id, "task_index": index}),
        created_at: now,
        updated_at: now,
    }
}

/// Writes the fleet run and all its tasks in one transaction.
async fn enqueue(state: &AppState, fleet_id: &str, headers: &HeaderMap, body: RunBody) -> ApiResult<EnqueuedFleetRun> {
    let fleet =
        state.store.get_fleet(fleet_id).await?.ok_or_else(|| ApiError::NotFound(format!("fleet {fleet_id}")))?;
    check_tasks(state, &body.tasks)?;
    let agent = state.store.get_agent(&fleet.agent_id).await?.ok_or_else(|| {
        ApiError::Unprocessable(format!(
            "the fleet's agent {} no longer exists: PUT the fleet a new agent_id",
            fleet.agent_id
        ))
    })?;
    let canonical = serde_json::to_string(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let key = idempotency_key(headers, &format!("fleet:{fleet_id}"), &[&canonical])?;
    let id = new_id();
    let tasks = body
        .tasks
        .into_iter()
        .enumerate()
        .map(|(index, task)| NewTask {
            run_id: new_id(),
            session: task_session(state, &fleet, &id, index, &task),
            input: RunInput { message: task.message, instructions: task.instructions, data: task.data },
        })
        .collect();
    let new = NewFleetRun {
        id,
        fleet_id: fleet.id.clone(),
        agent,
        worker_count: fleet.worker_count,
        tasks,
        max_attempts: state.config.max_attempts,
    };
    let enqueued =
        state.store.enqueue_fleet_run(new, key).await.map_err(naming_submission(format!("fleet {fleet_id}")))?;
    state.changed();
    Ok(enqueued)
}

/// `202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
/// API's answer: every task's result, in task order.
async fn submit(
    State(state): State<AppState>,
    Path(fleet_id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &fleet_id, &headers, body).await?;
    let run = enqueued.fleet_run;
    if query.wait {
        sse::wait_done(&state, &run.id).await?;
        return Ok(Json(all_results(&state, &run.id).await?).into_response());
    }
    let mut answer = json!({"fleet_run_id": run.id});
    if let Value::Object(fields) = view(&run) {
        answer.as_object_mut().expect("an object").extend(fields);
    }
    Ok(accepted(format!("/fleet-runs/{}", run.id), answer, !enqueued.created))
}

/// Enqueues, then streams the fleet run's events: `result` per task, then `done`.
async fn submit_stream(
    State(state): State<AppState>,
    Path(fleet_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RunBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &fleet_id, &headers, body).await?;
    Ok(sse::stream(&state, &enqueued.fleet_run.id, 0, sse::Dialect::Fleet))
}

/// A fleet run as answers show it.
fn view(run: &FleetRun) -> Value {
    serde_json::to_value(run).unwrap_or_default()
}

/// Every task's result, in task order, read a page at a time.
async fn all_results(state: &AppState, id: &str) -> ApiResult<Vec<Value>> {
    let mut results = Vec::new();
    let mut after = None;
    loop {
        let page = state.store.fleet_run_tasks(id, after, MAX_PAGE).await?;
        results.extend(page.iter().map(|run| fleet::result(&TaskEnd::of_run(run))));
        after = page.last().and_then(|r| r.task_index);
        if page.len() < MAX_PAGE as usize {
            return Ok(results);
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    fleet_id: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
    #[serde(default)]
    order: Order,
}

fn check_limit(limit: Option<u32>, default: u32, max: u32) -> ApiResult<u32> {
    let limit = limit.unwrap_or(default);
    if limit == 0 || limit > max {
        return Err(ApiError::BadRequest(format!("limit must be between 1 and {max}")));
    }
    Ok(limit)
}

async fn list(State(state): State<AppState>, QueryParams(q): QueryParams<ListQuery>) -> ApiResult<Json<Value>> {
    let limit = check_limit(q.limit, 50, 500)?;
    let filter = FleetRunFilter { fleet_id: q.fleet_id, after: q.after, limit, order: q.order };
    let runs = state.store.list_fleet_runs(&filter).await?;
    let next = if runs.len() as u32 == limit { runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(json!({"fleet_runs": runs, "next_after": next})))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowQuery {
    /// Tasks after this task index.
    after: Option<u32>,
    limit: Option<u32>,
}

async fn find(state: &AppState, id: &str) -> ApiResult<FleetRun> {
    state.store.get_fleet_run(id).await?.ok_or_else(|| ApiError::NotFound(format!("fleet run {id}")))
}

/// The fleet run, its progress (one row, however many tasks) and a page of
/// its tasks with their results.
async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<ShowQuery>,
) -> ApiResult<Json<Value>> {
    let limit = check_limit(q.limit, 100, MAX_PAGE)?;
    let run = find(&state, &id).await?;
    let page = state.store.fleet_run_tasks(&id, q.after, limit).await?;
    let next = if page.len() as u32 == limit { page.last().and_then(|r| r.task_index) } else { None };
    let mut body = view(&run);
    body["tasks"] = page.iter().map(|run| fleet::result(&TaskEnd::of_run(run))).collect();
    body["next_after"] = json!(next);
    Ok(Json(body))
}

async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    QueryParams(q): QueryParams<EventsQuery>,
) -> ApiResult<Response> {
    let run = find(&state, &id).await?;
    sse::events_answer(&state, &id, run.status.is_terminal(), &headers, q.after, sse::Dialect::Fleet).await
}

async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<(StatusCode, Json<Value>)> {
    let run = state.store.cancel_fleet_run(&id).await.map_err(naming(format!("fleet run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(view(&run))))
}
