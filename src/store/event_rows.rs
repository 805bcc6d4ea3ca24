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

/// A row's events as its `events` column holds them: (kind, data) pairs.
type StoredEvents = Vec<(String, Map<String, Value>)>;

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
        match response_in_row(&events[..i], event) {
            Some(step) => {
                let mut data = event.data();
                data.insert(RESPONSE.into(), serde_json::json!({ TEXT_OF_STEP: step }));
                text.push_str(&Value::Object(data).to_string());
            }
            None => text.push_str(&event.data_json()),
        }
        text.push(']');
    }
    text.push(']');
    text
}

/// The field of a `done` that a row may hold by reference.
const RESPONSE: &str = "response";

/// What a `done`'s response says in its place when it is the text of the
/// step named, in the `text_delta`s before it in the same row: a response
/// is a string or null, never an object, so the two cannot be confused.
const TEXT_OF_STEP: &str = "text_of_step";

/// The step whose `text_delta`s, among `before` in the same row, spell the
/// response of `event` when it is a `done`. A run's answer reaches its log
/// twice, streamed and in its `done`, and both are usually in the write
/// that ends the run: the row keeps the text once, and [`expand`] puts it
/// back, so what a reader gets is unchanged.
fn response_in_row(before: &[RunEvent], event: &RunEvent) -> Option<u32> {
    let RunEvent::Done { response: Some(response), .. } = event else { return None };
    let step = before.iter().rev().find_map(|e| match e {
        RunEvent::TextDelta { step, .. } => Some(*step),
        _ => None,
    })?;
    let mut left = response.as_str();
    for event in before {
        if let RunEvent::TextDelta { step: s, text } = event {
            if *s == step {
                left = left.strip_prefix(text.as_str())?;
            }
        }
    }
    left.is_empty().then_some(step)
}

/// Puts back the responses [`encode`] held by reference in a row's events.
fn restore_responses(stored: &mut StoredEvents) -> StoreResult<()> {
    for i in 0..stored.len() {
        let (kind, data) = &stored[i];
        let Some(Value::Object(reference)) = data.get(RESPONSE).filter(|_| kind == "done") else { continue };
        let step = reference.get(TEXT_OF_STEP).and_then(Value::as_u64);
        let step = step.ok_or_else(|| StoreError::internal(format!("a done's response reads {reference:?}")))?;
        let text: String = stored[..i]
            .iter()
            .filter(|(kind, data)| kind == "text_delta" && data.get("step").and_then(Value::as_u64) == Some(step))
            .filter_map(|(_, data)| data.get("text").and_then(Value::as_str))
            .collect();
        stored[i].1.insert(RESPONSE.into(), Value::String(text));
    }
    Ok(())
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
    let mut stored: StoredEvents = serde_json::from_str(&row.text("events")?)?;
    if first + stored.len() as u64 != last + 1 {
        return Err(StoreError::internal(format!(
            "the row of run {run_id}'s events numbered {first} to {last} holds {} events",
            stored.len()
        )));
    }
    restore_responses(&mut stored)?;
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
    use crate::domain::model::RunStatus;

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

    fn done(response: &str) -> RunEvent {
        let usage = crate::domain::model::Usage::default();
        RunEvent::Done {
            status: RunStatus::Succeeded,
            response: Some(response.into()),
            usage,
            steps: 2,
            error: None,
            by: None,
        }
    }

    fn delta(step: u32, text: &str) -> RunEvent {
        RunEvent::TextDelta { step, text: text.into() }
    }

    /// The row's events as a reader gets them, and how many times `text`
    /// is in the stored row.
    fn round_trip(events: &[RunEvent], text: &str) -> (StoredEvents, usize) {
        let encoded = encode(events);
        let mut stored: StoredEvents = serde_json::from_str(&encoded).unwrap();
        restore_responses(&mut stored).unwrap();
        (stored, encoded.matches(text).count())
    }

    fn as_written(events: &[RunEvent]) -> StoredEvents {
        events.iter().map(|e| (e.kind().to_string(), e.data())).collect()
    }

    #[test]
    fn a_response_streamed_in_the_same_row_is_stored_once_and_read_back_whole() {
        let events = [
            delta(1, "first step's words"),
            RunEvent::StepStarted { step: 2 },
            delta(2, "The answer, "),
            delta(2, "in \"two\" pieces\n"),
            done("The answer, in \"two\" pieces\n"),
        ];
        let (read, copies) = round_trip(&events, "pieces");
        assert_eq!(read, as_written(&events));
        assert_eq!(copies, 1, "{}", encode(&events));
    }

    #[test]
    fn a_response_the_row_does_not_spell_keeps_its_text() {
        let cases: [&[RunEvent]; 4] = [
            &[done("no deltas")],
            &[delta(2, "part"), done("partial")],
            &[delta(2, "partial and more"), done("partial")],
            &[delta(1, "an "), delta(2, "earlier step"), done("an earlier step")],
        ];
        for events in cases {
            let (read, _) = round_trip(events, "");
            assert_eq!(read, as_written(events));
            assert!(!encode(events).contains(TEXT_OF_STEP), "{}", encode(events));
        }
    }
}
