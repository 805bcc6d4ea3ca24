//! webfetch against a tiny HTTP server on 127.0.0.1, and the address policy.
//!
//! Every request here goes to that loopback server or is refused before
//! connecting; the server counts the requests it sees, which shows that a
//! refused fetch sent nothing.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wingman::tools::netpolicy::NetPolicy;
use wingman::tools::webfetch::{fetch_text, FetchOptions};
use wingman::tools::{self, ToolContext, ToolOutput};

const HTML: &str = "<!doctype html><html><head><title>Test page</title><style>p{}</style></head>\
<body><h1>Hello</h1><p>A <a href=\"/docs\">link</a> and <b>bold</b> text.</p>\
<script>alert('no')</script><ul><li>one</li><li>two</li></ul></body></html>";

/// The loopback server: its address and how many requests it has seen.
struct Server {
    addr: SocketAddr,
    requests: Arc<AtomicUsize>,
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

async fn serve() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicUsize::new(0));
    let seen = requests.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(handle(stream));
        }
    });
    Server { addr, requests }
}

/// Reads one request and answers it by path.
async fn handle(mut stream: TcpStream) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let host =
        head.lines().find_map(|l| l.strip_prefix("host: ").or(l.strip_prefix("Host: "))).unwrap_or("").to_string();
    let (status, headers, body): (&str, String, Vec<u8>) = match path.as_str() {
        "/text" => ("200 OK", "Content-Type: text/plain\r\n".into(), b"hello from the test server\n".to_vec()),
        "/html" => ("200 OK", "Content-Type: text/html; charset=utf-8\r\n".into(), HTML.as_bytes().to_vec()),
        "/sniffed" => ("200 OK", String::new(), HTML.as_bytes().to_vec()),
        "/json" => ("200 OK", "Content-Type: application/json\r\n".into(), b"{\"a\": 1}".to_vec()),
        "/big" => ("200 OK", "Content-Type: text/plain\r\n".into(), vec![b'z'; 1024 * 1024]),
        "/long" => (
            "200 OK",
            "Content-Type: text/plain\r\n".into(),
            (1..=3000).map(|i| format!("row {i}\n")).collect::<String>().into_bytes(),
        ),
        "/binary" => ("200 OK", "Content-Type: application/octet-stream\r\n".into(), vec![0, 1, 2, 3, 0, 255]),
        "/host" => ("200 OK", "Content-Type: text/plain\r\n".into(), format!("host was {host}").into_bytes()),
        "/missing" => ("404 Not Found", "Content-Type: text/plain\r\n".into(), b"no such page".to_vec()),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        "/redirect-ok" => redirect("/text"),
        "/redirect-loop" => redirect("/redirect-loop"),
        "/redirect-private" => redirect("http://10.0.0.1/internal"),
        "/redirect-metadata" => redirect("http://169.254.169.254/latest/meta-data/"),
        "/redirect-loopback" => redirect("http://127.0.0.2/"),
        _ => ("404 Not Found", String::new(), Vec::new()),
    };
    let response = format!("HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.write_all(&body).await;
    let _ = stream.shutdown().await;
}

fn redirect(to: &str) -> (&'static str, String, Vec<u8>) {
    ("302 Found", format!("Location: {to}\r\n"), Vec::new())
}

/// Options that allow every non-public address (a trusted deployment).
fn trusted() -> FetchOptions {
    FetchOptions::new(NetPolicy { allow_private: true, allow: Vec::new() })
}

/// Options with the default policy, except that 127.0.0.1 is allowed so a
/// redirect's first hop can reach the test server.
fn loopback_only() -> FetchOptions {
    FetchOptions::new(NetPolicy { allow_private: false, allow: vec!["127.0.0.1".parse().unwrap()] })
}

