//! A provider budget: the share of a provider's rate limits that every
//! worker on every host draws from, kept as one row in the database.
//!
//! Requests and tokens are paced by the generic cell rate algorithm (a
//! token bucket kept as one "theoretical arrival time"): a minute's limit is
//! spread evenly, with a burst of half a second's share at most, because
//! providers enforce their per-minute limits over much shorter windows
//! (Anthropic documents a token bucket; OpenAI says a minute's limit may be
//! enforced a second at a time). An inference reserves its time; a run that
//! must wait knows until when, and sleeps without asking again.
//!
//! A 429 or 529 pauses the budget for every worker until its `Retry-After`.
//! Without declared limits, the budget learns one from the answers, as TCP
//! finds a link's rate: the successes counted in the second before the
//! first 429 (or, when none was counted yet, one a second doubling each
//! second until the next 429), lowered by a fifth at each later pause and
//! raised by one request a second for each second of successes. Limits the
//! provider states in its headers tighten the declared ones.

use serde::{Deserialize, Serialize};

use crate::domain::model::ProviderLimits;

/// A budget's state, as stored (JSON) in its row. Times are Unix milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// What the credential or agent declared.
    #[serde(default)]
    pub declared: ProviderLimits,
    /// What the provider's headers or its 429s taught.
    #[serde(default)]
    pub learned: Learned,
    /// The arrival time the next request is measured against.
    #[serde(default)]
    pub requests_tat: f64,
    /// The same for tokens.
    #[serde(default)]
    pub tokens_tat: f64,
    /// No request is sent before this (a 429's `Retry-After`).
    #[serde(default)]
    pub paused_until: i64,
    /// Successes counted in the one-second window starting here.
    #[serde(default)]
    pub window_start: i64,
    #[serde(default)]
    pub window_ok: u32,
    /// Successes in the window before.
    #[serde(default)]
    pub last_window_ok: u32,
}

/// Limits learned from the provider.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    /// Requests a minute, from its headers or found by its 429s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<f64>,
    /// The rate found by 429s is still climbing fast: each answer raises
    /// it by one request a second, until the next 429.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub slow_start: bool,
    /// Tokens a minute, from its headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_minute: Option<f64>,
}

/// What a provider's answer said about its limits (its `x-ratelimit-*` or
/// `anthropic-ratelimit-*` headers).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Heard {
    pub requests_per_minute: Option<f64>,
    pub tokens_per_minute: Option<f64>,
    /// The requests left, and when the count is whole again (ms from now).
    pub requests_remaining: Option<u64>,
    pub requests_reset_ms: Option<u64>,
}

/// Why an inference must wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// The provider answered 429 or 529: every worker waits out its `Retry-After`.
    Paused,
    /// The requests-a-minute share is spent until then.
    RequestsPerMinute,
    /// The tokens-a-minute share is spent until then.
    TokensPerMinute,
    /// As many requests as allowed are in flight.
    MaxConcurrent,
}

impl WaitReason {
    /// The reason as shown in events.
    pub fn as_str(self) -> &'static str {
        match self {
            WaitReason::Paused => "paused",
            WaitReason::RequestsPerMinute => "requests_per_minute",
            WaitReason::TokensPerMinute => "tokens_per_minute",
            WaitReason::MaxConcurrent => "max_concurrent",
        }
    }
}

/// How a provider call ended, for its budgets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// It answered; `tokens_used` corrects the estimate taken before.
    Answered { tokens_estimated: u64, tokens_used: u64 },
    /// 429 or 529: pause every worker for `retry_after_ms` (1 s when the
    /// provider named no delay). `sent_at` tells a call sent before a pause
    /// began (whose 429 says nothing new) from one sent after.
    Limited { retry_after_ms: u64, sent_at: i64 },
    /// Any other failure: nothing to learn.
    Failed,
}

/// A learned limit is never below one request a second.
const FLOOR_RPM: f64 = 60.0;

