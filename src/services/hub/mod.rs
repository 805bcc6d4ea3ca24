//! The event hub: one pump per server process that follows the global event
//! cursor and hands each new event to its log's feed, rendered once as the
//! SSE frame every tail of the log sends; and the tails that turn a feed
//! into an exact, gap-free stream.
//!
//! **Invariant:** a tail yields a log's events in `seq` order, each exactly
//! once, whatever the pump delivers: the stored log is the source of truth,
//! and the live feed is only a prompt to read it (or a shortcut when its next
//! event is exactly the one expected).
//!
//! **Invariant:** what a tail costs does not grow with the log or with the
//! reader's slowness: live frames are shared, a tail behind the feed reads
//! the store a page at a time, and a quiet log is looked at once per log,
//! however many tails it has.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{ServiceResult, Supervisor};
use crate::domain::model::Event;
use crate::store::{EventCursor, Store, StoreError};

mod feed;
mod frame;
mod quiet;
mod replay;
mod tail;

use feed::Feed;
pub use frame::Frame;
pub use tail::{Step, Tail};

/// Fans events out to the tails of their logs.
pub struct Hub {
    store: Arc<dyn Store>,
    /// Each log's feeds: one per JSON dialect it is read in (nearly always one).
    feeds: Mutex<HashMap<String, Vec<Arc<Feed>>>>,
    wake: Notify,
    /// Where the pump has read to, kept across its restarts so that a pump
    /// started again delivers what came meanwhile instead of skipping it.
    cursor: Mutex<Option<EventCursor>>,
}

impl Hub {
    /// A hub whose pump and look at quiet logs are not started yet
    /// ([`Hub::supervise`] starts them).
    pub fn new(store: Arc<dyn Store>) -> Arc<Hub> {
        Arc::new(Hub { store, feeds: Mutex::new(HashMap::new()), wake: Notify::new(), cursor: Mutex::new(None) })
    }

    /// Starts the pump, polling every `poll` (and at once when
    /// [`Hub::nudge`]d), and the look at quiet logs, as services of `supervisor`.
    pub fn supervise(self: &Arc<Hub>, supervisor: &mut Supervisor, poll: Duration) {
        let shutdown = supervisor.shutdown();
        let (hub, stop) = (self.clone(), shutdown.clone());
        supervisor.spawn("event-pump", move || pump(hub.clone(), poll, stop.clone()));
        let hub = self.clone();
        supervisor.spawn("quiet-logs", move || quiet::look_at_quiet_logs(hub.clone(), shutdown.clone()));
    }

    /// Wakes the pump: something in this process just wrote events.
    pub fn nudge(&self) {
        self.wake.notify_one();
    }

    /// Streams the log's events after `after` until its terminal event
    /// (or until the log is over without one). `id_key` names the log in
    /// each event's JSON: `run_id`, `fleet_run_id` or `formation_run_id`.
    pub fn tail(self: &Arc<Hub>, log_id: &str, after: u64, id_key: &'static str) -> Tail {
        // Subscribe before the tail reads the store, so nothing committed in
        // between is missed.
        let mut feeds = self.feeds.lock().expect("hub lock");
        let of_log = feeds.entry(log_id.to_string()).or_default();
        let feed = match of_log.iter().find(|feed| feed.id_key() == id_key) {
            Some(feed) => feed.clone(),
            None => {
                let feed = Arc::new(Feed::new(log_id, id_key));
                of_log.push(feed.clone());
                feed
            }
        };
        let (live, ticket) = feed.subscribe();
        drop(feeds);
        crate::metrics::tail_opened();
        Tail::new(self.clone(), feed, live, ticket, after)
    }

    /// Drops a feed whose last tail is going (the caller's).
    fn forget_if_unwatched(&self, feed: &Arc<Feed>) {
        crate::metrics::tail_closed();
        let mut feeds = self.feeds.lock().expect("hub lock");
        if feed.watchers() > 1 {
            return;
        }
        if let Some(of_log) = feeds.get_mut(feed.log_id()) {
            of_log.retain(|other| !Arc::ptr_eq(other, feed));
            if of_log.is_empty() {
                feeds.remove(feed.log_id());
            }
        }
    }

    fn has_subscribers(&self) -> bool {
        let mut feeds = self.feeds.lock().expect("hub lock");
        feeds.retain(|_, of_log| {
            of_log.retain(|feed| feed.watchers() > 0);
            !of_log.is_empty()
        });
        !feeds.is_empty()
    }

    /// The feeds of a log that someone reads.
    fn feeds_of(&self, log_id: &str) -> Vec<Arc<Feed>> {
        let feeds = self.feeds.lock().expect("hub lock");
        feeds
            .get(log_id)
            .map(|of_log| of_log.iter().filter(|f| f.watchers() > 0).cloned().collect())
            .unwrap_or_default()
    }

