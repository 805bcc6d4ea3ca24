//! A formation run as a small durable state machine over its nodes.
//!
//! The run keeps a row per node that has started. A node starts when every
//! node that feeds it has succeeded: an agent node as a run, a fleet node as
//! a fleet run, a function node computed on the spot. The rules here decide
//! what starts when the run is submitted ([`begin`]) and when a node's work
//! ends ([`node_ended`]); a backend writes what they return in the same
//! transaction, under the formation run's row lock, and a node's row is
//! keyed by its ID, so however many servers, workers and crashes there are,
//! each node starts once.

use std::collections::BTreeMap;

use chrono::Utc;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::functions::as_text;
use super::{entries, exits, inputs_of, Formation, NodeKind};
use crate::domain::event::RunEvent;
use crate::domain::fleet::MAX_TASKS;
use crate::domain::lifecycle::{NewFleetRun, NewRun, NewTask, Refusal};
pub use crate::domain::model::NodeRef;
use crate::domain::model::{
    Agent, Carried, Fleet, FleetProgress, FleetRunStatus, RunInput, RunKind, RunStatus, Session,
};
use crate::domain::webhook::NewDelivery;

/// A formation run's status: `running` from its submission (its entry
/// nodes start with it), then `succeeded`, `failed` or `cancelled`.
pub type FormationRunStatus = FleetRunStatus;

/// What a formation run holds from its submission: the graph, and the
/// agents and fleets its nodes run, as they were then.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub formation: Formation,
    pub agents: BTreeMap<String, Agent>,
    pub fleets: BTreeMap<String, FleetSnapshot>,
    /// The directory under which its nodes' sessions work.
    pub work_dir: String,
    pub max_attempts: u32,
    /// Where its end is announced ([`crate::domain::webhook`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<String>,
    /// What every run its nodes make carries: the submission's.
    #[serde(flatten)]
    pub carried: Carried,
}

/// A fleet as a formation run holds it, with its agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FleetSnapshot {
    pub fleet: Fleet,
    pub agent: Agent,
}

/// A node's state in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeStatus {
    /// Not started: some input is not there yet.
    Pending,
    Running,
    /// Running, and its run (or a task of its fleet run) waits for a person
    /// or for its client's tool results. Shown, never stored: the stored
    /// row says `running`, and answers look at the node's work.
    Waiting,
    Succeeded,
    Failed,
    Cancelled,
}

impl NodeStatus {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Pending => "pending",
            NodeStatus::Running => "running",
            NodeStatus::Waiting => "waiting",
            NodeStatus::Succeeded => "succeeded",
            NodeStatus::Failed => "failed",
            NodeStatus::Cancelled => "cancelled",
        }
    }

    /// Parses a stored status (never `waiting`).
    pub fn parse(s: &str) -> Option<NodeStatus> {
        [NodeStatus::Pending, NodeStatus::Running, NodeStatus::Succeeded, NodeStatus::Failed, NodeStatus::Cancelled]
            .into_iter()
            .find(|n| n.as_str() == s)
    }
}

/// A node of a run, as stored (a row per started node) and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct NodeRow {
    pub node: String,
    /// `agent`, `fleet` or `function`.
    pub kind: String,
    pub status: NodeStatus,
    /// An agent node's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// A fleet node's fleet run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet_run_id: Option<String>,
    /// What it was given.
    pub input: Value,
    /// What it gave, once it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A formation run to write: its snapshot and input (its entry nodes start
/// with it, as [`begin`] says).
#[derive(Debug, Clone)]
pub struct NewFormationRun {
    pub id: String,
    pub snapshot: Snapshot,
    pub input: Value,
}

/// A formation run as answers show it: its status, every node's state (a
/// node that has not started is `pending`), the graph's edges, its outputs.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FormationRun {
    pub id: String,
    pub formation_id: String,
    /// The formation's name when the run was submitted.
    pub name: String,
    pub status: FormationRunStatus,
    pub input: Value,
    /// The outputs of the exit nodes, by node, once the run has ended.
    pub outputs: Option<Value>,
    pub error: Option<String>,
    /// True once `POST /formation-runs/{id}/cancel` was accepted.
    pub cancel_requested: bool,
    /// Every node of the graph, in its order.
    pub nodes: Vec<NodeRow>,
    pub edges: Vec<super::Edge>,
    /// The owner whose key submitted it, and of its nodes' runs.
    pub owner: String,
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: chrono::DateTime<Utc>,
    #[serde(with = "crate::domain::model::timestamp::option")]
    pub finished_at: Option<chrono::DateTime<Utc>>,
    #[serde(with = "crate::domain::model::timestamp")]
    pub updated_at: chrono::DateTime<Utc>,
}

