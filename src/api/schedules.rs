//! Schedules: `POST|GET /schedules`, `GET|PUT|DELETE /schedules/{id}`, its
//! pause and resume, and `GET /schedules/{id}/runs` (its ticks). The
//! ticks themselves are fired by [`super::scheduler`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{AllOfBuilder, Schema};
use utoipa::openapi::RefOr;
use utoipa::{IntoParams, PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::owned::{only_visible, visible};
use super::runs::check_limit;
use super::schemas::{self, Id};
use super::versions::{self, IfMatch};
use super::{deleted, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::formation;
use crate::domain::model::new_id;
use crate::domain::schedule::{Overlap, Schedule, Target, Tick, When};
use crate::submit::{check_tasks, checks, Task};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default()
        .routes(routes!(create, list))
        .routes(routes!(show, replace, remove))
        .routes(routes!(pause))
        .routes(routes!(resume))
        .routes(routes!(ticks))
}

/// A schedule's definition: `POST /schedules` and `PUT /schedules/{id}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ScheduleBody {
    /// On `PUT` only: the version the change is made over, as `If-Match`
    /// names it (a `409` if the schedule is at another).
    version: Option<u64>,
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\u0000]*[^\u0000\s][^\u0000]*$")]
    name: String,
    /// 5 fields, or 6 with seconds first; give this or `every`.
    #[schema(schema_with = schemas::schedule::cron)]
    cron: Option<String>,
    /// A period from `1s` to `366d`; give this or `cron`.
    #[schema(schema_with = schemas::schedule::every)]
    every: Option<String>,
    /// An IANA time zone the cron pattern is read in (default `UTC`).
    #[schema(schema_with = schemas::schedule::timezone)]
    timezone: Option<String>,
    /// What each tick submits.
    #[schema(schema_with = schemas::schedule::target)]
    target: Target,
    /// What a tick does while its previous tick's work runs (default `skip`).
    #[serde(default)]
    overlap: Overlap,
    /// The priority of what each tick submits.
    #[schema(schema_with = schemas::priority)]
    priority: Option<i64>,
    /// The concurrency key and limit of what each tick submits.
    concurrency: Option<crate::domain::model::Concurrency>,
}

/// [`ScheduleBody`] in the document, with what its fields cannot say alone:
/// `every`, or `cron` (and a `timezone`), not both.
struct ScheduleRequest;

impl PartialSchema for ScheduleRequest {
    fn schema() -> RefOr<Schema> {
        let body = RefOr::Ref(utoipa::openapi::Ref::from_schema_name("ScheduleBody"));
        AllOfBuilder::new().item(body).item(schemas::schedule::one_of_cron_or_every()).into()
    }
}

/// The body of `POST /schedules` in the document: [`ScheduleRequest`]
/// without `version` (nothing to make a change over yet).
struct NewScheduleRequest;

impl PartialSchema for NewScheduleRequest {
    fn schema() -> RefOr<Schema> {
        let body = schemas::without_version(ScheduleBody::schema());
        AllOfBuilder::new().item(body).item(schemas::schedule::one_of_cron_or_every()).into()
    }
}

impl ToSchema for NewScheduleRequest {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        ScheduleBody::schemas(schemas);
    }
}

impl ToSchema for ScheduleRequest {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push(("ScheduleBody".to_string(), ScheduleBody::schema()));
        ScheduleBody::schemas(schemas);
    }
}

/// Checks a definition and what its target names; answers its ticks' rule.
/// What the target names is looked up first: one that does not exist is a
/// 404 whatever else is wrong.
async fn check(state: &AppState, caller: &Caller, body: &ScheduleBody) -> ApiResult<When> {
    check_target(state, caller, &body.target).await?;
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(ApiError::BadRequest("name must be 1 to 200 characters".into()));
    }
    When::parse(body.cron.as_deref(), body.every.as_deref(), body.timezone.as_deref()).map_err(ApiError::BadRequest)
}

/// Checks what a schedule's target names: something the caller may see.
async fn check_target(state: &AppState, caller: &Caller, target: &Target) -> ApiResult<()> {
    match target {
        Target::Message { session_id, agent_id, message } => {
            state.door.session_agent(session_id, agent_id.as_deref(), Some(caller)).await?;
            checks::message(message).map_err(ApiError::BadRequest)
        }
        Target::Fleet { fleet_id, tasks } => {
            super::fleets::find(state, caller, fleet_id).await?;
            let tasks: Vec<Task> = serde_json::from_value(serde_json::Value::from(tasks.clone()))
                .map_err(|e| ApiError::BadRequest(format!("target.tasks: {e}")))?;
            Ok(check_tasks(state.door.config(), &tasks)?)
        }
        Target::Formation { formation_id, input } => {
            let formation = super::formations::find(state, caller, formation_id).await?;
            formation::check_input(&formation.nodes, &formation.edges, input).map_err(ApiError::BadRequest)
        }
    }
}

