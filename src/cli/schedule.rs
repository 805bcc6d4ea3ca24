//! `wingman schedule …`: schedules from the command line.

use anyhow::Context;
use clap::Subcommand;
use serde_json::{json, Value};

use super::remote::{print_json, segment, Remote, ServerArg};

/// `wingman schedule …`.
#[derive(Debug, clap::Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    pub command: ScheduleCommand,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Create a schedule and print it. Give `--cron` or `--every`, and one
    /// target: `--session` with `--message`, `--fleet` with `--tasks`, or
    /// `--formation` with `--input`.
    Create(Box<CreateArgs>),
    /// List schedules: name, when, next tick, paused or not.
    List,
    /// Show a schedule.
    Show { schedule_id: String },
    /// Pause a schedule: no tick falls until it is resumed.
    Pause { schedule_id: String },
    /// Resume a schedule from its next tick after now.
    Resume { schedule_id: String },
    /// Delete a schedule (what its ticks submitted stays).
    Delete { schedule_id: String },
    /// What a schedule's ticks submitted, newest first.
    Runs {
        schedule_id: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
}

/// The flags of `wingman schedule create`.
#[derive(Debug, clap::Args)]
pub struct CreateArgs {
    /// What the schedule is called.
    #[arg(long)]
    pub name: String,
    /// 5 fields, or 6 with seconds first (`"0 30 9 * * MON-FRI"`).
    #[arg(long, conflicts_with = "every")]
    pub cron: Option<String>,
    /// A period: `30s`, `5m`, `1h`, `1d`.
    #[arg(long)]
    pub every: Option<String>,
    /// The IANA time zone a cron pattern is read in (default UTC).
    #[arg(long)]
    pub timezone: Option<String>,
    /// `skip` (the default) or `enqueue`: what a tick does while the last one's work runs.
    #[arg(long)]
    pub overlap: Option<String>,
    /// Send a message to this session at each tick.
    #[arg(long, requires = "message", conflicts_with_all = ["fleet", "formation"])]
    pub session: Option<String>,
    /// The message (with `--session`).
    #[arg(long)]
    pub message: Option<String>,
    /// The agent that answers it (with `--session`; the session's by default).
    #[arg(long)]
    pub agent: Option<String>,
    /// Run this fleet at each tick.
    #[arg(long, requires = "tasks", conflicts_with = "formation")]
    pub fleet: Option<String>,
    /// The fleet's tasks as JSON (`'[{"message": "…"}]'`).
    #[arg(long)]
    pub tasks: Option<String>,
    /// Run this formation at each tick.
    #[arg(long, requires = "input")]
    pub formation: Option<String>,
    /// The formation's input as JSON; anything that is not JSON is sent as text.
    #[arg(long)]
    pub input: Option<String>,
}

/// Runs a schedule command.
pub async fn run(remote: &Remote, command: ScheduleCommand) -> anyhow::Result<()> {
    match command {
        ScheduleCommand::Create(args) => {
            let body = create_body(*args)?;
            print_json(&remote.call(remote.post("/schedules").json(&body)).await?);
        }
        ScheduleCommand::List => {
            let schedules = remote.read("/schedules").await?;
            for schedule in schedules.as_array().into_iter().flatten() {
                println!("{}", line_of(schedule));
            }
        }
        ScheduleCommand::Show { schedule_id } => print_json(&remote.read(&path(&schedule_id, "")).await?),
        ScheduleCommand::Pause { schedule_id } => {
            print_json(&remote.call(remote.post(&path(&schedule_id, "/pause"))).await?)
        }
        ScheduleCommand::Resume { schedule_id } => {
            print_json(&remote.call(remote.post(&path(&schedule_id, "/resume"))).await?)
        }
        ScheduleCommand::Delete { schedule_id } => {
            print_json(&remote.call(remote.delete(&path(&schedule_id, ""))).await?)
        }
        ScheduleCommand::Runs { schedule_id, limit } => {
            let ticks = remote.read(&format!("{}?limit={limit}", path(&schedule_id, "/runs"))).await?;
            for tick in ticks["ticks"].as_array().into_iter().flatten() {
                let what = match (tick["kind"].as_str(), tick["id"].as_str()) {
                    (Some(kind), Some(id)) => format!("{kind} {id}"),
                    _ => format!("skipped: {}", tick["skipped"].as_str().unwrap_or_default()),
                };
                println!("{}  {what}", tick["tick_at"].as_str().unwrap_or_default());
            }
        }
    }
    Ok(())
}

fn path(id: &str, rest: &str) -> String {
    format!("/schedules/{}{rest}", segment(id))
}

/// The body of `POST /schedules` the flags of `create` describe.
fn create_body(args: CreateArgs) -> anyhow::Result<Value> {
    let CreateArgs { name, cron, every, timezone, overlap, session, message, agent, fleet, tasks, formation, input } =
        args;
    let target = match (session, fleet, formation) {
        (Some(session_id), _, _) => json!({"session_id": session_id, "agent_id": agent, "message": message}),
        (_, Some(fleet_id), _) => {
            let tasks: Value = serde_json::from_str(tasks.as_deref().unwrap_or_default())
                .context("--tasks must be a JSON list of tasks")?;
            json!({"fleet_id": fleet_id, "tasks": tasks})
        }
        (_, _, Some(formation_id)) => {
            let input = input.unwrap_or_default();
            let input = serde_json::from_str(&input).unwrap_or(Value::String(input));
            json!({"formation_id": formation_id, "input": input})
        }
        _ => {
            anyhow::bail!("give a target: --session with --message, --fleet with --tasks, or --formation with --input")
        }
    };
    let mut body = json!({"name": name, "target": target});
    for (key, value) in [("cron", cron), ("every", every), ("timezone", timezone), ("overlap", overlap)] {
        if let Some(value) = value {
            body[key] = json!(value);
        }
    }
    Ok(body)
}

/// A schedule in one line.
fn line_of(schedule: &Value) -> String {
    let text = |key: &str| schedule[key].as_str().unwrap_or_default().to_string();
    let when = match schedule["cron"].as_str() {
        Some(cron) => format!("cron {cron} {}", schedule["timezone"].as_str().unwrap_or("UTC")),
        None => format!("every {}", text("every")),
    };
    let state = if schedule["paused"].as_bool() == Some(true) {
        "paused".to_string()
    } else {
        format!("next {}", text("next_tick_at"))
    };
    format!("{}  {}  {when}  {state}", text("id"), text("name"))
}
