//! Reading tool inputs and shaping outputs.
//!
//! Every bad input becomes an `is_error` result with a message naming the
//! field, never a panic: the model reads the message and tries again.

use serde_json::Value;

use super::ToolOutput;

/// A required string field.
pub fn string<'a>(input: &'a Value, field: &str) -> Result<&'a str, ToolOutput> {
    match input.get(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ToolOutput::error(format!("\"{field}\" must be a string"))),
        None => Err(ToolOutput::error(format!("missing the required \"{field}\" string"))),
    }
}

/// An optional string field.
pub fn opt_string<'a>(input: &'a Value, field: &str) -> Result<Option<&'a str>, ToolOutput> {
    match input.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ToolOutput::error(format!("\"{field}\" must be a string"))),
    }
}

/// An optional positive integer field.
pub fn opt_positive(input: &Value, field: &str) -> Result<Option<u64>, ToolOutput> {
    match input.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n > 0 => Ok(Some(n)),
            _ => Err(ToolOutput::error(format!("\"{field}\" must be a positive integer"))),
        },
    }
}

/// An optional boolean field.
pub fn opt_bool(input: &Value, field: &str) -> Result<Option<bool>, ToolOutput> {
    match input.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ToolOutput::error(format!("\"{field}\" must be true or false"))),
    }
}

/// Runs blocking filesystem work off the async threads. `Ok` is a success
/// result, `Err` an error result; a panic inside becomes an error result too.
pub async fn blocking<F>(work: F) -> ToolOutput
where
    F: FnOnce() -> Result<String, String> + Send + 'static,
{
    // The blocking thread logs inside the caller's span (the run's).
    let span = tracing::Span::current();
    match tokio::task::spawn_blocking(move || span.in_scope(work)).await {
        Ok(Ok(text)) => ToolOutput::ok(text),
        Ok(Err(text)) => ToolOutput::error(text),
        Err(e) => ToolOutput::error(format!("the tool failed unexpectedly: {e}")),
    }
}
