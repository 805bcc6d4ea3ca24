//! Sessions: conversations with a working directory and an ordered history.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::{naming, ApiError, ApiResult};
use super::extract::{JsonBody, QueryParams};
use super::{deleted, work_dir, AppState};
use crate::model::{new_id, Message, Role, Session};
use crate::store::{Order, SessionFilter};

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

async fn create(
    State(state): State<AppState>,
    JsonBody(fields): JsonBody<SessionFields>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    check_fields(&state, &fields).await?;
    let id = new_id();
    // A client's path is checked; the default, under the data dir, is the server's own.
    let work_dir = match fields.work_dir {
        Some(dir) => work_dir::check(&state, &dir).map(|()| dir)?,
        None => state.config.data_dir.join("sessions").join(&id).to_string_lossy().into_owned(),
    };
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    limit: Option<u32>,
    after: Option<String>,
    #[serde(default)]
    order: Order,
}

/// Sessions with their histories, oldest first: a plain array, as the
/// original API answered; every session unless `limit` asks for a page
/// (the next one starts `after` the last ID).
async fn list(State(state): State<AppState>, QueryParams(q): QueryParams<ListQuery>) -> ApiResult<Json<Vec<Value>>> {
    if q.limit.is_some_and(|l| l == 0 || l > 500) {
        return Err(ApiError::BadRequest("limit must be between 1 and 500".into()));
    }
    let filter = SessionFilter { after: q.after, limit: q.limit, order: q.order };
    let sessions = state.store.list_sessions(&filter).await?;
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
        work_dir::check(&state, dir)?;
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
