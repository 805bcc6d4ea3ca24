//! Fleet runs: `POST /fleets/{id}/run` (and `/run/stream`), `GET /fleet-runs`,
//! `GET /fleet-runs/{id}` (with a page of its tasks), its events, its cancel.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use super::error::{naming, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::fleet_tasks::RunBody;
use super::fleets;
use super::order::ListOrder;
use super::owned::visible;
use super::peer::{unless_hung_up, Peer};
use super::runs::{accepted, check_limit, envelope, WaitQuery};
use super::schemas::{Id, IdempotencyKey, Seq};
use super::sse::{self, EventFrame, EventsQuery, LoggedEvent};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::fleet::{self, TaskEnd, TaskResult};
use crate::domain::model::FleetRun;
use crate::store::FleetRunFilter;

/// The most tasks one page of `GET /fleet-runs/{id}` shows.
const MAX_PAGE: u32 = 1000;

/// Each handler is registered with its `#[utoipa::path]` description.
/// Routes under `/fleets/{id}/run…` take bodies up to `fleet_body_bytes`: 10,000 tasks fit.
pub fn routes(fleet_body_bytes: usize) -> OpenApiRouter<AppState> {
    let limit = || axum::extract::DefaultBodyLimit::max(fleet_body_bytes);
    OpenApiRouter::default()
        .routes(routes!(submit).layer(limit()))
        .routes(routes!(submit_stream).layer(limit()))
        .routes(routes!(list))
        .routes(routes!(show))
        .routes(routes!(events))
        .routes(routes!(cancel))
}

/// The answer of an accepted fleet run: the fleet run, and its ID under the
/// original API's name.
#[derive(Debug, Serialize, ToSchema)]
struct FleetRunAccepted {
    fleet_run_id: String,
    #[serde(flatten)]
    run: FleetRun,
}

/// A page of fleet runs.
#[derive(Debug, Serialize, ToSchema)]
struct FleetRunPage {
    /// Oldest first.
    fleet_runs: Vec<FleetRun>,
    /// Pass as `after` for the next page; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<String>,
}

/// A fleet run with a page of its tasks' states and results.
#[derive(Debug, Serialize, ToSchema)]
struct FleetRunView {
    #[serde(flatten)]
    run: FleetRun,
    /// In task order.
    tasks: Vec<TaskResult>,
    /// Pass as `after` for the next page of tasks; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<u32>,
}

