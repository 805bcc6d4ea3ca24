//! Runs' event logs as both backends store them: a write's events for one
//! run are one row (SQLite migration 28, PostgreSQL migration 8) holding the
//! run, the numbers of its first and last event, the time, and the events as
//! a JSON array of `[type, data]` pairs. One row per write instead of one
//! per event saves most of the index entries a run's log costs, the largest
//! part of the database's work in a burn-down.
//!
//! Readers expand rows into events. A run's rows never overlap, so its
//! events after a number start in the first row whose last number is past
//! it; a reader of the log of all runs that stopped inside a row holds the
//! number of the last event it took from it ([`super::EventCursor::seq`]).

use serde_json::{Map, Value};

use super::rows::{at, Columns};
use super::{StoreError, StoreResult};
use crate::domain::event::RunEvent;
use crate::domain::model::Event;

/// The `events` column of a row holding `events`.
pub fn encode(events: &[RunEvent]) -> String {
    let mut text = String::from("[");
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        // A kind is a fixed identifier, so it needs no escaping.
        text.push_str("[\"");
        text.push_str(event.kind());
        text.push_str("\",");
        text.push_str(&event.data_json());
        text.push(']');
    }
    text.push(']');
    text
}

/// The last number of a row holding `events` (at least one: a write with
/// none makes no row) numbered from `first`.
pub fn last_seq(first: u64, events: &[RunEvent]) -> u64 {
    first + events.len() as u64 - 1
}

/// A row's events (`run_id, first_seq, last_seq, events, at`), numbered
/// from its first; those numbered `after` or below are left out. A row
/// whose count disagrees with its numbers is an error, never a log with a
/// gap or a repeat.
pub fn expand(row: &impl Columns, after: u64) -> StoreResult<Vec<Event>> {
    let run_id = row.text("run_id")?;
    let first = row.int("first_seq")? as u64;
    let last = row.int("last_seq")? as u64;
    let when = at(row.int("at")?);
    let stored: Vec<(String, Map<String, Value>)> = serde_json::from_str(&row.text("events")?)?;
    if first + stored.len() as u64 != last + 1 {
        return Err(StoreError::internal(format!(
            "the row of run {run_id}'s events numbered {first} to {last} holds {} events",
            stored.len()
        )));
    }
    Ok(stored
        .into_iter()
        .zip(first..)
        .filter(|(_, seq)| *seq > after)
        .map(|((kind, data), seq)| Event { run_id: run_id.clone(), seq, kind, data, at: when })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::event::RunEvent;

    #[test]
    fn an_encoded_row_is_a_json_array_of_kind_and_data_pairs() {
        let events = [
            RunEvent::RunStarted { attempt: 1, worker_id: "w \"1\"".into(), charged_attempts: 1 },
            RunEvent::TextDelta { step: 1, text: "é\n".into() },
        ];
        let parsed: Value = serde_json::from_str(&encode(&events)).unwrap();
        assert_eq!(parsed[0][0], "run_started");
        assert_eq!(parsed[0][1]["worker_id"], "w \"1\"");
        assert_eq!(parsed[1], serde_json::json!(["text_delta", {"step": 1, "text": "é\n"}]));
        assert_eq!(last_seq(4, &events), 5);
    }
}
