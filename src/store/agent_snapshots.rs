//! A run's agent as it was at submission, stored once per distinct
//! definition rather than once per run: `agent_snapshots` holds each
//! definition under the digest of its JSON, and a run names the digest
//! (`runs.agent_digest`). A fleet of 10,000 tasks stores its agent once.
//!
//! Runs written before the table existed keep the JSON in `runs.agent`, so
//! both backends read `COALESCE(snapshot, runs.agent)`. A snapshot is removed
//! with the last run that names it; nothing a client reads includes one.

use sha2::{Digest, Sha256};

use super::StoreResult;
use crate::domain::model::Agent;

/// An agent definition as stored: its JSON and the digest it is kept under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSnapshot {
    /// The first 128 bits of the SHA-256 of `body`, in hex: a collision is
    /// as unlikely as a random UUID's.
    pub digest: String,
    /// The definition as JSON.
    pub body: String,
}

impl AgentSnapshot {
    /// The snapshot of `agent`. Its serialisation is deterministic (struct
    /// fields in order, maps sorted), so equal definitions share a digest.
    pub fn of(agent: &Agent) -> StoreResult<AgentSnapshot> {
        let body = serde_json::to_string(agent)?;
        let hash = Sha256::digest(body.as_bytes());
        let digest = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
        Ok(AgentSnapshot { digest, body })
    }
}

/// The column a run's load selects for its agent, the same on both
/// backends: the snapshot it names, or the copy an older run carries.
pub const AGENT_COLUMN: &str =
    "COALESCE((SELECT s.body FROM agent_snapshots s WHERE s.digest = runs.agent_digest), runs.agent) AS agent";

/// The agent of a run row, as [`AGENT_COLUMN`] reads it.
pub fn parse(body: &str) -> StoreResult<Agent> {
    Ok(serde_json::from_str(body)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(instructions: &str) -> Agent {
        serde_json::from_value(serde_json::json!({
            "id": "a1", "name": "writer", "provider": "scripted", "model": "m",
            "instructions": instructions, "max_steps": 5, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
        }))
        .unwrap()
    }

    #[test]
    fn equal_definitions_share_a_digest_and_a_change_makes_another() {
        let (a, b, c) =
            (AgentSnapshot::of(&agent("x")), AgentSnapshot::of(&agent("x")), AgentSnapshot::of(&agent("y")));
        let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
        assert_eq!(a, b);
        assert_ne!(a.digest, c.digest);
        assert_eq!(a.digest.len(), 32);
        assert_eq!(parse(&a.body).unwrap(), agent("x"));
    }
}
