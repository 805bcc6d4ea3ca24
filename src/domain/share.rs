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
    /// Calls of other running runs in flight now.
    pub in_flight: u32,
}

/// The answer to a call's ask.
#[derive(Debug, Clone, PartialEq)]
pub enum Share {
    /// Send it now (`now` by the database's clock, which a later 429 is
    /// measured against).
    /// `tracked` when a budget applied, so that its end must be settled.
    Go { now: i64, tracked: bool },
    /// Ask again at `until` (the database's clock; `wait_ms` from now).
    Wait { until: i64, wait_ms: u64, budget: String, reason: WaitReason },
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

/// Decides a call's share at `now`, given what was loaded for each of the
/// ask's budgets (in the same order). A credential without a row has no
/// limits and no pause, and is left out.
pub fn decide(now: i64, ask: &ShareAsk, seen: Vec<Seen>) -> Decision {
    let mut live: Vec<(String, Budget, Option<i64>, u32)> = Vec::new();
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
            let (at, why) = earliest(&live, now, ask.tokens);
            if let Some((name, reason)) = why.clone().filter(|_| at - now > HORIZON_MS) {
                // A pause is waited out whole: nothing can be reserved before its end.
                let until = if reason == WaitReason::Paused { at } else { at - HORIZON_MS };
                let place = Place { until: Some(until), reserved: false };
                decision.places = live.iter().map(|(n, ..)| (n.clone(), place)).collect();
                decision.share = Share::Wait { until, wait_ms: (until - now) as u64, budget: name, reason };
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
        decision.share = Share::Wait { until, wait_ms: CONCURRENT_POLL_MS as u64, budget, reason };
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

fn waiting(
    mut decision: Decision,
    live: &[(String, Budget, Option<i64>, u32)],
    until: i64,
    now: i64,
    budget: String,
    reason: WaitReason,
) -> Decision {
    decision.places = live.iter().map(|(n, ..)| (n.clone(), Place::reserved(until))).collect();
    decision.share = Share::Wait { until, wait_ms: (until - now).max(0) as u64, budget, reason };
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
        let woke = decide(2000, &a, vec![Seen { budget: Some(kept.clone()), reserved: Some(2000), in_flight: 0 }]);
        assert_eq!(woke.share, Share::Go { now: 2000, tracked: true });
        assert!(woke.budgets.is_empty(), "a reservation is not paid twice");
        // A pause that outlasts the reservation sends it to the back of the line.
        let paused = Budget { paused_until: 2500, ..kept };
        let again = decide(2000, &a, vec![Seen { budget: Some(paused), reserved: Some(2000), in_flight: 0 }]);
        assert!(matches!(again.share, Share::Wait { until: 3000, .. }), "{again:?}");
        let behind = Budget { paused_until: 3500, ..again.budgets[0].1.clone() };
        let later = decide(2000, &a, vec![Seen { budget: Some(behind), reserved: Some(3000), in_flight: 0 }]);
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
    fn a_full_budget_of_calls_in_flight_keeps_the_paid_share_and_polls() {
        let mut a = ask(&[("openai", None)]);
        a.budgets[0].declared = None;
        let full =
            Budget { declared: ProviderLimits { max_concurrent: Some(2), ..Default::default() }, ..Default::default() };
        let d = decide(1000, &a, vec![Seen { budget: Some(full.clone()), reserved: None, in_flight: 2 }]);
        assert!(matches!(d.share, Share::Wait { until: 1200, reason: WaitReason::MaxConcurrent, .. }), "{d:?}");
        assert_eq!(d.places, vec![("openai".to_string(), Place::reserved(1000))]);
        let room = decide(1200, &a, vec![Seen { budget: Some(full), reserved: Some(1000), in_flight: 1 }]);
        assert_eq!(
            (room.share, room.places),
            (Share::Go { now: 1200, tracked: true }, vec![("openai".to_string(), Place::SENDING)])
        );
    }
}
