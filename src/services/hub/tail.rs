//! A tail: one reader's way through a log, from the stored events after its
//! position to the live feed it shares with every other reader of the log.
//!
//! A tail holds no copy of the log: live frames are the feed's, shared; a
//! page read from the store (on connecting, or after falling behind the
//! feed) is the only thing it holds of its own, and it is bounded by [`PAGE`].

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::sync::broadcast::{self, error::RecvError};

use super::feed::{Feed, Live};
use super::frame::Frame;
use super::Hub;
use crate::store::StoreError;

/// The most events a tail reads from the store at once.
pub const PAGE: u32 = 32;

/// What a tail yields.
pub enum Step {
    /// The log's next event.
    Event(Frame),
    /// Nothing for a while: say something, so that proxies keep the stream.
    KeepAlive,
}

/// A log's events after a position, in `seq` order, each exactly once,
/// until its terminal event (or the log is over without one).
pub struct Tail {
    hub: Arc<Hub>,
    feed: Arc<Feed>,
    live: broadcast::Receiver<Live>,
    /// Its ticket of the feed, taken once it had subscribed.
    ticket: u64,
    /// The seq of the last event returned.
    last: u64,
    /// Frames read from the store, not returned yet.
    pending: VecDeque<Frame>,
    /// The store holds events the feed will not bring: read them first.
    reading: bool,
    /// The log gets no more events: once caught up, the tail ends.
    over: bool,
    /// The feed sent an event the tail did not get (it fell behind, or the
    /// feed missed one): only a read of its own says it caught up again.
    missed: bool,
    ended: bool,
}

impl Tail {
    pub(super) fn new(
        hub: Arc<Hub>,
        feed: Arc<Feed>,
        live: broadcast::Receiver<Live>,
        ticket: u64,
        after: u64,
    ) -> Tail {
        let pending = VecDeque::new();
        Tail { hub, feed, live, ticket, last: after, pending, reading: true, over: false, missed: false, ended: false }
    }

    /// The next event, or `None` once the log has ended (or failed to read:
    /// the error comes first, then `None`). Cancel-safe: a caller may drop
    /// the future and call again without losing an event.
    pub async fn next(&mut self) -> Option<Result<Frame, StoreError>> {
        loop {
            match self.next_step().await? {
                Ok(Step::Event(frame)) => return Some(Ok(frame)),
                Ok(Step::KeepAlive) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The next event, or a keep-alive when the log has been silent for a
    /// while ([`super::feed::KEEP_ALIVE`]); as [`Tail::next`] otherwise.
    pub async fn next_step(&mut self) -> Option<Result<Step, StoreError>> {
        loop {
            if self.ended {
                return None;
            }
            if let Some(frame) = self.pending.pop_front() {
                return Some(Ok(Step::Event(self.give(frame))));
            }
            if self.reading {
                if let Err(e) = self.read_page().await {
                    self.ended = true;
                    return Some(Err(e));
                }
                continue;
            }
            if self.over {
                // Caught up with a log that gets no more events.
                self.ended = true;
                continue;
            }
            match self.live.recv().await {
                Ok(Live::Event(frame)) if frame.seq() <= self.last => {}
                Ok(Live::Event(frame)) if frame.seq() == self.last + 1 => {
                    return Some(Ok(Step::Event(self.give(frame))))
                }
                Ok(Live::Ping) => return Some(Ok(Step::KeepAlive)),
                // A gap (the feed missed an event) or a reader that fell
                // more than the feed holds behind: the store has the rest.
                Ok(Live::Event(_)) | Err(RecvError::Lagged(_)) => (self.reading, self.missed) = (true, true),
                Ok(Live::Over) => (self.reading, self.over) = (true, true),
                Err(RecvError::Closed) => self.ended = true,
            }
        }
    }

    fn give(&mut self, frame: Frame) -> Frame {
        self.last = frame.seq();
        self.ended = frame.is_terminal();
        frame
    }

    /// Reads the next page of the log: from what other tails of the log
    /// read before if they did ([`super::replay`]), from a read of the store
    /// made once for all of them if the replay keeps the page, else from the
    /// store for itself. A short page of its own read means the tail has
    /// caught up (and, for a log that is over, that it has ended).
    async fn read_page(&mut self) -> Result<(), StoreError> {
        if self.take_replayed() {
            return Ok(());
        }
        if let Some(mut ended) = self.feed.read_shared(&self.hub.store, self.last) {
            let _ = ended.wait_for(|ended| *ended).await;
            if self.take_replayed() {
                return Ok(());
            }
        }
        let page = self.feed.read_page(self.hub.store.as_ref(), self.last).await?;
        self.reading = page.len() as u32 == PAGE;
        self.pending.extend(page);
        Ok(())
    }

    /// Takes the frames after the tail's position that other tails read
    /// from the store, if there are any, and learns whether it has caught
    /// up with them: when a shared read that began after the tail
    /// subscribed found the log's end where they leave it ([`super::replay`]).
    /// Not for a log that is over (its last events may never have been sent
    /// live, so only a read after the news says nothing is left), nor for a
    /// tail that missed an event the feed sent.
    fn take_replayed(&mut self) -> bool {
        let (frames, end) = self.feed.replayed(self.last, PAGE as usize);
        let newest = frames.last().map(Frame::seq);
        if let Some(newest) = newest {
            crate::metrics::tail_page_read(true);
            self.feed.saw(newest);
            self.pending.extend(frames);
        }
        let position = newest.unwrap_or(self.last);
        if !self.over && !self.missed && end.is_some_and(|end| end.reached(position, self.ticket)) {
            self.reading = false;
            return true;
        }
        newest.is_some()
    }
}

impl Drop for Tail {
    fn drop(&mut self) {
        self.hub.forget_if_unwatched(&self.feed);
    }
}
