//! Wingman: a durable job-queue orchestrator for LLM agents.
//!
//! Every session message becomes a persisted run. Workers claim runs with
//! fenced leases, execute the agent loop step by step, and checkpoint every
//! step, so a run resumes where it stopped after any crash. The HTTP API only
//! enqueues work and tails results. See `docs/architecture.md`.

pub mod api;
pub mod app;
pub mod approval;
pub mod attempt;
pub mod bench;
pub mod checkpoint;
pub mod cli;
pub mod compaction;
pub mod config;
pub mod credential;
pub mod delivery;
pub mod engine;
pub mod event;
pub mod fdlimit;
pub mod fleet;
pub mod formation;
pub mod guard;
pub mod history;
pub mod hub;
pub mod lifecycle;
pub mod metrics;
pub mod model;
pub mod otel;
pub mod provider;
pub mod retention;
pub mod schedule;
pub mod secret;
pub mod shell;
pub mod sse;
pub mod store;
pub mod subagent;
pub mod telemetry;
pub mod tools;
pub mod toolset;
pub mod ui;
pub mod webhook;
pub mod worker;
