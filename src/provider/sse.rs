//! Reading a streamed answer of Server-Sent Events (Anthropic, OpenAI) with
//! the crate's one decoder ([`crate::sse`], which also splits Ollama's NDJSON
//! into lines).

use super::{Deltas, ProviderError};
use crate::sse::Decoder;

/// A provider's reading of an event stream, one `data:` payload at a time.
pub trait StreamReader {
    /// Takes one event's data; text goes to `deltas` as it arrives.
    fn on_data(&mut self, data: &str, deltas: &Deltas) -> Result<(), ProviderError>;
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
    deltas: &Deltas,
) -> Result<(), ProviderError> {
    let mut decoder = Decoder::default();
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
