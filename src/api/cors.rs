//! Cross-origin requests, for a web UI served elsewhere (`--cors-origin`).
//!
//! A preflight (`OPTIONS`) is answered here, before the host guard and the
//! token check, because a browser sends it without credentials and without
//! the request's body. Only the origins the operator named get the
//! `Access-Control-Allow-*` headers; to any other page the API stays closed,
//! as the browser then refuses to hand the page the answer.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The methods the API's routes take, for a path that is none of them.
const METHODS: &str = "GET, HEAD, POST, PUT, DELETE, OPTIONS";
/// The request headers a page may send: the token, a JSON body, a tail's
/// resume point and a submission's idempotency key.
const HEADERS: &str = "authorization, content-type, last-event-id, idempotency-key, if-match";
/// The answer headers a page may read besides the safelisted ones.
const EXPOSED: &str = "retry-after, www-authenticate, wingman-next-after";

/// The origins that may call the API from a page.
#[derive(Debug, Clone, Default)]
pub struct CorsPolicy {
    origins: Vec<String>,
}

impl CorsPolicy {
    /// The policy for `origins` (`scheme://host[:port]`), each checked and
    /// put in the form browsers send in `Origin`.
    pub fn new(origins: &[String]) -> Result<CorsPolicy, String> {
        let origins = origins.iter().map(|o| serialize_origin(o)).collect::<Result<_, _>>()?;
        Ok(CorsPolicy { origins })
    }

    /// True if pages of `origin` (an `Origin` header's value) may call the API.
    pub fn allows(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == origin)
    }
}

/// The methods each route takes, for the `Allow` (and a preflight's
/// `Access-Control-Allow-Methods`) of an `OPTIONS` answer, which is given
/// before routing.
#[derive(Debug, Clone, Default)]
pub struct RouteMethods {
    /// Each route's path template split at `/` (`{id}` matches any one
    /// segment), with its `Allow` value.
    routes: Vec<(Vec<String>, HeaderValue)>,
}

impl RouteMethods {
    /// The table for `routes`: path templates with the methods each takes.
    pub fn new<'a>(routes: impl IntoIterator<Item = (&'a str, Vec<Method>)>) -> RouteMethods {
        let routes = routes
            .into_iter()
            .filter_map(|(template, methods)| {
                let mut names: Vec<&str> = methods.iter().map(Method::as_str).collect();
                if methods.contains(&Method::GET) {
                    names.push("HEAD");
                }
                names.push("OPTIONS");
                let allow = HeaderValue::from_str(&names.join(", ")).ok()?;
                Some((template.split('/').map(str::to_string).collect(), allow))
            })
            .collect();
        RouteMethods { routes }
    }

    /// What `path` allows; a literal segment wins over a parameter
    /// (`/provider/auth` over `/provider/{id}`).
    fn allow(&self, path: &str) -> Option<HeaderValue> {
        let segments: Vec<&str> = path.split('/').collect();
        let matches = |template: &[String]| {
            template.len() == segments.len()
                && template.iter().zip(&segments).all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()))
        };
        let parameters = |template: &[String]| template.iter().filter(|t| t.starts_with('{')).count();
        let found = self.routes.iter().filter(|(template, _)| matches(template));
        found.min_by_key(|(template, _)| parameters(template)).map(|(_, allow)| allow.clone())
    }
}

/// What the CORS layer knows: the origins it lets in and the routes' methods.
#[derive(Debug, Clone, Default)]
pub struct CorsState {
    pub policy: CorsPolicy,
    pub methods: RouteMethods,
}

/// The form of an origin a browser sends: lower-case scheme and host, the
/// port only when it is not the scheme's default, no path.
pub fn serialize_origin(origin: &str) -> Result<String, String> {
    let url = url::Url::parse(origin.trim()).map_err(|e| format!("--cors-origin {origin:?}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("--cors-origin {origin:?} must be an http:// or https:// origin"));
    }
    if !matches!(url.path(), "" | "/") || url.query().is_some() {
        return Err(format!("--cors-origin {origin:?} must be an origin alone (scheme://host[:port]), without a path"));
    }
    Ok(url.origin().ascii_serialization())
}

/// The middleware: answers every `OPTIONS` itself (204 with the route's
/// `Allow`, and the CORS headers for an allowed origin), and marks other
/// answers to an allowed origin as readable by its pages.
pub async fn answer(State(cors): State<Arc<CorsState>>, request: Request, next: Next) -> Response {
    let origin = allowed_origin(&cors.policy, request.headers());
    if request.method() == Method::OPTIONS {
        let allow = cors.methods.allow(request.uri().path()).unwrap_or(HeaderValue::from_static(METHODS));
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        headers.insert(header::ALLOW, allow.clone());
        if let Some(origin) = origin {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, allow);
            headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(HEADERS));
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        }
        headers.insert(header::VARY, HeaderValue::from_static("origin"));
        return response;
    }
    let mut response = next.run(request).await;
    if let Some(origin) = origin {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED));
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}

/// The request's `Origin`, if the policy allows it.
fn allowed_origin(policy: &CorsPolicy, headers: &HeaderMap) -> Option<HeaderValue> {
    let origin = headers.get(header::ORIGIN)?;
    policy.allows(origin.to_str().ok()?).then(|| origin.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_kept_in_the_form_browsers_send() {
        let policy = CorsPolicy::new(&["HTTPS://UI.example.com:443".into(), "http://localhost:5173/".into()]).unwrap();
        assert!(policy.allows("https://ui.example.com") && policy.allows("http://localhost:5173"));
        assert!(!policy.allows("https://ui.example.com:8443") && !policy.allows("http://ui.example.com"));
        assert!(!policy.allows("null"));
    }

    #[test]
    fn a_route_allows_its_own_methods_and_literal_segments_win() {
        let methods = RouteMethods::new([
            ("/provider/{id}", vec![Method::GET]),
            ("/provider/auth", vec![Method::GET, Method::PUT]),
            ("/runs/{id}/cancel", vec![Method::POST]),
        ]);
        let allow = |path: &str| methods.allow(path).map(|v| v.to_str().unwrap().to_string());
        assert_eq!(allow("/provider/openai").as_deref(), Some("GET, HEAD, OPTIONS"));
        assert_eq!(allow("/provider/auth").as_deref(), Some("GET, PUT, HEAD, OPTIONS"));
        assert_eq!(allow("/runs/01J/cancel").as_deref(), Some("POST, OPTIONS"));
        assert_eq!(allow("/runs//cancel"), None);
        assert_eq!(allow("/nowhere"), None);
    }

    #[test]
    fn anything_but_an_origin_is_refused() {
        for bad in ["ui.example.com", "ftp://ui.example.com", "https://ui.example.com/app", "*", "null"] {
            assert!(CorsPolicy::new(&[bad.into()]).is_err(), "{bad}");
        }
    }
}
