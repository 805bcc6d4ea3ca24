//! A session's turn: its runs execute one at a time, in submission order.
//!
//! A run waiting for its turn is `blocked`, and claims pass over it. The
//! transaction that ends the run holding the turn unblocks the session's
//! next queued run, so the turn moves on exactly once per end, whichever
//! process ends the run.

use crate::domain::model::RunStatus;

/// Whether a run in `status` holds or waits for its session's turn: it has
/// not ended (queued, running, or waiting for a person).
pub fn is_unfinished(status: RunStatus) -> bool {
    !status.is_terminal()
}

/// Whether a new run must wait for its turn: it does while its session has
/// an unfinished run. PostgreSQL's one-call enqueue (`wingman_enqueue_run`)
/// decides this in SQL; a conformance test holds the two to the same answers.
pub fn starts_blocked(session_has_unfinished_run: bool) -> bool {
    session_has_unfinished_run
}

/// Whether ending a run hands its session's turn to the next queued run.
///
/// A run holds the turn unless it is `blocked` (queued behind an unfinished
/// run of its session); ending a blocked one, a cancelled run further back
/// say, must not start the next beside the run still going. A fleet task is
/// the first run of a session of its own, so it always holds that turn: its
/// `blocked` is about its fleet run's slots instead.
pub fn passes_turn(blocked: bool, is_fleet_task: bool) -> bool {
    !blocked || is_fleet_task
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_holder_passes_the_turn() {
        assert!(passes_turn(false, false));
        assert!(!passes_turn(true, false), "a run queued behind another holds nothing");
        assert!(passes_turn(true, true), "a task's blocked is about its fleet's slots");
        assert!(starts_blocked(true) && !starts_blocked(false));
        assert!(is_unfinished(RunStatus::Waiting) && !is_unfinished(RunStatus::Interrupted));
    }
}
