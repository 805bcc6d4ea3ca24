//! Formation definitions: `POST|GET /formations`, `GET|DELETE
//! /formations/{id}`; and their runs' submission, `POST /formations/{id}/run`.

use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::formation_runs::{as_shown, FormationRunAccepted};
use super::owned::{changeable, only_visible, visible};
use super::peer::{unless_hung_up, Peer};
use super::runs::{accepted, envelope, WaitQuery};
use super::schemas::{self, AnyJson, Id, IdempotencyKey};
use super::{deleted, sse, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::formation::run::{FormationRun, NodeRow, NodeStatus};
use crate::domain::formation::{self, Edge, Formation, Node};
use crate::domain::model::new_id;
use crate::submit::FormationRunSubmission;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list, create)).routes(routes!(show, remove)).routes(routes!(submit))
}

/// The body of `POST /formations`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct NewFormation {
    /// Not blank.
    #[schema(schema_with = schemas::formation::name)]
    name: String,
    /// 1 to 200 nodes: `{"id", "agent_id"}`, `{"id", "fleet_id"}` or `{"id", "function", "args"?}`.
    #[schema(schema_with = schemas::formation::nodes)]
    nodes: Vec<Node>,
    /// `{"from", "to"}`: `from`'s output is an input of `to` (several inputs
    /// arrive as a list, in the order of these edges).
    #[serde(default)]
    edges: Vec<Edge>,
    /// Every owner may read it and run it; only its owner or an admin may
    /// delete it. False by default.
    #[serde(default)]
    shared: bool,
}

