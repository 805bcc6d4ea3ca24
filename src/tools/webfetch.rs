//! `webfetch {url}`: GET a web page and return it as readable text.
//!
//! Each hop resolves the host once, checks every candidate address against
//! the [`NetPolicy`], and connects to the checked address only: the client is
//! pinned to it (`ClientBuilder::resolve`), so there is no second lookup for
//! a rebinding DNS server to answer differently. Redirects are not followed
//! by the client but here, one hop at a time, each checked the same way.
//! Proxies are never used, since a proxy would connect on our behalf to an
//! address we never checked. The whole fetch has a timeout and the body a
//! size cap; HTML is converted to text, other text is passed through.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::redirect::Policy;
use reqwest::{Client, Response, Url};
use serde_json::Value;

use super::netpolicy::{self, NetPolicy};
use super::{args, html, output};
use super::{ToolContext, ToolOutput};

/// The time a whole fetch may take, redirects included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most bytes of a body downloaded.
pub const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;
/// The most redirects followed.
pub const MAX_REDIRECTS: usize = 10;

/// How a fetch is made.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Which addresses may be connected to.
    pub policy: NetPolicy,
    /// The time the whole fetch may take.
    pub timeout: Duration,
    /// The most bytes of a body downloaded; the rest is dropped with a note.
    pub max_body_bytes: usize,
    /// Names answered from this list instead of DNS (tests, fixed setups);
    /// the answers are checked against the policy like any other.
    pub hosts: Vec<(String, Vec<IpAddr>)>,
}

impl FetchOptions {
    /// The usual limits under `policy`.
    pub fn new(policy: NetPolicy) -> Self {
        FetchOptions { policy, timeout: DEFAULT_TIMEOUT, max_body_bytes: MAX_BODY_BYTES, hosts: Vec::new() }
    }
}

/// A fetched response.
#[derive(Debug)]
pub struct Page {
    /// The final URL, after redirects.
    pub url: Url,
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header, or empty.
    pub content_type: String,
    /// The body, at most `max_body_bytes` of it.
    pub body: Vec<u8>,
    /// True if the body was longer than the cap.
    pub truncated: bool,
}

/// Fetches the page as the tool: under the deployment's policy, stopped
/// at once when the run is cancelled.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let url = match args::string(input, "url") {
        Ok(u) => u,
        Err(e) => return e,
    };
    let options = FetchOptions::new(NetPolicy { allow_private: ctx.allow_private_network, allow: Vec::new() });
    tokio::select! {
        result = fetch_text(url, &options) => result,
        _ = ctx.cancel.cancelled() => ToolOutput::error("cancelled"),
    }
}

/// Fetches `url` and renders the tool's result.
pub async fn fetch_text(url: &str, options: &FetchOptions) -> ToolOutput {
    match fetch(url, options).await {
        Ok(page) => render(&page),
        Err(e) => ToolOutput::error(format!("could not fetch {url}: {e}")),
    }
}

/// Fetches `url`, following redirects, within the options' timeout.
pub async fn fetch(url: &str, options: &FetchOptions) -> Result<Page, String> {
    match tokio::time::timeout(options.timeout, fetch_hops(url, options)).await {
        Ok(result) => result,
        Err(_) => Err(format!("timed out after {} ms", options.timeout.as_millis())),
    }
}

async fn fetch_hops(url: &str, options: &FetchOptions) -> Result<Page, String> {
    let mut url = parse_url(url)?;
    for _ in 0..=MAX_REDIRECTS {
        let addr = netpolicy::resolve(&url, &options.policy, &options.hosts).await.map_err(|e| e.to_string())?;
        let response = pinned_client(&url, addr, options)?
            .get(url.clone())
            .send()
            .await
            .map_err(|e| format!("request to {url} failed: {}", error_chain(&e)))?;
        let location = response.headers().get(LOCATION).and_then(|l| l.to_str().ok());
        match location.filter(|_| response.status().is_redirection()) {
            Some(location) => {
                let next = url.join(location).map_err(|e| format!("bad redirect to {location:?}: {e}"))?;
                url = parse_url(next.as_str())?;
            }
            None => return read_page(url, response, options.max_body_bytes).await,
        }
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// Only absolute http(s) URLs with a host; the fragment is dropped.
pub(super) fn parse_url(text: &str) -> Result<Url, String> {
    let mut url = Url::parse(text.trim()).map_err(|e| format!("invalid URL {text:?}: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("only http and https URLs can be fetched, not {}:", url.scheme()));
    }
    if url.host().is_none() {
        return Err("the URL has no host".into());
    }
    url.set_fragment(None);
    Ok(url)
}

/// A client that connects to `addr` for this URL's host and nowhere else.
fn pinned_client(url: &Url, addr: SocketAddr, options: &FetchOptions) -> Result<Client, String> {
    let mut builder = Client::builder()
        .redirect(Policy::none())
        .no_proxy()
        .connect_timeout(options.timeout)
        .user_agent(concat!("wingman-webfetch/", env!("CARGO_PKG_VERSION")));
    if let Some(url::Host::Domain(name)) = url.host() {
        builder = builder.resolve(name, addr);
    }
    builder.build().map_err(|e| format!("cannot build an HTTP client: {e}"))
}

/// Reads the body up to the cap.
pub(super) async fn read_page(url: Url, mut response: Response, max: usize) -> Result<Page, String> {
    let status = response.status().as_u16();
    let content_type =
        response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let mut body = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading {url} failed: {}", error_chain(&e)))? {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Page { url, status, content_type, body, truncated })
}

/// The tool's result for a page: a short header, then its text.
fn render(page: &Page) -> ToolOutput {
    let ct = page.content_type.to_ascii_lowercase();
    let sniffed_html = ct.is_empty() && looks_like_html(&page.body);
    let is_text = ct.starts_with("text/")
        || ["json", "xml", "javascript", "ecmascript", "yaml", "toml", "csv"].iter().any(|t| ct.contains(t))
        || (ct.is_empty() && !page.body.contains(&0));
    if !is_text {
        return ToolOutput::error(format!(
            "{} returned {} ({} bytes), which is not text; webfetch returns HTML and text only",
            page.url,
            page.content_type,
            page.body.len()
        ));
    }
    let raw = String::from_utf8_lossy(&page.body);
    let text = if ct.contains("html") || sniffed_html { html::to_text(&raw) } else { raw.into_owned() };
    let (shown, cut) = output::head(&text, output::MAX_LINES, output::MAX_BYTES);
    let mut out = format!("URL: {}\nStatus: {}\nContent-Type: {}\n\n{shown}", page.url, page.status, page.content_type);
    let mut notes = Vec::new();
    if page.truncated {
        notes.push(format!("[download stopped at {} bytes; the rest of the page was not read]", page.body.len()));
    }
    if cut {
        notes.push(format!("[content cut at {} lines / 50 KB]", output::MAX_LINES));
    }
    for note in notes {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&note);
    }
    if (200..300).contains(&page.status) {
        ToolOutput::ok(out)
    } else {
        ToolOutput::error(out)
    }
}

fn looks_like_html(body: &[u8]) -> bool {
    let start = String::from_utf8_lossy(&body[..body.len().min(512)]).trim_start().to_ascii_lowercase();
    start.starts_with("<!doctype html") || start.starts_with("<html")
}

/// An error with its causes, which reqwest keeps in its source chain.
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}
