//! Runs: submitting messages, reading runs, tailing their events, cancelling.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, naming_submission, ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::sse::{self, EventFrame, LoggedEvent, MessageStreamFrame};
use super::AppState;
use crate::approval::WaitingCall;
use crate::model::{new_id, timestamp, MultitaskStrategy, Run, RunInput, RunKind, RunStatus, ToolCallRecord, Usage};
use crate::store::{Enqueued, IdempotencyKey, NewRun, RunFilter};

/// The largest message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default()
        .routes(routes!(list))
        .routes(routes!(show))
        .routes(routes!(events))
        .routes(routes!(cancel))
        .routes(routes!(submit_message))
        .routes(routes!(submit_message_stream))
}

/// A message for a session's agent. `prompt` is accepted for `message`, as
/// an early version of the original API named it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageBody {
    /// The agent to run; the session's by default.
    agent_id: Option<String>,
    /// Not empty; at most 256 KiB.
    #[serde(alias = "prompt")]
    message: String,
    /// What becomes of the session's unfinished runs (default `enqueue`).
    #[serde(default)]
    multitask_strategy: MultitaskStrategy,
}

/// `?wait=true`: answer when the work has ended, in the original API's shape.
#[derive(Debug, Deserialize, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WaitQuery {
    /// Follow the work to its end and answer with its result (`200`)
    /// instead of `202` at once.
    #[serde(default)]
    pub wait: bool,
}

/// The answer of an accepted message: the run it made.
#[derive(Debug, Serialize, ToSchema)]
struct MessageAccepted {
    run_id: String,
    status: RunStatus,
    session_id: Option<String>,
    agent_id: String,
    #[serde(with = "timestamp")]
    created_at: DateTime<Utc>,
}

/// The answer of `?wait=true`: the original API's blocking answer with the
/// run's ID and status.
#[derive(Debug, Serialize, ToSchema)]
struct MessageResult {
    run_id: String,
    status: RunStatus,
    /// The final answer's text (empty while there is none).
    response: String,
    tool_calls: Vec<BlockingToolCall>,
    usage: Usage,
    steps: u32,
    /// Why the run failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// For a run that waits for a person: what it waits for.
    #[serde(skip_serializing_if = "Option::is_none")]
    approval: Option<Approval>,
}

/// A tool call as the original API's blocking answer showed it: its
/// `tool_name` holds the call's ID (the tool's name is `name`).
#[derive(Debug, Serialize, ToSchema)]
struct BlockingToolCall {
    #[serde(flatten)]
    call: ToolCallRecord,
    /// The call's ID, under the original API's name for it.
    tool_name: String,
}

/// What a waiting run asks a person about (its `approval_requested` event).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
struct Approval {
    step: u32,
    calls: Vec<WaitingCall>,
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

/// Enqueues a message for the session's agent as a run: `202` at once, or
/// with `?wait=true` the run's result (`200`) once it ends or waits for a person.
#[utoipa::path(
    post,
    path = "/sessions/{id}/message",
    tag = "runs",
    operation_id = "send_message",
    params(
        ("id" = String, Path, description = "The session's ID"),
        WaitQuery,
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first run"),
    ),
    request_body = MessageBody,
    responses(
        (status = 200, description = "With `?wait=true`: the run's result (a failed run too), or what a waiting run waits for", body = MessageResult),
        (status = 202, description = "The run, committed and queued", body = MessageAccepted,
            headers(
                ("Location" = String, description = "`/runs/{run_id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "An empty or oversized message, malformed JSON, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
    )
)]
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
        return Ok((StatusCode::OK, Json(result_of(settled, approval))).into_response());
    }
    let location = format!("/runs/{}", run.id);
    let body = MessageAccepted {
        run_id: run.id,
        status: run.status,
        session_id: run.session_id,
        agent_id: run.agent_id,
        created_at: run.created_at,
    };
    Ok(accepted(location, body, !enqueued.created))
}

/// The answer of an accepted submission: `202`, where to find what it made,
/// and `Idempotent-Replayed: true` when an idempotency key matched an earlier one.
pub fn accepted(location: String, body: impl Serialize, replayed: bool) -> Response {
    let mut answer = (StatusCode::ACCEPTED, [(header::LOCATION, location)], Json(body)).into_response();
    if replayed {
        answer.headers_mut().insert("idempotent-replayed", "true".parse().expect("static header"));
    }
    answer
}

