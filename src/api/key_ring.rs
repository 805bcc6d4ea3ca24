//! The API keys a server has looked up lately: a request's key is found by
//! its digest in the database at most once per [`FRESH`], so that a key
//! revoked through any server is refused by every server within a second,
//! while a busy client costs the database four lookups a second, not one
//! per request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::domain::access::ApiKeyInfo;
use crate::store::{Store, StoreResult};

/// How long a lookup is trusted: a revocation made on another server is
/// seen here within this time.
pub const FRESH: Duration = Duration::from_millis(250);

/// The most digests remembered; past it the memory starts over, so that a
/// flood of made-up keys cannot grow it.
const MAX_REMEMBERED: usize = 10_000;

/// A lookup's answer and when it was read.
type Seen = (Instant, Option<ApiKeyInfo>);

/// Recent key lookups, by digest, and whether any key is live at all.
pub struct KeyRing {
    store: Arc<dyn Store>,
    seen: Mutex<HashMap<[u8; 32], Seen>>,
    any_live: Mutex<Option<(Instant, bool)>>,
}

impl KeyRing {
    /// A ring that looks keys up in `store`.
    pub fn new(store: Arc<dyn Store>) -> KeyRing {
        KeyRing { store, seen: Mutex::new(HashMap::new()), any_live: Mutex::new(None) }
    }

    /// The stored key with `digest` (revoked or expired ones too), as
    /// looked up within the last [`FRESH`].
    pub async fn lookup(&self, digest: [u8; 32]) -> StoreResult<Option<ApiKeyInfo>> {
        if let Some((at, key)) = lock(&self.seen).get(&digest) {
            if at.elapsed() < FRESH {
                return Ok(key.clone());
            }
        }
        let key = self.store.find_api_key(digest).await?;
        let mut seen = lock(&self.seen);
        if seen.len() >= MAX_REMEMBERED {
            seen.clear();
        }
        seen.insert(digest, (Instant::now(), key.clone()));
        Ok(key)
    }

    /// Whether any key opens the API: a server without one lets every
    /// request in as its local user.
    pub async fn any_live(&self) -> StoreResult<bool> {
        if let Some((at, live)) = *lock(&self.any_live) {
            if at.elapsed() < FRESH {
                return Ok(live);
            }
        }
        let live = self.store.any_live_api_key().await?;
        *lock(&self.any_live) = Some((Instant::now(), live));
        Ok(live)
    }

    /// Forgets every lookup, after this server made or revoked a key, so
    /// that the change holds here from the next request on.
    pub fn forget(&self) {
        lock(&self.seen).clear();
        *lock(&self.any_live) = None;
    }
}

/// The lock of a map no holder can leave half-changed: a poisoned one is used as it is.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
