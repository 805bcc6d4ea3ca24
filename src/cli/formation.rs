//! `wingman formation …`: formations from the command line, and a formation
//! run followed live, a line per node as it starts and ends.

use std::collections::HashSet;
use std::time::Duration;

use anyhow::Context;
use clap::Subcommand;
use serde_json::{json, Value};

use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::tail::follow;
use super::tool_results::{self, WaitingFor};
use super::view::{announce, id_of, print_list, read_to_show, Fields, FlowArgs, JsonArg, ListArgs};
use super::{approvals, format};

/// `wingman formation …`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct FormationArgs {
    #[command(subcommand)]
    command: Option<FormationCommand>,
    #[command(flatten)]
    list: ListArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
pub enum FormationCommand {
    /// Create a formation from a JSON file (`{"name", "nodes", "edges"}`;
    /// `-` reads standard input) and print its ID (--json: the formation).
    Create {
        /// The formation as JSON.
        #[arg(long, value_name = "FILE")]
        file: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// List formations, newest first.
    List(ListArgs),
    /// Show a formation: its nodes and edges.
    Show {
        /// The formation's ID.
        formation_id: String,
        /// Print the API's JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete a formation (its runs stay readable).
    Delete {
        /// The formation's ID.
        formation_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Run a formation on an input, follow its nodes (asking at the prompt
    /// about a node that waits for a person), then print its outputs.
    Run {
        /// The formation's ID.
        formation_id: String,
        /// The input as JSON (`'["a", "b"]'`, `'{"k": 1}'`); anything that is
        /// not JSON is sent as text.
        #[arg(long)]
        input: String,
        /// Print the formation run's ID and return at once.
        #[arg(long)]
        detach: bool,
        /// Make the submission idempotent under this key.
        #[arg(long)]
        idempotency_key: Option<String>,
        #[command(flatten)]
        flow: FlowArgs,
    },
    /// Follow a formation run to its end (reconnecting by itself), then print its outputs.
    Tail {
        /// The formation run's ID.
        formation_run_id: String,
    },
    /// Cancel a formation run: what runs ends, nothing new starts.
    Cancel {
        /// The formation run's ID.
        formation_run_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Runs a formation command.
pub async fn run(remote: &Remote, args: FormationArgs) -> anyhow::Result<()> {
    let Some(command) = args.command else { return list(remote, &args.list).await };
    match command {
        FormationCommand::Create { file, json } => {
            let text = match file.as_str() {
                "-" => std::io::read_to_string(std::io::stdin()).context("cannot read standard input")?,
                path => std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?,
            };
            let body: Value = serde_json::from_str(&text).with_context(|| format!("{file}: not JSON"))?;
            let created = remote.call(remote.post("/formations").json(&body)).await?;
            let nodes = format::count(created["nodes"].as_array().map_or(0, Vec::len) as u64, "node");
            let name = created["name"].as_str().unwrap_or_default();
            announce(json.json, &created, format!("formation {} created: {name}, {nodes}", id_of(&created)));
        }
        FormationCommand::List(mut list) => {
            list.json |= args.list.json;
            self::list(remote, &list).await?
        }
        FormationCommand::Show { formation_id, json } => show(remote, &formation_id, json || args.list.json).await?,
        FormationCommand::Delete { formation_id, json } => {
            let answer = remote.call(remote.delete(&format!("/formations/{}", segment(&formation_id)))).await?;
            announce(json.json, &answer, format!("formation {formation_id} deleted"));
        }
        FormationCommand::Run { formation_id, input, detach, idempotency_key, flow } => {
            let input = serde_json::from_str(&input).unwrap_or(Value::String(input));
            let path = format!("/formations/{}/run", segment(&formation_id));
            let mut body = json!({"input": input});
            flow.add_to(&mut body);
            let mut request = remote.post(&path).json(&body);
            if let Some(key) = idempotency_key {
                request = request.header("Idempotency-Key", key);
            }
            let answer = remote.call(request).await?;
            let id = answer["formation_run_id"].as_str().context("the server answered without a formation_run_id")?;
            eprintln!("formation run {id} started");
            if detach {
                println!("{id}");
                return Ok(());
            }
            watch(remote, id).await?;
        }
        FormationCommand::Tail { formation_run_id } => watch(remote, &formation_run_id).await?,
        FormationCommand::Cancel { formation_run_id, json } => {
            let path = format!("/formation-runs/{}/cancel", segment(&formation_run_id));
            let answer = remote.call(remote.post(&path)).await?;
            let status = answer["status"].as_str().unwrap_or("?");
            announce(json.json, &answer, format!("formation run {formation_run_id} cancelled: {status}"));
        }
    }
    Ok(())
}

async fn list(remote: &Remote, list: &ListArgs) -> anyhow::Result<()> {
    let formations = remote.read("/formations").await?.as_array().cloned().unwrap_or_default();
    print_list(list, formations, "formations", &["ID", "NAME", "NODES", "CREATED"], |formation| {
        let nodes: Vec<&str> =
            formation["nodes"].as_array().into_iter().flatten().filter_map(|n| n["id"].as_str()).collect();
        vec![
            (formation["id"].as_str().unwrap_or_default().to_string(), Tone::Plain),
            (format::clip(formation["name"].as_str().unwrap_or_default(), 30), Tone::Bold),
            (format::clip(&nodes.join(", "), 60), Tone::Plain),
            (format::age(&formation["created_at"]), Tone::Dim),
        ]
    });
    Ok(())
}

async fn show(remote: &Remote, formation_id: &str, json: bool) -> anyhow::Result<()> {
    let path = format!("/formations/{}", segment(formation_id));
    let Some(formation) = read_to_show(remote, &path, json).await? else { return Ok(()) };
    let style = Style::stdout();
    let name = formation["name"].as_str().unwrap_or_default();
    println!("{} {}  {name}", style.paint(Tone::Bold, "formation"), style.paint(Tone::Bold, formation_id));
    let mut fields = Fields::new(style);
    let nodes: Vec<String> = formation["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            let id = n["id"].as_str().unwrap_or_default();
            match (n["agent_id"].as_str(), n["fleet_id"].as_str(), n["function"].as_str()) {
                (Some(agent), _, _) => format!("{id}: agent {agent}"),
                (_, Some(fleet), _) => format!("{id}: fleet {fleet}"),
                (_, _, Some(function)) => format!("{id}: function {function}"),
                _ => id.to_string(),
            }
        })
        .collect();
    fields.add("nodes", nodes.join("\n"));
    let edges: Vec<String> = formation["edges"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| format!("{} → {}", e["from"].as_str().unwrap_or_default(), e["to"].as_str().unwrap_or_default()))
        .collect();
    fields.add("edges", edges.join("\n"));
    fields.add("created", format::timestamp(&formation["created_at"]));
    print!("{}", fields.render());
    Ok(())
}

/// How often a followed formation run is read for nodes that wait: a node
/// whose run comes to wait writes nothing to the formation run's log.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// Follows the formation run's events, a line per node on standard error,
/// then prints its outputs (JSON) on standard output. A node that comes to
/// wait for a person is asked about at a prompt, as `send --follow` asks
/// (or named with the command that answers it, off a terminal).
async fn watch(remote: &Remote, id: &str) -> anyhow::Result<()> {
    let style = Style::stderr();
    let path = format!("/formation-runs/{}/events", segment(id));
    let on_event = |event: &Value| {
        if let Some(line) = line_of(event, style) {
            eprintln!("{line}");
        }
    };
    let following = follow(remote, &path, 0, on_event, |why| eprintln!("[{why}]"));
    tokio::pin!(following);
    let mut asked = HashSet::new();
    loop {
        tokio::select! {
            ended = &mut following => break ended?,
            _ = tokio::time::sleep(LOOK_EVERY) => {
                if let Err(e) = answer_waiting_nodes(remote, id, &mut asked).await {
                    eprintln!("[the waiting nodes were not read: {e:#}]");
                }
            }
        }
    }
    let run = remote.read(&format!("/formation-runs/{}", segment(id))).await?;
    print_json(&run["outputs"]);
    match run["status"].as_str() {
        Some("succeeded") => Ok(()),
        status => anyhow::bail!(
            "formation run {id} {}: {}",
            status.unwrap_or("unknown"),
            run["error"].as_str().unwrap_or("no error given")
        ),
    }
}

/// Asks about (or names) each request of the formation run's waiting nodes
/// not asked about before: `asked` holds a run's ID with its request's calls.
async fn answer_waiting_nodes(remote: &Remote, id: &str, asked: &mut HashSet<String>) -> anyhow::Result<()> {
    let run = remote.read(&format!("/formation-runs/{}", segment(id))).await?;
    let waiting = run["nodes"].as_array().into_iter().flatten().filter(|n| n["status"] == "waiting");
    for node in waiting {
        let name = node["node"].as_str().unwrap_or_default();
        let Some(run_id) = node["run_id"].as_str() else {
            let fleet_run = node["fleet_run_id"].as_str().unwrap_or_default();
            if asked.insert(fleet_run.to_string()) {
                eprintln!("[node {name}: tasks of fleet run {fleet_run} wait for a person: see wingman approvals]");
            }
            continue;
        };
        let request = tool_results::waiting(remote, run_id).await?;
        let calls: Vec<&str> = request.calls.iter().filter_map(|c| c["call_id"].as_str()).collect();
        if !asked.insert(format!("{run_id} {}", calls.join(","))) {
            continue;
        }
        let event = json!({"calls": request.calls});
        match request.waiting_for {
            WaitingFor::Decision => {
                eprintln!("[node {name} waits for a decision: run {run_id}]");
                approvals::answer_at_prompt(remote, run_id, &event).await?;
            }
            WaitingFor::ToolResults => eprintln!("{}", tool_results::how_to_answer(run_id, &event)),
        }
    }
    Ok(())
}

/// What a formation run's event means to a reader, if anything.
fn line_of(event: &Value, style: Style) -> Option<String> {
    let node = event["node"].as_str().unwrap_or_default();
    match event["type"].as_str()? {
        "node_started" => {
            let work = event["run_id"].as_str().or(event["fleet_run_id"].as_str()).unwrap_or("computed");
            Some(format!("→ {node} ({}, {work})", event["kind"].as_str().unwrap_or_default()))
        }
        "node_finished" => {
            let status = style.paint(Tone::Status, event["status"].as_str().unwrap_or_default());
            let said = event["error"].as_str().map(str::to_string).or_else(|| output_of(&event["output"]));
            Some(format!("← {node} {status} {}", said.unwrap_or_default()))
        }
        "done" => Some(format!("[{}]", style.paint(Tone::Status, event["status"].as_str().unwrap_or_default()))),
        _ => None,
    }
}

fn output_of(output: &Value) -> Option<String> {
    let text = match output {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some(format::one_line(&text, 80))
}
