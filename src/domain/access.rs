//! Who calls the API: API keys, each with an owner and a role, and what
//! each role may do.
//!
//! A key is a random secret shown once, in the answer that made it; the
//! store keeps only its SHA-256 digest, so neither the database nor a log
//! can give a key back. A request's key is found by its digest, which the
//! secret's 256 random bits make as good as the key to look up and useless
//! to guess.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

/// The owner of the `--auth-token` and of a server's local user when no
/// key exists: the first admin.
pub use crate::domain::model::FIRST_ADMIN;

/// The prefix of every key, so that a key found in a file or a log can be
/// recognised as Wingman's.
const KEY_PREFIX: &str = "wmk_";

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everything, every owner's work and the server's settings included.
    Admin,
    /// Read, submit, cancel, approve and steer its owner's work.
    Member,
    /// Read and tail its owner's work.
    Reader,
}

impl Role {
    /// The role's name, as the API writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Member => "member",
            Role::Reader => "reader",
        }
    }

    /// The role a stored name stands for.
    pub fn parse(name: &str) -> Option<Role> {
        match name {
            "admin" => Some(Role::Admin),
            "member" => Some(Role::Member),
            "reader" => Some(Role::Reader),
            _ => None,
        }
    }
}

/// Who made a request: the owner and role of its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Whose work the request may see and change.
    pub owner: String,
    /// What it may do.
    pub role: Role,
    /// The key's ID; `None` for the `--auth-token` and a keyless server's local user.
    pub key_id: Option<String>,
    /// The key's name, if it was given one.
    pub key_name: Option<String>,
}

/// Who did something through the API, as the events of people's actions
/// (`by`) and the audit log name them: the key's owner, and its name and
/// ID (neither for the `--auth-token` or a keyless server's local user).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct By {
    pub owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
}

impl Caller {
    /// The first admin: the holder of `--auth-token`, or anyone on a server
    /// that has neither a token nor a key.
    pub fn first_admin() -> Caller {
        Caller { owner: FIRST_ADMIN.into(), role: Role::Admin, key_id: None, key_name: None }
    }

    /// The caller as what it does is recorded.
    pub fn by(&self) -> By {
        By { owner: self.owner.clone(), name: self.key_name.clone(), key_id: self.key_id.clone() }
    }

    /// Whether the caller may see an object of `owner`: its own, a shared
    /// one (every owner may read and use it), or any, for an admin.
    pub fn sees(&self, owner: &str, shared: bool) -> bool {
        self.role == Role::Admin || shared || self.owner == owner
    }

    /// Whether the caller may change or delete an object of `owner`: its
    /// owner or an admin, even where the object is shared.
    pub fn may_change(&self, owner: &str) -> bool {
        self.role == Role::Admin || self.owner == owner
    }

    /// The owner a list is narrowed to: the caller's, or `None` (every
    /// owner's) for an admin.
    pub fn only(&self) -> Option<String> {
        (self.role != Role::Admin).then(|| self.owner.clone())
    }
}

/// Why `role` may not make a request (`reads` for `GET` and `HEAD`) to
/// `path`, or `None` if it may. Keys, workers, metrics, the queue, and the
/// provider limits every run shares are the admin's (a member keeps provider
/// keys and secrets of its own owner's); a reader only reads.
pub fn refusal(role: Role, reads: bool, path: &str) -> Option<&'static str> {
    if role == Role::Admin {
        return None;
    }
    let under = |root: &str| path == root || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'));
    // The queue's view counts every owner's work, and the audit log shows every owner's acts: the admin's.
    let admin_only = under("/keys") || under("/workers") || under("/metrics") || under("/queue") || under("/audit");
    // Provider limits are shared by every owner's runs; quotas bind their owner.
    let shared_settings = under("/provider/limits") || under("/owners");
    if admin_only || (shared_settings && !reads) {
        return Some("this needs an admin key");
    }
    if role == Role::Reader && !reads {
        return Some("a reader's key may only read");
    }
    None
}

/// Why a server without `--auth-token` may not make a key of `role` among
/// `keys`: a member's or reader's key while no admin key is live would
/// leave no one able to make or revoke keys.
pub fn first_key_refusal(role: Role, keys: &[ApiKeyInfo], now: DateTime<Utc>) -> Option<&'static str> {
    let admin_live = keys.iter().any(|key| key.role == Role::Admin && key.live_at(now));
    (role != Role::Admin && !admin_live).then_some(
        "the first key of a server without --auth-token must be an admin key: a member's or reader's key \
         alone would leave no one able to make or revoke keys",
    )
}

