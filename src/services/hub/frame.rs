//! An event as the SSE frame every tail of its log sends: rendered once, its
//! bytes shared by every connection that writes them.

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use serde_json::json;

use crate::domain::model::Event;

/// One event's SSE frame, cheap to clone (a reference count).
#[derive(Debug, Clone)]
pub struct Frame(Arc<Rendered>);

#[derive(Debug)]
struct Rendered {
    seq: u64,
    kind: String,
    /// `id: <seq>`, `event: <type>`, `data: <the event's JSON>`, a blank line.
    bytes: Bytes,
    /// After a `step_completed`, the `message_stop` frame the original API's
    /// stream route sent (no `id:`, so a reconnect resumes by the events).
    message_stop: Option<Bytes>,
}

impl Frame {
    /// Renders `event`, its log named `id_key` in its JSON.
    pub fn render(event: &Event, id_key: &str) -> Frame {
        let mut bytes = Vec::with_capacity(event_size_hint(event));
        // Writing into a Vec cannot fail, and serde_json's compact form
        // escapes every line break, so `data` is one line.
        let _ = write!(bytes, "id: {}\nevent: {}\ndata: ", event.seq, event.kind);
        let _ = serde_json::to_writer(&mut bytes, &event.json_as(id_key));
        bytes.extend_from_slice(b"\n\n");
        let message_stop = (event.kind == "step_completed").then(|| {
            let stop = json!({
                "type": "message_stop", "run_id": event.run_id, "step": event.data.get("step"),
                "stop_reason": event.data.get("stop_reason"), "usage": event.data.get("usage"),
            });
            Bytes::from(format!("event: message_stop\ndata: {stop}\n\n"))
        });
        Frame(Arc::new(Rendered { seq: event.seq, kind: event.kind.clone(), bytes: bytes.into(), message_stop }))
    }

    /// The event's number in its log.
    pub fn seq(&self) -> u64 {
        self.0.seq
    }

    /// The event's type.
    pub fn kind(&self) -> &str {
        &self.0.kind
    }

    /// True for the log's terminal event.
    pub fn is_terminal(&self) -> bool {
        self.0.kind == "done"
    }

    /// The frame's length in bytes.
    pub fn size(&self) -> usize {
        self.0.bytes.len()
    }

    /// The frame's bytes (shared, not copied).
    pub fn bytes(&self) -> Bytes {
        self.0.bytes.clone()
    }

    /// The `message_stop` frame that follows a `step_completed` in the
    /// original API's stream route.
    pub fn message_stop(&self) -> Option<Bytes> {
        self.0.message_stop.clone()
    }
}

/// Roughly the frame's size, so that rendering a large event allocates once.
fn event_size_hint(event: &Event) -> usize {
    let text: usize = event.data.values().map(|v| v.as_str().map_or(16, str::len)).sum();
    128 + event.run_id.len() + event.kind.len() + text + text / 8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::Decoder;
    use chrono::Utc;

    fn event(kind: &str, data: serde_json::Value) -> Event {
        let data = data.as_object().cloned().unwrap_or_default();
        Event { run_id: "01RUN".into(), seq: 3, kind: kind.into(), data, at: Utc::now() }
    }

    #[test]
    fn a_frame_decodes_to_its_events_json() {
        let e = event("text_delta", json!({"step": 1, "text": "two\nlines\r and a \u{2028}"}));
        let frames = Decoder::default().push(&Frame::render(&e, "run_id").bytes());
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].id.as_deref(), Some("3"));
        assert_eq!(frames[0].event.as_deref(), Some("text_delta"));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&frames[0].data).unwrap(), e.to_json());
    }

    #[test]
    fn a_completed_step_brings_its_message_stop() {
        let e = event("step_completed", json!({"step": 2, "stop_reason": "end_turn", "usage": {"input_tokens": 1}}));
        let frame = Frame::render(&e, "run_id");
        let stop = Decoder::default().push(&frame.message_stop().unwrap());
        let stop: serde_json::Value = serde_json::from_str(&stop[0].data).unwrap();
        assert_eq!(
            stop,
            json!({"type": "message_stop", "run_id": "01RUN", "step": 2,
            "stop_reason": "end_turn", "usage": {"input_tokens": 1}})
        );
        assert!(Frame::render(&event("done", json!({})), "run_id").message_stop().is_none());
    }
}
