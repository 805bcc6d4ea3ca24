//! What a refused or failed submission says, and whether trying it again
//! can help.

use crate::store::StoreError;

/// Why a submission wrote nothing. Each variant says whether the same
/// submission may succeed later ([`SubmitError::retryable`]): the HTTP layer
/// maps it to a status, the scheduler retries what can be retried and
/// records a tick as skipped only for what cannot.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The submission is malformed: an empty message, a bad key, a
    /// `work_dir` that is not a directory (a 400).
    #[error("{0}")]
    Invalid(String),
    /// Well formed, but refused as it stands: no agent to run, an agent or
    /// fleet that no longer exists, an idempotency key reused with another
    /// request, a place the server's policy forbids (a 422).
    #[error("{0}")]
    Refused(String),
    /// What it names does not exist (a 404): `"session 01…"`.
    #[error("{0} not found")]
    NotFound(String),
    /// Something it relies on no longer exists, said in full with what to
    /// do instead (a 404): a session's own agent, deleted since.
    #[error("{0}")]
    Gone(String),
    /// It conflicts with the state now: the session has an unfinished run and
    /// the submission asked not to queue behind it, or its tools clash with
    /// its agent's (a 409).
    #[error("{0}")]
    Conflict(String),
    /// Its owner has as many runs queued as its quota lets wait (a 429
    /// with `Retry-After`): the same submission fits once some have
    /// started. Not [`SubmitError::retryable`]: a schedule's tick is
    /// skipped rather than piled onto a full queue.
    #[error("{0}")]
    OverQuota(String),
    /// The database could not take it now (unreachable, restarting, or every
    /// connection in use): nothing was written, and the same submission may
    /// succeed in a moment.
    #[error("{}", unavailable_message(*busy))]
    Unavailable { detail: String, busy: bool },
    /// The database's disk is full: nothing was written, and nothing will be
    /// until an operator frees space.
    #[error("{DISK_FULL_MESSAGE}")]
    DiskFull(String),
    /// Something the submitter cannot change went wrong (logged, not shown).
    #[error("internal error")]
    Internal(String),
}

/// What a client is told when the database cannot take work now: busy
/// (every connection in use) or unavailable.
pub fn unavailable_message(busy: bool) -> &'static str {
    if busy {
        "the database is busy (every connection is in use); retry shortly"
    } else {
        "the database is unavailable; retry shortly"
    }
}

/// What a client is told when the database's disk is full.
pub const DISK_FULL_MESSAGE: &str =
    "the database's disk is full: nothing was written; the server takes work again once space is freed";

impl SubmitError {
    /// True when the same submission may succeed if made again later: the
    /// database was unreachable or busy, or its disk full (once space is
    /// freed). Everything else gives the same answer however often it is asked.
    pub fn retryable(&self) -> bool {
        matches!(self, SubmitError::Unavailable { .. } | SubmitError::DiskFull(_))
    }

    /// Maps a store error of a submission naming `what` (`"session 01…"`):
    /// "not found" names it, and the one conflict a submission's write can
    /// meet is an idempotency key reused with another request.
    pub fn naming(what: impl Into<String>) -> impl FnOnce(StoreError) -> SubmitError {
        move |e| match e {
            StoreError::NotFound(_) => SubmitError::NotFound(what.into()),
            StoreError::Conflict(message) => SubmitError::Refused(message),
            other => other.into(),
        }
    }
}

impl From<StoreError> for SubmitError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => SubmitError::NotFound(what.to_string()),
            StoreError::Conflict(message) | StoreError::Busy(message) => SubmitError::Conflict(message),
            StoreError::DiskFull(_) => SubmitError::DiskFull(e.to_string()),
            StoreError::Overloaded(_) => SubmitError::Unavailable { detail: e.to_string(), busy: true },
            StoreError::Unavailable(_) => SubmitError::Unavailable { detail: e.to_string(), busy: false },
            other => SubmitError::Internal(other.to_string()),
        }
    }
}

/// Shorthand for submission results.
pub type SubmitResult<T> = Result<T, SubmitError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_database_that_cannot_answer_now_is_worth_a_retry() {
        let retryable = |e: StoreError| SubmitError::from(e).retryable();
        assert!(retryable(StoreError::unavailable("connection refused")));
        assert!(retryable(StoreError::Overloaded("pool timed out".into())));
        assert!(!retryable(StoreError::NotFound("session")));
        assert!(!retryable(StoreError::Busy("the session has an unfinished run".into())));
        assert!(retryable(StoreError::DiskFull("database or disk is full".into())));
        assert!(!retryable(StoreError::internal("a row that does not decode")));
        let gone = SubmitError::naming("session 01X")(StoreError::NotFound("session"));
        assert_eq!(gone.to_string(), "session 01X not found");
        let reused = SubmitError::naming("fleet 01F")(StoreError::Conflict("key reused".into()));
        assert!(matches!(reused, SubmitError::Refused(_)));
    }
}
