//! Client commands: talk to a running server over HTTP.

use anyhow::Context;
use clap::Subcommand;
use serde_json::json;

use super::agents::AgentsArgs;
use super::approvals::PeopleCommand;
use super::fleet::FleetArgs;
use super::formation::FormationArgs;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::runs::RunsArgs;
use super::schedule::ScheduleArgs;
use super::secrets::SecretArgs;
use super::sessions::SessionsArgs;
use super::tail::{tail, tail_answering};

#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// List agents, or create, show or delete one.
    #[command(visible_alias = "agent")]
    Agents(AgentsArgs),
    /// List sessions, or create, show (with the conversation) or delete one.
    #[command(visible_alias = "session")]
    Sessions(SessionsArgs),
    /// List runs, or show one with its transcript.
    #[command(visible_alias = "run")]
    Runs(RunsArgs),
    /// Manage fleets and follow their runs.
    Fleet(FleetArgs),
    /// Manage formations (graphs of agents, fleets and functions) and follow their runs.
    #[command(visible_alias = "formations")]
    Formation(FormationArgs),
    /// Manage schedules: agents, fleets or formations run on a cron pattern or every so often.
    #[command(visible_alias = "schedules")]
    Schedule(ScheduleArgs),
    /// Manage provider API keys (stored in the database; never shown again).
    Auth(AuthArgs),
    /// Manage secrets for MCP servers (write-only: a value is never shown again).
    #[command(visible_alias = "secrets")]
    Secret(SecretArgs),
    #[command(flatten)]
    People(PeopleCommand),
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
        /// Tail the run's events until it ends, then print a summary line
        /// on standard error.
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
        /// The reasoning level of this message's run, over its agent's:
        /// off, low, medium, high or max.
        #[arg(long)]
        reasoning: Option<String>,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Tail a run's events, reconnecting by itself until the run ends, then
    /// print a summary line on standard error.
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
    /// Cancel a run.
    Cancel {
        run_id: String,
        #[command(flatten)]
        server: ServerArg,
    },
}

