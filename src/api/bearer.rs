//! Access to the API: with `--auth-token`, every route but `/health` asks
//! for `Authorization: Bearer <token>`.
//!
//! The token itself is never kept: the server holds its SHA-256 digest and
//! compares the digest of what a request presents in constant time, so
//! neither the comparison's duration nor a log line, a panic message or a
//! `Debug` print can give it away.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;

/// The routes anyone may call: a load balancer's health check has no token.
pub const OPEN_PATHS: &[&str] = &["/health"];

/// The digest of the token the API asks for.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthToken {
    digest: [u8; 32],
}

impl AuthToken {
    /// The token a server asks for; an empty or blank token is refused,
    /// since it would read as "set" while guarding nothing.
    pub fn new(token: &str) -> Result<AuthToken, String> {
        if token.trim().is_empty() {
            return Err("the auth token must not be empty".into());
        }
        Ok(AuthToken { digest: Sha256::digest(token.as_bytes()).into() })
    }

    /// True if `presented` is the token. Both sides are digests of the same
    /// length, compared without an early exit.
    pub fn matches(&self, presented: &str) -> bool {
        let presented: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let difference = self.digest.iter().zip(presented.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b));
        // Keeps the compiler from turning the fold into an early-exit compare.
        std::hint::black_box(difference) == 0
    }
}

impl std::fmt::Debug for AuthToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuthToken(<redacted>)")
    }
}

/// The middleware: passes a request that needs no token or presents the
/// right one; answers any other with 401 and a `WWW-Authenticate` challenge.
pub async fn require(State(token): State<Option<Arc<AuthToken>>>, request: Request, next: Next) -> Response {
    let Some(token) = token else { return next.run(request).await };
    if OPEN_PATHS.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    match presented(&request) {
        Some(presented) if token.matches(presented) => next.run(request).await,
        Some(_) => unauthorized("the bearer token is not this server's"),
        None => unauthorized("this server needs Authorization: Bearer <token> (the server's --auth-token)"),
    }
}

/// The token of an `Authorization: Bearer …` header (the scheme's name is
/// case-insensitive, RFC 7235).
fn presented(request: &Request) -> Option<&str> {
    let value = request.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(token.trim())
}

fn unauthorized(message: &str) -> Response {
    let mut response = ApiError::Rejected { status: StatusCode::UNAUTHORIZED, message: message.into() }.into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"wingman\""));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_token_matches() {
        let token = AuthToken::new("s3cret-token-value").unwrap();
        assert!(token.matches("s3cret-token-value"));
        for wrong in ["", "s3cret-token-valu", "s3cret-token-value ", "S3CRET-TOKEN-VALUE", "x"] {
            assert!(!token.matches(wrong), "{wrong:?}");
        }
    }

    #[test]
    fn a_blank_token_is_refused_and_debug_shows_nothing() {
        assert!(AuthToken::new("").is_err() && AuthToken::new("  ").is_err());
        let shown = format!("{:?}", AuthToken::new("s3cret-token-value").unwrap());
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}