/// Creates a formation, after checking its graph and that every agent and
/// fleet it names exists.
#[utoipa::path(
    post,
    path = "/formations",
    tag = "formations",
    operation_id = "create_formation",
    request_body = NewFormation,
    responses(
        (status = 201, description = "The formation", body = Formation),
        (status = 400, description = "A refused graph: a cycle, an edge to an unknown node, no entry node, a node with no kind or several, an unknown function or bad args, a node fed what it cannot take (a fleet fed text)", body = ErrorBody),
        (status = 404, description = "A node names an agent or a fleet that does not exist", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(body): JsonBody<NewFormation>,
) -> ApiResult<(StatusCode, Json<Formation>)> {
    formation::check(&body.name, &body.nodes, &body.edges).map_err(ApiError::BadRequest)?;
    let (agents, fleets) = formation::references(&body.nodes);
    for agent in agents {
        super::agents::find(&state, &caller, agent).await?;
    }
    for fleet in fleets {
        super::fleets::find(&state, &caller, fleet).await?;
    }
    let now = Utc::now();
    let formation = Formation {
        id: new_id(),
        name: body.name,
        owner: caller.owner,
        shared: body.shared,
        nodes: body.nodes,
        edges: body.edges,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    state.store.insert_formation(&formation).await?;
    Ok((StatusCode::CREATED, Json(formation)))
}

/// Every formation: a plain array.
#[utoipa::path(
    get,
    path = "/formations",
    tag = "formations",
    operation_id = "list_formations",
    responses((status = 200, description = "The caller's formations and the shared ones (an admin's: every formation)", body = Vec<Formation>))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<Formation>>> {
    Ok(Json(only_visible(&caller, state.store.list_formations().await?)))
}

/// The formation `id`, if the caller may see it.
pub async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Formation> {
    visible(caller, state.store.get_formation(id).await?, || format!("formation {id}"))
}

/// One formation.
#[utoipa::path(
    get,
    path = "/formations/{id}",
    tag = "formations",
    operation_id = "get_formation",
    params(("id" = Id, Path, description = "The formation's ID")),
    responses(
        (status = 200, description = "The formation", body = Formation),
        (status = 404, description = "No such formation", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Formation>> {
    Ok(Json(find(&state, &caller, &id).await?))
}

/// Deletes a formation; its runs keep their snapshot of it and go on.
#[utoipa::path(
    delete,
    path = "/formations/{id}",
    tag = "formations",
    operation_id = "delete_formation",
    params(("id" = Id, Path, description = "The formation's ID")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 404, description = "No such formation", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    changeable(&caller, state.store.get_formation(&id).await?, || format!("formation {id}"))?;
    state.store.delete_formation(&id).await.map_err(naming(format!("formation {id}")))?;
    Ok(deleted())
}

/// The body of `POST /formations/{id}/run`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct FormationRunBody {
    /// What its entry nodes take: text for an agent (any other JSON is
    /// sent as JSON text), a list for a fleet.
    #[schema(value_type = AnyJson)]
    input: Value,
    /// Where the formation run's end is announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    webhook: Option<crate::domain::webhook::Webhook>,
    /// The priority of every run of its nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = schemas::priority)]
    priority: Option<i64>,
    /// At most `limit` runs with this key run at once: its nodes' runs, and
    /// every other run that names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    concurrency: Option<crate::domain::model::Concurrency>,
}

/// The answer of `?wait=true`: how the formation run ended, or which of its
/// nodes wait for a person or a client.
#[derive(Debug, Serialize, ToSchema)]
struct FormationRunResult {
    formation_run_id: String,
    status: crate::domain::model::FleetRunStatus,
    /// The outputs of its exit nodes, by node.
    #[schema(value_type = Object)]
    outputs: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// When it answers before the end: the nodes that wait for a person or
    /// a client (an agent node's `run_id`, a fleet node's `fleet_run_id`,
    /// whose waiting tasks `GET /runs?fleet_run_id=…&status=waiting` lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    waiting: Option<Vec<NodeRow>>,
}

/// Starts a run of the formation: its entry nodes start with it, each
/// later node when its inputs are stored.
#[utoipa::path(
    post,
    path = "/formations/{id}/run",
    tag = "formations",
    operation_id = "run_formation",
    params(
        ("id" = Id, Path, description = "The formation's ID"),
        WaitQuery,
        ("Idempotency-Key" = Option<IdempotencyKey>, Header, description = "1 to 255 visible ASCII characters: the same key with the same body returns the first formation run"),
    ),
    request_body = FormationRunBody,
    responses(
        (status = 200, description = "With `?wait=true`: how the formation run ended, with its outputs; or, as soon as a node waits for a person or a client, the run still `running` with the nodes that wait", body = FormationRunResult),
        (status = 202, description = "The formation run, its entry nodes started", body = FormationRunAccepted,
            headers(
                ("Location" = String, description = "`/formation-runs/{id}`"),
                ("Idempotent-Replayed" = Option<String>, description = "`true` when an `Idempotency-Key` matched an earlier request"),
            )),
        (status = 400, description = "An input an entry node cannot take (a fleet node's must be a list), a priority outside -10..10, a bad `Idempotency-Key`", body = ErrorBody),
        (status = 404, description = "No such formation", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; an agent or fleet of the formation no longer exists; an `Idempotency-Key` reused with another body", body = ErrorBody),
        (status = 429, description = "The owner has as many runs queued as its `max_queued_runs` lets wait: retry after `Retry-After` seconds", body = ErrorBody),
    )
)]
async fn submit(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    QueryParams(query): QueryParams<WaitQuery>,
    peer: Option<Extension<Peer>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<FormationRunBody>,
) -> ApiResult<Response> {
    let envelope = envelope(&caller, &headers, body.priority, body.concurrency)?;
    find(&state, &caller, &id).await?;
    let submission = FormationRunSubmission { formation_id: id, input: body.input, webhook: body.webhook };
    let enqueued = state.door.formation_run(&envelope, submission).await?;
    let run = enqueued.formation_run;
    if query.wait {
        let run = unless_hung_up(peer.map(|p| p.0), settled(&state, &run.id)).await?;
        return Ok(Json(result(run)).into_response());
    }
    let location = format!("/formation-runs/{}", run.id);
    Ok(accepted(location, FormationRunAccepted::of(run), !enqueued.created))
}

/// How often a `?wait=true` looks at the nodes of a formation run that has
/// not ended: a node's run that comes to wait writes nothing to the
/// formation run's own log, so there is no event to wake on.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// Follows the formation run until it ends or a node of it waits for a
/// person or a client, and reads it as answers show it.
async fn settled(state: &AppState, id: &str) -> ApiResult<FormationRun> {
    let mut tail = state.hub.tail(id, 0, sse::Dialect::Formation.id_key());
    loop {
        let run = state.store.get_formation_run(id).await?.ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let run = as_shown(state, run).await?;
        if run.status.is_terminal() || run.nodes.iter().any(|n| n.status == NodeStatus::Waiting) {
            return Ok(run);
        }
        tokio::select! {
            frame = tail.next() => match frame {
                Some(frame) => {
                    frame?;
                }
                // The tail ends after `done`: the run has ended; read it once more.
                None => tokio::time::sleep(LOOK_EVERY).await,
            },
            _ = tokio::time::sleep(LOOK_EVERY) => {}
        }
    }
}

fn result(run: FormationRun) -> FormationRunResult {
    let waiting: Vec<NodeRow> = run.nodes.iter().filter(|n| n.status == NodeStatus::Waiting).cloned().collect();
    FormationRunResult {
        formation_run_id: run.id,
        status: run.status,
        outputs: run.outputs.unwrap_or_else(|| Value::Object(Default::default())),
        error: run.error,
        waiting: (!waiting.is_empty()).then_some(waiting),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use utoipa::PartialSchema;

    use super::*;

    /// What the handler makes of a body, short of the store: whether its
    /// shape and graph are accepted (it names no agent or fleet).
    fn handler_accepts(body: &Value) -> bool {
        let Ok(body) = serde_json::from_value::<NewFormation>(body.clone()) else { return false };
        formation::check(&body.name, &body.nodes, &body.edges).is_ok()
    }

    fn schema_accepts(body: &Value) -> bool {
        let mut schema = serde_json::to_value(NewFormation::schema()).unwrap();
        let mut components = Vec::new();
        NewFormation::schemas(&mut components);
        let components: serde_json::Map<String, Value> =
            components.into_iter().map(|(name, s)| (name, serde_json::to_value(s).unwrap())).collect();
        schema["components"] = json!({ "schemas": components });
        crate::api::schemas::validates(schema, body)
    }

    #[test]
    fn the_schema_of_a_node_accepts_what_the_handler_accepts() {
        let one = |node: Value| json!({"name": "f", "nodes": [node]});
        let bodies = [
            one(json!({"id": "a", "function": "split_lines"})),
            one(json!({"id": "a", "function": "split_lines", "args": {}})),
            one(json!({"id": "a", "function": "split_lines", "args": {"x": 1}})),
            one(json!({"id": "a", "function": "split_lines", "args": null})),
            one(json!({"id": "a", "function": "join", "args": {"separator": ", "}})),
            one(json!({"id": "a", "function": "join", "args": {"separator": 1}})),
            one(json!({"id": "a", "function": "template"})),
            one(json!({"id": "a", "function": "template", "args": {"template": "<{{input}}>"}})),
            one(json!({"id": "a", "function": "json_path", "args": {"path": "$.a[0][\"b c\"]"}})),
            one(json!({"id": "a", "function": "json_path", "args": {"path": "$[\"a\"b\"]"}})),
            one(json!({"id": "a", "function": "json_path", "args": {"path": "$..a"}})),
            one(json!({"id": "a", "function": "json_path", "args": {"path": "$[ 1]"}})),
            one(json!({"id": "a", "function": "eval"})),
            one(json!({"id": "a", "function": "split_lines", "agent_id": null})),
            one(json!({"id": "a b", "function": "split_lines"})),
            one(json!({"id": "a"})),
            one(json!({"id": "a", "function": "join", "extra": true})),
            json!({"name": " ", "nodes": [{"id": "a", "function": "join"}]}),
            json!({"name": "f", "nodes": []}),
            json!({"name": "f", "nodes": [{"id": "a", "function": "join"}], "edges": null}),
        ];
        for body in bodies {
            assert_eq!(schema_accepts(&body), handler_accepts(&body), "{body}");
        }
    }
}
