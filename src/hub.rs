//! The event hub: one pump per server process that follows the global event
//! cursor and fans new events out to the subscribers of each run, and the
//! tail that turns a subscription into an exact, gap-free stream.
//!
//! **Invariant:** a tail yields a run's events in `seq` order, each exactly
//! once, whatever the pump delivers: the stored log is the source of truth,
//! and the live feed is only a prompt to read it (or a shortcut when its next
//! event is exactly the one expected).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, Notify};
use tokio_util::sync::CancellationToken;

use crate::model::Event;
use crate::store::{EventCursor, Store, StoreError};

/// The largest page read from the log at once.
const PAGE: u32 = 500;

/// Fans events out to subscribers.
pub struct Hub {
    store: Arc<dyn Store>,
    subscribers: Mutex<HashMap<String, broadcast::Sender<Event>>>,
    wake: Notify,
}

impl Hub {
    /// Starts the pump, polling every `poll` (and at once when [`Hub::nudge`]d).
    pub fn spawn(store: Arc<dyn Store>, poll: Duration, shutdown: CancellationToken) -> Arc<Hub> {
        let hub = Arc::new(Hub { store, subscribers: Mutex::new(HashMap::new()), wake: Notify::new() });
        tokio::spawn(pump(hub.clone(), poll, shutdown));
        hub
    }

    /// Wakes the pump: something in this process just wrote events.
    pub fn nudge(&self) {
        self.wake.notify_one();
    }

    fn subscribe(&self, run_id: &str) -> broadcast::Receiver<Event> {
        let mut subs = self.subscribers.lock().expect("hub lock");
        subs.entry(run_id.to_string()).or_insert_with(|| broadcast::channel(1024).0).subscribe()
    }

    fn has_subscribers(&self) -> bool {
        let mut subs = self.subscribers.lock().expect("hub lock");
        subs.retain(|_, tx| tx.receiver_count() > 0);
        !subs.is_empty()
    }

    fn deliver(&self, event: Event) {
        let subs = self.subscribers.lock().expect("hub lock");
        if let Some(tx) = subs.get(&event.run_id) {
            let _ = tx.send(event);
        }
    }

    /// Streams the run's events after `after` until its terminal event, then
    /// closes. Dropping the receiver ends the tail.
    pub fn tail(self: &Arc<Hub>, run_id: &str, after: u64) -> mpsc::Receiver<Result<Event, StoreError>> {
        let (tx, rx) = mpsc::channel(256);
        let hub = self.clone();
        let run_id = run_id.to_string();
        tokio::spawn(async move {
            if let Err(e) = hub.follow(&run_id, after, &tx).await {
                let _ = tx.send(Err(e)).await;
            }
        });
        rx
    }

    async fn follow(
        &self,
        run_id: &str,
        after: u64,
        tx: &mpsc::Sender<Result<Event, StoreError>>,
    ) -> Result<(), StoreError> {
        // Subscribe before reading, so nothing committed in between is missed.
        let mut live = self.subscribe(run_id);
        let mut last = after;
        if self.catch_up(run_id, &mut last, tx).await? {
            return Ok(());
        }
        loop {
            let next = tokio::select! {
                received = live.recv() => received,
                _ = tokio::time::sleep(Duration::from_secs(1)) => {
                    if self.quiet_catch_up(run_id, &mut last, tx).await? {
                        return Ok(());
                    }
                    continue;
                }
                _ = tx.closed() => return Ok(()),
            };
            match next {
                Ok(event) if event.seq <= last => {}
                Ok(event) if event.seq == last + 1 => {
                    last = event.seq;
                    let done = event.is_terminal();
                    if tx.send(Ok(event)).await.is_err() || done {
                        return Ok(());
                    }
                }
                // A gap or a lagged receiver: read the log.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    if self.catch_up(run_id, &mut last, tx).await? {
                        return Ok(());
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            }
        }
    }

    /// After a quiet second: reads the log, and ends the tail if the log is
    /// over without its terminal event in reach (its run or fleet run was
    /// deleted, or its log pruned, while the tail read it). The log's owner
    /// is read before the log: an owner that had ended had written its
    /// `done` by then, so a `done` still there is found.
    async fn quiet_catch_up(
        &self,
        log_id: &str,
        last: &mut u64,
        tx: &mpsc::Sender<Result<Event, StoreError>>,
    ) -> Result<bool, StoreError> {
        let over = self.log_is_over(log_id).await?;
        Ok(self.catch_up(log_id, last, tx).await? || over)
    }

