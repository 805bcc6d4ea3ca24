//! Taking a provider call's share of its budgets, decided the same way on
//! both backends: the store loads the budgets' rows and this run's place in
//! them, [`decide`] says what to write and whether the call may go, and the
//! store writes it in the same transaction.
//!
//! A call that must wait for its rate share reserves its time at once, so
//! the run sleeps until then and does not ask again in a storm; its place
//! is a `provider_calls` row (`until`), which is also how the API shows the
//! run as rate-limited. A reservation stands unless a pause that ends after
//! it began since. A call that may go is recorded as sending, under the
//! run's lease epoch: `max_concurrent` counts those of running runs with that
//! epoch, so a worker that dies mid-call frees its place when its run is
//! rescued, with nothing to clean up.

use crate::domain::budget::{Budget, WaitReason};
use crate::domain::model::ProviderLimits;

/// How long a call waits before asking again for a place among
/// `max_concurrent` calls in flight (places free when calls end, which no
/// clock foretells).
pub const CONCURRENT_POLL_MS: i64 = 200;

/// A budget a call draws from.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetRef {
    /// `openai`, `openai:label` (a credential's) or `agent:<id>` (an agent's).
    pub name: String,
    /// An agent's limits as they are now, written over its row's; `None`
    /// for a credential's, whose row holds what was declared for it.
    pub declared: Option<ProviderLimits>,
}

/// What a call asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareAsk {
    pub run_id: String,
    /// The run's lease epoch: a call of an older attempt no longer counts.
    pub epoch: i64,
    pub budgets: Vec<BudgetRef>,
    /// The prompt's estimated tokens.
    pub tokens: u64,
}

/// A budget's row and this run's place in it, as loaded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    pub budget: Option<Budget>,
    /// The time this run reserved, when it waits for it.
    pub reserved: Option<i64>,
    /// Calls of other runs in flight now.
    pub in_flight: u32,
    /// Calls of other runs waiting for a share they have not reserved yet
    /// (beyond the horizon, many of them handed back to the queue), that
    /// began waiting before this one did: it lines up behind them.
    pub waiting_ahead: u32,
}

/// The answer to a call's ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Share {
    /// Send it now (`now` by the database's clock, which a later 429 is
    /// measured against).
    /// `tracked` when a budget applied, so that its end must be settled.
    Go { now: i64, tracked: bool },
    /// Ask again at `until` (the database's clock; `wait_ms` from now).
    /// `at` is when the call's share is due as far as is known now: `until`
    /// for a reservation, later for a call beyond the horizon (no later
    /// than [`LEARNED_RECHECK_MS`] from now while a learned rate paces it).
    Wait { until: i64, wait_ms: u64, at: i64, budget: String, reason: WaitReason },
}

impl Share {
    /// When a run whose call must wait is better handed back to the queue
    /// than kept in its worker: its share is [`PARK_MS`] or more away. Then
    /// it is claimed again `PARK_MS / 2` before its share is due (as a time
    /// on the database's clock, and in milliseconds from now), so that it
    /// asks within the horizon, reserves, and waits the rest in its worker.
    pub fn hand_back_until(&self) -> Option<(i64, u64)> {
        let Share::Wait { until, wait_ms, at, .. } = *self else { return None };
        let now = until - wait_ms as i64;
        if at - now < PARK_MS as i64 {
            return None;
        }
        let wake = at - PARK_MS as i64 / 2;
        Some((wake, (wake - now) as u64))
    }
}

/// What to write: budgets changed, and the run's place in each budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub share: Share,
    pub budgets: Vec<(String, Budget)>,
    pub places: Vec<(String, Place)>,
}

/// A call's place in a budget: waiting until a time (`reserved` when its
/// share is taken for then), or sending (`until` is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub until: Option<i64>,
    pub reserved: bool,
}

impl Place {
    const SENDING: Place = Place { until: None, reserved: false };

    fn reserved(at: i64) -> Place {
        Place { until: Some(at), reserved: true }
    }
}

/// How far ahead a share is reserved. A call that would wait longer asks
/// again when it comes within reach: the rate in force may have changed by
/// then (a limit learned from the provider rises as it answers), and a
/// reservation made far ahead at a lower rate would hold the run for nothing.
pub const HORIZON_MS: i64 = 2000;

