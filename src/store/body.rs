//! Definitions kept whole as one JSON body (agents, fleets, formations), as both
//! backends store them.

use chrono::{DateTime, Utc};

use crate::store::StoreResult;

/// The tables that keep a definition as one JSON body: agents, fleets and formations.
#[derive(Debug, Clone, Copy)]
pub enum BodyTable {
    Agents,
    Fleets,
    Formations,
}

impl BodyTable {
    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            BodyTable::Agents => "agents",
            BodyTable::Fleets => "fleets",
            BodyTable::Formations => "formations",
        }
    }

    /// What one of its rows is, for a not-found refusal.
    pub fn what(self) -> &'static str {
        match self {
            BodyTable::Agents => "agent",
            BodyTable::Fleets => "fleet",
            BodyTable::Formations => "formation",
        }
    }
}

/// A definition as its table stores it.
pub struct Body {
    pub id: String,
    pub json: String,
    /// Its version: an update is written only over `version - 1`.
    pub version: u64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Body {
    /// Serializes a definition for its row.
    pub fn of<T: serde::Serialize>(
        id: &str,
        value: &T,
        version: u64,
        created_at: DateTime<Utc>,
        updated_at: DateTime<Utc>,
    ) -> StoreResult<Body> {
        Ok(Body { id: id.to_string(), json: serde_json::to_string(value)?, version, created_at, updated_at })
    }

    /// The version an update of this body is written over.
    pub fn replaces(&self) -> i64 {
        self.version as i64 - 1
    }
}
