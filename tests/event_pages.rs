//! A JSON read of an event log answers a page at a time: a log of 100,000
//! events of a kilobyte each is read whole through `?after=` and `?limit=`
//! (with `Wingman-Next-After` naming each next page), every `seq` once, and
//! the server's peak memory grows by less than a stated bound while it
//! answers; a read that held the whole log would need over 100 MB for the
//! text alone. The log is written straight into SQLite; the paging is the
//! API's and the same on PostgreSQL.

mod common;

use common::TestEnv;
use serde_json::{json, Value};

const EVENTS: u64 = 100_000;
/// What reading the whole log may add to the server's peak resident memory:
/// a page of 10,000 events held as its rows while its text is written a few
/// hundred events at a time (about 12 MB here), the SQLite page caches of
/// the connections that read it (32 MB each), and what the allocator keeps
/// of both; 64–80 MB measured (85–132 MB while the body was built whole).
/// Holding the whole log would take over 300 MB.
const BOUND_MB: u64 = 128;

/// A field of `/proc/<pid>/status`, in kB.
fn status_kb(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let line = status.lines().find(|l| l.starts_with(field)).expect("the field");
    line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a number")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_log_is_read_a_page_at_a_time_within_a_memory_bound() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "a", "provider": "scripted", "model": "m"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hello").await;
    env.execute(&format!(
        "INSERT INTO run_events (run_id, first_seq, last_seq, events, at)
         WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < {last})
         SELECT '{run}', i, i, '[[\"text_delta\",{{\"text\":\"' || hex(zeroblob(500)) || '\"}}]]', 1795811575694 FROM n",
        last = EVENTS + 1
    ))
    .await;

    for bad in ["0", "10001", "x"] {
        let (status, body) = api.get(&format!("/runs/{run}/events?limit={bad}")).await;
        assert_eq!(status, 400, "limit={bad}: {body}");
    }
    let first = api.http.get(format!("{}/runs/{run}/events", api.base)).send().await.unwrap();
    assert_eq!(first.headers().get("wingman-next-after").unwrap(), "1000");
    assert_eq!(first.json::<Value>().await.unwrap().as_array().unwrap().len(), 1000, "the default page");

    let pid = server.process.pid();
    let peak_before = status_kb(pid, "VmHWM:");
    let (mut after, mut seen, mut pages) = (0u64, 0u64, 0);
    loop {
        let answer =
            api.http.get(format!("{}/runs/{run}/events?after={after}&limit=10000", api.base)).send().await.unwrap();
        assert_eq!(answer.status(), 200);
        let next = answer.headers().get("wingman-next-after").map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
        let page: Vec<Value> = answer.json().await.unwrap();
        pages += 1;
        for event in &page {
            seen += 1;
            assert_eq!(event["seq"], seen, "every seq once, in order");
        }
        match next {
            Some(next) => {
                assert_eq!(page.len(), 10_000);
                assert_eq!(next, seen);
                after = next;
            }
            None => {
                assert!(page.len() < 10_000);
                break;
            }
        }
    }
    assert_eq!(seen, EVENTS + 1);
    let grown = status_kb(pid, "VmHWM:").saturating_sub(peak_before) / 1024;
    println!("{pages} pages; the server's peak memory grew by {grown} MB while they were read");
    assert!(grown < BOUND_MB, "reading the log grew the server's peak memory by {grown} MB (bound {BOUND_MB} MB)");
}
