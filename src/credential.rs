//! Credentials as the domain knows them: a key that never shows, and what
//! may be shown about a stored one. The store keeps them; the engine looks a
//! step's key up and hands it to the provider it builds.
//!
//! [`ApiKey`] has no `Display` and no `Serialize`, and its `Debug` prints a
//! placeholder, so a key cannot reach an API answer, an event or a log line by
//! being formatted; error messages that might quote it are scrubbed.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// A secret API key. Its only way out is [`ApiKey::expose`], used to build
/// the request headers.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for a request header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A hint that lets a person tell keys apart without revealing them: the
    /// last four characters of a long key, nothing for a short one.
    pub fn hint(&self) -> Option<String> {
        let chars: Vec<char> = self.0.chars().collect();
        (chars.len() >= 20).then(|| format!("…{}", chars[chars.len() - 4..].iter().collect::<String>()))
    }

    /// Replaces every occurrence of the key in `text`, for messages that
    /// might quote it (a server echoing a rejected key, say).
    pub fn scrub(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.0, "[redacted]")
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// What the API shows about a stored credential: never the key.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CredentialInfo {
    /// The credential name: a provider ID, or `provider:label`.
    pub provider: String,
    /// The last characters of the key, when it is long enough to spare them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(with = "crate::model::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::model::timestamp")]
    pub updated_at: DateTime<Utc>,
}
