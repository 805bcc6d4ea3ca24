//! The rules of a run's life, apart from any backend: what each command
//! (enqueue, claim, commit, hand back, cancel, steer, decide) writes, and
//! what a run's end or wait changes besides its own row.
//!
//! **A backend persists decisions; it makes none.** Each rule here takes
//! what a backend read (in the transaction that writes) and returns what it
//! must write: the events, the run's end, the session's turn, the fleet
//! run's counts, or a [`Refusal`] that writes nothing. Both backends call
//! the same functions, so a rule is written once and cannot drift between
//! them. docs/architecture.md lists the rules and the two places a rule
//! also stays in SQL for speed, each held to its Rust twin by a test.
//!
//! The rules of attempts and fleet runs are [`crate::domain::attempt`]'s and
//! [`crate::domain::fleet`]'s; this module applies them to runs.

mod children;
mod claim;
mod commands;
mod commit;
mod ending;
mod enqueue;
pub mod fair;
mod multitask;
mod refusal;
mod requests;
pub mod slots;
pub mod turn;

pub use children::{child_ended, parks_as, ChildEnd, NewChild, ParentRow, Parked, Wake};
pub use claim::{hand_back, rescue, started, HandedBack, Rescue};
pub use commands::{
    Commit, Finish, FromPast, HandBack, IdempotencyKey, InboxItem, InboxKind, Lease, NewFleetRun, NewRun, NewTask,
};
pub use commit::{admit, complete, inbox_newest, Completion, Effect};
pub use ending::{after_end, AfterEnd, EndReason, EndedRow, EndedTask, Ending, Stored};
pub use enqueue::{fleet_run, queued, replay, FleetRunEnqueue, TaskRun};
pub use multitask::{make_way, reads_unfinished, MakeWay};
pub use refusal::Refusal;
pub use requests::{cancel, cancel_fleet_run, decide, steer, Steer};
