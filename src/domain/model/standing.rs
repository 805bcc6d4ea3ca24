//! What a reader of a run's log needs of the run, and no more.

use super::{Owned, RunStatus};

/// A run's owner and status, and whether its log holds an event after a
/// given one: read together in one trip, without decoding the rest of its
/// row (its input, its agent, its answer). A late reader of a finished
/// run's log needs exactly these: whether it may see the run, and whether
/// anything is left for it to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunStanding {
    pub owner: String,
    pub status: RunStatus,
    /// The run's log holds an event numbered after the one asked about.
    pub events_after: bool,
}

impl RunStanding {
    /// True when the run has ended and its log holds nothing after the
    /// reader's place: nothing will ever follow.
    pub fn read_to_the_end(&self) -> bool {
        self.status.is_terminal() && !self.events_after
    }
}

impl Owned for RunStanding {
    fn owner(&self) -> &str {
        &self.owner
    }
}
