//! A session's history as a run is sent it, and what a worker keeps of it
//! between runs.
//!
//! A session's stored history only grows: each run that ends appends its
//! messages as rows numbered after the last (a row is one message on SQLite
//! and one run's messages on PostgreSQL). So a worker that loaded a
//! session's history up to row `n` for one run need only read the rows
//! after `n` for the next, and decode nothing twice. A rewind
//! ([`crate::domain::branch`]) is the exception: it sets rows aside, and
//! counts itself on the session, so what was kept at another count is read
//! again whole. [`HistoryCache`] keeps
//! what it loaded, within a memory bound, and [`History`] shares the
//! decoded messages between the cache, the runs and their requests, so that
//! what Wingman itself does for a message does not grow with the session.
//!
//! Compaction removes nothing either: it appends a marker
//! ([`crate::domain::compaction::Marker`]). A [`History`] applies each marker it
//! meets, so it holds what a provider is sent, from the newest marker on,
//! and never the markers themselves.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::domain::compaction::{self, Marker};
use crate::domain::model::{Content, Message};

/// Stored rows of a session's history, read after a known one.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryRow {
    /// The row's number within its session (rows are numbered from 1).
    pub idx: i64,
    /// The messages the row holds, in order.
    pub messages: Vec<Message>,
}

/// The messages a run is sent before its own: its session's history as
/// loaded, up to a stored row, from its newest compaction [`Marker`] on.
/// Cloning it copies a pointer; extending one that nothing else holds
/// appends in place, and one that is shared copies pointers to the
/// messages, never the messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// The newest compaction's summary, sent before the messages.
    summary: Option<Arc<Message>>,
    /// The messages sent as they are (or with their tool output pruned),
    /// oldest first.
    messages: Arc<Vec<Arc<Message>>>,
    /// The position of the first of them among the session's messages.
    first: u64,
    /// The number of the last row loaded (0: none).
    last_row: i64,
    /// Roughly what the messages occupy in memory, for the cache's bound.
    bytes: usize,
    /// The characters a provider is sent, for the prompt's estimate.
    chars: usize,
    /// The words a provider is sent ([`compaction::words_of`]).
    words: u64,
}

impl History {
    /// The number of the last stored row it holds: a load reads only the
    /// rows after it.
    pub fn last_row(&self) -> i64 {
        self.last_row
    }

    /// The messages a provider is sent, oldest first: the summary, if any,
    /// then the rest.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Message> + Clone + '_ {
        self.summary.iter().chain(self.messages.iter()).map(|m| m.as_ref())
    }

    /// The messages after the summary, the first at [`History::first`].
    pub fn messages(&self) -> &[Arc<Message>] {
        &self.messages
    }

    /// The newest compaction's summary, as it is sent.
    pub fn summary(&self) -> Option<&Message> {
        self.summary.as_deref()
    }

    /// The position of the first message after the summary among the
    /// session's messages (markers are not counted).
    pub fn first(&self) -> u64 {
        self.first
    }

    /// How many messages it holds, the summary included.
    pub fn len(&self) -> usize {
        self.messages.len() + usize::from(self.summary.is_some())
    }

    /// True when it holds no message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The characters a provider is sent ([`compaction::chars_of`]),
    /// summary included.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The prompt's size estimated from its characters, in tokens.
    pub fn tokens(&self) -> u64 {
        compaction::tokens_of(self.chars)
    }

    /// The words of the messages it holds, summary included: what the
    /// scripted provider counts, kept as the history grows so that a call
    /// does not count the whole session again.
    pub fn words(&self) -> u64 {
        self.words
    }

    /// The history with `rows` (read after [`History::last_row`], in
    /// order) appended.
    pub fn extended(mut self, rows: Vec<HistoryRow>) -> History {
        for row in rows {
            self.last_row = self.last_row.max(row.idx);
            self = self.followed_by(row.messages);
        }
        self
    }

    /// The history with `messages` appended as they come, markers applied.
    pub fn followed_by(mut self, messages: impl IntoIterator<Item = Message>) -> History {
        for mut message in messages {
            match compaction::marker_of(&message) {
                Some(marker) => self.apply(marker),
                None => {
                    // A decoded vector of blocks keeps room for four; most
                    // messages hold one, and a long session keeps them all.
                    message.content.shrink_to_fit();
                    self.bytes += size_of(&message);
                    self.chars += compaction::chars_of(&message);
                    self.words += compaction::words_of(&message);
                    Arc::make_mut(&mut self.messages).push(Arc::new(message));
                }
            }
        }
        self
    }

    /// Applies a compaction: the messages before its `first_kept` give way
    /// to its summary (or the one before, when it summarized nothing), and
    /// the tool results before its `pruned_before` are stubbed.
    pub fn apply(&mut self, marker: &Marker) {
        let end = self.first + self.messages.len() as u64;
        let drop = (marker.first_kept.clamp(self.first, end) - self.first) as usize;
        let prune = (marker.pruned_before.clamp(self.first, end) - self.first) as usize;
        let messages = Arc::make_mut(&mut self.messages);
        for message in messages.iter_mut().take(prune).skip(drop) {
            if let Some(stub) = compaction::stubbed(message) {
                *message = Arc::new(stub);
            }
        }
        messages.drain(..drop);
        self.first += drop as u64;
        if let Some(summary) = &marker.summary {
            self.summary = Some(Arc::new(compaction::summary_message(summary)));
        }
        self.bytes = self.iter().map(size_of).sum();
        self.chars = self.iter().map(compaction::chars_of).sum();
        self.words = self.iter().map(compaction::words_of).sum();
    }
}