impl Budget {
    /// The requests a minute in force: the tighter of declared and learned.
    pub fn requests_per_minute(&self) -> Option<f64> {
        tighter(self.declared.requests_per_minute.map(f64::from), self.learned.requests_per_minute)
    }

    /// Whether the requests a minute in force are a learned rate, which
    /// rises with every second of answers, rather than a declared one.
    pub fn paced_by_learned_rate(&self) -> bool {
        match (self.learned.requests_per_minute, self.declared.requests_per_minute) {
            (Some(learned), Some(declared)) => learned < f64::from(declared),
            (learned, _) => learned.is_some(),
        }
    }

    /// The tokens a minute in force.
    pub fn tokens_per_minute(&self) -> Option<f64> {
        tighter(self.declared.tokens_per_minute.map(f64::from), self.learned.tokens_per_minute)
    }

    /// The earliest time a call of `tokens` may be sent, at or after `now`,
    /// and what holds it back when that is later than `now`.
    pub fn earliest(&self, now: i64, tokens: u64) -> (i64, Option<WaitReason>) {
        let mut at = (now, None);
        let mut later = |t: f64, why| {
            let t = t.ceil() as i64;
            if t > at.0 {
                at = (t, Some(why));
            }
        };
        later(self.paused_until as f64, WaitReason::Paused);
        if let Some(rpm) = self.requests_per_minute() {
            let (interval, tolerance) = pacing(rpm);
            later(self.requests_tat - tolerance * interval, WaitReason::RequestsPerMinute);
        }
        if let (Some(tpm), true) = (self.tokens_per_minute(), tokens > 0) {
            let (interval, tolerance) = pacing(tpm);
            later(self.tokens_tat - tolerance * interval, WaitReason::TokensPerMinute);
        }
        at
    }

    /// Takes a call's share at `at` (from [`Budget::earliest`], or later).
    pub fn take(&mut self, at: i64, tokens: u64) {
        if let Some(rpm) = self.requests_per_minute() {
            self.requests_tat = self.requests_tat.max(at as f64) + pacing(rpm).0;
        }
        if let Some(tpm) = self.tokens_per_minute() {
            self.tokens_tat = self.tokens_tat.max(at as f64) + tokens as f64 * pacing(tpm).0;
        }
    }

    /// Learns from how a call ended at `now`.
    pub fn settle(&mut self, now: i64, outcome: Outcome) {
        match outcome {
            Outcome::Answered { tokens_estimated, tokens_used } => self.answered(now, tokens_estimated, tokens_used),
            Outcome::Limited { retry_after_ms, sent_at } => self.limited(now, retry_after_ms, sent_at),
            Outcome::Failed => {}
        }
    }

    fn answered(&mut self, now: i64, estimated: u64, used: u64) {
        if let Some(tpm) = self.tokens_per_minute() {
            let correction = (used as f64 - estimated as f64) * pacing(tpm).0;
            self.tokens_tat = (self.tokens_tat + correction).max(0.0);
        }
        self.roll_window(now);
        self.window_ok += 1;
        // Slow start doubles the rate each second; after it, additive
        // increase adds one request a second for each second of answers.
        let slow_start = self.learned.slow_start;
        if let Some(rpm) = self.learned.requests_per_minute.as_mut() {
            *rpm += if slow_start { 60.0 } else { 3600.0 / rpm.max(FLOOR_RPM) };
        }
    }

    fn limited(&mut self, now: i64, retry_after_ms: u64, sent_at: i64) {
        let until = now + retry_after_ms.max(1) as i64;
        // A call sent before the pause began learned nothing new.
        let news = sent_at >= self.paused_until;
        self.paused_until = self.paused_until.max(until);
        if !news {
            return;
        }
        self.roll_window(now);
        let seen = self.window_ok.max(self.last_window_ok);
        // The first 429 often comes back before the answers admitted with
        // it: then nothing was seen, and the rate starts low and climbs fast.
        (self.learned.requests_per_minute, self.learned.slow_start) = match self.learned.requests_per_minute {
            Some(rpm) => (Some((rpm * 0.8).max(FLOOR_RPM)), false),
            None if seen > 0 => (Some((f64::from(seen) * 60.0).max(FLOOR_RPM)), false),
            None => (Some(FLOOR_RPM), true),
        };
    }

