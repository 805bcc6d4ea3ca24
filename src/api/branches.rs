//! Rewind and fork ([`crate::domain::branch`]): `POST /sessions/{id}/fork`
//! copies a session's history up to a run into a new session, and
//! `POST /sessions/{id}/rewind` sets its history after a run aside as a
//! branch. A message that replaces a run (`"replace"`) is the door's.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::schemas::{self, Id};
use super::sessions::{find, view, work_dir_for, SessionView};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::branch::{Branch, RewindTo};
use crate::domain::model::{new_id, Session};
use crate::store::StoreError;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(fork)).routes(routes!(rewind))
}

/// Where a fork starts from.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ForkBody {
    /// A run of the session: the fork's history is the session's as it was
    /// after that run ended (its whole history by default).
    #[schema(value_type = Option<Id>)]
    at: Option<String>,
    /// The fork's working directory; a fresh one of its own by default.
    /// Files are not copied: only the conversation is.
    #[schema(schema_with = schemas::work_dir)]
    work_dir: Option<String>,
}

/// Forks a session: a new session with the same agent, title, metadata and
/// tools, whose history is the original's up to the end of run `at` (all
/// of it by default). The two then go their own ways.
#[utoipa::path(
    post,
    path = "/sessions/{id}/fork",
    tag = "sessions",
    operation_id = "fork_session",
    params(("id" = Id, Path, description = "The session's ID")),
    request_body = Option<ForkBody>,
    responses(
        (status = 201, description = "The fork, with `forked_from` and its history", body = SessionView),
        (status = 400, description = "A refused `work_dir`", body = ErrorBody),
        (status = 404, description = "No such session, or no such run of it", body = ErrorBody),
        (status = 409, description = "`at` names a run that added nothing to the history", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; with --work-root, a `work_dir` outside it", body = ErrorBody),
    )
)]
async fn fork(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ForkBody>,
) -> ApiResult<(StatusCode, Json<SessionView>)> {
    let original = find(&state, &caller, &id).await?;
    let fork_id = new_id();
    let work_dir = work_dir_for(&state, body.work_dir, &fork_id)?;
    let now = Utc::now();
    let fork = Session { id: fork_id, owner: caller.owner, work_dir, created_at: now, updated_at: now, ..original };
    let at = body.at.as_deref();
    let fork = state.store.fork_session(&fork, &id, at).await.map_err(|e| run_named(e, &id, at))?;
    Ok((StatusCode::CREATED, Json(view(&state, fork).await?)))
}

/// Where a rewind goes back to.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RewindBody {
    /// A run of the session: the history after its end is set aside.
    #[schema(value_type = Id)]
    to: String,
}

/// What a rewind did: the branch it set aside (`null` when nothing was
/// after the run), and the session as it is now.
#[derive(Debug, Serialize, ToSchema)]
struct Rewound {
    set_aside: Option<Branch>,
    session: SessionView,
}

/// Rewinds a session to the end of run `to`: the history after it is set
/// aside as a branch the session lists (kept, never deleted), and the next
/// message continues from there. Refused while the session has a queued,
/// running or waiting run.
#[utoipa::path(
    post,
    path = "/sessions/{id}/rewind",
    tag = "sessions",
    operation_id = "rewind_session",
    params(("id" = Id, Path, description = "The session's ID")),
    request_body = RewindBody,
    responses(
        (status = 200, description = "The branch set aside, and the session", body = Rewound),
        (status = 404, description = "No such session, or no such run of it", body = ErrorBody),
        (status = 409, description = "The session has an unfinished run, or `to` names a run that is not in its history", body = ErrorBody),
        (status = 422, description = "A mistyped, missing or unknown field", body = ErrorBody),
    )
)]
async fn rewind(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<RewindBody>,
) -> ApiResult<Json<Rewound>> {
    find(&state, &caller, &id).await?;
    let to = RewindTo::After(body.to);
    let set_aside = state.store.rewind_session(&id, &to).await.map_err(|e| run_named(e, &id, Some(to.run_id())))?;
    let session = find(&state, &caller, &id).await?;
    Ok(Json(Rewound { set_aside, session: view(&state, session).await? }))
}

/// A store error of a call on session `id` and its run `run`: each "not
/// found" names what is missing.
fn run_named(e: StoreError, id: &str, run: Option<&str>) -> ApiError {
    match (e, run) {
        (StoreError::NotFound("run"), Some(run)) => ApiError::NotFound(format!("run {run} of session {id}")),
        (StoreError::NotFound(_), _) => ApiError::NotFound(format!("session {id}")),
        (other, _) => other.into(),
    }
}
