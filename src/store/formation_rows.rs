//! The row decoding of formation runs both backends share: a formation
//! run's row as its rules read it, its nodes' rows, and the run as answers
//! show it.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::rows::{at, json, opt_json, Columns};
use super::{StoreError, StoreResult};
use crate::domain::formation::run::{self, FormationRun, FormationRunStatus, NodeRow, Snapshot, State};

/// The columns [`stored`] reads, in a `SELECT`.
pub const COLUMNS: &str =
    "id, owner, formation_id, status, snapshot, input, outputs, error, cancel_requested, event_seq, \
     created_at, finished_at, updated_at";

/// A formation run's row, decoded.
#[derive(Debug, Clone)]
pub struct Stored {
    pub id: String,
    pub owner: String,
    pub formation_id: String,
    pub status: FormationRunStatus,
    pub snapshot: Snapshot,
    pub input: Value,
    pub outputs: Option<Value>,
    pub error: Option<String>,
    pub cancel_requested: bool,
    /// The number of its last event.
    pub event_seq: u64,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
}

/// Decodes a formation run's row selected with [`COLUMNS`].
pub fn stored(row: &impl Columns) -> StoreResult<Stored> {
    let status = row.text("status")?;
    Ok(Stored {
        id: row.text("id")?,
        owner: row.text("owner")?,
        formation_id: row.text("formation_id")?,
        status: FormationRunStatus::parse(&status)
            .ok_or_else(|| StoreError::internal(format!("unknown formation run status {status:?}")))?,
        snapshot: json(row, "snapshot")?,
        input: json(row, "input")?,
        outputs: opt_json(row, "outputs")?,
        error: row.opt_text("error")?,
        cancel_requested: row.int("cancel_requested")? != 0,
        event_seq: row.int("event_seq")? as u64,
        created_at: at(row.int("created_at")?),
        finished_at: row.opt_int("finished_at")?.map(at),
        updated_at: at(row.int("updated_at")?),
    })
}

/// Decodes a node's row (its `body`).
pub fn node(row: &impl Columns) -> StoreResult<NodeRow> {
    json(row, "body")
}

impl Stored {
    /// The run as its rules read it, with the rows of its started nodes.
    pub fn state(&self, nodes: Vec<NodeRow>) -> State<'_> {
        State {
            id: &self.id,
            snapshot: &self.snapshot,
            input: &self.input,
            status: self.status,
            cancel_requested: self.cancel_requested,
            nodes,
        }
    }

    /// The run as answers show it, with the rows of its started nodes.
    pub fn view(self, nodes: &[NodeRow]) -> FormationRun {
        FormationRun {
            nodes: run::all_nodes(&self.snapshot, nodes),
            id: self.id,
            owner: self.owner,
            formation_id: self.formation_id,
            name: self.snapshot.formation.name.clone(),
            edges: self.snapshot.formation.edges.clone(),
            status: self.status,
            input: self.input,
            outputs: self.outputs,
            error: self.error,
            cancel_requested: self.cancel_requested,
            created_at: self.created_at,
            finished_at: self.finished_at,
            updated_at: self.updated_at,
        }
    }
}
