//! Change hints from PostgreSQL: after every transaction that writes events
//! commits, its process notifies one channel, and each process listens on a
//! connection of its own. Notifications only accelerate: workers and the
//! event pump still poll, and a dropped listener connection (a restart of
//! the server, a network fault) is reopened, with a hint given at once
//! because notifications may have been missed meanwhile.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool};
use sqlx::ConnectOptions;
use tokio::sync::{mpsc, watch};

use super::CHANNEL;

/// Starts listening; the receiver's value changes after every notification.
pub fn spawn(pool: PgPool) -> watch::Receiver<u64> {
    let (tx, rx) = watch::channel(0u64);
    tokio::spawn(async move {
        loop {
            match listen(&pool, &tx).await {
                Ok(()) => return, // every receiver is gone
                Err(e) => tracing::warn!(error = %e, "change notifications interrupted; reconnecting"),
            }
            tx.send_modify(|n| *n += 1);
            tokio::time::sleep(Duration::from_millis(500)).await;
            if tx.is_closed() {
                return;
            }
        }
    });
    rx
}

/// Listens until the connection fails (an error) or nobody is listening.
async fn listen(pool: &PgPool, tx: &watch::Sender<u64>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    // Anything committed before this listener existed was not notified to it.
    tx.send_modify(|n| *n += 1);
    loop {
        // A notification, or `None` for a lost connection (which `try_recv`
        // reopens on its next call): either way something may have changed.
        let _ = listener.try_recv().await?;
        tx.send_modify(|n| *n += 1);
        if tx.is_closed() {
            return Ok(());
        }
    }
}

/// Sends the hints, after the commits they are about, from a connection of
/// its own. Not from inside the writing transactions: PostgreSQL commits
/// every transaction that notified one at a time, under one lock held
/// through its WAL flush, which made every event-writing commit in the
/// database wait for the one before it. Here a hint is a transaction of its
/// own with `synchronous_commit` off (a hint lost in a crash costs a poll),
/// and hints asked for while one is on its way go as one.
///
/// A write that is the only one under way in its process may send its hint
/// inside its own commit instead ([`Notifier::writing`]): PostgreSQL then
/// delivers it as the commit lands, a round trip sooner, and with nothing
/// else under way there is no other commit of ours for it to hold up.
pub struct Notifier {
    /// One slot: a hint asked for while one is already waiting adds nothing.
    wanted: mpsc::Sender<()>,
    /// Event-writing statements and transactions under way in this process.
    writing: AtomicUsize,
}

/// A write under way, counted while it lasts, and whether it was the only
/// one when it began.
pub struct Writing<'a> {
    count: &'a AtomicUsize,
    /// Nothing else was being written: the write may hint in its own commit.
    pub alone: bool,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Notifier {
    /// Starts the task that sends hints over a connection made with
    /// `options`; it ends when the notifier is dropped.
    pub fn spawn(options: PgConnectOptions) -> Notifier {
        let (wanted, asked) = mpsc::channel(1);
        let options = options.options([("synchronous_commit", "off")]);
        tokio::spawn(send_hints(options, asked));
        Notifier { wanted, writing: AtomicUsize::new(0) }
    }

    /// Counts a write that hints, until the guard is dropped.
    pub fn writing(&self) -> Writing<'_> {
        let alone = self.writing.fetch_add(1, Ordering::Relaxed) == 0;
        Writing { count: &self.writing, alone }
    }

    /// Asks for a hint; call it after a commit that wrote events.
    pub fn hint(&self) {
        let _ = self.wanted.try_send(());
    }
}

/// Sends a hint each time one is asked for. A failed connection is opened
/// again at the next hint.
async fn send_hints(options: PgConnectOptions, mut asked: mpsc::Receiver<()>) {
    let mut conn: Option<PgConnection> = None;
    while asked.recv().await.is_some() {
        if conn.is_none() {
            conn = options.connect().await.ok();
        }
        let Some(c) = conn.as_mut() else {
            // The database is away: listeners poll meanwhile.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if sqlx::query("SELECT pg_notify($1, '')").bind(CHANNEL).execute(&mut *c).await.is_err() {
            conn = None;
        }
    }
}
