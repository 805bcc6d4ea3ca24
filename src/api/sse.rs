//! Server-Sent Events (and JSON) for a log: a run's or a fleet run's.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream;
use serde::Deserialize;

use utoipa::openapi::schema::{
    AdditionalProperties, AnyOfBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{IntoParams, PartialSchema, ToSchema};

use super::error::{ApiError, ApiResult};
use super::schemas::Seq;
use super::AppState;
use crate::domain::model::{Event, Usage};

/// The schema of an event of a log as answers show it
/// ([`crate::domain::model::Event::to_json_as`]): `seq`, `type`, `at` and the log's ID (`run_id`,
/// or `fleet_run_id` for a fleet run's log) beside the fields of its type,
/// which docs/api.md lists.
pub struct LoggedEvent;

impl PartialSchema for LoggedEvent {
    fn schema() -> RefOr<Schema> {
        let string = || ObjectBuilder::new().schema_type(Type::String);
        let seq = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(1))
            .description(Some("1, 2, 3, … within the log"));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("An event of a log; besides these fields, those of its type (docs/api.md)"))
            .property("seq", seq)
            .property("type", string().description(Some("run_queued, text_delta, tool_call, done, result, …")))
            .property("at", string().format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))))
            .property(
                "run_id",
                string().description(Some("The run's ID (a fleet run's `result` names its task's run)")),
            )
            .property("fleet_run_id", string().description(Some("The fleet run's ID, in a fleet run's log")))
            .property(
                "formation_run_id",
                string().description(Some("The formation run's ID, in a formation run's log")),
            )
            .required("seq")
            .required("type")
            .required("at")
            .additional_properties(Some(AdditionalProperties::FreeForm(true)))
            .into()
    }
}

impl ToSchema for LoggedEvent {
    fn name() -> std::borrow::Cow<'static, str> {
        "Event".into()
    }
}

/// The schema of one frame of a log's SSE stream (`GET /runs/{id}/events`,
/// a fleet run's): OpenAPI 3.1 takes a `text/event-stream` schema as that of
/// each event, `{"event", "data", "id"?}`, whose `data` is an event's JSON.
pub struct EventFrame;

impl PartialSchema for EventFrame {
    fn schema() -> RefOr<Schema> {
        frame(Ref::from_schema_name(LoggedEvent::name()).into())
    }
}

impl ToSchema for EventFrame {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((LoggedEvent::name().into(), LoggedEvent::schema()));
    }
}

/// The schema of one frame of `POST /sessions/{id}/message/stream`: an
/// event's JSON, or the original API's `message_stop` after each
/// `step_completed`.
pub struct MessageStreamFrame;

impl PartialSchema for MessageStreamFrame {
    fn schema() -> RefOr<Schema> {
        let string = || ObjectBuilder::new().schema_type(Type::String);
        let message_stop = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("type", string().pattern(Some("^message_stop$")))
            .property("run_id", string())
            .property("step", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
            .property("stop_reason", string())
            .property("usage", Ref::from_schema_name(Usage::name()))
            .required("type")
            .required("run_id");
        let payload = AnyOfBuilder::new().item(Ref::from_schema_name(LoggedEvent::name())).item(message_stop);
        frame(Schema::AnyOf(payload.build()).into())
    }
}

impl ToSchema for MessageStreamFrame {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((LoggedEvent::name().into(), LoggedEvent::schema()));
        schemas.push((Usage::name().into(), Usage::schema()));
        Usage::schemas(schemas);
    }
}

/// An SSE frame whose `data` is JSON fitting `payload`.
fn frame(payload: RefOr<Schema>) -> RefOr<Schema> {
    let data = ObjectBuilder::new()
        .schema_type(Type::String)
        .content_media_type("application/json")
        .content_schema(Some(payload));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some("One SSE frame: `event: <type>`, `id: <seq>`, `data: <JSON>`"))
        .property("event", ObjectBuilder::new().schema_type(Type::String))
        .property("id", ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]+$")))
        .property("data", data)
        .required("event")
        .required("data")
        .into()
}

