//! Quotas per owner, and what each owner spends by day.
//!
//! An admin sets an owner's quota (`PUT /owners/{owner}`): how many of its
//! runs may wait in the queue, and how many dollars its runs may spend in a
//! day (UTC). Spending is counted as it happens: every inference and
//! compaction a run checkpoints adds its tokens and cost to its owner's day
//! in the same write, and a run's end adds one run to the day it ended. So
//! the days of an owner add up to its runs' usage, and a daily budget sees
//! what runs still in flight spent too.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::model::Usage;

/// The most runs a quota may let wait, so that a typo cannot mean "no limit".
pub const MAX_QUEUED_LIMIT: u64 = 10_000_000;

/// The most runs a quota may let run at once (a concurrency key's highest limit).
pub const MAX_RUNNING_LIMIT: u64 = 10_000;

/// How long a client refused for its queued runs is told to wait before
/// trying again: a queue drains at runs a second, not at requests.
pub const QUEUED_RETRY_AFTER_SECS: u64 = 5;

/// What an owner may use. A field left out is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Quota {
    /// The most runs of the owner that may be queued at once: a submission
    /// that would queue more is a 429 with `Retry-After`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10_000_000)]
    pub max_queued_runs: Option<u64>,
    /// The most runs of the owner that may be running at once, across every
    /// worker and host, like a concurrency key's limit: the rest stay
    /// queued, holding no worker, and start as the owner's runs end or wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10_000)]
    pub max_running_runs: Option<u64>,
    /// The most US dollars the owner's runs may spend in a day (UTC):
    /// checked before each inference, like an agent's `max_cost_usd`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(exclusive_minimum = 0)]
    pub max_cost_usd_per_day: Option<f64>,
}

impl Quota {
    /// Why the quota cannot be kept, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if let Some(n) = self.max_queued_runs {
            if n == 0 || n > MAX_QUEUED_LIMIT {
                return Err(format!("max_queued_runs must be from 1 to {MAX_QUEUED_LIMIT}"));
            }
        }
        if let Some(n) = self.max_running_runs {
            if n == 0 || n > MAX_RUNNING_LIMIT {
                return Err(format!("max_running_runs must be from 1 to {MAX_RUNNING_LIMIT}"));
            }
        }
        if let Some(usd) = self.max_cost_usd_per_day {
            crate::domain::guard::check_cost(usd).map_err(|e| format!("max_cost_usd_per_day {e}"))?;
        }
        Ok(())
    }

    /// Whether the quota limits nothing (its owner is as if it had none).
    pub fn is_empty(&self) -> bool {
        *self == Quota::default()
    }

    /// Why `adding` more runs may not be queued for an owner that has
    /// `queued` already, or `None` if they may. A submission larger than the
    /// whole quota can never fit, so it is told so rather than to wait.
    pub fn queue_refusal(&self, owner: &str, queued: u64, adding: u64) -> Option<QueueRefusal> {
        let limit = self.max_queued_runs?;
        if adding > limit {
            return Some(QueueRefusal::NeverFits(format!(
                "this submission queues {adding} runs, more than owner {owner}'s max_queued_runs ({limit})"
            )));
        }
        (queued + adding > limit).then(|| {
            QueueRefusal::Full(format!(
                "owner {owner} has {queued} runs queued and max_queued_runs is {limit}: \
                 retry once some have started"
            ))
        })
    }
}

/// Why a submission was refused for its owner's queued runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueRefusal {
    /// The queue is full now; the same submission fits once runs start.
    Full(String),
    /// The submission alone is larger than the quota.
    NeverFits(String),
}

/// What an owner's runs spent in one day (UTC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DayUsage {
    /// The day, `YYYY-MM-DD`.
    pub day: String,
    /// Runs that ended that day.
    pub runs: u64,
    /// Input tokens that were neither read from nor written to a prompt cache.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    /// The priced cost in US dollars; a step whose model has no price adds nothing.
    pub cost_usd: f64,
}

impl DayUsage {
    /// Adds another day's (or part of a day's) counts to this one.
    pub fn add(&mut self, other: &DayUsage) {
        self.runs += other.runs;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cost_usd += other.cost_usd;
    }
}

/// The day (UTC) that `at` falls on, as usage is kept: `2026-11-28`.
pub fn day_of(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d").to_string()
}

/// The day `day` names, written as usage is kept (`YYYY-MM-DD`).
pub fn parse_day(day: &str) -> Result<NaiveDate, String> {
    match NaiveDate::parse_from_str(day, "%Y-%m-%d") {
        Ok(date) if date.format("%Y-%m-%d").to_string() == day => Ok(date),
        _ => Err(format!("{day:?} is not a day: write it as YYYY-MM-DD")),
    }
}

/// What a commit of `checkpoints` adds to its run's owner's day: the
/// tokens and cost of the inferences and compactions among them (the steps
/// a run's own `usage` adds up) and, when it `ends` the run, the run; `None`
/// when it adds nothing.
pub fn charged(checkpoints: &[Checkpoint], ends: bool) -> Option<DayUsage> {
    let mut total = ends.then(ended);
    for checkpoint in checkpoints {
        if let CheckpointBody::Inference { usage, .. } | CheckpointBody::Compaction { usage, .. } = &checkpoint.body {
            total.get_or_insert_with(DayUsage::default).add(&of_usage(usage));
        }
    }
    total
}

/// What an end decided outside a worker's commit (a cancel, a rescue that
/// gives up) adds to its run's owner's day: the run.
pub fn ended() -> DayUsage {
    DayUsage { runs: 1, ..DayUsage::default() }
}

fn of_usage(usage: &Usage) -> DayUsage {
    DayUsage {
        day: String::new(),
        runs: 0,
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cost_usd: usage.cost_usd.unwrap_or(0.0),
    }
}

/// The error of a run stopped by its owner's daily budget.
pub fn day_budget_error(owner: &str, spent_usd: f64, limit_usd: f64) -> String {
    format!(
        "budget exhausted: owner {owner} spent ${} of ${} today (max_cost_usd_per_day)",
        crate::domain::guard::dollars(spent_usd),
        crate::domain::guard::dollars(limit_usd)
    )
}

#[cfg(test)]
mod tests;
