//! `wingman schedule …`: schedules from the command line.

use clap::Subcommand;
use serde_json::{json, Value};

use super::fleet::TaskArgs;
use super::format;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::view::{announce, id_of, print_list, print_table, read_to_show, Fields, FlowArgs, JsonArg, ListArgs};

/// `wingman schedule …`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    command: Option<ScheduleCommand>,
    #[command(flatten)]
    list: ListArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCommand {
    /// Create a schedule and print its ID and next tick (--json: the
    /// schedule). Give `--cron` or `--every`, and one target: `--session`
    /// with `--message`, `--fleet` with `--task`/`--tasks-file`, or
    /// `--formation` with `--input`.
    Create(Box<CreateArgs>),
    /// List schedules: name, when, next tick, paused or not.
    List(ListArgs),
    /// Show a schedule.
    Show {
        /// The schedule's ID.
        schedule_id: String,
        /// Print the API's JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Pause a schedule: no tick falls until it is resumed.
    Pause {
        /// The schedule's ID.
        schedule_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Resume a schedule from its next tick after now.
    Resume {
        /// The schedule's ID.
        schedule_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Delete a schedule (what its ticks submitted stays).
    Delete {
        /// The schedule's ID.
        schedule_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// What a schedule's ticks submitted, newest first.
    Runs {
        /// The schedule's ID.
        schedule_id: String,
        /// Print at most this many ticks.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
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
    /// Run this fleet at each tick, over the tasks of `--task` and `--tasks-file`.
    #[arg(long, conflicts_with = "formation")]
    pub fleet: Option<String>,
    #[command(flatten)]
    pub tasks: TaskArgs,
    /// Run this formation at each tick.
    #[arg(long, requires = "input")]
    pub formation: Option<String>,
    /// The formation's input as JSON; anything that is not JSON is sent as text.
    #[arg(long)]
    pub input: Option<String>,
    #[command(flatten)]
    pub flow: FlowArgs,
    #[command(flatten)]
    pub json: JsonArg,
}

/// Runs a schedule command.
pub async fn run(remote: &Remote, args: ScheduleArgs) -> anyhow::Result<()> {
    let Some(command) = args.command else { return list(remote, &args.list).await };
    match command {
        ScheduleCommand::Create(create) => {
            let json = create.json.json;
            let body = create_body(*create)?;
            let created = remote.call(remote.post("/schedules").json(&body)).await?;
            let line = format!("schedule {} created: {}", id_of(&created), state(&created));
            announce(json, &created, line);
        }
        ScheduleCommand::List(mut list) => {
            list.json |= args.list.json;
            self::list(remote, &list).await?
        }
        ScheduleCommand::Show { schedule_id, json } => show(remote, &schedule_id, json || args.list.json).await?,
        ScheduleCommand::Pause { schedule_id, json } => {
            let answer = remote.call(remote.post(&path(&schedule_id, "/pause"))).await?;
            announce(json.json, &answer, format!("schedule {schedule_id} paused"));
        }
        ScheduleCommand::Resume { schedule_id, json } => {
            let answer = remote.call(remote.post(&path(&schedule_id, "/resume"))).await?;
            announce(json.json, &answer, format!("schedule {schedule_id} resumed: {}", state(&answer)));
        }
        ScheduleCommand::Delete { schedule_id, json } => {
            let answer = remote.call(remote.delete(&path(&schedule_id, ""))).await?;
            announce(json.json, &answer, format!("schedule {schedule_id} deleted"));
        }
        ScheduleCommand::Runs { schedule_id, limit, json } => ticks(remote, &schedule_id, limit, json).await?,
    }
    Ok(())
}

async fn list(remote: &Remote, list: &ListArgs) -> anyhow::Result<()> {
    let schedules = remote.read("/schedules").await?.as_array().cloned().unwrap_or_default();
    print_list(list, schedules, "schedules", &["ID", "NAME", "WHEN", "STATE", "TARGET"], |schedule| {
        let text = |key: &str| schedule[key].as_str().unwrap_or_default().to_string();
        vec![
            (text("id"), Tone::Plain),
            (format::clip(&text("name"), 30), Tone::Bold),
            (when(schedule), Tone::Plain),
            (state(schedule), Tone::Plain),
            (target(&schedule["target"]), Tone::Dim),
        ]
    });
    Ok(())
}

async fn show(remote: &Remote, schedule_id: &str, json: bool) -> anyhow::Result<()> {
    let Some(schedule) = read_to_show(remote, &path(schedule_id, ""), json).await? else { return Ok(()) };
    let style = Style::stdout();
    let name = schedule["name"].as_str().unwrap_or_default();
    println!("{} {}  {name}", style.paint(Tone::Bold, "schedule"), style.paint(Tone::Bold, schedule_id));
    let mut fields = Fields::new(style);
    fields.add("when", when(&schedule));
    fields.add("state", state(&schedule));
    fields.add("overlap", schedule["overlap"].as_str().unwrap_or_default());
    fields.add("target", target(&schedule["target"]));
    fields.add("created", format::timestamp(&schedule["created_at"]));
    print!("{}", fields.render());
    Ok(())
}

/// What a schedule's latest ticks submitted, or skipped, as a table.
async fn ticks(remote: &Remote, schedule_id: &str, limit: u32, json: bool) -> anyhow::Result<()> {
    let answer = remote.read(&format!("{}?limit={limit}", path(schedule_id, "/runs"))).await?;
    if json {
        print_json(&answer);
        return Ok(());
    }
    let rows = answer["ticks"].as_array().into_iter().flatten().map(|tick| {
        let what = match (tick["kind"].as_str(), tick["id"].as_str()) {
            (Some(kind), Some(id)) => format!("{kind} {id}"),
            _ => format!("skipped: {}", tick["skipped"].as_str().unwrap_or_default()),
        };
        vec![(format::timestamp(&tick["tick_at"]), Tone::Plain), (what, Tone::Plain)]
    });
    let empty = format!("no ticks yet (wingman schedules show {schedule_id} says when the next falls)");
    print_table(&empty, &["TICK", "SUBMITTED"], rows.collect());
    Ok(())
}

fn path(id: &str, rest: &str) -> String {
    format!("/schedules/{}{rest}", segment(id))
}

/// The body of `POST /schedules` the flags of `create` describe.
fn create_body(args: CreateArgs) -> anyhow::Result<Value> {
    let CreateArgs {
        name,
        cron,
        every,
        timezone,
        overlap,
        session,
        message,
        agent,
        fleet,
        tasks,
        formation,
        input,
        flow,
        ..
    } = args;
    let target = match (session, fleet, formation) {
        (Some(session_id), _, _) => json!({"session_id": session_id, "agent_id": agent, "message": message}),
        (_, Some(fleet_id), _) => json!({"fleet_id": fleet_id, "tasks": tasks.read()?}),
        (_, _, Some(formation_id)) => {
            let input = input.unwrap_or_default();
            let input = serde_json::from_str(&input).unwrap_or(Value::String(input));
            json!({"formation_id": formation_id, "input": input})
        }
        _ => {
            anyhow::bail!(
                "give a target: --session with --message, --fleet with --task or --tasks-file, or --formation with --input"
            )
        }
    };
    let mut body = json!({"name": name, "target": target});
    for (key, value) in [("cron", cron), ("every", every), ("timezone", timezone), ("overlap", overlap)] {
        if let Some(value) = value {
            body[key] = json!(value);
        }
    }
    flow.add_to(&mut body);
    Ok(body)
}

/// When a schedule's ticks fall: `cron 0 30 9 * * MON-FRI Europe/Paris`, `every 5m`.
fn when(schedule: &Value) -> String {
    match schedule["cron"].as_str() {
        Some(cron) => format!("cron {cron} {}", schedule["timezone"].as_str().unwrap_or("UTC")),
        None => format!("every {}", schedule["every"].as_str().unwrap_or_default()),
    }
}

/// `paused`, or when its next tick falls.
fn state(schedule: &Value) -> String {
    match schedule["paused"].as_bool() {
        Some(true) => "paused".to_string(),
        _ => format!("next tick {}", format::timestamp(&schedule["next_tick_at"])),
    }
}

/// What each tick submits, in a few words.
fn target(target: &Value) -> String {
    let id = |key: &str| target[key].as_str().unwrap_or_default().to_string();
    if !target["session_id"].is_null() {
        format!("message to session {}", id("session_id"))
    } else if !target["fleet_id"].is_null() {
        let tasks = target["tasks"].as_array().map(Vec::len).unwrap_or(0);
        format!("fleet {} over {}", id("fleet_id"), format::count(tasks as u64, "task"))
    } else {
        format!("formation {}", id("formation_id"))
    }
}
