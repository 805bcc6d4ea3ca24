//! Runs: reading runs, tailing their events, cancelling, deleting; and what
//! every submission shares (`?wait=true`, `Idempotency-Key`, the `202` answer).

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::QueryParams;
use super::order::ListOrder;
use super::owned::visible;
use super::schemas::{Id, Seq};
use super::sse::{self, EventFrame, EventsQuery, LoggedEvent};
use super::{AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::model::{Concurrency, Run, RunStatus};
use crate::store::RunFilter;
use crate::submit::Envelope;

/// A list's page size: `limit`, or `default` when absent, from 1 to `max`.
pub fn check_limit(limit: Option<u32>, default: u32, max: u32) -> ApiResult<u32> {
    let limit = limit.unwrap_or(default);
    if limit == 0 || limit > max {
        return Err(ApiError::BadRequest(format!("limit must be between 1 and {max}")));
    }
    Ok(limit)
}

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default()
        .routes(routes!(list))
        .routes(routes!(show, delete))
        .routes(routes!(events))
        .routes(routes!(cancel))
}

/// `?wait=true`: answer when the work has ended, in the original API's shape.
#[derive(Debug, Deserialize, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WaitQuery {
    /// Follow the work to its end and answer with its result (`200`)
    /// instead of `202` at once.
    #[serde(default)]
    pub wait: bool,
}

/// The envelope of a client's submission, owned by the caller: its `Idempotency-Key` (visible
/// ASCII) and `traceparent` headers, and the body's `priority` and
/// `concurrency`.
pub fn envelope(
    caller: &Caller,
    headers: &HeaderMap,
    priority: Option<i64>,
    concurrency: Option<Concurrency>,
) -> ApiResult<Envelope> {
    let key = headers
        .get("idempotency-key")
        .map(|value| value.to_str().map_err(|_| ApiError::BadRequest("Idempotency-Key must be visible ASCII".into())));
    let traceparent = headers.get("traceparent").and_then(|v| v.to_str().ok());
    let envelope = Envelope::client(key.transpose()?, traceparent)?;
    Ok(envelope.for_caller(caller).with_priority(priority)?.with_concurrency(concurrency)?)
}

/// The answer of an accepted submission: `202`, where to find what it made,
/// and `Idempotent-Replayed: true` when an idempotency key matched an earlier one.
pub fn accepted(location: String, body: impl Serialize, replayed: bool) -> Response {
    let mut answer = (StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(body)).into_response();
    if replayed {
        answer.headers_mut().insert("idempotent-replayed", "true".parse().expect("static header"));
    }
    answer
}

/// The run, if the caller may see it, or a 404 that names it.
pub async fn read_run(state: &AppState, caller: &Caller, run_id: &str) -> ApiResult<Run> {
    visible(caller, state.store.get_run(run_id).await?, || format!("run {run_id}"))
}

/// One run.
#[utoipa::path(
    get,
    path = "/runs/{id}",
    tag = "runs",
    operation_id = "get_run",
    params(("id" = Id, Path, description = "The run's ID")),
    responses(
        (status = 200, description = "The run, with the sub-agents' runs it started", body = RunView),
        (status = 404, description = "No such run", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<RunView>> {
    let run = read_run(&state, &caller, &id).await?;
    let filter = RunFilter { parent_run_id: Some(id), limit: MAX_CHILDREN_SHOWN, ..Default::default() };
    let children = state.store.list_runs(&filter).await?.iter().map(ChildRun::of).collect();
    let rate_limited = match run.status {
        RunStatus::Running | RunStatus::Queued => state.store.provider_wait(&run.id).await?.map(RateLimited::of),
        _ => None,
    };
    Ok(Json(RunView { run, children, rate_limited }))
}

/// A running run's inference waiting for its share of a provider budget.
#[derive(Debug, Serialize, ToSchema)]
pub struct RateLimited {
    /// The budget: a credential's name, or `agent:<id>`.
    budget: String,
    /// When the run asks again (its share reserved for then, or the pause over).
    #[serde(with = "crate::domain::model::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    until: chrono::DateTime<chrono::Utc>,
}

impl RateLimited {
    fn of((budget, until): (String, i64)) -> RateLimited {
        RateLimited { budget, until: chrono::DateTime::from_timestamp_millis(until).unwrap_or_default() }
    }
}

/// The most sub-agents' runs `GET /runs/{id}` lists; `GET
/// /runs?parent_run_id=` pages through all of them.
const MAX_CHILDREN_SHOWN: u32 = 500;

/// A run as `GET /runs/{id}` shows it: the run and its sub-agents' runs.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunView {
    #[serde(flatten)]
    run: Run,
    /// The sub-agents' runs its calls started, oldest first (at most 500:
    /// `GET /runs?parent_run_id=` pages through more).
    children: Vec<ChildRun>,
    /// While its inference waits for its share of a provider budget: which,
    /// and until when (the run stays `running`, holding its worker).
    #[serde(skip_serializing_if = "Option::is_none")]
    rate_limited: Option<RateLimited>,
}

/// A sub-agent's run, as its parent lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChildRun {
    run_id: String,
    /// The parent's call it answers.
    call_id: Option<String>,
    agent_id: String,
    status: RunStatus,
}

