//! The storage layer's errors, each saying whether retrying can help.

use crate::domain::lifecycle::Refusal;

/// A database error kept as it came, for logs and `source()` chains.
pub type SourceError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Errors of the storage layer. Each says whether retrying can help
/// ([`StoreError::is_retryable`]): a refusal or a broken row gives the same
/// answer however often it is asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing named does not exist (or was deleted).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The request conflicts with the stored state.
    #[error("{0}")]
    Conflict(String),
    /// A change was made over a version of a definition that is no longer
    /// the stored one: nothing was written.
    #[error("the {what} has changed since: it is at version {current}")]
    Stale { what: &'static str, current: u64 },
    /// The session's state refuses the request as it stands, whatever key
    /// it came with (a 409): it has an unfinished run and the submission
    /// asked not to queue behind it (`multitask_strategy: reject`), or a
    /// rewind's point is not in its history ([`crate::domain::branch`]).
    #[error("{0}")]
    Busy(String),
    /// The writer no longer holds the run's lease: nothing was written.
    #[error("the lease on this run is no longer held")]
    Fenced,
    /// A commit that would end or park a run was refused, changing nothing:
    /// the run's inbox holds something it has not taken in (a message
    /// steered while its last step ran), which must reach it first.
    #[error("the run has messages it has not taken in")]
    InboxWaiting,
    /// The database could not be reached, was busy, or aborted the
    /// transaction (a lost connection, a serialization failure, a restart):
    /// nothing was written, and retrying may help.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] SourceError),
    /// The database is there but every connection of the pool stayed in use
    /// for as long as the call could wait (load, not an outage): nothing was
    /// written, and retrying a moment later may help.
    #[error("database busy: {0}")]
    Overloaded(#[source] SourceError),
    /// The disk the database writes to is full: nothing was written. Workers
    /// retry, as for [`StoreError::Unavailable`], but a client is told what
    /// is wrong, since no retry succeeds until an operator frees space.
    #[error("the database's disk is full: {0}")]
    DiskFull(#[source] SourceError),
    /// The database answered, but not as this code expects (a row that does
    /// not decode, a failed statement): retrying gives the same answer.
    #[error("storage error: {0}")]
    Internal(#[source] SourceError),
}

impl StoreError {
    /// True when the same call may succeed if made again.
    pub fn is_retryable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_) | StoreError::Overloaded(_) | StoreError::DiskFull(_))
    }

    /// An [`StoreError::Internal`] error with a message of its own.
    pub fn internal(message: impl Into<String>) -> StoreError {
        StoreError::Internal(message.into().into())
    }

    /// The refusal of an insert whose key a row has already: `what` with
    /// this `id` exists.
    pub fn already_exists(what: &str, id: &str) -> StoreError {
        StoreError::Conflict(format!("{what} {id} already exists"))
    }

    /// What an update over `expected` that changed no row found: no row
    /// (`current` is `None`), or a row at another version.
    pub fn not_updated(what: &'static str, current: Option<u64>) -> StoreError {
        match current {
            None => StoreError::NotFound(what),
            Some(current) => StoreError::Stale { what, current },
        }
    }

    /// An [`StoreError::Unavailable`] error with a message of its own.
    pub fn unavailable(message: impl Into<String>) -> StoreError {
        StoreError::Unavailable(message.into().into())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Internal(Box::new(e))
    }
}

/// Shorthand for storage results.
pub type StoreResult<T> = Result<T, StoreError>;

impl From<Refusal> for StoreError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Conflict(message) => StoreError::Conflict(message),
            Refusal::Busy(message) => StoreError::Busy(message),
            Refusal::InboxWaiting => StoreError::InboxWaiting,
        }
    }
}
