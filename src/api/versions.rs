//! Concurrent edits of definitions (agents, fleets, schedules): each has a
//! `version`, one more with each change, and a change is written only over
//! the version it read. A client that names the version it read
//! (`If-Match: <version>`, or `"version"` in the body) gets a `409` when
//! another change came first; one that names none gets its change made over
//! the newest version, read again, so the last write wins as it always did
//! but never erases a field that another change set meanwhile.

use std::future::Future;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;

use super::error::{ApiError, ApiResult};

/// How often a change that named no version is made again after losing a
/// race to another change.
const RETRIES: u32 = 5;

/// The `If-Match` header in the document.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IfMatchParam {
    /// The version the change is made over (`3`, `"3"` or `W/"3"`; `*` is
    /// any): a `409` if it is at another. Without it, the change is made over
    /// the newest version.
    #[param(rename = "If-Match", value_type = Option<String>, pattern = r#"^(\*|W/"[0-9]{1,18}"|"[0-9]{1,18}"|[0-9]{1,18})$"#)]
    #[allow(dead_code)]
    if_match: Option<String>,
}

/// The version an `If-Match` header names (`3`, `"3"` or `W/"3"`); `*` or
/// no header names none.
#[derive(Debug, Clone, Copy)]
pub struct IfMatch(pub Option<u64>);

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get(header::IF_MATCH) else { return Ok(IfMatch(None)) };
        let refused = || ApiError::BadRequest("If-Match must name a version, as in `If-Match: 3`".into());
        let text = value.to_str().map_err(|_| refused())?.trim();
        if text == "*" {
            return Ok(IfMatch(None));
        }
        let bare = text.trim_start_matches("W/").trim_matches('"');
        bare.parse::<u64>().map(|v| IfMatch(Some(v))).map_err(|_| refused())
    }
}

/// The version a change is made over: the header's or the body's; both
/// given and different is a `400`.
pub fn wanted(header: IfMatch, body: Option<u64>) -> ApiResult<Option<u64>> {
    match (header.0, body) {
        (Some(h), Some(b)) if h != b => {
            Err(ApiError::BadRequest(format!("If-Match names version {h} and the body version {b}: name one")))
        }
        (h, b) => Ok(h.or(b)),
    }
}

/// Refuses a `version` in the body of a `POST`: there is nothing yet to
/// make a change over.
pub fn none_on_create(version: Option<u64>) -> ApiResult<()> {
    match version {
        Some(_) => Err(ApiError::BadRequest("version names what a change is made over: give it on PUT".into())),
        None => Ok(()),
    }
}

/// Refuses a change over `wanted` when `what` is at `current`.
pub fn check(wanted: Option<u64>, what: &str, current: u64) -> ApiResult<()> {
    match wanted {
        Some(wanted) if wanted != current => Err(ApiError::Stale(format!(
            "{what} is at version {current}, not {wanted}: read it again and make the change over that"
        ))),
        _ => Ok(()),
    }
}

/// Makes a change (`attempt` reads, checks with [`check`], changes and
/// writes), again over the newer version when another change won the race
/// and the client named no version.
pub async fn edit<T, F, Fut>(wanted: Option<u64>, mut attempt: F) -> ApiResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = ApiResult<T>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(ApiError::Stale(_)) if wanted.is_none() && tries < RETRIES => tries += 1,
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::Request;

    use super::*;

    async fn if_match(value: &str) -> ApiResult<Option<u64>> {
        let (mut parts, ()) = Request::builder().header("if-match", value).body(()).unwrap().into_parts();
        IfMatch::from_request_parts(&mut parts, &()).await.map(|m| m.0)
    }

    #[tokio::test]
    async fn if_match_names_a_version_bare_quoted_or_weak() {
        assert_eq!(if_match("3").await.unwrap(), Some(3));
        assert_eq!(if_match("\"3\"").await.unwrap(), Some(3));
        assert_eq!(if_match("W/\"3\"").await.unwrap(), Some(3));
        assert_eq!(if_match("*").await.unwrap(), None);
        assert!(matches!(if_match("three").await, Err(ApiError::BadRequest(_))));
        assert!(matches!(wanted(IfMatch(Some(2)), Some(3)), Err(ApiError::BadRequest(_))));
        assert_eq!(wanted(IfMatch(None), Some(3)).unwrap(), Some(3));
    }

    #[tokio::test]
    async fn a_lost_race_is_tried_again_only_when_no_version_was_named() {
        let stale = || async { Err::<(), _>(ApiError::Stale("changed".into())) };
        let mut tries = 0;
        let counted = edit(None, || {
            tries += 1;
            stale()
        });
        assert!(matches!(counted.await, Err(ApiError::Stale(_))));
        assert_eq!(tries, RETRIES + 1);
        let mut tries = 0;
        let named = edit(Some(1), || {
            tries += 1;
            stale()
        });
        assert!(matches!(named.await, Err(ApiError::Stale(_))));
        assert_eq!(tries, 1);
        assert!(check(Some(2), "agent a", 3).is_err());
        assert!(check(Some(3), "agent a", 3).is_ok() && check(None, "agent a", 3).is_ok());
    }
}
