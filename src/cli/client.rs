//! Client commands: talk to a running server over HTTP.

use anyhow::Context;
use clap::Subcommand;
use serde_json::{json, Value};

use super::agents::AgentsArgs;
use super::approvals::PeopleCommand;
use super::audit::AuditArgs;
use super::fleet::FleetArgs;
use super::formation::FormationArgs;
use super::keys::KeyArgs;
use super::owners::OwnersArgs;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::runs::RunsArgs;
use super::schedule::ScheduleArgs;
use super::secrets::SecretArgs;
use super::sessions::SessionsArgs;
use super::style::{Style, Tone};
use super::tail::{tail, tail_answering};
use super::view::{announce, print_table, Fields, FlowArgs, JsonArg};

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
    #[command(visible_alias = "fleets")]
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
    /// Manage the API keys that open the server to an owner with a role (admin only).
    #[command(visible_alias = "keys")]
    Key(KeyArgs),
    /// Owners' quotas (queued runs, dollars a day) and what their runs used by day.
    #[command(visible_alias = "owner")]
    Owners(OwnersArgs),
    /// Show the audit log, the newest first: who changed what through the API (admin only).
    Audit(AuditArgs),
    #[command(flatten)]
    People(PeopleCommand),
    /// List a provider's models from the server's catalogue, or show one.
    Models {
        /// A provider ID: anthropic, openai, ollama, …
        provider: String,
        /// A model's ID, to show that one.
        model: Option<String>,
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Declare provider rate limits that every worker shares (requests and
    /// tokens a minute, calls at once), and show each budget's state.
    #[command(visible_alias = "limit")]
    Limits(super::limits::LimitsArgs),
    /// Show the queue: queued runs by why they wait, counts by priority
    /// and by concurrency key, and the runs a worker takes next.
    Queue {
        /// How many of the next ready runs to list (1 to 100).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100))]
        next: u32,
        /// Print the API's JSON instead.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Send a message to a session: queues a run and prints its ID, or
    /// follows it (--follow) or waits for its answer (--wait).
    Send {
        /// The session's ID.
        session_id: String,
        /// The message.
        message: String,
        /// The agent to answer (defaults to the session's agent).
        #[arg(long)]
        agent: Option<String>,
        /// Tail the run's events until it ends, then print a summary line
        /// on standard error.
        #[arg(long, conflicts_with = "wait")]
        follow: bool,
        /// Wait for the run to end (or to wait for a person) and print its
        /// answer, with a summary line on standard error.
        #[arg(long)]
        wait: bool,
        /// With --wait: print the API's JSON answer instead.
        #[arg(long, requires = "wait")]
        json: bool,
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
        /// Replace this run of the session (edit and regenerate): the
        /// session is rewound to just before it, the conversation from there
        /// set aside as a branch, and the message sent in its place.
        #[arg(long)]
        replace: Option<String>,
        #[command(flatten)]
        flow: FlowArgs,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Tail a run's events, reconnecting by itself until the run ends, then
    /// print a summary line on standard error.
    Tail {
        /// The run's ID.
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
        /// The run's ID.
        run_id: String,
        #[command(flatten)]
        json: JsonArg,
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
        /// The key (it then shows in shell history and `ps`; standard input does not).
        #[arg(long)]
        key: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show which providers have a key (never the keys).
    List {
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Forget a provider's key.
    Delete {
        /// A provider ID, or `provider:label`.
        provider: String,
        #[command(flatten)]
        json: JsonArg,
    },
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
            ClientCommand::Key(args) => &args.server,
            ClientCommand::Owners(args) => &args.server,
            ClientCommand::Audit(args) => &args.server,
            ClientCommand::Limits(args) => &args.server,
            ClientCommand::People(command) => command.server(),
            ClientCommand::Models { server, .. }
            | ClientCommand::Queue { server, .. }
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
        ClientCommand::Fleet(args) => super::fleet::run(&remote, args).await?,
        ClientCommand::Formation(args) => super::formation::run(&remote, args).await?,
        ClientCommand::Schedule(args) => super::schedule::run(&remote, args).await?,
        ClientCommand::Auth(args) => auth(&remote, args.command).await?,
        ClientCommand::Secret(args) => super::secrets::run(&remote, args).await?,
        ClientCommand::Key(args) => super::keys::run(&remote, args).await?,
        ClientCommand::Owners(args) => super::owners::run(&remote, args).await?,
        ClientCommand::Audit(args) => super::audit::run(&remote, args).await?,
        ClientCommand::People(command) => super::approvals::run(&remote, command).await?,
        ClientCommand::Limits(args) => super::limits::run(&remote, args).await?,
        ClientCommand::Queue { next, json, .. } => super::queue::show(&remote, next, json).await?,
        ClientCommand::Models { provider, model, json, .. } => {
            models(&remote, &provider, model.as_deref(), json).await?
        }
        ClientCommand::Send {
            session_id,
            message,
            agent,
            follow,
            wait,
            json,
            idempotency_key,
            multitask_strategy,
            reasoning,
            replace,
            flow,
            ..
        } => {
            let submission = Submission {
                session_id,
                message,
                agent,
                wait,
                idempotency_key,
                multitask_strategy,
                reasoning,
                replace,
                flow,
            };
            send(&remote, submission, follow, json).await?
        }
        ClientCommand::Tail { run_id, after, json, .. } => tail(&remote, &run_id, after, json).await?,
        ClientCommand::Cancel { run_id, json, .. } => {
            let run = remote.call(remote.post(&format!("/runs/{}/cancel", segment(&run_id)))).await?;
            let status = run["status"].as_str().unwrap_or("?");
            announce(json.json, &run, format!("run {run_id} cancelled: {status}"));
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
    replace: Option<String>,
    flow: FlowArgs,
}

/// Sends a message; then prints the run's ID, or its answer (`--wait`), or
/// follows it (`--follow`). The result says how a run waited for or
/// followed ended.
async fn send(remote: &Remote, submission: Submission, follow: bool, json: bool) -> anyhow::Result<()> {
    let wait = if submission.wait { "?wait=true" } else { "" };
    let mut body = json!({"agent_id": submission.agent, "message": submission.message,
        "multitask_strategy": submission.multitask_strategy});
    if let Some(level) = submission.reasoning {
        body["reasoning"] = json!(level);
    }
    if let Some(run_id) = submission.replace {
        body["replace"] = json!(run_id);
    }
    submission.flow.add_to(&mut body);
    let mut request = remote.post(&format!("/sessions/{}/message{wait}", segment(&submission.session_id))).json(&body);
    if let Some(key) = submission.idempotency_key {
        request = request.header("Idempotency-Key", key);
    }
    let answer = remote.call(request).await?;
    if submission.wait {
        print_answer(&answer, json);
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

/// A blocking answer: the response's text on standard output and a summary
/// line on standard error, or the API's JSON; a run that waits says what for.
fn print_answer(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let run_id = answer["run_id"].as_str().unwrap_or("?");
    if let Some(text) = answer["response"].as_str().filter(|t| !t.is_empty()) {
        println!("{text}");
    }
    if let Some(asked) = answer.get("approval") {
        eprintln!("[waiting for a decision: wingman approve {run_id} (calls: {})]", call_ids(asked));
    }
    if let Some(asked) = answer.get("tool_calls_requested") {
        eprintln!("{}", super::tool_results::how_to_answer(run_id, asked));
    }
    let status = answer["status"].as_str().unwrap_or("?");
    let steps = super::format::count(answer["steps"].as_u64().unwrap_or(0), "step");
    let error = answer["error"].as_str().map(|e| format!(": {e}")).unwrap_or_default();
    eprintln!("run {run_id} {status} · {steps} · {} tokens{error}", super::format::tokens(&answer["usage"]));
}

fn call_ids(asked: &Value) -> String {
    let ids: Vec<&str> =
        asked["calls"].as_array().into_iter().flatten().filter_map(|c| c["call_id"].as_str()).collect();
    ids.join(", ")
}

/// The `auth` commands, in the API's shape: `{"providers": {name: {"type", "key"}}}`.
async fn auth(remote: &Remote, command: AuthCommand) -> anyhow::Result<()> {
    match command {
        AuthCommand::Set { provider, key, json } => {
            let key = given_or_from_stdin(key, "the key")?.trim().to_string();
            let body = json!({"providers": {&provider: {"type": "api_key", "key": key}}});
            let answer = remote.call(remote.put("/provider/auth").json(&body)).await?;
            announce(json.json, &answer, format!("key of {provider} stored"));
        }
        AuthCommand::List { json } => {
            let answer = remote.read("/provider/auth").await?;
            if json {
                print_json(&answer);
                return Ok(());
            }
            let rows = answer["providers"].as_object().into_iter().flatten().map(|(name, key)| {
                vec![
                    (name.clone(), Tone::Bold),
                    (key["type"].as_str().unwrap_or_default().to_string(), Tone::Plain),
                    (key["hint"].as_str().unwrap_or("—").to_string(), Tone::Plain),
                    (super::format::age(&key["updated_at"]), Tone::Dim),
                ]
            });
            print_table("no provider keys", &["PROVIDER", "TYPE", "ENDS IN", "UPDATED"], rows.collect());
        }
        AuthCommand::Delete { provider, json } => {
            let answer = remote.call(remote.delete(&format!("/provider/auth/{}", segment(&provider)))).await?;
            announce(json.json, &answer, format!("key of {provider} deleted"));
        }
    }
    Ok(())
}

/// A provider's models as a table (or one model's fields), or the API's JSON.
async fn models(remote: &Remote, provider: &str, model: Option<&str>, json: bool) -> anyhow::Result<()> {
    let path = match model {
        Some(model) => format!("/provider/{}/models/{}", segment(provider), segment(model)),
        None => format!("/provider/{}/models", segment(provider)),
    };
    let answer = remote.read(&path).await?;
    if json {
        print_json(&answer);
        return Ok(());
    }
    let style = Style::stdout();
    let price = |m: &Value, key: &str| m["cost"][key].as_f64().map(|c| format!("${c}")).unwrap_or_else(|| "—".into());
    let count = |v: &Value| v.as_u64().map(|n| n.to_string()).unwrap_or_else(|| "—".into());
    if model.is_some() {
        println!(
            "{} {}",
            style.paint(Tone::Bold, "model"),
            style.paint(Tone::Bold, answer["id"].as_str().unwrap_or_default())
        );
        let mut fields = Fields::new(style);
        fields.add("name", answer["name"].as_str().unwrap_or_default());
        fields.add("context", count(&answer["limit"]["context"]));
        fields.add("output", count(&answer["limit"]["output"]));
        fields.add("per M tokens", format!("{} in, {} out", price(&answer, "input"), price(&answer, "output")));
        fields.add("reasoning", answer["reasoning"].to_string());
        fields.add("tool calls", answer["tool_call"].to_string());
        print!("{}", fields.render());
        return Ok(());
    }
    // The catalogue is an object keyed by model ID: its keys come sorted.
    let rows = answer.as_object().into_iter().flatten().map(|(id, m)| {
        vec![
            (id.clone(), Tone::Plain),
            (super::format::clip(m["name"].as_str().unwrap_or_default(), 40), Tone::Bold),
            (count(&m["limit"]["context"]), Tone::Plain),
            (count(&m["limit"]["output"]), Tone::Plain),
            (price(m, "input"), Tone::Plain),
            (price(m, "output"), Tone::Plain),
        ]
    });
    let empty = format!("no models of {provider} in the catalogue");
    print_table(&empty, &["ID", "NAME", "CONTEXT", "OUTPUT", "IN $/M", "OUT $/M"], rows.collect());
    Ok(())
}

/// A value given by its flag, else on standard input, for the commands
/// that keep values out of shell history: all of standard input when it is
/// piped or redirected (a value may span lines), one line when a person
/// types it; without the newline that ends it either way.
pub fn given_or_from_stdin(given: Option<String>, what: &str) -> anyhow::Result<String> {
    use std::io::{IsTerminal, Read};
    if let Some(value) = given {
        return Ok(value);
    }
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
