//! Access to the API: with `--auth-token`, every route but `/health` asks
//! for `Authorization: Bearer <token>`.
//!
//! A browser's `EventSource` cannot send that header, so a read (`GET`,
//! `HEAD`) may present the token as the cookie `wingman_token` instead, which
//! the dashboard sets. A request that changes state needs the header: a page
//! of another site can make the browser send a cookie (where `SameSite` does
//! not stop it), never the header. The dashboard's own pages and assets hold
//! no data and need no token.
//!
//! The token itself is never kept: the server holds its SHA-256 digest and
//! compares the digest of what a request presents in constant time, so
//! neither the comparison's duration nor a log line, a panic message or a
//! `Debug` print can give it away.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::ApiError;

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

/// The middleware: passes a request that needs no token or presents the
/// right one; answers any other with 401 and a `WWW-Authenticate` challenge.
pub async fn require(State(token): State<Option<Arc<AuthToken>>>, request: Request, next: Next) -> Response {
    let Some(token) = token else { return next.run(request).await };
    if is_open(request.uri().path()) {
        return next.run(request).await;
    }
    match presented(&request) {
        Some(presented) if token.matches(&presented) => next.run(request).await,
        Some(_) => unauthorized("the bearer token is not this process's"),
        None => {
            unauthorized("this needs Authorization: Bearer <token> (the --auth-token this process was started with)")
        }
    }
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