#[tokio::test]
async fn text_html_and_json_are_returned_readably() {
    let server = serve().await;
    let text = fetch_text(&server.url("/text"), &trusted()).await;
    let expected =
        format!("URL: {}\nStatus: 200\nContent-Type: text/plain\n\nhello from the test server\n", server.url("/text"));
    assert_eq!(text, ToolOutput::ok(expected));
    let html = fetch_text(&server.url("/html"), &trusted()).await;
    assert!(!html.is_error);
    let body = html.output.split_once("\n\n").unwrap().1;
    assert_eq!(body, "Title: Test page\n\n# Hello\n\nA [link](/docs) and **bold** text.\n\n- one\n- two");
    let sniffed = fetch_text(&server.url("/sniffed"), &trusted()).await;
    assert!(sniffed.output.ends_with("- one\n- two"), "{}", sniffed.output);
    let json = fetch_text(&server.url("/json"), &trusted()).await;
    assert!(json.output.ends_with("\n\n{\"a\": 1}"), "{}", json.output);
}

#[tokio::test]
async fn the_body_is_capped_and_long_text_cut_with_notes() {
    let server = serve().await;
    let mut options = trusted();
    options.max_body_bytes = 64 * 1024;
    let big = fetch_text(&server.url("/big"), &options).await;
    assert!(
        big.output.ends_with(
            "[download stopped at 65536 bytes; the rest of the page was not read]\n[content cut at 2000 lines / 50 KB]"
        ),
        "{}",
        &big.output[big.output.len() - 200..]
    );
    let long = fetch_text(&server.url("/long"), &trusted()).await;
    assert!(
        long.output.contains("row 2000\n[content cut at 2000 lines / 50 KB]"),
        "{}",
        &long.output[long.output.len() - 100..]
    );
    assert!(!long.output.contains("row 2001"));
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let server = serve().await;
    let mut options = trusted();
    options.timeout = Duration::from_millis(300);
    let started = Instant::now();
    let out = fetch_text(&server.url("/slow"), &options).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out, ToolOutput::error(format!("could not fetch {}: timed out after 300 ms", server.url("/slow"))));
}

#[tokio::test]
async fn redirects_statuses_and_content_types() {
    let server = serve().await;
    let followed = fetch_text(&server.url("/redirect-ok"), &trusted()).await;
    assert!(followed.output.starts_with(&format!("URL: {}\n", server.url("/text"))), "{}", followed.output);
    assert!(followed.output.ends_with("hello from the test server\n"));
    let looped = fetch_text(&server.url("/redirect-loop"), &trusted()).await;
    assert!(looped.is_error && looped.output.ends_with("more than 10 redirects"), "{}", looped.output);
    let missing = fetch_text(&server.url("/missing"), &trusted()).await;
    assert!(missing.is_error && missing.output.contains("Status: 404") && missing.output.ends_with("no such page"));
    let binary = fetch_text(&server.url("/binary"), &trusted()).await;
    assert!(binary.is_error && binary.output.contains("is not text"), "{}", binary.output);
}

#[tokio::test]
async fn the_default_policy_refuses_non_public_addresses_before_connecting() {
    let server = serve().await;
    let port = server.addr.port();
    let defaults = FetchOptions::new(NetPolicy::default());
    let urls = [
        format!("http://127.0.0.1:{port}/text"),
        format!("http://[::1]:{port}/text"),
        format!("http://[::ffff:127.0.0.1]:{port}/text"),
        format!("http://localhost:{port}/text"),
        format!("http://2130706433:{port}/text"),
        format!("http://0x7f.1:{port}/text"),
        format!("http://0.0.0.0:{port}/text"),
        "http://10.1.2.3/".into(),
        "http://172.16.5.4/".into(),
        "http://172.31.255.1/".into(),
        "http://192.168.1.1/".into(),
        "http://169.254.169.254/latest/meta-data/".into(),
        "http://[fd00:ec2::254]/".into(),
        "http://[fe80::1]/".into(),
        "http://[fc00::1]/".into(),
    ];
    for url in &urls {
        let out = fetch_text(url, &defaults).await;
        assert!(out.is_error && out.output.contains("refused"), "{url}: {}", out.output);
    }
    assert_eq!(server.requests(), 0, "a refused fetch reached the server");
}

