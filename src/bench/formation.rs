//! (h) A formation of one agent → a fleet of N → one agent, from its
//! submission to its `done`, beside the same work submitted as a fleet run
//! alone and as the three steps a client drives itself (a message, a fleet
//! run on its lines, a message on their answers), each waited for with
//! `?wait=true`.

use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};

use super::http::post;
use super::Setup;

#[derive(Debug, Args)]
pub struct FormationArgs {
    /// Tasks of the fleet node.
    #[arg(long, default_value_t = 1_000)]
    tasks: u32,
    /// Separate worker processes.
    #[arg(long, default_value_t = 1)]
    workers: u32,
    /// Runs each worker executes at once.
    #[arg(long, default_value_t = 64)]
    concurrency: u32,
    /// Times each way is measured, interleaved.
    #[arg(long, default_value_t = 5)]
    rounds: u32,
}

/// What the three ways share: the server's address, its agents and fleet.
struct Subject {
    http: reqwest::Client,
    base: String,
    outline: String,
    assembler: String,
    fleet: String,
    formation: String,
    lines: Vec<Value>,
}

pub async fn run(setup: &Setup, args: FormationArgs) -> anyhow::Result<()> {
    let mut server = setup.spawn(&["serve", "--addr", "127.0.0.1:0", "--workers", "0"], &[])?;
    let base = super::server_url(&mut server)?;
    let mut children = vec![server];
    let concurrency = args.concurrency.to_string();
    for _ in 0..args.workers {
        children.push(setup.spawn(&["worker"], &[("WINGMAN_CONCURRENCY", &concurrency)])?);
    }
    let outcome = measure(&base, &args).await;
    super::stop_all(&mut children);
    outcome
}

async fn measure(base: &str, args: &FormationArgs) -> anyhow::Result<()> {
    let subject = subject(base, args.tasks).await?;
    let (mut fleet, mut formation, mut driven) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.rounds {
        fleet.push(subject.fleet_run().await?);
        formation.push(subject.formation_run().await?);
        driven.push(subject.client_driven().await?);
    }
    let show = |d: &[Duration]| d.iter().map(|d| format!("{:.2} s", d.as_secs_f64())).collect::<Vec<_>>().join(", ");
    let median = |d: &[Duration]| {
        let mut sorted = d.to_vec();
        sorted.sort();
        super::percentile(&sorted, 50.0).as_secs_f64()
    };
    println!(
        "{} tasks, {} worker process(es) x concurrency {}, {} rounds",
        args.tasks, args.workers, args.concurrency, args.rounds
    );
    println!("fleet run alone (submission → done):              {}", show(&fleet));
    println!("formation 1 → fleet → 1 (submission → done):      {}", show(&formation));
    println!("the same three steps driven by a client:          {}", show(&driven));
    let overhead = median(&formation) - median(&fleet);
    println!(
        "medians: fleet run {:.0} ms, formation {:.0} ms, client-driven {:.0} ms; formation over the fleet run alone \
         {:+.0} ms ({:+.1} %), over the client-driven steps {:+.0} ms",
        median(&fleet) * 1000.0,
        median(&formation) * 1000.0,
        median(&driven) * 1000.0,
        overhead * 1000.0,
        overhead / median(&fleet) * 100.0,
        (median(&formation) - median(&driven)) * 1000.0
    );
    Ok(())
}

async fn subject(base: &str, tasks: u32) -> anyhow::Result<Subject> {
    let http = reqwest::Client::new();
    let lines: Vec<Value> = (0..tasks).map(|i| Value::String(format!("section {i}"))).collect();
    let text = lines.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n");
    let outline = json!({"name": "outline", "options": {"script": [{"text": text}]}});
    let outline = id_of(post(&http, &format!("{base}/agents"), outline).await?)?;
    let echo = id_of(post(&http, &format!("{base}/agents"), json!({"name": "researcher"})).await?)?;
    let assembler = id_of(post(&http, &format!("{base}/agents"), json!({"name": "assembler"})).await?)?;
    let fleet = id_of(post(&http, &format!("{base}/fleets"), json!({"name": "researchers", "agent_id": echo})).await?)?;
    let graph = json!({"name": "bench", "nodes": [{"id": "outline", "agent_id": outline},
        {"id": "split", "function": "split_lines"}, {"id": "research", "fleet_id": fleet},
        {"id": "join", "function": "join"}, {"id": "assemble", "agent_id": assembler}],
        "edges": [{"from": "outline", "to": "split"}, {"from": "split", "to": "research"},
                  {"from": "research", "to": "join"}, {"from": "join", "to": "assemble"}]});
    let formation = id_of(post(&http, &format!("{base}/formations"), graph).await?)?;
    Ok(Subject { http, base: base.to_string(), outline, assembler, fleet, formation, lines })
}

fn id_of(created: Value) -> anyhow::Result<String> {
    created["id"].as_str().map(String::from).context("the server answered without an id")
}

impl Subject {
    async fn fleet_run(&self) -> anyhow::Result<Duration> {
        let tasks: Vec<Value> = self.lines.iter().map(|l| json!({"message": l})).collect();
        let started = Instant::now();
        let url = format!("{}/fleets/{}/run?wait=true", self.base, self.fleet);
        let results = post(&self.http, &url, json!({"tasks": tasks})).await?;
        anyhow::ensure!(results.as_array().map(Vec::len) == Some(self.lines.len()), "fleet run: {results}");
        Ok(started.elapsed())
    }

    async fn formation_run(&self) -> anyhow::Result<Duration> {
        let started = Instant::now();
        let url = format!("{}/formations/{}/run?wait=true", self.base, self.formation);
        let answer = post(&self.http, &url, json!({"input": "Write about owls"})).await?;
        anyhow::ensure!(answer["status"] == "succeeded", "formation run: {answer}");
        Ok(started.elapsed())
    }

    /// A message to the outline agent, a fleet run on its lines, a message
    /// with their answers to the assembler: what a client does without a formation.
    async fn client_driven(&self) -> anyhow::Result<Duration> {
        let started = Instant::now();
        let outline = self.message(&self.outline, "Write about owls").await?;
        let tasks: Vec<Value> = outline.lines().map(|l| json!({"message": l})).collect();
        let url = format!("{}/fleets/{}/run?wait=true", self.base, self.fleet);
        let results = post(&self.http, &url, json!({"tasks": tasks})).await?;
        let answers: Vec<&str> =
            results.as_array().into_iter().flatten().filter_map(|r| r["response"].as_str()).collect();
        self.message(&self.assembler, &answers.join("\n")).await?;
        Ok(started.elapsed())
    }

    async fn message(&self, agent: &str, text: &str) -> anyhow::Result<String> {
        let session = id_of(post(&self.http, &format!("{}/sessions", self.base), json!({"agent_id": agent})).await?)?;
        let url = format!("{}/sessions/{session}/message?wait=true", self.base);
        let answer = post(&self.http, &url, json!({"message": text})).await?;
        answer["response"].as_str().map(String::from).context("a message answered without a response")
    }
}
