//! A worker's commit: what it writes besides its own checkpoints and
//! events, and when it is refused.

use crate::domain::checkpoint::{summarize, Checkpoint};
use crate::domain::event::RunEvent;
use crate::domain::model::{Carried, RunInput};

use super::{Commit, Ending, Refusal, Stored};

/// What a fenced write changes besides the rows it adds, for a backend to
/// record with the fence: how many events it numbers, and the resume facts a
/// later attempt reads (the open step, and whether this attempt made
/// progress, which decides whether losing it is charged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    pub events: u64,
    /// The write checkpoints something: the attempt made progress.
    pub progressed: bool,
    /// The open step's change, as [`RunEvent::open_step_change`] says.
    pub open_step: Option<Option<u32>>,
}

impl Effect {
    /// The effect of writing `checkpoints` with `events`.
    pub fn of(checkpoints: &[Checkpoint], events: &[RunEvent]) -> Effect {
        Effect {
            events: events.len() as u64,
            progressed: !checkpoints.is_empty(),
            open_step: events.iter().rev().find_map(RunEvent::open_step_change),
        }
    }

    /// A write of `events` events that changes no resume fact.
    pub fn events(events: u64) -> Effect {
        Effect { events, progressed: false, open_step: None }
    }
}

/// A commit as it is written: its events complete (the `done` of a run it
/// ends included), the run's end, and what the fence records.
#[derive(Debug, Clone)]
pub struct Completion {
    pub events: Vec<RunEvent>,
    pub ending: Option<Ending>,
    pub effect: Effect,
}

impl Completion {
    /// Whether the commit writes its checkpoints: not when it ends its run
    /// with an end that drops them ([`Ending::keeps_checkpoints`]).
    pub fn writes_checkpoints(&self) -> bool {
        self.ending.as_ref().is_none_or(Ending::keeps_checkpoints)
    }
}

impl Commit {
    /// Whether the commit ends or parks its run: such a commit must take in
    /// everything its run's inbox holds first.
    pub fn stops(&self) -> bool {
        self.finish.is_some() || self.wait
    }

    /// Whether completing the commit needs what the store holds of the run
    /// ([`Stored`]): it ends the run without a summary of its own.
    pub fn needs_stored(&self) -> bool {
        self.finish.as_ref().is_some_and(|finish| finish.summary.is_none())
    }
}

/// The newest item of a run's inbox (`inbox`, the numbers of its items)
/// that a commit taking in `delivered` leaves there: the worker hears of it
/// and takes it at its next step boundary.
pub fn inbox_newest(delivered: &[u64], inbox: &[u64]) -> Option<u64> {
    inbox.iter().copied().filter(|seq| !delivered.contains(seq)).max()
}

/// Admits a commit whose run's inbox holds `inbox`, answering the newest
/// item it leaves there. Refused, writing nothing: a commit that would end
/// or park its run with an item it has not taken in, and one that ends its
/// run and starts sub-agents (whose ends would be written into a run that
/// has ended; a run that starts children parks to wait for them).
pub fn admit(commit: &Commit, inbox: &[u64]) -> Result<Option<u64>, Refusal> {
    if commit.finish.is_some() && !commit.children.is_empty() {
        return Err(Refusal::Conflict("a commit that ends its run cannot start sub-agents".into()));
    }
    let newest = inbox_newest(&commit.delivered, inbox);
    if commit.stops() && newest.is_some() {
        return Err(Refusal::InboxWaiting);
    }
    Ok(newest)
}

/// Completes a commit: a run it ends gets its end and `done`, its summary
/// the worker's own or, where the worker gave none, made from what the store
/// holds of the run (`stored`, read when [`Commit::needs_stored`] says so)
/// and the commit's own checkpoints.
pub fn complete(commit: &Commit, stored: Option<Stored>) -> Completion {
    let mut events = commit.events.clone();
    let ending = commit.finish.as_ref().map(|finish| {
        let summary = match (&finish.summary, stored) {
            (Some(summary), _) => summary.clone(),
            (None, Some(Stored { input, mut checkpoints })) => {
                checkpoints.extend(commit.checkpoints.iter().cloned());
                summarize(&input, &checkpoints, finish.status)
            }
            (None, None) => summarize(&RunInput::new("", Carried::default()), &commit.checkpoints, finish.status),
        };
        Ending::new(finish.status, finish.error.clone(), summary)
    });
    if let Some(ending) = &ending {
        events.push(ending.done.clone());
    }
    let effect = Effect::of(&commit.checkpoints, &events);
    Completion { events, ending, effect }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lifecycle::Finish;
    use crate::domain::model::RunStatus;

    #[test]
    fn a_stopping_commit_takes_in_its_inbox_first() {
        let step = Commit { delivered: vec![1], ..Default::default() };
        assert_eq!(admit(&step, &[1, 2]), Ok(Some(2)));
        assert_eq!(admit(&step, &[1]), Ok(None));
        let wait = Commit { wait: true, delivered: vec![1], ..Default::default() };
        assert_eq!(admit(&wait, &[1, 3]), Err(Refusal::InboxWaiting));
        assert_eq!(admit(&wait, &[1]), Ok(None));
    }

    #[test]
    fn an_end_adds_done_last() {
        let finish = Finish { status: RunStatus::Failed, error: Some("x\0y".into()), summary: None };
        let commit = Commit { finish: Some(finish), ..Default::default() };
        assert!(commit.needs_stored() && commit.stops());
        let done = complete(&commit, None);
        assert_eq!(done.events.last().map(RunEvent::kind), Some("done"));
        assert_eq!(done.ending.unwrap().error.as_deref(), Some("x\u{fffd}y"), "text a database refuses is replaced");
        assert_eq!(done.effect, Effect { events: 1, progressed: false, open_step: None });
    }
}
