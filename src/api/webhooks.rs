//! Webhooks in the API: the `webhook` a submission (or an agent) names,
//! checked before anything is written, and `GET …/deliveries` of a run, a
//! fleet run or a formation run.

use std::net::IpAddr;

use axum::extract::{Path, State};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::schemas::Id;
use super::AppState;
use crate::tools::outside::OutsideConfig;
use crate::webhook::{self, Delivery, Webhook};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default()
        .routes(routes!(run_deliveries))
        .routes(routes!(fleet_run_deliveries))
        .routes(routes!(formation_run_deliveries))
}

/// The URL a submission's webhook (or, failing it, its agent's) announces
/// to, checked: its form, and, for a host written as an address (or
/// `localhost`), the network policy. A name is resolved, and its addresses
/// checked, at each attempt, where DNS answers at that time.
pub fn url_of(reach: &OutsideConfig, asked: Option<&Webhook>, default: Option<&Webhook>) -> ApiResult<Option<String>> {
    let Some(hook) = asked.or(default) else { return Ok(None) };
    let url = webhook::check_url(&hook.url).map_err(ApiError::BadRequest)?;
    let literal = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) if is_localhost(name) => Some(IpAddr::from([127, 0, 0, 1])),
        _ => None,
    };
    if let Some(ip) = literal {
        if let Err(why) = reach.policy_for(&url, false).check(ip) {
            let host = url.host_str().unwrap_or_default();
            let refusal = reach.refusal(&url, ip, &format!("webhook.url: {host}: {why}"));
            return Err(ApiError::Unprocessable(refusal));
        }
    }
    Ok(Some(hook.url.clone()))
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// A subject's deliveries.
#[derive(Debug, Serialize, ToSchema)]
struct Deliveries {
    /// Oldest first, each with its finished attempts (`log`).
    deliveries: Vec<Delivery>,
}

/// The announcements of a run's end: each delivery, where it stands, and
/// its attempts.
#[utoipa::path(
    get,
    path = "/runs/{id}/deliveries",
    tag = "runs",
    operation_id = "list_run_deliveries",
    params(("id" = Id, Path, description = "The run's ID")),
    responses(
        (status = 200, description = "The run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such run", body = ErrorBody),
    )
)]
async fn run_deliveries(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Deliveries>> {
    state.store.get_run(&id).await?.ok_or_else(|| ApiError::NotFound(format!("run {id}")))?;
    list(&state, &id).await
}

/// The announcements of a fleet run's end.
#[utoipa::path(
    get,
    path = "/fleet-runs/{id}/deliveries",
    tag = "fleets",
    operation_id = "list_fleet_run_deliveries",
    params(("id" = Id, Path, description = "The fleet run's ID")),
    responses(
        (status = 200, description = "The fleet run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such fleet run", body = ErrorBody),
    )
)]
async fn fleet_run_deliveries(State(state): State<AppState>, Path(id): Path<String>) -> ApiResult<Json<Deliveries>> {
    state.store.get_fleet_run(&id).await?.ok_or_else(|| ApiError::NotFound(format!("fleet run {id}")))?;
    list(&state, &id).await
}

/// The announcements of a formation run's end.
#[utoipa::path(
    get,
    path = "/formation-runs/{id}/deliveries",
    tag = "formation-runs",
    operation_id = "list_formation_run_deliveries",
    params(("id" = Id, Path, description = "The formation run's ID")),
    responses(
        (status = 200, description = "The formation run's webhook deliveries", body = Deliveries),
        (status = 404, description = "No such formation run", body = ErrorBody),
    )
)]
async fn formation_run_deliveries(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Deliveries>> {
    state.store.get_formation_run(&id).await?.ok_or_else(|| ApiError::NotFound(format!("formation run {id}")))?;
    list(&state, &id).await
}

async fn list(state: &AppState, subject_id: &str) -> ApiResult<Json<Deliveries>> {
    Ok(Json(Deliveries { deliveries: state.store.list_deliveries(subject_id).await? }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(url: &str) -> Webhook {
        Webhook { url: url.into() }
    }

    #[test]
    fn a_private_address_is_refused_unless_its_host_is_allowed() {
        let none = OutsideConfig::webhooks(&[], None);
        for private in ["http://127.0.0.1:9/h", "http://[::1]/h", "http://10.0.0.7/h", "http://LOCALHOST./h"] {
            match url_of(&none, Some(&hook(private)), None) {
                Err(ApiError::Unprocessable(why)) => assert!(why.contains("--allow-webhook-host"), "{why}"),
                other => panic!("{private}: {other:?}"),
            }
        }
        let allowed = OutsideConfig::webhooks(&["127.0.0.1".into()], None);
        assert_eq!(
            url_of(&allowed, Some(&hook("http://127.0.0.1:9/h")), None).unwrap().as_deref(),
            Some("http://127.0.0.1:9/h")
        );
        let metadata = OutsideConfig::webhooks(&["169.254.169.254".into()], None);
        assert!(url_of(&metadata, Some(&hook("http://169.254.169.254/")), None).is_err(), "never metadata");
    }

    #[test]
    fn a_submission_s_webhook_wins_over_its_agent_s() {
        let reach = OutsideConfig::webhooks(&[], None);
        let (own, agent) = (hook("https://a.example/1"), hook("https://b.example/2"));
        assert_eq!(url_of(&reach, Some(&own), Some(&agent)).unwrap().as_deref(), Some("https://a.example/1"));
        assert_eq!(url_of(&reach, None, Some(&agent)).unwrap().as_deref(), Some("https://b.example/2"));
        assert_eq!(url_of(&reach, None, None).unwrap(), None);
        assert!(matches!(url_of(&reach, Some(&hook("ftp://x/")), None), Err(ApiError::BadRequest(_))));
    }
}
