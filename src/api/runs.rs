//! Runs: submitting messages, reading runs, tailing their events, cancelling.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::error::{naming, naming_submission, ApiError, ApiResult};
use super::extract::{JsonBody, QueryParams};
use super::{sse, AppState};
use crate::model::{new_id, MultitaskStrategy, Run, RunInput, RunKind, RunStatus};
use crate::store::{Enqueued, IdempotencyKey, NewRun, Order, RunFilter};

/// The largest message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/runs", get(list))
        .route("/runs/{id}", get(show))
        .route("/runs/{id}/events", get(events))
        .route("/runs/{id}/cancel", post(cancel))
        .route("/sessions/{id}/message", post(submit_message))
        .route("/sessions/{id}/message/stream", post(submit_message_stream))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageBody {
    agent_id: Option<String>,
    /// `prompt` is the name an early version of the original API used.
    #[serde(alias = "prompt")]
    message: String,
    /// What becomes of the session's unfinished runs (default `enqueue`).
    #[serde(default)]
    multitask_strategy: MultitaskStrategy,
}

#[derive(Debug, Deserialize, Default)]
pub struct WaitQuery {
    #[serde(default)]
    pub wait: bool,
}

/// Writes the run (and nothing else happens here: a worker picks it up).
async fn enqueue(state: &AppState, session_id: &str, headers: &HeaderMap, body: MessageBody) -> ApiResult<Enqueued> {
    if body.message.trim().is_empty() {
        return Err(ApiError::BadRequest("message must not be empty".into()));
    }
    if body.message.len() > MAX_MESSAGE_BYTES {
        return Err(ApiError::BadRequest(format!("message is longer than {MAX_MESSAGE_BYTES} bytes")));
    }
    let session = state
        .store
        .get_session(session_id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("session {session_id}")))?;
    let agent_id =
        body.agent_id.clone().or(session.agent_id.clone()).ok_or_else(|| {
            ApiError::Unprocessable("agent_id is required: the session has no agent of its own".into())
        })?;
    let agent =
        state.store.get_agent(&agent_id).await?.ok_or_else(|| ApiError::NotFound(format!("agent {agent_id}")))?;
    let strategy = serde_json::to_string(&body.multitask_strategy).unwrap_or_default();
    let key = idempotency_key(headers, &format!("message:{session_id}"), &[&agent_id, &body.message, &strategy])?;
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(session_id.to_string()),
        agent,
        input: RunInput { message: body.message, instructions: None, data: None },
        work_dir: session.work_dir,
        max_attempts: state.config.max_attempts,
        strategy: body.multitask_strategy,
    };
    let enqueued =
        state.store.enqueue_run(run, key).await.map_err(naming_submission(format!("session {session_id}")))?;
    state.changed();
    Ok(enqueued)
}

/// Reads the `Idempotency-Key` header, hashing what identifies the request.
pub fn idempotency_key(headers: &HeaderMap, scope: &str, parts: &[&str]) -> ApiResult<Option<IdempotencyKey>> {
    let Some(value) = headers.get("idempotency-key") else { return Ok(None) };
    let key = value.to_str().map_err(|_| ApiError::BadRequest("Idempotency-Key must be visible ASCII".into()))?;
    if key.is_empty() || key.len() > 255 {
        return Err(ApiError::BadRequest("Idempotency-Key must be 1 to 255 characters".into()));
    }
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let request_hash = format!("{:x}", hash.finalize());
    Ok(Some(IdempotencyKey { scope: scope.to_string(), key: key.to_string(), request_hash }))
}

async fn submit_message(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &session_id, &headers, body).await?;
    let run = enqueued.run;
    if query.wait {
        let (settled, approval) = wait_for(&state, &run.id).await?;
        let mut body = result_of(&settled);
        if let Some(approval) = approval {
            body["approval"] = approval;
        }
        return Ok((StatusCode::OK, Json(body)).into_response());
    }
    let body = json!({
        "run_id": run.id, "status": run.status, "session_id": run.session_id,
        "agent_id": run.agent_id, "created_at": crate::model::timestamp::format(&run.created_at),
    });
    Ok(accepted(format!("/runs/{}", run.id), body, !enqueued.created))
}

