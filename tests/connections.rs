//! How the server holds connections, tried with raw sockets against the
//! real binary: connections that send nothing or half a request head are
//! closed after `--header-timeout-secs` and their descriptors come back,
//! while a normal client is served; an idle keep-alive connection lasts
//! `--idle-timeout-secs` and an SSE stream outlives it; past
//! `--max-connections` a new client waits and is served once others close;
//! and a request whose body the route does not read gets its answer, not a
//! connection reset.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{Server, TestEnv};

const HEADER_TIMEOUT: u64 = 2;
const IDLE_TIMEOUT: u64 = 5;

fn server_with(settings: &[(&str, &str)]) -> (TestEnv, Server) {
    let mut env = TestEnv::new();
    for (key, value) in settings {
        env.set(key, value);
    }
    let server = env.server(0);
    (env, server)
}

fn timeouts() -> [(&'static str, String); 2] {
    [
        ("WINGMAN_HEADER_TIMEOUT_SECS", HEADER_TIMEOUT.to_string()),
        ("WINGMAN_IDLE_TIMEOUT_SECS", IDLE_TIMEOUT.to_string()),
    ]
}

fn connect(server: &Server) -> TcpStream {
    TcpStream::connect(address(server)).expect("connect")
}

fn address(server: &Server) -> String {
    server.url.trim_start_matches("http://").to_string()
}

/// The server's open descriptors.
fn descriptors(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.process.pid())).expect("/proc").count()
}

/// Sends `request` on a fresh connection and reads the answer's status
/// line; an error (a reset) is returned as such.
fn status_of(server: &Server, request: &[u8]) -> std::io::Result<String> {
    status_at(&address(server), request)
}

fn status_at(address: &str, request: &[u8]) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    stream.write_all(request)?;
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&answer);
    Ok(text.lines().next().unwrap_or("").to_string())
}

const HEALTH: &[u8] = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

fn get_health(server: &Server) -> std::io::Result<String> {
    status_of(server, HEALTH)
}

/// Blocks until `stream` is closed by the server (end of file or a reset),
/// failing if it is still open at `deadline`.
fn wait_closed(stream: &mut TcpStream, deadline: Instant, what: &str) {
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("{what}: still open at its deadline")
            }
            Err(_) => return,
        }
    }
}

/// True if `stream` is still open after `wait` (bytes may arrive meanwhile).
fn still_open_after(stream: &mut TcpStream, wait: Duration) -> bool {
    let until = Instant::now() + wait;
    let mut buf = [0u8; 4096];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return true;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return true,
            Err(_) => return false,
        }
    }
}

#[test]
fn two_thousand_silent_or_half_sent_connections_are_closed_and_their_descriptors_return() {
    wingman::fdlimit::raise().expect("raise this test's open-file limit");
    let settings = timeouts();
    let (_env, server) = server_with(&settings.iter().map(|(k, v)| (*k, v.as_str())).collect::<Vec<_>>());
    assert!(get_health(&server).unwrap().contains("200"));
    let at_rest = descriptors(&server);

    let mut held: Vec<TcpStream> = (0..2000)
        .map(|i| {
            let mut stream = connect(&server);
            if i % 2 == 1 {
                stream.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ").unwrap();
            }
            stream
        })
        .collect();
    let opened = Instant::now();
    // A normal client is served while they are held.
    assert!(get_health(&server).unwrap().contains("200"), "a normal client was not served");
    let peak = descriptors(&server);
    println!("descriptors: {at_rest} at rest, {peak} with 2,000 connections held");

    let deadline = opened + Duration::from_secs(HEADER_TIMEOUT + 8);
    for (i, stream) in held.iter_mut().enumerate() {
        wait_closed(stream, deadline, &format!("connection {i}"));
    }
    let back = Instant::now() + Duration::from_secs(10);
    while descriptors(&server) > at_rest + 2 && Instant::now() < back {
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = descriptors(&server);
    assert!(after <= at_rest + 2, "descriptors did not return: {at_rest} at rest, {after} after");
    assert!(get_health(&server).unwrap().contains("200"));
}

#[test]
fn an_idle_keep_alive_connection_lasts_the_idle_timeout_and_an_sse_stream_outlives_it() {
    let settings = timeouts();
    let (_env, server) = server_with(&settings.iter().map(|(k, v)| (*k, v.as_str())).collect::<Vec<_>>());

    let mut idle = connect(&server);
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let mut buf = [0u8; 4096];
    assert!(idle.read(&mut buf).unwrap() > 0);
    let answered = Instant::now();
    // Past the header timeout, within the idle timeout: still there.
    assert!(still_open_after(&mut idle, Duration::from_secs(HEADER_TIMEOUT + 1)), "closed by the header timeout");
    wait_closed(&mut idle, answered + Duration::from_secs(IDLE_TIMEOUT + 4), "the idle connection");

    // A run that stays queued (no workers) and a tail of it.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let run_id = runtime.block_on(async {
        let api = server.api();
        let agent = api.create_agent(serde_json::json!({"name": "a", "provider": "scripted", "model": "m"})).await;
        let session = api.create_session(&agent, None).await;
        api.send(&session, "hello").await
    });
    let mut tail = connect(&server);
    let request = format!("GET /runs/{run_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    tail.write_all(request.as_bytes()).unwrap();
    assert!(still_open_after(&mut tail, Duration::from_secs(IDLE_TIMEOUT + 3)), "the SSE stream was closed as idle");
}

#[test]
fn past_max_connections_a_new_client_waits_and_is_served_once_others_close() {
    let (_env, server) = server_with(&[("WINGMAN_MAX_CONNECTIONS", "20"), ("WINGMAN_HEADER_TIMEOUT_SECS", "60")]);
    let mut held: Vec<TcpStream> = (0..20).map(|_| connect(&server)).collect();
    // Each held connection has been accepted once it can be seen open.
    std::thread::sleep(Duration::from_millis(500));

    let at = address(&server);
    let waiting = std::thread::spawn(move || status_at(&at, HEALTH));
    std::thread::sleep(Duration::from_secs(2));
    assert!(!waiting.is_finished(), "a 21st connection was served past --max-connections 20");
    held.truncate(15);
    let answered = waiting.join().unwrap().expect("the waiting client's answer");
    assert!(answered.contains("200"), "{answered}");
}

#[test]
fn a_body_the_route_does_not_read_gets_its_answer_not_a_reset() {
    let (_env, server) = server_with(&[("WINGMAN_MAX_BODY_BYTES", "65536")]);
    let big = "x".repeat(2 * 1024 * 1024);
    let requests: Vec<(String, Vec<u8>)> = vec![
        ("GET /agents with 2 MB".into(), request("GET", "/agents", &big, big.len())),
        ("GET /sessions with half of 2 MB".into(), request("GET", "/sessions", &big[..big.len() / 2], big.len())),
        ("POST /agents past the body limit".into(), request("POST", "/agents", &big, big.len())),
        ("GET /runs with a small body".into(), request("GET", "/runs", "{\"x\":1}", 7)),
    ];
    for round in 0..15 {
        for (what, bytes) in &requests {
            let status = status_of(&server, bytes).unwrap_or_else(|e| panic!("{what} (round {round}): {e}"));
            assert!(status.starts_with("HTTP/1.1 "), "{what} (round {round}): {status:?}");
            assert!(!status.contains(" 5"), "{what}: {status}");
        }
    }
}

fn request(method: &str, path: &str, body: &str, length: usize) -> Vec<u8> {
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    [head.as_bytes(), body.as_bytes()].concat()
}
