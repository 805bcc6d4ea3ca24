//! Wingman: a durable job-queue orchestrator for LLM agents.
//!
//! Every session message becomes a persisted run. Workers claim runs with
//! fenced leases, execute the agent loop step by step, and checkpoint every
//! step, so a run resumes where it stopped after any crash. The HTTP API only
//! enqueues work and tails results. See `docs/architecture.md`.

pub mod api;
pub mod app;
pub mod bench;
pub mod cli;
pub mod config;
pub mod domain;
pub mod engine;
pub mod fdlimit;
pub mod metrics;
pub mod otel;
pub mod provider;
pub mod services;
pub mod sse;
pub mod store;
pub mod submit;
pub mod telemetry;
pub mod tools;
pub mod ui;
pub mod worker;
