//! `wingman queue`: what waits and why, by priority and by key, what
//! a worker takes next, and the provider budgets inferences wait for.

use serde_json::Value;

use super::remote::{print_json, Remote};
use super::style::{Style, Tone};
use super::view::{print_table, Fields};

/// Prints the queue (`GET /queue`): counts, then tables.
pub async fn show(remote: &Remote, next: u32, json: bool) -> anyhow::Result<()> {
    let queue = remote.read(&format!("/queue?next={next}")).await?;
    if json {
        print_json(&queue);
        return Ok(());
    }
    let style = Style::stdout();
    let n = |v: &Value| v.as_u64().unwrap_or(0).to_string();
    let why = &queue["queued"];
    let mut fields = Fields::new(style);
    fields.add("ready", format!("{} (each waits for a worker with room)", n(&why["ready"])));
    fields.add("session busy", format!("{} (behind their session's unfinished run)", n(&why["session_busy"])));
    fields.add("fleet at cap", format!("{} (behind their fleet's worker_count)", n(&why["fleet_at_cap"])));
    fields.add("key at limit", format!("{} (held for a slot of their key)", n(&why["key_at_limit"])));
    fields.add("rate limited", format!("{} (waiting for a provider budget's share)", n(&why["rate_limited"])));
    fields.add("running", n(&queue["running"]));
    fields.add("waiting", format!("{} (for a person, a client or sub-agents)", n(&queue["waiting"])));
    print!("{}", fields.render());
    let rows = |key: &str| queue[key].as_array().cloned().unwrap_or_default();
    println!();
    let priorities = rows("by_priority")
        .iter()
        .map(|p| {
            vec![
                (p["priority"].to_string(), Tone::Bold),
                (n(&p["queued"]), Tone::Plain),
                (n(&p["running"]), Tone::Plain),
            ]
        })
        .collect();
    print_table("nothing queued or running", &["PRIORITY", "QUEUED", "RUNNING"], priorities);
    let keys: Vec<_> = rows("keys")
        .iter()
        .map(|k| {
            let text = k["key"].as_str().unwrap_or_default().to_string();
            let cells = [&k["limit"], &k["running"], &k["queued"], &k["held"]].map(n);
            let mut row = vec![(text, Tone::Bold)];
            row.extend(cells.into_iter().map(|c| (c, Tone::Plain)));
            row
        })
        .collect();
    if !keys.is_empty() {
        println!();
        print_table("", &["KEY", "LIMIT", "RUNNING", "QUEUED", "HELD"], keys);
    }
    let next: Vec<_> = rows("next")
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap_or_default().to_string();
            vec![
                (text("run_id"), Tone::Plain),
                (r["priority"].to_string(), Tone::Plain),
                (text("concurrency_key"), Tone::Plain),
                (super::format::age(&r["queued_at"]), Tone::Dim),
            ]
        })
        .collect();
    if !next.is_empty() {
        println!();
        print_table("", &["NEXT RUN", "PRIORITY", "KEY", "QUEUED"], next);
    }
    let budgets = rows("budgets");
    if !budgets.is_empty() {
        println!();
        super::limits::print_budgets("", &budgets);
    }
    Ok(())
}