/// Every node of `snapshot`'s graph with its state: its row, or `pending`.
pub fn all_nodes(snapshot: &Snapshot, rows: &[NodeRow]) -> Vec<NodeRow> {
    let graph = &snapshot.formation.nodes;
    graph
        .iter()
        .map(|node| match rows.iter().find(|r| r.node == node.id) {
            Some(row) => row.clone(),
            None => NodeRow {
                node: node.id.clone(),
                kind: node.kind_name().into(),
                status: NodeStatus::Pending,
                run_id: None,
                fleet_run_id: None,
                input: Value::Null,
                output: None,
                error: None,
            },
        })
        .collect()
}

/// What a formation run is when a rule reads it, under its row lock.
#[derive(Debug, Clone)]
pub struct State<'a> {
    pub id: &'a str,
    pub snapshot: &'a Snapshot,
    pub input: &'a Value,
    pub status: FormationRunStatus,
    pub cancel_requested: bool,
    /// The rows of the nodes that have started.
    pub nodes: Vec<NodeRow>,
}

/// How a node's work ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Succeeded(Value),
    Failed(String),
    Cancelled(String),
}

/// Work a formation run has running, to end when it fails or is cancelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    Run(String),
    FleetRun(String),
}

/// An agent node's run: its session and the run.
#[derive(Debug, Clone)]
pub struct NodeRun {
    pub session: Session,
    pub run: NewRun,
}

/// How a formation run ends.
#[derive(Debug, Clone, PartialEq)]
pub struct FormationEnd {
    pub status: FormationRunStatus,
    /// The outputs of its exit nodes, by node (an object).
    pub outputs: Value,
    pub error: Option<String>,
    /// Its announcement, for a run with a webhook, written with it.
    pub delivery: Option<NewDelivery>,
}

/// What a rule decided: node rows to write (new or changed), work to
/// start, events for the formation run's log, its end, work to stop.
#[derive(Debug, Clone, Default)]
pub struct Advance {
    pub nodes: Vec<NodeRow>,
    pub runs: Vec<NodeRun>,
    pub fleet_runs: Vec<NewFleetRun>,
    pub events: Vec<RunEvent>,
    pub end: Option<FormationEnd>,
    pub cancel: Vec<Work>,
}

impl Advance {
    /// The node rows to write that link a fleet run to its node: (fleet run ID, node).
    pub fn fleet_nodes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.nodes.iter().filter_map(|n| Some((n.fleet_run_id.as_deref()?, n.node.as_str())))
    }
}

/// The events and node starts of a run just submitted: its entry nodes
/// start, and any function node they make ready.
pub fn begin(state: &State, ids: &mut dyn FnMut() -> String) -> Advance {
    let mut run = Machine { state: state.clone(), advance: Advance::default() };
    run.advance.events.push(RunEvent::FormationQueued {
        formation_id: state.snapshot.formation.id.clone(),
        nodes: state.snapshot.formation.nodes.len(),
        entries: entries(&state.snapshot.formation.nodes, &state.snapshot.formation.edges),
    });
    run.settle(ids);
    run.advance
}

/// What the end of `node`'s work does: its row and `node_finished`, then
/// the nodes it makes ready, or the run's end. A run that has ended takes
/// in the row alone (its `done` stays its last event).
pub fn node_ended(state: &State, node: &str, outcome: Outcome, ids: &mut dyn FnMut() -> String) -> Advance {
    let mut run = Machine { state: state.clone(), advance: Advance::default() };
    let Some(row) = run.state.nodes.iter().find(|r| r.node == node).cloned() else { return run.advance };
    if row.status != NodeStatus::Running {
        return run.advance;
    }
    let mut row = row;
    match outcome {
        Outcome::Succeeded(output) => (row.status, row.output) = (NodeStatus::Succeeded, Some(output)),
        Outcome::Failed(error) => (row.status, row.error) = (NodeStatus::Failed, Some(error)),
        Outcome::Cancelled(error) => (row.status, row.error) = (NodeStatus::Cancelled, Some(error)),
    }
    let ended = state.status.is_terminal();
    run.record(row, !ended);
    if !ended {
        run.settle(ids);
    }
    run.advance
}

