//! `GET /agents/{id}/tools`: what an agent's runs are offered now, from every
//! source, as the model sees it.

use axum::extract::{Path, State};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiResult, ErrorBody};
use super::extract::QueryParams;
use super::schemas::Id;
use super::sessions::with_session_tools;
use super::AppState;
use crate::domain::access::Caller;
use crate::domain::model::ToolSpec;
use crate::domain::toolset::{self, Source};
use crate::tools;

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ToolsQuery {
    /// Add what this session adds to the agent's tools.
    #[param(value_type = Option<Id>)]
    session_id: Option<String>,
}

/// What an agent's runs are offered now.
#[derive(Debug, Serialize, ToSchema)]
struct OfferedTools {
    /// Every tool, in the order the model sees them.
    tools: Vec<OfferedTool>,
    /// MCP servers that could not be reached or could not list their tools
    /// now: a run's step would go without their tools.
    unavailable: Vec<UnavailableServer>,
    /// When a worker last listed each MCP server's tools (what the answer
    /// shows of them), by server.
    listings: Vec<ServerListing>,
}

/// When a worker listed an MCP server's tools.
#[derive(Debug, Serialize, ToSchema)]
struct ServerListing {
    server: String,
    #[schema(value_type = String)]
    #[serde(with = "crate::domain::model::timestamp")]
    listed_at: DateTime<Utc>,
    /// Seconds since.
    age_secs: u64,
}

/// An MCP server whose tools are missing now, and why.
#[derive(Debug, Serialize, ToSchema)]
struct UnavailableServer {
    server: String,
    error: String,
}

/// One tool a run is offered.
#[derive(Debug, Serialize, ToSchema)]
struct OfferedTool {
    /// The name the model calls it by.
    name: String,
    /// `builtin`, `http`, `client` or `mcp`.
    #[schema(pattern = "^(builtin|http|client|mcp)$")]
    source: &'static str,
    /// What the model is told it does.
    description: String,
    /// A JSON Schema of its input.
    #[schema(value_type = Object)]
    input_schema: Value,
}

/// The tools the agent's runs are offered, in the order the model sees
/// them; with `session_id`, the session's additions too. MCP servers are
/// asked for their tools through the embedded workers' connections; an
/// API-only server answers what a worker last listed (`listings` says
/// when), or says that no worker has listed them yet.
#[utoipa::path(
    get,
    path = "/agents/{id}/tools",
    tag = "agents",
    operation_id = "list_agent_tools",
    params(("id" = Id, Path, description = "The agent's ID"), ToolsQuery),
    responses(
        (status = 200, description = "The tools offered", body = OfferedTools),
        (status = 400, description = "An unknown parameter", body = ErrorBody),
        (status = 404, description = "No such agent or session", body = ErrorBody),
        (status = 409, description = "The session's tools clash with the agent's", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<ToolsQuery>,
) -> ApiResult<Json<OfferedTools>> {
    let mut agent = super::agents::find(&state, &caller, &id).await?;
    if let Some(session_id) = &q.session_id {
        let session = super::sessions::find(&state, &caller, session_id).await?;
        agent = with_session_tools(&agent, &session)?;
    }
    let shown = |source: Source, spec: ToolSpec| OfferedTool {
        name: spec.name,
        source: source.as_str(),
        description: spec.description,
        input_schema: spec.input_schema,
    };
    let mut offered: Vec<OfferedTool> = tools::offered(&agent).into_iter().map(|o| shown(o.source, o.spec)).collect();
    let mut unavailable = Vec::new();
    if let Some(mcp) = &state.mcp {
        // This server's own workers ask the servers now, and keep what they learn.
        let secrets = state.store.secrets_of(&caller.owner, &agent.mcp_servers).await?;
        let listed = mcp.list(&agent.mcp_servers, &secrets).await;
        for listing in &listed.fresh {
            state.store.record_mcp_listing(listing).await?;
        }
        offered.extend(listed.tools.into_iter().map(|spec| shown(Source::Mcp, spec)));
        unavailable.extend(listed.unavailable.into_iter().map(|(server, error)| UnavailableServer { server, error }));
    }
    let mut listings = Vec::new();
    let now = Utc::now();
    for server in &agent.mcp_servers {
        let stored = state.store.mcp_listing(&toolset::definition_key(server)).await?;
        let Some(listing) = stored else {
            if state.mcp.is_none() {
                unavailable.push(UnavailableServer { server: server.name.clone(), error: NOT_LISTED.into() });
            }
            continue;
        };
        let age_secs = (now - listing.listed_at).num_seconds().max(0) as u64;
        listings.push(ServerListing { server: server.name.clone(), listed_at: listing.listed_at, age_secs });
        if state.mcp.is_some() {
            continue;
        }
        match listing.error {
            Some(error) => unavailable.push(UnavailableServer {
                server: server.name.clone(),
                error: format!("{error} (as a worker found it {age_secs} s ago)"),
            }),
            None => offered.extend(listing.tools.into_iter().map(|spec| shown(Source::Mcp, spec))),
        }
    }
    Ok(Json(OfferedTools { tools: offered, unavailable, listings }))
}

/// Why an API-only server shows no tools of an MCP server.
const NOT_LISTED: &str = "no worker has listed this server's tools yet: a worker lists them when a run first uses it";
