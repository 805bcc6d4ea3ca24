//! Many watchers: a reader that never reads is closed and costs the server
//! a bounded amount of memory, while the other readers of the same log get
//! it whole; a closed reader resumes with `Last-Event-ID`. Readers who
//! arrive together while a run streams read each page of its past once
//! between them, and each gets the whole log.

mod common;

use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Steps of the run; each reads a file (its result is 50 KB, the most
/// `read` gives) and then the next.
const STEPS: usize = 200;

/// What the server may grow by while the log (about 10 MB, most of it in
/// 200 results of 50 KB) streams past a reader that reads nothing: the
/// frames its feed holds for the slowest tail (256, a fifth of them large),
/// with room for the allocator's own.
const BOUND: u64 = 6 * 1024 * 1024;

fn resident(pid: i32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> u64 {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn metric(api: &Api, name: &str) -> f64 {
    let text = reqwest::get(format!("{}/metrics", api.base)).await.unwrap().text().await.unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.trim().parse::<f64>().ok()))
        .unwrap_or(0.0)
}

/// Waits until the metric's value `holds`, failing with `what` after `limit`.
async fn until_metric(api: &Api, name: &str, holds: impl Fn(f64) -> bool, limit: Duration, what: &str) {
    let started = Instant::now();
    while !holds(metric(api, name).await) {
        assert!(started.elapsed() < limit, "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A tail whose client never reads: a socket with a small receive buffer,
/// a request, and nothing read after it.
async fn never_reading_tail(base: &str, run: &str) -> tokio::net::TcpStream {
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let request = format!("GET /runs/{run}/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

on_both_backends! {
    async fn a_tail_that_never_reads_is_closed_and_bounded(backend: Backend) {
        let mut env = TestEnv::on(backend);
        env.set("WINGMAN_SEND_TIMEOUT_MS", "1000");
        let server = env.server(0);
        let api = server.api();
        let work = env.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let line = format!("{}\n", "a".repeat(60));
        std::fs::write(work.join("big.txt"), line.repeat(1000)).unwrap();
        let read = json!({"tool_calls": [{"name": "read", "input": {"path": "big.txt"}}]});
        let mut script = vec![read; STEPS];
        script.push(json!({"text": "done"}));
        let agent = api.create_agent(json!({
            "name": "loud", "provider": "scripted", "model": "echo", "tools": ["read"],
            "max_steps": STEPS + 5, "loop_guard": 0, "options": {"script": script},
        })).await;
        let session = api.create_session(&agent, Some(&work)).await;
        let run = api.send(&session, "read it all").await;

        let mut stalled = never_reading_tail(&api.base, &run).await;
        let reader = {
            let api = server.api();
            let run = run.clone();
            tokio::spawn(async move { api.sse_read(&run, None, None).await })
        };
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(metric(&api, "wingman_event_tails_open").await, 2.0);
        let pid = server.process.pid();
        std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();
        let (before, _) = resident(pid);
        let _worker = env.worker();

        // The reader gets the whole log, the never-reader notwithstanding.
        let (events, done) = tokio::time::timeout(Duration::from_secs(120), reader).await.unwrap().unwrap();
        assert!(done, "the reading tail saw the run end");

        // The never-reader is closed (by the send timeout), and with it its tail.
        let closed = |open| open == 0.0;
        until_metric(&api, "wingman_event_tails_open", closed, Duration::from_secs(30), "the never-reading tail is still open").await;
        assert_eq!(metric(&api, "wingman_http_connections_stalled_total").await, 1.0);
        let (_, peak) = resident(pid);

        let log = api.events(&run).await;
        assert_eq!(events.len(), log.len());
        assert!(events.iter().zip(&log).all(|(a, b)| a == b), "the reader's log is the stored one");
        let bytes: usize = log.iter().map(|e| e.to_string().len()).sum();
        assert!(bytes > 9_000_000, "the log is {bytes} bytes");
        let grew = peak.saturating_sub(before);
        println!("{backend:?}: a {bytes}-byte log past a reader that reads nothing: the server grew by {grew} bytes at most");
        assert!(grew < BOUND, "the server grew by {grew} bytes (bound {BOUND}) for a log of {bytes}");

        // Its client finds the connection gone once it reads, having got a
        // beginning of the log that it resumes from with Last-Event-ID.
        let mut received = Vec::new();
        let ended = tokio::time::timeout(Duration::from_secs(10), async {
            let mut buf = vec![0u8; 65536];
            loop {
                match stalled.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => received.extend_from_slice(&buf[..n]),
                }
            }
        }).await;
        assert!(ended.is_ok(), "the connection of the never-reader was not closed");
        assert!(received.len() < bytes, "the never-reader took {} bytes of {bytes}", received.len());
        let (rest, done) = api.sse_read(&run, Some(1), None).await;
        assert!(done && rest.len() == log.len() - 1, "a reconnect with Last-Event-ID resumes the log");
    }
}

on_both_backends! {
    async fn readers_who_arrive_together_share_their_reads_of_the_past(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        // 60 steps of one word then a tool call, 20 ms a word: five events
        // a step, over two seconds or more.
        let step = json!({"text": "word", "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]});
        let mut script = vec![step; 60];
        script.push(json!({"text": "done"}));
        let options = json!({"script": script, "chunk_delay_ms": 20});
        let agent = api
            .create_agent(json!({"name": "long", "provider": "scripted", "model": "m", "tools": ["glob"],
                "max_steps": 70, "loop_guard": 0, "options": options}))
            .await;
        let run = api.send(&api.create_session(&agent, None).await, "go").await;
        let started = Instant::now();
        while api.events(&run).await.len() < 100 {
            assert!(started.elapsed() < Duration::from_secs(30), "the run did not stream");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let (store_before, shared_before) = (pages(&api, "store").await, pages(&api, "shared").await);
        const READERS: usize = 40;
        let reads = futures_util::future::join_all((0..READERS).map(|_| api.sse_read(&run, None, None))).await;
        let log = api.events(&run).await;
        assert_eq!(log.last().unwrap()["type"], "done");
        for (events, ended) in &reads {
            assert!(ended);
            assert_eq!(events, &log, "every reader gets the whole log, each event once");
        }
        let store = pages(&api, "store").await - store_before;
        let shared = pages(&api, "shared").await - shared_before;
        println!("{READERS} readers of {} events: {store} pages from the store, {shared} shared", log.len());
        // Alone, each reader would read at least 100 / 32 pages of the past,
        // and end its catch-up with a read of its own: a shared read that
        // came back short, begun after a reader subscribed, ends that
        // reader's catch-up as well, so most readers read nothing alone.
        assert!(shared >= READERS as f64, "{shared} pages shared");
        assert!(store < READERS as f64, "{store} pages read from the store by {READERS} readers");

        // Readers of a log that is over share their reads as well, and each
        // still gets to its end: no event of it will come live.
        let again = futures_util::future::join_all((0..10).map(|_| api.sse_read(&run, None, None))).await;
        for (events, ended) in &again {
            assert!(ended);
            assert_eq!(events, &log);
        }
        assert!(pages(&api, "shared").await > shared_before + shared, "the later readers shared their reads");
    }
}

async fn pages(api: &Api, source: &str) -> f64 {
    metric(api, &format!("wingman_event_tail_pages_total{{source=\"{source}\"}}")).await
}

/// A tail of a silent log gets a keep-alive comment every 15 s (the hub's
/// one for all the log's tails), so that proxies keep the stream open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_tail_gets_keep_alives() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "quiet"})).await;
    let session = api.create_session(&agent, None).await;
    // No worker: the run waits, queued, and its log stays silent.
    let run = api.send(&session, "hello").await;
    let response = api
        .http
        .get(format!("{}/runs/{run}/events", api.base))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut body = response.bytes_stream();
    let mut received = Vec::new();
    let started = Instant::now();
    while !String::from_utf8_lossy(&received).contains("\n:\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(25), futures_util::StreamExt::next(&mut body))
            .await
            .expect("nothing for 25 s: no keep-alive")
            .expect("the stream ended")
            .unwrap();
        received.extend_from_slice(&chunk);
    }
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(10), "a keep-alive after {waited:?}: {}", String::from_utf8_lossy(&received));
    assert!(String::from_utf8_lossy(&received).contains("event: run_queued"));
}

/// A `?wait=true` whose client hangs up lets go of its tail within a couple
/// of seconds (the server looks at the waiting client's socket once a
/// second), rather than holding it until the run ends; the run goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_whose_client_hangs_up_lets_go_of_its_tail() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "patient", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;

    // No worker: the run stays queued, and the wait would last for ever.
    let addr: std::net::SocketAddr = api.base.trim_start_matches("http://").parse().unwrap();
    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    let body = json!({"message": "hello"}).to_string();
    let request = format!(
        "POST /sessions/{session}/message?wait=true HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Idempotency-Key: hang-up\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    client.write_all(request.as_bytes()).await.unwrap();
    let opened = |open| open >= 1.0;
    until_metric(&api, "wingman_event_tails_open", opened, Duration::from_secs(10), "the wait never opened its tail")
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(metric(&api, "wingman_event_tails_open").await, 1.0, "a wait whose client is there keeps its tail");

    drop(client);
    let let_go = |open| open == 0.0;
    let what = "the wait still holds its tail after its client hung up";
    until_metric(&api, "wingman_event_tails_open", let_go, Duration::from_secs(5), what).await;
    let metrics = reqwest::get(format!("{}/metrics", api.base)).await.unwrap().text().await.unwrap();
    assert!(
        metrics.lines().any(|l| l.starts_with("wingman_http_requests_total") && l.contains("status=\"499\"")),
        "the abandoned wait is counted as closed by its client: {metrics}"
    );

    // The run was not the wait's: it is there, and a worker runs it.
    let again = api
        .http
        .post(format!("{}/sessions/{session}/message", api.base))
        .header("idempotency-key", "hang-up")
        .json(&json!({"message": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 202);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    let again: serde_json::Value = again.json().await.unwrap();
    let run = again["run_id"].as_str().unwrap().to_string();
    let _worker = env.worker();
    let run = api.wait_terminal(&run, Duration::from_secs(30)).await;
    assert_eq!(run["status"], "succeeded", "{run}");
}
