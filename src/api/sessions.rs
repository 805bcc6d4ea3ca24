//! Sessions: conversations with a working directory and an ordered history.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::agents::{self, check_tools};
use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::order::ListOrder;
use super::owned::visible;
use super::runs::check_limit;
use super::schemas::{self, Id, JsonObject};
use super::{deleted, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::branch::{Branch, HistoryAt};
use crate::domain::compaction;
use crate::domain::model::{new_id, Agent, Content, Message, Role, Session};
use crate::domain::toolset::{self, ClientTool, HttpTool, McpServer, ToolAdditions};
use crate::store::{SessionFilter, StoreError};
use crate::submit::checks;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list, create)).routes(routes!(show, update, remove))
}

/// The fields a client may set on a session. On `PUT`, absent fields keep their value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SessionFields {
    /// The agent its messages go to unless a message names another.
    #[schema(value_type = Option<Id>)]
    agent_id: Option<String>,
    #[schema(schema_with = schemas::plain)]
    title: Option<String>,
    /// An absolute path that does not contain the database; by default a
    /// directory of its own under the data directory.
    #[schema(schema_with = schemas::work_dir)]
    work_dir: Option<String>,
    /// Any JSON object, kept as given.
    #[schema(value_type = Option<JsonObject>)]
    metadata: Option<Value>,
    /// Built-in tools this session's runs may use besides the agent's.
    #[schema(schema_with = schemas::tools)]
    tools: Option<Vec<String>>,
    /// HTTP tools this session's runs are offered besides the agent's.
    http_tools: Option<Vec<HttpTool>>,
    /// Client tools this session's runs are offered besides the agent's.
    client_tools: Option<Vec<ClientTool>>,
    /// MCP servers this session's runs use besides the agent's.
    mcp_servers: Option<Vec<McpServer>>,
}

impl SessionFields {
    /// Replaces the tool additions given; absent lists are kept.
    fn apply_tools(&mut self, added: &mut ToolAdditions) {
        if let Some(tools) = self.tools.take() {
            added.tools = tools;
        }
        if let Some(tools) = self.http_tools.take() {
            added.http_tools = tools;
        }
        if let Some(tools) = self.client_tools.take() {
            added.client_tools = tools;
        }
        if let Some(servers) = self.mcp_servers.take() {
            added.mcp_servers = servers;
        }
    }
}

/// The agent a session's run is given: the agent with the session's tool
/// additions. An agent changed since the additions were made may clash
/// with them (a name declared twice, say): the message is refused.
pub fn with_session_tools(agent: &Agent, session: &Session) -> ApiResult<Agent> {
    if session.added_tools.is_empty() {
        return Ok(agent.clone());
    }
    let merged = toolset::with_additions(agent, &session.added_tools);
    check_tools(&merged).map_err(|e| {
        ApiError::Conflict(format!("session {}'s tools do not fit agent {}: {e}", session.id, agent.id))
    })?;
    Ok(merged)
}

/// Checks a session's tool additions on their own and, when the session has
/// an agent, with that agent's tools.
async fn check_added_tools(state: &AppState, session: &Session) -> ApiResult<()> {
    let agent = match &session.agent_id {
        Some(id) => state.store.get_agent(id).await?,
        None => None,
    };
    let base = agent.unwrap_or_else(super::agents::blank_agent);
    let merged = toolset::with_additions(&base, &session.added_tools);
    check_tools(&merged).map_err(ApiError::BadRequest)
}

/// A session as the original API showed it: its fields and its
/// conversation; and the branches its rewinds set aside.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct SessionView {
    #[serde(flatten)]
    session: Session,
    /// The conversation, oldest first (with `?at` or `?branch`, as it was then).
    history: Vec<HistoryMessage>,
    /// The histories its rewinds set aside, oldest first: kept, never deleted.
    branches: Vec<Branch>,
}

/// A message of a session's history. Tool results travel in `user`
/// messages, as in the Anthropic Messages API.
#[derive(Debug, Serialize, ToSchema)]
struct HistoryMessage {
    role: HistoryRole,
    content: Vec<Content>,
}

/// The roles a history shows: a tool's results are the user's, and a
/// compaction marker's role is its own.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum HistoryRole {
    User,
    Assistant,
    /// A compaction marker: one `compaction` block saying what the agent
    /// is sent from here on.
    Compaction,
}

