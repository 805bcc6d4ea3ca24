//! `POST /runs/{id}/retry`: a failed, cancelled or interrupted message run
//! again, from a step, reusing what the original's checkpoints hold of the
//! steps before it (see [`crate::domain::retry`]).

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::messages::MessageAccepted;
use super::runs::{accepted, envelope};
use super::schemas::{self, Id, IdempotencyKey};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::model::Concurrency;
use crate::submit::RetrySubmission;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(retry))
}

/// Where a retry starts (an empty body is fine).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RetryBody {
    /// The first step done again; the steps before it are taken from the
    /// original's checkpoints. By default the original's first step that is
    /// not whole (its inference and every call answered).
    #[schema(minimum = 1)]
    from_step: Option<u32>,
    #[schema(schema_with = schemas::priority)]
    priority: Option<i64>,
    /// At most `limit` runs with this key run at once.
    concurrency: Option<Concurrency>,
}

/// The answer of an accepted retry: the new run, and what it reuses.
#[derive(Debug, Serialize, ToSchema)]
struct RetryAccepted {
    #[serde(flatten)]
    run: MessageAccepted,
    /// The run it retries.
    #[schema(value_type = Id)]
    retry_of: String,
    /// Its first step done again: the steps before it are reused.
    from_step: u32,
}

/// Retries a failed, cancelled or interrupted message: a new run of the
/// same message in the same session, with the agent as it is now, whose
/// steps before `from_step` are the original's (no provider or tool call is
/// made for them; its log shows each as `step_reused`). When the original's
/// messages are the last of the session's history, they are set aside as a
/// branch first, so that they are not in it twice.
#[utoipa::path(
    post,
    path = "/runs/{id}/retry",
    tag = "runs",
    operation_id = "retry_run",
    params(
        ("id" = Id, Path, description = "The run's ID"),
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first retry"),
    ),
    request_body = Option<RetryBody>,
    responses(
        (status = 202, description = "The new run, committed and queued", body = RetryAccepted,
            headers(
                ("Location" = String, description = "`/runs/{run_id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "Malformed JSON, a bad priority, concurrency or `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such run, or its session or agent is gone", body = ErrorBody),
        (status = 409, description = "The run succeeded or has not ended, is not a session's message, or its session has an unfinished run or later messages", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; a `from_step` past the original's whole steps; an `Idempotency-Key` reused with another body", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn retry(
    State(state): State<AppState>,
    caller: Caller,
    Path(run_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RetryBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency)?;
    let submission = RetrySubmission { run_id: run_id.clone(), from_step: body.from_step };
    let enqueued = state.door.retry(&envelope, submission).await?;
    let run = enqueued.run;
    let (location, from_step) = (format!("/runs/{}", run.id), run.input.retry_of.as_ref().map_or(1, |r| r.from_step));
    let answer = RetryAccepted { retry_of: run_id, from_step, run: MessageAccepted::from(run) };
    Ok(accepted(location, answer, !enqueued.created))
}
