//! Client tools from the command line: what a waiting run waits for (a
//! person's decision or its client's tool results), and `wingman
//! tool-results`, which answers the calls of client tools a run waits on.

use anyhow::{bail, Context};
use serde_json::{json, Value};

use super::remote::{segment, Remote};

/// What a waiting run needs before it can go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitingFor {
    /// A person's decision on calls that need approval (`wingman approve`).
    Decision,
    /// The client's results of calls to client tools (`wingman tool-results`).
    ToolResults,
}

impl WaitingFor {
    /// The name `wingman approvals --json` gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitingFor::Decision => "decision",
            WaitingFor::ToolResults => "tool_results",
        }
    }
}

/// The newest request a run made of the outside, with the calls it names.
#[derive(Debug, Clone)]
pub struct Waiting {
    pub run_id: String,
    pub waiting_for: WaitingFor,
    pub calls: Vec<Value>,
}

/// Reads what a run last asked for: of its `approval_requested` and
/// `tool_calls_requested` events, the newest says what it waits for.
pub async fn waiting(remote: &Remote, run_id: &str) -> anyhow::Result<Waiting> {
    let events = remote.read_events(&format!("/runs/{}/events", segment(run_id))).await?;
    let (waiting_for, request) = events
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find_map(|e| match e["type"].as_str() {
            Some("approval_requested") => Some((WaitingFor::Decision, e)),
            Some("tool_calls_requested") => Some((WaitingFor::ToolResults, e)),
            _ => None,
        })
        .with_context(|| format!("run {run_id} has asked neither for a decision nor for tool results"))?;
    let calls = request["calls"].as_array().cloned().unwrap_or_default();
    Ok(Waiting { run_id: run_id.to_string(), waiting_for, calls })
}

impl Waiting {
    /// The calls, when the run waits for `wanted`; otherwise an error that
    /// says what it does wait for and which command answers that.
    pub fn calls_for(self, wanted: WaitingFor) -> anyhow::Result<Vec<Value>> {
        let id = &self.run_id;
        match (self.waiting_for, wanted) {
            (have, want) if have == want => Ok(self.calls),
            (WaitingFor::ToolResults, _) => bail!(
                "run {id} waits for tool results, not for a decision: answer with \
                 `wingman tool-results {id} --call CALL_ID --output TEXT` (it waits on: {})",
                listed(&self.calls)
            ),
            (WaitingFor::Decision, _) => bail!(
                "run {id} waits for a person's decision, not for tool results: answer with \
                 `wingman approve {id}` (it waits on: {})",
                listed(&self.calls)
            ),
        }
    }
}

/// The calls as `ID (name)`, for messages.
pub fn listed(calls: &[Value]) -> String {
    let each = calls
        .iter()
        .map(|c| format!("{} ({})", c["call_id"].as_str().unwrap_or_default(), c["name"].as_str().unwrap_or_default()));
    each.collect::<Vec<_>>().join(", ")
}

/// A hint, for a run followed from the command line, that it waits for tool
/// results: the command that answers each call it names.
pub fn how_to_answer(run_id: &str, request: &Value) -> String {
    let calls = request["calls"].as_array().map(Vec::as_slice).unwrap_or_default();
    let each: String =
        calls.iter().map(|c| format!(" --call {} --output TEXT", c["call_id"].as_str().unwrap_or_default())).collect();
    format!("[waiting for tool results: wingman tool-results {run_id}{each} (see wingman approvals)]")
}

/// What the command line said: an output per call, and the calls whose
/// result is an error.
pub struct Answers {
    pub outputs: Vec<(String, String)>,
    pub errors: Vec<String>,
}

