//! A credential's provider limits: `GET /provider/limits`,
//! `PUT|DELETE /provider/limits/{credential}`. Every worker on every host
//! draws from the budget they declare (see `crate::domain::budget`); an
//! agent declares its own in its `limits` field.

use axum::extract::{Path, State};
use axum::Json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::schemas;
use super::{deleted, AppState, Deleted};
use crate::domain::model::ProviderLimits;
use crate::domain::queue::BudgetView;
use crate::provider::auth;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list)).routes(routes!(put, remove))
}

/// Every provider budget: credentials' and agents' (`agent:<id>`), with
/// declared and learned limits, a pause, and the calls waiting and in
/// flight. A credential appears once limits are declared for it or the
/// provider has paused or limited it.
#[utoipa::path(
    get,
    path = "/provider/limits",
    tag = "providers",
    operation_id = "list_provider_limits",
    responses((status = 200, description = "The budgets, by name", body = Vec<BudgetView>))
)]
async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<BudgetView>>> {
    let (now, budgets) = state.store.provider_budgets().await?;
    Ok(Json(budgets.iter().map(|b| b.view(now)).filter(BudgetView::worth_showing).collect()))
}

/// Declares a credential's limits (replacing what was declared): requests
/// and tokens a minute, requests in flight at once. Every worker shares
/// them from the next inference on.
#[utoipa::path(
    put,
    path = "/provider/limits/{credential}",
    tag = "providers",
    operation_id = "put_provider_limits",
    params(("credential" = inline(schemas::CredentialName), Path, description = "The credential name: a provider ID, or `provider:label`")),
    request_body = ProviderLimits,
    responses(
        (status = 200, description = "The budget with its limits", body = BudgetView),
        (status = 400, description = "Not a credential name, a limit out of range, or none given", body = ErrorBody),
        (status = 422, description = "Another shape", body = ErrorBody),
    )
)]
async fn put(
    State(state): State<AppState>,
    Path(credential): Path<String>,
    JsonBody(limits): JsonBody<ProviderLimits>,
) -> ApiResult<Json<BudgetView>> {
    auth::check_name(&credential).map_err(ApiError::BadRequest)?;
    limits.check().map_err(ApiError::BadRequest)?;
    state.store.set_provider_limits(&credential, Some(limits)).await?;
    tracing::info!(credential, "provider limits declared");
    Ok(Json(budget(&state, &credential).await?))
}

/// Removes a credential's declared limits. What was learned from the
/// provider, and a pause, stay.
#[utoipa::path(
    delete,
    path = "/provider/limits/{credential}",
    tag = "providers",
    operation_id = "delete_provider_limits",
    params(("credential" = inline(schemas::CredentialName), Path, description = "The credential name: a provider ID, or `provider:label`")),
    responses(
        (status = 200, description = "Removed", body = Deleted),
        (status = 400, description = "Not a credential name", body = ErrorBody),
        (status = 404, description = "No limits are declared for it", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, Path(credential): Path<String>) -> ApiResult<Json<Deleted>> {
    auth::check_name(&credential).map_err(ApiError::BadRequest)?;
    if budget(&state, &credential).await.map_or(true, |b| b.declared.is_none()) {
        return Err(ApiError::NotFound(format!("limits of {credential}")));
    }
    state.store.set_provider_limits(&credential, None).await?;
    tracing::info!(credential, "provider limits removed");
    Ok(deleted())
}

async fn budget(state: &AppState, name: &str) -> ApiResult<BudgetView> {
    let (now, budgets) = state.store.provider_budgets().await?;
    let found = budgets.iter().find(|b| b.name == name);
    found.map(|b| b.view(now)).ok_or_else(|| ApiError::NotFound(format!("budget {name}")))
}
