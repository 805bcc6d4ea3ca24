//! Traces: OpenTelemetry spans exported over OTLP/HTTP, named and
//! attributed by the GenAI semantic conventions: `invoke_agent` per run
//! attempt, `chat` per inference, `execute_tool` per tool call.
//!
//! A run carries a W3C `traceparent` from its submission (the client's, or
//! one made up for it), stored in its input, so every attempt of the run,
//! on whichever worker after whatever crash, starts its `invoke_agent` span
//! under the same parent in the same trace. Without an endpoint nothing is
//! set up: the spans are the OpenTelemetry API's no-op ones and cost next to
//! nothing.

use std::time::Duration;

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState, Tracer,
};
use opentelemetry::{global, Context, KeyValue};
use opentelemetry_sdk::trace::SdkTracerProvider;

use crate::domain::model::{Agent, ToolCall, Usage};

/// The tracer's name in every span's scope.
const TRACER: &str = "wingman";

/// What exports spans in this process; flushes them on [`Exporter::shutdown`].
pub struct Exporter {
    provider: SdkTracerProvider,
}

impl Exporter {
    /// Exports what is still buffered, waiting at most a few seconds.
    pub fn shutdown(self) {
        if let Err(e) = self.provider.shutdown_with_timeout(Duration::from_secs(5)) {
            tracing::warn!(error = %e, "could not export the last spans");
        }
    }
}

/// Sets up the export of spans to `endpoint` (an OTLP/HTTP base URL, as
/// `OTEL_EXPORTER_OTLP_ENDPOINT` gives it; `/v1/traces` is added), naming
/// the process `service`. Without an endpoint, nothing is set up: `None`.
pub fn init(endpoint: Option<&str>, service: &str) -> anyhow::Result<Option<Exporter>> {
    let Some(endpoint) = endpoint.map(str::trim).filter(|e| !e.is_empty()) else { return Ok(None) };
    use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
    let url = traces_url(endpoint);
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .with_endpoint(url.clone())
        .with_timeout(Duration::from_secs(10))
        .with_headers(Default::default())
        .build()?;
    let resource = opentelemetry_sdk::Resource::builder().with_service_name(service.to_string()).build();
    let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    global::set_tracer_provider(provider.clone());
    let shown = crate::domain::secret::url_for_logs(&url);
    tracing::info!(url = %shown, "exporting traces over OTLP/HTTP");
    Ok(Some(Exporter { provider }))
}

/// The traces URL of an OTLP/HTTP base URL.
fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_string()
    } else {
        format!("{base}/v1/traces")
    }
}

/// The `traceparent` a submission's runs carry: the client's, if it is a
/// valid one (W3C Trace Context, version 00), else a new trace's.
pub fn traceparent_or_new(given: Option<&str>) -> String {
    match given.and_then(parse_traceparent) {
        Some(context) => format_traceparent(&context),
        None => {
            let trace = TraceId::from_bytes(rand_bytes());
            let span = SpanId::from_bytes(rand_bytes());
            format_traceparent(&SpanContext::new(trace, span, TraceFlags::SAMPLED, true, TraceState::default()))
        }
    }
}

fn rand_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // An all-zero ID is invalid; a random one is zero with negligible odds, and then made one.
    bytes.iter_mut().for_each(|b| *b = fastrand::u8(..));
    if bytes.iter().all(|b| *b == 0) {
        bytes[N - 1] = 1;
    }
    bytes
}

/// Reads a `traceparent`: `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`.
pub fn parse_traceparent(text: &str) -> Option<SpanContext> {
    let parts: Vec<&str> = text.trim().split('-').collect();
    let [version, trace, span, flags] = parts.as_slice() else { return None };
    let hex =
        |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if *version != "00" || !hex(trace, 32) || !hex(span, 16) || !hex(flags, 2) {
        return None;
    }
    let (trace, span) = (TraceId::from_hex(trace).ok()?, SpanId::from_hex(span).ok()?);
    if trace == TraceId::INVALID || span == SpanId::INVALID {
        return None;
    }
    let flags = TraceFlags::new(u8::from_str_radix(flags, 16).ok()?);
    Some(SpanContext::new(trace, span, flags, true, TraceState::default()))
}

fn format_traceparent(context: &SpanContext) -> String {
    format!("00-{}-{}-{:02x}", context.trace_id(), context.span_id(), context.trace_flags().to_u8())
}

/// The trace ID of a `traceparent`.
pub fn trace_id_of(traceparent: &str) -> Option<String> {
    parse_traceparent(traceparent).map(|c| c.trace_id().to_string())
}

