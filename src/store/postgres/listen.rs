//! Change hints from PostgreSQL: every transaction that writes events
//! notifies one channel at its commit, and each process listens on a
//! connection of its own. Notifications only accelerate: workers and the
//! event pump still poll, and a dropped listener connection (a restart of
//! the server, a network fault) is reopened, with a hint given at once
//! because notifications may have been missed meanwhile.

use std::time::Duration;

use sqlx::postgres::{PgListener, PgPool};
use tokio::sync::watch;

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
