//! Idempotency keys: what makes a second submission of the same work
//! answer with the first one's result instead of making it again.

use sha2::{Digest, Sha256};

use super::{SubmitError, SubmitResult};
use crate::store::IdempotencyKey;

/// Where a submission's idempotency key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyed {
    /// None: every submission makes new work.
    None,
    /// The client's `Idempotency-Key`.
    Client(String),
    /// A schedule's tick: the key is the tick's time, scoped to the schedule.
    Tick { schedule_id: String, tick: String },
}

impl Keyed {
    /// A client's key: 1 to 255 characters.
    pub fn client(key: &str) -> SubmitResult<Keyed> {
        if key.is_empty() || key.len() > 255 {
            return Err(SubmitError::Invalid("Idempotency-Key must be 1 to 255 characters".into()));
        }
        Ok(Keyed::Client(key.to_string()))
    }

    /// The key of a submission within `scope` that stands for `parts`.
    pub fn key(&self, scope: &str, parts: &[&str]) -> Option<IdempotencyKey> {
        let (scope, key) = match self {
            Keyed::None => return None,
            Keyed::Client(key) => (scope.to_string(), key.clone()),
            Keyed::Tick { schedule_id, tick } => (format!("schedule:{schedule_id}"), tick.clone()),
        };
        Some(IdempotencyKey { scope, key, request_hash: request_hash(parts) })
    }
}

/// A hash of what a key stands for: the parts, each with its length.
pub fn request_hash(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    format!("{:x}", hash.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_stands_for_its_parts_and_a_tick_is_scoped_to_its_schedule() {
        assert!(Keyed::None.key("message:s", &["a"]).is_none());
        let client = Keyed::client("k1").unwrap().key("message:s", &["a", "b"]).unwrap();
        assert_eq!((client.scope.as_str(), client.key.as_str()), ("message:s", "k1"));
        assert_ne!(request_hash(&["ab", ""]), request_hash(&["a", "b"]), "lengths keep parts apart");
        let tick = Keyed::Tick { schedule_id: "S".into(), tick: "2026-01-01T00:00:00Z".into() };
        let tick = tick.key("message:s", &["a"]).unwrap();
        assert_eq!(tick.scope, "schedule:S");
        assert!(Keyed::client("").is_err() && Keyed::client(&"k".repeat(256)).is_err());
    }
}
