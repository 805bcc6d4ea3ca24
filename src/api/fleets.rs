//! Fleet definitions: `POST|GET /fleets`, `GET|PUT|DELETE /fleets/{id}`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::Utc;
use serde::Deserialize;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::owned::{changeable, only_visible, visible};
use super::schemas::{self, Id};
use super::versions::{self, IfMatch};
use super::{deleted, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::model::{new_id, Fleet, FleetStatus};
use crate::submit::checks;

/// The largest `worker_count`: a cap, not a number of processes, so it only
/// needs to be finite.
const MAX_WORKER_COUNT: u32 = 100_000;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list, create)).routes(routes!(show, update, remove))
}

/// The fields a client may set on a fleet. On `PUT`, absent fields keep their value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct FleetFields {
    /// On `PUT` only: the version the change is made over, as `If-Match`
    /// names it (a `409` if the fleet is at another).
    version: Option<u64>,
    /// Required on `POST`; not blank.
    #[schema(schema_with = schemas::name)]
    name: Option<String>,
    /// Every owner may read it and run it; only its owner or an admin may
    /// change it. False by default.
    shared: Option<bool>,
    /// Required on `POST`.
    #[schema(value_type = Option<Id>)]
    agent_id: Option<String>,
    /// How many of a fleet run's tasks run at once; 0 (the default) is no cap.
    #[schema(maximum = 100000)]
    worker_count: Option<u32>,
    /// Its tasks' default `work_dir`. `null` clears it: each task then gets a
    /// directory of its own.
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = schemas::work_dir)]
    work_dir: Option<Option<String>>,
}

/// The body of `POST /fleets`, in the document: [`FleetFields`] with `name`
/// and `agent_id` required (the handler reads `FleetFields` and refuses
/// either missing).
struct NewFleet;

impl PartialSchema for NewFleet {
    fn schema() -> RefOr<Schema> {
        let description = "A new fleet: `name` and `agent_id` are required, the rest optional.";
        schemas::requiring(schemas::without_version(FleetFields::schema()), &["name", "agent_id"], description)
    }
}

impl ToSchema for NewFleet {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        FleetFields::schemas(schemas);
    }
}

/// Tells a field set to `null` (`Some(None)`) from an absent one (`None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Checks a fleet's fields; its agent must be one the caller may see.
async fn check(state: &AppState, caller: &Caller, fields: &FleetFields) -> ApiResult<()> {
    if fields.name.as_ref().is_some_and(|n| n.trim().is_empty()) {
        return Err(ApiError::BadRequest("name must not be empty".into()));
    }
    if let Some(agent_id) = &fields.agent_id {
        visible(caller, state.store.get_agent(agent_id).await?, || format!("agent {agent_id}"))?;
    }
    if fields.worker_count.is_some_and(|n| n > MAX_WORKER_COUNT) {
        return Err(ApiError::BadRequest(format!("worker_count must be 0 (no limit) to {MAX_WORKER_COUNT}")));
    }
    if let Some(Some(dir)) = &fields.work_dir {
        checks::work_dir(state.door.config(), dir)?;
    }
    Ok(())
}