/// How long a browser waits before it reconnects a broken stream.
pub(super) const RECONNECT_AFTER: Duration = Duration::from_millis(1000);

/// Which log a stream reads, and which names its frames carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A run's events, one frame each (`GET /runs/{id}/events`).
    Wingman,
    /// A fleet run's events (`fleet_queued`, `result`, `done`): their JSON
    /// names the log `fleet_run_id`, since a `result` carries its task's `run_id`.
    Fleet,
    /// A formation run's events (`formation_queued`, `node_started`,
    /// `node_finished`, `done`): their JSON names the log
    /// `formation_run_id`, since a `node_started` carries its node's `run_id`.
    Formation,
    /// Wingman's events plus the frames the original API's stream routes
    /// sent that Wingman's log has no event for: a `message_stop` after each
    /// completed step (`POST /sessions/{id}/message/stream`). Those frames
    /// carry no `id:`, so a reconnecting client resumes by the events' seqs.
    Seed,
}

impl Dialect {
    /// The key that names the log in each event's JSON.
    pub fn id_key(self) -> &'static str {
        match self {
            Dialect::Fleet => "fleet_run_id",
            Dialect::Formation => "formation_run_id",
            _ => "run_id",
        }
    }
}

/// Where a log's events start, and how many a JSON read answers.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// The events after this `seq` (0, the default, is from the start);
    /// `Last-Event-ID` wins over it.
    #[param(value_type = Option<Seq>)]
    pub after: Option<u64>,
    /// How many events a JSON read answers, from 1 to 10,000 (default
    /// 1,000); an SSE stream ignores it.
    #[param(minimum = 1, maximum = 10000)]
    pub limit: Option<u32>,
}

/// The header that names where a JSON read's next page starts: present when
/// the page is full, absent at the log's end (as far as it goes now).
pub const NEXT_AFTER: &str = "wingman-next-after";

/// The answer of a log's events route: SSE when the client accepts it
/// (replay after `Last-Event-ID` or `?after=N`, then live, then closed after
/// `done`; `204` once a finished log has nothing more for the client), else a
/// JSON array of a page of the events after `?after=N`: no read holds more
/// than 10,000 events in memory, however long the log.
pub async fn events_answer(
    state: &AppState,
    log_id: &str,
    finished: bool,
    headers: &HeaderMap,
    query: &EventsQuery,
    dialect: Dialect,
) -> ApiResult<Response> {
    let after = place(headers, query)?;
    let read_to_the_end = finished && wants_sse(headers) && state.store.read_events(log_id, after, 1).await?.is_empty();
    events_after(state, log_id, After { place: after, read_to_the_end }, headers, query, dialect).await
}

/// Where a read of a log starts: after `Last-Event-ID`, else after
/// `?after=N`, else at the start.
pub fn place(headers: &HeaderMap, query: &EventsQuery) -> ApiResult<u64> {
    let last_event_id = match headers.get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| ApiError::BadRequest("Last-Event-ID must be an event seq number".into()))?,
        ),
    };
    Ok(last_event_id.or(query.after).unwrap_or(0))
}

/// A reader's place in a log ([`place`]), and whether the log is over
/// with nothing after it.
#[derive(Debug, Clone, Copy)]
pub struct After {
    pub place: u64,
    pub read_to_the_end: bool,
}