/// An estimate of the heap a decoded message occupies: the shared
/// allocation that holds it, its blocks, their strings, and a tool call's
/// input node by node. It counts what the allocator hands out for each
/// allocation besides the bytes asked for, so that the cache's bound is a
/// bound on memory, not on text (`tests/history_memory.rs` holds it to a
/// counting allocator).
fn size_of(message: &Message) -> usize {
    let blocks: usize = message.content.iter().map(block_heap).sum();
    let block_vector = message.content.capacity() * std::mem::size_of::<Content>() + ALLOCATION;
    let shared = 2 * std::mem::size_of::<usize>() + std::mem::size_of::<Message>() + ALLOCATION;
    // Its pointer in the history's vector, with the vector's slack.
    let pointer = 2 * std::mem::size_of::<Arc<Message>>();
    shared + block_vector + blocks + pointer
}

/// What an allocation costs beyond its bytes (glibc's header, rounded).
const ALLOCATION: usize = 16;

fn string_heap(s: &str) -> usize {
    if s.is_empty() {
        0
    } else {
        s.len() + ALLOCATION
    }
}

fn block_heap(c: &Content) -> usize {
    match c {
        Content::Text { text } => string_heap(text),
        Content::ToolUse { id, name, input } => string_heap(id) + string_heap(name) + json_heap(input),
        Content::ToolResult { tool_use_id, content, .. } => string_heap(tool_use_id) + string_heap(content),
        Content::Thinking { thinking, signature } => {
            string_heap(thinking) + signature.as_deref().map_or(0, string_heap)
        }
        Content::RedactedThinking { data } => string_heap(data),
        Content::Compaction(marker) => {
            std::mem::size_of::<Marker>() + ALLOCATION + marker.summary.as_deref().map_or(0, string_heap)
        }
    }
}