/// The answer of an accepted submission: `202`, where to find what it made,
/// and `Idempotent-Replayed: true` when an idempotency key matched an earlier one.
pub fn accepted(location: String, body: Value, replayed: bool) -> Response {
    let mut answer = (StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(body)).into_response();
    if replayed {
        answer.headers_mut().insert("idempotent-replayed", "true".parse().expect("static header"));
    }
    answer
}

async fn submit_message_stream(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &session_id, &headers, body).await?;
    Ok(sse::stream(&state, &enqueued.run.id, 0, sse::Dialect::Seed))
}

/// Follows the run's events until it ends or waits for a person, then reads
/// the run; for a waiting run, also what it waits for (`step`, `calls`).
async fn wait_for(state: &AppState, run_id: &str) -> ApiResult<(Run, Option<Value>)> {
    let mut events = state.hub.tail(run_id, 0);
    while let Some(event) = events.recv().await {
        let event = event?;
        if event.is_terminal() {
            break;
        }
        if event.kind == "approval_requested" {
            let run = read_run(state, run_id).await?;
            if run.status == RunStatus::Waiting {
                return Ok((run, Some(Value::Object(event.data))));
            }
        }
    }
    Ok((read_run(state, run_id).await?, None))
}

async fn read_run(state: &AppState, run_id: &str) -> ApiResult<Run> {
    state.store.get_run(run_id).await?.ok_or_else(|| ApiError::NotFound(format!("run {run_id}")))
}

/// The answer of `?wait=true`: the original API's blocking answer
/// (`response`, `tool_calls`, `usage`, `steps`) with the run's ID and status.
/// Each tool call carries `tool_name`, which in that API holds the call's ID
/// (its tool's name is `name`).
fn result_of(run: &Run) -> Value {
    let tool_calls: Vec<Value> = run
        .tool_calls
        .iter()
        .map(|call| {
            let mut call = call.clone();
            call["tool_name"] = call["call_id"].clone();
            call
        })
        .collect();
    let mut body = json!({
        "run_id": run.id, "status": run.status, "response": run.response.as_deref().unwrap_or(""),
        "tool_calls": tool_calls, "usage": run.usage, "steps": run.steps,
    });
    if let Some(error) = &run.error {
        body["error"] = json!(error);
    }
    body
}

async fn show(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Run>> {
    Ok(Json(read_run(&state, &id).await?))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    session_id: Option<String>,
    status: Option<String>,
    limit: Option<u32>,
    after: Option<String>,
    #[serde(default)]
    order: Order,
}

async fn list(State(state): State<AppState>, QueryParams(q): QueryParams<ListQuery>) -> ApiResult<Json<Value>> {
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(RunStatus::parse(s).ok_or_else(|| ApiError::BadRequest(format!("unknown status {s:?}")))?),
    };
    let limit = q.limit.unwrap_or(50);
    if limit == 0 || limit > 500 {
        return Err(ApiError::BadRequest("limit must be between 1 and 500".into()));
    }
    let filter = RunFilter { session_id: q.session_id, status, after: q.after, limit, order: q.order };
    let runs = state.store.list_runs(&filter).await?;
    let next = if runs.len() as u32 == limit { runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(json!({"runs": runs, "next_after": next})))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    pub after: Option<u64>,
}

async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    QueryParams(q): QueryParams<EventsQuery>,
) -> ApiResult<Response> {
    let run = read_run(&state, &id).await?;
    sse::events_answer(&state, &id, run.status.is_terminal(), &headers, q.after, sse::Dialect::Wingman).await
}

async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<(StatusCode, Json<Run>)> {
    let run = state.store.cancel_run(&id).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