/// Checks a session's fields; its agent must be one the caller may see.
async fn check_fields(state: &AppState, caller: &Caller, fields: &SessionFields) -> ApiResult<()> {
    if let Some(agent_id) = &fields.agent_id {
        agents::find(state, caller, agent_id).await?;
    }
    if fields.metadata.as_ref().is_some_and(|m| !m.is_object()) {
        return Err(ApiError::BadRequest("metadata must be a JSON object".into()));
    }
    if let Some(servers) = &fields.mcp_servers {
        state.config.mcp_commands.check(servers).map_err(ApiError::Unprocessable)?;
    }
    Ok(())
}

/// Creates a session (an empty body is fine).
#[utoipa::path(
    post,
    path = "/sessions",
    tag = "sessions",
    operation_id = "create_session",
    request_body = Option<SessionFields>,
    responses(
        (status = 201, description = "The session, with an empty history", body = SessionView),
        (status = 400, description = "A refused `work_dir`, `metadata` that is not an object, or refused tools", body = ErrorBody),
        (status = 404, description = "No such agent", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; with --work-root, a `work_dir` outside it; a stdio MCP server whose command is not allowed (--allow-mcp-command)", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(mut fields): JsonBody<SessionFields>,
) -> ApiResult<(StatusCode, Json<SessionView>)> {
    check_fields(&state, &caller, &fields).await?;
    let mut added_tools = ToolAdditions::default();
    fields.apply_tools(&mut added_tools);
    let id = new_id();
    let work_dir = work_dir_for(&state, fields.work_dir, &id)?;
    let now = Utc::now();
    let session = Session {
        id,
        owner: caller.owner,
        agent_id: fields.agent_id,
        title: fields.title,
        work_dir,
        metadata: fields.metadata.unwrap_or_else(|| json!({})),
        added_tools,
        forked_from: None,
        created_at: now,
        updated_at: now,
    };
    check_added_tools(&state, &session).await?;
    state.store.insert_session(&session).await?;
    Ok((StatusCode::CREATED, Json(with_history(session, Vec::new(), Vec::new()))))
}

/// The `work_dir` of a new session `id`: a client's path is checked; the
/// default, under the data dir, is the server's own.
pub(super) fn work_dir_for(state: &AppState, given: Option<String>, id: &str) -> ApiResult<String> {
    match given {
        Some(dir) => Ok(checks::work_dir(state.door.config(), &dir).map(|()| dir)?),
        None => Ok(state.door.config().data_dir.join("sessions").join(id).to_string_lossy().into_owned()),
    }
}

/// A session as the original API showed it: its fields and its
/// conversation as `history`, in that API's roles, where tool results are
/// `user` messages (as the Anthropic Messages API has them); a tool result is
/// told apart by its `tool_result` blocks.
fn with_history(session: Session, messages: Vec<Message>, branches: Vec<Branch>) -> SessionView {
    let history = messages
        .into_iter()
        .map(|m| {
            let role = match m.role {
                _ if compaction::marker_of(&m).is_some() => HistoryRole::Compaction,
                Role::Assistant => HistoryRole::Assistant,
                Role::User | Role::Tool => HistoryRole::User,
            };
            HistoryMessage { role, content: m.content }
        })
        .collect();
    SessionView { session, history, branches }
}

/// A session as it is now, with its history and branches.
pub(super) async fn view(state: &AppState, session: Session) -> ApiResult<SessionView> {
    view_at(state, session, &HistoryAt::Live).await
}

/// A session with its history as it was at `at`, and its branches.
async fn view_at(state: &AppState, session: Session, at: &HistoryAt) -> ApiResult<SessionView> {
    let history = match at {
        HistoryAt::Live => state.store.session_history(&session.id).await?,
        at => state.store.session_history_at(&session.id, at).await.map_err(|e| match (e, at) {
            (StoreError::NotFound("run"), HistoryAt::AfterRun(run)) => {
                ApiError::NotFound(format!("run {run} of session {}", session.id))
            }
            (StoreError::NotFound("run"), HistoryAt::BranchAfterRun(n, run)) => {
                ApiError::NotFound(format!("run {run} of branch {n} of session {}", session.id))
            }
            (StoreError::NotFound("branch"), HistoryAt::Branch(n)) => {
                ApiError::NotFound(format!("branch {n} of session {}", session.id))
            }
            (other, _) => other.into(),
        })?,
    };
    let branches = state.store.session_branches(&session.id).await?;
    Ok(with_history(session, history, branches))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Sessions per page; every session when absent.
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The last session ID of the page before.
    after: Option<String>,
    /// `asc` (oldest first, the default) or `desc`.
    #[serde(default)]
    #[param(value_type = Option<ListOrder>)]
    order: ListOrder,
}

/// Sessions with their histories, oldest first: a plain array, as the
/// original API answered; every session unless `limit` asks for a page
/// (the next one starts `after` the last ID).
#[utoipa::path(
    get,
    path = "/sessions",
    tag = "sessions",
    operation_id = "list_sessions",
    params(ListQuery),
    responses(
        (status = 200, description = "The sessions, oldest first unless `order=desc`", body = Vec<SessionView>),
        (status = 400, description = "A limit out of range, an unknown order or parameter", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    QueryParams(q): QueryParams<ListQuery>,
) -> ApiResult<Json<Vec<SessionView>>> {
    // Every session when no limit is given, as the original API answered.
    let limit = q.limit.map(|l| check_limit(Some(l), l, 500)).transpose()?;
    let filter = SessionFilter { owner: caller.only(), after: q.after, limit, order: q.order.into() };
    let sessions = state.store.list_sessions(&filter).await?;
    let mut listed = Vec::with_capacity(sessions.len());
    for session in sessions {
        listed.push(view(&state, session).await?);
    }
    Ok(Json(listed))
}

/// The session `id`, if the caller may see it.
pub async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Session> {
    visible(caller, state.store.get_session(id).await?, || format!("session {id}"))
}

/// One session with its history.
#[utoipa::path(
    get,
    path = "/sessions/{id}",
    tag = "sessions",
    operation_id = "get_session",
    params(("id" = Id, Path, description = "The session's ID"), ShowQuery),
    responses(
        (status = 200, description = "The session", body = SessionView),
        (status = 400, description = "An unknown parameter, or `branch` not a number", body = ErrorBody),
        (status = 404, description = "No such session, run of it or branch", body = ErrorBody),
        (status = 409, description = "`at` names a run that added nothing to the history", body = ErrorBody),
    )
)]
async fn show(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<ShowQuery>,
) -> ApiResult<Json<SessionView>> {
    let at = match (q.at, q.branch) {
        (Some(run_id), Some(branch)) => HistoryAt::BranchAfterRun(branch, run_id),
        (Some(run_id), None) => HistoryAt::AfterRun(run_id),
        (None, Some(branch)) => HistoryAt::Branch(branch),
        (None, None) => HistoryAt::Live,
    };
    let session = find(&state, &caller, &id).await?;
    Ok(Json(view_at(&state, session, &at).await?))
}

