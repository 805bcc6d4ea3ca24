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

use serde_json::{Map, Value};

pub use crate::domain::credential::{ApiKey, CredentialInfo};

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

/// The key a step uses, given what the store holds under the step's
/// credential name (`stored`, looked up by the caller): the stored key, else,
/// for the provider's own name only, its environment variable.
pub fn resolve(provider: &str, options: &Map<String, Value>, stored: Option<ApiKey>) -> Option<ApiKey> {
    if stored.is_some() {
        return stored;
    }
    if credential_name(provider, options) != provider {
        return None;
    }
    let env = super::catalog().into_iter().find(|p| p.id == provider).and_then(|p| p.env);
    env.and_then(|var| std::env::var(var).ok()).filter(|k| !k.trim().is_empty()).map(|k| ApiKey::new(k.trim()))
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

    #[test]
    fn a_stored_key_wins_over_the_environment_which_only_serves_the_providers_own_name() {
        let none = Map::new();
        // Only this test touches OLLAMA_API_KEY.
        std::env::set_var("OLLAMA_API_KEY", " from-env-0123 ");
        assert_eq!(resolve("ollama", &none, None).unwrap().expose(), "from-env-0123");
        let labelled: Map<String, Value> = serde_json::from_str(r#"{"credential": "ollama:cloud"}"#).unwrap();
        assert_eq!(credential_name("ollama", &labelled), "ollama:cloud");
        assert_eq!(resolve("ollama", &labelled, None), None);
        let stored = Some(ApiKey::new("from-store-4567"));
        assert_eq!(resolve("ollama", &none, stored.clone()).unwrap().expose(), "from-store-4567");
        assert_eq!(resolve("ollama", &labelled, stored).unwrap().expose(), "from-store-4567");
        std::env::remove_var("OLLAMA_API_KEY");
        assert_eq!(resolve("ollama", &none, None), None);
    }

    #[test]
    fn keys_must_fit_a_header() {
        assert!(check_key("sk-abc").is_ok());
        assert!(check_key("").is_err());
        assert!(check_key("sk abc").is_err());
        assert!(check_key("sk-abc\n").is_err());
    }
}
