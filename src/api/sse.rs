//! Server-Sent Events for a run's log.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};

use super::AppState;
use crate::model::Event;

/// Streams the run's events after `after`: replay from the log, then the live
/// tail, then the stream closes after `done`. Each frame's `id:` is the
/// event's `seq`, so a reconnecting client resumes with `Last-Event-ID`.
pub fn stream(state: &AppState, run_id: &str, after: u64) -> Response {
    let events = state.hub.tail(run_id, after);
    let body = frames(events);
    let mut response = Sse::new(body).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response();
    // Proxies such as nginx buffer responses unless told otherwise.
    response.headers_mut().insert("x-accel-buffering", "no".parse().expect("static header"));
    response.headers_mut().insert("cache-control", "no-cache".parse().expect("static header"));
    response
}

fn frames(
    events: tokio::sync::mpsc::Receiver<Result<Event, crate::store::StoreError>>,
) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    stream::unfold(events, |mut events| async move {
        match events.recv().await {
            Some(Ok(event)) => {
                let frame = SseEvent::default()
                    .id(event.seq.to_string())
                    .event(event.kind.clone())
                    .data(event.to_json().to_string());
                Some((Ok(frame), events))
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