    /// Whether a log can get no more events: its run, fleet run or
    /// formation run has ended, or is gone.
    async fn log_is_over(&self, log_id: &str) -> Result<bool, StoreError> {
        if let Some(run) = self.store.get_run(log_id).await? {
            return Ok(run.status.is_terminal());
        }
        if let Some(fleet_run) = self.store.get_fleet_run(log_id).await? {
            return Ok(fleet_run.status.is_terminal());
        }
        Ok(self.store.get_formation_run(log_id).await?.is_none_or(|run| run.status.is_terminal()))
    }

    /// Sends every stored event after `last`. True when the terminal event was sent
    /// (or the client went away).
    async fn catch_up(
        &self,
        run_id: &str,
        last: &mut u64,
        tx: &mpsc::Sender<Result<Event, StoreError>>,
    ) -> Result<bool, StoreError> {
        loop {
            let page = self.store.read_events(run_id, *last, PAGE).await?;
            let full = page.len() as u32 == PAGE;
            for event in page {
                *last = event.seq;
                let done = event.is_terminal();
                if tx.send(Ok(event)).await.is_err() || done {
                    return Ok(true);
                }
            }
            if !full {
                return Ok(false);
            }
        }
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
async fn pump(hub: Arc<Hub>, poll: Duration, shutdown: CancellationToken) {
    let mut cursor = hub.store.event_cursor().await.unwrap_or_default();
    let mut changes = hub.store.changes();
    let mut burst_until = tokio::time::Instant::now();
    loop {
        let now = tokio::time::Instant::now();
        let next = now + if now < burst_until { BURST_POLL } else { poll };
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = hub.wake.notified() => burst_until = tokio::time::Instant::now() + BURST,
            _ = crate::store::changed(&mut changes) => burst_until = tokio::time::Instant::now() + BURST,
            _ = tokio::time::sleep_until(next) => {}
        }
        if !hub.has_subscribers() && skip_ahead(&hub, &mut cursor).await {
            continue;
        }
        loop {
            match hub.store.events_since(cursor, 1000).await {
                Ok(events) => {
                    let more = events.len() == 1000;
                    for (position, event) in events {
                        cursor = position;
                        let lag = (chrono::Utc::now() - event.at).to_std().unwrap_or_default();
                        crate::metrics::event_delivered(lag);
                        hub.deliver(event);
                    }
                    if !more {
                        break;
                    }
                }
                Err(e) if e.is_retryable() => {
                    tracing::warn!(error = %e, "event pump could not read events");
                    break;
                }
                Err(e) => {
                    skip_unreadable(&hub, &mut cursor, &e).await;
                    break;
                }
            }
        }
    }
}

/// Moves the cursor past events that cannot be read: reading them again
/// would give the same error (a row that does not decode, say one written
/// by a newer version), and live delivery would stop at them for good. The
/// pump skips to the newest event instead; a tail that misses the events
/// skipped sees a gap in its run's numbers, or a quiet second, and reads
/// them from its run's log.
async fn skip_unreadable(hub: &Hub, cursor: &mut EventCursor, error: &StoreError) {
    match hub.store.event_cursor().await {
        Ok(newest) => {
            tracing::error!(%error, "event pump skipped events it cannot read; tails read them from each run's log");
            *cursor = newest;
        }
        Err(e) => tracing::warn!(error = %e, "event pump could not read the cursor"),
    }
}

/// With nobody subscribed, moves the cursor to the newest event instead of
/// reading the events before it; returns false if a subscriber came
/// meanwhile (the events are to be read after all). The cursor is read
/// before subscribers are looked for again: an event committed after that
/// read is delivered next time, and one committed before it is in the log
/// that a new subscriber reads after subscribing. With subscribers the pump
/// reads the events straight away, a round trip fewer on the way from a
/// commit to its SSE frame.
async fn skip_ahead(hub: &Hub, cursor: &mut EventCursor) -> bool {
    let newest = match hub.store.event_cursor().await {
        Ok(newest) => newest,
        Err(e) => {
            tracing::warn!(error = %e, "event pump could not read the cursor");
            return true;
        }
    };
    if hub.has_subscribers() {
        return false;
    }
    *cursor = newest;
    true
}
