//! Agents: `POST|GET /agents`, `GET|PUT|DELETE /agents/{id}`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Map, Value};
use utoipa::openapi::schema::{AllOfBuilder, AnyOfBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{naming, ApiError, ApiResult, ErrorBody};
use super::extract::JsonBody;
use super::owned::{changeable, only_visible, visible};
use super::schemas::{self, Id, JsonObject};
use super::versions::{self, IfMatch};
use super::{deleted, AppState, Deleted};
use crate::domain::access::Caller;
use crate::domain::compaction::CompactionSettings;
use crate::domain::guard::Guards;
use crate::domain::model::{
    new_id, Agent, Reasoning, DEFAULT_MAX_STEPS, DEFAULT_REASONING_BYTE_LIMIT, MAX_MAX_STEPS, REASONING_BYTE_LIMITS,
};
use crate::domain::subagent::{self, Subagent};
use crate::domain::toolset;
use crate::domain::toolset::{ClientTool, HttpTool, McpServer};
use crate::domain::webhook::Webhook;
use crate::submit::checks;
use crate::{provider, tools};

/// Each handler is registered with its `#[utoipa::path]` description.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::default().routes(routes!(list, create)).routes(routes!(show, update, remove))
}

/// The fields a client may set on an agent. On `PUT`, absent fields keep their value.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AgentFields {
    /// On `PUT` only: the version the change is made over, as `If-Match`
    /// names it (a `409` if the agent is at another).
    version: Option<u64>,
    /// Required on `POST`; not blank.
    #[schema(schema_with = schemas::name)]
    name: Option<String>,
    /// Every owner may read it and use it (in sessions, fleets, formations
    /// and as a sub-agent); only its owner or an admin may change it. False
    /// by default.
    shared: Option<bool>,
    /// `scripted` (the default), `anthropic`, `openai` or `ollama`.
    #[schema(schema_with = schemas::provider)]
    provider: Option<String>,
    /// Required for real providers; `echo` by default for `scripted`.
    #[schema(schema_with = schemas::plain)]
    model: Option<String>,
    /// Forwarded to the provider; unknown keys are refused.
    #[schema(value_type = Option<JsonObject>)]
    options: Option<Map<String, Value>>,
    /// The system prompt.
    #[schema(schema_with = schemas::plain)]
    instructions: Option<String>,
    /// Built-in tool names: the only tools its runs may use.
    #[schema(schema_with = schemas::tools)]
    tools: Option<Vec<String>>,
    /// A JSON Schema the final answer must satisfy.
    #[schema(value_type = Option<JsonObject>)]
    output_schema: Option<Value>,
    /// Inference steps before a run fails (default 50).
    #[schema(minimum = 1, maximum = 1000)]
    max_steps: Option<u32>,
    /// Bytes of text, thinking and tool input one answer may stream (default 1048576).
    #[schema(minimum = 1, maximum = 1073741824)]
    max_step_output_bytes: Option<u64>,
    /// Seconds an inference step may take before it is retried (default 900).
    #[schema(minimum = 1, maximum = 86400)]
    step_timeout_secs: Option<u64>,
    /// US dollars a run may spend (its steps' priced cost); `null` for no
    /// limit, the default, or to remove one.
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = max_cost_usd)]
    max_cost_usd: Option<Option<f64>>,
    /// Tokens a run may use, whatever its model's price; `null` for no
    /// limit, the default, or to remove one.
    #[serde(default, deserialize_with = "present")]
    #[schema(schema_with = schemas::max_total_tokens)]
    max_total_tokens: Option<Option<u64>>,
    /// Identical tool calls in a row that are not run again (default 3; 0 for off).
    #[schema(schema_with = schemas::loop_guard)]
    loop_guard: Option<u32>,
    /// Tools whose calls wait for a person's decision: names, `prefix*`
    /// patterns (`server__*`), or `["*"]` for all.
    #[schema(schema_with = schemas::approve_tools)]
    approve_tools: Option<Vec<String>>,
    /// Tools the worker calls over HTTP, signed and retried.
    http_tools: Option<Vec<HttpTool>>,
    /// Tools the client runs: a run that calls one waits for the results.
    client_tools: Option<Vec<ClientTool>>,
    /// MCP servers whose tools its runs are offered as `<server>__<tool>`.
    mcp_servers: Option<Vec<McpServer>>,
    /// How much the model reasons before it answers (default `off`); a
    /// message may override it. docs/providers.md maps each level per provider.
    #[schema(schema_with = schemas::reasoning)]
    reasoning: Option<String>,
    /// Bytes of thinking a step may stream before any text or tool call
    /// (default 262144); past them the step is retried as a reasoning stall.
    #[schema(minimum = 1024, maximum = 67108864)]
    reasoning_byte_limit: Option<u64>,
    /// How runs keep their prompt inside the model's context window; given,
    /// it replaces the settings whole (absent keys take their defaults).
    compaction: Option<CompactionSettings>,
    /// Agents its model may hand tasks to, each offered as the tool
    /// `agent__<name>` (`name` defaults to the agent's own name).
    subagents: Option<Vec<Subagent>>,
    /// How deep sub-agents may nest below a run of this agent (default 3).
    #[schema(minimum = 1, maximum = 10)]
    max_depth: Option<u32>,
    /// Where the ends of its messages' runs are announced unless a message
    /// names its own; `null` for none, the default, or to remove it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Webhook>)]
    webhook: Option<Option<Webhook>>,
    /// The concurrency key and limit of its runs when their submission
    /// names none: the key may hold `{agent}`, `{session}` or `{owner}`
    /// (`"{agent}"` limits the agent's runs together). `null` removes it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<crate::domain::model::Concurrency>)]
    concurrency: Option<Option<crate::domain::model::Concurrency>>,
    /// The provider limits its runs share across every worker and host
    /// (requests and tokens a minute, requests at once), as a budget of
    /// the agent's own beside its credential's. `null` removes them.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<crate::domain::model::ProviderLimits>)]
    limits: Option<Option<crate::domain::model::ProviderLimits>>,
}