/// Cancels a run that has not ended: its running work is stopped (each
/// end comes back through [`node_ended`]), nothing new starts, and the run
/// ends `cancelled` once nothing runs.
pub fn cancel(state: &State) -> Result<Advance, Refusal> {
    if state.status.is_terminal() {
        return Err(Refusal::ended(&format!("formation run {}", state.id), state.status.as_str()));
    }
    let mut advance = Advance { cancel: running_work(&state.nodes), ..Default::default() };
    if advance.cancel.is_empty() {
        advance.end = Some(end(state, FormationRunStatus::Cancelled, Some("cancelled".into())));
        advance.events.push(done(advance.end.as_ref().expect("just set")));
    }
    Ok(advance)
}

fn running_work(nodes: &[NodeRow]) -> Vec<Work> {
    let running = nodes.iter().filter(|n| n.status == NodeStatus::Running);
    running
        .filter_map(|n| match (&n.run_id, &n.fleet_run_id) {
            (Some(run), _) => Some(Work::Run(run.clone())),
            (_, Some(fleet_run)) => Some(Work::FleetRun(fleet_run.clone())),
            _ => None,
        })
        .collect()
}

fn end(state: &State, status: FormationRunStatus, error: Option<String>) -> FormationEnd {
    let formation = &state.snapshot.formation;
    let mut outputs = Map::new();
    for exit in exits(&formation.nodes, &formation.edges) {
        if let Some(output) = state.nodes.iter().find(|n| n.node == exit).and_then(|n| n.output.clone()) {
            outputs.insert(exit, output);
        }
    }
    let outputs = Value::Object(outputs);
    let delivery =
        state.snapshot.webhook.as_deref().map(|url| {
            crate::domain::webhook::formation_run_finished(state.id, url, status, &outputs, error.as_deref())
        });
    FormationEnd { status, outputs, error, delivery }
}

fn done(end: &FormationEnd) -> RunEvent {
    RunEvent::FormationDone { status: end.status, outputs: end.outputs.clone(), error: end.error.clone() }
}

/// A rule at work: the state as it changes, and what it decided so far.
struct Machine<'a> {
    state: State<'a>,
    advance: Advance,
}

