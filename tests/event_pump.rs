//! The server's event pump, which carries new events to live tails, meets
//! an event row it cannot read (one no version of Wingman writes here; a
//! newer version's event could look so to an older server). Reading it
//! again gives the same error, so the pump skips past it and goes on
//! delivering: live delivery does not stop for good at one bad row.

mod common;

use std::time::Duration;

use common::{assert_dense, step_agent, Api, Backend, SseDecoder, TestEnv};
use futures_util::StreamExt;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(60);

/// The server's count of events its pump delivered to live tails.
const DELIVERED: &str = "wingman_event_pump_lag_seconds_count";

on_both_backends! {
async fn the_event_pump_skips_an_event_row_it_cannot_read_and_delivers_what_follows(backend: Backend) {
    let env = TestEnv::on(backend);
    let server = env.server(0);
    let api = server.api();
    let work = env.path().join("work");
    let agent = api.create_agent(step_agent(3)).await;
    let run = api.send(&api.create_session(&agent, Some(&work)).await, "go").await;
    let mut tail = Tail::open(&api, &run).await;
    // The tail has its first event, so it is subscribed: the pump reads
    // every new row from now on instead of skipping to the newest.
    tail.read_until("run_queued").await;
    env.execute(&bad_event_row()).await;
    let before = delivered(&api).await;
    let _worker = env.worker();
    let events = tail.read_until("done").await;
    assert_dense(&events);
    assert_eq!(events, api.events(&run).await, "the tail saw the whole log");
    let after = delivered(&api).await;
    assert!(after > before, "the pump delivered events written after the bad row ({before} -> {after})");
    let log = server.process.log_text();
    assert!(log.contains("event pump skipped events it cannot read"), "{log}");
}
}

/// An event row of a run that does not exist, whose events are not JSON.
fn bad_event_row() -> String {
    "INSERT INTO run_events (run_id, first_seq, last_seq, events, at) VALUES ('no-such-run', 1, 1, 'not json', 0)"
        .into()
}

async fn delivered(api: &Api) -> f64 {
    let text = api.http.get(format!("{}/metrics", api.base)).send().await.unwrap().text().await.unwrap();
    let line = text.lines().find(|l| l.starts_with(DELIVERED)).unwrap_or_else(|| panic!("{DELIVERED}:\n{text}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// A run's live SSE stream, read a frame at a time.
struct Tail {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    parser: SseDecoder,
    events: Vec<Value>,
}

impl Tail {
    async fn open(api: &Api, run: &str) -> Tail {
        let url = format!("{}/runs/{run}/events", api.base);
        let response = api.http.get(url).header("Accept", "text/event-stream").send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        Tail { stream: response.bytes_stream().boxed(), parser: SseDecoder::default(), events: Vec::new() }
    }

    /// Reads until an event of `kind` arrives; returns every event so far.
    async fn read_until(&mut self, kind: &str) -> Vec<Value> {
        while !self.events.iter().any(|e| e["type"] == kind) {
            let chunk = tokio::time::timeout(LIMIT, self.stream.next()).await.expect("the tail stalled");
            let chunk = chunk.expect("the stream ended").unwrap();
            for frame in self.parser.push(&chunk) {
                self.events.push(serde_json::from_str(&frame.data).unwrap());
            }
        }
        self.events.clone()
    }
}
