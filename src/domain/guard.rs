//! The guards that stop a run which would not stop by itself, as domain rules.
//!
//! An agent's [`Guards`] sit beside its `max_steps`. Two of them act while a
//! step streams, in the engine (`max_step_output_bytes`, `step_timeout_secs`);
//! the others are decided here from a run's checkpoints, so a worker that
//! resumes a run after a crash makes the same decision as the one that died:
//! the budget ([`Budget`], [`Spent`]) and the loop guard ([`repeats`],
//! [`verdict`]).

use serde_json::Value;

use crate::domain::checkpoint::{tool_calls_of, Checkpoint, CheckpointBody};
use crate::domain::model::{Agent, RunInput, ToolCall};
pub use crate::domain::model::{Guards, DEFAULT_LOOP_GUARD, DEFAULT_MAX_STEP_OUTPUT_BYTES, DEFAULT_STEP_TIMEOUT_SECS};

/// The largest `max_step_output_bytes` an agent may ask for (1 GiB).
pub const MAX_MAX_STEP_OUTPUT_BYTES: u64 = 1 << 30;
/// The longest `step_timeout_secs` an agent may ask for: a day.
pub const MAX_STEP_TIMEOUT_SECS: u64 = 86_400;
/// The largest `max_total_tokens` an agent may ask for: what a signed
/// 64-bit integer holds, as the API's document says (`int64`).
pub const MAX_MAX_TOTAL_TOKENS: u64 = i64::MAX as u64;
/// The largest `loop_guard` an agent may ask for.
pub const MAX_LOOP_GUARD: u32 = 100;

impl Guards {
    /// Checks the values a client gave, saying which one is wrong and why.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_MAX_STEP_OUTPUT_BYTES).contains(&self.max_step_output_bytes) {
            return Err(format!("max_step_output_bytes must be between 1 and {MAX_MAX_STEP_OUTPUT_BYTES}"));
        }
        if !(1..=MAX_STEP_TIMEOUT_SECS).contains(&self.step_timeout_secs) {
            return Err(format!("step_timeout_secs must be between 1 and {MAX_STEP_TIMEOUT_SECS}"));
        }
        if let Some(usd) = self.max_cost_usd {
            check_cost(usd).map_err(|e| format!("max_cost_usd {e}"))?;
        }
        if self.max_total_tokens.is_some_and(|t| !(1..=MAX_MAX_TOTAL_TOKENS).contains(&t)) {
            return Err(format!(
                "max_total_tokens must be between 1 and {MAX_MAX_TOTAL_TOKENS} (or null for no limit)"
            ));
        }
        if self.loop_guard == 1 || self.loop_guard > MAX_LOOP_GUARD {
            return Err(format!("loop_guard must be 0 (off) or between 2 and {MAX_LOOP_GUARD}"));
        }
        Ok(())
    }
}

/// Checks a budget in dollars: a positive, finite number.
pub fn check_cost(usd: f64) -> Result<(), String> {
    if usd.is_finite() && usd > 0.0 {
        Ok(())
    } else {
        Err("must be a positive number of US dollars".into())
    }
}

/// What a run has spent so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// The priced cost of its steps; a step whose model has no price adds nothing.
    pub usd: f64,
    /// Every token its steps used: input, output, and cache reads and writes.
    pub tokens: u64,
}

impl Spent {
    /// What the inference steps (and compactions) among `checkpoints` spent.
    pub fn of(checkpoints: &[Checkpoint]) -> Spent {
        let mut spent = Spent::default();
        for checkpoint in checkpoints {
            // A compaction's summary is paid for like any step.
            if let CheckpointBody::Inference { usage, .. } | CheckpointBody::Compaction { usage, .. } = &checkpoint.body
            {
                spent.add(Spent {
                    usd: usage.cost_usd.unwrap_or(0.0),
                    tokens: usage.input_tokens
                        + usage.output_tokens
                        + usage.cache_read_input_tokens
                        + usage.cache_creation_input_tokens,
                });
            }
            // What a sub-agent's run spent is the parent's spending too.
            if let CheckpointBody::ChildEnded { spent_usd, spent_tokens, .. } = &checkpoint.body {
                spent.add(Spent { usd: *spent_usd, tokens: *spent_tokens });
            }
        }
        spent
    }

    /// Adds another's spending to this one.
    pub fn add(&mut self, other: Spent) {
        self.usd += other.usd;
        self.tokens += other.tokens;
    }
}

/// What a run may spend: its agent's limits, lowered by its message's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub max_cost_usd: Option<f64>,
    pub max_total_tokens: Option<u64>,
}

