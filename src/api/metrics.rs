//! `GET /metrics`: the server's counts in the Prometheus text format, with
//! the queue read from the database at scrape time, and the count of every
//! request the API answers.

use axum::extract::{MatchedPath, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AppState;
use crate::domain::model::RunStatus;
use crate::metrics::{self, DatabaseGauges};
use crate::store::{Store, StoreResult};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(scrape))
}

/// The process's families and the database's gauges. A database that does
/// not answer leaves its gauges without samples rather than failing the
/// scrape: the process's own counts are still worth having.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "health",
    operation_id = "metrics",
    responses((status = 200, description = "The Prometheus text format", content_type = "text/plain", body = String))
)]
async fn scrape(State(state): State<AppState>) -> Response {
    let database = match database_gauges(state.store.as_ref()).await {
        Ok(gauges) => Some(gauges),
        Err(e) => {
            tracing::warn!(error = %e, "metrics: the database did not answer");
            None
        }
    };
    let held = metrics::Held {
        sqlite_bytes: crate::store::memory_held_by_sqlite(),
        history: state.histories.as_ref().map_or((0, 0), |cache| cache.size()),
    };
    metrics::response(metrics::render_server(database, held))
}

async fn database_gauges(store: &dyn Store) -> StoreResult<DatabaseGauges> {
    let queue = store.queue_stats().await?;
    let waiting = store.count_runs(RunStatus::Waiting).await?;
    Ok(DatabaseGauges { queued: queue.queued, running: queue.running, waiting, workers: queue.workers })
}

/// Counts each request by method, the template of the route it matched
/// (never the path itself, whose IDs would make a series per resource) and
/// the status it was answered with.
pub async fn count_requests(request: Request, next: Next) -> Response {
    let method = method_label(request.method());
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string());
    let response = next.run(request).await;
    metrics::http_request(method, route.as_deref().unwrap_or("unmatched"), response.status().as_u16());
    response
}

/// The method as a label: the standard ones by name, any other as `other`,
/// so that made-up methods cannot add series.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}