/// The schedule `body` defines for `owner`, its next tick counted from now.
fn schedule_of(id: String, owner: String, body: ScheduleBody, when: &When, paused: bool) -> ApiResult<Schedule> {
    let now = Utc::now();
    let next_tick_at = when.next_after(now);
    if next_tick_at.is_none() {
        return Err(ApiError::BadRequest("the cron pattern never matches again".into()));
    }
    Ok(Schedule {
        id,
        owner,
        name: body.name.trim().to_string(),
        cron: body.cron,
        every: body.every,
        timezone: body.timezone,
        target: body.target,
        overlap: body.overlap,
        priority: checks::priority(body.priority).map_err(ApiError::BadRequest)?,
        concurrency: match body.concurrency {
            Some(concurrency) => Some(concurrency.check().map(|_| concurrency).map_err(ApiError::BadRequest)?),
            None => None,
        },
        paused,
        paused_reason: None,
        next_tick_at: if paused { None } else { next_tick_at },
        last_tick_at: None,
        version: 1,
        created_at: now,
        updated_at: now,
    })
}

/// Creates a schedule; its first tick is the first after now.
#[utoipa::path(
    post,
    path = "/schedules",
    tag = "schedules",
    operation_id = "create_schedule",
    request_body = NewScheduleRequest,
    responses(
        (status = 201, description = "The schedule", body = Schedule),
        (status = 400, description = "A bad name, pattern, period, time zone, message, task or priority", body = ErrorBody),
        (status = 404, description = "The target's session, agent, fleet or formation does not exist", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(body): JsonBody<ScheduleBody>,
) -> ApiResult<(StatusCode, Json<Schedule>)> {
    versions::none_on_create(body.version)?;
    let when = check(&state, &caller, &body).await?;
    let schedule = schedule_of(new_id(), caller.owner, body, &when, false)?;
    state.store.insert_schedule(&schedule).await?;
    Ok((StatusCode::CREATED, Json(schedule)))
}

/// Every schedule: a plain array.
#[utoipa::path(
    get,
    path = "/schedules",
    tag = "schedules",
    operation_id = "list_schedules",
    responses((status = 200, description = "The caller's schedules, by ID (an admin's: every schedule)", body = Vec<Schedule>))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<Schedule>>> {
    Ok(Json(only_visible(&caller, state.store.list_schedules().await?)))
}

/// The schedule `id`, if the caller may see it.
async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Schedule> {
    visible(caller, state.store.get_schedule(id).await?, || format!("schedule {id}"))
}

/// One schedule.
#[utoipa::path(
    get,
    path = "/schedules/{id}",
    tag = "schedules",
    operation_id = "get_schedule",
    params(("id" = Id, Path, description = "The schedule's ID")),
    responses(
        (status = 200, description = "The schedule", body = Schedule),
        (status = 404, description = "No such schedule", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Schedule>> {
    Ok(Json(find(&state, &caller, &id).await?))
}

/// Replaces a schedule's definition; it stays paused or not, and its next
/// tick is counted anew from now.
#[utoipa::path(
    put,
    path = "/schedules/{id}",
    tag = "schedules",
    operation_id = "replace_schedule",
    params(("id" = Id, Path, description = "The schedule's ID"), versions::IfMatchParam),
    request_body = ScheduleRequest,
    responses(
        (status = 200, description = "The schedule", body = Schedule),
        (status = 400, description = "A bad name, pattern, period, time zone, message, task or priority", body = ErrorBody),
        (status = 404, description = "No such schedule, or the target's session, agent, fleet or formation", body = ErrorBody),
        (status = 409, description = "`If-Match` (or `version`) names a version the schedule is no longer at", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field", body = ErrorBody),
    )
)]
async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    if_match: IfMatch,
    JsonBody(body): JsonBody<ScheduleBody>,
) -> ApiResult<Json<Schedule>> {
    let wanted = versions::wanted(if_match, body.version)?;
    find(&state, &caller, &id).await?;
    let when = check(&state, &caller, &body).await?;
    let (state, caller, id, body, when) = (&state, &caller, &id, &body, &when);
    versions::edit(wanted, || async move {
        let old = find(state, caller, id).await?;
        versions::check(wanted, &format!("schedule {id}"), old.version)?;
        // A schedule stays its owner's, whoever replaces it (an admin may).
        let mut schedule = schedule_of(id.clone(), old.owner.clone(), body.clone(), when, old.paused)?;
        (schedule.created_at, schedule.last_tick_at, schedule.version) =
            (old.created_at, old.last_tick_at, old.version + 1);
        state.store.update_schedule(&schedule).await.map_err(naming(format!("schedule {id}")))?;
        Ok(Json(schedule))
    })
    .await
}

/// Deletes a schedule and the record of its ticks; what they submitted stays.
#[utoipa::path(
    delete,
    path = "/schedules/{id}",
    tag = "schedules",
    operation_id = "delete_schedule",
    params(("id" = Id, Path, description = "The schedule's ID")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 404, description = "No such schedule", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    find(&state, &caller, &id).await?;
    state.store.delete_schedule(&id).await.map_err(naming(format!("schedule {id}")))?;
    Ok(deleted())
}

/// Pauses a schedule: no tick falls until it is resumed.
#[utoipa::path(
    post,
    path = "/schedules/{id}/pause",
    tag = "schedules",
    operation_id = "pause_schedule",
    params(("id" = Id, Path, description = "The schedule's ID"), versions::IfMatchParam),
    responses(
        (status = 200, description = "The schedule, paused", body = Schedule),
        (status = 400, description = "An `If-Match` that names no version", body = ErrorBody),
        (status = 404, description = "No such schedule", body = ErrorBody),
        (status = 409, description = "`If-Match` names a version the schedule is no longer at, or its stored rule no longer parses", body = ErrorBody),
    )
)]
async fn pause(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    if_match: IfMatch,
) -> ApiResult<Json<Schedule>> {
    set_paused(&state, &caller, &id, true, if_match.0).await
}

