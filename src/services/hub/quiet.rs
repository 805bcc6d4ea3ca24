//! The look at quiet logs: once per log, never per tail; and the
//! keep-alives of logs that stay silent, sent once to all their tails. A log with tails
//! and no new event for a while is read after the newest event its feed
//! knows, for two things no event announces: an event the pump skipped (one
//! it could not read, say), and a log that is over without a terminal event
//! (its run deleted, or its log pruned, while tails read it).

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::feed::Feed;
use super::frame::Frame;
use super::tail::PAGE;
use super::Hub;
use crate::store::StoreError;

/// How often the looker wakes to see which logs are due.
const TICK: Duration = Duration::from_millis(500);

/// Looks at each quiet log when its feed says it is due (after a second
/// without an event, then less and less often).
pub async fn look_at_quiet_logs(hub: Arc<Hub>, shutdown: CancellationToken) -> crate::services::ServiceResult {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = tick.tick() => {}
        }
        let now = tokio::time::Instant::now();
        for feed in hub.all_feeds() {
            feed.ping_if_silent(now);
            let Some(newest) = feed.due(now) else { continue };
            if feed.watchers() == 0 {
                continue;
            }
            if let Err(e) = look(&hub, &feed, newest).await {
                tracing::warn!(error = %e, log = feed.log_id(), "could not look at a quiet log");
            }
        }
    }
}

/// Sends the log's events after `newest` that the feed has not sent, then,
/// if the log is over, says so. The log's owner is read before the log: an
/// owner that had ended had written its terminal event by then, so a
/// terminal event still there is sent before the feed says the log is over.
async fn look(hub: &Hub, feed: &Arc<Feed>, newest: u64) -> Result<(), StoreError> {
    let over = hub.log_is_over(feed.log_id()).await?;
    let mut after = newest;
    loop {
        let page = hub.store.read_events(feed.log_id(), after, PAGE).await?;
        let full = page.len() as u32 == PAGE;
        for event in &page {
            after = event.seq;
            feed.send(Frame::render(event, feed.id_key()));
        }
        if !full {
            break;
        }
    }
    if over {
        feed.send_over();
    }
    Ok(())
}
