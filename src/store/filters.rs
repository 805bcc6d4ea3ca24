//! Filters and pages of the store's lists.

use crate::domain::model::RunStatus;

/// Which end of a list comes first: lists are in submission (or ID)
/// order, oldest first unless asked for the newest first (`order=desc`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    #[default]
    OldestFirst,
    NewestFirst,
}

/// A filter for listing fleet runs.
#[derive(Debug, Clone, Default)]
pub struct FleetRunFilter {
    pub fleet_id: Option<String>,
    /// Only this owner's fleet runs; every owner's when `None`.
    pub owner: Option<String>,
    /// Return fleet runs that come after this one in `order` (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
    pub order: Order,
}

/// A filter for listing formation runs.
#[derive(Debug, Clone, Default)]
pub struct FormationRunFilter {
    pub formation_id: Option<String>,
    /// Only this owner's formation runs; every owner's when `None`.
    pub owner: Option<String>,
    /// Return formation runs that come after this one in `order` (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
    pub order: Order,
}

/// A filter for listing runs.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub session_id: Option<String>,
    /// Only the tasks of this fleet run.
    pub fleet_run_id: Option<String>,
    /// Only the sub-agents' runs this run started.
    pub parent_run_id: Option<String>,
    /// Only the agent nodes' runs of this formation run.
    pub formation_run_id: Option<String>,
    pub status: Option<RunStatus>,
    /// Only this owner's runs; every owner's when `None`.
    pub owner: Option<String>,
    /// Return runs that come after this run ID in `order` (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
    pub order: Order,
}

/// A page of sessions, by ID.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Only this owner's sessions; every owner's when `None`.
    pub owner: Option<String>,
    /// Return sessions that come after this ID in `order` (keyset pagination).
    pub after: Option<String>,
    /// At most this many; every session when `None`.
    pub limit: Option<u32>,
    pub order: Order,
}

/// A page of the audit log, the newest first.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    /// Only the changes this owner's keys made; every owner's when `None`.
    pub owner: Option<String>,
    /// Return entries older than this one (keyset pagination).
    pub after: Option<String>,
    pub limit: u32,
}
