//! Server-Sent Events, read: the one decoder for every event stream Wingman
//! reads, the providers' answers (Anthropic, OpenAI) as well as its own API's
//! logs (`wingman tail`, the benchmarks, the tests).
//!
//! It follows the "event stream interpretation" of the HTML standard: lines
//! end with LF, CRLF or CR; a blank line ends an event; a line starting with
//! `:` is a comment; a field's value loses one leading space; `data` lines
//! are joined with `\n`; `id` sets the last event ID, which is kept until
//! another `id` changes it; `retry` sets the reconnection time; other fields
//! are ignored. Network chunks split lines anywhere, even inside a
//! UTF-8 character, so bytes are buffered until a line is complete and only
//! whole lines are decoded. The module uses nothing of the crate, so that
//! every layer may read a stream with it.

use std::time::Duration;

/// Splits a byte stream into lines ending in `\n`, `\r\n` or `\r`, decoded
/// as UTF-8 once whole (Ollama's NDJSON is read with it too).
#[derive(Debug, Default)]
pub struct LineBuffer {
    pending: Vec<u8>,
    /// The last byte seen was a `\r`: a `\n` right after it ends nothing new.
    after_cr: bool,
}

impl LineBuffer {
    /// Adds a chunk and returns the lines it completed, without their ending.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        for &byte in chunk {
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => lines.push(self.take()),
                _ => self.pending.push(byte),
            }
        }
        lines
    }

    /// The unterminated last line, if the stream ended inside one.
    pub fn finish(&mut self) -> Option<String> {
        (!self.pending.is_empty()).then(|| self.take())
    }

    fn take(&mut self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned()
    }
}

/// One event of a stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame {
    /// The event's own `id` field, `None` when it had none. (The last event
    /// ID, which an event without one keeps from an earlier event, is
    /// [`Decoder::last_event_id`]: a reader that checks what each frame
    /// carries needs the frame's own.)
    pub id: Option<String>,
    /// The `event` field; `None` when absent (a plain `message`).
    pub event: Option<String>,
    /// The `data` lines, joined with `\n`.
    pub data: String,
}

/// Assembles the events of a byte stream.
#[derive(Debug, Default)]
pub struct Decoder {
    lines: LineBuffer,
    /// The stream's first line has been read (a byte order mark may start it).
    started: bool,
    last_id: String,
    /// The `id` of the event being read, if it has one.
    id: Option<String>,
    event: Option<String>,
    /// The data lines of the event being read; `None` before the first.
    data: Option<String>,
    retry: Option<Duration>,
}

