//! `wingman audit`: the audit log, the newest first (an admin's command):
//! who changed what through the API, with which route, and what it made.

use serde_json::Value;

use super::format;
use super::remote::{print_json, Remote, ServerArg};
use super::style::Tone;
use super::view::{print_table, JsonArg};

/// `wingman audit …`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Only the changes this owner's keys made.
    #[arg(long)]
    owner: Option<String>,
    /// How many entries to show, the newest first (1 to 500).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..=500))]
    limit: u32,
    /// Show the entries older than this one (a page's last ID).
    #[arg(long)]
    after: Option<String>,
    #[command(flatten)]
    json: JsonArg,
    #[command(flatten)]
    pub server: ServerArg,
}

/// Runs `wingman audit`.
pub async fn run(remote: &Remote, args: AuditArgs) -> anyhow::Result<()> {
    let mut query = vec![("limit", args.limit.to_string())];
    query.extend(args.owner.map(|owner| ("owner", owner)));
    query.extend(args.after.map(|after| ("after", after)));
    let page = remote.call(remote.get("/audit").query(&query)).await?;
    if args.json.json {
        print_json(&page);
        return Ok(());
    }
    table(&page);
    Ok(())
}

/// The page as a table: when, who (owner and key name), what and on what.
fn table(page: &Value) {
    let text = |v: &Value| v.as_str().unwrap_or("-").to_string();
    let rows = page["entries"].as_array().into_iter().flatten().map(|entry| {
        let who = match entry["by"]["name"].as_str() {
            Some(name) => format!("{} ({name})", text(&entry["by"]["owner"])),
            None => text(&entry["by"]["owner"]),
        };
        let on = [&entry["target"], &entry["made"]].iter().filter_map(|v| v.as_str()).collect::<Vec<_>>().join(" → ");
        vec![
            (format::age(&entry["at"]), Tone::Dim),
            (who, Tone::Bold),
            (text(&entry["action"]), Tone::Plain),
            (if on.is_empty() { "-".into() } else { on }, Tone::Plain),
            (entry["status"].to_string(), Tone::Dim),
        ]
    });
    print_table("no changes recorded", &["WHEN", "BY", "ACTION", "ON", "STATUS"], rows.collect());
    if let Some(after) = page["next_after"].as_str() {
        eprintln!("older entries: wingman audit --after {after}");
    }
}
