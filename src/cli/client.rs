//! Client commands: talk to a running server over HTTP.

use std::io::Write;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Subcommand;
use futures_util::StreamExt;
use serde_json::{json, Value};

use super::sse::Parser;

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
    /// Send a message to a session (queues a run and prints its ID).
    Send {
        session_id: String,
        message: String,
        /// The agent to answer (defaults to the session's agent).
        #[arg(long)]
        agent: Option<String>,
        /// Tail the run's events until it ends.
        #[arg(long)]
        follow: bool,
        /// Make the submission idempotent under this key.
        #[arg(long)]
        idempotency_key: Option<String>,
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
        #[command(flatten)]
        server: ServerArg,
    },
    /// List agents.
    List {
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
            server,
        }) => {
            let mut body = json!({"name": name, "provider": provider, "tools": tools});
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
        ClientCommand::Agent(AgentCommand::List { server }) => {
            print_json(&call(http.get(format!("{}/agents", server.server))).await?);
        }
        ClientCommand::Session(SessionCommand::Create { agent, work_dir, title, server }) => {
            let body = json!({"agent_id": agent, "work_dir": work_dir, "title": title});
            print_json(&call(http.post(format!("{}/sessions", server.server)).json(&body)).await?);
        }
        ClientCommand::Session(SessionCommand::Show { session_id, server }) => {
            print_json(&call(http.get(format!("{}/sessions/{session_id}", server.server))).await?);
        }
        ClientCommand::Send { session_id, message, agent, follow, idempotency_key, server } => {
            let mut request = http
                .post(format!("{}/sessions/{session_id}/message", server.server))
                .json(&json!({"agent_id": agent, "message": message}));
            if let Some(key) = idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            let answer = call(request).await?;
            let run_id = answer["run_id"].as_str().context("the server answered without a run_id")?.to_string();
            eprintln!("run {run_id} queued");
            if follow {
                tail(&http, &server.server, &run_id, 0, false).await?;
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

async fn call(request: reqwest::RequestBuilder) -> anyhow::Result<Value> {
    let response = request.send().await.context("could not reach the server")?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        bail!("{status}: {}", body["error"].as_str().unwrap_or("no error message"));
    }
    Ok(body)
}

fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

/// Follows a run's events until `done`. A dropped connection or a server
/// restart is survived: it reconnects with `Last-Event-ID` and goes on after
/// the last event it printed.
pub async fn tail(http: &reqwest::Client, server: &str, run_id: &str, after: u64, as_json: bool) -> anyhow::Result<()> {
    let mut last = after;
    let mut delay = Duration::from_millis(100);
    loop {
        match tail_once(http, server, run_id, &mut last, as_json).await {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(TailError::Fatal(e)) => return Err(e),
            Err(TailError::Retry(e)) => eprintln!("\n[connection lost: {e}; reconnecting after event {last}]"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

enum TailError {
    Retry(String),
    Fatal(anyhow::Error),
}

async fn tail_once(
    http: &reqwest::Client,
    server: &str,
    run_id: &str,
    last: &mut u64,
    as_json: bool,
) -> Result<bool, TailError> {
    let response = http
        .get(format!("{server}/runs/{run_id}/events"))
        .header("Accept", "text/event-stream")
        .header("Last-Event-ID", last.to_string())
        .send()
        .await
        .map_err(|e| TailError::Retry(e.to_string()))?;
    let status = response.status();
    if status.is_client_error() {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        return Err(TailError::Fatal(anyhow::anyhow!("{status}: {}", body["error"].as_str().unwrap_or(""))));
    }
    if !status.is_success() {
        return Err(TailError::Retry(format!("server answered {status}")));
    }
    if status == reqwest::StatusCode::NO_CONTENT {
        // The run has ended and every event after `last` was already seen.
        return Ok(true);
    }
    let mut parser = Parser::default();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| TailError::Retry(e.to_string()))?;
        for frame in parser.push(&chunk) {
            let Some(seq) = frame.id.as_deref().and_then(|id| id.parse::<u64>().ok()) else { continue };
            if seq <= *last {
                continue;
            }
            *last = seq;
            let event: Value = serde_json::from_str(&frame.data).unwrap_or(Value::Null);
            print_event(&event, as_json);
            if event["type"] == "done" {
                return Ok(true);
            }
        }
    }
    Err(TailError::Retry("the stream ended before the run did".into()))
}

fn print_event(event: &Value, as_json: bool) {
    let mut out = std::io::stdout().lock();
    if as_json {
        let _ = writeln!(out, "{event}");
        return;
    }
    let _ = match event["type"].as_str().unwrap_or("") {
        "text_delta" => write!(out, "{}", event["text"].as_str().unwrap_or("")),
        "tool_call" => writeln!(out, "\n→ {} {}", event["name"].as_str().unwrap_or(""), event["input"]),
        "tool_result" => {
            let output = event["output"].as_str().unwrap_or("");
            let short: String = output.chars().take(300).collect();
            writeln!(out, "← {short}")
        }
        "step_restarted" => {
            writeln!(out, "\n[step {} restarted: {}]", event["step"], event["reason"].as_str().unwrap_or(""))
        }
        "done" => {
            let error = event["error"].as_str().map(|e| format!(": {e}")).unwrap_or_default();
            writeln!(out, "\n[{}{error}]", event["status"].as_str().unwrap_or(""))
        }
        _ => Ok(()),
    };
    let _ = out.flush();
}
