//! The JSON log format: one object a line, flat, so that a log pipeline finds
//! `run_id` in the same place whether the line set it or the span it was
//! logged in did.
//!
//! A line holds `timestamp` (RFC 3339, UTC), `level`, `target`, `message`,
//! the fields of every span it was logged in (outermost first) and its own
//! fields, a field of the line winning over a span's of the same name. The
//! line's own keys always say what they say: a field that bears one of their
//! names (a span's `message` too, since the message is the line's) is kept
//! as `fields.<name>` instead.

use std::fmt;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::Record;
use tracing::{Event, Subscriber};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

/// Keeps each span's fields as the text of a JSON object, for [`JsonLines`]
/// to merge into the lines logged inside it.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonFields;

impl<'writer> FormatFields<'writer> for JsonFields {
    fn format_fields<R: RecordFields>(&self, mut writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut object = Map::new();
        fields.record(&mut Collect(&mut object));
        write!(writer, "{}", Value::Object(object))
    }

    /// Fields recorded on a span later join its object (the default would
    /// append a second object to the text).
    fn add_fields(&self, current: &'writer mut FormattedFields<Self>, fields: &Record<'_>) -> fmt::Result {
        let mut object = parse_object(&current.fields);
        fields.record(&mut Collect(&mut object));
        current.fields = Value::Object(object).to_string();
        Ok(())
    }
}

/// Writes each event as one flat JSON object on a line of its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonLines;

impl<S> FormatEvent<S, JsonFields> for JsonLines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, JsonFields>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let mut fields = Map::new();
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                if let Some(stored) = span.extensions().get::<FormattedFields<JsonFields>>() {
                    fields.extend(parse_object(&stored.fields).into_iter().map(|(k, v)| (aside(k, true), v)));
                }
            }
        }
        let mut own = Map::new();
        event.record(&mut Collect(&mut own));
        fields.extend(own.into_iter().map(|(k, v)| (aside(k, false), v)));
        let meta = event.metadata();
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        fields.insert("timestamp".into(), Value::String(now));
        fields.insert("level".into(), Value::String(meta.level().to_string()));
        fields.insert("target".into(), Value::String(meta.target().to_string()));
        writeln!(writer, "{}", Value::Object(fields))
    }
}

/// The keys a line writes itself, which no field may take.
const OWN_KEYS: &[&str] = &["timestamp", "level", "target"];

/// The key a field is written under: its name, or `fields.<name>` when the
/// name is one of the line's own keys. The line's `message` is the event's:
/// a span's field of that name is set aside too.
fn aside(name: String, of_span: bool) -> String {
    if OWN_KEYS.contains(&name.as_str()) || (of_span && name == "message") {
        format!("fields.{name}")
    } else {
        name
    }
}

/// A span's stored fields, as an object (empty when it has none).
fn parse_object(text: &str) -> Map<String, Value> {
    match serde_json::from_str(text) {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    }
}

/// Records fields into a JSON object: numbers and booleans as themselves,
/// everything else as the text it displays as.
struct Collect<'a>(&'a mut Map<String, Value>);

impl Collect<'_> {
    fn put(&mut self, field: &Field, value: Value) {
        self.0.insert(field.name().to_string(), value);
    }
}

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.put(field, Value::String(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.put(field, Value::String(value.to_string()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.put(field, Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.put(field, Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.put(
            field,
            serde_json::Number::from_f64(value).map_or_else(|| Value::String(value.to_string()), Value::Number),
        );
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.put(field, Value::Bool(value));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.put(field, Value::String(value.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Everything the subscriber wrote, shared with the test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn lines_of(log: impl FnOnce()) -> Vec<Value> {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .fmt_fields(JsonFields)
            .event_format(JsonLines)
            .finish();
        tracing::subscriber::with_default(subscriber, log);
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
    }

    #[test]
    fn a_line_carries_the_fields_of_its_spans_and_its_own() {
        let lines = lines_of(|| {
            tracing::info!(workers = 2, "outside");
            let run = tracing::info_span!("run", run_id = "r1", attempt = 1u32, step = tracing::field::Empty);
            let _entered = run.enter();
            run.record("step", 3);
            let tool = tracing::info_span!("tool", name = "bash");
            let _in_tool = tool.enter();
            tracing::warn!(error = %"boom", ok = false, "inside");
        });
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!((&lines[0]["message"], &lines[0]["workers"]), (&json("outside"), &Value::from(2)));
        assert!(lines[0].get("run_id").is_none());
        let inside = &lines[1];
        assert_eq!(inside["level"], "WARN");
        assert_eq!(
            (&inside["run_id"], &inside["attempt"], &inside["step"]),
            (&json("r1"), &Value::from(1), &Value::from(3))
        );
        assert_eq!(
            (&inside["name"], &inside["error"], &inside["ok"]),
            (&json("bash"), &json("boom"), &Value::Bool(false))
        );
        assert!(inside["timestamp"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn fields_named_like_the_lines_own_keys_do_not_replace_them() {
        let lines = lines_of(|| {
            let span = tracing::info_span!("run", level = "from the span", message = "the span's", run_id = "r1");
            let _entered = span.enter();
            tracing::warn!(level = "from the line", target = 5, timestamp = "yesterday", "the line's");
        });
        let line = &lines[0];
        assert_eq!((&line["level"], &line["message"]), (&json("WARN"), &json("the line's")), "{line}");
        assert_eq!(line["target"], json(module_path!()), "{line}");
        assert!(line["timestamp"].as_str().unwrap().ends_with('Z'), "{line}");
        assert_eq!(
            (&line["fields.level"], &line["fields.target"], &line["fields.timestamp"]),
            (&json("from the line"), &Value::from(5), &json("yesterday")),
            "the line's field wins over the span's, under the other key: {line}"
        );
        assert_eq!((&line["fields.message"], &line["run_id"]), (&json("the span's"), &json("r1")), "{line}");
    }

    fn json(text: &str) -> Value {
        Value::String(text.to_string())
    }
}