/// Creates a fleet.
#[utoipa::path(
    post,
    path = "/fleets",
    tag = "fleets",
    operation_id = "create_fleet",
    request_body = NewFleet,
    responses(
        (status = 201, description = "The fleet", body = Fleet),
        (status = 400, description = "An empty name, a `worker_count` over the limit, a refused `work_dir`", body = ErrorBody),
        (status = 404, description = "No such agent", body = ErrorBody),
        (status = 422, description = "A missing `name` or `agent_id`; a mistyped or unknown field; with --work-root, a `work_dir` outside it", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(fields): JsonBody<FleetFields>,
) -> ApiResult<(StatusCode, Json<Fleet>)> {
    let (Some(name), Some(agent_id)) = (fields.name.clone(), fields.agent_id.clone()) else {
        return Err(ApiError::Unprocessable("name and agent_id are required".into()));
    };
    versions::none_on_create(fields.version)?;
    check(&state, &caller, &fields).await?;
    let now = Utc::now();
    let fleet = Fleet {
        id: new_id(),
        name,
        owner: caller.owner,
        shared: fields.shared.unwrap_or(false),
        agent_id,
        worker_count: fields.worker_count.unwrap_or(0),
        work_dir: fields.work_dir.flatten(),
        status: FleetStatus::Stopped,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    state.store.insert_fleet(&fleet).await?;
    Ok((StatusCode::CREATED, Json(fleet)))
}

/// Every fleet: a plain array.
#[utoipa::path(
    get,
    path = "/fleets",
    tag = "fleets",
    operation_id = "list_fleets",
    responses((status = 200, description = "The caller's fleets and the shared ones (an admin's: every fleet)", body = Vec<Fleet>))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<Fleet>>> {
    Ok(Json(only_visible(&caller, state.store.list_fleets().await?)))
}

/// The fleet `id`, if the caller may see it.
pub async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Fleet> {
    visible(caller, state.store.get_fleet(id).await?, || format!("fleet {id}"))
}

/// One fleet.
#[utoipa::path(
    get,
    path = "/fleets/{id}",
    tag = "fleets",
    operation_id = "get_fleet",
    params(("id" = Id, Path, description = "The fleet's ID")),
    responses(
        (status = 200, description = "The fleet", body = Fleet),
        (status = 404, description = "No such fleet", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Fleet>> {
    Ok(Json(find(&state, &caller, &id).await?))
}

/// Replaces the fields given; absent ones are kept (`"work_dir": null` clears it).
#[utoipa::path(
    put,
    path = "/fleets/{id}",
    tag = "fleets",
    operation_id = "update_fleet",
    params(("id" = Id, Path, description = "The fleet's ID"), versions::IfMatchParam),
    request_body = Option<FleetFields>,
    responses(
        (status = 200, description = "The fleet as changed", body = Fleet),
        (status = 400, description = "An empty name, a `worker_count` over the limit, a refused `work_dir`", body = ErrorBody),
        (status = 404, description = "No such fleet or agent", body = ErrorBody),
        (status = 409, description = "`If-Match` (or `version`) names a version the fleet is no longer at", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; with --work-root, a `work_dir` outside it", body = ErrorBody),
    )
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    if_match: IfMatch,
    JsonBody(fields): JsonBody<FleetFields>,
) -> ApiResult<Json<Fleet>> {
    let wanted = versions::wanted(if_match, fields.version)?;
    changeable(&caller, state.store.get_fleet(&id).await?, || format!("fleet {id}"))?;
    check(&state, &caller, &fields).await?;
    let (state, caller, id, fields) = (&state, &caller, &id, &fields);
    versions::edit(wanted, || async move {
        let mut fleet = changeable(caller, state.store.get_fleet(id).await?, || format!("fleet {id}"))?;
        versions::check(wanted, &format!("fleet {id}"), fleet.version)?;
        if let Some(name) = &fields.name {
            fleet.name = name.clone();
        }
        if let Some(shared) = fields.shared {
            fleet.shared = shared;
        }
        if let Some(agent_id) = &fields.agent_id {
            fleet.agent_id = agent_id.clone();
        }
        if let Some(n) = fields.worker_count {
            fleet.worker_count = n;
        }
        if let Some(dir) = &fields.work_dir {
            fleet.work_dir = dir.clone();
        }
        (fleet.updated_at, fleet.version) = (Utc::now(), fleet.version + 1);
        state.store.update_fleet(&fleet).await.map_err(naming(format!("fleet {id}")))?;
        Ok(Json(fleet))
    })
    .await
}

/// Deletes a fleet; its fleet runs stay readable.
#[utoipa::path(
    delete,
    path = "/fleets/{id}",
    tag = "fleets",
    operation_id = "delete_fleet",
    params(("id" = Id, Path, description = "The fleet's ID")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 404, description = "No such fleet", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    changeable(&caller, state.store.get_fleet(&id).await?, || format!("fleet {id}"))?;
    state.store.delete_fleet(&id).await.map_err(naming(format!("fleet {id}")))?;
    Ok(deleted())
}
