//! Formation runs: `GET /formation-runs` (a page), `GET /formation-runs/{id}`
//! (every node's state), its events, its cancel.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Json;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiResult, ErrorBody};
use super::extract::QueryParams;
use super::order::ListOrder;
use super::owned::visible;
use super::runs::check_limit;
use super::schemas::{Id, Seq};
use super::sse::{self, EventFrame, EventsQuery, LoggedEvent};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::formation::run::{FormationRun, NodeRow, NodeStatus};
use crate::domain::model::RunStatus;
use crate::store::{FormationRunFilter, RunFilter};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list)).routes(routes!(show)).routes(routes!(events)).routes(routes!(cancel))
}

/// The answer of an accepted formation run: the run, and its ID under the
/// name submissions answer with.
#[derive(Debug, Serialize, ToSchema)]
pub struct FormationRunAccepted {
    formation_run_id: String,
    #[serde(flatten)]
    run: FormationRun,
}

impl FormationRunAccepted {
    /// The answer for `run`.
    pub fn of(run: FormationRun) -> FormationRunAccepted {
        FormationRunAccepted { formation_run_id: run.id.clone(), run }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Only this formation's runs.
    formation_id: Option<String>,
    /// Formation runs per page (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The `next_after` of the page before.
    after: Option<String>,
    /// `asc` (oldest first, the default) or `desc`.
    #[serde(default)]
    #[param(value_type = Option<ListOrder>)]
    order: ListOrder,
}

/// A page of formation runs.
#[derive(Debug, Serialize, ToSchema)]
struct FormationRunPage {
    formation_runs: Vec<FormationRun>,
    /// Pass as `after` for the next page; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<String>,
}

/// Formation runs, oldest first, a page at a time.
#[utoipa::path(
    get,
    path = "/formation-runs",
    tag = "formation-runs",
    operation_id = "list_formation_runs",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of formation runs", body = FormationRunPage),
        (status = 400, description = "A limit out of range, an unknown parameter", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<ListQuery>,
) -> ApiResult<Json<FormationRunPage>> {
    let limit = check_limit(q.limit, 50, 500)?;
    let (formation_id, owner, after, order) = (q.formation_id, caller.only(), q.after, q.order.into());
    let filter = FormationRunFilter { formation_id, owner, after, limit, order };
    let mut formation_runs = Vec::new();
    for run in state.store.list_formation_runs(&filter).await? {
        formation_runs.push(as_shown(&state, run).await?);
    }
    let full = formation_runs.len() as u32 == limit;
    let next_after = if full { formation_runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(FormationRunPage { formation_runs, next_after }))
}

/// The formation run `id`, if the caller may see it.
async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<FormationRun> {
    visible(caller, state.store.get_formation_run(id).await?, || format!("formation run {id}"))
}

/// The formation run as answers show it: a running node whose work waits
/// for a person or a client is `waiting`. The node's row says `running`
/// (a node's run comes to wait with no write to the formation run), so it
/// is read from the node's run, or its fleet run's tasks, here.
pub async fn as_shown(state: &AppState, mut run: FormationRun) -> ApiResult<FormationRun> {
    if run.status.is_terminal() {
        return Ok(run);
    }
    for node in run.nodes.iter_mut().filter(|n| n.status == NodeStatus::Running) {
        if waits(state, node).await? {
            node.status = NodeStatus::Waiting;
        }
    }
    Ok(run)
}

async fn waits(state: &AppState, node: &NodeRow) -> ApiResult<bool> {
    if let Some(run_id) = &node.run_id {
        return Ok(state.store.get_run(run_id).await?.is_some_and(|r| r.status == RunStatus::Waiting));
    }
    let Some(fleet_run_id) = &node.fleet_run_id else { return Ok(false) };
    let tasks = RunFilter {
        fleet_run_id: Some(fleet_run_id.clone()),
        status: Some(RunStatus::Waiting),
        limit: 1,
        ..Default::default()
    };
    Ok(!state.store.list_runs(&tasks).await?.is_empty())
}

/// A formation run: its status, every node's state, input and output, its outputs.
#[utoipa::path(
    get,
    path = "/formation-runs/{id}",
    tag = "formation-runs",
    operation_id = "get_formation_run",
    params(("id" = Id, Path, description = "The formation run's ID")),
    responses(
        (status = 200, description = "The formation run", body = FormationRun),
        (status = 404, description = "No such formation run", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<FormationRun>> {
    let run = find(&state, &caller, &id).await?;
    Ok(Json(as_shown(&state, run).await?))
}

/// A formation run's events, exactly like a run's: SSE with `Accept:
/// text/event-stream` (`204` once a finished formation run's log is all
/// read), otherwise a JSON array, a page at a time.
#[utoipa::path(
    get,
    path = "/formation-runs/{id}/events",
    tag = "formation-runs",
    operation_id = "formation_run_events",
    params(
        ("id" = Id, Path, description = "The formation run's ID"),
        EventsQuery,
        ("Last-Event-ID" = Option<Seq>, Header, description = "The last `seq` the client has (a reconnecting EventSource sends it)"),
    ),
    responses(
        (status = 200, description = "The events (`formation_queued`, `node_started`, `node_finished`, `done`): a JSON array of at most `limit` (a page; `Wingman-Next-After` names the next), or with `Accept: text/event-stream` an SSE stream",
            content(
                (Vec<LoggedEvent> = "application/json"),
                (EventFrame = "text/event-stream"),
            ),
            headers(("Wingman-Next-After" = Seq, description = "On a full JSON page: the `seq` to pass as `after` for the next page"))),
        (status = 204, description = "With `Accept: text/event-stream`: the formation run has ended and the client has every event"),
        (status = 400, description = "A bad `Last-Event-ID` or `after`", body = ErrorBody),
        (status = 404, description = "No such formation run", body = ErrorBody),
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
        sse::events_answer(&state, &id, run.status.is_terminal(), &headers, &q, sse::Dialect::Formation).await
    };
    sse::reconnect_when_unavailable(answer.await, &headers)
}

/// Cancels a formation run: what runs ends, nothing new starts.
#[utoipa::path(
    post,
    path = "/formation-runs/{id}/cancel",
    tag = "formation-runs",
    operation_id = "cancel_formation_run",
    params(("id" = Id, Path, description = "The formation run's ID")),
    responses(
        (status = 202, description = "The formation run", body = FormationRun),
        (status = 404, description = "No such formation run", body = ErrorBody),
        (status = 409, description = "The formation run has already ended", body = ErrorBody),
    )
)]
async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<FormationRun>)> {
    find(&state, &caller, &id).await?;
    let run = state.store.cancel_formation_run(&id).await.map_err(naming(format!("formation run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
