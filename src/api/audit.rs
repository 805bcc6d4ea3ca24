//! The audit log: [`record`], the middleware that queues an entry for each
//! state change made through the API, and `GET /audit` (an admin's alone,
//! [`crate::domain::access::refusal`]), which reads them, the newest first.
//!
//! Every route is behind the recorder, so a new route's changes are
//! recorded without a line of its own. An entry is queued once the
//! change's answer is ready, and written by [`super::audit_log`] within
//! milliseconds; `GET /audit` first waits for what its server queued.

use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{MatchedPath, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::Response;
use axum::Json;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::QueryParams;
use super::runs::check_limit;
use super::schemas::Id;
use super::AppState;
use crate::domain::access::{self, Caller};
use crate::domain::audit::{self, AuditEntry};
use crate::domain::model::new_id;
use crate::store::AuditFilter;

/// The longest a read of the log waits for the entries its server queued.
const SETTLE: Duration = Duration::from_secs(2);

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list))
}

/// The middleware: runs the request, and if it asked for a change and was
/// answered with a 2xx, queues who made it before the answer goes out.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().as_str().to_string();
    let (Some(caller), Some(route)) = (request.extensions().get::<Caller>(), request.extensions().get::<MatchedPath>())
    else {
        return next.run(request).await;
    };
    if !audit::is_change(&method) {
        return next.run(request).await;
    }
    let (caller, route, path) = (caller.clone(), route.as_str().to_string(), request.uri().path().to_string());
    let (id, at) = (new_id(), Utc::now());
    let response = next.run(request).await;
    let status = response.status().as_u16();
    if !audit::was_made(status) {
        return response;
    }
    let target = audit::target(&route, &path);
    let (response, made) = answer_id(response, target.as_deref()).await;
    let by = caller.by();
    let action = format!("{method} {route}");
    let entry = AuditEntry { id, at, by, role: caller.role, action, path, target, made, status };
    state.audit.append(entry).await;
    response
}

/// The `id` a JSON answer names, if another than `target`, with the answer
/// rebuilt from the bytes read. A stream (SSE) is passed on unread.
async fn answer_id(response: Response, target: Option<&str>) -> (Response, Option<String>) {
    let json = response.headers().get(CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if !json {
        return (response, None);
    }
    let (parts, body) = response.into_parts();
    // A JSON answer is built whole in memory: reading it copies it once.
    match to_bytes(body, usize::MAX).await {
        Ok(bytes) => {
            let made = serde_json::from_slice(&bytes).ok().and_then(|answer| audit::made(&answer, target));
            (Response::from_parts(parts, Body::from(bytes)), made)
        }
        Err(e) => {
            tracing::warn!(error = %e, "an answer's body could not be read for the audit log");
            (Response::from_parts(parts, Body::empty()), None)
        }
    }
}

/// A page of the audit log.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Only the changes this owner's keys made.
    #[param(pattern = "^[A-Za-z0-9._@-]{1,64}$")]
    owner: Option<String>,
    /// Entries per page (default 50).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u32>,
    /// The `next_after` of the page before: an entry's ID.
    #[param(value_type = Option<Id>)]
    after: Option<String>,
}

/// A page of the audit log, the newest first.
#[derive(Debug, Serialize, ToSchema)]
struct AuditPage {
    entries: Vec<AuditEntry>,
    /// Pass as `after` for the next (older) page; `null` on the last one.
    #[schema(required = true)]
    next_after: Option<String>,
}

/// Every state change made through the API (keys made and revoked
/// included), who made it and on what, the newest first.
#[utoipa::path(
    get,
    path = "/audit",
    tag = "keys",
    operation_id = "list_audit",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of the audit log", body = AuditPage),
        (status = 400, description = "A refused owner, a limit out of range, an `after` that is not an entry's ID, an unknown parameter", body = ErrorBody),
    )
)]
async fn list(State(state): State<AppState>, QueryParams(q): QueryParams<ListQuery>) -> ApiResult<Json<AuditPage>> {
    let limit = check_limit(q.limit, 50, 500)?;
    if let Some(owner) = &q.owner {
        access::check_owner(owner).map_err(ApiError::BadRequest)?;
    }
    if let Some(after) = &q.after {
        if !audit::is_entry_id(after) {
            return Err(ApiError::BadRequest(format!("after is not an entry's ID ({after})")));
        }
    }
    // What this server's callers changed just before is in the page.
    state.audit.settled(SETTLE).await;
    let filter = AuditFilter { owner: q.owner, after: q.after, limit };
    let entries = state.store.list_audit(&filter).await?;
    let next_after = if entries.len() as u32 == limit { entries.last().map(|e| e.id.clone()) } else { None };
    Ok(Json(AuditPage { entries, next_after }))
}
