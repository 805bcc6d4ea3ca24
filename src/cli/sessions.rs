//! `wingman sessions`: create, list, show (with the conversation as a
//! transcript), fork, rewind and delete sessions.

use clap::Subcommand;
use serde_json::{json, Value};

use super::format::{self, Table};
use super::remote::{print_json, segment, Remote, ServerArg};
use super::style::{Style, Tone};
use super::transcript::Transcript;
use super::view::{announce, hint, id_of, Fields, JsonArg, ListArgs, ShowArgs};

/// `wingman sessions [create|list|show|fork|rewind|delete]`; alone, it lists.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    command: Option<SessionCommand>,
    #[command(flatten)]
    list: ListArgs,
    #[command(flatten)]
    pub server: ServerArg,
}

#[derive(Debug, Subcommand)]
enum SessionCommand {
    /// Create a session and print its ID (--json: the session).
    Create {
        /// The agent that answers its messages (a message may name another).
        #[arg(long)]
        agent: Option<String>,
        /// The directory its tools work in (default: one of its own under
        /// the server's data directory).
        #[arg(long)]
        work_dir: Option<String>,
        /// A title, shown in listings.
        #[arg(long)]
        title: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// List sessions (what `wingman sessions` alone does).
    List(ListArgs),
    /// Show a session and its conversation as a transcript.
    Show {
        /// The session's ID.
        session_id: String,
        /// The conversation as it was after this run of the session ended
        /// (with --branch, a run of that branch).
        #[arg(long)]
        at: Option<String>,
        /// A branch a rewind set aside, as it was then (with --at, up to the
        /// end of that run).
        #[arg(long)]
        branch: Option<u32>,
        #[command(flatten)]
        show: ShowArgs,
    },
    /// Fork a session: a new session whose conversation is this one's up to
    /// the end of a run (all of it by default); print its ID (--json: it).
    Fork {
        /// The session's ID.
        session_id: String,
        /// The run of the session to fork at.
        #[arg(long)]
        at: Option<String>,
        /// The fork's working directory (default: a fresh one of its own;
        /// files are not copied).
        #[arg(long)]
        work_dir: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Rewind a session to the end of a run: the conversation after it is
    /// set aside as a branch (kept, listed by `sessions show`), and the
    /// next message continues from there.
    Rewind {
        /// The session's ID.
        session_id: String,
        /// The run of the session to go back to the end of.
        #[arg(long)]
        to: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Delete a session (its unfinished runs are cancelled).
    Delete {
        /// The session's ID.
        session_id: String,
        #[command(flatten)]
        json: JsonArg,
    },
    /// Queue a compaction of the session's history, in the session's order,
    /// and print its run's ID (--json: the run): the older messages are
    /// summarized.
    Compact {
        /// The session's ID.
        session_id: String,
        /// The agent whose model writes the summary; the session's by default.
        #[arg(long)]
        agent: Option<String>,
        #[command(flatten)]
        json: JsonArg,
    },
}

/// Runs a `sessions` command.
pub async fn run(remote: &Remote, args: SessionsArgs) -> anyhow::Result<()> {
    match args.command {
        None => list(remote, &args.list).await,
        Some(SessionCommand::List(mut list)) => {
            list.json |= args.list.json;
            self::list(remote, &list).await
        }
        Some(SessionCommand::Show { session_id, at, branch, mut show }) => {
            show.json |= args.list.json;
            let query = match (at, branch) {
                (Some(run_id), Some(branch)) => format!("?branch={branch}&at={}", segment(&run_id)),
                (Some(run_id), None) => format!("?at={}", segment(&run_id)),
                (None, Some(branch)) => format!("?branch={branch}"),
                (None, None) => String::new(),
            };
            self::show(remote, &session_id, &query, &show).await
        }
        Some(SessionCommand::Fork { session_id, at, work_dir, json }) => {
            let path = format!("/sessions/{}/fork", segment(&session_id));
            let fork = remote.call(remote.post(&path).json(&json!({"at": at, "work_dir": work_dir}))).await?;
            let point = fork["forked_from"]["run_id"].as_str().map(|r| format!(" at run {r}")).unwrap_or_default();
            announce(json.json, &fork, format!("session {} forked from {session_id}{point}", id_of(&fork)));
            Ok(())
        }
        Some(SessionCommand::Rewind { session_id, to, json }) => {
            let path = format!("/sessions/{}/rewind", segment(&session_id));
            let rewound = remote.call(remote.post(&path).json(&json!({"to": to}))).await?;
            announce(json.json, &rewound, rewound_line(&session_id, &to, &rewound["set_aside"]));
            Ok(())
        }
        Some(SessionCommand::Create { agent, work_dir, title, json }) => {
            let body = json!({"agent_id": agent, "work_dir": work_dir, "title": title});
            let created = remote.call(remote.post("/sessions").json(&body)).await?;
            let agent = created["agent_id"].as_str().map(|a| format!(" with agent {a}")).unwrap_or_default();
            announce(json.json, &created, format!("session {} created{agent}", id_of(&created)));
            Ok(())
        }
        Some(SessionCommand::Compact { session_id, agent, json }) => {
            let path = format!("/sessions/{}/compact", segment(&session_id));
            let run = remote.call(remote.post(&path).json(&json!({"agent_id": agent}))).await?;
            let run_id = run["run_id"].as_str().unwrap_or("?");
            announce(json.json, &run, format!("run {run_id} queued: it compacts session {session_id}"));
            Ok(())
        }
        Some(SessionCommand::Delete { session_id, json }) => {
            let answer = remote.call(remote.delete(&format!("/sessions/{}", segment(&session_id)))).await?;
            announce(json.json, &answer, format!("session {session_id} deleted"));
            Ok(())
        }
    }
}

async fn list(remote: &Remote, list: &ListArgs) -> anyhow::Result<()> {
    // Newest first; one more than asked for says whether there are more.
    let path = match list.all {
        true => "/sessions?order=desc".to_string(),
        false => format!("/sessions?order=desc&limit={}", (list.limit + 1).min(500)),
    };
    let all = remote.read(&path).await?.as_array().cloned().unwrap_or_default();
    let (sessions, left_out) = list.cut(all);
    if list.json {
        print_json(&Value::Array(sessions));
        return Ok(());
    }
    if sessions.is_empty() {
        println!("no sessions");
        return Ok(());
    }
    let mut table = Table::new(&["ID", "MESSAGES", "CREATED", "TITLE"]);
    for session in &sessions {
        let messages = session["history"].as_array().map(Vec::len).unwrap_or(0);
        table.row(vec![
            (session["id"].as_str().unwrap_or_default().to_string(), Tone::Plain),
            (messages.to_string(), Tone::Plain),
            (format::age(&session["created_at"]), Tone::Dim),
            (title(session), Tone::Plain),
        ]);
    }
    print!("{}", table.render(&Style::stdout()));
    if left_out > 0 {
        hint("more, older: wingman sessions --all");
    }
    Ok(())
}

/// The session's title, else its first words in quotes.
fn title(session: &Value) -> String {
    if let Some(title) = session["title"].as_str().filter(|t| !t.is_empty()) {
        return format::one_line(title, 60);
    }
    let first = session["history"][0]["content"].as_array().into_iter().flatten().find_map(|b| b["text"].as_str());
    first.map(|text| format!("“{}”", format::one_line(text, 58))).unwrap_or_default()
}

/// What a rewind did, in a line.
fn rewound_line(session_id: &str, to: &str, branch: &Value) -> String {
    match branch["branch"].as_i64() {
        None => format!("session {session_id}: nothing after run {to}, nothing set aside"),
        Some(n) => format!(
            "session {session_id} rewound to the end of run {to}: branch {n} set aside ({} runs, {} messages; \
             wingman sessions show {session_id} --branch {n})",
            branch["runs"].as_array().map_or(0, Vec::len),
            branch["messages"]
        ),
    }
}

async fn show(remote: &Remote, session_id: &str, query: &str, show: &ShowArgs) -> anyhow::Result<()> {
    let session = remote.read(&format!("/sessions/{}{query}", segment(session_id))).await?;
    if show.json {
        print_json(&session);
        return Ok(());
    }
    let filter = [("session_id", session_id.to_string())];
    let (runs, _) = super::runs::read(remote, &filter, None, usize::MAX).await?;
    let style = Style::stdout();
    let heading = session["title"].as_str().map(|t| format!("  {t}")).unwrap_or_default();
    println!("{} {}{heading}", style.paint(Tone::Bold, "session"), style.paint(Tone::Bold, session_id));
    let mut fields = Fields::new(style);
    fields.add("agent", session["agent_id"].as_str().unwrap_or("—"));
    fields.add("work dir", session["work_dir"].as_str().unwrap_or_default());
    fields.add("created", format::timestamp(&session["created_at"]));
    if session["metadata"].as_object().is_some_and(|m| !m.is_empty()) {
        fields.add("metadata", session["metadata"].to_string());
    }
    fields.add("runs", runs_field(&runs, session_id, style));
    if let Some(from) = session["forked_from"]["session_id"].as_str() {
        let at = session["forked_from"]["run_id"].as_str().map(|r| format!(" at run {r}")).unwrap_or_default();
        fields.add("forked from", format!("{from}{at}"));
    }
    for branch in session["branches"].as_array().into_iter().flatten() {
        let after = branch["after_run_id"].as_str().map_or("its start".to_string(), |r| format!("run {r}"));
        let runs = branch["runs"].as_array().map_or(0, Vec::len);
        let line = format!(
            "after {after}: {runs} runs, {} messages, {}",
            branch["messages"],
            format::age(&branch["created_at"])
        );
        fields.add(&format!("branch {}", branch["branch"]), line);
    }
    print!("{}", fields.render());
    let mut transcript = Transcript::new(style, show.shorten());
    transcript.history(session["history"].as_array().map(Vec::as_slice).unwrap_or_default());
    print!("\n{}", transcript.text());
    Ok(())
}

/// `3, the latest 01K… succeeded (wingman runs --session …)`.
fn runs_field(runs: &[Value], session_id: &str, style: Style) -> String {
    let Some(latest) = runs.last() else { return "none yet".into() };
    format!(
        "{}, the latest {} {} (wingman runs --session {session_id})",
        runs.len(),
        latest["id"].as_str().unwrap_or_default(),
        style.paint(Tone::Status, latest["status"].as_str().unwrap_or_default()),
    )
}
