//! (d) Per-step cost of an 11-step scripted tool loop: every inference and
//! every tool result is a durable checkpoint.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use clap::Args;
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::Setup;
use crate::domain::guard::Guards;
use crate::domain::model::{new_id, Agent, RunInput, RunKind, RunStatus, Session};
use crate::domain::toolset::McpServer;
use crate::store::{NewRun, Store};
use crate::tools::sandbox::{SandboxConfig, SandboxMode};
use crate::worker::WorkerConfig;

#[derive(Debug, Args)]
pub struct StepsArgs {
    /// Runs measured one at a time (0 skips that figure).
    #[arg(long, default_value_t = 20)]
    sequential: u32,
    /// Runs in flight at once for the concurrent figure (0 skips it).
    #[arg(long, default_value_t = 16)]
    in_flight: u32,
    /// Runs per in-flight slot.
    #[arg(long, default_value_t = 10)]
    rounds: u32,
    /// The tool each of the ten tool steps calls (a cheap one measures the loop, not the tool).
    #[arg(long, default_value = "bash")]
    tool: String,
    /// The tool sandbox of the worker, as `wingman worker --tool-sandbox`
    /// (`off` measures what confinement costs).
    #[arg(long, value_enum, default_value_t = SandboxMode::Auto)]
    tool_sandbox: SandboxMode,
    /// An MCP server to start over stdio, as a command line (`node
    /// server.js stdio`), named `mcp`: `--tool mcp__echo` then calls its tool.
    #[arg(long)]
    mcp_command: Option<String>,
    /// The input of each tool call, a JSON object (by default one that suits
    /// `bash` and `read`).
    #[arg(long)]
    tool_input: Option<String>,
}

/// The agent's MCP servers: the one `--mcp-command` starts, if any.
fn mcp_servers(args: &StepsArgs) -> anyhow::Result<Vec<McpServer>> {
    let Some(command) = &args.mcp_command else { return Ok(Vec::new()) };
    let mut words = command.split_whitespace().map(String::from);
    let program = words.next().ok_or_else(|| anyhow::anyhow!("--mcp-command is empty"))?;
    let server = json!({"name": "mcp", "command": program, "args": words.collect::<Vec<_>>()});
    Ok(vec![serde_json::from_value(server)?])
}

/// 10 tool steps then a final answer: 11 inferences and 10 tool results.
fn script(tool: &str, input: Option<&str>) -> anyhow::Result<Value> {
    let input = match (input, tool) {
        (Some(given), _) => serde_json::from_str(given)?,
        (None, "bash") => json!({"command": "true"}),
        (None, "read") => json!({"path": "note.txt"}),
        (None, _) => json!({}),
    };
    let mut turns: Vec<Value> = (0..10).map(|_| json!({"tool_calls": [{"name": tool, "input": input}]})).collect();
    turns.push(json!({"text": "done"}));
    Ok(Value::Array(turns))
}

