//! Double-texting: what a new message does to its session's unfinished
//! runs, by its `multitask_strategy` (names as in LangGraph Server).

use crate::domain::model::{MultitaskStrategy, RunStatus};

use super::{EndReason, Refusal};

/// What a new message does to one unfinished run of its session, before
/// the message is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MakeWay {
    /// Leave the running run an interrupt in its inbox: it stops at its
    /// next step boundary, keeping what it finished.
    Interrupt { run_id: String },
    /// End the run now, for this reason.
    End { run_id: String, reason: EndReason },
}

/// The plan of `strategy` for the session's unfinished runs `unfinished`
/// (ID and status, in queue order): `enqueue` leaves them be, `reject`
/// refuses the message if there is one, `interrupt` stops them (a running
/// one at its next step boundary, the others now), `rollback` ends them now
/// and forgets what they did.
pub fn make_way(
    strategy: MultitaskStrategy,
    session_id: &str,
    unfinished: &[(String, RunStatus)],
) -> Result<Vec<MakeWay>, Refusal> {
    let plan = unfinished.iter().filter_map(|(run_id, status)| {
        let run_id = run_id.clone();
        match strategy {
            MultitaskStrategy::Enqueue => None,
            MultitaskStrategy::Reject => Some(Err(Refusal::Busy(format!(
                "session {session_id} has an unfinished run ({run_id}, {}); multitask_strategy is reject",
                status.as_str()
            )))),
            MultitaskStrategy::Interrupt if *status == RunStatus::Running => Some(Ok(MakeWay::Interrupt { run_id })),
            MultitaskStrategy::Interrupt => Some(Ok(MakeWay::End { run_id, reason: EndReason::Interrupted })),
            MultitaskStrategy::Rollback => Some(Ok(MakeWay::End { run_id, reason: EndReason::RolledBack })),
        }
    });
    plan.collect()
}

/// Whether a strategy needs the session's unfinished runs read at all.
pub fn reads_unfinished(strategy: MultitaskStrategy) -> bool {
    strategy != MultitaskStrategy::Enqueue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs() -> Vec<(String, RunStatus)> {
        vec![("a".into(), RunStatus::Running), ("b".into(), RunStatus::Queued)]
    }

    #[test]
    fn each_strategy_has_its_plan() {
        assert_eq!(make_way(MultitaskStrategy::Enqueue, "s", &runs()), Ok(vec![]));
        assert!(
            matches!(make_way(MultitaskStrategy::Reject, "s", &runs()), Err(Refusal::Busy(m)) if m.contains("(a, running)"))
        );
        assert_eq!(make_way(MultitaskStrategy::Reject, "s", &[]), Ok(vec![]));
        assert_eq!(
            make_way(MultitaskStrategy::Interrupt, "s", &runs()),
            Ok(vec![
                MakeWay::Interrupt { run_id: "a".into() },
                MakeWay::End { run_id: "b".into(), reason: EndReason::Interrupted }
            ])
        );
        let rollback = make_way(MultitaskStrategy::Rollback, "s", &runs()).unwrap();
        assert!(rollback.iter().all(|m| matches!(m, MakeWay::End { reason: EndReason::RolledBack, .. })));
        assert!(!EndReason::RolledBack.keeps_history() && EndReason::Interrupted.keeps_history());
    }
}
