//! A step's streamed answer: the provider's pieces coalesced into
//! `thinking_delta` and `text_delta` events, written on the flush timer in
//! the order they came, and the guards that cut a step while it streams:
//! the reasoning guard, which cuts a step that thinks past
//! `reasoning_byte_limit` before any text or tool call, and
//! [`StepGuard`]'s cap on its output and its deadline.

use std::future::Future;

use tokio::sync::mpsc::UnboundedReceiver;

use super::guards::StepGuard;
use super::Execution;
use crate::domain::event::RunEvent;
use crate::provider::{Delta, InferenceResponse, ProviderError};
use crate::store::{Commit, StoreError};

/// What one provider call came to: its answer or failure, and the delta
/// events not yet written.
pub(super) struct Streamed {
    pub result: Result<InferenceResponse, ProviderError>,
    pub unflushed: Vec<RunEvent>,
    /// The bytes streamed and the cap, when the answer streamed past
    /// `max_step_output_bytes` and was cut (`result` is then void).
    pub exceeded: Option<(u64, u64)>,
}

/// The pieces of one step's answer on their way to the log.
#[derive(Debug)]
pub(super) struct StepStream {
    step: u32,
    /// Delta events not written yet, consecutive pieces of one kind merged.
    pending: Vec<RunEvent>,
    thinking_bytes: u64,
    /// True once the answer has text or tool input.
    answered: bool,
    reasoning_byte_limit: u64,
}

impl StepStream {
    /// The stream of `step`, whose thinking may reach `reasoning_byte_limit`
    /// bytes before it answers.
    pub fn new(step: u32, reasoning_byte_limit: u64) -> Self {
        StepStream { step, pending: Vec::new(), thinking_bytes: 0, answered: false, reasoning_byte_limit }
    }

    /// Takes one piece. Thinking past the limit before any answer is a
    /// reasoning stall: a transient failure, so the step is tried again.
    pub fn take(&mut self, delta: Delta) -> Result<(), ProviderError> {
        match delta {
            Delta::Text(text) => {
                self.answered = true;
                self.push(text, false);
            }
            Delta::ToolInput(_) => self.answered = true,
            Delta::Thinking(text) => {
                self.thinking_bytes += text.len() as u64;
                self.push(text, true);
                if !self.answered && self.thinking_bytes > self.reasoning_byte_limit {
                    return Err(ProviderError::transient(format!(
                        "reasoning stall: more than {} bytes of thinking and no answer (reasoning_byte_limit)",
                        self.reasoning_byte_limit
                    )));
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, piece: String, thinking: bool) {
        let step = self.step;
        match self.pending.last_mut() {
            Some(RunEvent::ThinkingDelta { text, .. }) if thinking => text.push_str(&piece),
            Some(RunEvent::TextDelta { text, .. }) if !thinking => text.push_str(&piece),
            _ if thinking => self.pending.push(RunEvent::ThinkingDelta { step, text: piece }),
            _ => self.pending.push(RunEvent::TextDelta { step, text: piece }),
        }
    }

    /// True when nothing waits to be written.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The events waiting to be written, in order.
    pub fn take_events(&mut self) -> Vec<RunEvent> {
        std::mem::take(&mut self.pending)
    }
}

impl Execution {
    /// Reads one provider call to its end, writing its pieces as delta
    /// events on the flush timer. The call is dropped on return, so a step
    /// cut by a guard stops reading (and closes) the provider's stream at
    /// once. `None` when the run was abandoned meanwhile.
    pub(super) async fn stream_answer(
        &mut self,
        step: u32,
        call: impl Future<Output = Result<InferenceResponse, ProviderError>>,
        mut rx: UnboundedReceiver<Delta>,
    ) -> Result<Option<Streamed>, StoreError> {
        tokio::pin!(call);
        let mut stream = StepStream::new(step, self.ctx.agent.reasoning_byte_limit);
        let flush_every = self.config.delta_flush;
        let mut flush = tokio::time::interval_at(tokio::time::Instant::now() + flush_every, flush_every);
        let abort = self.signals.abort.clone();
        let mut guard = StepGuard::new(&self.ctx.agent.guards);
        let expiry = tokio::time::sleep_until(guard.deadline());
        tokio::pin!(expiry);
        let result = loop {
            tokio::select! {
                result = &mut call => break result,
                Some(delta) = rx.recv() => {
                    // Past the cap the answer is not read on, and the piece
                    // that crossed it is not logged: the log holds at most the cap.
                    if !guard.count(&delta) {
                        break Err(guard.cut());
                    }
                    if let Err(stall) = stream.take(delta) {
                        break Err(stall);
                    }
                }
                _ = &mut expiry => break Err(guard.timed_out()),
                _ = flush.tick(), if !stream.is_empty() => {
                    self.write(Commit { events: stream.take_events(), ..Default::default() }).await?;
                }
                _ = abort.cancelled() => return Ok(None),
            }
        };
        if result.is_ok() {
            // The answer is whole: the reasoning guard has nothing left to
            // cut, but its last pieces still count against the cap.
            while let Ok(delta) = rx.try_recv() {
                if !guard.count(&delta) {
                    break;
                }
                let _ = stream.take(delta);
            }
        }
        Ok(Some(Streamed { result, unflushed: stream.take_events(), exceeded: guard.exceeded() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(events: &[RunEvent]) -> Vec<(&'static str, &str)> {
        events
            .iter()
            .map(|e| match e {
                RunEvent::ThinkingDelta { text, .. } => ("thinking", text.as_str()),
                RunEvent::TextDelta { text, .. } => ("text", text.as_str()),
                _ => ("other", ""),
            })
            .collect()
    }

    #[test]
    fn pieces_of_one_kind_merge_and_kinds_keep_their_order() {
        let mut stream = StepStream::new(1, 1024);
        for delta in [
            Delta::Thinking("a".into()),
            Delta::Thinking("b".into()),
            Delta::Text("c".into()),
            Delta::ToolInput(5),
            Delta::Thinking("d".into()),
            Delta::Text("e".into()),
        ] {
            stream.take(delta).unwrap();
        }
        let events = stream.take_events();
        assert_eq!(texts(&events), [("thinking", "ab"), ("text", "c"), ("thinking", "d"), ("text", "e")]);
        assert!(stream.is_empty());
    }

    #[test]
    fn thinking_past_the_limit_before_an_answer_is_a_transient_stall() {
        let mut stream = StepStream::new(1, 8);
        stream.take(Delta::Thinking("12345678".into())).unwrap();
        let stall = stream.take(Delta::Thinking("9".into())).unwrap_err();
        assert!(stall.transient);
        assert!(stall.message.contains("reasoning_byte_limit") && stall.message.contains("8 bytes"), "{stall}");
        // The thinking that passed the limit is kept for the log.
        assert_eq!(texts(&stream.take_events()), [("thinking", "123456789")]);
    }

    #[test]
    fn thinking_after_an_answer_began_is_not_a_stall() {
        for answer in [Delta::Text("x".into()), Delta::ToolInput(1)] {
            let mut stream = StepStream::new(1, 4);
            stream.take(answer).unwrap();
            stream.take(Delta::Thinking("0123456789".into())).unwrap();
        }
    }
}