impl Decoder {
    /// Adds a chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Frame> {
        let lines = self.lines.push(chunk);
        lines.into_iter().filter_map(|line| self.line(line)).collect()
    }

    /// Ends the stream, returning the last event if its blank line never
    /// came. The standard discards such an event, and a client that
    /// reconnects must (it reads the event again); a provider's answer is
    /// never read again, and a server that closes right after its last
    /// `data` line (some OpenAI-compatible ones do) meant it.
    pub fn finish(&mut self) -> Option<Frame> {
        if let Some(line) = self.lines.finish() {
            if let Some(frame) = self.line(line) {
                return Some(frame);
            }
        }
        self.dispatch()
    }

    /// The reconnection time the stream asked for with `retry`, if it did.
    pub fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// The last event ID, to send as `Last-Event-ID` on reconnecting;
    /// `None` while it is empty.
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_id.as_str()).filter(|id| !id.is_empty())
    }

    fn line(&mut self, mut line: String) -> Option<Frame> {
        if !std::mem::replace(&mut self.started, true) && line.starts_with('\u{feff}') {
            line.drain(..'\u{feff}'.len_utf8());
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        self.field(field, value);
        None
    }

    fn field(&mut self, field: &str, value: &str) {
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            // An ID with a NUL in it is ignored, as the standard says: it
            // could not be sent back in a header.
            "id" if !value.contains('\0') => {
                self.last_id = value.to_string();
                self.id = Some(value.to_string());
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Digits too many for a u64 are a time longer than any wait.
                self.retry = Some(Duration::from_millis(value.parse().unwrap_or(u64::MAX)));
            }
            _ => {}
        }
    }

    /// Ends the event being read: one with no data is no event.
    fn dispatch(&mut self) -> Option<Frame> {
        let (id, event) = (self.id.take(), self.event.take());
        let data = self.data.take()?;
        Some(Frame { id, event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every frame of `bytes`, fed to one decoder in pieces of `size` bytes.
    fn frames(bytes: &[u8], size: usize) -> Vec<Frame> {
        let mut decoder = Decoder::default();
        bytes.chunks(size).flat_map(|chunk| decoder.push(chunk)).collect()
    }

    fn frame(id: Option<&str>, event: Option<&str>, data: &str) -> Frame {
        Frame { id: id.map(str::to_string), event: event.map(str::to_string), data: data.to_string() }
    }

    #[test]
    fn lines_survive_any_split_including_inside_a_character() {
        let text = "one\r\ntwo\rthree\n68°F\n";
        let bytes = text.as_bytes();
        for size in 1..bytes.len() {
            let mut buffer = LineBuffer::default();
            let lines: Vec<String> = bytes.chunks(size).flat_map(|chunk| buffer.push(chunk)).collect();
            assert_eq!(lines, ["one", "two", "three", "68°F"], "chunk size {size}");
            assert_eq!(buffer.finish(), None);
        }
    }

    #[test]
    fn a_character_split_across_chunks_is_kept() {
        let bytes = "id: 1\ndata: 68°F ✓ 漢字 🦀\n\n".as_bytes();
        for size in 1..bytes.len() {
            assert_eq!(frames(bytes, size), [frame(Some("1"), None, "68°F ✓ 漢字 🦀")], "chunk size {size}");
        }
    }

    #[test]
    fn lf_crlf_and_cr_all_end_lines_and_frames() {
        let bytes = b"id: 1\r\nevent: a\r\ndata: x\r\n\r\nid: 2\rdata: y\r\rdata: z\n\n";
        for size in 1..bytes.len() {
            let expected = [frame(Some("1"), Some("a"), "x"), frame(Some("2"), None, "y"), frame(None, None, "z")];
            assert_eq!(frames(bytes, size), expected, "chunk size {size}");
        }
    }

    #[test]
    fn fields_follow_the_standard() {
        let text = "\u{feff}data:  two spaces\n: a comment\ndata\ndata:tight\nunknown: x\nevent\n\n";
        let expected = frame(None, Some(""), " two spaces\n\ntight");
        assert_eq!(frames(text.as_bytes(), usize::MAX), [expected], "one space is stripped, no more");
        assert_eq!(frames(b"event: lonely\n\nid: 3\n\n", 1), [], "an event without data is none");
        assert_eq!(frames(b"data:\n\n", 1), [frame(None, None, "")], "empty data is data");
    }

    #[test]
    fn the_last_event_id_is_kept_until_changed() {
        let mut decoder = Decoder::default();
        let mut next = |text: &str| {
            let frames = decoder.push(text.as_bytes());
            assert_eq!(frames.len(), 1, "{text:?}");
            (frames[0].id.clone(), decoder.last_event_id().map(str::to_string))
        };
        assert_eq!(next("id: 7\ndata: a\n\n"), (Some("7".into()), Some("7".into())));
        assert_eq!(next("data: b\n\n"), (None, Some("7".into())), "a frame without one keeps it");
        assert_eq!(next("id: 8\0\ndata: c\n\n"), (None, Some("7".into())), "an ID with a NUL is ignored");
        assert_eq!(next("id\ndata: d\n\n"), (Some("".into()), None), "an empty one resets it");
    }

    #[test]
    fn retry_sets_the_reconnection_time_and_is_no_event() {
        let mut decoder = Decoder::default();
        assert!(decoder.push(b"retry: 1000\n\n").is_empty());
        assert_eq!(decoder.retry(), Some(Duration::from_millis(1000)));
        assert!(decoder.push(b"retry: 5s\n\nretry:\n\n").is_empty());
        assert_eq!(decoder.retry(), Some(Duration::from_millis(1000)), "only digits count");
    }

    #[test]
    fn a_half_written_event_waits_for_its_blank_line_or_the_end() {
        let mut decoder = Decoder::default();
        assert!(decoder.push(b"id: 9\ndata: partial").is_empty());
        assert_eq!(decoder.finish(), Some(frame(Some("9"), None, "partial")));
        assert_eq!(decoder.finish(), None);
        let mut decoder = Decoder::default();
        assert!(decoder.push(b"data: [DONE]\n").is_empty());
        assert_eq!(decoder.finish(), Some(frame(None, None, "[DONE]")));
    }
}
