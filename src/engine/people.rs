//! People's inputs as steps of the loop: what arrived in the run's inbox is
//! taken in at a step boundary, and calls that need a decision park the run.
//! Both are ordinary fenced writes: a crash before one leaves the inbox and
//! the checkpoints as they were, and the next attempt does the same again.

use super::{commit_retrying, Execution, RunExit};
use crate::domain::access::By;
use crate::domain::checkpoint;
use crate::domain::event::RunEvent;
use crate::domain::lifecycle::EndReason;
use crate::domain::model::ToolCall;
use crate::store::{Commit, Finish, InboxKind, StoreError};

impl Execution {
    /// Takes in what people sent, if anything: steering messages become
    /// checkpoints after the current step (its calls not yet run are closed
    /// as skipped), and an interrupt ends the run as `interrupted`, in one
    /// write that also removes them from the inbox.
    pub(super) async fn take_inbox(&mut self) -> Result<Option<RunExit>, StoreError> {
        if self.inbox_unread {
            self.inbox = self.store.read_inbox(&self.lease.run_id).await?;
            self.inbox_unread = false;
        }
        if self.inbox.is_empty() {
            return Ok(None);
        }
        let items = std::mem::take(&mut self.inbox);
        self.inbox_seen = self.inbox_seen.max(items.iter().map(|i| i.seq).max().unwrap_or(0));
        let steers: Vec<Steering> = items
            .iter()
            .filter_map(|i| match &i.kind {
                InboxKind::Steer(message) => Some((i.seq, message.clone(), i.by.clone())),
                InboxKind::Interrupt => None,
            })
            .collect();
        let interrupted = items.iter().any(|i| i.kind == InboxKind::Interrupt);
        let mut commit = Commit { delivered: items.iter().map(|i| i.seq).collect(), ..Default::default() };
        if !steers.is_empty() {
            let messages: Vec<(u64, String)> = steers.iter().map(|(seq, message, _)| (*seq, message.clone())).collect();
            let (checkpoints, skipped) = checkpoint::steer(&self.ctx.checkpoints, &messages);
            commit.events = steered_events(&checkpoints, &steers, &skipped);
            commit.checkpoints = checkpoints;
        }
        if interrupted {
            commit.finish = Some(Finish::because(&EndReason::Interrupted));
        }
        let ended = self.write(commit).await?;
        Ok(ended.then_some(RunExit::Finished))
    }

    /// Parks the run until someone answers what `request` asks for (a
    /// person's decision, or a client's tool results): the event is written
    /// and the run leaves this worker.
    pub(super) async fn wait_for(&mut self, request: RunEvent) -> Result<Option<RunExit>, StoreError> {
        let kind = request.kind();
        let parked = self.park(Commit { events: vec![request], ..Default::default() }).await?;
        if parked.is_some() {
            tracing::info!(event = kind, "the run waits for an answer");
        }
        Ok(parked)
    }

    /// Writes `commit` with the pending events as a wait: the run leaves
    /// this worker, `waiting` (for a person, its client or its sub-agents).
    /// If something reached the inbox first, nothing is written, not even
    /// what `commit` would have started, and the loop takes the inbox in.
    pub(super) async fn park(&mut self, mut commit: Commit) -> Result<Option<RunExit>, StoreError> {
        let mut events = std::mem::take(&mut self.pending);
        let announced = events.len();
        events.append(&mut commit.events);
        commit.events = events;
        commit.wait = true;
        match commit_retrying(self.store.as_ref(), &self.lease, &commit).await {
            Ok(_) => {
                self.ctx.checkpoints.extend(commit.checkpoints);
                Ok(Some(RunExit::Waiting))
            }
            Err(StoreError::InboxWaiting) => {
                // Only what was announced before stays pending: the wait did not happen.
                let mut events = commit.events;
                events.truncate(announced);
                self.pending = events;
                self.inbox_unread = true;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// A steering message from the inbox: its number, its text and who sent it.
type Steering = (u64, String, Option<By>);

/// The events of a delivery: the skipped calls' results, then one `steered`
/// per message (the first lists the calls it skipped), each naming its sender.
fn steered_events(checkpoints: &[checkpoint::Checkpoint], steers: &[Steering], skipped: &[ToolCall]) -> Vec<RunEvent> {
    let mut events: Vec<RunEvent> = checkpoints.iter().filter_map(RunEvent::tool_result).collect();
    for (i, (_, message, by)) in steers.iter().enumerate() {
        let skipped = if i == 0 { skipped.iter().map(|c| c.id.clone()).collect() } else { Vec::new() };
        events.push(RunEvent::Steered { message: message.clone(), skipped, by: by.clone() });
    }
    events
}
