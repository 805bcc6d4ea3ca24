//! Credentials as the domain knows them: a key that never shows, and what
//! may be shown about a stored one. The store keeps them; the engine looks a
//! step's key up and hands it to the provider it builds.
//!
//! [`ApiKey`] is a [`Sealed`] value, as secrets are: no `Display`, no
//! `Serialize`, a `Debug` that prints a placeholder, so a key cannot reach an
//! API answer, an event or a log line by being formatted; error messages that
//! might quote it are scrubbed.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::secret::{Kind, Sealed};

/// The kind of an [`ApiKey`].
pub enum KeyValue {}

impl Kind for KeyValue {
    const NAME: &'static str = "ApiKey";
}

/// A secret API key. Its only way out is [`Sealed::expose`], used to build
/// the request headers.
pub type ApiKey = Sealed<KeyValue>;

impl CredentialInfo {
    /// What is shown of `owner`'s `key` stored under `name`.
    pub fn of(owner: &str, name: &str, key: &ApiKey, created_at: DateTime<Utc>, updated_at: DateTime<Utc>) -> Self {
        CredentialInfo {
            provider: name.to_string(),
            owner: owner.to_string(),
            hint: key.hint(),
            created_at,
            updated_at,
        }
    }
}

impl ApiKey {
    /// A hint that lets a person tell keys apart without revealing them: the
    /// last four characters of a long key, nothing for a short one.
    pub fn hint(&self) -> Option<String> {
        let chars: Vec<char> = self.expose().chars().collect();
        (chars.len() >= 20).then(|| format!("…{}", chars[chars.len() - 4..].iter().collect::<String>()))
    }
}

/// What the API shows about a stored credential: never the key.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CredentialInfo {
    /// The credential name: a provider ID, or `provider:label`.
    pub provider: String,
    /// Whose key it is: the caller's own, or the first admin's (`admin`),
    /// which every owner's runs use where they have none of their own.
    pub owner: String,
    /// The last characters of the key, when it is long enough to spare them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::domain::model::timestamp")]
    pub updated_at: DateTime<Utc>,
}
