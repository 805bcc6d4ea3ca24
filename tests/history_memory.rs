//! The workers' history cache is bounded by an estimate of what its decoded
//! messages occupy (`--history-cache-mb`). This holds the estimate to what
//! the allocator really hands out, counted by a global allocator of this
//! test binary, for histories of three shapes: a tool loop's (2 KB inputs,
//! 1 KB answers), a chat of short messages (where the fixed costs are most
//! of it), and tool calls with many small JSON fields.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use serde_json::json;
use wingman::domain::history::{History, HistoryCache, HistoryRow};
use wingman::domain::model::{Content, Message, Role};

/// Live bytes asked for, plus live allocations (each costs glibc a header
/// and rounding, about 16 bytes).
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static LIVE_ALLOCATIONS: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters only observe.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE_BYTES.load(Ordering::Relaxed) + 16 * LIVE_ALLOCATIONS.load(Ordering::Relaxed)
}

fn message(role: Role, content: Content) -> Message {
    Message { role, content: vec![content] }
}

fn tool_loop(exchanges: usize) -> Vec<Message> {
    (0..exchanges)
        .flat_map(|i| {
            let id = format!("call_{i}_1");
            [
                Message::user_text("go"),
                message(
                    Role::Assistant,
                    Content::ToolUse {
                        id: id.clone(),
                        name: "write".into(),
                        input: json!({"path": "out.txt", "content": "x".repeat(2048)}),
                    },
                ),
                message(
                    Role::Tool,
                    Content::ToolResult { tool_use_id: id, content: "wrote 2048 bytes".into(), is_error: false },
                ),
                message(Role::Assistant, Content::Text { text: "y".repeat(1024) }),
            ]
        })
        .collect()
}

fn chat(messages: usize) -> Vec<Message> {
    (0..messages).map(|i| Message::user_text(if i % 2 == 0 { "ok" } else { "thanks, that works" })).collect()
}

fn structured(calls: usize) -> Vec<Message> {
    (0..calls)
        .map(|i| {
            let fields: serde_json::Map<String, serde_json::Value> =
                (0..40).map(|f| (format!("field_{f}"), json!({"n": f, "tag": "t", "list": [1, 2, "x"]}))).collect();
            message(
                Role::Assistant,
                Content::ToolUse { id: format!("c{i}"), name: "record".into(), input: fields.into() },
            )
        })
        .collect()
}

/// What a session's history really takes in a cache, against the cache's
/// estimate: the messages are decoded from their stored JSON (as a load
/// does) one row each, made into a history and kept.
fn measured(messages: Vec<Message>) -> (f64, f64) {
    let stored: Vec<String> = messages.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
    drop(messages);
    let cache = HistoryCache::new(1 << 30);
    let before = live();
    let rows = stored
        .iter()
        .enumerate()
        .map(|(i, json)| HistoryRow { idx: i as i64 + 1, messages: vec![serde_json::from_str(json).unwrap()] })
        .collect();
    let history = History::default().extended(rows);
    cache.keep("01KSESSION0000000000000000", 0, &history);
    drop(history);
    let real = (live() - before) as f64;
    let estimate = cache.size().1 as f64;
    (real, estimate)
}

#[test]
fn the_cache_bound_counts_what_the_messages_occupy() {
    for (shape, messages) in [("tool loop", tool_loop(500)), ("chat", chat(5000)), ("structured", structured(200))] {
        let (real, estimate) = measured(messages);
        let ratio = real / estimate;
        println!("{shape}: {:.0} KB held, {:.0} KB estimated ({ratio:.2}×)", real / 1024.0, estimate / 1024.0);
        assert!((0.85..=1.15).contains(&ratio), "{shape}: {real} bytes held, {estimate} estimated");
    }
}
