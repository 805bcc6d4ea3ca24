//! Owners' quotas and usage: `GET /owners`, `GET|PUT /owners/{owner}`,
//! `GET /owners/{owner}/usage`.
//!
//! An admin sets quotas ([`crate::domain::access::refusal`] keeps writes
//! an admin's) and reads every owner's; a member or reader reads its own
//! owner's, and another owner is the 404 a missing object is. An owner is
//! not a stored object: one without a quota or use reads as zeros.

use axum::extract::{Path, State};
use axum::Json;
use chrono::{Duration, NaiveDate};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::{JsonBody, QueryParams};
use super::AppState;
use crate::domain::access::{self, Caller, Role};
use crate::domain::quota::{self, DayUsage, Quota};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list)).routes(routes!(show, put)).routes(routes!(usage))
}

/// An owner's quota and where it stands now.
#[derive(Debug, Serialize, ToSchema)]
struct OwnerView {
    owner: String,
    /// The most runs of the owner that may be queued at once; no limit when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_queued_runs: Option<u64>,
    /// The most runs of the owner that may be running at once; no limit when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_running_runs: Option<u64>,
    /// The most US dollars the owner's runs may spend in a day (UTC); no limit when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_cost_usd_per_day: Option<f64>,
    /// The owner's runs queued now.
    queued_runs: u64,
    /// What the owner's runs spent today (UTC), in US dollars.
    spent_today_usd: f64,
}

/// What an owner's runs used over a span of days.
#[derive(Debug, Serialize, ToSchema)]
struct UsageView {
    owner: String,
    /// The first day, `YYYY-MM-DD`.
    from: String,
    /// The last day, `YYYY-MM-DD`.
    to: String,
    /// Each day with any use, the oldest first.
    days: Vec<DayUsage>,
    /// The days added up (`day` is the span, `from..to`).
    total: DayUsage,
}

/// The span of a usage request.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct UsageQuery {
    /// The first day, `YYYY-MM-DD` (UTC): 29 days before `to` when absent.
    /// A span whose `from` is after its `to` holds no day.
    #[param(format = Date, value_type = Option<String>)]
    from: Option<String>,
    /// The last day, `YYYY-MM-DD` (UTC): today when absent.
    #[param(format = Date, value_type = Option<String>)]
    to: Option<String>,
}

/// The owner named in a path, if the caller may read it: an admin any
/// owner, anyone else its own (another is the 404 a missing object is).
fn readable(caller: &Caller, owner: &str) -> ApiResult<()> {
    access::check_owner(owner).map_err(ApiError::BadRequest)?;
    if caller.role != Role::Admin && caller.owner != owner {
        return Err(ApiError::NotFound(format!("owner {owner}")));
    }
    Ok(())
}

async fn view(state: &AppState, owner: String, quota: Quota) -> ApiResult<OwnerView> {
    let queued_runs = state.store.count_queued(&owner).await?;
    let spent_today_usd = state.store.spent_today(&owner).await?;
    let Quota { max_queued_runs, max_running_runs, max_cost_usd_per_day } = quota;
    Ok(OwnerView { owner, max_queued_runs, max_running_runs, max_cost_usd_per_day, queued_runs, spent_today_usd })
}

async fn quota_of(state: &AppState, owner: &str) -> ApiResult<Quota> {
    let all = state.store.list_quotas().await?;
    Ok(all.into_iter().find(|(o, _)| o == owner).map(|(_, q)| q).unwrap_or_default())
}

/// Every owner that has a quota, with where it stands (an admin's; anyone
/// else sees its own owner, if it has one).
#[utoipa::path(
    get,
    path = "/owners",
    tag = "owners",
    operation_id = "list_owners",
    responses((status = 200, description = "The owners with a quota, by name", body = [OwnerView]))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<OwnerView>>> {
    let mut owners = Vec::new();
    for (owner, quota) in state.store.list_quotas().await? {
        if caller.role == Role::Admin || caller.owner == owner {
            owners.push(view(&state, owner, quota).await?);
        }
    }
    Ok(Json(owners))
}

