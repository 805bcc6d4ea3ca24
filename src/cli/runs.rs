//! `wingman runs`: runs listed a page at a time as the API pages them, one
//! run shown with its timings, usage and transcript, and the one-line
//! summary printed when a followed run ends.

use clap::Subcommand;
use serde_json::{json, Value};

use super::format::{self, Table};
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::transcript::Transcript;
use super::view::{announce, hint, Fields, JsonArg, ListArgs, ShowArgs};

/// `wingman runs [list|show|retry]`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    command: Option<RunsCommand>,
    #[command(flatten)]
    list: RunFilter,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum RunsCommand {
    /// List runs, newest first (what `wingman runs` alone does).
    List(RunFilter),
    /// Show a run: status, timings, attempts, usage and cost, error, and its
    /// events as a transcript.
    Show {
        /// The run's ID.
        run_id: String,
        #[command(flatten)]
        show: ShowArgs,
    },
    /// Retry a failed, cancelled or interrupted message from a step: a new
    /// run that reuses the original's whole steps before it (no provider or
    /// tool call for them); print its ID (--json: the API's answer).
    Retry {
        /// The run's ID.
        run_id: String,
        /// The first step done again (default: the original's first step
        /// that is not whole).
        #[arg(long)]
        from_step: Option<u32>,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Which runs to list: the filters `GET /runs` takes.
#[derive(Debug, Clone, clap::Args)]
struct RunFilter {
    /// Only runs in this status: queued, running, waiting, succeeded, failed,
    /// cancelled or interrupted.
    #[arg(long)]
    status: Option<String>,
    /// Only the runs of this session.
    #[arg(long)]
    session: Option<String>,
    /// Only the tasks of this fleet run.
    #[arg(long)]
    fleet_run: Option<String>,
    /// Only the sub-agents' runs this run started.
    #[arg(long)]
    parent: Option<String>,
    /// Start after this run (the next page of an earlier listing).
    #[arg(long)]
    after: Option<String>,
    /// List the oldest first.
    #[arg(long)]
    oldest_first: bool,
    #[command(flatten)]
    list: ListArgs,
}

/// Runs a `runs` command.
pub async fn run(remote: &Remote, args: RunsArgs) -> anyhow::Result<()> {
    match args.command {
        None => list(remote, &args.list).await,
        Some(RunsCommand::List(mut filter)) => {
            filter.list.json |= args.list.list.json;
            list(remote, &filter).await
        }
        Some(RunsCommand::Show { run_id, mut show }) => {
            show.json |= args.list.list.json;
            self::show(remote, &run_id, &show).await
        }
        Some(RunsCommand::Retry { run_id, from_step, json }) => {
            let path = format!("/runs/{}/retry", segment(&run_id));
            let accepted = remote.call(remote.post(&path).json(&json!({"from_step": from_step}))).await?;
            let line = format!(
                "run {} queued: it retries run {run_id} from step {}",
                accepted["run_id"].as_str().unwrap_or("?"),
                accepted["from_step"]
            );
            announce(json.json, &accepted, line);
            Ok(())
        }
    }
}

/// Lists the runs the filter names, up to its limit.
async fn list(remote: &Remote, filter: &RunFilter) -> anyhow::Result<()> {
    let mut query = Vec::new();
    query.extend(filter.status.clone().map(|s| ("status", s)));
    query.extend(filter.session.clone().map(|s| ("session_id", s)));
    query.extend(filter.fleet_run.clone().map(|f| ("fleet_run_id", f)));
    query.extend(filter.parent.clone().map(|p| ("parent_run_id", p)));
    if !filter.oldest_first {
        query.push(("order", "desc".into()));
    }
    let (runs, next) = read(remote, &query, filter.after.clone(), filter.list.wanted()).await?;
    if filter.list.json {
        print_json(&json!({"runs": runs, "next_after": next}));
        return Ok(());
    }
    match runs.is_empty() {
        true => println!("no runs"),
        false => print!("{}", table(&runs).render(&Style::stdout())),
    }
    if let Some(next) = next {
        let status = filter.status.as_ref().map(|s| format!(" --status {s}")).unwrap_or_default();
        let session = filter.session.as_ref().map(|s| format!(" --session {s}")).unwrap_or_default();
        let fleet_run = filter.fleet_run.as_ref().map(|f| format!(" --fleet-run {f}")).unwrap_or_default();
        let parent = filter.parent.as_ref().map(|p| format!(" --parent {p}")).unwrap_or_default();
        let order = if filter.oldest_first { " --oldest-first" } else { "" };
        hint(&format!("more: wingman runs{status}{session}{fleet_run}{parent}{order} --after {next}"));
    }
    Ok(())
}

/// Pages through `GET /runs` with `query` (its filters) from after `after`
/// until `wanted` runs are read or none are left; also the cursor of the
/// next page, if there is one.
pub async fn read(
    remote: &Remote,
    query: &[(&str, String)],
    mut after: Option<String>,
    wanted: usize,
) -> anyhow::Result<(Vec<Value>, Option<String>)> {
    let mut runs = Vec::new();
    loop {
        let page_size = (wanted - runs.len()).min(500).to_string();
        let mut page_query = query.to_vec();
        page_query.push(("limit", page_size));
        page_query.extend(after.take().map(|a| ("after", a)));
        let page = remote.call(remote.get("/runs").query(&page_query)).await?;
        runs.extend(page["runs"].as_array().cloned().unwrap_or_default());
        match page["next_after"].as_str() {
            Some(next) if runs.len() < wanted => after = Some(next.to_string()),
            next => return Ok((runs, next.map(String::from))),
        }
    }
}

/// A row per run.
pub fn table(runs: &[Value]) -> Table {
    let mut table = Table::new(&["ID", "STATUS", "STEPS", "TOKENS", "COST", "TOOK", "CREATED", "MESSAGE"]);
    for run in runs {
        let text = |key: &str| run[key].as_str().unwrap_or_default().to_string();
        let took = format::between(&run["created_at"], &run["finished_at"]).map(format::duration);
        table.row(vec![
            (text("id"), Tone::Plain),
            (text("status"), Tone::Status),
            (run["steps"].as_u64().unwrap_or(0).to_string(), Tone::Plain),
            (format::tokens(&run["usage"]), Tone::Plain),
            (format::cost(&run["usage"]).unwrap_or_else(|| "—".into()), Tone::Plain),
            (took.unwrap_or_else(|| "—".into()), Tone::Plain),
            (format::age(&run["created_at"]), Tone::Dim),
            (format::one_line(run["input"]["message"].as_str().unwrap_or_default(), 60), Tone::Plain),
        ]);
    }
    table
}

/// Prints a run: its fields, then its message and events as a transcript.
async fn show(remote: &Remote, run_id: &str, show: &ShowArgs) -> anyhow::Result<()> {
    let run = remote.read(&format!("/runs/{}", segment(run_id))).await?;
    if show.json {
        print_json(&run);
        return Ok(());
    }
    let events = remote.read_events(&format!("/runs/{}/events", segment(run_id))).await?;
    let style = Style::stdout();
    let status = style.paint(Tone::Status, run["status"].as_str().unwrap_or_default());
    println!("{} {}  {status}", style.paint(Tone::Bold, "run"), style.paint(Tone::Bold, run_id));
    print!("{}", fields(&run, style).render());
    if run["children"].as_array().is_some_and(|c| !c.is_empty()) {
        println!("\n{}", style.paint(Tone::Bold, "sub-agents"));
        print!("{}", tree(remote, &run, style).await?.join(""));
    }
    let mut transcript = Transcript::new(style, show.shorten());
    if let Some(instructions) = run["input"]["instructions"].as_str() {
        transcript.note(&format!("instructions: {}", format::one_line(instructions, 200)));
    }
    transcript.say("user", Tone::User, run["input"]["message"].as_str().unwrap_or_default());
    transcript.run(events.as_array().map(Vec::as_slice).unwrap_or_default());
    print!("\n{}", transcript.text());
    Ok(())
}

/// The lines of a run's sub-agents' runs, and theirs below them, each
/// indented under its parent: `└ ID agent__name status`.
async fn tree(remote: &Remote, run: &Value, style: Style) -> anyhow::Result<Vec<String>> {
    let mut lines = Vec::new();
    // Depth first, with the depth each run is drawn at; nesting is bounded
    // by the agents' max_depth (at most 10).
    let mut stack: Vec<(usize, Value)> = children(run).rev().map(|c| (1, c.clone())).collect();
    while let Some((depth, child)) = stack.pop() {
        let id = child["run_id"].as_str().unwrap_or_default();
        let shown = remote.read(&format!("/runs/{}", segment(id))).await?;
        let tool = shown["input"]["parent"]["tool"].as_str().unwrap_or("sub-agent");
        let status = style.paint(Tone::Status, child["status"].as_str().unwrap_or_default());
        lines.push(format!("{}└ {id} {tool} {status}\n", "  ".repeat(depth)));
        stack.extend(children(&shown).rev().map(|c| (depth + 1, c.clone())));
    }
    Ok(lines)
}

fn children(run: &Value) -> impl DoubleEndedIterator<Item = &Value> {
    run["children"].as_array().into_iter().flatten()
}

/// A run's fields as people read them.
fn fields(run: &Value, style: Style) -> Fields {
    let text = |key: &str| run[key].as_str().unwrap_or_default().to_string();
    let mut fields = Fields::new(style);
    fields.add("kind", text("kind"));
    fields.add("session", text("session_id"));
    fields.add("agent", text("agent_id"));
    if let Some(fleet_run) = run["fleet_run_id"].as_str() {
        fields.add("fleet run", format!("{fleet_run} (task {})", run["task_index"]));
    }
    if let Some(parent) = run["parent_run_id"].as_str() {
        let depth = &run["input"]["parent"]["depth"];
        fields.add("parent run", format!("{parent} (call {}, depth {depth})", text("parent_call_id")));
    }
    if let Some(priority) = run["input"]["priority"].as_i64() {
        fields.add("priority", priority.to_string());
    }
    fields.add("created", format::timestamp(&run["created_at"]));
    if !run["started_at"].is_null() {
        let queued = format::between(&run["created_at"], &run["started_at"]).map(format::duration);
        fields.add(
            "started",
            format!("{} ({} in the queue)", format::timestamp(&run["started_at"]), queued.unwrap_or_default()),
        );
    }
    if !run["finished_at"].is_null() {
        let ran = format::between(&run["started_at"], &run["finished_at"]).map(format::duration);
        let ran = ran.map(|d| format!(" (ran {d})")).unwrap_or_default();
        fields.add("finished", format!("{}{ran}", format::timestamp(&run["finished_at"])));
    }
    fields.add("attempts", run["attempt"].as_u64().unwrap_or(0).to_string());
    let calls = run["tool_calls"].as_array().map(Vec::len).unwrap_or(0) as u64;
    fields.add("steps", format!("{}, {}", run["steps"].as_u64().unwrap_or(0), format::count(calls, "tool call")));
    fields.add("tokens", tokens_with_cache(&run["usage"]));
    fields.add("cost", format::cost(&run["usage"]).unwrap_or_else(|| "unknown (no price for this model)".into()));
    fields.add("error", style.paint(Tone::Error, run["error"].as_str().unwrap_or_default()));
    fields
}

/// `13 in / 9 out`, and the prompt cache's part when it had one.
fn tokens_with_cache(usage: &Value) -> String {
    let read = usage["cache_read_input_tokens"].as_u64().unwrap_or(0);
    let written = usage["cache_creation_input_tokens"].as_u64().unwrap_or(0);
    match read + written {
        0 => format::tokens(usage),
        _ => format!("{} (cache: {read} read, {written} written)", format::tokens(usage)),
    }
}

/// The line printed on standard error when a followed run ends: `run ID
/// succeeded · 2 steps · 13 in / 9 out tokens · $0.000174 · 1.4 s`.
pub fn summary(run: &Value, style: Style) -> String {
    let mut parts = vec![
        format!(
            "run {} {}",
            run["id"].as_str().unwrap_or_default(),
            style.paint(Tone::Status, run["status"].as_str().unwrap_or_default())
        ),
        format::count(run["steps"].as_u64().unwrap_or(0), "step"),
        format!("{} tokens", format::tokens(&run["usage"])),
        format::cost(&run["usage"]).unwrap_or_else(|| "cost unknown".into()),
    ];
    parts.extend(format::between(&run["created_at"], &run["finished_at"]).map(format::duration));
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_status_steps_tokens_cost_and_time() {
        let run = json!({"id": "R", "status": "succeeded", "steps": 2,
            "usage": {"input_tokens": 13, "output_tokens": 9, "cost_usd": 0.000174},
            "created_at": "2025-06-01T14:03:07.000Z", "finished_at": "2025-06-01T14:03:08.400Z"});
        let line = summary(&run, Style::decide(false, None, None));
        assert_eq!(line, "run R succeeded · 2 steps · 13 in / 9 out tokens · $0.000174 · 1.4 s");
        let unpriced = json!({"id": "R", "status": "failed", "steps": 1, "usage": {}, "finished_at": null});
        assert_eq!(
            summary(&unpriced, Style::decide(false, None, None)),
            "run R failed · 1 step · 0 in / 0 out tokens · cost unknown"
        );
    }
}
