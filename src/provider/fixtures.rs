//! Test helpers: the recorded provider exchanges in
//! `tests/fixtures/providers/` (see SOURCES.md there for which are
//! verbatim), and a comparison of JSON that names the first field that differs.

use serde_json::Value;
use tokio::sync::mpsc;

use super::{Delta, Deltas};

/// The directory of the captures, relative to the repository root.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/providers/");

/// The bytes of a capture.
pub fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A capture parsed as JSON.
pub fn json(name: &str) -> Value {
    serde_json::from_slice(&bytes(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A channel for an answer's pieces, and a way to read what was sent on it.
pub fn deltas() -> (Deltas, mpsc::UnboundedReceiver<Delta>) {
    mpsc::unbounded_channel()
}

/// The text sent on a delta channel so far, piece by piece.
pub fn drain(rx: &mut mpsc::UnboundedReceiver<Delta>) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(delta) = rx.try_recv() {
        if let Delta::Text(text) = delta {
            out.push(text);
        }
    }
    out
}

/// The bytes of tool input `feed` sends on a fresh delta channel.
pub fn tool_input(feed: impl FnOnce(&Deltas)) -> usize {
    let (tx, mut rx) = deltas();
    feed(&tx);
    let mut bytes = 0;
    while let Ok(delta) = rx.try_recv() {
        if let Delta::ToolInput(n) = delta {
            bytes += n;
        }
    }
    bytes
}

/// Asserts that `actual` equals `expected`, field by field, naming the path
/// of the first difference.
pub fn assert_same(actual: &Value, expected: &Value) {
    if let Err(path) = compare(actual, expected, "$") {
        panic!("request differs at {path}\nactual:   {actual:#}\nexpected: {expected:#}");
    }
}

fn compare(actual: &Value, expected: &Value, path: &str) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for key in a.keys().chain(e.keys()) {
                match (a.get(key), e.get(key)) {
                    (Some(x), Some(y)) => compare(x, y, &format!("{path}.{key}"))?,
                    (Some(_), None) => return Err(format!("{path}.{key} (sent but not in the capture)")),
                    (None, _) => return Err(format!("{path}.{key} (in the capture but not sent)")),
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) if a.len() == e.len() => {
            a.iter().zip(e).enumerate().try_for_each(|(i, (x, y))| compare(x, y, &format!("{path}[{i}]")))
        }
        _ if actual == expected => Ok(()),
        _ => Err(format!("{path}: {actual} instead of {expected}")),
    }
}

/// Removes `caller` from every content block: the API adds it to its answers
/// and the SDK that recorded the captures echoed it back, but a client need
/// not send it.
pub fn without_caller(mut request: Value) -> Value {
    for message in request["messages"].as_array_mut().into_iter().flatten() {
        for block in message["content"].as_array_mut().into_iter().flatten() {
            if let Some(obj) = block.as_object_mut() {
                obj.remove("caller");
            }
        }
    }
    request
}
