//! Access to the API: with `--auth-token`, or once the database holds an
//! API key, every route but `/health` asks for `Authorization: Bearer
//! <token or key>`; the request goes on as its [`Caller`], and a role that
//! may not make it is answered 403 ([`access::refusal`]). A server with
//! neither lets every request in as its local user, the first admin.
//!
//! A browser's `EventSource` cannot send that header, so a read (`GET`,
//! `HEAD`) may present the token as the cookie `wingman_token` instead, which
//! the dashboard sets. A request that changes state needs the header: a page
//! of another site can make the browser send a cookie (where `SameSite` does
//! not stop it), never the header. The dashboard's own pages and assets hold
//! no data and need no token.
//!
//! Neither the token nor a key is ever kept: the server holds the token's
//! SHA-256 digest and compares the digest of what a request presents in
//! constant time, and finds a key by its digest ([`KeyRing`]), so neither a
//! comparison's duration nor a log line, a panic message or a `Debug` print
//! can give one away.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::key_ring::KeyRing;
use crate::domain::access::{self, Caller};

/// The API routes anyone may call: a load balancer's health check has no token.
pub const OPEN_PATHS: &[&str] = &["/health"];

/// The cookie that carries the token of a browser's reads.
const COOKIE: &str = "wingman_token";

/// True for the routes anyone may call: the open API routes, and the
/// dashboard's shell pages and assets, which hold no data.
fn is_open(path: &str) -> bool {
    OPEN_PATHS.contains(&path) || path == "/ui" || path.starts_with("/ui/")
}

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

/// What guards the API: the `--auth-token`, and the API keys in the
/// database (a worker's metrics listener has only the token).
#[derive(Clone, Default)]
pub struct Gate {
    pub token: Option<Arc<AuthToken>>,
    pub keys: Option<Arc<KeyRing>>,
}

/// Refused keys all read alike, so that an answer never tells an unknown
/// key from a revoked or an expired one.
const NOT_A_KEY: &str = "the bearer token is neither this server's token nor a live API key";

/// The middleware: passes a request that needs no token, or whose caller
/// ([`identify`]) may make it, with the [`Caller`] in its extensions;
/// answers 401 (with a `WWW-Authenticate` challenge) or 403 otherwise.
pub async fn require(State(gate): State<Gate>, mut request: Request, next: Next) -> Response {
    if is_open(request.uri().path()) {
        return next.run(request).await;
    }
    // Read before any await: a request is not `Sync`, so no borrow of it may be held across one.
    let presented = presented(&request);
    let caller = match identify(&gate, presented).await {
        Ok(caller) => caller,
        Err(refused) => return refused,
    };
    let reads = request.method() == Method::GET || request.method() == Method::HEAD;
    if let Some(why) = access::refusal(caller.role, reads, request.uri().path()) {
        return ApiError::Rejected { status: StatusCode::FORBIDDEN, message: why.into() }.into_response();
    }
    request.extensions_mut().insert(caller);
    next.run(request).await
}

/// Who makes a request that presents `presented`: the first admin for the
/// token (or for anyone while the server has neither a token nor a live
/// key), else the owner and role of the live key it presents.
async fn identify(gate: &Gate, presented: Option<String>) -> Result<Caller, Response> {
    if let (Some(token), Some(presented)) = (&gate.token, &presented) {
        if token.matches(presented) {
            return Ok(Caller::first_admin());
        }
    }
    if let (Some(keys), Some(presented)) = (&gate.keys, &presented) {
        let key = keys.lookup(access::digest(presented)).await.map_err(|e| ApiError::from(e).into_response())?;
        if let Some(key) = key.filter(|key| key.live_at(Utc::now())) {
            return Ok(key.caller());
        }
    }
    if gate.token.is_none() {
        let keyed = match &gate.keys {
            Some(keys) => keys.any_live().await.map_err(|e| ApiError::from(e).into_response())?,
            None => false,
        };
        if !keyed {
            return Ok(Caller::first_admin());
        }
    }
    Err(match presented {
        Some(_) => unauthorized(NOT_A_KEY),
        None => unauthorized(
            "this needs Authorization: Bearer <token> (the --auth-token this process was started with, or an API key)",
        ),
    })
}

/// The token a request presents: its `Authorization` header when it has
/// one, else, for a read, its `wingman_token` cookie.
fn presented(request: &Request) -> Option<String> {
    if let Some(value) = request.headers().get(header::AUTHORIZATION) {
        return bearer(value.to_str().ok()?).map(str::to_string);
    }
    if request.method() == Method::GET || request.method() == Method::HEAD {
        return cookie(request);
    }
    None
}

/// The token of an `Authorization: Bearer …` value (the scheme's name is
/// case-insensitive, RFC 7235).
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(token.trim())
}

/// The `wingman_token` cookie, percent-decoded (the dashboard encodes the
/// token, since a cookie's value may not hold `;`, `,` or spaces).
fn cookie(request: &Request) -> Option<String> {
    let pairs = request.headers().get_all(header::COOKIE).into_iter().filter_map(|v| v.to_str().ok());
    let value =
        pairs.flat_map(|v| v.split(';')).find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))?;
    percent_encoding::percent_decode_str(value).decode_utf8().ok().map(|v| v.into_owned())
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

    fn request(method: Method, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri("/runs");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn a_cookie_presents_the_token_of_reads_only_and_the_header_comes_first() {
        let cookie = ("cookie", "theme=dark; wingman_token=a%3Bb%20c; other=1");
        assert_eq!(presented(&request(Method::GET, &[cookie])).as_deref(), Some("a;b c"));
        assert_eq!(presented(&request(Method::HEAD, &[cookie])).as_deref(), Some("a;b c"));
        assert_eq!(presented(&request(Method::POST, &[cookie])), None);
        assert_eq!(presented(&request(Method::DELETE, &[cookie])), None);
        let both = [("authorization", "Bearer from-header"), cookie];
        assert_eq!(presented(&request(Method::GET, &both)).as_deref(), Some("from-header"));
        let other = ("cookie", "not_wingman_token=x; wingman_tokens=y");
        assert_eq!(presented(&request(Method::GET, &[other])), None);
        assert!(is_open("/ui") && is_open("/ui/runs/x") && is_open("/health"));
        assert!(!is_open("/uix") && !is_open("/runs") && !is_open("/workers"));
    }

    #[test]
    fn a_blank_token_is_refused_and_debug_shows_nothing() {
        assert!(AuthToken::new("").is_err() && AuthToken::new("  ").is_err());
        let shown = format!("{:?}", AuthToken::new("s3cret-token-value").unwrap());
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}
