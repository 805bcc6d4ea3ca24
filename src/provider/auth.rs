//! Credentials: API keys that never show.
//!
//! A key lives in the store under a credential name: a provider's own ID
//! (`anthropic`, `openai`, `ollama`) or that ID with a label
//! (`openai:openrouter`), so that one provider can reach several servers with
//! different keys. The worker reads the key when it builds a provider for a
//! step. A stored key wins over the provider's environment variable, which is
//! only a fallback for the provider's own credential name.
//!
//! [`ApiKey`] has no `Display` and no `Serialize`, and its `Debug` prints a
//! placeholder, so a key cannot reach an API answer, an event or a log line by
//! being formatted; error messages that might quote it are scrubbed.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use super::ProviderError;
use crate::store::Store;

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

/// Checks a credential name: `provider` or `provider:label`, where the
/// provider takes a key and the label is short, lowercase and plain.
pub fn check_name(name: &str) -> Result<(), String> {
    let (provider, label) = match name.split_once(':') {
        Some((p, l)) => (p, Some(l)),
        None => (name, None),
    };
    let Some(info) = super::catalog().into_iter().find(|p| p.id == provider) else {
        let known: Vec<_> = super::catalog().into_iter().filter(|p| p.env.is_some()).map(|p| p.id).collect();
        return Err(format!("unknown provider {provider:?} (providers that take keys: {})", known.join(", ")));
    };
    if info.env.is_none() {
        return Err(format!("the {provider} provider takes no credentials"));
    }
    if let Some(label) = label {
        let plain = label.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c));
        if label.is_empty() || label.len() > 64 || !plain {
            return Err("a credential label is 1 to 64 characters of a-z, 0-9, '-', '_' or '.'".into());
        }
    }
    Ok(())
}

/// Checks a key before it is stored: it must fit in an HTTP header.
pub fn check_key(key: &str) -> Result<(), String> {
    if key.is_empty() || key.len() > 4096 {
        return Err("the key must be 1 to 4096 characters".into());
    }
    if !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("the key must be visible ASCII without spaces".into());
    }
    Ok(())
}

/// The credential name an agent's steps use: `options.credential` when set,
/// else the provider's own ID.
pub fn credential_name(provider: &str, options: &Map<String, Value>) -> String {
    match options.get("credential").and_then(Value::as_str) {
        Some(name) => name.to_string(),
        None => provider.to_string(),
    }
}

/// Finds the key for a step: the stored credential, else (for the provider's
/// own name only) its environment variable. `None` when there is neither.
pub async fn resolve(
    store: &dyn Store,
    provider: &str,
    options: &Map<String, Value>,
) -> Result<Option<ApiKey>, ProviderError> {
    let name = credential_name(provider, options);
    match store.get_credential(&name).await {
        Ok(Some(key)) => return Ok(Some(key)),
        Ok(None) => {}
        // A database hiccup is worth a retry, like a provider's own 5xx.
        Err(e) => return Err(ProviderError::transient(format!("could not read the credential {name:?}: {e}"))),
    }
    if name != provider {
        return Ok(None);
    }
    let env = super::catalog().into_iter().find(|p| p.id == provider).and_then(|p| p.env);
    Ok(env.and_then(|var| std::env::var(var).ok()).filter(|k| !k.trim().is_empty()).map(|k| ApiKey::new(k.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_hint_never_show_the_key() {
        let key = ApiKey::new("sk-ant-SENTINEL-0123456789abcdef");
        assert_eq!(format!("{key:?}"), "ApiKey([redacted])");
        assert_eq!(key.hint().as_deref(), Some("…cdef"));
        assert_eq!(ApiKey::new("short-key").hint(), None);
        assert_eq!(key.scrub("bad key sk-ant-SENTINEL-0123456789abcdef!"), "bad key [redacted]!");
    }

    #[test]
    fn names_are_a_keyed_provider_with_an_optional_label() {
        assert!(check_name("anthropic").is_ok());
        assert!(check_name("openai:openrouter").is_ok());
        assert!(check_name("ollama").is_ok());
        assert!(check_name("scripted").unwrap_err().contains("no credentials"));
        assert!(check_name("antropic").unwrap_err().contains("unknown provider"));
        assert!(check_name("openai:").is_err());
        assert!(check_name("openai:Bad Label").is_err());
    }

    #[tokio::test]
    async fn a_stored_key_wins_over_the_environment_which_only_serves_the_providers_own_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let store = crate::store::open(path.to_str().unwrap(), &Default::default()).await.unwrap();
        let none = Map::new();
        // Only this test touches OLLAMA_API_KEY.
        std::env::set_var("OLLAMA_API_KEY", " from-env-0123 ");
        let key = resolve(store.as_ref(), "ollama", &none).await.unwrap();
        assert_eq!(key.unwrap().expose(), "from-env-0123");
        let labelled: Map<String, Value> = serde_json::from_str(r#"{"credential": "ollama:cloud"}"#).unwrap();
        assert_eq!(resolve(store.as_ref(), "ollama", &labelled).await.unwrap(), None);
        store.put_credential("ollama", &ApiKey::new("from-store-4567")).await.unwrap();
        store.put_credential("ollama:cloud", &ApiKey::new("cloud-89ab")).await.unwrap();
        assert_eq!(resolve(store.as_ref(), "ollama", &none).await.unwrap().unwrap().expose(), "from-store-4567");
        assert_eq!(resolve(store.as_ref(), "ollama", &labelled).await.unwrap().unwrap().expose(), "cloud-89ab");
        std::env::remove_var("OLLAMA_API_KEY");
        store.delete_credential("ollama").await.unwrap();
        assert_eq!(resolve(store.as_ref(), "ollama", &none).await.unwrap(), None);
    }

    #[test]
    fn keys_must_fit_a_header() {
        assert!(check_key("sk-abc").is_ok());
        assert!(check_key("").is_err());
        assert!(check_key("sk abc").is_err());
        assert!(check_key("sk-abc\n").is_err());
    }
}