#[tokio::test]
async fn a_redirect_to_a_private_address_is_refused() {
    let server = serve().await;
    for (path, target) in [
        ("/redirect-private", "10.0.0.1"),
        ("/redirect-metadata", "169.254.169.254"),
        ("/redirect-loopback", "127.0.0.2"),
    ] {
        let out = fetch_text(&server.url(path), &loopback_only()).await;
        assert!(
            out.is_error && out.output.contains(target) && out.output.contains("refused"),
            "{path}: {}",
            out.output
        );
    }
    assert_eq!(server.requests(), 3, "only the first hops reached the server");
}

#[tokio::test]
async fn each_hop_connects_to_the_checked_address_it_resolved() {
    let server = serve().await;
    let port = server.addr.port();
    let loopback: IpAddr = "127.0.0.1".parse().unwrap();
    let mut options = loopback_only();
    options.hosts = vec![
        ("pinned.test".into(), vec![loopback]),
        ("mixed.test".into(), vec!["10.0.0.7".parse().unwrap(), loopback]),
        ("private.test".into(), vec!["10.0.0.7".parse().unwrap(), "192.168.0.9".parse().unwrap()]),
    ];
    // No DNS server knows these names: a fetch that worked connected to the
    // pinned, checked address, and the Host header still names the host.
    let pinned = fetch_text(&format!("http://pinned.test:{port}/host"), &options).await;
    assert!(pinned.output.ends_with(&format!("host was pinned.test:{port}")), "{}", pinned.output);
    let mixed = fetch_text(&format!("http://mixed.test:{port}/host"), &options).await;
    assert!(mixed.output.ends_with(&format!("host was mixed.test:{port}")), "{}", mixed.output);
    let private = fetch_text(&format!("http://private.test:{port}/host"), &options).await;
    assert!(
        private.is_error && private.output.contains("private.test: 10.0.0.7 is a private address; refused"),
        "{}",
        private.output
    );
    assert_eq!(server.requests(), 2);
}

#[tokio::test]
async fn bad_urls_are_clear_errors() {
    for (url, needle) in [
        ("file:///etc/passwd", "only http and https URLs can be fetched"),
        ("ftp://example.com/", "only http and https URLs can be fetched"),
        ("not a url", "invalid URL"),
        ("http://", "invalid URL"),
    ] {
        let out = fetch_text(url, &FetchOptions::new(NetPolicy::default())).await;
        assert!(out.is_error && out.output.contains(needle), "{url}: {}", out.output);
    }
}

#[tokio::test]
async fn the_tool_follows_the_deployment_setting() {
    let server = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    let input = json!({"url": server.url("/text")});
    let refused = tools::run("webfetch", &input, &ctx).await;
    assert!(
        refused.is_error && refused.output.contains("127.0.0.1 is a loopback address; refused"),
        "{}",
        refused.output
    );
    assert_eq!(server.requests(), 0);
    ctx.allow_private_network = true;
    let allowed = tools::run("webfetch", &input, &ctx).await;
    assert!(!allowed.is_error && allowed.output.ends_with("hello from the test server\n"), "{}", allowed.output);
    let missing = tools::run("webfetch", &json!({}), &ctx).await;
    assert_eq!(missing, ToolOutput::error("missing the required \"url\" string"));
}

#[tokio::test]
async fn cancel_stops_a_fetch_at_once() {
    let server = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.allow_private_network = true;
    let cancel = ctx.cancel.clone();
    let input = json!({"url": server.url("/slow")});
    let task = tokio::spawn(async move { tools::run("webfetch", &input, &ctx).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(5), task).await.expect("the fetch ignored the cancel").unwrap();
    assert_eq!(out, ToolOutput::error("cancelled"));
}
