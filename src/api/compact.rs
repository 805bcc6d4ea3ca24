//! `POST /sessions/{id}/compact`: a compaction of a session's history, run
//! as a run of kind `compaction` in the session's order, whatever the
//! history's size (see [`crate::compaction`]).

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming_submission, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::messages::{session_agent, MessageAccepted};
use super::runs::{accepted, idempotency_key};
use super::schemas::{Id, IdempotencyKey};
use super::AppState;
use crate::model::{new_id, MultitaskStrategy, RunInput, RunKind};
use crate::store::NewRun;

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
    )
)]
async fn compact(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CompactBody>,
) -> ApiResult<Response> {
    let (session, agent_id, agent) = session_agent(&state, &session_id, body.agent_id.as_deref()).await?;
    let key = idempotency_key(&headers, &format!("compact:{session_id}"), &[agent_id.as_str()])?;
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Compaction,
        session_id: Some(session_id.clone()),
        agent,
        input: RunInput::default(),
        work_dir: session.work_dir,
        max_attempts: state.config.max_attempts,
        strategy: MultitaskStrategy::Enqueue,
    };
    let enqueued =
        state.store.enqueue_run(run, key).await.map_err(naming_submission(format!("session {session_id}")))?;
    state.changed();
    let run = enqueued.run;
    Ok(accepted(format!("/runs/{}", run.id), MessageAccepted::from(run), !enqueued.created))
}