/// Why a server without `--auth-token` may not revoke key `id` among
/// `keys`: it is the last live admin key while other keys are live.
pub fn revocation_refusal(id: &str, keys: &[ApiKeyInfo], now: DateTime<Utc>) -> Option<&'static str> {
    let live: Vec<&ApiKeyInfo> = keys.iter().filter(|key| key.live_at(now)).collect();
    let admins = live.iter().filter(|key| key.role == Role::Admin).count();
    let last_admin = admins == 1 && live.iter().any(|key| key.id == id && key.role == Role::Admin);
    (last_admin && live.len() > 1).then_some(
        "this is the last live admin key and other keys are live: revoke them first, or start a server \
         with --auth-token",
    )
}

/// Bytes as lowercase hex: a key's random part, and its digest as stored.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new key: the secret to show once, and what the store keeps of it.
pub struct MintedKey {
    /// The key itself, in the answer that made it and nowhere else.
    pub secret: String,
    /// What is stored.
    pub record: NewApiKey,
}

/// What the store keeps of a new key.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub id: String,
    pub owner: String,
    pub role: Role,
    pub name: Option<String>,
    /// SHA-256 of the key.
    pub digest: [u8; 32],
    /// The key's last four characters, to tell keys apart in a list.
    pub hint: String,
    pub expires_at: Option<DateTime<Utc>>,
}

/// A stored key as the API shows it: never the key, nor its digest.
#[derive(Debug, Clone, Serialize, ToSchema, PartialEq)]
pub struct ApiKeyInfo {
    /// The key's ID (not the key).
    pub id: String,
    /// Whose work it opens.
    pub owner: String,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `…` and the key's last four characters.
    pub hint: String,
    #[serde(with = "crate::domain::model::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: DateTime<Utc>,
    /// When the key stops working, if it does by itself.
    #[serde(skip_serializing_if = "Option::is_none", with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    #[serde(skip_serializing_if = "Option::is_none", with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub revoked_at: Option<DateTime<Utc>>,
}

impl ApiKeyInfo {
    /// Whether the key opens the API at `now`: not revoked, not expired.
    pub fn live_at(&self, now: DateTime<Utc>) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| at > now)
    }

    /// The caller a request with this key is.
    pub fn caller(&self) -> Caller {
        Caller {
            owner: self.owner.clone(),
            role: self.role,
            key_id: Some(self.id.clone()),
            key_name: self.name.clone(),
        }
    }
}

/// Makes a key for `owner` with `role`: 32 bytes from the operating
/// system's random source, written as hex after [`KEY_PREFIX`].
pub fn mint(
    owner: String,
    role: Role,
    name: Option<String>,
    expires_at: Option<DateTime<Utc>>,
) -> Result<MintedKey, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("the system's random source failed: {e}"))?;
    let secret = format!("{KEY_PREFIX}{}", hex(&bytes));
    let hint = format!("…{}", &secret[secret.len() - 4..]);
    let id = crate::domain::model::new_id();
    let record = NewApiKey { id, owner, role, name, digest: digest(&secret), hint, expires_at };
    Ok(MintedKey { secret, record })
}

/// The digest a key is stored and looked up by.
pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// An owner's name: 1 to 64 letters, digits, `.`, `_`, `-` or `@`, so that
/// it reads the same in a URL, a log and a concurrency key.
pub fn check_owner(owner: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@');
    if owner.is_empty() || owner.len() > 64 || !owner.chars().all(allowed) {
        return Err(format!("owner {owner:?} must be 1 to 64 letters, digits, '.', '_', '-' or '@'"));
    }
    Ok(())
}