    /// Takes what the provider's headers say: their limits tighten the
    /// budget, and no requests left pauses it until they are whole again.
    pub fn heard(&mut self, now: i64, heard: &Heard) {
        if let Some(rpm) = heard.requests_per_minute.filter(|r| *r >= 1.0) {
            self.learned.requests_per_minute = Some(rpm);
        }
        if let Some(tpm) = heard.tokens_per_minute.filter(|t| *t >= 1.0) {
            self.learned.tokens_per_minute = Some(tpm);
        }
        if let (Some(0), Some(reset)) = (heard.requests_remaining, heard.requests_reset_ms) {
            self.paused_until = self.paused_until.max(now + reset.min(3_600_000) as i64);
        }
    }

    fn roll_window(&mut self, now: i64) {
        if now >= self.window_start + 2000 {
            (self.window_start, self.window_ok, self.last_window_ok) = (now, 0, 0);
        } else if now >= self.window_start + 1000 {
            (self.window_start, self.last_window_ok, self.window_ok) = (now, self.window_ok, 0);
        }
    }
}

/// A budget as the queue shows it: its state, and the calls waiting for
/// their share and in flight now.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetSeen {
    pub name: String,
    pub budget: Budget,
    pub waiting: u32,
    pub in_flight: u32,
}

impl BudgetSeen {
    /// The budget as the queue shows it at `now`.
    pub fn view(&self, now: i64) -> crate::domain::queue::BudgetView {
        let b = &self.budget;
        let whole = |v: Option<f64>| v.map(|v| v.floor() as u64);
        let paused = (b.paused_until > now).then(|| chrono::DateTime::from_timestamp_millis(b.paused_until)).flatten();
        crate::domain::queue::BudgetView {
            name: self.name.clone(),
            declared: (!b.declared.is_empty()).then_some(b.declared),
            learned_requests_per_minute: whole(b.learned.requests_per_minute),
            learned_tokens_per_minute: whole(b.learned.tokens_per_minute),
            requests_per_minute: whole(b.requests_per_minute()),
            tokens_per_minute: whole(b.tokens_per_minute()),
            paused_until: paused,
            waiting: self.waiting.into(),
            in_flight: self.in_flight.into(),
        }
    }
}

/// The interval between calls (ms a unit) and the burst allowed (in units
/// beyond the first): half a second's share.
fn pacing(per_minute: f64) -> (f64, f64) {
    let interval = 60_000.0 / per_minute;
    let burst = (per_minute / 120.0).floor().max(1.0);
    (interval, burst - 1.0)
}

