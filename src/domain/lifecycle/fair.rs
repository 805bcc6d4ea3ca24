//! Fairness among the runs queued at one priority: start-time fair
//! queuing. Each run gets a virtual start (`vt`) when it is queued, and a
//! claim takes the lowest first (then the oldest). The clock is the `vt` of
//! the run a claim would take next, or the highest given while nothing is
//! ready.
//!
//! A run without a concurrency key starts at the clock. The runs of one
//! submission (a fleet run's tasks, a parent's children, a formation's
//! nodes) take consecutive starts from there, so they interleave with what
//! others queue after them instead of all going first; a key's runs start
//! after the key's last, never below the clock, so keys take turns. One
//! key's 5,000 queued tasks then delay another key's message by a claim or
//! two. A blocked run keeps the start it was given, so a session's next
//! message goes as soon as its turn comes, as in a plain queue.
//!
//! PostgreSQL applies the same rule in SQL (`wingman_fair_start`, migration
//! 19); the fairness tests run on both backends.

/// The first of a batch's consecutive starts: at the clock, or just after
/// its key's last if that is later.
pub fn first_start(clock: i64, key_last: Option<i64>) -> i64 {
    match key_last {
        Some(last) => clock.max(last.saturating_add(1)),
        None => clock,
    }
}

/// The key's last start after a batch of `n` from `first`.
pub fn last_of(first: i64, n: usize) -> i64 {
    first.saturating_add(n.max(1) as i64 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_runs_after_its_last_start_but_never_below_the_clock() {
        assert_eq!(first_start(100, None), 100, "a new key, or none, starts at the clock");
        assert_eq!(first_start(100, Some(140)), 141, "a key with runs ahead goes after them");
        assert_eq!(first_start(100, Some(20)), 100, "an idle key does not jump the queue");
        assert_eq!(last_of(141, 5_000), 5_140);
        assert_eq!(last_of(7, 0), 7);
    }
}