/// A key's name: up to 100 characters, none of them a control character.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
        return Err("a key's name must be 1 to 100 characters, none of them a control character".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_key_is_random_and_only_its_digest_and_hint_are_kept() {
        let a = mint("team-a".into(), Role::Member, None, None).unwrap();
        let b = mint("team-a".into(), Role::Member, None, None).unwrap();
        assert_ne!(a.secret, b.secret);
        assert!(a.secret.starts_with("wmk_") && a.secret.len() == 4 + 64, "{}", a.secret);
        assert_eq!(a.record.digest, digest(&a.secret));
        assert!(a.secret.ends_with(a.record.hint.trim_start_matches('…')));
        assert_eq!(a.record.hint.chars().count(), 5);
    }

    #[test]
    fn each_role_reaches_what_it_should() {
        use Role::*;
        for path in ["/keys", "/keys/01K", "/workers", "/metrics", "/queue", "/audit"] {
            assert!(refusal(Admin, true, path).is_none());
            assert!(refusal(Member, true, path).is_some(), "{path}");
            assert!(refusal(Reader, true, path).is_some(), "{path}");
        }
        for path in ["/provider/limits", "/provider/limits/openai"] {
            assert!(refusal(Member, true, path).is_none(), "{path}: a member reads them");
            assert!(refusal(Member, false, path).is_some(), "{path}: every run shares them");
            assert!(refusal(Admin, false, path).is_none());
        }
        for path in ["/secrets/TOKEN", "/provider/auth", "/provider/auth/openai"] {
            assert!(refusal(Member, false, path).is_none(), "{path}: a member keeps its owner's own");
            assert!(refusal(Reader, false, path).is_some(), "{path}: a reader only reads");
        }
        assert!(refusal(Member, false, "/sessions/x/message").is_none());
        assert!(refusal(Reader, false, "/sessions/x/message").is_some());
        assert!(refusal(Reader, true, "/runs/x/events").is_none());
        assert!(refusal(Member, true, "/keysmith").is_none(), "a prefix is a whole segment");
    }

    #[test]
    fn an_owner_sees_its_own_and_shared_objects_and_changes_only_its_own() {
        let member = |owner: &str| Caller { owner: owner.into(), role: Role::Member, key_id: None, key_name: None };
        let (alpha, admin) = (member("alpha"), Caller::first_admin());
        assert!(alpha.sees("alpha", false) && alpha.sees("beta", true));
        assert!(!alpha.sees("beta", false), "another owner's unshared object");
        assert!(alpha.may_change("alpha") && !alpha.may_change("beta"), "shared is not changeable");
        assert!(admin.sees("beta", false) && admin.may_change("beta"));
        assert_eq!((alpha.only(), admin.only()), (Some("alpha".to_string()), None));
    }

    #[test]
    fn a_revoked_or_expired_key_is_not_live() {
        let now = Utc::now();
        let mut key = ApiKeyInfo {
            id: "k".into(),
            owner: "o".into(),
            role: Role::Reader,
            name: None,
            hint: "…abcd".into(),
            created_at: now,
            expires_at: None,
            revoked_at: None,
        };
        assert!(key.live_at(now));
        key.expires_at = Some(now);
        assert!(!key.live_at(now), "expiry is exclusive");
        key.expires_at = Some(now + chrono::Duration::seconds(1));
        assert!(key.live_at(now));
        key.revoked_at = Some(now);
        assert!(!key.live_at(now));
    }

    #[test]
    fn a_keyless_server_keeps_a_live_admin_key() {
        let now = Utc::now();
        let key = |id: &str, role| ApiKeyInfo {
            id: id.into(),
            owner: "o".into(),
            role,
            name: None,
            hint: "…abcd".into(),
            created_at: now,
            expires_at: None,
            revoked_at: None,
        };
        assert!(first_key_refusal(Role::Member, &[], now).is_some());
        assert!(first_key_refusal(Role::Admin, &[], now).is_none());
        let admin = key("a", Role::Admin);
        assert!(first_key_refusal(Role::Reader, std::slice::from_ref(&admin), now).is_none());
        assert!(revocation_refusal("a", std::slice::from_ref(&admin), now).is_none(), "the only key may go");
        let both = [admin.clone(), key("m", Role::Member)];
        assert!(revocation_refusal("a", &both, now).is_some());
        assert!(revocation_refusal("m", &both, now).is_none());
        let two_admins = [admin, key("b", Role::Admin), key("m", Role::Member)];
        assert!(revocation_refusal("a", &two_admins, now).is_none());
    }

    #[test]
    fn owners_and_names_are_checked() {
        for good in ["a", "team-a", "ann@example.com", "x_y.z"] {
            assert!(check_owner(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "a/b", "ü", &"x".repeat(65)] {
            assert!(check_owner(bad).is_err(), "{bad}");
        }
        assert!(check_name("ci deploy").is_ok());
        assert!(check_name(" ").is_err() && check_name("a\nb").is_err() && check_name(&"n".repeat(101)).is_err());
    }
}
