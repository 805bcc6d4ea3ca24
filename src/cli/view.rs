//! The options every list and show command shares: `--json` for scripts,
//! `--limit`/`--all` for lists, `--full` for transcripts.

use serde_json::Value;

use super::format::{Shorten, Table};
use super::remote::{print_json, Remote};
use super::style::{Style, Tone};

/// How much of a list to print, and how.
#[derive(Debug, Clone, clap::Args)]
pub struct ListArgs {
    /// Print the API's JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print at most this many.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Print every one, however many.
    #[arg(long, conflicts_with = "limit")]
    pub all: bool,
}

impl ListArgs {
    /// How many to print.
    pub fn wanted(&self) -> usize {
        if self.all {
            usize::MAX
        } else {
            self.limit as usize
        }
    }

    /// The first [`ListArgs::wanted`] of `items`, and how many were left out.
    pub fn cut<T>(&self, mut items: Vec<T>) -> (Vec<T>, usize) {
        let left_out = items.len().saturating_sub(self.wanted());
        items.truncate(self.wanted());
        (items, left_out)
    }
}

/// How to print one thing.
#[derive(Debug, Clone, clap::Args)]
pub struct ShowArgs {
    /// Print the API's JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Show tool inputs and outputs whole rather than shortened.
    #[arg(long)]
    pub full: bool,
}

impl ShowArgs {
    /// How much of long tool inputs and outputs to show.
    pub fn shorten(&self) -> Shorten {
        if self.full {
            Shorten::NONE
        } else {
            Shorten::SOME
        }
    }
}

/// Tells on standard error how to see what a list left out.
pub fn hint(text: &str) {
    eprintln!("{}", Style::stderr().paint(Tone::Dim, text));
}

/// `label   value` lines of a show command, the labels dimmed and aligned.
pub struct Fields {
    style: Style,
    lines: Vec<(String, String)>,
}

impl Fields {
    pub fn new(style: Style) -> Fields {
        Fields { style, lines: Vec::new() }
    }

    /// Adds a field; an empty value is left out.
    pub fn add(&mut self, label: &str, value: impl Into<String>) {
        let value = value.into();
        if !value.is_empty() {
            self.lines.push((label.to_string(), value));
        }
    }

    /// The fields, indented; a value of several lines keeps its indent.
    pub fn render(&self) -> String {
        let width = self.lines.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for (label, value) in &self.lines {
            let label = self.style.paint(Tone::Dim, &format!("{label:<width$}"));
            let value = value.replace('\n', &format!("\n  {:width$}  ", ""));
            out.push_str(&format!("  {label}  {value}\n"));
        }
        out
    }
}

/// `--json` of a create or an action.
#[derive(Debug, Clone, clap::Args)]
pub struct JsonArg {
    /// Print the API's JSON answer instead of a line.
    #[arg(long)]
    pub json: bool,
}

/// `--priority` and `--concurrency-key` of a command that submits work (a
/// message, a fleet run, a formation run, a schedule's ticks).
#[derive(Debug, Clone, clap::Args)]
pub struct FlowArgs {
    /// From -10 to 10, higher first (default 0): the queue starts the
    /// highest priority first, then the oldest; one session's messages keep
    /// their order whatever their priorities.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(-10..=10))]
    pub priority: Option<i64>,
    /// Runs that share this key run at most --concurrency-limit at once,
    /// across every worker.
    #[arg(long, requires = "concurrency_limit")]
    pub concurrency_key: Option<String>,
    /// How many runs of --concurrency-key may run at once (1 to 10,000).
    #[arg(long, requires = "concurrency_key", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub concurrency_limit: Option<u32>,
}

impl FlowArgs {
    /// Adds `priority` and `concurrency` to a submission's body when given.
    pub fn add_to(self, body: &mut Value) {
        if let Some(priority) = self.priority {
            body["priority"] = Value::from(priority);
        }
        if let (Some(key), Some(limit)) = (self.concurrency_key, self.concurrency_limit) {
            body["concurrency"] = serde_json::json!({"key": key, "limit": limit});
        }
    }
}

/// Prints what a create or an action did on standard output: one line that
/// names what it made or changed, or with `--json` the API's answer.
pub fn announce(json: bool, answer: &Value, line: String) {
    if json {
        print_json(answer);
    } else {
        println!("{line}");
    }
}

/// The `id` of an answer, for the line that announces it.
pub fn id_of(answer: &Value) -> &str {
    answer["id"].as_str().unwrap_or("?")
}

/// Prints a list the API gives whole, oldest first (`GET /agents`, …):
/// the newest first, cut to `--limit`, as the API's JSON or as a table of
/// one `row` per item, with a hint on stderr of how many were left out.
/// `what` is the resource's plural, as its command is named.
pub fn print_list(
    list: &ListArgs,
    mut items: Vec<Value>,
    what: &str,
    headers: &[&'static str],
    row: impl Fn(&Value) -> Vec<(String, Tone)>,
) {
    items.reverse();
    let (items, left_out) = list.cut(items);
    if list.json {
        return print_json(&Value::Array(items));
    }
    print_table(&format!("no {what}"), headers, items.iter().map(row).collect());
    if left_out > 0 {
        hint(&format!("{left_out} more: wingman {what} --all"));
    }
}

/// Prints `rows` under `headers` as an aligned table on standard output,
/// or `empty` when there are none.
pub fn print_table(empty: &str, headers: &[&'static str], rows: Vec<Vec<(String, Tone)>>) {
    if rows.is_empty() {
        return println!("{empty}");
    }
    let mut table = Table::new(headers);
    for row in rows {
        table.row(row);
    }
    print!("{}", table.render(&Style::stdout()));
}

/// Reads one thing for a show command: with `--json` it is printed as the
/// API gave it and `None` is returned, so the caller prints nothing more.
pub async fn read_to_show(remote: &Remote, path: &str, json: bool) -> anyhow::Result<Option<Value>> {
    let value = remote.read(path).await?;
    if json {
        print_json(&value);
        return Ok(None);
    }
    Ok(Some(value))
}