/// Enqueues like `POST /sessions/{id}/message`, then answers with the run's
/// events as SSE: `run_queued` first, the original API's `message_stop`
/// after each `step_completed`, and `done` last.
#[utoipa::path(
    post,
    path = "/sessions/{id}/message/stream",
    tag = "runs",
    operation_id = "send_message_stream",
    params(
        ("id" = String, Path, description = "The session's ID"),
        ("Idempotency-Key" = Option<String>, Header, description = "As for `POST /sessions/{id}/message`"),
    ),
    request_body = MessageBody,
    responses(
        (status = 200, description = "The run's events until its `done`: frames `id: <seq>`, `event: <type>`, `data: <event JSON>`", content_type = "text/event-stream", body = MessageStreamFrame),
        (status = 400, description = "An empty or oversized message, malformed JSON, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
    )
)]
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
async fn wait_for(state: &AppState, run_id: &str) -> ApiResult<(Run, Option<Approval>)> {
    let mut events = state.hub.tail(run_id, 0);
    while let Some(event) = events.recv().await {
        let event = event?;
        if event.is_terminal() {
            break;
        }
        if event.kind == "approval_requested" {
            let run = read_run(state, run_id).await?;
            if run.status == RunStatus::Waiting {
                let approval = serde_json::from_value(Value::Object(event.data))
                    .map_err(|e| ApiError::Internal(format!("an approval_requested event of run {run_id}: {e}")))?;
                return Ok((run, Some(approval)));
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
fn result_of(run: Run, approval: Option<Approval>) -> MessageResult {
    let tool_calls =
        run.tool_calls.into_iter().map(|call| BlockingToolCall { tool_name: call.call_id.clone(), call }).collect();
    MessageResult {
        run_id: run.id,
        status: run.status,
        response: run.response.unwrap_or_default(),
        tool_calls,
        usage: run.usage,
        steps: run.steps,
        error: run.error,
        approval,
    }
}

/// One run.
#[utoipa::path(
    get,
    path = "/runs/{id}",
    tag = "runs",
    operation_id = "get_run",
    params(("id" = String, Path, description = "The run's ID")),
    responses(
        (status = 200, description = "The run", body = Run),
        (status = 404, description = "No such run", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Run>> {
    Ok(Json(read_run(&state, &id).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Only this session's runs.
    session_id: Option<String>,
    /// Only runs in this status.
    #[param(value_type = Option<RunStatus>)]
    status: Option<String>,
    /// Runs per page (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The `next_after` of the page before.
    after: Option<String>,
}

/// A page of runs.
#[derive(Debug, Serialize, ToSchema)]
struct RunPage {
    /// In submission order.
    runs: Vec<Run>,
    /// Pass as `after` for the next page; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<String>,
}

/// Runs in submission order, a page at a time.
#[utoipa::path(
    get,
    path = "/runs",
    tag = "runs",
    operation_id = "list_runs",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of runs", body = RunPage),
        (status = 400, description = "An unknown status, a limit out of range, an unknown parameter", body = ErrorBody),
    )
)]
async fn list(State(state): State<AppState>, QueryParams(q): QueryParams<ListQuery>) -> ApiResult<Json<RunPage>> {
    let status = match q.status.as_deref() {
        None => None,
        Some(s) => Some(RunStatus::parse(s).ok_or_else(|| ApiError::BadRequest(format!("unknown status {s:?}")))?),
    };
    let limit = q.limit.unwrap_or(50);
    if limit == 0 || limit > 500 {
        return Err(ApiError::BadRequest("limit must be between 1 and 500".into()));
    }
    let filter = RunFilter { session_id: q.session_id, status, after: q.after, limit };
    let runs = state.store.list_runs(&filter).await?;
    let next_after = if runs.len() as u32 == limit { runs.last().map(|r| r.id.clone()) } else { None };
    Ok(Json(RunPage { runs, next_after }))
}

/// Where a log's events start.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The events after this `seq` (0, the default, is from the start);
    /// `Last-Event-ID` wins over it.
    pub after: Option<u64>,
}

/// A run's events: with `Accept: text/event-stream`, SSE (replay after
/// `Last-Event-ID` or `?after=N`, then live, closed after `done`; `204` once
/// a finished run's log is all read); otherwise a JSON array of the events
/// after `?after=N`.
#[utoipa::path(
    get,
    path = "/runs/{id}/events",
    tag = "runs",
    operation_id = "run_events",
    params(
        ("id" = String, Path, description = "The run's ID"),
        EventsQuery,
        ("Last-Event-ID" = Option<u64>, Header, description = "The last `seq` the client has (a reconnecting EventSource sends it)"),
    ),
    responses(
        (status = 200, description = "The events: a JSON array, or with `Accept: text/event-stream` an SSE stream of frames `id: <seq>`, `event: <type>`, `data: <event JSON>`",
            content(
                (Vec<LoggedEvent> = "application/json"),
                (EventFrame = "text/event-stream"),
            )),
        (status = 204, description = "With `Accept: text/event-stream`: the run has ended and the client has every event"),
        (status = 400, description = "A bad `Last-Event-ID` or `after`", body = ErrorBody),
        (status = 404, description = "No such run", body = ErrorBody),
    )
)]
async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    QueryParams(q): QueryParams<EventsQuery>,
) -> ApiResult<Response> {
    let run = read_run(&state, &id).await?;
    sse::events_answer(&state, &id, run.status.is_terminal(), &headers, q.after, sse::Dialect::Wingman).await
}

/// Cancels a queued, waiting or running run (a running one's tool is killed
/// within a heartbeat).
#[utoipa::path(
    post,
    path = "/runs/{id}/cancel",
    tag = "runs",
    operation_id = "cancel_run",
    params(("id" = String, Path, description = "The run's ID")),
    responses(
        (status = 202, description = "The cancelled run", body = Run),
        (status = 404, description = "No such run", body = ErrorBody),
        (status = 409, description = "The run has already ended", body = ErrorBody),
    )
)]
async fn cancel(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<(StatusCode, Json<Run>)> {
    let run = state.store.cancel_run(&id).await.map_err(naming(format!("run {id}")))?;
    state.changed();
    Ok((StatusCode::ACCEPTED, Json(run)))
}