/// [`events_answer`] for a route that already knows where the reader
/// stands.
pub async fn events_after(
    state: &AppState,
    log_id: &str,
    after: After,
    headers: &HeaderMap,
    query: &EventsQuery,
    dialect: Dialect,
) -> ApiResult<Response> {
    if wants_sse(headers) {
        // A finished log the client has to the end: nothing will ever
        // follow, and 204 is what tells an EventSource to stop reconnecting.
        if after.read_to_the_end {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        return Ok(stream(state, log_id, after.place, dialect));
    }
    let limit = super::runs::check_limit(query.limit, 1000, 10_000)?;
    let page = state.store.read_events(log_id, after.place, limit).await?;
    let next_after = page.last().filter(|_| page.len() == limit as usize).map(|e| e.seq);
    let mut answer = json_array_in_pieces(page, dialect.id_key());
    if let Some(seq) = next_after {
        answer.headers_mut().insert(NEXT_AFTER, HeaderValue::from(seq));
    }
    Ok(answer)
}

/// How many events go into one piece of a JSON page's body.
const EVENTS_PER_PIECE: usize = 256;

/// A page of events as a JSON array, written a few hundred events at a time
/// as the client takes them: a page of 10,000 large events is held once, as
/// its rows, and never again whole as its text (a body built whole, and the
/// doubling of its buffer as it grows, held about twice the page again).
fn json_array_in_pieces(page: Vec<Event>, id_key: &'static str) -> Response {
    let pieces = page.len().div_ceil(EVENTS_PER_PIECE).max(1);
    let body = stream::iter((0..pieces).map(move |piece| {
        let chunk = page.get(piece * EVENTS_PER_PIECE..).unwrap_or_default();
        let chunk = &chunk[..chunk.len().min(EVENTS_PER_PIECE)];
        let mut text = Vec::with_capacity(chunk.len() * 256 + 2);
        text.push(if piece == 0 { b'[' } else { b',' });
        for (i, event) in chunk.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            serde_json::to_writer(&mut text, &event.json_as(id_key))?;
        }
        if piece + 1 == pieces {
            text.push(b']');
        }
        Ok::<_, serde_json::Error>(text)
    }));
    ([(header::CONTENT_TYPE, "application/json")], Body::from_stream(body)).into_response()
}

/// Whether a request asks for an SSE stream.
pub fn wants_sse(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("text/event-stream"))
}

/// A log route's answer, with the database's unavailability told to an SSE
/// client as a stream that only says when to reconnect and then ends. A
/// browser's EventSource gives up for good on an error status such as 503,
/// but reconnects, with its `Last-Event-ID`, after a stream that ends, so it
/// rides out a database restart as it rides out a server restart. Other
/// clients see a stream that ended before its log did, and reconnect as
/// after a lost connection.
pub fn reconnect_when_unavailable(answer: ApiResult<Response>, headers: &HeaderMap) -> ApiResult<Response> {
    match answer {
        Err(ApiError::Unavailable { detail, .. }) if wants_sse(headers) => {
            tracing::warn!(error = %detail, "database unavailable; an event stream was told to reconnect");
            let frames = [
                SseEvent::default().comment("the database is unavailable; reconnect"),
                SseEvent::default().retry(RECONNECT_AFTER),
            ];
            let body = stream::iter(frames.map(Ok::<_, Infallible>));
            let mut response = Sse::new(body).into_response();
            response.headers_mut().insert("cache-control", "no-cache".parse().expect("static header"));
            Ok(response)
        }
        other => other,
    }
}

/// Follows a log until its `done` (a run's or a fleet run's), for the
/// answers that wait for the end.
pub async fn wait_done(state: &AppState, log_id: &str, dialect: Dialect) -> ApiResult<()> {
    // In the log's own dialect, so that it shares the feed of its SSE tails.
    let mut tail = state.hub.tail(log_id, 0, dialect.id_key());
    while let Some(frame) = tail.next().await {
        if frame?.is_terminal() {
            break;
        }
    }
    Ok(())
}

/// Streams the log's events after `after`: replay from the log, then the
/// live tail, then the stream closes after `done`. Each event's frame has
/// its `seq` as `id:`, so a reconnecting client resumes with
/// `Last-Event-ID`. The frames are the hub's, rendered once for every tail
/// of the log; a client that takes nothing for the send timeout is
/// disconnected by the server's connections ([`super::send_timeout`]) and
/// resumes from the last whole frame it read.
pub fn stream(state: &AppState, log_id: &str, after: u64, dialect: Dialect) -> Response {
    let tail = state.hub.tail(log_id, after, dialect.id_key());
    let body = Body::from_stream(super::sse_body::frames(tail, dialect == Dialect::Seed));
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies such as nginx buffer responses unless told otherwise.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}