impl Machine<'_> {
    /// Takes a node's changed row in, with `node_finished` unless the run
    /// has ended.
    fn record(&mut self, row: NodeRow, announce: bool) {
        if announce && row.status != NodeStatus::Running {
            self.advance.events.push(RunEvent::NodeFinished {
                node: row.node.clone(),
                status: row.status,
                output: row.output.clone(),
                error: row.error.clone(),
            });
        }
        match self.state.nodes.iter_mut().find(|r| r.node == row.node) {
            Some(stored) => *stored = row.clone(),
            None => self.state.nodes.push(row.clone()),
        }
        match self.advance.nodes.iter_mut().find(|r| r.node == row.node) {
            Some(written) => *written = row,
            None => self.advance.nodes.push(row),
        }
    }

    /// Starts every node whose inputs are all there (a function node
    /// at once, which may make more ready), then ends the run if it is
    /// over: a node failed or was cancelled, every node succeeded, or a
    /// cancel was asked for and nothing runs.
    fn settle(&mut self, ids: &mut dyn FnMut() -> String) {
        while !self.state.cancel_requested && !self.failed() {
            let Some((node, input)) = self.next_ready() else { break };
            self.start(&node, input, ids);
        }
        let running = !running_work(&self.state.nodes).is_empty();
        let ending = if let Some(failed) = self.state.nodes.iter().find(|n| is_failure(n.status)) {
            let why = failed.error.as_deref().unwrap_or("");
            let verb = if failed.status == NodeStatus::Failed { "failed" } else { "was cancelled" };
            let status =
                if self.state.cancel_requested { FormationRunStatus::Cancelled } else { FormationRunStatus::Failed };
            let error = if self.state.cancel_requested {
                "cancelled".to_string()
            } else {
                format!("node {:?} {verb}: {why}", failed.node)
            };
            (!self.state.cancel_requested || !running).then_some((status, Some(error)))
        } else if self.state.cancel_requested {
            (!running).then_some((FormationRunStatus::Cancelled, Some("cancelled".to_string())))
        } else {
            let all = self.state.snapshot.formation.nodes.len();
            let succeeded = self.state.nodes.iter().filter(|n| n.status == NodeStatus::Succeeded).count();
            (succeeded == all).then_some((FormationRunStatus::Succeeded, None))
        };
        if let Some((status, error)) = ending {
            let end = end(&self.state, status, error);
            self.advance.events.push(done(&end));
            self.advance.cancel = running_work(&self.state.nodes);
            self.advance.end = Some(end);
        }
    }

    fn failed(&self) -> bool {
        self.state.nodes.iter().any(|n| is_failure(n.status))
    }

    /// The first node, in the formation's order, not started and with every
    /// input there, with its input.
    fn next_ready(&self) -> Option<(String, Value)> {
        let formation = &self.state.snapshot.formation;
        let output = |id: &str| {
            let row = self.state.nodes.iter().find(|n| n.node == id)?;
            (row.status == NodeStatus::Succeeded).then(|| row.output.clone().unwrap_or(Value::Null))
        };
        for node in &formation.nodes {
            if self.state.nodes.iter().any(|n| n.node == node.id) {
                continue;
            }
            let inputs: Vec<&str> = inputs_of(&formation.edges, &node.id).collect();
            let values: Option<Vec<Value>> = inputs.iter().map(|id| output(id)).collect();
            let input = match (inputs.len(), values) {
                (0, _) => self.state.input.clone(),
                (1, Some(mut values)) => values.remove(0),
                (_, Some(values)) => Value::Array(values),
                (_, None) => continue,
            };
            return Some((node.id.clone(), input));
        }
        None
    }

    fn start(&mut self, id: &str, input: Value, ids: &mut dyn FnMut() -> String) {
        let node = self.state.snapshot.formation.nodes.iter().find(|n| n.id == id).expect("a node of the formation");
        let mut row = NodeRow {
            node: id.to_string(),
            kind: node.kind_name().into(),
            status: NodeStatus::Running,
            run_id: None,
            fleet_run_id: None,
            input: input.clone(),
            output: None,
            error: None,
        };
        let started = match node.kind() {
            Ok(NodeKind::Agent(agent_id)) => self.start_agent(&mut row, agent_id, &input, ids),
            Ok(NodeKind::Fleet(fleet_id)) => self.start_fleet(&mut row, fleet_id, &input, ids),
            Ok(NodeKind::Function(function)) => match function.apply(&input) {
                Ok(output) => Err(Outcome::Succeeded(output)),
                Err(error) => Err(Outcome::Failed(error)),
            },
            Err(error) => Err(Outcome::Failed(error)),
        };
        self.advance.events.push(RunEvent::NodeStarted {
            node: id.to_string(),
            kind: node.kind_name().into(),
            run_id: row.run_id.clone(),
            fleet_run_id: row.fleet_run_id.clone(),
        });
        match started {
            Ok(()) => self.record(row, true),
            Err(Outcome::Succeeded(output)) => {
                (row.status, row.output) = (NodeStatus::Succeeded, Some(output));
                self.record(row, true);
            }
            Err(Outcome::Failed(error) | Outcome::Cancelled(error)) => {
                (row.status, row.error) = (NodeStatus::Failed, Some(error));
                self.record(row, true);
            }
        }
    }

    fn start_agent(
        &mut self,
        row: &mut NodeRow,
        agent_id: &str,
        input: &Value,
        ids: &mut dyn FnMut() -> String,
    ) -> Result<(), Outcome> {
        let snapshot = self.state.snapshot;
        let agent = snapshot.agents.get(agent_id).ok_or_else(|| Outcome::Failed(missing("agent", agent_id)))?;
        let message = as_text(input);
        if message.trim().is_empty() {
            return Err(Outcome::Failed("an agent node needs a non-empty input".into()));
        }
        let session = self.session(ids(), agent, &row.node, None);
        let node = NodeRef { formation_run_id: self.state.id.to_string(), node: row.node.clone() };
        let run = NewRun {
            id: ids(),
            kind: RunKind::FormationNode,
            session_id: Some(session.id.clone()),
            agent: agent.clone(),
            input: RunInput { node: Some(node), ..RunInput::new(message, snapshot.carried.inherited()) },
            work_dir: session.work_dir.clone(),
            max_attempts: snapshot.max_attempts,
            strategy: Default::default(),
            from_past: None,
        };
        row.run_id = Some(run.id.clone());
        self.advance.runs.push(NodeRun { session, run });
        Ok(())
    }

    fn start_fleet(
        &mut self,
        row: &mut NodeRow,
        fleet_id: &str,
        input: &Value,
        ids: &mut dyn FnMut() -> String,
    ) -> Result<(), Outcome> {
        let snapshot = self.state.snapshot;
        let fleet = snapshot.fleets.get(fleet_id).ok_or_else(|| Outcome::Failed(missing("fleet", fleet_id)))?;
        let items = input.as_array().ok_or_else(|| Outcome::Failed("a fleet node takes a list".into()))?;
        if items.is_empty() {
            return Err(Outcome::Succeeded(json!([])));
        }
        if items.len() > MAX_TASKS {
            return Err(Outcome::Failed(format!("a fleet node takes at most {MAX_TASKS} items, not {}", items.len())));
        }
        let id = ids();
        let tasks = items
            .iter()
            .enumerate()
            .map(|(index, item)| NewTask {
                run_id: ids(),
                session: self.session(ids(), &fleet.agent, &row.node, Some((&fleet.fleet, index))),
                input: RunInput {
                    data: (!item.is_string()).then(|| item.clone()),
                    ..RunInput::new(as_text(item), snapshot.carried.inherited())
                },
            })
            .collect();
        self.advance.fleet_runs.push(NewFleetRun {
            id: id.clone(),
            owner: snapshot.carried.owner.clone(),
            fleet_id: fleet.fleet.id.clone(),
            agent: fleet.agent.clone(),
            worker_count: fleet.fleet.worker_count,
            tasks,
            max_attempts: snapshot.max_attempts,
            webhook: None,
        });
        row.fleet_run_id = Some(id);
        Ok(())
    }

    /// A node's session: `<run's work_dir>/<node>` (a fleet task's
    /// `/<index>` below it, or its fleet's own `work_dir`).
    fn session(&self, id: String, agent: &Agent, node: &str, task: Option<(&Fleet, usize)>) -> Session {
        let base = std::path::Path::new(&self.state.snapshot.work_dir).join(node);
        let work_dir = match task {
            Some((fleet, index)) => {
                fleet.work_dir.clone().unwrap_or_else(|| base.join(index.to_string()).display().to_string())
            }
            None => base.display().to_string(),
        };
        let now = Utc::now();
        Session {
            id,
            owner: self.state.snapshot.carried.owner.clone(),
            agent_id: Some(agent.id.clone()),
            title: Some(format!("{} node {node}", self.state.snapshot.formation.name)),
            work_dir,
            metadata: json!({"formation_run_id": self.state.id, "node": node, "task_index": task.map(|t| t.1)}),
            added_tools: Default::default(),
            forked_from: None,
            created_at: now,
            updated_at: now,
        }
    }
}

