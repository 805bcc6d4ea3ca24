//! Values that never show: secrets, which an MCP server's `env` and
//! `headers` name as `{"secret": "NAME"}` and a worker resolves when it
//! starts or reaches that server, and the kind they share with provider keys
//! ([`crate::domain::credential::ApiKey`]).
//!
//! A secret is write-only: the API takes its value and shows only its name
//! and when it was set ([`SecretInfo`]). [`Sealed`] has no `Display` and no
//! `Serialize`, and its `Debug` prints a placeholder, so a value cannot reach
//! an answer, an event or a log line by being formatted; its one way out is
//! [`Sealed::expose`], for the place it is meant for.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use chrono::{DateTime, Utc};
use serde::Serialize;

/// The longest secret name, in characters.
pub const MAX_NAME_CHARS: usize = 128;

/// The largest secret value, in bytes of UTF-8: room for a certificate or a
/// token, small enough to sit in an environment.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// What a sealed value is, for the placeholder its `Debug` prints.
pub trait Kind {
    /// The type's name as `Debug` shows it: `ApiKey([redacted])`.
    const NAME: &'static str;
}

/// A value that never shows. Each kind of value is its own type
/// (`Sealed<K>`), so one cannot be handed where the other is meant.
pub struct Sealed<K: Kind> {
    value: String,
    kind: PhantomData<K>,
}

impl<K: Kind> Sealed<K> {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Sealed { value: value.into(), kind: PhantomData }
    }

    /// The value itself, for the one place it is meant for (a request
    /// header, a server's environment) and nothing else.
    pub fn expose(&self) -> &str {
        &self.value
    }

    /// Replaces every occurrence of the value in `text`, for messages that
    /// might quote it (a server echoing what it was given, say). Values
    /// shorter than four characters are left alone: replacing them would
    /// garble the message without hiding anything worth hiding.
    pub fn scrub(&self, text: &str) -> String {
        if self.value.len() < 4 {
            return text.to_string();
        }
        text.replace(&self.value, "[redacted]")
    }
}

// Written by hand rather than derived: a derive would ask the kind, a mere
// marker, to be `Clone` and `PartialEq` too.
impl<K: Kind> Clone for Sealed<K> {
    fn clone(&self) -> Self {
        Sealed::new(self.value.clone())
    }
}

impl<K: Kind> PartialEq for Sealed<K> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<K: Kind> Eq for Sealed<K> {}

impl<K: Kind> fmt::Debug for Sealed<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}([redacted])", K::NAME)
    }
}

/// The kind of a [`Secret`].
pub enum SecretValue {}

impl Kind for SecretValue {
    const NAME: &'static str = "Secret";
}

/// A secret's value, as `PUT /secrets/{name}` stored it.
pub type Secret = Sealed<SecretValue>;

/// Secret values by name, as read for one use (an MCP server's connection).
/// Like each value, the whole never shows: its `Debug` lists the names.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(BTreeMap<String, Secret>);

impl Secrets {
    /// The value of the secret `name`, if it is set.
    pub fn get(&self, name: &str) -> Option<&Secret> {
        self.0.get(name)
    }
}

impl Secrets {
    /// Replaces every value of these secrets in `text` with `[secret
    /// NAME]`, for text a tool source writes (an MCP server's stderr) that
    /// may echo what it was given. Values shorter than four characters are
    /// left alone, as [`Sealed::scrub`] does.
    pub fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        // Longest first: a value that contains another is replaced whole.
        let mut values: Vec<(&String, &Secret)> = self.0.iter().filter(|(_, v)| v.value.len() >= 4).collect();
        values.sort_by_key(|(_, v)| std::cmp::Reverse(v.value.len()));
        for (name, value) in values {
            if text.contains(&value.value) {
                text = text.replace(&value.value, &format!("[secret {name}]"));
            }
        }
        text
    }
}

impl From<Vec<(String, Secret)>> for Secrets {
    fn from(pairs: Vec<(String, Secret)>) -> Self {
        Secrets(pairs.into_iter().collect())
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

/// What may be shown about a stored secret: never its value.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct SecretInfo {
    /// The name an MCP server's `env` or `headers` refers to it by.
    pub name: String,
    /// Whose value it is: the caller's own, or the first admin's (`admin`),
    /// which every owner's runs use where they have none of their own.
    pub owner: String,
    /// When a value was first stored under this name.
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: DateTime<Utc>,
    /// When the current value was stored.
    #[serde(with = "crate::domain::model::timestamp")]
    pub updated_at: DateTime<Utc>,
}

/// How a URL shows in a log line: `scheme://host:port`, never its user,
/// password, path or query (a webhook's token sits in its path, a
/// collector's key in its query).
pub fn url_for_logs(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return "[not a URL]".into() };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    format!("{scheme}://{host_port}")
}

