//! Streamable HTTP for the MCP client, over the crate's own HTTP client:
//! the address was resolved and checked against the network policy when the
//! connection was made, and every request goes to that address only, with
//! no redirect followed and no proxy.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures_util::stream::{BoxStream, StreamExt};
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Client, RequestBuilder, Response, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    HttpStatusError, SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

const SESSION_ID: &str = "Mcp-Session-Id";
const LAST_EVENT_ID: &str = "Last-Event-Id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";
/// The largest JSON answer read whole; a bigger one is refused, not buffered.
const MAX_JSON_BYTES: usize = 16 * 1024 * 1024;

type HttpError = StreamableHttpError<reqwest::Error>;

/// An HTTP client pinned to one checked address, with the server's headers.
#[derive(Clone)]
pub struct PinnedClient {
    client: Client,
    headers: Arc<Vec<(HeaderName, HeaderValue)>>,
}

impl PinnedClient {
    /// A client whose requests carry `headers` (the server's, secrets resolved).
    pub fn new(client: Client, headers: Vec<(HeaderName, HeaderValue)>) -> Self {
        PinnedClient { client, headers: Arc::new(headers) }
    }

    fn with_headers(
        &self,
        mut request: RequestBuilder,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> RequestBuilder {
        for (name, value) in self.headers.iter() {
            request = request.header(name, value);
        }
        for (name, value) in custom {
            request = request.header(name, value);
        }
        if let Some(token) = auth {
            request = request.bearer_auth(token);
        }
        request
    }
}

/// A request's failure, without its URL: errors end up in events and log
/// lines, and a server's URL may carry a token in its path or query.
fn client_error(e: reqwest::Error) -> HttpError {
    HttpError::Client(e.without_url())
}

fn status_error(response: &Response) -> HttpError {
    let retry_after = response.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok());
    HttpError::HttpStatus(HttpStatusError::new(response.status().as_u16(), retry_after.map(String::from)))
}

fn content_type_is(response: &Response, media: &str) -> bool {
    let value = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    value.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case(media))
}

fn sse(response: Response) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(response.bytes_stream()).boxed()
}

async fn json_message(response: Response) -> Result<ServerJsonRpcMessage, HttpError> {
    if response.content_length().is_some_and(|n| n as usize > MAX_JSON_BYTES) {
        return Err(HttpError::ResponseBodyTooLarge { max_size: MAX_JSON_BYTES });
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        body.extend_from_slice(&chunk.map_err(client_error)?);
        if body.len() > MAX_JSON_BYTES {
            return Err(HttpError::ResponseBodyTooLarge { max_size: MAX_JSON_BYTES });
        }
    }
    serde_json::from_slice(&body).map_err(HttpError::Deserialize)
}

impl StreamableHttpClient for PinnedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut request = self.client.post(uri.as_ref()).header(ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        request = self.with_headers(request, auth, custom);
        if let Some(id) = &session_id {
            request = request.header(SESSION_ID, id.as_ref());
        }
        let response = request.json(&message).send().await.map_err(client_error)?;
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        // An expired session: the transport initializes a new one, once.
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(HttpError::SessionExpired);
        }
        if !status.is_success() {
            return Err(status_error(&response));
        }
        let new_session = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()).map(String::from);
        if content_type_is(&response, EVENT_STREAM) {
            return Ok(StreamableHttpPostResponse::Sse(sse(response), new_session));
        }
        let answers_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        if answers_nothing && response.content_length() == Some(0) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if content_type_is(&response, JSON) {
            return Ok(StreamableHttpPostResponse::Json(json_message(response).await?, new_session));
        }
        let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(String::from);
        Err(HttpError::UnexpectedContentType(content_type))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let request = self.with_headers(self.client.delete(uri.as_ref()), auth, custom);
        let response = request.header(SESSION_ID, session_id.as_ref()).send().await.map_err(client_error)?;
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Err(HttpError::ServerDoesNotSupportDeleteSession),
            status if status.is_success() || status == StatusCode::NOT_FOUND => Ok(()),
            _ => Err(status_error(&response)),
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        custom: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        let mut request = self.with_headers(self.client.get(uri.as_ref()), auth, custom).header(ACCEPT, EVENT_STREAM);
        if let Some(id) = session_id {
            request = request.header(SESSION_ID, id.as_ref());
        }
        if let Some(id) = last_event_id {
            request = request.header(LAST_EVENT_ID, id);
        }
        let response = request.send().await.map_err(client_error)?;
        match response.status() {
            StatusCode::METHOD_NOT_ALLOWED => Err(HttpError::ServerDoesNotSupportSse),
            StatusCode::NOT_FOUND => Err(HttpError::SessionExpired),
            status if !status.is_success() => Err(status_error(&response)),
            _ if !content_type_is(&response, EVENT_STREAM) => {
                Err(HttpError::UnexpectedServerResponse(Cow::Borrowed("a GET answered without an event stream")))
            }
            _ => Ok(sse(response)),
        }
    }
}
