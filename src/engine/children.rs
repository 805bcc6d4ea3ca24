//! Sub-agent calls as steps of the loop: a step's calls of sub-agents start
//! their runs in the fenced commit that parks the parent, so a crash before
//! it starts nothing and one after it finds them started (see
//! [`crate::domain::subagent`]).

use std::collections::HashMap;
use std::path::Path;

use chrono::Utc;
use serde_json::json;

use super::{Execution, RunExit};
use crate::domain::checkpoint::{Checkpoint, CheckpointBody};
use crate::domain::event::RunEvent;
use crate::domain::guard::Spent;
use crate::domain::model::{new_id, Agent, RunInput, Session, ToolCall};
use crate::domain::subagent::{self, Parent, Start};
use crate::store::{Commit, NewChild, StoreError};

impl Execution {
    /// Starts the sub-agents' runs that the calls of `step` ask for and
    /// parks the run until they end; calls that cannot start one (a
    /// nesting too deep, a bad input, an agent deleted) are answered at once
    /// with an error.
    pub(super) async fn start_children(
        &mut self,
        step: u32,
        calls: Vec<ToolCall>,
    ) -> Result<Option<RunExit>, StoreError> {
        let agents = self.subagents_of(&calls).await?;
        let parent = Parent {
            run_id: &self.lease.run_id,
            agent: &self.ctx.agent,
            input: &self.ctx.run.input,
            spent: Spent::of(&self.ctx.checkpoints),
        };
        let starts = subagent::plan(parent, step, &calls, |id| agents.contains_key(id));
        let mut commit = Commit::default();
        for start in starts {
            match start {
                Start::Child { call, agent_id, input } => {
                    let child = self.child(&call, &agents[&agent_id], *input);
                    commit.checkpoints.push(Checkpoint {
                        step,
                        body: CheckpointBody::Child {
                            call_id: call.id.clone(),
                            run_id: child.run_id.clone(),
                            agent_id: agent_id.clone(),
                        },
                    });
                    commit.events.push(RunEvent::SubagentStarted {
                        step,
                        call_id: call.id,
                        child_run_id: child.run_id.clone(),
                        agent_id,
                    });
                    commit.children.push(child);
                }
                Start::Refused { call, output } => {
                    let cp = Checkpoint {
                        step,
                        body: CheckpointBody::ToolResult { call_id: call.id, name: call.name, output, is_error: true },
                    };
                    commit.events.extend(RunEvent::tool_result(&cp));
                    commit.checkpoints.push(cp);
                }
            }
        }
        if commit.children.is_empty() {
            self.write(commit).await?;
            return Ok(None);
        }
        tracing::info!(step, children = commit.children.len(), "the run starts sub-agents and waits for them");
        commit.awaits_children = true;
        self.park(commit).await
    }

    /// Parks the run again for children it started earlier that have not
    /// ended (an attempt that finds them open); if they all ended meanwhile
    /// the store queues it again at once.
    pub(super) async fn await_children(&mut self) -> Result<Option<RunExit>, StoreError> {
        self.park(Commit { awaits_children: true, ..Default::default() }).await
    }

    /// The agents the calls' sub-agents name that still exist, by ID.
    async fn subagents_of(&self, calls: &[ToolCall]) -> Result<HashMap<String, Agent>, StoreError> {
        let mut agents = HashMap::new();
        for call in calls {
            let Some(sub) = subagent::subagent_of(&self.ctx.agent, &call.name) else { continue };
            if agents.contains_key(&sub.agent_id) {
                continue;
            }
            if let Some(agent) = self.store.get_agent(&sub.agent_id).await? {
                agents.insert(sub.agent_id.clone(), agent);
            }
        }
        Ok(agents)
    }

    /// A child run for `call`, in a session of its own whose `work_dir` is
    /// a directory of the parent's.
    fn child(&self, call: &ToolCall, agent: &Agent, input: RunInput) -> NewChild {
        let run_id = new_id();
        let now = Utc::now();
        let work_dir = Path::new(&self.ctx.work_dir).join("subagents").join(&run_id);
        let session = Session {
            id: new_id(),
            owner: input.carried.owner.clone(),
            agent_id: Some(agent.id.clone()),
            title: Some(format!("{} for run {}", call.name, self.lease.run_id)),
            work_dir: work_dir.to_string_lossy().into_owned(),
            metadata: json!({"parent_run_id": self.lease.run_id, "parent_call_id": call.id}),
            added_tools: Default::default(),
            forked_from: None,
            created_at: now,
            updated_at: now,
        };
        NewChild { run_id, session, agent: agent.clone(), input }
    }
}