/// A budget a run has used up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exhausted {
    Cost { spent_usd: f64, limit_usd: f64 },
    Tokens { spent_tokens: u64, limit_tokens: u64 },
}

impl Budget {
    /// The budget of a run of `agent` submitted with `input`.
    pub fn of(agent: &Agent, input: &RunInput) -> Budget {
        let max_cost_usd = match (agent.guards.max_cost_usd, input.max_cost_usd) {
            (Some(a), Some(m)) => Some(a.min(m)),
            (a, m) => a.or(m),
        };
        let max_total_tokens = match (agent.guards.max_total_tokens, input.max_total_tokens) {
            (Some(a), Some(m)) => Some(a.min(m)),
            (a, m) => a.or(m),
        };
        Budget { max_cost_usd, max_total_tokens }
    }

    /// The limit `spent` has reached, if any (the dollar one first).
    pub fn exhausted(&self, spent: Spent) -> Option<Exhausted> {
        if let Some(limit_usd) = self.max_cost_usd.filter(|limit| spent.usd >= *limit) {
            return Some(Exhausted::Cost { spent_usd: spent.usd, limit_usd });
        }
        let limit_tokens = self.max_total_tokens.filter(|limit| spent.tokens >= *limit)?;
        Some(Exhausted::Tokens { spent_tokens: spent.tokens, limit_tokens })
    }
}

/// The budget a run has used up, from its checkpoints: its own steps and
/// what its sub-agents' runs spent.
pub fn over_budget(checkpoints: &[Checkpoint], agent: &Agent, input: &RunInput) -> Option<Exhausted> {
    Budget::of(agent, input).exhausted(Spent::of(checkpoints))
}

impl Exhausted {
    /// The run's `error`.
    pub fn error(&self) -> String {
        match self {
            Exhausted::Cost { spent_usd, limit_usd } => {
                format!("budget exhausted: spent ${} of ${}", dollars(*spent_usd), dollars(*limit_usd))
            }
            Exhausted::Tokens { spent_tokens, limit_tokens } => {
                format!("budget exhausted: spent {spent_tokens} tokens of {limit_tokens} (max_total_tokens)")
            }
        }
    }
}

/// Dollars to the millionth, without trailing zeros: `0.063`, `2`.
pub fn dollars(usd: f64) -> String {
    let text = format!("{usd:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// How many calls in a row, ending with call `call_id` of `step`, asked for
/// the same tool with the same input. Calls are counted in the order the
/// model made them, across the run's steps; 0 if there is no such call.
pub fn repeats(checkpoints: &[Checkpoint], step: u32, call_id: &str) -> u32 {
    let mut answers: Vec<(u32, Vec<ToolCall>)> = checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Inference { message, .. } if c.step <= step => Some((c.step, tool_calls_of(message))),
            _ => None,
        })
        .collect();
    answers.sort_by_key(|(s, _)| *s);
    let mut previous: Option<(&str, &Value)> = None;
    let mut streak = 0;
    for (s, calls) in &answers {
        for call in calls {
            let this = (call.name.as_str(), &call.input);
            streak = if previous == Some(this) { streak + 1 } else { 1 };
            previous = Some(this);
            if *s == step && call.id == call_id {
                return streak;
            }
        }
    }
    0
}

/// What the loop guard makes of a call that is the `repeats`th identical one in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not a loop (or the guard is off): the call goes its usual way.
    Run,
    /// A person decides, as for a call in `approve_tools`.
    AskPerson,
    /// The call is not run; its result tells the model it repeats itself.
    Refuse,
    /// The model repeated itself after being told: the run fails.
    Fail,
}

/// The loop guard's verdict on a call, under `loop_guard`, when the agent
/// has a person to ask (`approve_tools` set) or not.
pub fn verdict(loop_guard: u32, person: bool, repeats: u32) -> Verdict {
    if loop_guard == 0 || repeats < loop_guard {
        Verdict::Run
    } else if person {
        Verdict::AskPerson
    } else if repeats == loop_guard {
        Verdict::Refuse
    } else {
        Verdict::Fail
    }
}

/// The result a refused repeated call gets.
pub fn refusal(name: &str, repeats: u32) -> String {
    format!(
        "not run: this is call {repeats} in a row of {name} with the same input, so you are repeating yourself. \
         Change the input, try something else, or answer; one more identical call ends the run."
    )
}

/// The run's `error` when the model repeated a call after being told.
pub fn loop_error(name: &str, repeats: u32, loop_guard: u32) -> String {
    format!("loop detected: {name} was called {repeats} times in a row with the same input (loop_guard {loop_guard})")
}

#[cfg(test)]
mod tests;