/// An owner's quota, its queued runs and what its runs spent today.
#[utoipa::path(
    get,
    path = "/owners/{owner}",
    tag = "owners",
    operation_id = "get_owner",
    params(("owner" = String, Path, description = "The owner", pattern = "^[A-Za-z0-9._@-]{1,64}$")),
    responses(
        (status = 200, description = "The owner's quota and where it stands", body = OwnerView),
        (status = 400, description = "Not an owner's name", body = ErrorBody),
        (status = 404, description = "Another owner than the caller's (for a member or reader)", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(owner): Path<String>) -> ApiResult<Json<OwnerView>> {
    readable(&caller, &owner)?;
    let quota = quota_of(&state, &owner).await?;
    Ok(Json(view(&state, owner, quota).await?))
}

/// Sets an owner's quota, as a whole: a field left out is no limit, and
/// `{}` removes the quota. Every server and worker holds to it within a
/// second. Runs already queued stay queued; a daily budget applies from
/// each run's next inference.
#[utoipa::path(
    put,
    path = "/owners/{owner}",
    tag = "owners",
    operation_id = "put_owner",
    params(("owner" = String, Path, description = "The owner", pattern = "^[A-Za-z0-9._@-]{1,64}$")),
    request_body = Option<Quota>,
    responses(
        (status = 200, description = "The owner's quota and where it stands", body = OwnerView),
        (status = 400, description = "Not an owner's name, or a limit out of range", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field", body = ErrorBody),
    )
)]
async fn put(
    State(state): State<AppState>,
    Path(owner): Path<String>,
    JsonBody(quota): JsonBody<Quota>,
) -> ApiResult<Json<OwnerView>> {
    access::check_owner(&owner).map_err(ApiError::BadRequest)?;
    quota.check().map_err(ApiError::BadRequest)?;
    state.store.put_quota(&owner, &quota).await?;
    state.door.quotas().forget();
    tracing::info!(owner = %owner, ?quota, "owner's quota set");
    Ok(Json(view(&state, owner, quota).await?))
}

/// What an owner's runs used each day (UTC): runs that ended, tokens and
/// cost. Every inference is counted on the day it was made, so the days
/// add up to the runs' own `usage`; a day's counts outlive its runs.
#[utoipa::path(
    get,
    path = "/owners/{owner}/usage",
    tag = "owners",
    operation_id = "get_owner_usage",
    params(("owner" = String, Path, description = "The owner", pattern = "^[A-Za-z0-9._@-]{1,64}$"), UsageQuery),
    responses(
        (status = 200, description = "The owner's usage by day", body = UsageView),
        (status = 400, description = "Not an owner's name, or a day not written `YYYY-MM-DD`", body = ErrorBody),
        (status = 404, description = "Another owner than the caller's (for a member or reader)", body = ErrorBody),
    )
)]
async fn usage(
    State(state): State<AppState>,
    caller: Caller,
    Path(owner): Path<String>,
    QueryParams(span): QueryParams<UsageQuery>,
) -> ApiResult<Json<UsageView>> {
    readable(&caller, &owner)?;
    let today = quota::day_of(state.store.now().await?);
    let (from, to) = span_of(span, &today).map_err(ApiError::BadRequest)?;
    let days = state.store.owner_usage(&owner, &from, &to).await?;
    let mut total = DayUsage { day: format!("{from}..{to}"), ..DayUsage::default() };
    for day in &days {
        total.add(day);
    }
    Ok(Json(UsageView { owner, from, to, days, total }))
}

/// The first and last day a usage request asks for, `today` filling in the end.
fn span_of(span: UsageQuery, today: &str) -> Result<(String, String), String> {
    let to = quota::parse_day(span.to.as_deref().unwrap_or(today))?;
    let from = match &span.from {
        Some(from) => quota::parse_day(from)?,
        None => to.checked_sub_signed(Duration::days(29)).unwrap_or(NaiveDate::MIN),
    };
    Ok((from.format("%Y-%m-%d").to_string(), to.format("%Y-%m-%d").to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(from: Option<&str>, to: Option<&str>) -> Result<(String, String), String> {
        span_of(UsageQuery { from: from.map(Into::into), to: to.map(Into::into) }, "2026-11-28")
    }

    #[test]
    fn a_span_defaults_to_the_thirty_days_up_to_today() {
        assert_eq!(span(None, None).unwrap(), ("2026-10-30".into(), "2026-11-28".into()));
        assert_eq!(span(Some("2026-11-01"), Some("2026-11-02")).unwrap(), ("2026-11-01".into(), "2026-11-02".into()));
        assert_eq!(span(Some("2026-11-03"), Some("2026-11-02")).unwrap().0, "2026-11-03", "an empty span");
        assert!(span(Some("2026-02-30"), None).unwrap_err().contains("YYYY-MM-DD"));
    }
}