/// The body of `POST /agents`, in the document: [`AgentFields`] with `name`
/// required, and `model` unless the provider is `scripted` (the handler
/// reads `AgentFields`, refuses a missing name, and gives only `scripted` a
/// default model).
struct NewAgent;

impl PartialSchema for NewAgent {
    fn schema() -> RefOr<Schema> {
        let description = "A new agent: `name` is required, and `model` unless the provider is `scripted`";
        let fields = schemas::requiring(schemas::without_version(AgentFields::schema()), &["name"], description);
        let scripted = ObjectBuilder::new().schema_type(SchemaType::AnyValue).property(
            "provider",
            ObjectBuilder::new().schema_type(SchemaType::AnyValue).enum_values(Some([Some("scripted"), None])),
        );
        let model = ObjectBuilder::new().schema_type(Type::String).min_length(Some(1));
        let named = ObjectBuilder::new().schema_type(SchemaType::AnyValue).property("model", model).required("model");
        let model_rule = AnyOfBuilder::new().item(scripted).item(named);
        AllOfBuilder::new().item(fields).item(model_rule).into()
    }
}

impl ToSchema for NewAgent {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        AgentFields::schemas(schemas);
    }
}

/// Tells a field set to `null` (`Some(None)`, which removes a limit) from an absent one (`None`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

fn max_cost_usd() -> Schema {
    schemas::budget_usd("US dollars a run may spend; `null` for no limit")
}

impl AgentFields {
    /// Applies the guards given; absent ones are kept.
    fn apply_guards(&self, guards: &mut Guards) {
        if let Some(v) = self.max_step_output_bytes {
            guards.max_step_output_bytes = v;
        }
        if let Some(v) = self.step_timeout_secs {
            guards.step_timeout_secs = v;
        }
        if let Some(v) = self.max_cost_usd {
            guards.max_cost_usd = v;
        }
        if let Some(v) = self.max_total_tokens {
            guards.max_total_tokens = v;
        }
        if let Some(v) = self.loop_guard {
            guards.loop_guard = v;
        }
    }