/// How an agent node's run that ended leaves its node.
pub fn run_outcome(status: RunStatus, response: Option<&str>, error: Option<&str>) -> Outcome {
    let why = || error.unwrap_or(status.as_str()).to_string();
    match status {
        RunStatus::Succeeded => Outcome::Succeeded(Value::String(response.unwrap_or_default().to_string())),
        RunStatus::Cancelled | RunStatus::Interrupted => Outcome::Cancelled(why()),
        _ => Outcome::Failed(why()),
    }
}

/// How a fleet node's fleet run that ended leaves its node: the list of its
/// tasks' responses, in task order, when every task succeeded.
pub fn fleet_outcome(status: FleetRunStatus, progress: &FleetProgress, responses: Vec<String>) -> Outcome {
    match status {
        FleetRunStatus::Succeeded => {
            Outcome::Succeeded(Value::Array(responses.into_iter().map(Value::String).collect()))
        }
        FleetRunStatus::Cancelled => {
            Outcome::Cancelled(format!("{} of {} tasks were cancelled", progress.cancelled, progress.total))
        }
        _ => Outcome::Failed(format!("{} of {} tasks failed", progress.failed, progress.total)),
    }
}

fn is_failure(status: NodeStatus) -> bool {
    matches!(status, NodeStatus::Failed | NodeStatus::Cancelled)
}

fn missing(what: &str, id: &str) -> String {
    format!("the {what} {id} was not in the formation run's snapshot")
}
