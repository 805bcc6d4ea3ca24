//! Why a rule refuses what it was asked: the answer is the same however
//! often it is asked, and the refused call writes nothing.

use crate::domain::model::RunStatus;

/// A request the rules of a run refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The request conflicts with the stored state.
    #[error("{0}")]
    Conflict(String),
    /// The session's state refuses the request as it stands, whatever key
    /// it came with (a 409): it has an unfinished run and the submission
    /// asked not to queue behind it (`multitask_strategy: reject`), or a
    /// rewind's point is not in its history ([`crate::domain::branch`]).
    #[error("{0}")]
    Busy(String),
    /// A commit that would end or park a run: the run's inbox holds
    /// something it has not taken in (a message steered while its last step
    /// ran), which must reach it first.
    #[error("the run has messages it has not taken in")]
    InboxWaiting,
}

impl Refusal {
    /// A request for something that has already ended (`what` names it,
    /// e.g. `run 01J…`).
    pub fn ended(what: &str, status: &str) -> Refusal {
        Refusal::Conflict(format!("{what} is already {status}"))
    }

    /// A request for a run that has already ended.
    pub fn run_ended(run_id: &str, status: RunStatus) -> Refusal {
        Refusal::ended(&format!("run {run_id}"), status.as_str())
    }
}