    /// Sets the fields given on `agent`. A reasoning level is read here, so
    /// an unknown one is a refused value (400) rather than a mistyped body
    /// (422); the other values are checked by [`validate`].
    fn apply(self, agent: &mut Agent) -> ApiResult<()> {
        if let Some(level) = &self.reasoning {
            agent.reasoning = Reasoning::parse_field("reasoning", level).map_err(ApiError::BadRequest)?;
        }
        if let Some(v) = self.reasoning_byte_limit {
            agent.reasoning_byte_limit = v;
        }
        if let Some(v) = self.compaction.clone() {
            agent.compaction = v;
        }
        self.apply_guards(&mut agent.guards);
        self.apply_rest(agent);
        Ok(())
    }

    fn apply_rest(self, agent: &mut Agent) {
        let provider_changed = self.provider.as_ref().is_some_and(|p| *p != agent.provider);
        if let Some(v) = self.name {
            agent.name = v;
        }
        if let Some(v) = self.shared {
            agent.shared = v;
        }
        if let Some(v) = self.provider {
            agent.provider = v;
        }
        match self.model {
            Some(v) => agent.model = v,
            None if provider_changed => agent.model = String::new(),
            None => {}
        }
        if let Some(v) = self.options {
            agent.options = v;
        }
        if self.instructions.is_some() {
            agent.instructions = self.instructions;
        }
        if let Some(v) = self.tools {
            agent.tools = v;
        }
        if self.output_schema.is_some() {
            agent.output_schema = self.output_schema;
        }
        if let Some(v) = self.max_steps {
            agent.max_steps = v;
        }
        if let Some(v) = self.approve_tools {
            agent.approve_tools = v;
        }
        if let Some(v) = self.http_tools {
            agent.http_tools = v;
        }
        if let Some(v) = self.client_tools {
            agent.client_tools = v;
        }
        if let Some(v) = self.mcp_servers {
            agent.mcp_servers = v;
        }
        if let Some(v) = self.subagents {
            agent.subagents = v;
        }
        if let Some(v) = self.max_depth {
            agent.max_depth = v;
        }
        if let Some(v) = self.webhook {
            agent.webhook = v;
        }
        if let Some(v) = self.concurrency {
            agent.concurrency = v;
        }
        if let Some(v) = self.limits {
            agent.limits = v;
        }
    }
}

fn validate(agent: &mut Agent) -> ApiResult<()> {
    let bad = |m: String| Err(ApiError::BadRequest(m));
    if let Some(concurrency) = &agent.concurrency {
        concurrency.check().map_err(ApiError::BadRequest)?;
    }
    if let Some(limits) = &agent.limits {
        limits.check().map_err(ApiError::BadRequest)?;
    }
    if agent.name.trim().is_empty() {
        return bad("name is required".into());
    }
    if !provider::is_known(&agent.provider) {
        let known: Vec<_> = provider::catalog().iter().map(|p| p.id).collect();
        return bad(format!("unknown provider {:?} (known: {})", agent.provider, known.join(", ")));
    }
    if agent.model.is_empty() && agent.provider == "scripted" {
        agent.model = "echo".into();
    }
    if agent.model.is_empty() {
        return bad("model is required".into());
    }
    provider::validate_options(&agent.provider, &agent.options).map_err(ApiError::BadRequest)?;
    if let Some(env) = agent.options.get("tool_env") {
        tools::check_tool_env(env).map_err(ApiError::BadRequest)?;
    }
    check_tools(agent).map_err(ApiError::BadRequest)?;
    if let Some(schema) = &agent.output_schema {
        provider::schema::check(schema).map_err(ApiError::BadRequest)?;
    }
    if agent.max_steps == 0 || agent.max_steps > MAX_MAX_STEPS {
        return bad(format!("max_steps must be between 1 and {MAX_MAX_STEPS}"));
    }
    agent.guards.check().map_err(ApiError::BadRequest)?;
    subagent::check_max_depth(agent.max_depth).map_err(ApiError::BadRequest)?;
    agent.compaction.check().map_err(ApiError::BadRequest)?;
    if !REASONING_BYTE_LIMITS.contains(&agent.reasoning_byte_limit) {
        let (low, high) = (REASONING_BYTE_LIMITS.start(), REASONING_BYTE_LIMITS.end());
        return bad(format!("reasoning_byte_limit must be between {low} and {high} bytes"));
    }
    Ok(())
}

