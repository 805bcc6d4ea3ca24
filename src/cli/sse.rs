//! A small Server-Sent Events reader for the client commands.

/// One parsed SSE frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frame {
    pub id: Option<String>,
    pub event: Option<String>,
    pub data: String,
}

/// Accumulates bytes and yields complete frames; a half-written frame at a
/// disconnect is discarded, as the SSE rules require.
#[derive(Debug, Default)]
pub struct Parser {
    buffer: String,
}

impl Parser {
    /// Adds received bytes and returns the frames they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Frame> {
        self.buffer.push_str(&String::from_utf8_lossy(bytes));
        let mut frames = Vec::new();
        while let Some(end) = self.buffer.find("\n\n") {
            let block: String = self.buffer.drain(..end + 2).collect();
            if let Some(frame) = parse_block(&block) {
                frames.push(frame);
            }
        }
        frames
    }
}

fn parse_block(block: &str) -> Option<Frame> {
    let mut frame = Frame::default();
    let mut data = Vec::new();
    for line in block.lines() {
        if line.starts_with(':') || line.is_empty() {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => frame.id = Some(value.to_string()),
            "event" => frame.event = Some(value.to_string()),
            "data" => data.push(value),
            _ => {}
        }
    }
    if data.is_empty() && frame.event.is_none() {
        return None;
    }
    frame.data = data.join("\n");
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_across_chunks_are_joined() {
        let mut parser = Parser::default();
        assert!(parser.push(b"id: 1\nevent: run_queued\nda").is_empty());
        let frames = parser.push(b"ta: {\"a\":1}\n\n: keep-alive\n\nid: 2\ndata: x\ndata: y\n\n");
        assert_eq!(frames.len(), 2, "the comment is not a frame");
        assert_eq!(
            frames[0],
            Frame { id: Some("1".into()), event: Some("run_queued".into()), data: "{\"a\":1}".into() }
        );
        assert_eq!(frames[1].data, "x\ny");
    }

    #[test]
    fn a_reconnection_hint_alone_is_not_a_frame() {
        let mut parser = Parser::default();
        assert!(parser.push(b"retry: 1000\n\n").is_empty());
    }

    #[test]
    fn a_half_written_frame_is_not_yielded() {
        let mut parser = Parser::default();
        assert!(parser.push(b"id: 9\ndata: partial").is_empty());
    }
}
