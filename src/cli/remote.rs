//! The server the client commands talk to: where it is, the token that
//! lets them in, and how its answers and refusals are read.

use anyhow::{anyhow, Context};
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::Value;

/// How to reach the server: every client command takes these options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerArg {
    /// The server's base URL.
    #[arg(long, env = "WINGMAN_SERVER", default_value = "http://127.0.0.1:2323", global = true)]
    pub server: String,
    /// The token of a server started with --auth-token, or an API key
    /// (`wingman key create`): sent as `Authorization: Bearer <token>` on
    /// every request.
    #[arg(long, env = "WINGMAN_AUTH_TOKEN", global = true, hide_env_values = true)]
    pub auth_token: Option<String>,
    /// An API key, sent as the token is when no --auth-token is given (the
    /// variable the client libraries read too).
    #[arg(long, env = "WINGMAN_API_KEY", global = true, hide_env_values = true)]
    pub api_key: Option<String>,
}

impl ServerArg {
    /// An HTTP client for this server that sends the token, if one is set,
    /// on every request (event streams included).
    pub fn connect(&self) -> anyhow::Result<Remote> {
        let token = [&self.auth_token, &self.api_key].into_iter().flatten().map(String::as_str).find(|t| !t.is_empty());
        let mut headers = HeaderMap::new();
        if let Some(token) = token {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
                anyhow!("the --auth-token or --api-key (or their variable) holds characters a header cannot carry")
            })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let http = reqwest::Client::builder().default_headers(headers).build().context("cannot set up HTTP")?;
        let base = self.server.trim_end_matches('/').to_string();
        Ok(Remote { http, base, has_token: token.is_some() })
    }
}

/// A server to send requests to.
#[derive(Debug, Clone)]
pub struct Remote {
    http: reqwest::Client,
    base: String,
    has_token: bool,
}

impl Remote {
    /// The full URL of an API path (`/runs/…`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.http.get(self.url(path))
    }

    pub fn post(&self, path: &str) -> RequestBuilder {
        self.http.post(self.url(path))
    }

    pub fn put(&self, path: &str) -> RequestBuilder {
        self.http.put(self.url(path))
    }

    pub fn delete(&self, path: &str) -> RequestBuilder {
        self.http.delete(self.url(path))
    }

    /// `GET path`, answered with JSON.
    pub async fn read(&self, path: &str) -> anyhow::Result<Value> {
        self.call(self.get(path)).await
    }

    /// Every event of a log (`path` is its `…/events` route), read a page
    /// of 10,000 at a time, as one JSON array.
    pub async fn read_events(&self, path: &str) -> anyhow::Result<Value> {
        const PAGE: usize = 10_000;
        let mut all = Vec::new();
        loop {
            let after = all.last().and_then(|e: &Value| e["seq"].as_u64()).unwrap_or(0);
            let page = self.read(&format!("{path}?after={after}&limit={PAGE}")).await?;
            let page = match page {
                Value::Array(events) => events,
                other => anyhow::bail!("the server answered {path} with {other}, not a list of events"),
            };
            let full = page.len() == PAGE;
            all.extend(page);
            if !full {
                return Ok(Value::Array(all));
            }
        }
    }

    /// Sends a request and reads its JSON answer; a refusal is an error that
    /// carries the server's `error` message.
    pub async fn call(&self, request: RequestBuilder) -> anyhow::Result<Value> {
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(self.refusal(status, &body));
        }
        Ok(body)
    }

    /// The error for a refused request: the status and the server's message,
    /// and for a 401 what to do about the token.
    pub fn refusal(&self, status: StatusCode, body: &Value) -> anyhow::Error {
        let message = body["error"].as_str().unwrap_or("no error message");
        if status != StatusCode::UNAUTHORIZED {
            return anyhow!("{status}: {message}");
        }
        let hint = match self.has_token {
            true => "the server refused the token or key given with --auth-token, WINGMAN_AUTH_TOKEN or WINGMAN_API_KEY",
            false => "the server wants a token or an API key: give it with --auth-token, WINGMAN_AUTH_TOKEN or WINGMAN_API_KEY",
        };
        anyhow!("{status}: {message}: {hint}")
    }
}

/// The error for a server that did not answer at all.
fn unreachable(e: reqwest::Error) -> anyhow::Error {
    let at = e.url().map(|u| format!(" at {}", u.origin().ascii_serialization())).unwrap_or_default();
    anyhow!(
        "could not reach the server{at} ({e}): start one with `wingman serve`, or name another with --server or WINGMAN_SERVER"
    )
}

/// An ID (or any name) as one segment of a URL path, so that a `/` or `?`
/// in it cannot reach another route.
pub fn segment(text: &str) -> String {
    let keep = |b: u8| b.is_ascii_alphanumeric() || b"-_.~:".contains(&b);
    text.bytes().map(|b| if keep(b) { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

/// Prints a JSON answer as it came, for scripts.
pub fn print_json(value: &Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(token: Option<&str>) -> Remote {
        let arg =
            ServerArg { server: "http://127.0.0.1:1/".into(), auth_token: token.map(String::from), api_key: None };
        arg.connect().unwrap()
    }

    #[test]
    fn a_401_names_the_token_options() {
        let body = serde_json::json!({"error": "missing bearer token"});
        let without = remote(None).refusal(StatusCode::UNAUTHORIZED, &body).to_string();
        assert!(without.contains("--auth-token") && without.contains("WINGMAN_AUTH_TOKEN"), "{without}");
        assert!(without.contains("missing bearer token"), "{without}");
        let refused = remote(Some("t")).refusal(StatusCode::UNAUTHORIZED, &body).to_string();
        assert!(refused.contains("refused the token"), "{refused}");
        assert!(without.contains("WINGMAN_API_KEY") && refused.contains("WINGMAN_API_KEY"), "{refused}");
        let other = remote(None).refusal(StatusCode::NOT_FOUND, &body).to_string();
        assert!(!other.contains("--auth-token"), "{other}");
    }

    #[test]
    fn urls_join_without_a_double_slash_and_an_empty_token_is_none() {
        let remote = remote(Some(""));
        assert_eq!(remote.url("/runs"), "http://127.0.0.1:1/runs");
        assert!(!remote.has_token);
        let bad = ServerArg { server: "http://x".into(), auth_token: Some("a\nb".into()), api_key: None };
        assert!(bad.connect().is_err());
        let key = ServerArg { server: "http://x".into(), auth_token: None, api_key: Some("wmk_k".into()) };
        assert!(key.connect().unwrap().has_token, "a key goes as the token does");
        assert_eq!(segment("01K-a.b:c"), "01K-a.b:c");
        assert_eq!(segment("a/b?c d"), "a%2Fb%3Fc%20d");
    }
}