/// Checks an agent's sub-agents against the store: each names an agent
/// that exists and that `caller` may see, whose name is the tool's when
/// the client gave none.
async fn resolve_subagents(state: &AppState, caller: &Caller, agent: &mut Agent) -> ApiResult<()> {
    for sub in &mut agent.subagents {
        let named = if sub.agent_id == agent.id {
            Some(agent.name.clone())
        } else {
            let found = state.store.get_agent(&sub.agent_id).await?;
            found.filter(|a| caller.sees(&a.owner, a.shared)).map(|a| a.name)
        };
        let Some(name) = named else {
            return Err(ApiError::BadRequest(format!("subagents: there is no agent {}", sub.agent_id)));
        };
        subagent::fill_name(sub, &name).map_err(ApiError::BadRequest)?;
    }
    subagent::check(agent).map_err(ApiError::BadRequest)
}

/// Checks the tools an agent declares, and its `approve_tools`, against
/// this build's built-in tools.
pub fn check_tools(agent: &Agent) -> Result<(), String> {
    toolset::check_agent(agent, tools::NAMES)
}

/// Creates an agent.
#[utoipa::path(
    post,
    path = "/agents",
    tag = "agents",
    operation_id = "create_agent",
    request_body = NewAgent,
    responses(
        (status = 201, description = "The agent", body = Agent),
        (status = 400, description = "A refused value: an empty name, an unknown provider or tool, a bad option or output_schema, a missing model, a sub-agent whose agent does not exist", body = ErrorBody),
        (status = 422, description = "A missing `name`; a mistyped or unknown field; a stdio MCP server whose command is not allowed (--allow-mcp-command)", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    JsonBody(fields): JsonBody<AgentFields>,
) -> ApiResult<(StatusCode, Json<Agent>)> {
    // A missing field is the body's shape (422); an empty one is a refused value (400).
    if fields.name.is_none() {
        return Err(ApiError::Unprocessable("missing field `name`".into()));
    }
    versions::none_on_create(fields.version)?;
    let mut agent = blank_agent();
    agent.owner = caller.owner.clone();
    fields.apply(&mut agent)?;
    validate(&mut agent)?;
    state.config.mcp_commands.check(&agent.mcp_servers).map_err(ApiError::Unprocessable)?;
    checks::webhook_url(&state.door.config().webhooks, agent.webhook.as_ref(), None)?;
    resolve_subagents(&state, &caller, &mut agent).await?;
    state.store.insert_agent(&agent).await?;
    Ok((StatusCode::CREATED, Json(agent)))
}

/// A new agent before a client's fields are applied: the defaults.
pub fn blank_agent() -> Agent {
    let now = Utc::now();
    Agent {
        id: new_id(),
        name: String::new(),
        owner: crate::domain::model::first_admin(),
        shared: false,
        provider: "scripted".into(),
        model: String::new(),
        options: Map::new(),
        instructions: None,
        tools: Vec::new(),
        output_schema: None,
        max_steps: DEFAULT_MAX_STEPS,
        guards: Default::default(),
        approve_tools: Vec::new(),
        http_tools: Vec::new(),
        client_tools: Vec::new(),
        mcp_servers: Vec::new(),
        reasoning: Reasoning::Off,
        reasoning_byte_limit: DEFAULT_REASONING_BYTE_LIMIT,
        compaction: Default::default(),
        subagents: Vec::new(),
        max_depth: crate::domain::subagent::DEFAULT_MAX_DEPTH,
        webhook: None,
        concurrency: None,
        limits: None,
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

/// Every agent: a plain array.
#[utoipa::path(
    get,
    path = "/agents",
    tag = "agents",
    operation_id = "list_agents",
    responses((status = 200, description = "The caller's agents and the shared ones (an admin's: every agent)", body = Vec<Agent>))
)]
async fn list(State(state): State<AppState>, caller: Caller) -> ApiResult<Json<Vec<Agent>>> {
    Ok(Json(only_visible(&caller, state.store.list_agents().await?)))
}

/// One agent.
#[utoipa::path(
    get,
    path = "/agents/{id}",
    tag = "agents",
    operation_id = "get_agent",
    params(("id" = Id, Path, description = "The agent's ID")),
    responses(
        (status = 200, description = "The agent", body = Agent),
        (status = 404, description = "No such agent", body = ErrorBody),
    )
)]
async fn show(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Agent>> {
    Ok(Json(find(&state, &caller, &id).await?))
}

/// The agent `id`, if the caller may see it (its own, or a shared one).
pub async fn find(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Agent> {
    visible(caller, state.store.get_agent(id).await?, || format!("agent {id}"))
}

/// Replaces the fields given; absent ones are kept.
#[utoipa::path(
    put,
    path = "/agents/{id}",
    tag = "agents",
    operation_id = "update_agent",
    params(("id" = Id, Path, description = "The agent's ID"), versions::IfMatchParam),
    request_body = Option<AgentFields>,
    responses(
        (status = 200, description = "The agent as changed", body = Agent),
        (status = 400, description = "A refused value", body = ErrorBody),
        (status = 404, description = "No such agent", body = ErrorBody),
        (status = 409, description = "`If-Match` (or `version`) names a version the agent is no longer at", body = ErrorBody),
        (status = 422, description = "A mistyped or unknown field; a stdio MCP server whose command is not allowed (--allow-mcp-command)", body = ErrorBody),
    )
)]
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    if_match: IfMatch,
    JsonBody(fields): JsonBody<AgentFields>,
) -> ApiResult<Json<Agent>> {
    let wanted = versions::wanted(if_match, fields.version)?;
    let (state, caller, id, fields) = (&state, &caller, &id, &fields);
    versions::edit(wanted, || async move {
        let mut agent = changeable(caller, state.store.get_agent(id).await?, || format!("agent {id}"))?;
        versions::check(wanted, &format!("agent {id}"), agent.version)?;
        fields.clone().apply(&mut agent)?;
        validate(&mut agent)?;
        if fields.mcp_servers.is_some() {
            state.config.mcp_commands.check(&agent.mcp_servers).map_err(ApiError::Unprocessable)?;
        }
        checks::webhook_url(&state.door.config().webhooks, agent.webhook.as_ref(), None)?;
        resolve_subagents(state, caller, &mut agent).await?;
        (agent.updated_at, agent.version) = (Utc::now(), agent.version + 1);
        state.store.update_agent(&agent).await.map_err(naming(format!("agent {id}")))?;
        Ok(Json(agent))
    })
    .await
}