    /// Every feed, for the look at quiet logs.
    fn all_feeds(&self) -> Vec<Arc<Feed>> {
        let feeds = self.feeds.lock().expect("hub lock");
        feeds.values().flatten().cloned().collect()
    }

    /// Renders a new event once per feed of its log and sends it.
    fn deliver(&self, event: &Event) {
        for feed in self.feeds_of(&event.run_id) {
            feed.send(Frame::render(event, feed.id_key()));
        }
    }

    /// Whether a log can get no more events: its run, fleet run or
    /// formation run has ended, or is gone.
    async fn log_is_over(&self, log_id: &str) -> Result<bool, StoreError> {
        if let Some(run) = self.store.run_standing(log_id, u64::MAX).await? {
            return Ok(run.status.is_terminal());
        }
        if let Some(fleet_run) = self.store.get_fleet_run(log_id).await? {
            return Ok(fleet_run.status.is_terminal());
        }
        Ok(self.store.get_formation_run(log_id).await?.is_none_or(|run| run.status.is_terminal()))
    }
}

/// How often the pump reads again for a while after a change hint.
const BURST_POLL: Duration = Duration::from_millis(2);

/// How long it keeps reading that often: on PostgreSQL an event can only be
/// read once every older transaction on the server has ended (see
/// `events_since`), which no hint announces, so a hint is followed by a few
/// quick reads rather than by the slow poll alone.
const BURST: Duration = Duration::from_millis(50);

/// Follows the global event cursor and delivers new events. It sleeps until
/// a change hint (or a nudge from this process) wakes it, reads quickly for
/// a short while after each, and otherwise reads every `poll` as the
/// fallback for a hint that never came: at rest it costs next to nothing.
async fn pump(hub: Arc<Hub>, poll: Duration, shutdown: CancellationToken) -> ServiceResult {
    let kept = *hub.cursor.lock().expect("hub lock");
    let mut cursor = match kept {
        Some(cursor) => cursor,
        None => hub.store.event_cursor().await?,
    };
    let mut changes = hub.store.changes();
    let mut burst_until = tokio::time::Instant::now();
    loop {
        let now = tokio::time::Instant::now();
        let next = now + if now < burst_until { BURST_POLL } else { poll };
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = hub.wake.notified() => burst_until = tokio::time::Instant::now() + BURST,
            _ = crate::store::changed(&mut changes) => burst_until = tokio::time::Instant::now() + BURST,
            _ = tokio::time::sleep_until(next) => {}
        }
        let skipped = !hub.has_subscribers() && skip_ahead(&hub, &mut cursor).await?;
        if !skipped {
            deliver_new(&hub, &mut cursor).await?;
        }
        *hub.cursor.lock().expect("hub lock") = Some(cursor);
    }
}

/// Delivers every event after `cursor`, moving it on. An error that a
/// retry may get past ends the pump's run (the supervisor starts it again
/// from the cursor); one that it cannot is skipped ([`skip_unreadable`]).
async fn deliver_new(hub: &Hub, cursor: &mut EventCursor) -> Result<(), StoreError> {
    loop {
        match hub.store.events_since(*cursor, 1000).await {
            Ok(events) => {
                let more = events.len() == 1000;
                for (position, event) in events {
                    *cursor = position;
                    let lag = (chrono::Utc::now() - event.at).to_std().unwrap_or_default();
                    crate::metrics::event_delivered(lag);
                    hub.deliver(&event);
                }
                if !more {
                    return Ok(());
                }
            }
            Err(e) if e.is_retryable() => return Err(e),
            Err(e) => return skip_unreadable(hub, cursor, &e).await,
        }
    }
}

/// Moves the cursor past events that cannot be read: reading them again
/// would give the same error (a row that does not decode, say one written
/// by a newer version), and live delivery would stop at them for good. The
/// pump skips to the newest event instead; a tail that misses the events
/// skipped sees a gap in its run's numbers, or the look at its quiet log
/// brings them.
async fn skip_unreadable(hub: &Hub, cursor: &mut EventCursor, error: &StoreError) -> Result<(), StoreError> {
    let newest = hub.store.event_cursor().await?;
    tracing::error!(%error, "event pump skipped events it cannot read; tails read them from each run's log");
    *cursor = newest;
    Ok(())
}

/// With nobody subscribed, moves the cursor to the newest event instead of
/// reading the events before it; returns false if a subscriber came
/// meanwhile (the events are to be read after all). The cursor is read
/// before subscribers are looked for again: an event committed after that
/// read is delivered next time, and one committed before it is in the log
/// that a new subscriber reads after subscribing. With subscribers the pump
/// reads the events straight away, a round trip fewer on the way from a
/// commit to its SSE frame.
async fn skip_ahead(hub: &Hub, cursor: &mut EventCursor) -> Result<bool, StoreError> {
    let newest = hub.store.event_cursor().await?;
    if hub.has_subscribers() {
        return Ok(false);
    }
    *cursor = newest;
    Ok(true)
}