/// Which history `GET /sessions/{id}` answers: the one its runs are sent
/// now unless one of these is given.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ShowQuery {
    /// A run of the session: the history as it was after that run ended
    /// (with `branch`, a run of that branch).
    #[param(value_type = Option<Id>)]
    at: Option<String>,
    /// A branch the session lists: its history as it was when set aside
    /// (with `at`, up to the end of that run).
    #[param(minimum = 1)]
    branch: Option<i64>,
}

/// Replaces the fields given; absent ones are kept.
#[utoipa::path(
    put,
    path = "/sessions/{id}",
    tag = "sessions",
    operation_id = "update_session",
    params(("id" = Id, Path, description = "The session's ID")),
    request_body = Option<SessionFields>,
    responses(
        (status = 200, description = "The session as changed", body = SessionView),
        (status = 400, description = "A refused `work_dir`, `metadata` that is not an object, or refused tools", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; with --work-root, a `work_dir` outside it; a stdio MCP server whose command is not allowed (--allow-mcp-command)", body = ErrorBody),
    )
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    JsonBody(mut fields): JsonBody<SessionFields>,
) -> ApiResult<Json<SessionView>> {
    let mut session = find(&state, &caller, &id).await?;
    check_fields(&state, &caller, &fields).await?;
    fields.apply_tools(&mut session.added_tools);
    if let Some(dir) = &fields.work_dir {
        checks::work_dir(state.door.config(), dir)?;
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
    if let Some(metadata) = fields.metadata.take() {
        session.metadata = metadata;
    }
    check_added_tools(&state, &session).await?;
    session.updated_at = Utc::now();
    state.store.update_session(&session).await?;
    Ok(Json(view(&state, session).await?))
}

/// Deletes a session: its unfinished runs are cancelled, its history is
/// deleted, its runs stay readable.
#[utoipa::path(
    delete,
    path = "/sessions/{id}",
    tag = "sessions",
    operation_id = "delete_session",
    params(("id" = Id, Path, description = "The session's ID")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 404, description = "No such session", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    find(&state, &caller, &id).await?;
    state.store.delete_session(&id).await.map_err(naming(format!("session {id}")))?;
    state.hub.nudge();
    Ok(deleted())
}
