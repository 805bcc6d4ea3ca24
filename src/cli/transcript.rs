//! Conversations as people read them: a run's events or a session's
//! history as who said what, which tools were called with what, and what
//! they answered, long parts shortened.

use serde_json::Value;

use super::format::{self, Shorten};
use super::style::{Style, Tone};

/// Lines of a transcript, coloured by `style`, long parts cut by `shorten`.
pub struct Transcript {
    style: Style,
    shorten: Shorten,
    lines: Vec<String>,
}

impl Transcript {
    pub fn new(style: Style, shorten: Shorten) -> Transcript {
        Transcript { style, shorten, lines: Vec::new() }
    }

    /// The transcript, one line each.
    pub fn text(&self) -> String {
        self.lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Someone's words: `role: text`, further lines indented.
    pub fn say(&mut self, role: &str, tone: Tone, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let label = self.style.paint(tone, &format!("{role}:"));
        let mut lines = text.lines();
        self.lines.push(format!("{label} {}", lines.next().unwrap_or_default()));
        self.lines.extend(lines.map(|l| format!("  {l}")));
    }

    /// A tool call: `  → name: input`.
    pub fn call(&mut self, name: &str, input: &Value) {
        let arrow = self.style.paint(Tone::Call, &format!("→ {name}:"));
        let mut lines = self.shorten.lines(&input_text(input)).into_iter();
        self.lines.push(format!("  {arrow} {}", lines.next().unwrap_or_default()));
        self.lines.extend(lines.map(|l| format!("      {l}")));
    }

    /// A tool's result: `  ← output`, further lines indented; an error in red.
    pub fn result(&mut self, output: &str, is_error: bool) {
        let tone = if is_error { Tone::Error } else { Tone::Plain };
        let kept = self.shorten.lines(output);
        if kept.is_empty() {
            self.lines.push(format!("  {}", self.style.paint(Tone::Dim, "← (no output)")));
        }
        for (i, line) in kept.iter().enumerate() {
            let lead = if i == 0 { "  ← " } else { "    " };
            self.lines.push(format!("{}{}", self.style.paint(Tone::Dim, lead), self.style.paint(tone, line)));
        }
    }

    /// A remark about the run, not anyone's words: `[…]`, dimmed.
    pub fn note(&mut self, text: &str) {
        self.lines.push(self.style.paint(Tone::Dim, &format!("[{text}]")));
    }

    /// A run's events after its message, each as what it means to a reader.
    pub fn run(&mut self, events: &[Value]) {
        let (mut text, mut thinking) = (String::new(), String::new());
        for event in events {
            let kind = event["type"].as_str().unwrap_or_default();
            match kind {
                "text_delta" => text.push_str(event["text"].as_str().unwrap_or_default()),
                "thinking_delta" => thinking.push_str(event["text"].as_str().unwrap_or_default()),
                // What the restarted step said so far is void: it says it again.
                "step_restarted" => {
                    text.clear();
                    thinking.clear();
                }
                _ => {
                    self.say("thinking", Tone::Dim, &std::mem::take(&mut thinking));
                    self.say("assistant", Tone::Assistant, &std::mem::take(&mut text));
                }
            }
            self.event(kind, event);
        }
        self.say("thinking", Tone::Dim, &thinking);
        self.say("assistant", Tone::Assistant, &text);
    }

    /// An event other than streamed text, as the lines it means.
    pub fn event(&mut self, kind: &str, e: &Value) {
        let str_of = |key: &str| e[key].as_str().unwrap_or_default().to_string();
        match kind {
            "tool_call" => self.call(&str_of("name"), &e["input"]),
            "tool_result" => self.result(&str_of("output"), e["is_error"] == true),
            "run_handed_back" => self.note(&format!("handed back: {}", str_of("reason"))),
            "run_resumed" => self.note(&format!("attempt {} resumes from step {}", e["attempt"], e["from_step"])),
            "step_restarted" => self.note(&format!("step {} restarted: {}", e["step"], str_of("reason"))),
            "approval_requested" => {
                let calls = e["calls"].as_array().map(Vec::len).unwrap_or(0);
                self.note(&format!("waiting for a person's decision on {calls} call(s)"))
            }
            "approval_decided" => self.note(&format!("decided: {}", decisions(&e["decisions"]))),
            "tool_calls_requested" => {
                let calls = e["calls"].as_array().map(Vec::len).unwrap_or(0);
                self.note(&format!("waiting for the client's results of {calls} call(s)"))
            }
            "tool_results_received" => {
                let ids: Vec<&str> = e["call_ids"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                self.note(&format!("the client answered: {}", ids.join(", ")))
            }
            "subagent_started" => {
                self.note(&format!("sub-agent run {} started for {}", str_of("child_run_id"), str_of("call_id")))
            }
            "subagent_finished" => self.note(&format!("sub-agent run {} {}", str_of("child_run_id"), str_of("status"))),
            "steered" => self.say("user (steering)", Tone::User, &str_of("message")),
            "compaction_completed" => self.note(&format!(
                "compacted: {} → {} tokens, {} messages summarized, {} tool results pruned",
                e["tokens_before"], e["tokens_after"], e["summarized_messages"], e["pruned_results"]
            )),
            "done" => {
                let error = e["error"].as_str().map(|m| format!(": {m}")).unwrap_or_default();
                let status = self.style.paint(Tone::Status, &str_of("status"));
                self.lines.push(format!("[{status}{error}]"));
            }
            _ => {}
        }
    }

    /// A session's history: messages of `{"role", "content": [blocks]}`.
    pub fn history(&mut self, history: &[Value]) {
        for message in history {
            let (role, tone) = match message["role"].as_str() {
                Some("assistant") => ("assistant", Tone::Assistant),
                _ => ("user", Tone::User),
            };
            for block in message["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => self.say(role, tone, block["text"].as_str().unwrap_or_default()),
                    Some("thinking") => self.say("thinking", Tone::Dim, block["thinking"].as_str().unwrap_or_default()),
                    Some("tool_use") => self.call(block["name"].as_str().unwrap_or_default(), &block["input"]),
                    Some("tool_result") => self.result(&result_text(&block["content"]), block["is_error"] == true),
                    Some("compaction") => self.marker(block),
                    _ => {}
                }
            }
        }
    }

    /// A compaction marker in a history: what was compacted, and the summary.
    fn marker(&mut self, block: &Value) {
        self.note(&format!(
            "compacted: {} messages summarized, {} tool results pruned",
            block["summarized_messages"], block["pruned_results"]
        ));
        if let Some(summary) = block["summary"].as_str() {
            self.say("summary", Tone::Dim, summary);
        }
    }
}

/// A tool's input as its reader wants it: the value itself when the input
/// is one string (`bash`'s command, `read`'s path), else compact JSON.
fn input_text(input: &Value) -> String {
    match input.as_object() {
        Some(fields) if fields.len() == 1 => match fields.values().next() {
            Some(Value::String(only)) => only.clone(),
            _ => input.to_string(),
        },
        _ => input.to_string(),
    }
}

/// A `tool_result`'s content: a string, or blocks whose text is joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// `call_1_1 approve, call_1_2 reject: not that, call_1_3 edit: ls`.
fn decisions(decisions: &Value) -> String {
    let each = decisions.as_array().into_iter().flatten().map(|d| {
        let named = format!("{} {}", d["call_id"].as_str().unwrap_or("?"), d["decision"].as_str().unwrap_or("?"));
        match (d["input"].is_object(), d["message"].as_str()) {
            (true, _) => format!("{named}: {}", format::one_line(&input_text(&d["input"]), 80)),
            (false, Some(message)) => format!("{named}: {}", format::one_line(message, 80)),
            (false, None) => named,
        }
    });
    each.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plain() -> Transcript {
        Transcript::new(Style::decide(false, None, None), Shorten { lines: 2, width: 40 })
    }

    #[test]
    fn a_run_reads_as_who_said_and_ran_what() {
        let events = [
            json!({"type": "run_started", "attempt": 1}),
            json!({"type": "thinking_delta", "step": 1, "text": "Void "}),
            json!({"type": "text_delta", "step": 1, "text": "I will "}),
            json!({"type": "step_restarted", "step": 1, "reason": "worker lost"}),
            json!({"type": "thinking_delta", "step": 1, "text": "Check the "}),
            json!({"type": "thinking_delta", "step": 1, "text": "system."}),
            json!({"type": "text_delta", "step": 1, "text": "Let me "}),
            json!({"type": "text_delta", "step": 1, "text": "look."}),
            json!({"type": "tool_call", "name": "bash", "input": {"command": "uname -s"}}),
            json!({"type": "step_completed"}),
            json!({"type": "tool_result", "output": "Linux\nmore\nand more\n", "is_error": false}),
            json!({"type": "tool_call", "name": "write", "input": {"path": "a", "content": "b"}}),
            json!({"type": "tool_result", "output": "no such file", "is_error": true}),
            json!({"type": "approval_decided", "decisions": [{"call_id": "c1", "decision": "approve"},
                {"call_id": "c2", "decision": "edit", "input": {"command": "ls"}},
                {"call_id": "c3", "decision": "reject", "message": "not\nthat"}]}),
            json!({"type": "text_delta", "step": 2, "text": "Done."}),
            json!({"type": "done", "status": "succeeded"}),
        ];
        let mut t = plain();
        t.say("user", Tone::User, "What system?");
        t.run(&events);
        let expected =
            "user: What system?\n[step 1 restarted: worker lost]\nthinking: Check the system.\nassistant: Let me look.\n  → bash: uname -s\n  \
                        ← Linux\n    more\n    … 1 more lines\n  → write: {\"content\":\"b\",\"path\":\"a\"}\n  \
                        ← no such file\n[decided: c1 approve, c2 edit: ls, c3 reject: not that]\nassistant: Done.\n[succeeded]\n";
        assert_eq!(t.text(), expected);
    }

    #[test]
    fn a_history_pairs_calls_with_their_results() {
        let history = [
            json!({"role": "user", "content": [{"type": "text", "text": "hi\nthere"}]}),
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "A file.", "signature": "s"},
                {"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "c1", "name": "read", "input": {"path": "x.txt"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "", "is_error": false}]}),
        ];
        let mut t = plain();
        t.history(&history);
        assert_eq!(
            t.text(),
            "user: hi\n  there\nthinking: A file.\nassistant: Looking.\n  → read: x.txt\n  ← (no output)\n"
        );
    }
}
