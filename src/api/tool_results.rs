//! Client tools' results: `POST /runs/{id}/tool-results` answers the calls a
//! waiting run asked its client to run, and queues the run again.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::runs::read_run;
use super::schemas::Id;
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::checkpoint::{next_action, Checkpoint, CheckpointBody, NextAction};
use crate::domain::event::RunEvent;
use crate::domain::model::{Run, RunStatus};
use crate::domain::toolset::{self, ClientResult};
use crate::tools::output;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(post_results))
}

/// A result for every call the run waits on.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ResultsBody {
    results: Vec<ClientResult>,
}

/// Records the client's result of every client tool call the run waits on
/// and queues it again. Each output is capped like any tool's.
#[utoipa::path(
    post,
    path = "/runs/{id}/tool-results",
    tag = "people",
    operation_id = "post_tool_results",
    params(("id" = Id, Path, description = "The run's ID")),
    request_body = ResultsBody,
    responses(
        (status = 202, description = "The run, queued again", body = Run),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run is not waiting for tool results (not waiting, waiting for a person, or already answered)", body = ErrorBody),
        (status = 422, description = "A result list that misses a waiting call, names another call, or answers one twice; a mistyped or unknown field", body = ErrorBody),
    )
)]
async fn post_results(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ResultsBody>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    read_run(&state, &caller, &id).await?;
    let ctx = state.store.load_run(&id).await.map_err(naming(format!("run {id}")))?;
    let status = ctx.run.status;
    if status != RunStatus::Waiting {
        return Err(ApiError::Conflict(format!("run {id} is {}, not waiting for tool results", status.as_str())));
    }
    let NextAction::AwaitClient { step, calls } = next_action(&ctx.checkpoints, &ctx.agent) else {
        return Err(ApiError::Conflict(format!("run {id} waits for a person's decision, not for tool results")));
    };
    let results = toolset::check_results(&calls, body.results).map_err(ApiError::Unprocessable)?;
    let call_ids = results.iter().map(|r| r.call_id.clone()).collect();
    let checkpoints: Vec<Checkpoint> = results.into_iter().map(|r| result_checkpoint(step, &calls, r)).collect();
    // Each result is announced as any tool's is, then the answer as a whole.
    let mut events: Vec<RunEvent> = checkpoints.iter().filter_map(RunEvent::tool_result).collect();
    events.push(RunEvent::ToolResultsReceived { step, call_ids, by: Some(caller.by()) });
    let run = state.store.decide(&id, step, checkpoints, events).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}

/// The checkpoint of one result, as the worker would have written it for a
/// tool it ran: the call's name, the output capped.
fn result_checkpoint(step: u32, calls: &[crate::domain::model::ToolCall], result: ClientResult) -> Checkpoint {
    let name = calls.iter().find(|c| c.id == result.call_id).map(|c| c.name.clone()).unwrap_or_default();
    let body = CheckpointBody::ToolResult {
        call_id: result.call_id,
        name,
        output: output::capped(&result.output),
        is_error: result.is_error,
    };
    Checkpoint { step, body }
}