/// `202 {"fleet_run_id", "status", …}`, or with `?wait=true` the original
/// API's answer: every task's result, in task order.
#[utoipa::path(
    post,
    path = "/fleets/{id}/run",
    tag = "fleets",
    operation_id = "run_fleet",
    params(
        ("id" = Id, Path, description = "The fleet's ID"),
        WaitQuery,
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first fleet run"),
    ),
    request_body = RunBody,
    responses(
        (status = 200, description = "With `?wait=true`: every task's result, in task order", body = Vec<TaskResult>),
        (status = 202, description = "The fleet run, its tasks committed and queued", body = FleetRunAccepted,
            headers(
                ("Location" = String, description = "`/fleet-runs/{id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "No task or too many, an empty or oversized message, a refused `work_dir`, a priority outside -10..10, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such fleet", body = ErrorBody),
        (status = 413, description = "A body over --max-fleet-body-bytes (16 MiB)", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; the fleet's agent no longer exists; an `Idempotency-Key` reused with another body; with --work-root, a `work_dir` outside it; more tasks than the owner's `max_queued_runs`", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn submit(
    State(state): State<AppState>,
    caller: Caller,
    Path(fleet_id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
    JsonBody(mut body): JsonBody<RunBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency.take())?;
    fleets::find(&state, &caller, &fleet_id).await?;
    let enqueued = state.door.fleet_run(&envelope, body.submission(&fleet_id)).await?;
    let run = enqueued.fleet_run;
    if query.wait {
        unless_hung_up(peer.map(|p| p.0), sse::wait_done(&state, &run.id, sse::Dialect::Fleet)).await?;
        return Ok(Json(all_results(&state, &run.id).await?).into_response());
    }
    let location = format!("/fleet-runs/{}", run.id);
    Ok(accepted(location, FleetRunAccepted { fleet_run_id: run.id.clone(), run }, !enqueued.created))
}

/// Enqueues, then streams the fleet run's events: `fleet_queued`, a `result`
/// per task (in the order they finish), `done`.
#[utoipa::path(
    post,
    path = "/fleets/{id}/run/stream",
    tag = "fleets",
    operation_id = "run_fleet_stream",
    params(
        ("id" = Id, Path, description = "The fleet's ID"),
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "As for `POST /fleets/{id}/run`"),
    ),
    request_body = RunBody,
    responses(
        (status = 200, description = "The fleet run's events until its `done`: frames `id: <seq>`, `event: <type>`, `data: <event JSON>`", content_type = "text/event-stream", body = EventFrame),
        (status = 400, description = "No task or too many, an empty or oversized message, a refused `work_dir`, a priority outside -10..10, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such fleet", body = ErrorBody),
        (status = 413, description = "A body over --max-fleet-body-bytes (16 MiB)", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; the fleet's agent no longer exists; an `Idempotency-Key` reused with another body; with --work-root, a `work_dir` outside it; more tasks than the owner's `max_queued_runs`", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn submit_stream(
    State(state): State<AppState>,
    caller: Caller,
    Path(fleet_id): Path<String>,
    headers: HeaderMap,
    JsonBody(mut body): JsonBody<RunBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency.take())?;
    fleets::find(&state, &caller, &fleet_id).await?;
    let enqueued = state.door.fleet_run(&envelope, body.submission(&fleet_id)).await?;
    Ok(sse::stream(&state, &enqueued.fleet_run.id, 0, sse::Dialect::Fleet))
}

/// Every task's result, in task order, read a page at a time.
async fn all_results(state: &AppState, id: &str) -> ApiResult<Vec<TaskResult>> {
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

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Only this fleet's runs.
    fleet_id: Option<String>,
    /// Fleet runs per page (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The `next_after` of the page before.
    after: Option<String>,
    /// `asc` (oldest first, the default) or `desc`.
    #[serde(default)]
    #[param(value_type = Option<ListOrder>)]
    order: ListOrder,
}

/// Fleet runs, oldest first, a page at a time.
#[utoipa::path(
    get,
    path = "/fleet-runs",
    tag = "fleet-runs",
    operation_id = "list_fleet_runs",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of fleet runs", body = FleetRunPage),
        (status = 400, description = "A limit out of range, an unknown parameter", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<ListQuery>,
) -> ApiResult<Json<FleetRunPage>> {
    let limit = check_limit(q.limit, 50, 500)?;
    let (fleet_id, owner, after, order) = (q.fleet_id, caller.only(), q.after, q.order.into());
    let filter = FleetRunFilter { fleet_id, owner, after, limit, order };
    let fleet_runs = state.store.list_fleet_runs(&filter).await?;
    let next_after = if fleet_runs.len() as u32 == limit { fleet_runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(FleetRunPage { fleet_runs, next_after }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ShowQuery {
    /// Tasks after this task index.
    #[param(value_type = Option<u64>, maximum = 4294967295u64)]
    after: Option<u32>,
    /// Tasks per page (default 100).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
}

/// The fleet run `id`, if the caller may see it.
async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<FleetRun> {
    visible(caller, state.store.get_fleet_run(id).await?, || format!("fleet run {id}"))
}

/// The fleet run, its progress (one row, however many tasks) and a page of
/// its tasks with their results.
#[utoipa::path(
    get,
    path = "/fleet-runs/{id}",
    tag = "fleet-runs",
    operation_id = "get_fleet_run",
    params(("id" = Id, Path, description = "The fleet run's ID"), ShowQuery),
    responses(
        (status = 200, description = "The fleet run and a page of its tasks", body = FleetRunView),
        (status = 400, description = "A limit out of range, an unknown parameter", body = ErrorBody),
        (status = 404, description = "No such fleet run", body = ErrorBody),
    )
)]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<ShowQuery>,
) -> ApiResult<Json<FleetRunView>> {
    let limit = check_limit(q.limit, 100, MAX_PAGE)?;
    let run = find(&state, &caller, &id).await?;
    let page = state.store.fleet_run_tasks(&id, q.after, limit).await?;
    let next_after = if page.len() as u32 == limit { page.last().and_then(|r| r.task_index) } else { None };
    let tasks = page.iter().map(|run| fleet::result(&TaskEnd::of_run(run))).collect();
    Ok(Json(FleetRunView { run, tasks, next_after }))
}

/// A fleet run's events, exactly like a run's: SSE with `Accept:
/// text/event-stream` (`204` once a finished fleet run's log is all read),
/// otherwise a JSON array, a page at a time.
#[utoipa::path(
    get,
    path = "/fleet-runs/{id}/events",
    tag = "fleet-runs",
    operation_id = "fleet_run_events",
    params(
        ("id" = Id, Path, description = "The fleet run's ID"),
        EventsQuery,
        ("Last-Event-ID" = Option<Seq>, Header, description = "The last `seq` the client has (a reconnecting EventSource sends it)"),
    ),
    responses(
        (status = 200, description = "The events (`fleet_queued`, `result`, `done`): a JSON array of at most `limit` (a page; `Wingman-Next-After` names the next), or with `Accept: text/event-stream` an SSE stream. While the database cannot be reached, an SSE client gets a stream of a `retry:` hint alone, which ends: an EventSource reconnects with its `Last-Event-ID` instead of giving up on a 503",
            content(
                (Vec<LoggedEvent> = "application/json"),
                (EventFrame = "text/event-stream"),
            ),
            headers(("Wingman-Next-After" = Seq, description = "On a full JSON page: the `seq` to pass as `after` for the next page"))),
        (status = 204, description = "With `Accept: text/event-stream`: the fleet run has ended and the client has every event"),
        (status = 400, description = "A bad `Last-Event-ID` or `after`", body = ErrorBody),
        (status = 404, description = "No such fleet run", body = ErrorBody),
    )
)]
async fn events(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    QueryParams(q): QueryParams<EventsQuery>,
) -> ApiResult<Response> {
    let answer = async {
        let run = find(&state, &caller, &id).await?;
        sse::events_answer(&state, &id, run.status.is_terminal(), &headers, &q, sse::Dialect::Fleet).await
    };
    sse::reconnect_when_unavailable(answer.await, &headers)
}

/// Cancels every task that has not ended, in one transaction.
#[utoipa::path(
    post,
    path = "/fleet-runs/{id}/cancel",
    tag = "fleet-runs",
    operation_id = "cancel_fleet_run",
    params(("id" = Id, Path, description = "The fleet run's ID")),
    responses(
        (status = 202, description = "The fleet run", body = FleetRun),
        (status = 404, description = "No such fleet run", body = ErrorBody),
        (status = 409, description = "The fleet run has already ended", body = ErrorBody),
    )
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<FleetRun>)> {
    find(&state, &caller, &id).await?;
    let run = state.store.cancel_fleet_run(&id, &caller.by()).await.map_err(naming(format!("fleet run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