/// A wait for a share this long or longer is not spent holding a worker:
/// the run is handed back to the queue until shortly before its share
/// comes within reach ([`crate::domain::lifecycle::HandBack::ForBudget`]).
/// Shorter waits cost less than a hand-back and a claim.
pub const PARK_MS: u64 = 1000;

/// The longest a run is handed back for when a budget it waits for is
/// paced by a learned rate: that rate rises as answers come (doubling each
/// second at first), so a share lined up far off now may be due much sooner.
pub const LEARNED_RECHECK_MS: i64 = 3000;

/// How many waiting calls ahead are counted when lining up behind them:
/// past that, a call wakes too early and simply waits again.
const MAX_AHEAD: u32 = 10_000;

/// Decides a call's share at `now`, given what was loaded for each of the
/// ask's budgets (in the same order). A credential without a row has no
/// limits and no pause, and is left out.
pub fn decide(now: i64, ask: &ShareAsk, seen: Vec<Seen>) -> Decision {
    let mut live: Vec<(String, Budget, Option<i64>, u32)> = Vec::new();
    let ahead = seen.iter().map(|s| s.waiting_ahead).max().unwrap_or(0).min(MAX_AHEAD);
    for (r, seen) in ask.budgets.iter().zip(seen) {
        let budget = match (seen.budget, r.declared) {
            (Some(mut b), Some(declared)) => {
                b.declared = declared;
                b
            }
            (None, Some(declared)) => Budget { declared, ..Default::default() },
            (Some(b), None) => b,
            (None, None) => continue,
        };
        live.push((r.name.clone(), budget, seen.reserved, seen.in_flight));
    }
    let tracked = !live.is_empty();
    let mut decision = Decision { share: Share::Go { now, tracked }, budgets: Vec::new(), places: Vec::new() };
    let reserved = reservation(&live);
    let at = match reserved {
        Some(at) => at,
        None => {
            let (at, why) = earliest_behind(&live, now, ask.tokens, ahead);
            if let Some((name, reason)) = why.clone().filter(|_| at - now > HORIZON_MS) {
                // A pause is waited out whole: nothing can be reserved before its end.
                let until = if reason == WaitReason::Paused { at } else { at - HORIZON_MS };
                let place = Place { until: Some(until), reserved: false };
                decision.places = live.iter().map(|(n, ..)| (n.clone(), place)).collect();
                let learned = live.iter().any(|(_, b, ..)| b.paced_by_learned_rate());
                let at = if learned { at.min(now + LEARNED_RECHECK_MS) } else { at };
                decision.share = Share::Wait { until, wait_ms: (until - now) as u64, at, budget: name, reason };
                return decision;
            }
            for (_, budget, _, _) in live.iter_mut() {
                budget.take(at, ask.tokens);
            }
            decision.budgets = live.iter().map(|(n, b, _, _)| (n.clone(), b.clone())).collect();
            if let Some((name, reason)) = why.filter(|_| at > now) {
                return waiting(decision, &live, at, now, name, reason);
            }
            at
        }
    };
    if at > now {
        let (name, reason) = (live[0].0.clone(), WaitReason::RequestsPerMinute);
        return waiting(decision, &live, at, now, name, reason);
    }
    let full = live.iter().find(|(_, b, _, n)| b.declared.max_concurrent.is_some_and(|m| *n >= m));
    if let Some((name, ..)) = full {
        // The rate share is paid: the place says so, and the next ask only
        // waits for room.
        decision.places = live.iter().map(|(n, ..)| (n.clone(), Place::reserved(now))).collect();
        let until = now + CONCURRENT_POLL_MS;
        let (budget, reason) = (name.clone(), WaitReason::MaxConcurrent);
        decision.share = Share::Wait { until, wait_ms: CONCURRENT_POLL_MS as u64, at: until, budget, reason };
        return decision;
    }
    decision.places = live.iter().map(|(n, ..)| (n.clone(), Place::SENDING)).collect();
    decision
}

/// The time this run reserved in every budget, if it still stands: no
/// pause that outlasts it began after it was made.
fn reservation(live: &[(String, Budget, Option<i64>, u32)]) -> Option<i64> {
    if live.is_empty() {
        return None;
    }
    let mut at = i64::MIN;
    for (_, budget, reserved, _) in live {
        let r = (*reserved)?;
        if budget.paused_until > r {
            return None;
        }
        at = at.max(r);
    }
    Some(at)
}

