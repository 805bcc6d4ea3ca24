//! Claims, rescues and hand-backs: how a run passes from worker to worker.

use crate::domain::attempt;
use crate::domain::event::RunEvent;

use super::{EndReason, HandBack};

/// The `run_started` event a claim writes in its own transaction, so every
/// attempt shows in the run's log even if it crashes before its first step
/// ends. PostgreSQL's one-statement claim builds the same event in SQL; a
/// conformance test holds the two to the same output.
pub fn started(attempt: u32, worker_id: &str, charged_attempts: u32) -> RunEvent {
    RunEvent::RunStarted { attempt, worker_id: worker_id.to_string(), charged_attempts }
}

/// What becomes of a run whose worker's lease lapsed, found by a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rescue {
    /// Another worker takes it over, with this many attempts charged.
    Resume { charged: u32 },
    /// It has used up its attempts: it ends, failed, with this many charged.
    GiveUp { charged: u32, reason: EndReason },
}

/// The rescue of a run with `charged` attempts charged before the one just
/// lost, which `progressed` or not, and `max_attempts` in all: only an
/// attempt that checkpointed nothing is charged ([`crate::domain::attempt`]).
pub fn rescue(charged: u32, progressed: bool, max_attempts: u32) -> Rescue {
    let charged = attempt::charge_lost(charged, progressed);
    if attempt::exhausted(charged, max_attempts) {
        Rescue::GiveUp { charged, reason: EndReason::GaveUp { charged } }
    } else {
        Rescue::Resume { charged }
    }
}

/// What a hand-back writes besides the run's return to the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct HandedBack {
    /// `run_handed_back`, which says why in the run's log.
    pub event: RunEvent,
    /// The run's `handed_back` resume fact after it: whether the next
    /// attempt may trust that no step was in flight. `None` keeps the value
    /// the claim found.
    pub clean_boundary: Option<bool>,
    /// When a run handed back for its provider budget becomes claimable again.
    pub wake_at: Option<i64>,
}

/// What handing a run back `how` writes.
pub fn hand_back(how: HandBack) -> HandedBack {
    let (interrupted, reason, clean_boundary) = match how {
        HandBack::AtStepBoundary => (false, "the worker shut down between steps", Some(true)),
        HandBack::Interrupted => (true, "the worker shut down and its grace period ran out mid-step", Some(false)),
        HandBack::DatabaseLost => {
            (true, "the worker lost its database mid-run; any step in flight is redone", Some(false))
        }
        HandBack::Unstarted => (false, "the worker never received its claim (the answer was lost); nothing ran", None),
        HandBack::ForBudget { .. } => {
            (false, "its next inference waits for its provider budget, holding no worker meanwhile", Some(true))
        }
    };
    let wake_at = match how {
        HandBack::ForBudget { wake_at } => Some(wake_at),
        _ => None,
    };
    HandedBack { event: RunEvent::RunHandedBack { interrupted, reason: reason.into() }, clean_boundary, wake_at }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rescue_charges_only_an_attempt_without_progress() {
        assert_eq!(rescue(1, true, 2), Rescue::Resume { charged: 1 });
        assert_eq!(rescue(0, false, 2), Rescue::Resume { charged: 1 });
        let gave_up = rescue(1, false, 2);
        assert_eq!(gave_up, Rescue::GiveUp { charged: 2, reason: EndReason::GaveUp { charged: 2 } });
        assert_eq!(hand_back(HandBack::Unstarted).clean_boundary, None);
        assert_eq!(hand_back(HandBack::AtStepBoundary).clean_boundary, Some(true));
        let parked = hand_back(HandBack::ForBudget { wake_at: 5000 });
        assert_eq!((parked.clean_boundary, parked.wake_at), (Some(true), Some(5000)));
        assert_eq!(hand_back(HandBack::Interrupted).wake_at, None);
    }
}
