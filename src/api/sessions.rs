//! Sessions: conversations with a working directory and an ordered history.

use std::path::Path as FsPath;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{naming, ApiError, ApiResult};
use super::extract::JsonBody;
use super::{deleted, AppState};
use crate::model::{new_id, Message, Role, Session};
use crate::tools::sandbox;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/sessions", get(list).post(create))
        .route("/sessions/{id}", get(show).put(update).delete(remove))
}

/// The fields a client may set on a session. On `PUT`, absent fields keep their value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionFields {
    agent_id: Option<String>,
    title: Option<String>,
    work_dir: Option<String>,
    metadata: Option<Value>,
}

async fn check_fields(state: &AppState, fields: &SessionFields) -> ApiResult<()> {
    if let Some(agent_id) = &fields.agent_id {
        if state.store.get_agent(agent_id).await?.is_none() {
            return Err(ApiError::NotFound(format!("agent {agent_id}")));
        }
    }
    if fields.metadata.as_ref().is_some_and(|m| !m.is_object()) {
        return Err(ApiError::BadRequest("metadata must be a JSON object".into()));
    }
    Ok(())
}

/// Checks the form of a work_dir given by a client and that it does not
/// contain the database (when it exists already: the worker checks again
/// before every run). Fleets keep theirs unchecked on disk until a task runs.
pub(super) fn check_work_dir(state: &AppState, dir: &str) -> ApiResult<()> {
    if dir.contains('\0') {
        return Err(ApiError::BadRequest("work_dir must not contain a NUL byte".into()));
    }
    if !FsPath::new(dir).is_absolute() {
        return Err(ApiError::BadRequest("work_dir must be an absolute path".into()));
    }
    sandbox::check_work_dir(FsPath::new(dir), &state.config.protected).map_err(ApiError::BadRequest)
}

/// Checks a session's work_dir, creating it if it is missing: an absolute
/// path to a directory that does not contain the database. The same rule for
/// `POST` and `PUT`.
async fn prepare_work_dir(state: &AppState, dir: &str) -> ApiResult<()> {
    check_work_dir(state, dir)?;
    if let Err(e) = tokio::fs::create_dir_all(dir).await {
        return Err(ApiError::BadRequest(format!("cannot use {dir:?} as a work_dir: {e}")));
    }
    if !tokio::fs::metadata(dir).await.is_ok_and(|m| m.is_dir()) {
        return Err(ApiError::BadRequest(format!("work_dir {dir:?} is not a directory")));
    }
    // Checked again now that it exists: a path through a symlink resolves only now.
    check_work_dir(state, dir)
}

async fn create(
    State(state): State<AppState>,
    JsonBody(fields): JsonBody<SessionFields>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    check_fields(&state, &fields).await?;
    let id = new_id();
    let work_dir = match fields.work_dir {
        Some(dir) => dir,
        None => state.config.data_dir.join("sessions").join(&id).to_string_lossy().into_owned(),
    };
    prepare_work_dir(&state, &work_dir).await?;
    let now = Utc::now();
    let session = Session {
        id,
        agent_id: fields.agent_id,
        title: fields.title,
        work_dir,
        metadata: fields.metadata.unwrap_or_else(|| json!({})),
        created_at: now,
        updated_at: now,
    };
    state.store.insert_session(&session).await?;
    Ok((StatusCode::CREATED, Json(with_history(&session, Vec::new()))))
}

/// A session as the original API showed it: its fields and its
/// conversation as `history`, in that API's roles, where tool results are
/// `user` messages (as the Anthropic Messages API has them); a tool result is
/// told apart by its `tool_result` blocks.
fn with_history(session: &Session, messages: Vec<Message>) -> Value {
    let mut body = serde_json::to_value(session).unwrap_or_default();
    let history: Vec<Value> = messages
        .into_iter()
        .map(|m| {
            let role = if m.role == Role::Tool { Role::User } else { m.role };
            json!({"role": role, "content": m.content})
        })
        .collect();
    body["history"] = Value::Array(history);
    body
}

/// Every session with its history, oldest first: a plain array, as the original API answered.
async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<Value>>> {
    let sessions = state.store.list_sessions().await?;
    let mut listed = Vec::with_capacity(sessions.len());
    for session in &sessions {
        listed.push(with_history(session, state.store.session_history(&session.id).await?));
    }
    Ok(Json(listed))
}

async fn find(state: &AppState, id: &str) -> ApiResult<Session> {
    state.store.get_session(id).await?.ok_or_else(|| ApiError::NotFound(format!("session {id}")))
}

async fn show(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    let session = find(&state, &id).await?;
    let history = state.store.session_history(&id).await?;
    Ok(Json(with_history(&session, history)))
}

async fn update(
    State(state): State<AppState>,
    Path(id): Path<String>,
    JsonBody(fields): JsonBody<SessionFields>,
) -> ApiResult<Json<Value>> {
    let mut session = find(&state, &id).await?;
    check_fields(&state, &fields).await?;
    if let Some(dir) = &fields.work_dir {
        prepare_work_dir(&state, dir).await?;
    }
    if fields.agent_id.is_some() {
        session.agent_id = fields.agent_id;
    }
    if fields.title.is_some() {
        session.title = fields.title;
    }
    if let Some(dir) = fields.work_dir {
        session.work_dir = dir;
    }
    if let Some(metadata) = fields.metadata {
        session.metadata = metadata;
    }
    session.updated_at = Utc::now();
    state.store.update_session(&session).await?;
    let history = state.store.session_history(&id).await?;
    Ok(Json(with_history(&session, history)))
}

async fn remove(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Value>> {
    state.store.delete_session(&id).await.map_err(naming(format!("session {id}")))?;
    state.hub.nudge();
    Ok(deleted())
}
