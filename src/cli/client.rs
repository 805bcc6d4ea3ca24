//! Client commands: talk to a running server over HTTP.

use anyhow::{bail, Context};
use clap::Subcommand;
use serde_json::{json, Value};

use super::tail::{tail, tail_answering};

#[derive(Debug, clap::Args)]
pub struct ServerArg {
    /// The server's base URL.
    #[arg(long, env = "WINGMAN_SERVER", default_value = "http://127.0.0.1:2323", global = true)]
    pub server: String,
}

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Manage agents.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Manage sessions.
    #[command(subcommand)]
    Session(SessionCommand),
    /// Manage fleets and follow their runs.
    #[command(subcommand)]
    Fleet(super::fleet::FleetCommand),
    /// Manage provider API keys (stored in the database; never shown again).
    #[command(subcommand)]
    Auth(AuthCommand),
    #[command(flatten)]
    People(super::approvals::PeopleCommand),
    /// List a provider's models from the server's catalogue, or show one.
    Models {
        provider: String,
        model: Option<String>,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Send a message to a session (queues a run and prints its ID).
    Send {
        session_id: String,
        message: String,
        /// The agent to answer (defaults to the session's agent).
        #[arg(long)]
        agent: Option<String>,
        /// Tail the run's events until it ends.
        #[arg(long, conflicts_with = "wait")]
        follow: bool,
        /// Wait for the run to end and print the answer (`?wait=true`).
        #[arg(long)]
        wait: bool,
        /// Make the submission idempotent under this key.
        #[arg(long)]
        idempotency_key: Option<String>,
        /// What becomes of the session's unfinished runs: enqueue (the
        /// default), reject, interrupt or rollback.
        #[arg(long, default_value = "enqueue")]
        multitask_strategy: String,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Tail a run's events, reconnecting by itself until the run ends.
    Tail {
        run_id: String,
        /// Start after this event seq.
        #[arg(long, default_value_t = 0)]
        after: u64,
        /// Print every event as a JSON line instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Show a run.
    Run {
        run_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Cancel a run.
    Cancel {
        run_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Create an agent and print it.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, default_value = "scripted")]
        provider: String,
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        instructions: Option<String>,
        /// A built-in tool (repeatable).
        #[arg(long = "tool")]
        tools: Vec<String>,
        /// Provider options as a JSON object.
        #[arg(long)]
        options: Option<String>,
        #[arg(long)]
        max_steps: Option<u32>,
        /// A tool whose calls wait for a person's decision (repeatable; `*` for all).
        #[arg(long = "approve-tool")]
        approve_tools: Vec<String>,
        #[command(flatten)]
        server: ServerArg,
    },
    /// List agents.
    List {
        #[command(flatten)]
        server: ServerArg,
    },
    /// Show an agent.
    Show {
        agent_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Delete an agent.
    Delete {
        agent_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Create a session and print it.
    Create {
        #[arg(long)]
        agent: Option<String>,
        #[arg(long)]
        work_dir: Option<String>,
        #[arg(long)]
        title: Option<String>,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Show a session with its history.
    Show {
        session_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
    /// List sessions with their histories.
    List {
        #[command(flatten)]
        server: ServerArg,
    },
    /// Delete a session (its unfinished runs are cancelled).
    Delete {
        session_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Store a provider's API key, read from standard input (so that it stays
    /// out of shell history) unless --key is given.
    Set {
        /// A provider ID, or `provider:label` for a second key of one provider.
        provider: String,
        #[arg(long)]
        key: Option<String>,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Show which providers have a key (never the keys).
    List {
        #[command(flatten)]
        server: ServerArg,
    },
    /// Forget a provider's key.
    Delete {
        provider: String,
        #[command(flatten)]
        server: ServerArg,
    },
}

/// Runs a client command.
pub async fn run(command: ClientCommand) -> anyhow::Result<()> {
    let http = reqwest::Client::new();
    match command {
        ClientCommand::Agent(AgentCommand::Create {
            name,
            provider,
            model,
            instructions,
            tools,
            options,
            max_steps,
            approve_tools,
            server,
        }) => {
            let mut body = json!({"name": name, "provider": provider, "tools": tools, "approve_tools": approve_tools});
            if let Some(m) = model {
                body["model"] = json!(m);
            }
            if let Some(i) = instructions {
                body["instructions"] = json!(i);
            }
            if let Some(o) = options {
                body["options"] = serde_json::from_str(&o).context("--options must be a JSON object")?;
            }
            if let Some(s) = max_steps {
                body["max_steps"] = json!(s);
            }
            print_json(&call(http.post(format!("{}/agents", server.server)).json(&body)).await?);
        }
        ClientCommand::Agent(AgentCommand::List { server }) => get(&http, &server, "/agents").await?,
        ClientCommand::Agent(AgentCommand::Show { agent_id, server }) => {
            get(&http, &server, &format!("/agents/{agent_id}")).await?
        }
        ClientCommand::Agent(AgentCommand::Delete { agent_id, server }) => {
            print_json(&call(http.delete(format!("{}/agents/{agent_id}", server.server))).await?);
        }
        ClientCommand::Session(SessionCommand::Create { agent, work_dir, title, server }) => {
            let body = json!({"agent_id": agent, "work_dir": work_dir, "title": title});
            print_json(&call(http.post(format!("{}/sessions", server.server)).json(&body)).await?);
        }
        ClientCommand::Session(SessionCommand::Show { session_id, server }) => {
            get(&http, &server, &format!("/sessions/{session_id}")).await?
        }
        ClientCommand::Session(SessionCommand::List { server }) => get(&http, &server, "/sessions").await?,
        ClientCommand::Session(SessionCommand::Delete { session_id, server }) => {
            print_json(&call(http.delete(format!("{}/sessions/{session_id}", server.server))).await?);
        }
        ClientCommand::Auth(command) => auth(&http, command).await?,
        ClientCommand::People(command) => super::approvals::run(&http, command).await?,
        ClientCommand::Fleet(command) => super::fleet::run(&http, command).await?,
        ClientCommand::Models { provider, model, server } => {
            let path = match model {
                Some(model) => format!("/provider/{provider}/models/{model}"),
                None => format!("/provider/{provider}/models"),
            };
            get(&http, &server, &path).await?
        }
        ClientCommand::Send {
            session_id,
            message,
            agent,
            follow,
            wait,
            idempotency_key,
            multitask_strategy,
            server,
        } => {
            let wait = if wait { "?wait=true" } else { "" };
            let body = json!({"agent_id": agent, "message": message, "multitask_strategy": multitask_strategy});
            let mut request = http.post(format!("{}/sessions/{session_id}/message{wait}", server.server)).json(&body);
            if let Some(key) = idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            let answer = call(request).await?;
            if !wait.is_empty() {
                print_json(&answer);
                return super::outcome::judge(answer["status"].as_str());
            }
            let run_id = answer["run_id"].as_str().context("the server answered without a run_id")?.to_string();
            eprintln!("run {run_id} queued");
            if follow {
                tail_answering(&http, &server.server, &run_id).await?;
            } else {
                println!("{run_id}");
            }
        }
        ClientCommand::Tail { run_id, after, json, server } => {
            tail(&http, &server.server, &run_id, after, json).await?
        }
        ClientCommand::Run { run_id, server } => {
            print_json(&call(http.get(format!("{}/runs/{run_id}", server.server))).await?);
        }
        ClientCommand::Cancel { run_id, server } => {
            print_json(&call(http.post(format!("{}/runs/{run_id}/cancel", server.server))).await?);
        }
    }
    Ok(())
}

async fn get(http: &reqwest::Client, server: &ServerArg, path: &str) -> anyhow::Result<()> {
    print_json(&call(http.get(format!("{}{path}", server.server))).await?);
    Ok(())
}

/// The `auth` commands, in the API's shape: `{"providers": {name: {"type", "key"}}}`.
async fn auth(http: &reqwest::Client, command: AuthCommand) -> anyhow::Result<()> {
    match command {
        AuthCommand::Set { provider, key, server } => {
            let key = match key {
                Some(key) => key,
                None => {
                    let mut line = String::new();
                    std::io::stdin().read_line(&mut line).context("could not read the key from standard input")?;
                    line.trim().to_string()
                }
            };
            let body = json!({"providers": {provider: {"type": "api_key", "key": key}}});
            print_json(&call(http.put(format!("{}/provider/auth", server.server)).json(&body)).await?);
        }
        AuthCommand::List { server } => get(http, &server, "/provider/auth").await?,
        AuthCommand::Delete { provider, server } => {
            print_json(&call(http.delete(format!("{}/provider/auth/{provider}", server.server))).await?);
        }
    }
    Ok(())
}

pub(super) async fn call(request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
    let response = request.send().await.map_err(|e| {
        let at = e.url().map(|u| format!(" at {}", u.origin().ascii_serialization())).unwrap_or_default();
        anyhow::anyhow!(
            "could not reach the server{at} ({e}): start one with `wingman serve`, or name another with --server or WINGMAN_SERVER"
        )
    })?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("{status}: {}", body["error"].as_str().unwrap_or("no error message"));
    }
    Ok(body)
}

pub(super) fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}