fn tighter(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(rpm: u32) -> Budget {
        Budget {
            declared: ProviderLimits { requests_per_minute: Some(rpm), ..Default::default() },
            ..Default::default()
        }
    }

    /// Sends as soon as allowed from `now`; returns the send times.
    fn send(budget: &mut Budget, now: i64, n: usize) -> Vec<i64> {
        (0..n)
            .map(|_| {
                let (at, _) = budget.earliest(now, 0);
                budget.take(at, 0);
                at
            })
            .collect()
    }

    #[test]
    fn a_minute_is_spread_evenly_after_a_burst_of_half_a_seconds_share() {
        let mut budget = declared(1200);
        let times = send(&mut budget, 1_000_000, 40);
        assert!(times[..10].iter().all(|t| *t == 1_000_000), "{times:?}");
        assert_eq!(times[10] - 1_000_000, 50);
        assert_eq!(times[39] - times[10], 29 * 50);
        // Never ahead of a provider's bucket of 20 refilled at 20 a second:
        // it keeps half its tokens, to absorb the jitter of the calls' travel.
        for (i, t) in times.iter().enumerate() {
            let bucket_allows = 20.0 + (t - 1_000_000) as f64 / 50.0;
            assert!((i + 1) as f64 <= bucket_allows - 9.0, "call {i} at {t}");
        }
        assert_eq!(budget.earliest(1_000_000, 0).1, Some(WaitReason::RequestsPerMinute));
    }

    #[test]
    fn tokens_are_paced_by_their_estimate_and_corrected_by_the_usage() {
        let mut budget = Budget {
            declared: ProviderLimits { tokens_per_minute: Some(60_000), ..Default::default() },
            ..Default::default()
        };
        // 1,000 tokens a second; a burst of 500.
        assert_eq!(budget.earliest(0, 2000), (0, None));
        budget.take(0, 2000);
        assert_eq!(budget.earliest(0, 10), (1501, Some(WaitReason::TokensPerMinute)));
        budget.settle(10, Outcome::Answered { tokens_estimated: 2000, tokens_used: 1000 });
        assert_eq!(budget.earliest(10, 10).0, 501);
    }

    #[test]
    fn a_429_pauses_everyone_and_the_first_one_learns_the_rate_seen() {
        let mut budget = Budget::default();
        assert_eq!(budget.earliest(5_000, 0), (5_000, None));
        for t in 0..18 {
            budget.settle(5_000 + t, Outcome::Answered { tokens_estimated: 0, tokens_used: 0 });
        }
        budget.settle(5_100, Outcome::Limited { retry_after_ms: 1000, sent_at: 5_050 });
        assert_eq!(budget.earliest(5_200, 0), (6_100, Some(WaitReason::Paused)));
        assert_eq!(budget.learned.requests_per_minute, Some(18.0 * 60.0));
        // A call sent before the pause began teaches nothing more.
        budget.settle(5_150, Outcome::Limited { retry_after_ms: 1000, sent_at: 5_060 });
        assert_eq!(budget.learned.requests_per_minute, Some(18.0 * 60.0));
        assert_eq!(budget.paused_until, 6_150);
        // One sent after it lowers the rate by a fifth.
        budget.settle(7_000, Outcome::Limited { retry_after_ms: 1000, sent_at: 6_900 });
        assert_eq!(budget.learned.requests_per_minute, Some(18.0 * 60.0 * 0.8));
    }

    #[test]
    fn a_first_429_before_any_answer_starts_slow_and_doubles_each_second() {
        let mut budget = Budget::default();
        budget.settle(1_000, Outcome::Limited { retry_after_ms: 1000, sent_at: 990 });
        assert_eq!((budget.learned.requests_per_minute, budget.learned.slow_start), (Some(60.0), true));
        for t in 0..3 {
            budget.settle(2_000 + t, Outcome::Answered { tokens_estimated: 0, tokens_used: 0 });
        }
        assert_eq!(budget.learned.requests_per_minute, Some(240.0));
        budget.settle(2_500, Outcome::Limited { retry_after_ms: 1000, sent_at: 2_400 });
        assert_eq!((budget.learned.requests_per_minute, budget.learned.slow_start), (Some(192.0), false));
    }

    #[test]
    fn headers_tighten_the_declared_limit_and_an_empty_count_pauses() {
        let mut budget = declared(1200);
        let heard = Heard {
            requests_per_minute: Some(600.0),
            requests_remaining: Some(0),
            requests_reset_ms: Some(250),
            ..Default::default()
        };
        budget.heard(1_000, &heard);
        assert_eq!(budget.requests_per_minute(), Some(600.0));
        assert_eq!(budget.earliest(1_000, 0), (1_250, Some(WaitReason::Paused)));
        budget.heard(2_000, &Heard { requests_per_minute: Some(5000.0), ..Default::default() });
        assert_eq!(budget.requests_per_minute(), Some(1200.0));
    }
}
