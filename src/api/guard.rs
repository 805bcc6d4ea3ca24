//! What every request passes before it reaches a handler: a `Host` the
//! server answers to, and, for requests that change state, an `Origin` it
//! trusts.
//!
//! Both close DNS rebinding: a web page can point a name of its own at
//! 127.0.0.1, and the browser then sends the page's requests to Wingman with
//! that name in `Host` and the page's origin in `Origin`. A server that
//! accepted any `Host` would let any page the user visits create agents with
//! `bash` and run them.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::cors::CorsPolicy;
use super::error::ApiError;

/// The names (and port) the server answers to.
#[derive(Debug, Clone)]
pub struct HostPolicy {
    /// Loopback names and the bound address: accepted with the server's port (or none).
    own: Vec<String>,
    /// Names added with `--allowed-host`: accepted with any port (a proxy may listen on another).
    extra: Vec<String>,
    /// The port the server listens on.
    port: u16,
    /// Bound to every address (0.0.0.0 or ::): any IP literal is the server's own.
    any_ip: bool,
    /// `--allowed-host '*'`: no check at all.
    any: bool,
    /// Pages of these origins may change state too (`--cors-origin`).
    cors: CorsPolicy,
}

impl HostPolicy {
    /// The policy of a server bound to `addr`, with `allowed` names added.
    pub fn new(addr: SocketAddr, allowed: &[String]) -> HostPolicy {
        let mut own = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
        if !addr.ip().is_unspecified() {
            own.push(addr.ip().to_string());
        }
        let extra = allowed.iter().map(|h| normalize(h)).filter(|h| h != "*").collect();
        HostPolicy {
            own,
            extra,
            port: addr.port(),
            any_ip: addr.ip().is_unspecified(),
            any: allowed.iter().any(|h| h.trim() == "*"),
            cors: CorsPolicy::default(),
        }
    }

    /// The same policy, also trusting pages of the origins `cors` allows.
    pub fn with_cors(self, cors: CorsPolicy) -> HostPolicy {
        HostPolicy { cors, ..self }
    }

    /// True if a request addressed to `authority` (`name[:port]`) is for this server.
    pub fn allows(&self, authority: &str) -> bool {
        if self.any {
            return true;
        }
        let Some((name, port)) = split_authority(authority) else { return false };
        if self.extra.contains(&name) {
            return true;
        }
        let own_name = self.own.contains(&name) || (self.any_ip && name.parse::<IpAddr>().is_ok());
        own_name && port.is_none_or(|p| p == self.port)
    }

    /// True if a page of `origin` (`scheme://name[:port]`) may change state here:
    /// a page served under a name the server answers to.
    fn trusts_origin(&self, origin: &str) -> bool {
        if self.cors.allows(origin) {
            return true;
        }
        let Ok(url) = url::Url::parse(origin) else { return false };
        let Some(host) = url.host_str() else { return false };
        let authority = match url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        matches!(url.scheme(), "http" | "https") && self.allows(&authority)
    }
}

/// Lower-cases a name and drops a trailing dot and IPv6 brackets.
fn normalize(name: &str) -> String {
    let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
    name.trim_start_matches('[').trim_end_matches(']').to_string()
}

/// Splits `name[:port]` (`[v6]:port` for IPv6); `None` if it is malformed.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    let (name, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        match after {
            "" => (v6, None),
            _ => (v6, Some(after.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    if name.is_empty() {
        return None;
    }
    Some((normalize(name), port))
}

/// The middleware: a foreign `Host` is refused on every route, and a
/// state-changing request from an untrusted page origin is refused.
pub async fn guard(State(policy): State<Arc<HostPolicy>>, request: Request, next: Next) -> Response {
    let host = request
        .uri()
        .authority()
        .map(|a| a.as_str().to_string())
        .or_else(|| request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_string));
    let Some(host) = host else {
        return refuse("the request has no Host header".into());
    };
    if !policy.allows(&host) {
        return refuse(format!(
            "this server does not answer to the host {host:?}; start it with --allowed-host <name> to reach it under another name"
        ));
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        if let Some(origin) = request.headers().get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !policy.trusts_origin(origin) {
                return refuse(format!(
                    "requests that change state are not accepted from pages of the origin {origin:?}"
                ));
            }
        }
    }
    next.run(request).await
}

fn refuse(message: String) -> Response {
    ApiError::Rejected { status: axum::http::StatusCode::FORBIDDEN, message }.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(addr: &str, allowed: &[&str]) -> HostPolicy {
        HostPolicy::new(addr.parse().unwrap(), &allowed.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_loopback_server_answers_to_loopback_names_on_its_port() {
        let p = policy("127.0.0.1:2323", &[]);
        for ok in ["localhost:2323", "127.0.0.1:2323", "[::1]:2323", "LOCALHOST:2323", "localhost.:2323", "localhost"] {
            assert!(p.allows(ok), "{ok}");
        }
        for bad in [
            "attacker.example:2323",
            "attacker.example",
            "localhost:80",
            "127.0.0.1:2324",
            "10.0.0.5:2323",
            "localhost.attacker.example:2323",
            "",
            ":2323",
            "localhost:99999",
            "[::1",
        ] {
            assert!(!p.allows(bad), "{bad}");
        }
    }

    #[test]
    fn added_names_take_any_port_and_a_star_disables_the_check() {
        let p = policy("127.0.0.1:2323", &["wingman.example.com"]);
        assert!(p.allows("wingman.example.com") && p.allows("WINGMAN.example.com:443"));
        assert!(!p.allows("other.example.com"));
        assert!(policy("127.0.0.1:2323", &["*"]).allows("anything.example:1"));
    }

    #[test]
    fn a_server_bound_to_every_address_answers_to_ip_literals() {
        let p = policy("0.0.0.0:2323", &[]);
        assert!(p.allows("10.1.2.3:2323") && p.allows("[fe80::1]:2323") && p.allows("localhost:2323"));
        assert!(!p.allows("attacker.example:2323"));
        let p = policy("10.1.2.3:2323", &[]);
        assert!(p.allows("10.1.2.3:2323") && !p.allows("10.1.2.4:2323"));
    }

    #[test]
    fn page_origins_are_trusted_only_under_the_servers_names() {
        let p = policy("127.0.0.1:2323", &[]);
        assert!(p.trusts_origin("http://localhost:2323") && p.trusts_origin("http://127.0.0.1:2323"));
        for bad in ["http://attacker.example:2323", "null", "http://localhost:3000", "file://", "ftp://localhost:2323"]
        {
            assert!(!p.trusts_origin(bad), "{bad}");
        }
        let cors = CorsPolicy::new(&["https://ui.example.com".into()]).unwrap();
        let p = policy("127.0.0.1:2323", &[]).with_cors(cors);
        assert!(p.trusts_origin("https://ui.example.com") && !p.trusts_origin("http://ui.example.com"));
    }
}
