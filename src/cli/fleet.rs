//! `wingman fleet …`: fleets from the command line, and a fleet run followed
//! live with a progress bar fed by its event stream.

use std::io::{BufRead, Write};

use anyhow::{bail, Context};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use super::format::{self, Table};
use super::remote::{segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::tail::follow;
use super::view::{announce, id_of, print_list, read_to_show, Fields, FlowArgs, JsonArg, ListArgs};

/// `wingman fleet …`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct FleetArgs {
    #[command(subcommand)]
    command: Option<FleetCommand>,
    #[command(flatten)]
    list: ListArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Create a fleet (one agent fanned out over many tasks) and print its
    /// ID (--json: the fleet).
    Create {
        /// Its name, shown in listings.
        #[arg(long)]
        name: String,
        /// The agent every task runs.
        #[arg(long)]
        agent: String,
        /// How many of a fleet run's tasks may run at once (0: no cap).
        #[arg(long, default_value_t = 0)]
        worker_count: u32,
        /// The default work_dir of its tasks.
        #[arg(long)]
        work_dir: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// List fleets, newest first.
    List(ListArgs),
    /// Show a fleet and its latest runs.
    Show {
        /// The fleet's ID.
        fleet_id: String,
        /// Print the API's JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete a fleet (its fleet runs stay readable).
    Delete {
        /// The fleet's ID.
        fleet_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Run a fleet over tasks, follow its progress, then print the results.
    Run {
        /// The fleet's ID.
        fleet_id: String,
        #[command(flatten)]
        tasks: TaskArgs,
        /// Print the results as JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// Print the fleet run's ID and return at once.
        #[arg(long)]
        detach: bool,
        /// Make the submission idempotent under this key.
        #[arg(long)]
        idempotency_key: Option<String>,
        #[command(flatten)]
        flow: FlowArgs,
    },
    /// Re-attach to a fleet run: follow it to its end, then print the results.
    Tail {
        /// The fleet run's ID.
        fleet_run_id: String,
        /// Print the results as JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Cancel a fleet run's unfinished tasks.
    Cancel {
        /// The fleet run's ID.
        fleet_run_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// A fleet run's tasks, given the same way wherever tasks are taken
/// (`fleet run`, `schedule create --fleet`).
#[derive(Debug, Clone, clap::Args)]
pub struct TaskArgs {
    /// A task's message (repeatable).
    #[arg(long = "task")]
    tasks: Vec<String>,
    /// A file of tasks, one JSON object per line (`{"message", "work_dir"?,
    /// "instructions"?, "data"?}`); `-` reads standard input.
    #[arg(long)]
    tasks_file: Option<String>,
}

impl TaskArgs {
    /// The tasks as the API takes them.
    pub fn read(self) -> anyhow::Result<Vec<Value>> {
        read_tasks(self.tasks, self.tasks_file.as_deref())
    }
}

/// Runs a fleet command.
pub async fn run(remote: &Remote, args: FleetArgs) -> anyhow::Result<()> {
    let Some(command) = args.command else { return list(remote, &args.list).await };
    match command {
        FleetCommand::Create { name, agent, worker_count, work_dir, json } => {
            let body = json!({"name": name, "agent_id": agent, "worker_count": worker_count, "work_dir": work_dir});
            let created = remote.call(remote.post("/fleets").json(&body)).await?;
            announce(json.json, &created, format!("fleet {} created: {name}", id_of(&created)));
        }
        FleetCommand::List(mut list) => {
            list.json |= args.list.json;
            self::list(remote, &list).await?
        }
        FleetCommand::Show { fleet_id, json } => show(remote, &fleet_id, json || args.list.json).await?,
        FleetCommand::Delete { fleet_id, json } => {
            let answer = remote.call(remote.delete(&format!("/fleets/{}", segment(&fleet_id)))).await?;
            announce(json.json, &answer, format!("fleet {fleet_id} deleted"));
        }
        FleetCommand::Run { fleet_id, tasks, json, detach, idempotency_key, flow } => {
            let tasks = tasks.read()?;
            let mut body = json!({"tasks": tasks});
            flow.add_to(&mut body);
            let mut request = remote.post(&format!("/fleets/{}/run", segment(&fleet_id))).json(&body);
            if let Some(key) = idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            let answer = remote.call(request).await?;
            let id = answer["fleet_run_id"].as_str().context("the server answered without a fleet_run_id")?;
            eprintln!("fleet run {id} queued ({} tasks)", tasks.len());
            if detach {
                println!("{id}");
                return Ok(());
            }
            watch(remote, id, json).await?;
        }
        FleetCommand::Tail { fleet_run_id, json } => watch(remote, &fleet_run_id, json).await?,
        FleetCommand::Cancel { fleet_run_id, json } => {
            let path = format!("/fleet-runs/{}/cancel", segment(&fleet_run_id));
            let answer = remote.call(remote.post(&path)).await?;
            let status = answer["status"].as_str().unwrap_or("?");
            announce(json.json, &answer, format!("fleet run {fleet_run_id} cancelled: {status}"));
        }
    }
    Ok(())
}

async fn list(remote: &Remote, list: &ListArgs) -> anyhow::Result<()> {
    let fleets = remote.read("/fleets").await?.as_array().cloned().unwrap_or_default();
    print_list(list, fleets, "fleets", &["ID", "NAME", "AGENT", "AT ONCE", "STATUS", "CREATED"], |fleet| {
        let text = |key: &str| fleet[key].as_str().unwrap_or_default().to_string();
        let at_once = match fleet["worker_count"].as_u64() {
            Some(0) | None => "no cap".to_string(),
            Some(n) => n.to_string(),
        };
        vec![
            (text("id"), Tone::Plain),
            (format::clip(&text("name"), 30), Tone::Bold),
            (text("agent_id"), Tone::Plain),
            (at_once, Tone::Plain),
            (activity(fleet), Tone::Status),
            (format::age(&fleet["created_at"]), Tone::Dim),
        ]
    });
    Ok(())
}

async fn show(remote: &Remote, fleet_id: &str, json: bool) -> anyhow::Result<()> {
    let Some(fleet) = read_to_show(remote, &format!("/fleets/{}", segment(fleet_id)), json).await? else {
        return Ok(());
    };
    let runs = remote.read(&format!("/fleet-runs?fleet_id={}&order=desc&limit=5", segment(fleet_id))).await?;
    let style = Style::stdout();
    let text = |key: &str| fleet[key].as_str().unwrap_or_default().to_string();
    println!("{} {}  {}", style.paint(Tone::Bold, "fleet"), style.paint(Tone::Bold, fleet_id), text("name"));
    let mut fields = Fields::new(style);
    fields.add("agent", text("agent_id"));
    fields.add("at once", fleet["worker_count"].to_string());
    fields.add("work dir", text("work_dir"));
    fields.add("status", style.paint(Tone::Status, &activity(&fleet)));
    fields.add("created", format::timestamp(&fleet["created_at"]));
    let latest: Vec<String> = runs["fleet_runs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            let progress = &r["progress"];
            let status = style.paint(Tone::Status, r["status"].as_str().unwrap_or_default());
            let (done, total) = (progress["succeeded"].as_u64().unwrap_or(0), progress["total"].as_u64().unwrap_or(0));
            format!(
                "{} {status} {done}/{total} succeeded, {}",
                r["id"].as_str().unwrap_or_default(),
                format::age(&r["created_at"])
            )
        })
        .collect();
    fields.add("latest runs", if latest.is_empty() { "none yet".to_string() } else { latest.join("\n") });
    print!("{}", fields.render());
    Ok(())
}

/// Whether a fleet has a run going: the API's `status` keeps the original
/// API's words (`running`, `stopped`), which read as if a fleet were a
/// process; a fleet with no run going is idle.
fn activity(fleet: &Value) -> String {
    match fleet["status"].as_str() {
        Some("running") => "running".into(),
        _ => "idle".into(),
    }
}

/// The tasks of `--task` and of `--tasks-file`, in that order.
fn read_tasks(messages: Vec<String>, file: Option<&str>) -> anyhow::Result<Vec<Value>> {
    let mut tasks: Vec<Value> = messages.into_iter().map(|m| json!({"message": m})).collect();
    if let Some(path) = file {
        let reader: Box<dyn BufRead> = match path {
            "-" => Box::new(std::io::stdin().lock()),
            _ => Box::new(std::io::BufReader::new(
                std::fs::File::open(path).with_context(|| format!("cannot open {path}"))?,
            )),
        };
        for (n, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("cannot read {path}"))?;
            if line.trim().is_empty() {
                continue;
            }
            let task: Value =
                serde_json::from_str(&line).with_context(|| format!("{path}:{}: not a JSON object", n + 1))?;
            if !task.is_object() {
                bail!("{path}:{}: a task is a JSON object with a \"message\"", n + 1);
            }
            tasks.push(task);
        }
    }
    if tasks.is_empty() {
        bail!("no tasks: give --task or --tasks-file");
    }
    Ok(tasks)
}

/// Follows the fleet run's events with a progress bar (on a terminal), then
/// prints every task's result.
async fn watch(remote: &Remote, id: &str, as_json: bool) -> anyhow::Result<()> {
    let bar = ProgressBar::new(0);
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} tasks ended {msg}").expect("a valid template");
    bar.set_style(style);
    let mut failed = 0;
    let path = format!("/fleet-runs/{}/events", segment(id));
    let on_event = |event: &Value| match event["type"].as_str() {
        Some("fleet_queued") => bar.set_length(event["tasks"].as_u64().unwrap_or(0)),
        Some("result") => {
            if event["status"] != "succeeded" {
                failed += 1;
                bar.set_message(format!("({failed} not succeeded)"));
            }
            bar.inc(1);
        }
        _ => {}
    };
    let on_retry = |why: &str| match bar.is_hidden() {
        true => eprintln!("[{why}]"),
        false => bar.println(format!("[{why}]")),
    };
    follow(remote, &path, 0, on_event, on_retry).await?;
    bar.finish_and_clear();
    print_results(remote, id, as_json).await
}

/// Every task's result, a page at a time: a table, or JSON lines.
async fn print_results(remote: &Remote, id: &str, as_json: bool) -> anyhow::Result<()> {
    let mut after = String::new();
    let mut out = std::io::stdout().lock();
    let mut table = Table::new(&["TASK", "STATUS", "STEPS", "RESPONSE"]);
    let status = loop {
        let page = remote.read(&format!("/fleet-runs/{}?limit=1000{after}", segment(id))).await?;
        for task in page["tasks"].as_array().into_iter().flatten() {
            if as_json {
                writeln!(out, "{task}")?;
                continue;
            }
            let text = task["error"].as_str().or(task["response"].as_str()).unwrap_or("");
            table.row(vec![
                (task["task_index"].as_u64().unwrap_or(0).to_string(), Tone::Plain),
                (task["status"].as_str().unwrap_or_default().to_string(), Tone::Status),
                (task["steps"].as_u64().unwrap_or(0).to_string(), Tone::Plain),
                (format::one_line(text, 80), Tone::Plain),
            ]);
        }
        match page["next_after"].as_u64() {
            Some(next) => after = format!("&after={next}"),
            None => break page["status"].clone(),
        }
    };
    if !as_json {
        write!(out, "{}", table.render(&Style::stdout()))?;
    }
    eprintln!("fleet run {id}: {}", status.as_str().unwrap_or("unknown"));
    Ok(())
}