/// `wingman auth …`: the keys of providers.
#[derive(Debug, clap::Args)]
pub struct AuthArgs {
    #[command(subcommand)]
    command: AuthCommand,
    #[command(flatten)]
    server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum AuthCommand {
    /// Store a provider's API key, read from standard input (so that it stays
    /// out of shell history) unless --key is given.
    Set {
        /// A provider ID, or `provider:label` for a second key of one provider.
        provider: String,
        #[arg(long)]
        key: Option<String>,
    },
    /// Show which providers have a key (never the keys).
    List,
    /// Forget a provider's key.
    Delete { provider: String },
}

impl ClientCommand {
    /// Where the command sends its requests, and with which token.
    fn server(&self) -> &ServerArg {
        match self {
            ClientCommand::Agents(args) => &args.server,
            ClientCommand::Sessions(args) => &args.server,
            ClientCommand::Runs(args) => &args.server,
            ClientCommand::Fleet(args) => &args.server,
            ClientCommand::Formation(args) => &args.server,
            ClientCommand::Schedule(args) => &args.server,
            ClientCommand::Auth(args) => &args.server,
            ClientCommand::Secret(args) => &args.server,
            ClientCommand::People(command) => command.server(),
            ClientCommand::Models { server, .. }
            | ClientCommand::Send { server, .. }
            | ClientCommand::Tail { server, .. }
            | ClientCommand::Cancel { server, .. } => server,
        }
    }
}

/// Runs a client command.
pub async fn run(command: ClientCommand) -> anyhow::Result<()> {
    // A reader that stops early (`wingman runs --all | head`) ends the
    // command quietly, as it ends any Unix filter, instead of making the
    // next print fail. Client commands start no child processes, so nothing
    // else is affected.
    // SAFETY: setting a signal's disposition to its default is async-signal-safe
    // and touches no memory.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let remote = command.server().connect()?;
    match command {
        ClientCommand::Agents(args) => super::agents::run(&remote, args).await?,
        ClientCommand::Sessions(args) => super::sessions::run(&remote, args).await?,
        ClientCommand::Runs(args) => super::runs::run(&remote, args).await?,
        ClientCommand::Fleet(args) => super::fleet::run(&remote, args.command).await?,
        ClientCommand::Formation(args) => super::formation::run(&remote, args.command).await?,
        ClientCommand::Schedule(args) => super::schedule::run(&remote, args.command).await?,
        ClientCommand::Auth(args) => auth(&remote, args.command).await?,
        ClientCommand::Secret(args) => super::secrets::run(&remote, args).await?,
        ClientCommand::People(command) => super::approvals::run(&remote, command).await?,
        ClientCommand::Models { provider, model, .. } => {
            let path = match model {
                Some(model) => format!("/provider/{}/models/{}", segment(&provider), segment(&model)),
                None => format!("/provider/{}/models", segment(&provider)),
            };
            print_json(&remote.read(&path).await?);
        }
        ClientCommand::Send {
            session_id,
            message,
            agent,
            follow,
            wait,
            idempotency_key,
            multitask_strategy,
            reasoning,
            ..
        } => {
            let submission =
                Submission { session_id, message, agent, wait, idempotency_key, multitask_strategy, reasoning };
            send(&remote, submission, follow).await?
        }
        ClientCommand::Tail { run_id, after, json, .. } => tail(&remote, &run_id, after, json).await?,
        ClientCommand::Cancel { run_id, .. } => {
            print_json(&remote.call(remote.post(&format!("/runs/{}/cancel", segment(&run_id)))).await?);
        }
    }
    Ok(())
}

/// A message to send, as `send`'s options give it.
struct Submission {
    session_id: String,
    message: String,
    agent: Option<String>,
    wait: bool,
    idempotency_key: Option<String>,
    multitask_strategy: String,
    reasoning: Option<String>,
}

/// Sends a message; then prints the run's ID, or its answer (`--wait`), or
/// follows it (`--follow`). The result says how a run waited for or
/// followed ended.
async fn send(remote: &Remote, submission: Submission, follow: bool) -> anyhow::Result<()> {
    let wait = if submission.wait { "?wait=true" } else { "" };
    let mut body = json!({"agent_id": submission.agent, "message": submission.message,
        "multitask_strategy": submission.multitask_strategy});
    if let Some(level) = submission.reasoning {
        body["reasoning"] = json!(level);
    }
    let mut request = remote.post(&format!("/sessions/{}/message{wait}", segment(&submission.session_id))).json(&body);
    if let Some(key) = submission.idempotency_key {
        request = request.header("Idempotency-Key", key);
    }
    let answer = remote.call(request).await?;
    if submission.wait {
        print_json(&answer);
        return super::outcome::judge(answer["status"].as_str());
    }
    let run_id = answer["run_id"].as_str().context("the server answered without a run_id")?;
    eprintln!("run {run_id} queued");
    if follow {
        return tail_answering(remote, run_id).await;
    }
    println!("{run_id}");
    Ok(())
}

/// The `auth` commands, in the API's shape: `{"providers": {name: {"type", "key"}}}`.
async fn auth(remote: &Remote, command: AuthCommand) -> anyhow::Result<()> {
    let answer = match command {
        AuthCommand::Set { provider, key } => {
            let key = match key {
                Some(key) => key,
                None => value_from_stdin("the key")?.trim().to_string(),
            };
            let body = json!({"providers": {provider: {"type": "api_key", "key": key}}});
            remote.call(remote.put("/provider/auth").json(&body)).await?
        }
        AuthCommand::List => remote.read("/provider/auth").await?,
        AuthCommand::Delete { provider } => {
            remote.call(remote.delete(&format!("/provider/auth/{}", segment(&provider)))).await?
        }
    };
    print_json(&answer);
    Ok(())
}

/// A value given on standard input, for the commands that keep values out
/// of shell history: all of it when it is piped or redirected (a value may
/// span lines), one line when a person types it; without the newline that
/// ends it either way.
pub fn value_from_stdin(what: &str) -> anyhow::Result<String> {
    use std::io::{IsTerminal, Read};
    let mut stdin = std::io::stdin();
    let mut text = String::new();
    let read = match stdin.is_terminal() {
        true => stdin.read_line(&mut text),
        false => stdin.read_to_string(&mut text),
    };
    read.with_context(|| format!("could not read {what} from standard input"))?;
    let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
    Ok(text.to_string())
}
