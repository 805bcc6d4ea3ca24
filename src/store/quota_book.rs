//! The owners' quotas as a process last read them: read again at most once
//! per [`FRESH`], so that a quota set through any server holds on every
//! server and worker within a second, while the door and each inference
//! cost no read for an owner without one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Store, StoreResult};
use crate::domain::quota::Quota;

/// How long the quotas read are trusted.
pub const FRESH: Duration = Duration::from_secs(1);

/// Every owner's quota by owner, and when they were read.
type Read = (Instant, Arc<HashMap<String, Quota>>);

/// The quotas last read, if any.
#[derive(Debug, Default)]
pub struct QuotaBook {
    read: Mutex<Option<Read>>,
}

impl QuotaBook {
    /// `owner`'s quota as read from `store` within the last [`FRESH`]; the
    /// empty quota (no limit) for an owner without one.
    pub async fn of(&self, store: &dyn Store, owner: &str) -> StoreResult<Quota> {
        let fresh = lock(&self.read).as_ref().filter(|(at, _)| at.elapsed() < FRESH).map(|(_, all)| all.clone());
        let all = match fresh {
            Some(all) => all,
            None => {
                let all: Arc<HashMap<String, Quota>> = Arc::new(store.list_quotas().await?.into_iter().collect());
                *lock(&self.read) = Some((Instant::now(), all.clone()));
                all
            }
        };
        Ok(all.get(owner).copied().unwrap_or_default())
    }

    /// Forgets what was read, after this process set a quota, so that it
    /// holds here from the next request on.
    pub fn forget(&self) {
        *lock(&self.read) = None;
    }
}

/// The lock of a value no holder can leave half-changed: a poisoned one is used as it is.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
