//! People in the loop: deciding on tool calls a waiting run asked about, and
//! steering a run with a message it takes in at its next step boundary.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;

use super::error::{naming, ApiError, ApiResult};
use super::extract::JsonBody;
use super::runs::MAX_MESSAGE_BYTES;
use super::AppState;
use crate::approval::{self, Decided, DecisionRequest};
use crate::checkpoint::{next_action, Checkpoint, CheckpointBody, NextAction};
use crate::event::RunEvent;
use crate::model::{Run, RunStatus};

pub fn routes() -> Router<AppState> {
    Router::new().route("/runs/{id}/approve", post(approve)).route("/runs/{id}/steer", post(steer))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApproveBody {
    decisions: Vec<DecisionRequest>,
}

/// Records a decision for every call the run waits on and queues it again.
async fn approve(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ApproveBody>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    let ctx = state.store.load_run(&id).await.map_err(naming(format!("run {id}")))?;
    let status = ctx.run.status;
    if status != RunStatus::Waiting {
        return Err(ApiError::Conflict(format!("run {id} is {}, not waiting for a decision", status.as_str())));
    }
    let NextAction::AwaitApproval { step, calls } = next_action(&ctx.checkpoints, &ctx.agent) else {
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
    let decisions = decided.into_iter().map(|(call_id, decision)| Decided { call_id, decision }).collect();
    let event = RunEvent::ApprovalDecided { step, decisions };
    let run = state.store.decide(&id, step, checkpoints, event).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SteerBody {
    message: String,
}

/// Leaves a message for the run: a running run takes it in at its next step
/// boundary, a queued one before its first step, a waiting one at once.
async fn steer(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<SteerBody>,
) -> ApiResult<(StatusCode, Json<Run>)> {
    if body.message.trim().is_empty() {
        return Err(ApiError::BadRequest("message must not be empty".into()));
    }
    if body.message.len() > MAX_MESSAGE_BYTES {
        return Err(ApiError::BadRequest(format!("message is longer than {MAX_MESSAGE_BYTES} bytes")));
    }
    let run = state.store.steer_run(&id, &body.message).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
