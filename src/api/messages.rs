//! Messages: `POST /sessions/{id}/message` enqueues a run for the session's
//! agent and answers `202` at once, or with `?wait=true` the original API's
//! blocking answer; `/message/stream` answers with the run's events.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::peer::{unless_hung_up, Peer};
use super::runs::{accepted, envelope, WaitQuery};
use super::schemas::{self, Id, IdempotencyKey};
use super::sse::{self, MessageStreamFrame};
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::approval::WaitingCall;
use crate::domain::checkpoint;
use crate::domain::model::{timestamp, Concurrency, MultitaskStrategy, Run, RunStatus, ToolCallRecord, Usage};
use crate::domain::webhook::Webhook;
use crate::submit::MessageSubmission;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(submit_message)).routes(routes!(submit_message_stream))
}

/// A message for a session's agent. `prompt` is accepted for `message`, as
/// an early version of the original API named it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct MessageBody {
    /// The agent to run; the session's by default.
    #[schema(value_type = Option<Id>)]
    agent_id: Option<String>,
    /// Not blank; at most 256 KiB.
    #[serde(alias = "prompt")]
    #[schema(schema_with = schemas::message)]
    message: String,
    /// What becomes of the session's unfinished runs (default `enqueue`).
    #[serde(default)]
    multitask_strategy: MultitaskStrategy,
    /// The reasoning level of this message's run, over its agent's.
    #[schema(schema_with = schemas::reasoning)]
    reasoning: Option<String>,
    /// A budget in US dollars for this run, at most the agent's `max_cost_usd`.
    #[schema(schema_with = max_cost_usd)]
    max_cost_usd: Option<f64>,
    /// Where the run's end is announced; the agent's `webhook` by default.
    webhook: Option<Webhook>,
    #[schema(schema_with = schemas::priority)]
    priority: Option<i64>,
    /// At most `limit` runs with this key run at once.
    concurrency: Option<Concurrency>,
    /// A run of this session that this message replaces (edit and
    /// regenerate): the session is first rewound to just before it, its
    /// history from there set aside as a branch, in the same transaction.
    /// Refused (409) while the session has a queued or running run.
    #[schema(value_type = Option<Id>)]
    replace: Option<String>,
}

fn max_cost_usd() -> utoipa::openapi::schema::Schema {
    schemas::budget_usd("A budget in US dollars for this run: it may lower the agent's `max_cost_usd`, not raise it")
}

impl MessageBody {
    /// The body as the door takes it, for `session_id`.
    fn submission(self, session_id: &str) -> MessageSubmission {
        MessageSubmission {
            session_id: session_id.to_string(),
            agent_id: self.agent_id,
            message: self.message,
            strategy: self.multitask_strategy,
            reasoning: self.reasoning,
            max_cost_usd: self.max_cost_usd,
            webhook: self.webhook,
            replace: self.replace,
        }
    }
}

/// The answer of an accepted message: the run it made.
#[derive(Debug, Serialize, ToSchema)]
pub(super) struct MessageAccepted {
    run_id: String,
    status: RunStatus,
    session_id: Option<String>,
    agent_id: String,
    #[serde(with = "timestamp")]
    created_at: DateTime<Utc>,
}

