//! The attempt rule, apart from any backend: which lost attempts count
//! against a run's `max_attempts`.
//!
//! An attempt is lost when its worker stops renewing its lease (a crash, a
//! kill, a partition) and another worker rescues the run. A run that makes
//! progress is not a poison pill: the attempt is charged only when it
//! checkpointed nothing new. A run that crashes its worker at the same step
//! every time is charged every time and fails after `max_attempts`; a run
//! whose workers keep being killed for reasons of their own goes on as long
//! as each attempt gets somewhere. A graceful hand-back is never charged.

/// The charged attempts after losing one that did (or did not) make progress.
pub fn charge_lost(charged: u32, progressed: bool) -> u32 {
    if progressed {
        charged
    } else {
        charged + 1
    }
}

/// True when a run with `charged` charged attempts may not be tried again.
pub fn exhausted(charged: u32, max_attempts: u32) -> bool {
    charged >= max_attempts
}

/// The error of a run that ran out of attempts.
pub fn gave_up(charged: u32) -> String {
    format!(
        "gave up after {charged} attempts that made no progress: each time, the worker running it stopped \
         renewing its lease before checkpointing anything"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_attempts_without_progress_are_charged() {
        let mut charged = 0;
        for progressed in [true, true, false, true, false] {
            charged = charge_lost(charged, progressed);
        }
        assert_eq!(charged, 2);
        assert!(!exhausted(charged, 3) && exhausted(charge_lost(charged, false), 3));
        assert!(gave_up(3).contains("gave up after 3 attempts"));
    }
}