impl ChildRun {
    fn of(run: &Run) -> ChildRun {
        ChildRun {
            run_id: run.id.clone(),
            call_id: run.parent_call_id.clone(),
            agent_id: run.agent_id.clone(),
            status: run.status,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Only this session's runs.
    session_id: Option<String>,
    /// Only the tasks of this fleet run.
    fleet_run_id: Option<String>,
    /// Only the sub-agents' runs this run started.
    parent_run_id: Option<String>,
    /// Only the agent nodes' runs of this formation run.
    formation_run_id: Option<String>,
    /// Only runs in this status.
    #[param(value_type = Option<RunStatus>)]
    status: Option<String>,
    /// Runs per page (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The `next_after` of the page before: a run's ID.
    #[param(value_type = Option<Id>)]
    after: Option<String>,
    /// `asc` (oldest first, the default) or `desc`.
    #[serde(default)]
    #[param(value_type = Option<ListOrder>)]
    order: ListOrder,
}

/// A page of runs.
#[derive(Debug, Serialize, ToSchema)]
struct RunPage {
    /// In submission order.
    runs: Vec<Run>,
    /// Pass as `after` for the next page; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<String>,
}

/// Runs in submission order, a page at a time.
#[utoipa::path(
    get,
    path = "/runs",
    tag = "runs",
    operation_id = "list_runs",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of runs", body = RunPage),
        (status = 400, description = "An unknown status, a limit out of range, an unknown parameter, an `after` that names no run", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<ListQuery>,
) -> ApiResult<Json<RunPage>> {
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(RunStatus::parse(s).ok_or_else(|| ApiError::BadRequest(format!("unknown status {s:?}")))?),
    };
    let limit = check_limit(q.limit, 50, 500)?;
    // A cursor is a run's place in the queue: one that names no run (a
    // deleted one, say) has no place, and would silently give an empty page.
    if let Some(after) = &q.after {
        let found = state.store.get_run(after).await?;
        if !found.is_some_and(|run| caller.sees(&run.owner, false)) {
            return Err(ApiError::BadRequest(format!(
                "after names no run ({after}); it may have been deleted: list again from the first page"
            )));
        }
    }
    let filter = RunFilter {
        session_id: q.session_id,
        fleet_run_id: q.fleet_run_id,
        parent_run_id: q.parent_run_id,
        formation_run_id: q.formation_run_id,
        status,
        owner: caller.only(),
        after: q.after,
        limit,
        order: q.order.into(),
    };
    let runs = state.store.list_runs(&filter).await?;
    let next_after = if runs.len() as u32 == limit { runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(RunPage { runs, next_after }))
}

/// A run's events: with `Accept: text/event-stream`, SSE (replay after
/// `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
/// a finished run's log is all read); otherwise a JSON array of a page of the
/// events after `?after=N` (`?limit=`, `Wingman-Next-After`).
#[utoipa::path(
    get,
    path = "/runs/{id}/events",
    tag = "runs",
    operation_id = "run_events",
    params(
        ("id" = Id, Path, description = "The run's ID"),
        EventsQuery,
        ("Last-Event-ID" = Option<Seq>, Header, description = "The last `seq` the client has (a reconnecting EventSource sends it)"),
    ),
    responses(
        (status = 200, description = "The events: a JSON array of at most `limit` (a page; `Wingman-Next-After` names the next), or with `Accept: text/event-stream` an SSE stream of frames `id: <seq>`, `event: <type>`, `data: <event JSON>`. While the database cannot be reached, an SSE client gets a stream of a `retry:` hint alone, which ends: an EventSource reconnects with its `Last-Event-ID` instead of giving up on a 503",
            content(
                (Vec<LoggedEvent> = "application/json"),
                (EventFrame = "text/event-stream"),
            ),
            headers(("Wingman-Next-After" = Seq, description = "On a full JSON page: the `seq` to pass as `after` for the next page"))),
        (status = 204, description = "With `Accept: text/event-stream`: the run has ended and the client has every event"),
        (status = 400, description = "A bad `Last-Event-ID` or `after`", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
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
        // The run's owner, status and whether anything is after the reader,
        // in one read of two columns: a thousand late readers of a run pay
        // for no more of its row than that.
        let place = sse::place(&headers, &q)?;
        let run = visible(&caller, state.store.run_standing(&id, place).await?, || format!("run {id}"))?;
        let after = sse::After { place, read_to_the_end: run.read_to_the_end() };
        sse::events_after(&state, &id, after, &headers, &q, sse::Dialect::Wingman).await
    };
    sse::reconnect_when_unavailable(answer.await, &headers)
}

/// Cancels a queued, waiting or running run (a running one's tool is killed
/// within a heartbeat).
#[utoipa::path(
    post,
    path = "/runs/{id}/cancel",
    tag = "runs",
    operation_id = "cancel_run",
    params(("id" = Id, Path, description = "The run's ID")),
    responses(
        (status = 202, description = "The cancelled run", body = Run),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run has already ended", body = ErrorBody),
    )
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    read_run(&state, &caller, &id).await?;
    let run = state.store.cancel_run(&id, &caller.by()).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}

/// Deletes a run that has ended, with its events and checkpoints; its
/// session's history keeps what the run added. A run that has not ended is a
/// `409`: cancel it first.
#[utoipa::path(
    delete,
    path = "/runs/{id}",
    tag = "runs",
    operation_id = "delete_run",
    params(("id" = Id, Path, description = "The run's ID")),
    responses(
        (status = 200, description = "Deleted, with its events and checkpoints", body = Deleted),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run has not ended: cancel it first", body = ErrorBody),
    )
)]
async fn delete(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    read_run(&state, &caller, &id).await?;
    state.store.delete_run(&id).await.map_err(naming(format!("run {id}")))?;
    tracing::info!(run_id = %id, "run deleted");
    Ok(super::deleted())
}
