//! People in the loop from the command line: the runs waiting for a
//! decision or for tool results, answering them, and steering a run.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{bail, Context};
use clap::Subcommand;
use serde_json::{json, Value};

use super::remote::{print_json, segment, Remote, ServerArg};
use super::tool_results::{waiting, Answers, WaitingFor};
use super::view::{announce, JsonArg};

#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// List the waiting runs: what each waits for (a person's decision or
    /// tool results) and the calls it waits on.
    Approvals {
        /// Print the runs as JSON instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Decide on the calls a waiting run asks about: every call named by no
    /// option is approved.
    Approve {
        /// The waiting run's ID.
        run_id: String,
        /// Reject this call (repeatable); the model is told so.
        #[arg(long = "reject", value_name = "CALL_ID")]
        reject: Vec<String>,
        /// Why the calls are rejected, for the model.
        #[arg(long, requires = "reject")]
        message: Option<String>,
        /// Run this call with the input given by the next --input (repeatable).
        #[arg(long = "edit", value_name = "CALL_ID")]
        edit: Vec<String>,
        /// The new input of an edited call, a JSON object.
        #[arg(long = "input", value_name = "JSON")]
        input: Vec<String>,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Answer the calls of client tools a waiting run asks for: every call
    /// it waits on needs an output.
    ToolResults {
        /// The waiting run's ID.
        run_id: String,
        /// A call the run waits on, answered by the next --output (repeatable).
        #[arg(long = "call", value_name = "CALL_ID")]
        call: Vec<String>,
        /// The output of the call named by the matching --call.
        #[arg(long = "output", value_name = "TEXT")]
        output: Vec<String>,
        /// Mark this call's result as an error (repeatable); the model sees a failed call.
        #[arg(long = "error", value_name = "CALL_ID")]
        error: Vec<String>,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        server: ServerArg,
    },
    /// Send a running run a message it takes in at its next step boundary.
    Steer {
        /// The run's ID.
        run_id: String,
        /// The message.
        message: String,
        #[command(flatten)]
        json: JsonArg,
        #[command(flatten)]
        server: ServerArg,
    },
}

impl PeopleCommand {
    /// Where the command sends its requests.
    pub fn server(&self) -> &ServerArg {
        match self {
            PeopleCommand::Approvals { server, .. }
            | PeopleCommand::Approve { server, .. }
            | PeopleCommand::ToolResults { server, .. }
            | PeopleCommand::Steer { server, .. } => server,
        }
    }
}

/// Runs a people-in-the-loop command.
pub async fn run(remote: &Remote, command: PeopleCommand) -> anyhow::Result<()> {
    match command {
        PeopleCommand::Approvals { json, .. } => approvals(remote, json).await,
        PeopleCommand::Approve { run_id, reject, message, edit, input, json, .. } => {
            if edit.len() != input.len() {
                bail!("each --edit needs its --input (got {} --edit, {} --input)", edit.len(), input.len());
            }
            let calls = waiting(remote, &run_id).await?.calls_for(WaitingFor::Decision)?;
            let choices = Choices { reject, message, edits: edit.into_iter().zip(input).collect() };
            let decisions = choices.decide(&calls)?;
            let said: Vec<String> = decisions
                .iter()
                .map(|d| {
                    format!(
                        "{} {}",
                        d["call_id"].as_str().unwrap_or_default(),
                        d["decision"].as_str().unwrap_or_default()
                    )
                })
                .collect();
            let run = send_decisions(remote, &run_id, decisions).await?;
            announce(json.json, &run, format!("run {run_id} queued again: {}", said.join(", ")));
            Ok(())
        }
        PeopleCommand::ToolResults { run_id, call, output, error, json, .. } => {
            if call.len() != output.len() {
                bail!("each --call needs its --output (got {} --call, {} --output)", call.len(), output.len());
            }
            let answers = Answers { outputs: call.into_iter().zip(output).collect(), errors: error };
            super::tool_results::answer(remote, &run_id, answers, json.json).await
        }
        PeopleCommand::Steer { run_id, message, json, .. } => {
            let request = remote.post(&format!("/runs/{}/steer", segment(&run_id))).json(&json!({"message": message}));
            let run = remote.call(request).await?;
            announce(
                json.json,
                &run,
                format!("run {run_id} steered: it takes the message in at its next step boundary"),
            );
            Ok(())
        }
    }
}

/// Prints every waiting run with what it waits for and the calls it waits on.
async fn approvals(remote: &Remote, as_json: bool) -> anyhow::Result<()> {
    let (runs, _) = super::runs::read(remote, &[("status", "waiting".into())], None, usize::MAX).await?;
    let mut listed = Vec::new();
    for run in &runs {
        let id = run["id"].as_str().unwrap_or_default();
        // A run answered since the list was read may have nothing to show.
        let Ok(found) = waiting(remote, id).await else { continue };
        listed.push(json!({"run_id": id, "session_id": run["session_id"],
            "waiting_for": found.waiting_for.as_str(), "calls": found.calls}));
    }
    if as_json {
        print_json(&Value::Array(listed));
        return Ok(());
    }
    if listed.is_empty() {
        println!("no run is waiting for a decision or for tool results");
    }
    for run in &listed {
        let id = run["run_id"].as_str().unwrap_or("");
        let what = match run["waiting_for"].as_str() {
            Some("tool_results") => {
                format!("waits for tool results: wingman tool-results {id} --call CALL_ID --output TEXT")
            }
            _ => format!("waits for a decision: wingman approve {id}"),
        };
        println!("run {id} (session {}) {what}", run["session_id"].as_str().unwrap_or("none"));
        for c in run["calls"].as_array().into_iter().flatten() {
            println!("  {} {} {}", c["call_id"].as_str().unwrap_or(""), c["name"].as_str().unwrap_or(""), c["input"]);
        }
    }
    Ok(())
}

async fn send_decisions(remote: &Remote, run_id: &str, decisions: Vec<Value>) -> anyhow::Result<Value> {
    let request = remote.post(&format!("/runs/{}/approve", segment(run_id))).json(&json!({"decisions": decisions}));
    remote.call(request).await
}

/// What the command line said about each call.
struct Choices {
    reject: Vec<String>,
    message: Option<String>,
    edits: Vec<(String, String)>,
}

impl Choices {
    /// A decision for every call; a call named by no option is approved.
    fn decide(&self, calls: &[Value]) -> anyhow::Result<Vec<Value>> {
        let ids: Vec<&str> = calls.iter().filter_map(|c| c["call_id"].as_str()).collect();
        for named in self.reject.iter().chain(self.edits.iter().map(|(id, _)| id)) {
            if !ids.contains(&named.as_str()) {
                bail!("the run does not wait on call {named} (it waits on: {})", ids.join(", "));
            }
        }
        ids.iter()
            .map(|id| {
                if self.reject.iter().any(|r| r == id) {
                    return Ok(json!({"call_id": id, "decision": "reject", "message": self.message}));
                }
                match self.edits.iter().find(|(e, _)| e == id) {
                    Some((_, input)) => {
                        let input: Value = serde_json::from_str(input).context("--input must be a JSON object")?;
                        Ok(json!({"call_id": id, "decision": "edit", "input": input}))
                    }
                    None => Ok(json!({"call_id": id, "decision": "approve"})),
                }
            })
            .collect()
    }
}

/// Shows an approval request met while following a run and, when standard
/// input is a terminal, asks for a decision on each call and sends them.
pub async fn answer_at_prompt(remote: &Remote, run_id: &str, event: &Value) -> anyhow::Result<()> {
    let calls = event["calls"].as_array().cloned().unwrap_or_default();
    if !std::io::stdin().is_terminal() {
        eprintln!("[waiting for a decision: wingman approve {run_id} (see wingman approvals)]");
        return Ok(());
    }
    let decisions = tokio::task::block_in_place(|| prompt(&calls))?;
    send_decisions(remote, run_id, decisions).await?;
    Ok(())
}

/// Asks about each call on the terminal: approve, reject or edit.
fn prompt(calls: &[Value]) -> anyhow::Result<Vec<Value>> {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut decisions = Vec::new();
    for c in calls {
        let id = c["call_id"].as_str().unwrap_or_default();
        loop {
            eprint!(
                "\n{} wants to run {} {}\n[a]pprove, [r]eject, [e]dit? ",
                id,
                c["name"].as_str().unwrap_or(""),
                c["input"]
            );
            std::io::stderr().flush().ok();
            let answer = lines.next().context("standard input closed")??;
            match answer.trim() {
                "a" | "approve" | "" => decisions.push(json!({"call_id": id, "decision": "approve"})),
                "r" | "reject" => {
                    eprint!("why (for the model)? ");
                    std::io::stderr().flush().ok();
                    let why = lines.next().context("standard input closed")??;
                    decisions.push(json!({"call_id": id, "decision": "reject", "message": why.trim()}));
                }
                "e" | "edit" => {
                    eprint!("new input (JSON object): ");
                    std::io::stderr().flush().ok();
                    let input = lines.next().context("standard input closed")??;
                    match serde_json::from_str::<Value>(&input) {
                        Ok(input @ Value::Object(_)) => {
                            decisions.push(json!({"call_id": id, "decision": "edit", "input": input}))
                        }
                        _ => {
                            eprintln!("not a JSON object");
                            continue;
                        }
                    }
                }
                _ => continue,
            }
            break;
        }
    }
    Ok(decisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_named_by_no_option_are_approved() {
        let calls = vec![json!({"call_id": "a"}), json!({"call_id": "b"}), json!({"call_id": "c"})];
        let choices = Choices {
            reject: vec!["b".into()],
            message: Some("no".into()),
            edits: vec![("c".into(), r#"{"command": "ls"}"#.into())],
        };
        let decisions = choices.decide(&calls).unwrap();
        assert_eq!(decisions[0]["decision"], "approve");
        assert_eq!((decisions[1]["decision"].as_str(), decisions[1]["message"].as_str()), (Some("reject"), Some("no")));
        assert_eq!(decisions[2]["input"]["command"], "ls");
        let unknown = Choices { reject: vec!["z".into()], message: None, edits: vec![] };
        assert!(unknown.decide(&calls).is_err());
    }
}
