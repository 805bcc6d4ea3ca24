//! Server-Sent Events for a run's log.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use serde_json::json;

use super::AppState;
use crate::model::Event;

/// Which names a stream's frames carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Wingman's events, one frame each (`GET /runs/{id}/events`).
    Wingman,
    /// Wingman's events plus the frames the original API's stream routes
    /// sent that Wingman's log has no event for: a `message_stop` after each
    /// completed step (`POST /sessions/{id}/message/stream`). Those frames
    /// carry no `id:`, so a reconnecting client resumes by the events' seqs.
    Seed,
}

/// Streams the run's events after `after`: replay from the log, then the live
/// tail, then the stream closes after `done`. Each event's frame has its
/// `seq` as `id:`, so a reconnecting client resumes with `Last-Event-ID`.
pub fn stream(state: &AppState, run_id: &str, after: u64, dialect: Dialect) -> Response {
    let events = state.hub.tail(run_id, after);
    let body = frames(events, dialect);
    let mut response = Sse::new(body).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response();
    // Proxies such as nginx buffer responses unless told otherwise.
    response.headers_mut().insert("x-accel-buffering", "no".parse().expect("static header"));
    response.headers_mut().insert("cache-control", "no-cache".parse().expect("static header"));
    response
}

type Events = tokio::sync::mpsc::Receiver<Result<Event, crate::store::StoreError>>;

fn frames(events: Events, dialect: Dialect) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold((events, VecDeque::new()), move |(mut events, mut pending)| async move {
        if let Some(frame) = pending.pop_front() {
            return Some((Ok(frame), (events, pending)));
        }
        match events.recv().await {
            Some(Ok(event)) => {
                pending.extend(frames_of(&event, dialect));
                let first = pending.pop_front()?;
                Some((Ok(first), (events, pending)))
            }
            Some(Err(e)) => {
                // The stream ends; the client reconnects with Last-Event-ID.
                tracing::warn!(error = %e, "event stream failed");
                None
            }
            None => None,
        }
    })
}

/// The frames one event makes in a dialect: its own, then any the original
/// API's clients expect after it.
fn frames_of(event: &Event, dialect: Dialect) -> Vec<SseEvent> {
    let own = SseEvent::default().id(event.seq.to_string()).event(event.kind.clone()).data(event.to_json().to_string());
    if dialect == Dialect::Wingman || event.kind != "step_completed" {
        return vec![own];
    }
    let stop = json!({
        "type": "message_stop", "run_id": event.run_id, "step": event.data.get("step"),
        "stop_reason": event.data.get("stop_reason"), "usage": event.data.get("usage"),
    });
    vec![own, SseEvent::default().event("message_stop").data(stop.to_string())]
}
