//! `wingman limits list|set|remove`: the provider limits every worker on
//! every host shares (requests and tokens a minute, calls at once), and
//! each budget's state: what is in force, what was learned from the
//! provider, a pause, and the calls waiting and in flight.

use chrono::Utc;
use clap::Subcommand;
use serde_json::{json, Value};

use super::format;
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::Tone;
use super::view::{announce, print_table, JsonArg};

/// `wingman limits …`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct LimitsArgs {
    #[command(subcommand)]
    command: Option<LimitsCommand>,
    /// Print the API's JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum LimitsCommand {
    /// List the provider budgets: credentials' and agents' (`agent:<id>`),
    /// with the limits in force, a pause, and the calls waiting and in flight.
    List {
        /// Print the API's JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Declare a credential's limits, replacing those declared before, and
    /// print the limits in force (--json: its budget). Every worker shares
    /// them from its next inference on.
    Set {
        /// A provider ID (openai, anthropic, ollama), or `provider:label` for a second key.
        credential: String,
        #[command(flatten)]
        limits: LimitFlags,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Remove a credential's declared limits (what was learned from the
    /// provider, and a pause, stay).
    #[command(visible_alias = "delete")]
    Remove {
        /// A provider ID, or `provider:label`.
        credential: String,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// The limits `set` declares: at least one.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = true)]
struct LimitFlags {
    /// Requests a minute (1 to 1,000,000), spread evenly over the minute.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    requests_per_minute: Option<u32>,
    /// Tokens a minute (1 to 1,000,000,000), prompt and answer together.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000_000))]
    tokens_per_minute: Option<u32>,
    /// Calls in flight at once (1 to 10,000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    max_concurrent: Option<u32>,
}

impl LimitFlags {
    /// The body of `PUT /provider/limits/{credential}`: the limits given.
    fn body(&self) -> Value {
        let mut body = json!({});
        let given = [
            ("requests_per_minute", self.requests_per_minute),
            ("tokens_per_minute", self.tokens_per_minute),
            ("max_concurrent", self.max_concurrent),
        ];
        for (key, value) in given {
            if let Some(value) = value {
                body[key] = json!(value);
            }
        }
        body
    }
}

/// Runs a `limits` command.
pub async fn run(remote: &Remote, args: LimitsArgs) -> anyhow::Result<()> {
    match args.command {
        None => list(&remote.read("/provider/limits").await?, args.json),
        Some(LimitsCommand::List { json }) => list(&remote.read("/provider/limits").await?, json || args.json),
        Some(LimitsCommand::Set { credential, limits, json }) => {
            let path = format!("/provider/limits/{}", segment(&credential));
            let budget = remote.call(remote.put(&path).json(&limits.body())).await?;
            announce(json.json || args.json, &budget, format!("limits of {credential} set: {}", summary(&budget)));
        }
        Some(LimitsCommand::Remove { credential, json }) => {
            let path = format!("/provider/limits/{}", segment(&credential));
            let answer = remote.call(remote.delete(&path)).await?;
            announce(json.json || args.json, &answer, format!("limits of {credential} removed"));
        }
    }
    Ok(())
}

/// The budgets as a table, or the API's JSON.
fn list(answer: &Value, json: bool) {
    if json {
        return print_json(answer);
    }
    let budgets = answer.as_array().cloned().unwrap_or_default();
    print_budgets("no provider limits declared or learned", &budgets);
}

/// Prints budgets (`BudgetView`s of `GET /provider/limits` or `GET /queue`)
/// as a table, or `empty` when there are none.
pub fn print_budgets(empty: &str, budgets: &[Value]) {
    let count = |v: &Value| v.as_u64().map(|n| n.to_string()).unwrap_or_else(|| "—".into());
    let rows = budgets.iter().map(|b| {
        vec![
            (b["name"].as_str().unwrap_or_default().to_string(), Tone::Bold),
            (in_force(&b["requests_per_minute"], &b["learned_requests_per_minute"]), Tone::Plain),
            (in_force(&b["tokens_per_minute"], &b["learned_tokens_per_minute"]), Tone::Plain),
            (count(&b["declared"]["max_concurrent"]), Tone::Plain),
            (until(&b["paused_until"]), if b["paused_until"].is_null() { Tone::Plain } else { Tone::Error }),
            (count(&b["waiting"]), Tone::Plain),
            (count(&b["in_flight"]), Tone::Plain),
        ]
    });
    let headers = ["BUDGET", "RPM", "TPM", "MAX AT ONCE", "PAUSED UNTIL", "WAITING", "IN FLIGHT"];
    print_table(empty, &headers, rows.collect());
}

/// A limit in force, marked `(learned)` when the provider taught it (it is
/// the learned one: tighter than what was declared, or all there is).
fn in_force(limit: &Value, learned: &Value) -> String {
    match limit.as_u64() {
        None => "—".into(),
        Some(n) if learned.as_u64() == Some(n) => format!("{n} (learned)"),
        Some(n) => n.to_string(),
    }
}

/// A budget in a few words: `1200 requests/min, 4 at once`.
fn summary(budget: &Value) -> String {
    let mut parts = Vec::new();
    for (key, learned, unit) in [
        ("requests_per_minute", "learned_requests_per_minute", "requests/min"),
        ("tokens_per_minute", "learned_tokens_per_minute", "tokens/min"),
    ] {
        if let Some(n) = budget[key].as_u64() {
            let how = if budget[learned].as_u64() == Some(n) { " (learned)" } else { "" };
            parts.push(format!("{n} {unit}{how}"));
        }
    }
    if let Some(n) = budget["declared"]["max_concurrent"].as_u64() {
        parts.push(format!("{n} at once"));
    }
    if !budget["paused_until"].is_null() {
        parts.push(format!("paused until {}", until(&budget["paused_until"])));
    }
    parts.join(", ")
}

/// When a pause ends, and how far off that is: `2025-06-01 14:03:07 UTC (in 3.2 s)`.
fn until(time: &Value) -> String {
    match format::time(time) {
        None => "—".into(),
        Some(t) => format!("{} (in {})", format::timestamp(time), format::duration(t - Utc::now())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_says_when_it_was_learned_and_the_flags_make_the_body() {
        assert_eq!(in_force(&json!(1200), &Value::Null), "1200");
        assert_eq!(in_force(&json!(600), &json!(600)), "600 (learned)");
        assert_eq!(in_force(&json!(600), &json!(900)), "600");
        assert_eq!(in_force(&Value::Null, &Value::Null), "—");
        assert_eq!(until(&Value::Null), "—");
        let later = (Utc::now() + chrono::Duration::seconds(90)).to_rfc3339();
        assert!(until(&json!(later)).contains("(in 1 min"), "{}", until(&json!(later)));
        let flags = LimitFlags { requests_per_minute: Some(1200), tokens_per_minute: None, max_concurrent: Some(4) };
        let budget = json!({"name": "openai", "declared": {"requests_per_minute": 1200, "max_concurrent": 4},
            "requests_per_minute": 600, "learned_requests_per_minute": 600, "waiting": 0, "in_flight": 0});
        assert_eq!(summary(&budget), "600 requests/min (learned), 4 at once");
        assert_eq!(flags.body(), json!({"requests_per_minute": 1200, "max_concurrent": 4}));
    }
}
