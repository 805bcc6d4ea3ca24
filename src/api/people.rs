//! People in the loop: deciding on tool calls a waiting run asked about, and
//! steering a run with a message it takes in at its next step boundary.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::runs::read_run;
use super::schemas::{self, Id};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::approval::{self, Decided, DecisionRequest};
use crate::domain::checkpoint::{next_action, Checkpoint, CheckpointBody, NextAction};
use crate::domain::event::RunEvent;
use crate::domain::model::{Run, RunKind, RunStatus};
use crate::submit::checks;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(approve)).routes(routes!(steer))
}

/// A decision for every call the run waits on.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    #[schema(schema_with = decisions)]
    decisions: Vec<DecisionRequest>,
}

/// The schema of `decisions`: [`DecisionRequest`]s, whose own schema is the
/// domain's and cannot name the API's rule that no text holds a NUL
/// character, nor that `input` is JSON of the same kind.
fn decisions() -> Schema {
    let mut input = Ref::from_schema_name("AnyJson");
    input.description = "For `edit`: the JSON object the call runs with instead".into();
    let decision = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("call_id", schemas::no_nul())
        .required("call_id")
        .property("decision", schemas::one_of_strings(&["approve", "edit", "reject", "respond"], DECISION))
        .required("decision")
        .property("input", RefOr::Ref(input))
        .property("message", schemas::plain())
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .description(Some("One decision: `{\"call_id\", \"decision\", \"input\"?, \"message\"?}`; `message` for `reject` (optional) and `respond`"));
    let description = "A decision for every call the run waits on";
    ArrayBuilder::new().items(RefOr::T(decision.into())).description(Some(description)).into()
}

/// What `decision` says.
const DECISION: &str =
    "`approve`, `edit` (with `input`), `reject` (with `message`, optional) or `respond` (with `message`)";

/// Records a decision for every call the run waits on and queues it again.
#[utoipa::path(
    post,
    path = "/runs/{id}/approve",
    tag = "people",
    operation_id = "approve_run",
    params(("id" = Id, Path, description = "The run's ID")),
    request_body = ApproveBody,
    responses(
        (status = 202, description = "The run, queued again", body = Run),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run is not waiting for a decision", body = ErrorBody),
        (status = 422, description = "A decision list that misses a waiting call, names a call the run does not wait on, or has a malformed decision; a mistyped or unknown field", body = ErrorBody),
    )
)]
async fn approve(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ApproveBody>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    read_run(&state, &caller, &id).await?;
    let ctx = state.store.load_run(&id).await.map_err(naming(format!("run {id}")))?;
    let status = ctx.run.status;
    if status != RunStatus::Waiting {
        return Err(ApiError::Conflict(format!("run {id} is {}, not waiting for a decision", status.as_str())));
    }
    let NextAction::AwaitApproval { step, calls, .. } = next_action(&ctx.checkpoints, &ctx.agent) else {
        return Err(ApiError::Conflict(format!("run {id} waits for no decision")));
    };
    let decided = approval::validate(&calls, body.decisions).map_err(ApiError::Unprocessable)?;
    let checkpoints = decided
        .iter()
        .map(|(call_id, decision)| Checkpoint {
            step,
            body: CheckpointBody::Decision { call_id: call_id.clone(), decision: decision.clone() },
        })
        .collect();
    let decisions = decided
        .into_iter()
        .filter_map(|(call_id, decision)| calls.iter().find(|c| c.id == call_id).map(|c| Decided::of(c, decision)))
        .collect();
    let event = RunEvent::ApprovalDecided { step, decisions, by: Some(caller.by()) };
    let run = state.store.decide(&id, step, checkpoints, vec![event]).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}

/// A message for a run to take in at its next step boundary.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SteerBody {
    /// Not blank; at most 256 KiB.
    #[schema(schema_with = schemas::message)]
    message: String,
}

/// Leaves a message for the run: a running run takes it in at its next step
/// boundary, a queued one before its first step, a waiting one at once.
#[utoipa::path(
    post,
    path = "/runs/{id}/steer",
    tag = "people",
    operation_id = "steer_run",
    params(("id" = Id, Path, description = "The run's ID")),
    request_body = SteerBody,
    responses(
        (status = 202, description = "The run", body = Run),
        (status = 400, description = "An empty or oversized message", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run has already ended, or is a compaction", body = ErrorBody),
    )
)]
async fn steer(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<SteerBody>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    let run = read_run(&state, &caller, &id).await?;
    checks::message(&body.message).map_err(ApiError::BadRequest)?;
    // A compaction has no conversation of its own to take a message into.
    if run.kind == RunKind::Compaction {
        return Err(ApiError::Conflict(format!("run {id} is a compaction: it takes no messages")));
    }
    let run = state.store.steer_run(&id, &body.message, &caller.by()).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
