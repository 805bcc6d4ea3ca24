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

use super::error::{naming_submission, ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::peer::{unless_hung_up, Peer};
use super::runs::{accepted, check_message, read_run, KeyFrom, WaitQuery};
use super::schemas::{self, Id, IdempotencyKey};
use super::sse::{self, MessageStreamFrame};
use super::AppState;
use crate::approval::WaitingCall;
use crate::guard;
use crate::model::{
    new_id, timestamp, Agent, MultitaskStrategy, Reasoning, Run, RunInput, RunKind, RunStatus, Session, ToolCallRecord,
    Usage,
};
use crate::store::{Enqueued, NewRun};
use crate::webhook::Webhook;

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
}

fn max_cost_usd() -> utoipa::openapi::schema::Schema {
    schemas::budget_usd("A budget in US dollars for this run: it may lower the agent's `max_cost_usd`, not raise it")
}

/// Checks a message's budget: positive, and no more than its agent's.
fn check_budget(asked: Option<f64>, agent: &Agent) -> ApiResult<()> {
    let Some(asked) = asked else { return Ok(()) };
    guard::check_cost(asked).map_err(|e| ApiError::BadRequest(format!("max_cost_usd {e}")))?;
    match agent.guards.max_cost_usd {
        Some(limit) if asked > limit => Err(ApiError::BadRequest(format!(
            "max_cost_usd {asked} is more than the agent's ({limit}): a message may only lower its agent's budget"
        ))),
        _ => Ok(()),
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

/// Writes the run (and nothing else happens here: a worker picks it up).
pub(super) async fn enqueue(
    state: &AppState,
    session_id: &str,
    keyed: KeyFrom<'_>,
    body: MessageBody,
) -> ApiResult<Enqueued> {
    check_message(&body.message).map_err(ApiError::BadRequest)?;
    let reasoning = body.reasoning.as_deref().map(|r| Reasoning::parse_field("reasoning", r));
    let reasoning = reasoning.transpose().map_err(ApiError::BadRequest)?;
    let (session, agent_id, agent) = session_agent(state, session_id, body.agent_id.as_deref()).await?;
    check_budget(body.max_cost_usd, &agent)?;
    let webhook = super::webhooks::url_of(&state.config.webhooks, body.webhook.as_ref(), agent.webhook.as_ref())?;
    let strategy = serde_json::to_string(&body.multitask_strategy).unwrap_or_default();
    // What a key stands for. A reasoning level and a budget join it only
    // when given, named so neither reads as the other, so that keys stored
    // before either field existed still match their requests.
    let reasoning_part = body.reasoning.as_deref().map(|r| format!("reasoning={r}"));
    let budget_part = body.max_cost_usd.map(|usd| format!("max_cost_usd={usd}"));
    let mut parts = vec![agent_id.as_str(), body.message.as_str(), strategy.as_str()];
    parts.extend(reasoning_part.as_deref());
    parts.extend(budget_part.as_deref());
    let webhook_part = body.webhook.as_ref().map(|hook| format!("webhook={}", hook.url));
    parts.extend(webhook_part.as_deref());
    let key = keyed.key(&format!("message:{session_id}"), &parts)?;
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(session_id.to_string()),
        agent,
        input: RunInput {
            message: body.message,
            reasoning,
            max_cost_usd: body.max_cost_usd,
            webhook,
            traceparent: Some(keyed.traceparent()),
            ..Default::default()
        },
        work_dir: session.work_dir,
        max_attempts: state.config.max_attempts,
        strategy: body.multitask_strategy,
    };
    let enqueued =
        state.store.enqueue_run(run, key).await.map_err(naming_submission(format!("session {session_id}")))?;
    state.changed();
    Ok(enqueued)
}

/// A session, and the agent (with the session's added tools) that a run
/// for it uses: `agent_id` if given, else the session's own.
pub(super) async fn session_agent(
    state: &AppState,
    session_id: &str,
    agent_id: Option<&str>,
) -> ApiResult<(Session, String, Agent)> {
    let (session, agent) = state
        .store
        .session_and_agent(session_id, agent_id)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("session {session_id}")))?;
    let agent_id = agent_id
        .map(str::to_string)
        .or(session.agent_id.clone())
        .ok_or_else(|| ApiError::Unprocessable("agent_id is required: the session has no agent of its own".into()))?;
    let agent = agent.ok_or_else(|| ApiError::NotFound(format!("agent {agent_id}")))?;
    let agent = super::sessions::with_session_tools(&agent, &session)?;
    Ok((session, agent_id, agent))
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
        (status = 400, description = "An empty or oversized message, malformed JSON, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run; or the session's added tools clash with its agent's", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
    )
)]
async fn submit_message(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &session_id, KeyFrom::Header(&headers), body).await?;
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
        (status = 400, description = "An empty or oversized message, malformed JSON, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such session or agent", body = ErrorBody),
        (status = 409, description = "`multitask_strategy: reject` and the session has an unfinished run; or the session's added tools clash with its agent's", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; no agent; an `Idempotency-Key` reused with another body", body = ErrorBody),
    )
)]
async fn submit_message_stream(
    State(state): State<AppState>,
    Path(session_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<MessageBody>,
) -> ApiResult<Response> {
    let enqueued = enqueue(&state, &session_id, KeyFrom::Header(&headers), body).await?;
    Ok(sse::stream(&state, &enqueued.run.id, 0, sse::Dialect::Seed))
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
                return Ok((run, Some((event.kind, asked))));
            }
        }
    }
    Ok((read_run(state, run_id).await?, None))
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
