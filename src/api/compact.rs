//! `POST /sessions/{id}/compact`: a compaction of a session's history, run
//! as a run of kind `compaction` in the session's order, whatever the
//! history's size (see [`crate::domain::compaction`]).

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::messages::MessageAccepted;
use super::runs::{accepted, envelope};
use super::schemas::{Id, IdempotencyKey};
use super::AppState;
use crate::domain::access::Caller;
use crate::submit::CompactionSubmission;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(compact))
}

/// What a compaction may name (an empty body is fine).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CompactBody {
    /// The agent whose model (or `compaction.model`) writes the summary;
    /// the session's by default.
    #[schema(value_type = Option<Id>)]
    agent_id: Option<String>,
}

/// Queues a compaction of the session's history behind the session's
/// unfinished runs: old tool output is pruned and the older messages are
/// summarized, whatever the history's size. The history keeps every
/// message; a marker says what the agent is sent from then on.
#[utoipa::path(
    post,
    path = "/sessions/{id}/compact",
    tag = "sessions",
    operation_id = "compact_session",
    params(
        ("id" = Id, Path, description = "The session's ID"),
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first run"),
    ),
    request_body = Option<CompactBody>,
    responses(
        (status = 202, description = "The compaction's run, committed and queued", body = MessageAccepted,
            headers(
                ("Location" = String, description = "`/runs/{run_id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "Malformed JSON or a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "The session's added tools clash with its agent's", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn compact(
    State(state): State<AppState>,
    caller: Caller,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CompactBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, None, None)?;
    let submission = CompactionSubmission { session_id, agent_id: body.agent_id };
    let enqueued = state.door.compaction(&envelope, submission).await?;
    let run = enqueued.run;
    Ok(accepted(format!("/runs/{}", run.id), MessageAccepted::from(run), !enqueued.created))
}
