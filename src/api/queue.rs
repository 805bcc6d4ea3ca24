//! `GET /queue`: the queue seen whole, and why what is queued is not
//! running yet.

use axum::extract::State;
use axum::Json;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiResult, ErrorBody};
use super::extract::QueryParams;
use super::AppState;
use crate::domain::queue::{BudgetView, QueueView};

/// The route, registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(show))
}

/// How many of the next ready runs the answer lists.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct QueueQuery {
    /// 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    next: Option<u32>,
}

/// The queue: queued runs by why they wait (ready for a worker, behind
/// their session's unfinished run, behind their fleet's `worker_count`, or
/// held because their concurrency key is at its limit), running and
/// waiting runs, counts by priority and by key, and the ready runs a claim
/// takes next, in its order; and each provider budget with its limits in
/// force, its pause, and the inferences waiting for their share.
#[utoipa::path(
    get,
    path = "/queue",
    tag = "health",
    operation_id = "show_queue",
    params(QueueQuery),
    responses(
        (status = 200, description = "The queue", body = QueueView),
        (status = 400, description = "`next` out of range, an unknown parameter", body = ErrorBody),
    )
)]
async fn show(
    State(state): State<AppState>,
    QueryParams(query): QueryParams<QueueQuery>,
) -> ApiResult<Json<QueueView>> {
    let next = super::runs::check_limit(query.next, 20, 100)?;
    let mut view = state.store.queue_view(next).await?;
    let (now, budgets) = state.store.provider_budgets().await?;
    view.budgets = budgets.iter().map(|b| b.view(now)).filter(BudgetView::worth_showing).collect();
    Ok(Json(view))
}
