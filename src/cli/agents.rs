//! `wingman agents`: create, list, show and delete agents.

use anyhow::Context;
use clap::Subcommand;
use serde_json::{json, Value};

use super::format;
use super::remote::{segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::view::{announce, hint, id_of, print_list, read_to_show, Fields, JsonArg, ListArgs};

/// `wingman agents [create|list|show|delete]`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    #[command(subcommand)]
    command: Option<AgentCommand>,
    #[command(flatten)]
    list: ListArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum AgentCommand {
    /// Create an agent and print its ID (--json: the agent).
    Create(Box<NewAgent>),
    /// List agents, newest first (what `wingman agents` alone does).
    List(ListArgs),
    /// Show an agent.
    Show {
        /// The agent's ID.
        agent_id: String,
        /// Print the API's JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete an agent (runs already queued keep their copy of it; its
    /// sessions' next messages must name another).
    Delete {
        /// The agent's ID.
        agent_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

#[derive(Debug, clap::Args)]
struct NewAgent {
    /// Its name, which sub-agent tools and listings show.
    #[arg(long)]
    name: String,
    /// The provider: scripted (offline), anthropic, openai, ollama, or one
    /// configured on the server (docs/providers.md).
    #[arg(long, default_value = "scripted")]
    provider: String,
    /// The provider's model (`wingman models PROVIDER` lists them).
    #[arg(long)]
    model: Option<String>,
    /// The system prompt.
    #[arg(long)]
    instructions: Option<String>,
    /// A built-in tool (repeatable).
    #[arg(long = "tool")]
    tools: Vec<String>,
    /// Provider options as a JSON object (for `scripted`, its `script`).
    #[arg(long)]
    options: Option<String>,
    /// The most steps (inferences) a run may take (default 50).
    #[arg(long)]
    max_steps: Option<u32>,
    /// How much the model reasons: off (the default), low, medium, high or max.
    #[arg(long)]
    reasoning: Option<String>,
    /// Bytes of thinking a step may stream before it answers (default 262144).
    #[arg(long)]
    reasoning_byte_limit: Option<u64>,
    /// Compaction settings as JSON: `{"reserve_tokens"?, "keep_recent_tokens"?,
    /// "model"?, "enabled"?}` (the model's window is `context_window` in --options).
    #[arg(long, value_name = "JSON")]
    compaction: Option<String>,
    /// A tool whose calls wait for a person's decision (repeatable; `*` for all,
    /// `server__*` for an MCP server's).
    #[arg(long = "approve-tool")]
    approve_tools: Vec<String>,
    /// An MCP server, as JSON: `{"name", "command", "args"?, "env"?}` or
    /// `{"name", "url", "headers"?}` (repeatable).
    #[arg(long = "mcp-server", value_name = "JSON")]
    mcp_servers: Vec<String>,
    /// An HTTP tool, as JSON: `{"name", "description", "input_schema", "url", …}` (repeatable).
    #[arg(long = "http-tool", value_name = "JSON")]
    http_tools: Vec<String>,
    /// A client tool, as JSON: `{"name", "description", "input_schema"}` (repeatable).
    #[arg(long = "client-tool", value_name = "JSON")]
    client_tools: Vec<String>,
    /// A sub-agent its model may call as `agent__<name>`: an agent's ID, or
    /// `ID=NAME` (repeatable; the name defaults to the agent's).
    #[arg(long = "subagent", value_name = "ID[=NAME]")]
    subagents: Vec<String>,
    /// How deep sub-agents may nest below its runs (default 3).
    #[arg(long)]
    max_depth: Option<u32>,
    #[command(flatten)]
    json: JsonArg,
}

/// Parses each repeated JSON option, naming the option in the error.
fn json_list(option: &str, values: &[String]) -> anyhow::Result<Vec<Value>> {
    values.iter().map(|v| serde_json::from_str(v).with_context(|| format!("{option} must be a JSON object"))).collect()
}

/// Runs an `agents` command.
pub async fn run(remote: &Remote, args: AgentsArgs) -> anyhow::Result<()> {
    match args.command {
        None => list(remote, &args.list).await,
        Some(AgentCommand::List(mut list)) => {
            list.json |= args.list.json;
            self::list(remote, &list).await
        }
        Some(AgentCommand::Show { agent_id, json }) => show(remote, &agent_id, json || args.list.json).await,
        Some(AgentCommand::Create(agent)) => {
            let json = agent.json.json;
            let created = remote.call(remote.post("/agents").json(&agent.body()?)).await?;
            let name = created["name"].as_str().unwrap_or_default();
            announce(json, &created, format!("agent {} created: {name}", id_of(&created)));
            Ok(())
        }
        Some(AgentCommand::Delete { agent_id, json }) => {
            let answer = remote.call(remote.delete(&format!("/agents/{}", segment(&agent_id)))).await?;
            announce(json.json, &answer, format!("agent {agent_id} deleted"));
            hint(
                "a session whose agent it was now names another with each message (wingman send --agent ID), \
                  or is given one (PUT /sessions/ID {\"agent_id\": …})",
            );
            Ok(())
        }
    }
}

impl NewAgent {
    /// The body of `POST /agents`.
    fn body(self) -> anyhow::Result<Value> {
        let mut body = json!({"name": self.name, "provider": self.provider, "tools": self.tools, "approve_tools": self.approve_tools});
        if let Some(m) = self.model {
            body["model"] = json!(m);
        }
        if let Some(i) = self.instructions {
            body["instructions"] = json!(i);
        }
        if let Some(o) = self.options {
            body["options"] = serde_json::from_str(&o).context("--options must be a JSON object")?;
        }
        if let Some(s) = self.max_steps {
            body["max_steps"] = json!(s);
        }
        if let Some(level) = self.reasoning {
            body["reasoning"] = json!(level);
        }
        if let Some(limit) = self.reasoning_byte_limit {
            body["reasoning_byte_limit"] = json!(limit);
        }
        if let Some(c) = self.compaction {
            body["compaction"] = serde_json::from_str(&c).context("--compaction must be a JSON object")?;
        }
        if !self.subagents.is_empty() {
            body["subagents"] = self.subagents.iter().map(|s| subagent(s)).collect();
        }
        if let Some(depth) = self.max_depth {
            body["max_depth"] = json!(depth);
        }
        for (field, option, values) in [
            ("mcp_servers", "--mcp-server", &self.mcp_servers),
            ("http_tools", "--http-tool", &self.http_tools),
            ("client_tools", "--client-tool", &self.client_tools),
        ] {
            if !values.is_empty() {
                body[field] = Value::Array(json_list(option, values)?);
            }
        }
        Ok(body)
    }
}

/// `ID` or `ID=NAME` as a sub-agent's JSON.
fn subagent(given: &str) -> Value {
    match given.split_once('=') {
        Some((id, name)) => json!({"agent_id": id, "name": name}),
        None => json!({"agent_id": given}),
    }
}

async fn list(remote: &Remote, list: &ListArgs) -> anyhow::Result<()> {
    let agents = remote.read("/agents").await?.as_array().cloned().unwrap_or_default();
    print_list(list, agents, "agents", &["ID", "NAME", "MODEL", "TOOLS", "CREATED"], |agent| {
        let text = |key: &str| agent[key].as_str().unwrap_or_default().to_string();
        vec![
            (text("id"), Tone::Plain),
            (format::clip(&text("name"), 30), Tone::Bold),
            (format!("{}/{}", text("provider"), text("model")), Tone::Plain),
            (names(&agent["tools"]), Tone::Plain),
            (format::age(&agent["created_at"]), Tone::Dim),
        ]
    });
    Ok(())
}

async fn show(remote: &Remote, agent_id: &str, json: bool) -> anyhow::Result<()> {
    let Some(agent) = read_to_show(remote, &format!("/agents/{}", segment(agent_id)), json).await? else {
        return Ok(());
    };
    let style = Style::stdout();
    let text = |key: &str| agent[key].as_str().unwrap_or_default().to_string();
    println!("{} {}  {}", style.paint(Tone::Bold, "agent"), style.paint(Tone::Bold, agent_id), text("name"));
    let mut fields = Fields::new(style);
    fields.add("provider", text("provider"));
    fields.add("model", text("model"));
    fields.add("tools", names(&agent["tools"]));
    fields.add("approve tools", names(&agent["approve_tools"]));
    fields.add("max steps", agent["max_steps"].to_string());
    let subagents: Vec<String> = agent["subagents"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            format!(
                "agent__{} ({})",
                s["name"].as_str().unwrap_or_default(),
                s["agent_id"].as_str().unwrap_or_default()
            )
        })
        .collect();
    if !subagents.is_empty() {
        fields.add("sub-agents", format!("{} (max depth {})", subagents.join(", "), agent["max_depth"]));
    }
    fields.add("reasoning", text("reasoning"));
    fields.add("created", format::timestamp(&agent["created_at"]));
    fields.add("updated", format::timestamp(&agent["updated_at"]));
    fields.add("instructions", text("instructions"));
    if agent["options"].as_object().is_some_and(|o| !o.is_empty()) {
        fields.add("options", serde_json::to_string_pretty(&agent["options"]).unwrap_or_default());
    }
    if !agent["output_schema"].is_null() {
        fields.add("output schema", serde_json::to_string_pretty(&agent["output_schema"]).unwrap_or_default());
    }
    print!("{}", fields.render());
    Ok(())
}

/// `bash, read`, or `—` for none.
fn names(list: &Value) -> String {
    let names: Vec<&str> = list.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if names.is_empty() {
        "—".into()
    } else {
        names.join(", ")
    }
}
