//! A retry of a run from a step (`POST /runs/{id}/retry`): a new run of the
//! same message in the same session, with the agent as it is now, that
//! starts from copies of the original's checkpoints ([`crate::domain::retry`]).

use crate::domain::branch::RewindTo;
use crate::domain::lifecycle::FromPast;
use crate::domain::model::{MultitaskStrategy, Owned, RetryOf, RunInput, RunKind};
use crate::domain::retry::{self, RetryRefusal};
use crate::store::Enqueued;

use super::{Door, Envelope, SubmitError, SubmitResult};

/// A retry of run `run_id`, from `from_step` (by default its first step
/// that is not whole).
#[derive(Debug, Clone, Default)]
pub struct RetrySubmission {
    pub run_id: String,
    pub from_step: Option<u32>,
}

impl Door {
    /// Enqueues a retry: the original's messages, when they are the last of
    /// its session's history, are set aside as a branch (so that they are
    /// not there twice), and the new run is written with the copied
    /// checkpoints and its `step_reused` events, in one transaction.
    pub async fn retry(&self, envelope: &Envelope, submission: RetrySubmission) -> SubmitResult<Enqueued> {
        let run_id = submission.run_id;
        let not_found = || SubmitError::NotFound(format!("run {run_id}"));
        let sees = |run: &crate::domain::model::Run| {
            envelope.caller.as_ref().is_none_or(|caller| caller.sees(run.owner(), run.shared()))
        };
        let original = self.store.get_run(&run_id).await?.filter(sees).ok_or_else(not_found)?;
        let session_id = original.session_id.clone().ok_or_else(not_found)?;
        let (session, agent_id, agent) =
            self.session_agent(&session_id, Some(&original.agent_id), envelope.caller.as_ref()).await?;
        let checkpoints = self.store.run_checkpoints(&run_id).await?;
        let reused = retry::plan(&original, &checkpoints, &agent, submission.from_step).map_err(|e| match e {
            RetryRefusal::Conflict(message) => SubmitError::Conflict(message),
            RetryRefusal::BadStep(message) => SubmitError::Refused(message),
        })?;
        let from_step = reused.from_step.to_string();
        let key = envelope.key(&format!("retry:{run_id}"), &[agent_id.as_str(), from_step.as_str()]);
        let input = RunInput {
            retry_of: Some(RetryOf { run_id: run_id.clone(), from_step: reused.from_step }),
            carried: super::message::in_session(envelope, &session, &agent),
            ..original.input.clone()
        };
        self.check_queue_room(&session.owner, 1).await?;
        let mut run = self.session_run(RunKind::Message, &session, agent, input, MultitaskStrategy::Enqueue);
        run.from_past = Some(FromPast { rewind: Some(RewindTo::Retrying(run_id.clone())), reused: Some(reused) });
        let enqueued =
            self.store.enqueue_run(run, key).await.map_err(SubmitError::naming(format!("session {session_id}")))?;
        self.written();
        Ok(enqueued)
    }
}
