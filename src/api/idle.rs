//! The idle watch: a connection that owes the server a request head is
//! closed after the header timeout (counted from its accept, or from the
//! first byte of a later request), and one that sits idle between requests
//! after the idle timeout. While a request is being answered (an SSE stream,
//! a `?wait=true`) neither applies: the send timeout watches those, and a
//! request body that stalls is cut by the body's own timeout.
//!
//! Without it, a client that connects and sends nothing, or half a request
//! head, holds a descriptor for ever, and enough of them exhaust the server
//! before any bearer check runs.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// No request head has begun.
const NONE: u64 = u64::MAX;

/// What a connection is doing, as its reads and its requests report it.
/// Times are milliseconds since the connection was accepted.
#[derive(Debug)]
pub struct Activity {
    accepted: Instant,
    /// Requests whose answers are not finished (HTTP/1 answers one at a time).
    answering: AtomicU32,
    /// When the last answer finished (0: none has).
    idle_since: AtomicU64,
    /// When the head the client owes began: the accept for a new
    /// connection, the first byte of a later request.
    head_since: AtomicU64,
    /// Woken when the last answer in progress finishes.
    answered: Notify,
}

/// Why a connection was closed by the watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// No complete request head within the header timeout.
    Header,
    /// No new request within the idle timeout.
    Idle,
}

impl Expired {
    /// The metric's label.
    pub fn as_str(self) -> &'static str {
        match self {
            Expired::Header => "header",
            Expired::Idle => "idle",
        }
    }
}

impl Activity {
    /// A connection accepted now: it owes a request head from this moment.
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity {
            accepted: Instant::now(),
            answering: AtomicU32::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(0),
            answered: Notify::new(),
        })
    }

    fn now(&self) -> u64 {
        self.accepted.elapsed().as_millis() as u64
    }

    /// Bytes arrived. Between requests, the first of them starts the clock
    /// of the head they begin.
    pub fn read(&self) {
        if self.answering.load(SeqCst) == 0 && self.head_since.load(SeqCst) == NONE {
            let _ = self.head_since.compare_exchange(NONE, self.now(), SeqCst, SeqCst);
        }
    }

    /// A request's head is complete and its answer begins; the answer is
    /// finished when the returned guard is dropped (with the answer's body).
    pub fn answering(self: &Arc<Self>) -> Answering {
        self.answering.fetch_add(1, SeqCst);
        self.head_since.store(NONE, SeqCst);
        Answering(self.clone())
    }

    fn answer_finished(&self) {
        self.idle_since.store(self.now(), SeqCst);
        if self.answering.fetch_sub(1, SeqCst) == 1 {
            self.answered.notify_waiters();
        }
    }

    /// When the connection expires if nothing changes, and why; `None`
    /// while an answer is in progress.
    fn deadline(&self, header: Duration, idle: Duration) -> Option<(Instant, Expired)> {
        if self.answering.load(SeqCst) > 0 {
            return None;
        }
        let ms = Duration::from_millis;
        match self.head_since.load(SeqCst) {
            NONE => Some((self.accepted + ms(self.idle_since.load(SeqCst)) + idle, Expired::Idle)),
            since => Some((self.accepted + ms(since) + header, Expired::Header)),
        }
    }
}

/// An answer in progress (see [`Activity::answering`]).
#[derive(Debug)]
pub struct Answering(Arc<Activity>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.answer_finished();
    }
}

/// Resolves when the connection should be closed: it owed a head past
/// `header`, or sat idle past `idle`.
pub async fn expired(activity: &Activity, header: Duration, idle: Duration) -> Expired {
    loop {
        let answered = activity.answered.notified();
        let mut answered = std::pin::pin!(answered);
        // Registered before the count is read, so a finish in between wakes it.
        answered.as_mut().enable();
        match activity.deadline(header, idle) {
            None => answered.await,
            Some((deadline, why)) if Instant::now() >= deadline => return why,
            Some((deadline, _)) => tokio::time::sleep_until(deadline).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real time, short: each test asserts which timeout ended the
    // connection and that it did not end before it was due.
    const HEADER: Duration = Duration::from_millis(100);
    const IDLE: Duration = Duration::from_millis(300);

    #[tokio::test]
    async fn a_new_connection_owes_its_head_within_the_header_timeout() {
        let activity = Activity::new();
        activity.read();
        assert_eq!(expired(&activity, HEADER, IDLE).await, Expired::Header);
        assert!(activity.accepted.elapsed() >= HEADER);
    }

    #[tokio::test]
    async fn an_idle_connection_lasts_the_idle_timeout() {
        let activity = Activity::new();
        drop(activity.answering());
        let idle_from = Instant::now();
        assert_eq!(expired(&activity, HEADER, IDLE).await, Expired::Idle);
        assert!(idle_from.elapsed() >= IDLE);
    }

    #[tokio::test]
    async fn a_head_begun_after_an_idle_spell_owes_the_rest_within_the_header_timeout() {
        let activity = Activity::new();
        drop(activity.answering());
        tokio::time::sleep(IDLE / 2).await;
        activity.read();
        let head_from = Instant::now();
        assert_eq!(expired(&activity, HEADER, IDLE).await, Expired::Header);
        assert!(head_from.elapsed() >= HEADER);
    }

    #[tokio::test]
    async fn an_answer_in_progress_is_never_expired() {
        let activity = Activity::new();
        let answer = activity.answering();
        let watch = tokio::spawn({
            let activity = activity.clone();
            async move { expired(&activity, HEADER, IDLE).await }
        });
        tokio::time::sleep(IDLE * 3).await;
        assert!(!watch.is_finished(), "expired while answering");
        drop(answer);
        let ended = Instant::now();
        assert_eq!(watch.await.unwrap(), Expired::Idle);
        assert!(ended.elapsed() >= IDLE);
    }
}
