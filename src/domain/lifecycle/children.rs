//! Sub-agents' runs in a run's life (see [`crate::domain::subagent`]): they start
//! with the commit that parks their parent, a child's end is written into
//! its parent in the transaction that ends the child, and a parent's end
//! cancels the children it leaves.

use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::event::RunEvent;
use crate::domain::guard::Spent;
use crate::domain::model::{Agent, RunInput, RunKind, RunStatus, Session};
use crate::domain::subagent::{self, ParentCall};

use super::NewRun;

/// A sub-agent's run, written by its parent's commit: a session of its
/// own, and a queued run whose input names the call it answers.
#[derive(Debug, Clone)]
pub struct NewChild {
    pub run_id: String,
    pub session: Session,
    /// The sub-agent's agent, as it is when the call starts it.
    pub agent: Agent,
    /// With `parent` set: the call it answers.
    pub input: RunInput,
}

impl NewChild {
    /// The child as a run to enqueue, with its parent's `max_attempts`.
    pub fn run(&self, max_attempts: u32) -> NewRun {
        NewRun {
            id: self.run_id.clone(),
            kind: RunKind::Subagent,
            session_id: Some(self.session.id.clone()),
            agent: self.agent.clone(),
            input: self.input.clone(),
            work_dir: self.session.work_dir.clone(),
            max_attempts,
            strategy: Default::default(),
            from_past: None,
        }
    }

    /// The call it answers.
    pub fn call_id(&self) -> &str {
        self.input.parent.as_ref().map_or("", |p| p.call_id.as_str())
    }
}

/// The status a run parked by a commit takes: `waiting`, unless it parked
/// for its sub-agents (`awaits_children`) and none is still open (they all
/// ended while it ran): then it is queued again at once, since no child's
/// end is left to wake it.
pub fn parks_as(awaits_children: bool, children_open: u32) -> Parked {
    if awaits_children && children_open == 0 {
        Parked { status: RunStatus::Queued, queued_again: true }
    } else {
        Parked { status: RunStatus::Waiting, queued_again: false }
    }
}

/// The status a parked run, or a parent a child's end wrote into, takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parked {
    pub status: RunStatus,
    /// It is queued again: workers should hear of it.
    pub queued_again: bool,
}

/// A sub-agent's run that ended, as its parent takes it in.
#[derive(Debug, Clone, Copy)]
pub struct ChildEnd<'a> {
    pub parent: &'a ParentCall,
    pub run_id: &'a str,
    pub status: RunStatus,
    pub response: Option<&'a str>,
    pub error: Option<&'a str>,
    /// What the child spent, its own children included.
    pub spent: Spent,
}

/// What the backend read of the parent's row, locked, as the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParentRow {
    pub status: RunStatus,
    pub children_open: u32,
}

/// What a child's end writes into its parent.
#[derive(Debug, Clone, PartialEq)]
pub struct Wake {
    /// The call's `tool_result` and the child's spending.
    pub checkpoints: Vec<Checkpoint>,
    /// `tool_result` and `subagent_finished`.
    pub events: Vec<RunEvent>,
    /// The parent's status from now on: queued again when the child was
    /// the last one open of a waiting parent. One fewer is open either way.
    pub parent: Parked,
}

/// What a child's end writes into its parent, whose row says `parent`:
/// the call's result and the child's spending, and, when it was the last
/// child open of a waiting parent, the parent queued again. A parent that
/// has ended (its end cancels its children) takes in nothing.
pub fn child_ended(parent: ParentRow, end: &ChildEnd) -> Option<Wake> {
    if parent.status.is_terminal() {
        return None;
    }
    let call = end.parent;
    let (output, is_error) = subagent::result_of(end.run_id, end.status, end.response, end.error);
    let result = Checkpoint {
        step: call.step,
        body: CheckpointBody::ToolResult { call_id: call.call_id.clone(), name: call.tool.clone(), output, is_error },
    };
    let spent = Checkpoint {
        step: call.step,
        body: CheckpointBody::ChildEnded {
            call_id: call.call_id.clone(),
            run_id: end.run_id.to_string(),
            status: end.status,
            spent_usd: end.spent.usd,
            spent_tokens: end.spent.tokens,
        },
    };
    let mut events: Vec<RunEvent> = RunEvent::tool_result(&result).into_iter().collect();
    events.push(RunEvent::SubagentFinished {
        step: call.step,
        call_id: call.call_id.clone(),
        child_run_id: end.run_id.to_string(),
        status: end.status,
    });
    let queued_again = parent.status == RunStatus::Waiting && parent.children_open <= 1;
    let status = if queued_again { RunStatus::Queued } else { parent.status };
    Some(Wake { checkpoints: vec![result, spent], events, parent: Parked { status, queued_again } })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ParentCall {
        ParentCall {
            run_id: "P".into(),
            call_id: "c1".into(),
            step: 2,
            tool: "agent__writer".into(),
            depth: 1,
            max_depth: 3,
        }
    }

    fn end(call: &ParentCall, status: RunStatus) -> ChildEnd<'_> {
        ChildEnd {
            parent: call,
            run_id: "C",
            status,
            response: Some("done it"),
            error: Some("boom"),
            spent: Spent { usd: 0.5, tokens: 40 },
        }
    }

    #[test]
    fn the_last_child_queues_its_waiting_parent() {
        let call = call();
        let waiting = |open| ParentRow { status: RunStatus::Waiting, children_open: open };
        let wake = child_ended(waiting(1), &end(&call, RunStatus::Succeeded)).unwrap();
        assert_eq!(wake.parent, Parked { status: RunStatus::Queued, queued_again: true });
        assert_eq!(
            wake.checkpoints[0].body,
            CheckpointBody::ToolResult {
                call_id: "c1".into(),
                name: "agent__writer".into(),
                output: "done it".into(),
                is_error: false
            }
        );
        assert_eq!(wake.checkpoints[0].step, 2);
        assert_eq!(wake.events.iter().map(RunEvent::kind).collect::<Vec<_>>(), ["tool_result", "subagent_finished"]);
        let sibling_open = child_ended(waiting(2), &end(&call, RunStatus::Succeeded)).unwrap();
        assert_eq!(sibling_open.parent, Parked { status: RunStatus::Waiting, queued_again: false });
    }

    #[test]
    fn a_failed_child_is_an_error_result_and_an_ended_parent_takes_nothing() {
        let call = call();
        let waiting = ParentRow { status: RunStatus::Waiting, children_open: 1 };
        let wake = child_ended(waiting, &end(&call, RunStatus::Cancelled)).unwrap();
        let CheckpointBody::ToolResult { output, is_error, .. } = &wake.checkpoints[0].body else { panic!() };
        assert!(*is_error && output.contains("ended cancelled: boom"), "{output}");
        let ended = ParentRow { status: RunStatus::Cancelled, children_open: 1 };
        assert_eq!(child_ended(ended, &end(&call, RunStatus::Cancelled)), None);
    }

    #[test]
    fn a_run_parked_for_children_that_all_ended_is_queued_again() {
        assert_eq!(parks_as(true, 0), Parked { status: RunStatus::Queued, queued_again: true });
        assert_eq!(parks_as(true, 2).status, RunStatus::Waiting);
        assert_eq!(parks_as(false, 0).status, RunStatus::Waiting, "a person's wait is woken by the person");
    }
}
