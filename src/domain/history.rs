//! A session's history as a run is sent it, and what a worker keeps of it
//! between runs.
//!
//! A session's stored history only grows: each run that ends appends its
//! messages as rows numbered after the last (a row is one message on SQLite
//! and one run's messages on PostgreSQL). So a worker that loaded a
//! session's history up to row `n` for one run need only read the rows
//! after `n` for the next, and decode nothing twice. [`HistoryCache`] keeps
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

    /// The prompt's size estimated from its characters, in tokens.
    pub fn tokens(&self) -> u64 {
        compaction::tokens_of(self.chars)
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
        for message in messages {
            match compaction::marker_of(&message) {
                Some(marker) => self.apply(marker),
                None => {
                    self.bytes += size_of(&message);
                    self.chars += compaction::chars_of(&message);
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
    }
}

/// An estimate of the memory a decoded message occupies: its strings and
/// a fixed cost per block.
fn size_of(message: &Message) -> usize {
    let block = |c: &Content| match c {
        Content::Text { text } => text.len(),
        Content::ToolUse { id, name, input } => id.len() + name.len() + input.to_string().len(),
        Content::ToolResult { tool_use_id, content, .. } => tool_use_id.len() + content.len(),
        Content::Thinking { thinking, signature } => thinking.len() + signature.as_ref().map_or(0, String::len),
        Content::RedactedThinking { data } => data.len(),
        Content::Compaction(marker) => marker.summary.as_ref().map_or(0, String::len),
    };
    64 + message.content.iter().map(|c| 48 + block(c)).sum::<usize>()
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
    by_session: HashMap<String, (History, u64)>,
    bytes: usize,
    clock: u64,
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
    pub fn known(&self, session_id: &str) -> History {
        let mut entries = self.lock();
        match entries.by_session.remove(session_id) {
            Some((history, _)) => {
                entries.bytes -= history.bytes;
                history
            }
            None => History::default(),
        }
    }

    /// Keeps a session's history as loaded, for its next run.
    pub fn keep(&self, session_id: &str, history: &History) {
        let mut entries = self.lock();
        if let Some((old, _)) = entries.by_session.remove(session_id) {
            entries.bytes -= old.bytes;
        }
        if history.bytes > self.limit_bytes {
            return;
        }
        entries.clock += 1;
        let now = entries.clock;
        entries.bytes += history.bytes;
        entries.by_session.insert(session_id.to_string(), (history.clone(), now));
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
        let oldest = self.by_session.iter().min_by_key(|(_, (_, used))| *used).map(|(id, _)| id.clone());
        if let Some((old, _)) = oldest.and_then(|id| self.by_session.remove(&id)) {
            self.bytes -= old.bytes;
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
    fn a_known_history_is_extended_by_the_rows_after_it() {
        let cache = HistoryCache::default();
        let first = cache.known("s").extended(vec![row(1, &["a", "b"])]);
        cache.keep("s", &first);
        let known = cache.known("s");
        assert_eq!(known.last_row(), 1);
        let second = known.extended(vec![row(2, &["c"])]);
        assert_eq!(texts(&second), ["a", "b", "c"]);
        assert_eq!(texts(&first), ["a", "b"], "a run's history does not change under it");
        assert!(Arc::ptr_eq(&first.messages[0], &second.messages[0]), "messages are shared, not copied");
        assert_eq!(cache.known("s").last_row(), 0, "taken until it is kept again");
        cache.keep("s", &second);
        let third = cache.known("s");
        let before = Arc::as_ptr(&third.messages);
        drop((first, second));
        let third = third.extended(vec![row(3, &["d"])]);
        assert_eq!(Arc::as_ptr(&third.messages), before, "a history held by nothing else grows in place");
    }

    #[test]
    fn the_least_recently_used_session_goes_first() {
        let one = History::default().extended(vec![row(1, &["x"])]);
        let cache = HistoryCache::new(one.bytes * 2);
        cache.keep("a", &one);
        cache.keep("b", &one);
        let a = cache.known("a");
        cache.keep("a", &a);
        cache.keep("c", &one);
        assert_eq!(cache.size(), (2, one.bytes * 2));
        assert_eq!(cache.known("b").last_row(), 0, "b was evicted");
        assert_eq!(cache.known("a").last_row(), 1);
        assert_eq!(cache.size(), (1, one.bytes), "a is out until it is kept again");
    }

    #[test]
    fn a_history_larger_than_the_bound_is_not_kept() {
        let cache = HistoryCache::new(10);
        cache.keep("s", &History::default().extended(vec![row(1, &["far more than ten bytes"])]));
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

    #[test]
    fn a_history_sends_from_its_newest_marker_on() {
        let rows = vec![
            HistoryRow { idx: 1, messages: vec![words(3, "a"), ask("1"), answer("1", 50)] },
            HistoryRow { idx: 2, messages: vec![words(3, "b")] },
        ];
        let history = History::default().extended(rows);
        assert_eq!(history.len(), 4);
        let marker = Marker {
            summary: Some("they talked".into()),
            first_kept: 1,
            pruned_before: 3,
            tokens_before: 0,
            tokens_after: 0,
            pruned_results: 1,
            summarized_messages: 1,
        };
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
}