fn earliest(live: &[(String, Budget, Option<i64>, u32)], now: i64, tokens: u64) -> (i64, Option<(String, WaitReason)>) {
    let mut found = (now, None);
    for (name, budget, _, _) in live {
        let (at, why) = budget.earliest(now, tokens);
        if at > found.0 {
            found = (at, why.map(|w| (name.clone(), w)));
        }
    }
    found
}

/// The earliest share behind `ahead` calls waiting before this one: the
/// budgets as they would be once each had taken its share in turn (assumed
/// the size of this one's). Calls that wait long are handed back to the
/// queue, so without lining up they would all wake at the same moment and
/// race for a share only a few can have.
fn earliest_behind(
    live: &[(String, Budget, Option<i64>, u32)],
    now: i64,
    tokens: u64,
    ahead: u32,
) -> (i64, Option<(String, WaitReason)>) {
    if ahead == 0 {
        return earliest(live, now, tokens);
    }
    let mut line: Vec<_> = live.to_vec();
    for _ in 0..ahead {
        let (at, _) = earliest(&line, now, tokens);
        for (_, budget, _, _) in line.iter_mut() {
            budget.take(at, tokens);
        }
    }
    earliest(&line, now, tokens)
}

fn waiting(
    mut decision: Decision,
    live: &[(String, Budget, Option<i64>, u32)],
    until: i64,
    now: i64,
    budget: String,
    reason: WaitReason,
) -> Decision {
    decision.places = live.iter().map(|(n, ..)| (n.clone(), Place::reserved(until))).collect();
    decision.share = Share::Wait { until, wait_ms: (until - now).max(0) as u64, at: until, budget, reason };
    decision
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(budgets: &[(&str, Option<u32>)]) -> ShareAsk {
        let budgets = budgets
            .iter()
            .map(|(name, rpm)| BudgetRef {
                name: name.to_string(),
                declared: rpm.map(|r| ProviderLimits { requests_per_minute: Some(r), ..Default::default() }),
            })
            .collect();
        ShareAsk { run_id: "r".into(), epoch: 1, budgets, tokens: 0 }
    }

    #[test]
    fn a_credential_without_a_row_lets_every_call_go_and_writes_nothing() {
        let d = decide(1000, &ask(&[("openai", None)]), vec![Seen::default()]);
        assert_eq!(d, Decision { share: Share::Go { now: 1000, tracked: false }, budgets: vec![], places: vec![] });
    }

    #[test]
    fn a_call_past_its_share_reserves_its_time_and_then_goes_without_taking_again() {
        let a = ask(&[("agent:a", Some(60))]);
        let first = decide(1000, &a, vec![Seen::default()]);
        assert_eq!(first.share, Share::Go { now: 1000, tracked: true });
        let budget = first.budgets[0].1.clone();
        let second = decide(1000, &a, vec![Seen { budget: Some(budget), ..Default::default() }]);
        let Share::Wait { until, wait_ms, reason, .. } = second.share else { panic!("{second:?}") };
        assert_eq!((until, wait_ms, reason), (2000, 1000, WaitReason::RequestsPerMinute));
        assert_eq!(second.places, vec![("agent:a".to_string(), Place::reserved(2000))]);
        let kept = second.budgets[0].1.clone();
        let woke = decide(
            2000,
            &a,
            vec![Seen { budget: Some(kept.clone()), reserved: Some(2000), in_flight: 0, waiting_ahead: 0 }],
        );
        assert_eq!(woke.share, Share::Go { now: 2000, tracked: true });
        assert!(woke.budgets.is_empty(), "a reservation is not paid twice");
        // A pause that outlasts the reservation sends it to the back of the line.
        let paused = Budget { paused_until: 2500, ..kept };
        let again =
            decide(2000, &a, vec![Seen { budget: Some(paused), reserved: Some(2000), in_flight: 0, waiting_ahead: 0 }]);
        assert!(matches!(again.share, Share::Wait { until: 3000, .. }), "{again:?}");
        let behind = Budget { paused_until: 3500, ..again.budgets[0].1.clone() };
        let later =
            decide(2000, &a, vec![Seen { budget: Some(behind), reserved: Some(3000), in_flight: 0, waiting_ahead: 0 }]);
        assert!(matches!(later.share, Share::Wait { reason: WaitReason::RequestsPerMinute, .. }), "{later:?}");
    }

    #[test]
    fn a_call_beyond_the_horizon_reserves_nothing_and_asks_again_when_within_reach() {
        let a = ask(&[("agent:a", Some(60))]);
        let behind = Budget { requests_tat: 10_000.0, ..Default::default() };
        let d = decide(1000, &a, vec![Seen { budget: Some(behind), ..Default::default() }]);
        let Share::Wait { until, .. } = d.share else { panic!("{d:?}") };
        assert_eq!(until, 10_000 - HORIZON_MS);
        assert!(d.budgets.is_empty(), "nothing taken");
        assert_eq!(d.places, vec![("agent:a".to_string(), Place { until: Some(until), reserved: false })]);
    }

    #[test]
    fn a_call_lines_up_behind_the_calls_waiting_before_it() {
        // 60 a minute: one a second. Ten calls wait ahead, none reserved yet.
        let a = ask(&[("agent:a", Some(60))]);
        let spent = Budget { requests_tat: 1_500.0, ..Default::default() };
        let alone = decide(1000, &a, vec![Seen { budget: Some(spent.clone()), ..Default::default() }]);
        assert!(matches!(alone.share, Share::Wait { until: 1500, .. }), "{alone:?}");
        let seen = Seen { budget: Some(spent), waiting_ahead: 10, ..Default::default() };
        let behind = decide(1000, &a, vec![seen]);
        let Share::Wait { until, wait_ms, .. } = behind.share else { panic!("{behind:?}") };
        // Its share is ten seconds later; it asks again two seconds before.
        assert_eq!((until, wait_ms), (11_500 - HORIZON_MS, 8_500));
        // So long a wait is not spent in a worker: the run is claimed again
        // shortly before its share, once, and then reserves it.
        let (wake, wake_in) = behind.share.hand_back_until().expect("handed back");
        assert_eq!((wake, wake_in), (11_500 - PARK_MS as i64 / 2, 10_000));
        assert_eq!(alone.share.hand_back_until(), None, "half a second is waited in the worker");
        assert!(behind.budgets.is_empty(), "nothing taken for the calls ahead");
    }

    #[test]
    fn a_call_paced_by_a_learned_rate_is_handed_back_no_longer_than_the_recheck() {
        let a = ask(&[("openai", None)]);
        let mut slow = Budget { requests_tat: 1_500.0, ..Default::default() };
        slow.learned.requests_per_minute = Some(60.0);
        let seen = Seen { budget: Some(slow), waiting_ahead: 100, ..Default::default() };
        let d = decide(1000, &a, vec![seen]);
        let Share::Wait { until, at, .. } = d.share else { panic!("{d:?}") };
        assert!(until > 90_000, "a hundred ahead at one a second: {until}");
        assert_eq!(at, 1000 + LEARNED_RECHECK_MS, "but the rate may double meanwhile");
        assert_eq!(d.share.hand_back_until(), Some((at - PARK_MS as i64 / 2, 2500)));
    }

    #[test]
    fn a_full_budget_of_calls_in_flight_keeps_the_paid_share_and_polls() {
        let mut a = ask(&[("openai", None)]);
        a.budgets[0].declared = None;
        let full =
            Budget { declared: ProviderLimits { max_concurrent: Some(2), ..Default::default() }, ..Default::default() };
        let d =
            decide(1000, &a, vec![Seen { budget: Some(full.clone()), reserved: None, in_flight: 2, waiting_ahead: 0 }]);
        assert!(matches!(d.share, Share::Wait { until: 1200, reason: WaitReason::MaxConcurrent, .. }), "{d:?}");
        assert_eq!(d.places, vec![("openai".to_string(), Place::reserved(1000))]);
        let room =
            decide(1200, &a, vec![Seen { budget: Some(full), reserved: Some(1000), in_flight: 1, waiting_ahead: 0 }]);
        assert_eq!(
            (room.share, room.places),
            (Share::Go { now: 1200, tracked: true }, vec![("openai".to_string(), Place::SENDING)])
        );
    }
}
