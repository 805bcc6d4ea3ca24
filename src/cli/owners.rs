//! `wingman owners [list|show|set|usage]`: owners' quotas (queued and
//! running runs, dollars a day), where each
//! stands, and what their runs used by day. Setting a quota is an admin's;
//! a member or reader sees its own owner.

use clap::Subcommand;
use serde_json::{json, Value};

use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::Tone;
use super::view::{print_table, JsonArg};

/// `wingman owners …`.
#[derive(Debug, clap::Args)]
pub struct OwnersArgs {
    /// What to do; the owners with a quota are listed when none is named.
    #[command(subcommand)]
    command: Option<OwnersCommand>,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum OwnersCommand {
    /// List the owners that have a quota, with their queued runs and what they spent today.
    List {
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show an owner's quota, queued runs and what its runs spent today.
    Show {
        /// The owner.
        owner: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Set an owner's quota as a whole: a limit left out is no limit, and
    /// none at all removes the quota (an admin's command).
    Set {
        /// The owner.
        owner: String,
        /// The most runs of the owner that may be queued at once; past it a
        /// submission is refused (429) until some have started.
        #[arg(long)]
        max_queued_runs: Option<u64>,
        /// The most runs of the owner that may be running at once; the rest
        /// wait queued, holding no worker.
        #[arg(long)]
        max_running_runs: Option<u64>,
        /// The most US dollars the owner's runs may spend in a day (UTC);
        /// a run that would infer past it fails with budget_exhausted.
        #[arg(long)]
        max_cost_usd_per_day: Option<f64>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Show what an owner's runs used each day (UTC): runs ended, tokens and cost.
    Usage {
        /// The owner.
        owner: String,
        /// The first day, YYYY-MM-DD (29 days before --to when left out).
        #[arg(long)]
        from: Option<String>,
        /// The last day, YYYY-MM-DD (today when left out).
        #[arg(long)]
        to: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Runs an `owners` command.
pub async fn run(remote: &Remote, args: OwnersArgs) -> anyhow::Result<()> {
    match args.command.unwrap_or(OwnersCommand::List { json: JsonArg { json: false } }) {
        OwnersCommand::List { json } => owners_table(&remote.read("/owners").await?, json.json),
        OwnersCommand::Show { owner, json } => {
            let answer = remote.read(&format!("/owners/{}", segment(&owner))).await?;
            one(&answer, json.json);
        }
        OwnersCommand::Set { owner, max_queued_runs, max_running_runs, max_cost_usd_per_day, json } => {
            let mut body = json!({});
            if let Some(n) = max_queued_runs {
                body["max_queued_runs"] = json!(n);
            }
            if let Some(n) = max_running_runs {
                body["max_running_runs"] = json!(n);
            }
            if let Some(usd) = max_cost_usd_per_day {
                body["max_cost_usd_per_day"] = json!(usd);
            }
            let answer = remote.call(remote.put(&format!("/owners/{}", segment(&owner))).json(&body)).await?;
            one(&answer, json.json);
        }
        OwnersCommand::Usage { owner, from, to, json } => {
            let mut query: Vec<(&str, String)> = Vec::new();
            query.extend(from.map(|day| ("from", day)));
            query.extend(to.map(|day| ("to", day)));
            let request = remote.get(&format!("/owners/{}/usage", segment(&owner))).query(&query);
            usage_table(&remote.call(request).await?, json.json);
        }
    }
    Ok(())
}

/// One owner as a table's row, or the API's JSON.
fn one(owner: &Value, json: bool) {
    if json {
        return print_json(owner);
    }
    owners_table(&json!([owner]), false);
}

/// Owners as a table, or the API's JSON.
fn owners_table(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let limit = |owner: &Value, field: &str| owner[field].as_number().map_or("-".to_string(), |n| n.to_string());
    let rows = answer.as_array().into_iter().flatten().map(|owner| {
        vec![
            (owner["owner"].as_str().unwrap_or("?").to_string(), Tone::Bold),
            (limit(owner, "max_queued_runs"), Tone::Plain),
            (limit(owner, "queued_runs"), Tone::Plain),
            (limit(owner, "max_running_runs"), Tone::Plain),
            (limit(owner, "max_cost_usd_per_day"), Tone::Plain),
            (dollars(&owner["spent_today_usd"]), Tone::Plain),
        ]
    });
    let headers = ["OWNER", "MAX QUEUED", "QUEUED", "MAX RUNNING", "MAX USD/DAY", "SPENT TODAY"];
    print_table("no owner has a quota", &headers, rows.collect());
}

/// An owner's days as a table with a total, or the API's JSON.
fn usage_table(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let count = |day: &Value, field: &str| day[field].as_u64().unwrap_or(0).to_string();
    let row = |day: &Value| {
        vec![
            (day["day"].as_str().unwrap_or("?").to_string(), Tone::Bold),
            (count(day, "runs"), Tone::Plain),
            (count(day, "input_tokens"), Tone::Plain),
            (count(day, "output_tokens"), Tone::Plain),
            (dollars(&day["cost_usd"]), Tone::Plain),
        ]
    };
    let days: Vec<Vec<(String, Tone)>> = answer["days"].as_array().into_iter().flatten().map(row).collect();
    let owner = answer["owner"].as_str().unwrap_or("?");
    let span = format!("{} to {}", answer["from"].as_str().unwrap_or("?"), answer["to"].as_str().unwrap_or("?"));
    if days.is_empty() {
        return println!("owner {owner} used nothing from {span}");
    }
    let mut rows = days;
    let mut total = row(&answer["total"]);
    total[0] = ("total".to_string(), Tone::Bold);
    rows.push(total);
    print_table("", &["DAY", "RUNS", "INPUT TOKENS", "OUTPUT TOKENS", "COST USD"], rows);
}

/// Dollars to the cent and beyond where it matters: `$0.0632`, `$2.00`.
fn dollars(usd: &Value) -> String {
    let usd = usd.as_f64().unwrap_or(0.0);
    if usd != 0.0 && usd < 0.01 {
        format!("${usd:.6}").trim_end_matches('0').to_string()
    } else {
        format!("${usd:.2}")
    }
}
