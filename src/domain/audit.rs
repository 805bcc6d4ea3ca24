//! The audit log: one entry for each state change made through the API,
//! saying who made it, with which route, on what, and how it was answered.
//! What a change is, and what it names, is read from the request and its
//! answer here, so the API's recorder only gathers them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::access::{By, Role};

/// One state change made through the API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuditEntry {
    /// A ULID taken when the request arrived: the newest entry has the greatest.
    pub id: String,
    /// When the request arrived.
    #[serde(with = "crate::domain::model::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub at: DateTime<Utc>,
    /// Who made it.
    pub by: By,
    /// The role of the key it was made with.
    pub role: Role,
    /// The method and route, such as `POST /runs/{id}/approve`.
    pub action: String,
    /// The request's path.
    pub path: String,
    /// The object the path names (its first parameter), if it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The object the change made (the answer's `id`), when it is another
    /// than `target`: a created agent, a message's run, a key's ID (never the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made: Option<String>,
    /// The answer's status.
    pub status: u16,
}

/// Whether a request with `method` asks for a change: every method but
/// the reads (`GET`, `HEAD`) and a browser's preflight (`OPTIONS`).
pub fn is_change(method: &str) -> bool {
    !matches!(method, "GET" | "HEAD" | "OPTIONS")
}

/// Whether an answer with `status` means the change was made: a refused
/// request (4xx) or a failed one (5xx) changed nothing.
pub fn was_made(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The value of a route's first parameter in `path`: `/runs/{id}/approve`
/// and `/runs/01K…/approve` give `01K…`. `None` for a route without one,
/// or a path that does not follow its route.
pub fn target(route: &str, path: &str) -> Option<String> {
    let (route, path): (Vec<&str>, Vec<&str>) = (route.split('/').collect(), path.split('/').collect());
    if route.len() != path.len() {
        return None;
    }
    route.iter().zip(path).find(|(part, _)| part.starts_with('{')).map(|(_, value)| value.to_string())
}

/// What an answer's body says the change made: its top-level `id` (or a
/// message's `run_id`), unless that is the `target` the path already names.
pub fn made(answer: &serde_json::Value, target: Option<&str>) -> Option<String> {
    let id = ["id", "run_id"].iter().find_map(|field| answer.get(field)?.as_str())?;
    (Some(id) != target).then(|| id.to_string())
}

/// Whether `id` can be an entry's ID: a ULID as the server writes it, 26
/// characters of Crockford's base 32 in capitals, the first at most `7`.
pub fn is_entry_id(id: &str) -> bool {
    let crockford = |c: u8| c.is_ascii_digit() || (c.is_ascii_uppercase() && !b"ILOU".contains(&c));
    let bytes = id.as_bytes();
    bytes.len() == 26 && (b'0'..=b'7').contains(&bytes[0]) && bytes.iter().all(|&c| crockford(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_change_is_any_method_but_a_read_and_counts_when_answered_2xx() {
        assert!(is_change("POST") && is_change("PUT") && is_change("DELETE") && is_change("PATCH"));
        assert!(!is_change("GET") && !is_change("HEAD") && !is_change("OPTIONS"));
        assert!(was_made(200) && was_made(202) && was_made(204));
        assert!(!was_made(404) && !was_made(429) && !was_made(500) && !was_made(304));
    }

    #[test]
    fn the_target_is_the_routes_first_parameter_and_made_the_answers_other_id() {
        assert_eq!(target("/runs/{id}/approve", "/runs/01KRUN/approve").as_deref(), Some("01KRUN"));
        assert_eq!(target("/secrets/{name}", "/secrets/TOKEN").as_deref(), Some("TOKEN"));
        assert_eq!(target("/agents", "/agents"), None);
        assert_eq!(target("/runs/{id}", "/runs/a/b"), None, "a path that does not follow its route");
        let run = json!({"id": "01KRUN", "status": "queued"});
        assert_eq!(made(&run, Some("01KSESSION")).as_deref(), Some("01KRUN"));
        assert_eq!(made(&run, Some("01KRUN")), None, "the path names it already");
        let message = json!({"run_id": "01KRUN", "status": "queued"});
        assert_eq!(made(&message, Some("01KSESSION")).as_deref(), Some("01KRUN"), "a message's run");
        assert_eq!(made(&json!({"status": "deleted"}), None), None);
        assert_eq!(made(&json!([{"id": "x"}]), None), None, "a list makes nothing of its own");
    }

    #[test]
    fn an_entry_id_is_a_ulid_in_capitals() {
        assert!(is_entry_id(&crate::domain::model::new_id()));
        for refused in
            ["", "01KABC", "81K000000000000000000000000", "01k0000000000000000000000a", "01K000000000000000000000I0"]
        {
            assert!(!is_entry_id(refused), "{refused:?}");
        }
    }
}