pub async fn run(setup: &Setup, args: StepsArgs) -> anyhow::Result<()> {
    let store = setup.store().await?;
    let work = super::work_dir(setup);
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("note.txt"), "a small file\n")?;
    let now = Utc::now();
    let agent = Agent {
        id: new_id(),
        name: "steps".into(),
        owner: crate::domain::model::first_admin(),
        shared: false,
        provider: "scripted".into(),
        model: "echo".into(),
        options: json!({"script": script(&args.tool, args.tool_input.as_deref())?})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        instructions: None,
        tools: if args.mcp_command.is_some() { Vec::new() } else { vec![args.tool.clone()] },
        output_schema: None,
        max_steps: 20,
        // Its ten steps repeat one call on purpose: the loop guard would stop them.
        guards: Guards { loop_guard: 0, ..Guards::default() },
        approve_tools: Vec::new(),
        http_tools: Vec::new(),
        client_tools: Vec::new(),
        mcp_servers: mcp_servers(&args)?,
        reasoning: Default::default(),
        reasoning_byte_limit: crate::domain::model::DEFAULT_REASONING_BYTE_LIMIT,
        compaction: Default::default(),
        subagents: Vec::new(),
        max_depth: crate::domain::subagent::DEFAULT_MAX_DEPTH,
        webhook: None,
        concurrency: None,
        limits: None,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    store.insert_agent(&agent).await?;
    let shutdown = CancellationToken::new();
    let wake = Arc::new(Notify::new());
    let mut config = WorkerConfig { concurrency: args.in_flight.max(1), ..WorkerConfig::default() };
    let sandbox = SandboxConfig {
        mode: args.tool_sandbox,
        protected: if crate::store::is_postgres(&setup.db) { vec![] } else { vec![setup.db.clone().into()] },
        ..SandboxConfig::default()
    };
    config.engine.sandbox = Arc::new(sandbox);
    let worker = tokio::spawn(crate::worker::run(store.clone(), config, wake.clone(), shutdown.clone()));
    let work = work.to_string_lossy().into_owned();

    if args.mcp_command.is_some() {
        // The server starts and is initialized once per worker: not a step's cost.
        let started = measure(&store, &agent, &work, 1, 1, &wake).await?;
        println!("warm-up run (starts the MCP server, lists its tools): {:.0} ms", started.as_secs_f64() * 1e3);
    }
    if args.sequential > 0 {
        let one = measure(&store, &agent, &work, 1, args.sequential, &wake).await?;
        report("one run at a time", args.sequential, one);
    }
    if args.in_flight > 0 && args.rounds > 0 {
        let many = measure(&store, &agent, &work, args.in_flight, args.rounds, &wake).await?;
        report(&format!("{} in flight", args.in_flight), args.in_flight * args.rounds, many);
    }
    shutdown.cancel();
    let _ = worker.await;
    Ok(())
}

fn report(label: &str, runs: u32, elapsed: Duration) {
    let steps = runs as f64 * 21.0;
    println!(
        "steps ({label}): {runs} runs x 21 durable steps in {:.2} s: {:.0} us per step, {:.0} steps/s",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / steps,
        steps / elapsed.as_secs_f64()
    );
}

/// Runs `lanes` sessions in parallel, each executing `per_lane` runs in turn.
async fn measure(
    store: &Arc<dyn Store>,
    agent: &Agent,
    work: &str,
    lanes: u32,
    per_lane: u32,
    wake: &Arc<Notify>,
) -> anyhow::Result<Duration> {
    let now = Utc::now();
    let mut sessions = Vec::new();
    for _ in 0..lanes {
        let session = Session {
            id: new_id(),
            owner: crate::domain::model::first_admin(),
            agent_id: None,
            title: None,
            work_dir: work.to_string(),
            metadata: json!({}),
            added_tools: Default::default(),
            forked_from: None,
            created_at: now,
            updated_at: now,
        };
        store.insert_session(&session).await?;
        sessions.push(session.id);
    }
    let started = Instant::now();
    let mut last_of_lane = Vec::new();
    for i in 0..per_lane {
        last_of_lane.clear();
        for session in &sessions {
            let run = NewRun {
                id: new_id(),
                kind: RunKind::Message,
                session_id: Some(session.clone()),
                agent: agent.clone(),
                input: RunInput::new(format!("go {i}"), Default::default()),
                work_dir: work.to_string(),
                max_attempts: 3,
                strategy: Default::default(),
                from_past: None,
            };
            last_of_lane.push(run.id.clone());
            store.enqueue_run(run, None).await?;
        }
    }
    wake.notify_waiters();
    // A lane's runs take their session's turn one after another, so the
    // lane is done when its last run is: a look at one row per lane, where
    // counting every succeeded run (an index scan that grows with the
    // database, and a statement SQLite prepares again for each status)
    // cost the process as much CPU as a tenth of the steps it measured.
    for run_id in &last_of_lane {
        loop {
            let status = store.get_run(run_id).await?.map(|r| r.status);
            anyhow::ensure!(status.is_some_and(|s| s != RunStatus::Failed), "a benchmark run failed");
            if status.is_some_and(|s| s.is_terminal()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    let elapsed = started.elapsed();
    anyhow::ensure!(store.count_runs(RunStatus::Failed).await? == 0, "a benchmark run failed");
    Ok(elapsed)
}
