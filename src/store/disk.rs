//! Whether the database's disk is full, as this process last found it:
//! each backend says so when a write fails for want of space, and when a
//! write succeeds again. `GET /health` reports it, so that an operator
//! reads "the disk is full" rather than a bare error.

use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};

/// When a write last failed for want of space (Unix milliseconds), or 0
/// after a write succeeded.
static FULL_AT: AtomicI64 = AtomicI64::new(0);

/// How long a full disk is reported after the last write that found it
/// full, when no write has succeeded since (a backend whose writes all
/// stopped says nothing more).
const REPORTED_FOR_MS: i64 = 30_000;

/// A write failed for want of space (`ok` false), or succeeded.
pub fn noticed(ok: bool) {
    FULL_AT.store(if ok { 0 } else { Utc::now().timestamp_millis().max(1) }, Ordering::Relaxed);
}

/// When a write last found the disk full, if none succeeded since and that
/// was recent.
pub fn full_at() -> Option<DateTime<Utc>> {
    let at = FULL_AT.load(Ordering::Relaxed);
    let recent = at != 0 && Utc::now().timestamp_millis() - at < REPORTED_FOR_MS;
    recent.then(|| DateTime::from_timestamp_millis(at)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_reported_until_a_write_succeeds() {
        noticed(false);
        assert!(full_at().is_some());
        noticed(true);
        assert!(full_at().is_none());
    }
}
