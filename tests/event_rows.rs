//! How a run's log is stored does not show in what it answers. A run's
//! answer reaches its log twice, streamed as `text_delta`s and whole in its
//! `done`; when the write that ends the run holds every piece of it, the
//! stored row keeps the text once and the `done` names the step whose pieces
//! spell it. Against a real server and worker on each backend: an answer
//! streamed in one write (stored once) and one streamed over several writes
//! (the `done` keeps its own copy) read back alike as JSON pages of any size
//! and over SSE from every event's ID, and the `done` says what the run says.

mod common;

use common::{assert_dense, assert_log_reads_agree, Backend, TestEnv};
use serde_json::{json, Value};

const LIMIT: std::time::Duration = std::time::Duration::from_secs(30);
const ANSWER: &str = "one two three four five six seven eight nine ten eleven twelve";

fn streamed(events: &[Value]) -> String {
    events.iter().filter(|e| e["type"] == "text_delta").filter_map(|e| e["text"].as_str()).collect()
}

/// Sends one message to an agent that answers [`ANSWER`] word by word,
/// `delay_ms` apart, and checks what every read of the run's log says;
/// returns the run's ID.
async fn answered(api: &common::Api, delay_ms: u64) -> String {
    let options = json!({"script": [{"text": ANSWER}], "chunk_delay_ms": delay_ms});
    let agent = api.create_agent(json!({"name": "a", "provider": "scripted", "model": "m", "options": options})).await;
    let session = api.create_session(&agent, None).await;
    let run_id = api.send(&session, "go").await;
    let run = api.wait_terminal(&run_id, LIMIT).await;
    assert_eq!((&run["status"], &run["response"]), (&json!("succeeded"), &json!(ANSWER)), "{run}");
    let events = api.events(&run_id).await;
    assert_dense(&events);
    assert_eq!(streamed(&events), ANSWER);
    let done = events.last().expect("a log");
    assert_eq!((&done["type"], &done["response"]), (&json!("done"), &json!(ANSWER)), "{done}");
    assert_log_reads_agree(api, &run_id).await;
    run_id
}

on_both_backends! {
    async fn an_answer_is_stored_once_when_its_pieces_share_the_row_of_its_done(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(0);
        let _worker = env.worker();
        let api = server.api();
        let rows = "SELECT COUNT(*) FROM run_events WHERE run_id = $1 AND events LIKE '%twelve%'";
        let referenced = "SELECT COUNT(*) FROM run_events WHERE run_id = $1 AND events LIKE '%\"text_of_step\":%'";

        // Streamed at once: one write holds the pieces and the done.
        let at_once = answered(&api, 0).await;
        assert_eq!(env.count(rows, &[&at_once]).await, 1);
        assert_eq!(env.count(referenced, &[&at_once]).await, 1);
        let row: i64 = env.count("SELECT CAST(MAX(LENGTH(events)) AS BIGINT) FROM run_events WHERE run_id = $1", &[&at_once]).await;
        assert!(row < 2 * ANSWER.len() as i64 + 300, "the answer is in its row once ({row} bytes)");

        // Streamed over 720 ms, flushed every 200: the done's row holds only
        // the last pieces, so it keeps the whole text.
        let slowly = answered(&api, 60).await;
        assert!(env.count("SELECT COUNT(*) FROM run_events WHERE run_id = $1", &[&slowly]).await > 4);
        assert_eq!(env.count(referenced, &[&slowly]).await, 0);
    }
}