/// Resumes a schedule: its next tick is the first after now (the ticks
/// that fell while it was paused are not made up for).
#[utoipa::path(
    post,
    path = "/schedules/{id}/resume",
    tag = "schedules",
    operation_id = "resume_schedule",
    params(("id" = Id, Path, description = "The schedule's ID"), versions::IfMatchParam),
    responses(
        (status = 200, description = "The schedule, running", body = Schedule),
        (status = 400, description = "An `If-Match` that names no version", body = ErrorBody),
        (status = 404, description = "No such schedule", body = ErrorBody),
        (status = 409, description = "`If-Match` names a version the schedule is no longer at, or its stored rule no longer parses", body = ErrorBody),
    )
)]
async fn resume(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    if_match: IfMatch,
) -> ApiResult<Json<Schedule>> {
    set_paused(&state, &caller, &id, false, if_match.0).await
}

async fn set_paused(
    state: &AppState,
    caller: &Caller,
    id: &str,
    paused: bool,
    wanted: Option<u64>,
) -> ApiResult<Json<Schedule>> {
    versions::edit(wanted, || async move {
        let mut schedule = find(state, caller, id).await?;
        versions::check(wanted, &format!("schedule {id}"), schedule.version)?;
        let when = schedule.when().map_err(|e| {
            ApiError::Conflict(format!("schedule {id}'s stored rule no longer parses ({e}): replace it with PUT first"))
        })?;
        (schedule.paused, schedule.paused_reason) = (paused, None);
        schedule.next_tick_at = if paused { None } else { when.next_after(Utc::now()) };
        (schedule.updated_at, schedule.version) = (Utc::now(), schedule.version + 1);
        state.store.update_schedule(&schedule).await.map_err(naming(format!("schedule {id}")))?;
        Ok(Json(schedule))
    })
    .await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct TicksQuery {
    /// Ticks to answer, newest first (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
}

/// A schedule's ticks.
#[derive(Debug, Serialize, ToSchema)]
struct Ticks {
    /// Newest first: each with the run (`kind: "run"`), fleet run or
    /// formation run it submitted, or why it was skipped.
    ticks: Vec<Tick>,
}

/// What a schedule's ticks submitted, newest first.
#[utoipa::path(
    get,
    path = "/schedules/{id}/runs",
    tag = "schedules",
    operation_id = "list_schedule_runs",
    params(("id" = Id, Path, description = "The schedule's ID"), TicksQuery),
    responses(
        (status = 200, description = "Its ticks", body = Ticks),
        (status = 400, description = "A limit out of range, an unknown parameter", body = ErrorBody),
        (status = 404, description = "No such schedule", body = ErrorBody),
    )
)]
async fn ticks(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<TicksQuery>,
) -> ApiResult<Json<Ticks>> {
    let limit = check_limit(q.limit, 50, 500)?;
    find(&state, &caller, &id).await?;
    Ok(Json(Ticks { ticks: state.store.schedule_ticks(&id, limit).await? }))
}