/// Checks a secret name: 1 to [`MAX_NAME_CHARS`] characters of `A-Z`, `a-z`,
/// `0-9`, `_`, `.` and `-`, so that it reads the same in a path, a JSON
/// reference and a shell.
pub fn check_name(name: &str) -> Result<(), String> {
    let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || !plain {
        return Err(format!("a secret name is 1 to {MAX_NAME_CHARS} characters of A-Z, a-z, 0-9, '_', '.' or '-'"));
    }
    Ok(())
}

/// Checks a value before it is stored: not empty, no NUL (no environment
/// and no database text can hold one), at most [`MAX_VALUE_BYTES`]. The
/// refusal never quotes the value.
pub fn check_value(value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("a secret's value must not be empty".into());
    }
    if value.contains('\0') {
        return Err("a secret's value must not contain NUL characters".into());
    }
    if value.len() > MAX_VALUE_BYTES {
        return Err(format!("a secret's value must be at most {} KiB of UTF-8", MAX_VALUE_BYTES / 1024));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_shows_only_through_expose() {
        let secret = Secret::new("tok-SENTINEL-42");
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        assert_eq!(format!("{:?}", Some(secret.clone())), "Some(Secret([redacted]))");
        assert_eq!(secret.expose(), "tok-SENTINEL-42");
        assert_eq!(secret.scrub("got tok-SENTINEL-42, twice: tok-SENTINEL-42"), "got [redacted], twice: [redacted]");
        assert_eq!(Secret::new("ab").scrub("a b ab"), "a b ab", "too short to scrub without garbling");
        assert_eq!(secret, Secret::new("tok-SENTINEL-42"));
    }

    #[test]
    fn secrets_are_scrubbed_by_name_and_urls_show_only_where_they_lead() {
        let secrets = Secrets::from(vec![
            ("TOKEN".to_string(), Secret::new("tok-SENTINEL-42")),
            ("LONGER".to_string(), Secret::new("tok-SENTINEL-42-and-more")),
            ("PIN".to_string(), Secret::new("123")),
        ]);
        let echoed = "got tok-SENTINEL-42-and-more and tok-SENTINEL-42, pin 123";
        assert_eq!(secrets.scrub(echoed), "got [secret LONGER] and [secret TOKEN], pin 123");
        assert_eq!(
            url_for_logs("https://user:pw@hooks.slack.com:443/services/T0/B0/XXXX?token=y#f"),
            "https://hooks.slack.com:443"
        );
        assert_eq!(url_for_logs("http://collector:4318/v1/traces"), "http://collector:4318");
        assert_eq!(url_for_logs("http://[::1]:8080?key=1"), "http://[::1]:8080");
        assert_eq!(url_for_logs("not a url with secret"), "[not a URL]");
    }

    #[test]
    fn names_are_plain_and_at_most_128_characters() {
        for good in ["GITHUB_TOKEN", "a", "db.password-2", &"n".repeat(MAX_NAME_CHARS)] {
            assert!(check_name(good).is_ok(), "{good:?}");
        }
        for bad in ["", "has space", "a/b", "é", "a:b", "{x}", &"n".repeat(MAX_NAME_CHARS + 1)] {
            let refused = check_name(bad).unwrap_err();
            assert!(refused.contains("1 to 128"), "{bad:?}: {refused}");
        }
    }

    #[test]
    fn values_are_not_empty_have_no_nul_and_fit_64_kib() {
        for good in ["x", " spaced value\nwith lines ", "é", &"v".repeat(MAX_VALUE_BYTES)] {
            assert!(check_value(good).is_ok(), "{good:?}");
        }
        let value = "SENTINEL\0value";
        let refused = check_value(value).unwrap_err();
        assert!(refused.contains("NUL") && !refused.contains("SENTINEL"), "{refused}");
        assert!(check_value("").unwrap_err().contains("empty"));
        assert!(check_value(&"v".repeat(MAX_VALUE_BYTES + 1)).unwrap_err().contains("64 KiB"));
        assert!(check_value(&"é".repeat(MAX_VALUE_BYTES / 2 + 1)).is_err(), "the limit is in bytes");
    }
}