impl Answers {
    /// A result for every call, in the calls' order. Every call the run
    /// waits on must be answered, once, and no other: that is checked here,
    /// before anything is sent, so the message can list what the run waits on.
    fn results(&self, calls: &[Value]) -> anyhow::Result<Vec<Value>> {
        let ids: Vec<&str> = calls.iter().filter_map(|c| c["call_id"].as_str()).collect();
        let named = self.outputs.iter().map(|(id, _)| id);
        for (n, id) in named.clone().enumerate() {
            if !ids.contains(&id.as_str()) {
                bail!("the run does not wait on call {id} (it waits on: {})", listed(calls));
            }
            if named.clone().take(n).any(|earlier| earlier == id) {
                bail!("call {id} is given two outputs");
            }
        }
        if let Some(id) = self.errors.iter().find(|e| !self.outputs.iter().any(|(id, _)| id == *e)) {
            bail!("--error {id} names a call no --call gives an output");
        }
        let missing: Vec<&str> = ids.iter().copied().filter(|id| !named.clone().any(|n| n == id)).collect();
        if !missing.is_empty() {
            bail!(
                "every call the run waits on needs an --output; missing: {} (it waits on: {})",
                missing.join(", "),
                listed(calls)
            );
        }
        let result = |id: &&str| {
            let output = self.outputs.iter().find(|(named, _)| named == id).map(|(_, o)| o.as_str());
            json!({"call_id": id, "output": output.unwrap_or_default(), "is_error": self.errors.iter().any(|e| e == id)})
        };
        Ok(ids.iter().map(result).collect())
    }
}

/// `wingman tool-results`: checks the answers against the calls the run
/// waits on, sends them, and says so (with `json`, prints the server's answer).
pub async fn answer(remote: &Remote, run_id: &str, answers: Answers, json: bool) -> anyhow::Result<()> {
    let calls = waiting(remote, run_id).await?.calls_for(WaitingFor::ToolResults)?;
    let results = answers.results(&calls)?;
    let count = super::format::count(results.len() as u64, "result");
    let request = remote.post(&format!("/runs/{}/tool-results", segment(run_id))).json(&json!({"results": results}));
    let run = remote.call(request).await?;
    super::view::announce(json, &run, format!("run {run_id} queued again with {count}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls() -> Vec<Value> {
        vec![json!({"call_id": "a", "name": "lookup"}), json!({"call_id": "b", "name": "lookup"})]
    }

    fn answers(outputs: &[(&str, &str)], errors: &[&str]) -> Answers {
        Answers {
            outputs: outputs.iter().map(|(id, o)| (id.to_string(), o.to_string())).collect(),
            errors: errors.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn every_waiting_call_gets_its_output_in_the_calls_order() {
        let results = answers(&[("b", "two"), ("a", "one")], &["b"]).results(&calls()).unwrap();
        assert_eq!(
            results,
            vec![
                json!({"call_id": "a", "output": "one", "is_error": false}),
                json!({"call_id": "b", "output": "two", "is_error": true})
            ]
        );
    }

    #[test]
    fn a_missing_unknown_or_twice_answered_call_is_refused_before_sending() {
        let missing = answers(&[("a", "one")], &[]).results(&calls()).unwrap_err().to_string();
        assert!(missing.contains("missing: b") && missing.contains("a (lookup), b (lookup)"), "{missing}");
        let unknown = answers(&[("a", "1"), ("b", "2"), ("z", "3")], &[]).results(&calls()).unwrap_err();
        assert!(unknown.to_string().contains("does not wait on call z"), "{unknown}");
        let twice = answers(&[("a", "1"), ("a", "2"), ("b", "3")], &[]).results(&calls()).unwrap_err();
        assert!(twice.to_string().contains("two outputs"), "{twice}");
        let error = answers(&[("a", "1"), ("b", "2")], &["c"]).results(&calls()).unwrap_err();
        assert!(error.to_string().contains("--error c"), "{error}");
    }

    #[test]
    fn a_run_waiting_for_the_other_answer_says_which_command_gives_it() {
        let waiting = |waiting_for| Waiting { run_id: "r".into(), waiting_for, calls: calls() };
        let refusal = waiting(WaitingFor::ToolResults).calls_for(WaitingFor::Decision).unwrap_err().to_string();
        assert!(refusal.contains("waits for tool results") && refusal.contains("wingman tool-results r"), "{refusal}");
        let refusal = waiting(WaitingFor::Decision).calls_for(WaitingFor::ToolResults).unwrap_err().to_string();
        assert!(refusal.contains("person's decision") && refusal.contains("wingman approve r"), "{refusal}");
        assert_eq!(waiting(WaitingFor::Decision).calls_for(WaitingFor::Decision).unwrap().len(), 2);
    }
}
