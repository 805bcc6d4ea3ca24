//! `wingman fleet …`: fleets from the command line, and a fleet run followed
//! live with a progress bar fed by its event stream.

use std::io::{BufRead, Write};

use anyhow::{bail, Context};
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};

use super::remote::{print_json, segment, Remote, ServerArg};
use super::tail::follow;

/// `wingman fleet …`.
#[derive(Debug, clap::Args)]
pub struct FleetArgs {
    #[command(subcommand)]
    pub command: FleetCommand,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    /// Create a fleet: one agent fanned out over many tasks.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        agent: String,
        /// How many of a fleet run's tasks may run at once (0: no cap).
        #[arg(long, default_value_t = 0)]
        worker_count: u32,
        /// The default work_dir of its tasks.
        #[arg(long)]
        work_dir: Option<String>,
    },
    /// List fleets.
    List,
    /// Run a fleet over tasks, follow its progress, then print the results.
    Run {
        fleet_id: String,
        /// A task's message (repeatable).
        #[arg(long = "task")]
        tasks: Vec<String>,
        /// A file of tasks, one JSON object per line (`{"message", "work_dir"?,
        /// "instructions"?, "data"?}`); `-` reads standard input.
        #[arg(long)]
        tasks_file: Option<String>,
        /// Print the results as JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// Print the fleet run's ID and return at once.
        #[arg(long)]
        detach: bool,
        /// Make the submission idempotent under this key.
        #[arg(long)]
        idempotency_key: Option<String>,
    },
    /// Re-attach to a fleet run: follow it to its end, then print the results.
    Tail {
        fleet_run_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Cancel a fleet run's unfinished tasks.
    Cancel { fleet_run_id: String },
}

/// Runs a fleet command.
pub async fn run(remote: &Remote, command: FleetCommand) -> anyhow::Result<()> {
    match command {
        FleetCommand::Create { name, agent, worker_count, work_dir } => {
            let body = json!({"name": name, "agent_id": agent, "worker_count": worker_count, "work_dir": work_dir});
            print_json(&remote.call(remote.post("/fleets").json(&body)).await?);
        }
        FleetCommand::List => print_json(&remote.read("/fleets").await?),
        FleetCommand::Run { fleet_id, tasks, tasks_file, json, detach, idempotency_key } => {
            let tasks = read_tasks(tasks, tasks_file.as_deref())?;
            let mut request =
                remote.post(&format!("/fleets/{}/run", segment(&fleet_id))).json(&json!({"tasks": tasks}));
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
        FleetCommand::Cancel { fleet_run_id } => {
            print_json(&remote.call(remote.post(&format!("/fleet-runs/{}/cancel", segment(&fleet_run_id)))).await?);
        }
    }
    Ok(())
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
    let mut status;
    if !as_json {
        writeln!(out, "{:>5}  {:<10} {:>5}  response", "task", "status", "steps")?;
    }
    loop {
        let page = remote.read(&format!("/fleet-runs/{}?limit=1000{after}", segment(id))).await?;
        status = page["status"].clone();
        for task in page["tasks"].as_array().into_iter().flatten() {
            if as_json {
                writeln!(out, "{task}")?;
                continue;
            }
            let text = task["error"].as_str().or(task["response"].as_str()).unwrap_or("");
            let line: String = text.replace('\n', " ").chars().take(80).collect();
            let (index, state, steps) = (&task["task_index"], task["status"].as_str().unwrap_or(""), &task["steps"]);
            writeln!(out, "{index:>5}  {state:<10} {steps:>5}  {line}")?;
        }
        match page["next_after"].as_u64() {
            Some(next) => after = format!("&after={next}"),
            None => break,
        }
    }
    eprintln!("fleet run {id}: {}", status.as_str().unwrap_or("unknown"));
    Ok(())
}