/// A JSON value's heap: its strings, and for arrays and objects their
/// elements. An object's entries live in B-tree nodes of eleven slots each,
/// about two thirds full past the first.
fn json_heap(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    let node = std::mem::size_of::<Value>();
    match value {
        Value::String(s) => string_heap(s),
        Value::Array(items) => ALLOCATION + items.capacity() * node + items.iter().map(json_heap).sum::<usize>(),
        Value::Object(map) => {
            const SLOTS: usize = 11;
            // A node's slots, its parent's pointer and its two counts.
            let slots = SLOTS * (std::mem::size_of::<String>() + node) + 16;
            let nodes = (map.len() * 3).div_ceil(2 * SLOTS).max(1);
            let keys: usize = map.keys().map(|k| string_heap(k)).sum();
            nodes * (slots + ALLOCATION) + keys + map.values().map(json_heap).sum::<usize>()
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// What the cache spends on a session besides its messages: the map's slot,
/// the session's ID and the history's own allocations.
fn entry_overhead(session_id: &str) -> usize {
    std::mem::size_of::<(String, Entry)>() * 2 + string_heap(session_id) + 4 * ALLOCATION
}

/// The histories a worker loaded, by session, kept while they fit in
/// `limit_bytes`; the least recently used go first.
#[derive(Debug)]
pub struct HistoryCache {
    limit_bytes: usize,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    by_session: HashMap<String, Entry>,
    bytes: usize,
    clock: u64,
}

/// A session's history as kept, when it was last used, and the session's
/// rewinds when it was read.
#[derive(Debug)]
struct Entry {
    history: History,
    used: u64,
    rewinds: i64,
}

/// What a worker keeps by default: enough for many long sessions, small
/// next to what their runs use.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

impl Default for HistoryCache {
    fn default() -> Self {
        HistoryCache::new(DEFAULT_CACHE_BYTES)
    }
}

impl HistoryCache {
    /// A cache that keeps up to about `limit_bytes` of decoded messages
    /// (0 keeps nothing).
    pub fn new(limit_bytes: usize) -> HistoryCache {
        HistoryCache { limit_bytes, inner: Mutex::default() }
    }

    /// What is known of a session's history: read the rows after its
    /// [`History::last_row`], [`History::extended`] it with them, and
    /// [`HistoryCache::keep`] the result. It leaves the cache until it is
    /// kept again, so that extending it appends in place.
    ///
    /// `rewinds` is how many times the session was rewound when it is read
    /// (see [`crate::domain::branch`]): a rewind sets rows a known history
    /// holds aside, so what was kept at another count is dropped, and the
    /// history is read again from its first row.
    pub fn known(&self, session_id: &str, rewinds: i64) -> History {
        let mut entries = self.lock();
        match entries.by_session.remove(session_id) {
            Some(entry) => {
                entries.bytes -= entry.history.bytes + entry_overhead(session_id);
                if entry.rewinds == rewinds {
                    entry.history
                } else {
                    History::default()
                }
            }
            None => History::default(),
        }
    }

    /// Keeps a session's history as loaded, for its next run. A history of
    /// no rows is not kept: knowing it saves its next load nothing, and a
    /// fleet's tasks, each a session of its own, would fill the cache with
    /// them.
    pub fn keep(&self, session_id: &str, rewinds: i64, history: &History) {
        let mut entries = self.lock();
        if let Some(old) = entries.by_session.remove(session_id) {
            entries.bytes -= old.history.bytes + entry_overhead(session_id);
        }
        let cost = history.bytes + entry_overhead(session_id);
        if history.last_row == 0 || cost > self.limit_bytes {
            return;
        }
        entries.clock += 1;
        let now = entries.clock;
        entries.bytes += cost;
        entries.by_session.insert(session_id.to_string(), Entry { history: history.clone(), used: now, rewinds });
        while entries.bytes > self.limit_bytes {
            entries.evict_oldest();
        }
    }

    /// How many sessions and roughly how many bytes it holds.
    pub fn size(&self) -> (usize, usize) {
        let entries = self.lock();
        (entries.by_session.len(), entries.bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // The entries stay consistent at every await-free step, so a panic
        // elsewhere while the lock was held leaves nothing half-done.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Entries {
    fn evict_oldest(&mut self) {
        let oldest = self.by_session.iter().min_by_key(|(_, entry)| entry.used).map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            if let Some(old) = self.by_session.remove(&id) {
                self.bytes -= old.history.bytes + entry_overhead(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::Role;

    fn row(idx: i64, texts: &[&str]) -> HistoryRow {
        HistoryRow { idx, messages: texts.iter().map(|t| Message::user_text(*t)).collect() }
    }

    fn texts(history: &History) -> Vec<String> {
        history.iter().map(Message::text).collect()
    }

    #[test]
    fn a_history_kept_before_a_rewind_is_read_again_from_the_start() {
        let cache = HistoryCache::default();
        cache.keep("s", 0, &History::default().extended(vec![row(1, &["a"]), row(2, &["b"])]));
        assert_eq!(cache.known("s", 1).last_row(), 0, "rewound since it was kept");
        assert_eq!(cache.size().0, 0, "and no longer kept");
        cache.keep("s", 1, &History::default().extended(vec![row(1, &["a"])]));
        assert_eq!(cache.known("s", 1).last_row(), 1);
    }

    #[test]
    fn a_known_history_is_extended_by_the_rows_after_it() {
        let cache = HistoryCache::default();
        let first = cache.known("s", 0).extended(vec![row(1, &["a", "b"])]);
        cache.keep("s", 0, &first);
        let known = cache.known("s", 0);
        assert_eq!(known.last_row(), 1);
        let second = known.extended(vec![row(2, &["c"])]);
        assert_eq!(texts(&second), ["a", "b", "c"]);
        assert_eq!(texts(&first), ["a", "b"], "a run's history does not change under it");
        assert!(Arc::ptr_eq(&first.messages[0], &second.messages[0]), "messages are shared, not copied");
        assert_eq!(cache.known("s", 0).last_row(), 0, "taken until it is kept again");
        cache.keep("s", 0, &second);
        let third = cache.known("s", 0);
        let before = Arc::as_ptr(&third.messages);
        drop((first, second));
        let third = third.extended(vec![row(3, &["d"])]);
        assert_eq!(Arc::as_ptr(&third.messages), before, "a history held by nothing else grows in place");
    }

    #[test]
    fn the_least_recently_used_session_goes_first() {
        let one = History::default().extended(vec![row(1, &["x"])]);
        let cost = one.bytes + entry_overhead("a");
        let cache = HistoryCache::new(cost * 2);
        cache.keep("a", 0, &one);
        cache.keep("b", 0, &one);
        let a = cache.known("a", 0);
        cache.keep("a", 0, &a);
        cache.keep("c", 0, &one);
        assert_eq!(cache.size(), (2, cost * 2));
        assert_eq!(cache.known("b", 0).last_row(), 0, "b was evicted");
        assert_eq!(cache.known("a", 0).last_row(), 1);
        assert_eq!(cache.size(), (1, cost), "a is out until it is kept again");
    }

    #[test]
    fn a_history_of_no_rows_is_not_kept() {
        let cache = HistoryCache::default();
        for task in 0..1000 {
            cache.keep(&format!("fleet-task-{task}"), 0, &History::default().extended(Vec::new()));
        }
        assert_eq!(cache.size(), (0, 0), "a fleet's fresh sessions take no room");
        let one = History::default().extended(vec![row(1, &["x"])]);
        cache.keep("s", 0, &one);
        cache.keep("s", 0, &History::default());
        assert_eq!(cache.size(), (0, 0), "keeping an empty history forgets the one before");
    }

    #[test]
    fn a_history_larger_than_the_bound_is_not_kept() {
        let cache = HistoryCache::new(10);
        cache.keep("s", 0, &History::default().extended(vec![row(1, &["far more than ten bytes"])]));
        assert_eq!(cache.size(), (0, 0));
    }

    fn ask(id: &str) -> Message {
        let input = serde_json::json!({});
        Message { role: Role::Assistant, content: vec![Content::ToolUse { id: id.into(), name: "read".into(), input }] }
    }

    fn answer(id: &str, chars: usize) -> Message {
        let content = "x".repeat(chars);
        Message {
            role: Role::Tool,
            content: vec![Content::ToolResult { tool_use_id: id.into(), content, is_error: false }],
        }
    }

    fn words(n: usize, tag: &str) -> Message {
        Message::user_text(vec![tag; n].join(" "))
    }

    /// A compaction that summarized the first message and pruned the results before the third.
    fn summarized(summary: &str) -> Marker {
        Marker {
            summary: Some(summary.into()),
            first_kept: 1,
            pruned_before: 3,
            tokens_before: 0,
            tokens_after: 0,
            pruned_results: 1,
            summarized_messages: 1,
        }
    }

    #[test]
    fn a_history_sends_from_its_newest_marker_on() {
        let rows = vec![
            HistoryRow { idx: 1, messages: vec![words(3, "a"), ask("1"), answer("1", 50)] },
            HistoryRow { idx: 2, messages: vec![words(3, "b")] },
        ];
        let history = History::default().extended(rows);
        assert_eq!(history.len(), 4);
        let marker = summarized("they talked");
        let history =
            history.extended(vec![HistoryRow { idx: 3, messages: vec![marker.clone().message(), words(2, "c")] }]);
        let sent: Vec<&Message> = history.iter().collect();
        assert_eq!(sent.len(), 5, "the summary, three kept messages, and the one after the marker");
        assert!(sent[0].text().contains("they talked"));
        assert_eq!(*sent[1], ask("1"));
        assert!(
            matches!(&sent[2].content[0], Content::ToolResult { content, .. } if content.starts_with("[tool output pruned"))
        );
        assert_eq!(history.first(), 1);
        assert_eq!(history.last_row(), 3);
        // A compaction that only prunes keeps the summary before it.
        let prune_only = Marker { summary: None, first_kept: 1, pruned_before: 5, ..marker };
        let history = history.followed_by([prune_only.message()]);
        assert!(history.iter().next().unwrap().text().contains("they talked"));
        assert_eq!(history.len(), 5);
        assert!(history.tokens() > 0);
    }

    #[test]
    fn the_words_and_characters_kept_are_those_of_the_messages_sent() {
        let counted = |h: &History| h.iter().map(compaction::words_of).sum::<u64>();
        let chars = |h: &History| h.iter().map(compaction::chars_of).sum::<usize>();
        let history = History::default().extended(vec![HistoryRow {
            idx: 1,
            messages: vec![words(3, "a"), ask("1"), answer("1", 50), words(4, "b")],
        }]);
        assert_eq!((history.words(), counted(&history)), (3 + 1 + 1 + 4, 9));
        assert_eq!(history.chars(), chars(&history));
        let marker = summarized("they talked a while");
        let history = history.followed_by([marker.message(), words(2, "c")]);
        assert_eq!(history.words(), counted(&history), "after a compaction, as before");
        assert_eq!(history.chars(), chars(&history), "after a compaction, as before");
        assert!(history.words() > 0 && history.chars() > 0);
    }
}
