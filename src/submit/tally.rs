//! How many runs each owner with a `max_queued_runs` has queued, as this
//! door last counted them plus what it queued since: counted again at most
//! once per [`FRESH`], so that a busy owner's submissions do not each count
//! a long queue, and every time a submission would come near the limit.
//!
//! Runs only leave the queue between counts (a worker starts them), which
//! makes the tally an overestimate, never an underestimate, of what this
//! door queued; what other servers queued since the count is seen at the
//! next count.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a count is trusted while the queue is far from its limit.
pub const FRESH: Duration = Duration::from_millis(250);

/// The most owners remembered; past it the tally starts over.
const MAX_OWNERS: usize = 10_000;

/// An owner's count, when it was made, and what this door queued since.
#[derive(Debug, Clone, Copy)]
struct Count {
    at: Instant,
    queued: u64,
}

/// Each owner's last count.
#[derive(Debug, Default)]
pub struct QueueTally(Mutex<HashMap<String, Count>>);

impl QueueTally {
    /// The owner's queued runs as tallied, if the tally is fresh and
    /// `adding` more stays within `limit` by it: then they are added to the
    /// tally and no count is needed.
    pub fn admits(&self, owner: &str, adding: u64, limit: u64) -> bool {
        let mut counts = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match counts.get_mut(owner) {
            Some(count) if count.at.elapsed() < FRESH && count.queued + adding <= limit => {
                count.queued += adding;
                true
            }
            _ => false,
        }
    }

    /// Records a count just made, with the runs a submission admitted by it adds.
    pub fn counted(&self, owner: &str, queued: u64) {
        let mut counts = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if counts.len() >= MAX_OWNERS {
            counts.clear();
        }
        counts.insert(owner.to_string(), Count { at: Instant::now(), queued });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_tally_admits_what_stays_within_the_limit_and_counts_it() {
        let tally = QueueTally::default();
        assert!(!tally.admits("bob", 1, 10), "never counted: count first");
        tally.counted("bob", 7);
        assert!(tally.admits("bob", 2, 10));
        assert!(tally.admits("bob", 1, 10), "9 + 1 is the limit");
        assert!(!tally.admits("bob", 1, 10), "past the tally's limit: count again");
        assert!(!tally.admits("amy", 1, 10));
    }
}
