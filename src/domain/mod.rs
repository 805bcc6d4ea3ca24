//! The domain: plain types and the rules of a run's life, with no I/O.
//! Everything else (the store, the engine, the API, the services) persists,
//! executes or serves what these modules decide.
//!
//! `model` is at the bottom and uses nothing above it; the rest are rules
//! over its types.

pub mod access;
pub mod approval;
pub mod attempt;
pub mod audit;
pub mod branch;
pub mod budget;
pub mod checkpoint;
pub mod commands;
pub mod compaction;
pub mod credential;
pub mod event;
pub mod fleet;
pub mod formation;
pub mod guard;
pub mod history;
pub mod lifecycle;
pub mod model;
pub mod queue;
pub mod quota;
pub mod retry;
pub mod schedule;
pub mod secret;
pub mod share;
pub mod shell;
pub mod subagent;
pub mod toolset;
pub mod webhook;
