//! The bytes of an SSE answer: a `retry:` hint, then a tail's frames as the
//! hub rendered them (shared, not copied), and a keep-alive comment when
//! the log has been silent for a while (the hub's, one for all its tails:
//! a tail has no timer of its own).

use std::convert::Infallible;

use bytes::Bytes;
use futures_util::stream::{self, Stream};

use crate::services::hub::{Step, Tail};

/// The stream's state between frames.
struct Body {
    tail: Tail,
    /// Send the original API's `message_stop` after each `step_completed`.
    message_stops: bool,
    /// Bytes to send before the next frame.
    queued: Option<Bytes>,
}

/// The SSE body of a tail.
pub fn frames(tail: Tail, message_stops: bool) -> impl Stream<Item = Result<Bytes, Infallible>> {
    let retry = format!("retry: {}\n\n", super::sse::RECONNECT_AFTER.as_millis());
    let body = Body { tail, message_stops, queued: Some(Bytes::from(retry)) };
    stream::unfold(body, |mut body| async move {
        let bytes = body.next().await?;
        Some((Ok(bytes), body))
    })
}

impl Body {
    async fn next(&mut self) -> Option<Bytes> {
        if let Some(bytes) = self.queued.take() {
            return Some(bytes);
        }
        match self.tail.next_step().await? {
            Ok(Step::Event(frame)) => {
                if self.message_stops {
                    self.queued = frame.message_stop();
                }
                Some(frame.bytes())
            }
            Ok(Step::KeepAlive) => Some(Bytes::from_static(b":\n\n")),
            Err(e) => {
                // The stream ends; the client reconnects with Last-Event-ID.
                tracing::warn!(error = %e, "event stream failed");
                None
            }
        }
    }
}