/// Deletes an agent; runs already queued keep their snapshot of it.
#[utoipa::path(
    delete,
    path = "/agents/{id}",
    tag = "agents",
    operation_id = "delete_agent",
    params(("id" = Id, Path, description = "The agent's ID")),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
        (status = 404, description = "No such agent", body = ErrorBody),
    )
)]
async fn remove(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> ApiResult<Json<Deleted>> {
    changeable(&caller, state.store.get_agent(&id).await?, || format!("agent {id}"))?;
    state.store.delete_agent(&id).await.map_err(naming(format!("agent {id}")))?;
    Ok(deleted())
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// What `POST /agents` makes of `body`: whether it is accepted.
    fn handler_accepts(body: &Value) -> bool {
        let Ok(fields) = serde_json::from_value::<AgentFields>(body.clone()) else { return false };
        let mut agent = blank_agent();
        let named = fields.name.is_some();
        named && fields.apply(&mut agent).is_ok() && validate(&mut agent).is_ok()
    }

    /// Whether the document's schema of `POST /agents` accepts `body`.
    fn schema_accepts(body: &Value) -> bool {
        let mut schema = serde_json::to_value(NewAgent::schema()).unwrap();
        let mut components = Vec::new();
        NewAgent::schemas(&mut components);
        let components: serde_json::Map<String, Value> =
            components.into_iter().map(|(name, s)| (name, serde_json::to_value(s).unwrap())).collect();
        schema["components"] = json!({ "schemas": components });
        crate::api::schemas::validates(schema, body)
    }

    #[test]
    fn the_schema_of_a_new_agent_accepts_what_the_handler_accepts() {
        let bodies = [
            json!({"name": "a"}),
            json!({"name": "a", "provider": null}),
            json!({"name": "a", "provider": "scripted", "model": ""}),
            json!({"name": "a", "provider": "openai"}),
            json!({"name": "a", "provider": "openai", "model": null}),
            json!({"name": "a", "provider": "openai", "model": ""}),
            json!({"name": "a", "provider": "openai", "model": "gpt-5"}),
            json!({"name": "a", "provider": "nope", "model": "m"}),
            json!({"name": " ", "model": "m"}),
            json!({"model": "m"}),
            json!({"name": "a", "tools": ["read", "bash"], "approve_tools": ["*"], "max_steps": 1000}),
            json!({"name": "a", "tools": ["nope"]}),
            json!({"name": "a", "max_steps": 0}),
            json!({"name": "a", "max_step_output_bytes": 20000, "step_timeout_secs": 1, "loop_guard": 0}),
            json!({"name": "a", "max_step_output_bytes": 0}),
            json!({"name": "a", "step_timeout_secs": 86401}),
            json!({"name": "a", "max_cost_usd": 0.05, "max_total_tokens": 1000, "loop_guard": 2}),
            json!({"name": "a", "max_cost_usd": null, "max_total_tokens": null, "loop_guard": null}),
            json!({"name": "a", "max_cost_usd": 0}),
            json!({"name": "a", "max_cost_usd": -1}),
            json!({"name": "a", "max_cost_usd": "1"}),
            json!({"name": "a", "max_total_tokens": 0}),
            json!({"name": "a", "max_total_tokens": u64::MAX}),
            json!({"name": "a", "loop_guard": 1}),
            json!({"name": "a", "loop_guard": 101}),
            json!({"name": "a", "unknown": 1}),
            json!({"name": "a", "reasoning": "high", "reasoning_byte_limit": 4096}),
            json!({"name": "a", "reasoning": "extreme"}),
            json!({"name": "a", "reasoning": null}),
            json!({"name": "a", "reasoning_byte_limit": 1023}),
            json!({"name": "a", "reasoning_byte_limit": 67108865}),
            json!({"name": "a", "options": {"script": [{"text": "hi"}]}, "output_schema": {"type": "object"}}),
            json!({"name": "a", "options": {"context_window": 4000}, "compaction": {"reserve_tokens": 1000}}),
            json!({"name": "a", "compaction": {"keep_recent_tokens": 0, "model": "echo", "enabled": false}}),
            json!({"name": "a", "compaction": {"reserve_tokens": 10000001}}),
            json!({"name": "a", "compaction": {"model": " "}}),
            json!({"name": "a", "compaction": {"model": ""}}),
            json!({"name": "a", "compaction": {"model": "m".repeat(201)}}),
            json!({"name": "a", "compaction": {"reserve": 1}}),
            json!({"name": "a", "compaction": null}),
            json!({"name": "a", "subagents": [], "max_depth": 10}),
            json!({"name": "a", "max_depth": 0}),
            json!({"name": "a", "max_depth": 11}),
            json!({"name": "a", "subagents": [{"agent_id": "x", "nope": 1}]}),
        ];
        for body in bodies {
            assert_eq!(schema_accepts(&body), handler_accepts(&body), "{body}");
        }
    }
}