impl From<Run> for MessageAccepted {
    fn from(run: Run) -> MessageAccepted {
        MessageAccepted {
            run_id: run.id,
            status: run.status,
            session_id: run.session_id,
            agent_id: run.agent_id,
            created_at: run.created_at,
        }
    }
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
    /// For a run that waits for its client's tool results: the calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls_requested: Option<Approval>,
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

/// What a waiting run asks about: a person's decision (its
/// `approval_requested` event) or its client's results (`tool_calls_requested`).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
struct Approval {
    step: u32,
    calls: Vec<WaitingCall>,
}

/// Enqueues a message for the session's agent as a run: `202` at once, or
/// with `?wait=true` the run's result (`200`) once it ends or waits for a person.
#[utoipa::path(
    post,
    path = "/sessions/{id}/message",
    tag = "runs",
    operation_id = "send_message",
    params(
        ("id" = Id, Path, description = "The session's ID"),
        WaitQuery,
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first run"),
    ),
    request_body = MessageBody,
    responses(
        (status = 200, description = "With `?wait=true`: the run's result (a failed run too), or what a waiting run waits for", body = MessageResult),
        (status = 202, description = "The run, committed and queued", body = MessageAccepted,
            headers(
                ("Location" = String, description = "`/runs/{run_id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "An empty or oversized message, malformed JSON, a priority outside -10..10, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run; or the session's added tools clash with its agent's", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn submit_message(
    State(state): State<AppState>,
    caller: Caller,
    Path(session_id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
    JsonBody(mut body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency.take())?;
    let enqueued = state.door.message(&envelope, body.submission(&session_id)).await?;
    let run = enqueued.run;
    if query.wait {
        let (settled, approval) = unless_hung_up(peer.map(|p| p.0), wait_for(&state, &run.id)).await?;
        return Ok((StatusCode::OK, Json(result_of(settled, approval))).into_response());
    }
    let location = format!("/runs/{}", run.id);
    Ok(accepted(location, MessageAccepted::from(run), !enqueued.created))
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
        ("id" = Id, Path, description = "The session's ID"),
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "As for `POST /sessions/{id}/message`"),
    ),
    request_body = MessageBody,
    responses(
        (status = 200, description = "The run's events until its `done`: frames `id: <seq>`, `event: <type>`, `data: <event JSON>`", content_type = "text/event-stream", body = MessageStreamFrame),
        (status = 400, description = "An empty or oversized message, malformed JSON, a priority outside -10..10, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run; or the session's added tools clash with its agent's", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn submit_message_stream(
    State(state): State<AppState>,
    caller: Caller,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    JsonBody(mut body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency.take())?;
    let enqueued = state.door.message(&envelope, body.submission(&session_id)).await?;
    Ok(sse::stream(&state, &enqueued.run.id, 0, sse::Dialect::Seed))
}

/// The run just submitted (the caller's, since its session is).
async fn read_run(state: &AppState, run_id: &str) -> ApiResult<Run> {
    state.store.get_run(run_id).await?.ok_or_else(|| ApiError::NotFound(format!("run {run_id}")))
}

/// Follows the run's events until it ends or waits (for a person, or for
/// its client's tool results), then reads the run; for a waiting run, also
/// the event that says what it waits for (`step`, `calls`).
async fn wait_for(state: &AppState, run_id: &str) -> ApiResult<(Run, Option<(String, Approval)>)> {
    let mut tail = state.hub.tail(run_id, 0, "run_id");
    while let Some(frame) = tail.next().await {
        let frame = frame?;
        if frame.is_terminal() {
            break;
        }
        if frame.kind() == "approval_requested" || frame.kind() == "tool_calls_requested" {
            let run = read_run(state, run_id).await?;
            if run.status == RunStatus::Waiting {
                // The frame is the event's bytes: its fields are read from the log.
                let event = state.store.read_events(run_id, frame.seq() - 1, 1).await?.pop();
                let event = event
                    .ok_or_else(|| ApiError::Internal(format!("event {} of run {run_id} is gone", frame.seq())))?;
                let asked = serde_json::from_value(Value::Object(event.data))
                    .map_err(|e| ApiError::Internal(format!("a {} event of run {run_id}: {e}", event.kind)))?;
                return Ok((so_far(state, run).await?, Some((event.kind, asked))));
            }
        }
    }
    Ok((read_run(state, run_id).await?, None))
}

/// A waiting run with what its steps so far add up to: its row holds the
/// sums only once it ends, and a run that waits has already taken steps.
/// Its `tool_calls` are those that have their results (the calls it waits
/// on are in the answer's `approval` or `tool_calls_requested`).
async fn so_far(state: &AppState, run: Run) -> ApiResult<Run> {
    let ctx = state.store.load_run(&run.id).await?;
    let summary = checkpoint::summarize(&ctx.run.input, &ctx.checkpoints, run.status);
    let tool_calls = summary.tool_calls.into_iter().filter(|c| c.output.is_some()).collect();
    Ok(Run { steps: summary.steps, usage: summary.usage, tool_calls, ..run })
}

/// The answer of `?wait=true`: the original API's blocking answer
/// (`response`, `tool_calls`, `usage`, `steps`) with the run's ID and status.
/// Each tool call carries `tool_name`, which in that API holds the call's ID
/// (its tool's name is `name`).
fn result_of(run: Run, waiting: Option<(String, Approval)>) -> MessageResult {
    let (approval, tool_calls_requested) = match waiting {
        Some((kind, asked)) if kind == "tool_calls_requested" => (None, Some(asked)),
        Some((_, asked)) => (Some(asked), None),
        None => (None, None),
    };
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
        tool_calls_requested,
    }
}