/// Starts the `invoke_agent` span of a run's attempt, under the run's
/// `traceparent`; the context it answers parents the attempt's other spans.
pub fn invoke_agent(traceparent: Option<&str>, agent: &Agent, run_id: &str, attempt: u32) -> Context {
    let parent = match traceparent.and_then(parse_traceparent) {
        Some(remote) => Context::new().with_remote_span_context(remote),
        None => Context::new(),
    };
    let tracer = global::tracer(TRACER);
    let span = tracer
        .span_builder(format!("invoke_agent {}", agent.name))
        .with_kind(SpanKind::Internal)
        .with_attributes([
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.id", agent.id.clone()),
            KeyValue::new("gen_ai.agent.name", agent.name.clone()),
            KeyValue::new("gen_ai.provider.name", agent.provider.clone()),
            KeyValue::new("gen_ai.request.model", agent.model.clone()),
            KeyValue::new("wingman.run.id", run_id.to_string()),
            KeyValue::new("wingman.run.attempt", i64::from(attempt)),
        ])
        .start_with_context(&tracer, &parent);
    parent.with_span(span)
}

/// Ends an attempt's span, as an error when `error` says why it failed.
pub fn end(context: &Context, error: Option<&str>) {
    let span = context.span();
    if let Some(error) = error {
        span.set_status(Status::error(error.to_string()));
    }
    span.end();
}

/// Starts a `chat` span: one inference of `agent`'s model, under `parent`.
pub fn chat(parent: &Context, agent: &Agent, step: u32) -> Context {
    let tracer = global::tracer(TRACER);
    let span = tracer
        .span_builder(format!("chat {}", agent.model))
        .with_kind(SpanKind::Client)
        .with_attributes([
            KeyValue::new("gen_ai.operation.name", "chat"),
            KeyValue::new("gen_ai.provider.name", agent.provider.clone()),
            KeyValue::new("gen_ai.request.model", agent.model.clone()),
            KeyValue::new("wingman.step", i64::from(step)),
        ])
        .start_with_context(&tracer, parent);
    parent.with_span(span)
}

/// Ends a `chat` span with what the answer used, or the provider's error.
pub fn chat_ended(context: &Context, outcome: Result<(&Usage, &str), &str>) {
    let span = context.span();
    match outcome {
        Ok((usage, stop_reason)) => {
            span.set_attribute(KeyValue::new("gen_ai.usage.input_tokens", usage.input_tokens as i64));
            span.set_attribute(KeyValue::new("gen_ai.usage.output_tokens", usage.output_tokens as i64));
            span.set_attribute(KeyValue::new(
                "gen_ai.response.finish_reasons",
                opentelemetry::Value::Array(vec![opentelemetry::StringValue::from(stop_reason.to_string())].into()),
            ));
        }
        Err(error) => span.set_status(Status::error(error.to_string())),
    }
    span.end();
}

/// Starts an `execute_tool` span for a call, under `parent`.
pub fn execute_tool(parent: &Context, call: &ToolCall) -> Context {
    let tracer = global::tracer(TRACER);
    let span = tracer
        .span_builder(format!("execute_tool {}", call.name))
        .with_kind(SpanKind::Internal)
        .with_attributes([
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("gen_ai.tool.name", call.name.clone()),
            KeyValue::new("gen_ai.tool.call.id", call.id.clone()),
        ])
        .start_with_context(&tracer, parent);
    parent.with_span(span)
}

/// Ends an `execute_tool` span; a result that is an error marks it one.
pub fn tool_ended(context: &Context, is_error: bool) {
    let span = context.span();
    if is_error {
        span.set_status(Status::error("the tool's result is an error"));
    }
    span.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_is_kept_when_valid_and_made_up_otherwise() {
        let given = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert_eq!(traceparent_or_new(Some(given)), given);
        assert_eq!(trace_id_of(given).as_deref(), Some("0af7651916cd43dd8448eb211c80319c"));
        for bad in [
            "",
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
        ] {
            assert!(parse_traceparent(bad).is_none(), "{bad}");
            let made = traceparent_or_new(Some(bad));
            assert!(parse_traceparent(&made).is_some(), "{made}");
            assert_ne!(made, traceparent_or_new(Some(bad)), "a new trace each time");
        }
    }

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(traces_url("http://c:4318"), "http://c:4318/v1/traces");
        assert_eq!(traces_url("http://c:4318/"), "http://c:4318/v1/traces");
        assert_eq!(traces_url("http://c:4318/v1/traces"), "http://c:4318/v1/traces");
    }

    #[test]
    fn without_an_endpoint_nothing_is_set_up() {
        assert!(init(None, "test").unwrap().is_none());
        assert!(init(Some("  "), "test").unwrap().is_none());
    }
}
