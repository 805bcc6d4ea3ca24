//! A submission whose answer never arrives, on PostgreSQL. A plain
//! submission is one call outside any explicit transaction; when the
//! connection dies during it, the store cannot tell whether the run was
//! written, so it looks for the run by its ID and writes it only if absent.
//! A relay between the store and the server cuts the connection at the two
//! moments that matter: after the server committed the call (the answer is
//! lost) and before the server received it (nothing was written). Either
//! way the submission succeeds, and the run exists once, with one
//! `run_queued`.

mod store_support;

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use serde_json::json;
use store_support::pg_support;
use store_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use wingman::store::{self, RunFilter, StoreOptions};

/// Where the relay cuts the connection that carries the submission.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum Cut {
    /// After the server executed and committed the call: its answer is dropped.
    AfterCommit = 1,
    /// Before the server receives the call's execution.
    BeforeExecute = 2,
}

#[tokio::test]
async fn a_submission_whose_answer_is_lost_is_written_once() {
    if pg_support::postgres_url_or_skip().is_none() {
        return;
    }
    for cut in [Cut::AfterCommit, Cut::BeforeExecute] {
        let database = pg_support::PgDatabase::create();
        let dir = tempfile::tempdir().unwrap();
        let upstream = reqwest::Url::parse(&database.url).unwrap();
        let armed = Arc::new(AtomicU8::new(0));
        let port = relay(upstream.socket_addrs(|| Some(5432)).unwrap()[0].to_string(), armed.clone()).await;
        let mut through = upstream.clone();
        through.set_port(Some(port)).unwrap();
        through.query_pairs_mut().append_pair("sslmode", "disable");
        // A store of its own per cut: its first submission is the first on
        // its connection, so the relay sees the statement's text go by.
        let store = store::open(through.as_str(), &StoreOptions::default()).await.unwrap();
        let a = agent(json!({}), 5);
        let s = session(&store, dir.path()).await;

        armed.store(cut as u8, Ordering::SeqCst);
        let run = enqueue(&store, &s, &a, "hello").await;
        assert_eq!(armed.load(Ordering::SeqCst), 0, "{cut:?}: the relay cut the submission's connection");

        let filter = RunFilter { session_id: Some(s.clone()), limit: 100, ..Default::default() };
        let runs = store.list_runs(&filter).await.unwrap();
        assert_eq!(runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [run.as_str()], "{cut:?}");
        let events = store.read_events(&run, 0, 100).await.unwrap();
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["run_queued"], "{cut:?}");
    }
}

/// Relays connections to `upstream`; returns its port. While `armed` holds
/// a [`Cut`], the first connection that sends the submission's statement is
/// cut there, and `armed` goes back to 0.
async fn relay(upstream: String, armed: Arc<AtomicU8>) -> u16 {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (upstream, armed) = (upstream.clone(), armed.clone());
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&upstream).await else { return };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                // 0: not chosen; else the cut this connection is chosen for.
                let chosen = Arc::new(AtomicU8::new(0));
                tokio::spawn(to_server(client_read, server_write, armed, chosen.clone()));
                tokio::spawn(to_client(server_read, client_write, chosen));
            });
        }
    });
    port
}

/// Client to server: the chunk that names the statement chooses this
/// connection; then, for a cut before execution, the chunk that asks to
/// execute it is dropped and the connection closed.
async fn to_server(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, armed: Arc<AtomicU8>, chosen: Arc<AtomicU8>) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let chunk = &buffer[..n];
        if chosen.load(Ordering::SeqCst) == 0 && contains(chunk, b"wingman_enqueue_run") {
            let cut = armed.swap(0, Ordering::SeqCst);
            chosen.store(cut, Ordering::SeqCst);
        }
        // Bind ('B') then Execute ('E'): the protocol's request to run it.
        if chosen.load(Ordering::SeqCst) == Cut::BeforeExecute as u8 && chunk.first() == Some(&b'B') {
            let _ = to.shutdown().await;
            return;
        }
        if to.write_all(chunk).await.is_err() {
            return;
        }
    }
}

/// Server to client: for a cut after the commit, the answer to the
/// execution (it starts with BindComplete, '2', and comes once the server
/// has committed, at the Sync that ends it) is dropped and the connection
/// closed.
async fn to_client(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, chosen: Arc<AtomicU8>) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buffer[..n];
        if chosen.load(Ordering::SeqCst) == Cut::AfterCommit as u8 && chunk.first() == Some(&b'2') {
            break;
        }
        if to.write_all(chunk).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
