//! Decoding streamed bodies: lines (Ollama's NDJSON) and Server-Sent Events
//! (Anthropic, OpenAI).
//!
//! Network chunks split lines anywhere, even inside a UTF-8 character, so
//! bytes are buffered until a line is complete and only then decoded.

use tokio::sync::mpsc;

use super::ProviderError;

/// Splits a byte stream into lines ending in `\n`, `\r\n` or `\r`.
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

/// One Server-Sent Event: its `event:` name (empty when absent) and its data
/// lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Assembles Server-Sent Events from a byte stream.
#[derive(Debug, Default)]
pub struct SseDecoder {
    lines: LineBuffer,
    event: String,
    data: Vec<String>,
}

impl SseDecoder {
    /// Adds a chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let lines = self.lines.push(chunk);
        lines.into_iter().filter_map(|line| self.line(&line)).collect()
    }

    /// Ends the stream. An event whose blank line never came is still
    /// returned: a server that closes right after its last `data:` line
    /// (some OpenAI-compatible ones do) meant it.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if let Some(line) = self.lines.finish() {
            if let Some(event) = self.line(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        if self.data.is_empty() {
            return None;
        }
        Some(SseEvent { event, data: std::mem::take(&mut self.data).join("\n") })
    }
}

/// A provider's reading of an event stream, one `data:` payload at a time.
pub trait StreamReader {
    /// Takes one event's data; text goes to `deltas` as it arrives.
    fn on_data(&mut self, data: &str, deltas: &mpsc::UnboundedSender<String>) -> Result<(), ProviderError>;
    /// True once the stream said it is complete (nothing more is read).
    fn is_done(&self) -> bool;
}

/// Reads a streamed response to its end (or until `reader` is done),
/// feeding each event's data to `reader`. A chunk that does not arrive
/// within `idle` fails the read.
pub async fn read_stream(
    response: &mut reqwest::Response,
    idle: std::time::Duration,
    reader: &mut impl StreamReader,
    deltas: &mpsc::UnboundedSender<String>,
) -> Result<(), ProviderError> {
    let mut decoder = SseDecoder::default();
    while let Some(chunk) = super::http::next_chunk(response, idle).await? {
        for event in decoder.push(&chunk) {
            reader.on_data(&event.data, deltas)?;
        }
        if reader.is_done() {
            return Ok(());
        }
    }
    if let Some(event) = decoder.finish() {
        reader.on_data(&event.data, deltas)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_survive_any_split_including_inside_a_character() {
        let text = "one\r\ntwo\rthree\n68°F\n";
        let bytes = text.as_bytes();
        for size in 1..bytes.len() {
            let mut buffer = LineBuffer::default();
            let mut lines = Vec::new();
            for chunk in bytes.chunks(size) {
                lines.extend(buffer.push(chunk));
            }
            assert_eq!(lines, ["one", "two", "three", "68°F"], "chunk size {size}");
            assert_eq!(buffer.finish(), None);
        }
    }

    #[test]
    fn events_are_assembled_and_comments_ignored() {
        let mut decoder = SseDecoder::default();
        let events = decoder.push(b": keep-alive\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\ndata: a\ndata:b\n\n");
        assert_eq!(
            events,
            [
                SseEvent { event: "ping".into(), data: "{\"type\": \"ping\"}".into() },
                SseEvent { event: String::new(), data: "a\nb".into() },
            ]
        );
        assert_eq!(decoder.finish(), None);
    }

    #[test]
    fn an_unterminated_last_event_is_kept() {
        let mut decoder = SseDecoder::default();
        assert!(decoder.push(b"data: [DONE]").is_empty());
        assert_eq!(decoder.finish(), Some(SseEvent { event: String::new(), data: "[DONE]".into() }));
    }
}
