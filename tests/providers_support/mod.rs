//! What the provider tests share: the recorded captures, and a small HTTP
//! server on 127.0.0.1 that replays them and records what it was sent.
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The captures, relative to the repository root.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/providers/");

/// The bytes of a capture.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A capture parsed as JSON.
pub fn fixture_json(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// A recorded tool-call answer rewritten to call `name` with `input`, for
/// agents whose tools must be Wingman's own: `"name":"{old_name}"` becomes
/// `"name":"{name}"`, and the arguments under `"{key}":` carry `input`
/// instead. Where the capture streams them as JSON-string fragments
/// (Anthropic's `partial_json`, OpenAI's `arguments`), `input` is cut into as
/// many pieces as it had non-empty fragments; where they are an object
/// (Ollama's `arguments`), the object is replaced. Every other byte (framing,
/// padding, IDs, usage) is the capture's.
pub fn retool(capture: &[u8], old_name: &str, name: &str, key: &str, input: &Value) -> Vec<u8> {
    let text = String::from_utf8(capture.to_vec()).expect("a UTF-8 capture");
    let text = text.replace(&format!("\"name\":\"{old_name}\""), &format!("\"name\":\"{name}\""));
    let marker = format!("\"{key}\":");
    // (start, end, is_object) of every argument value after the marker.
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(&marker) {
        let start = from + at + marker.len();
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        let value = values.next().and_then(Result::ok);
        let end = start + values.byte_offset();
        match value {
            Some(Value::String(s)) if !s.is_empty() => spans.push((start, end, false)),
            Some(Value::Object(_)) => spans.push((start, end, true)),
            _ => {}
        }
        from = end.max(start);
    }
    let whole: Vec<char> = input.to_string().chars().collect();
    let fragments = spans.iter().filter(|s| !s.2).count();
    assert!(!spans.is_empty() && whole.len() >= fragments, "no {key:?} to rewrite, or too many fragments");
    let (mut out, mut last, mut piece) = (String::new(), 0, 0);
    for (start, end, is_object) in spans {
        out.push_str(&text[last..start]);
        if is_object {
            out.push_str(&input.to_string());
        } else {
            let part: String =
                whole[piece * whole.len() / fragments..(piece + 1) * whole.len() / fragments].iter().collect();
            out.push_str(&serde_json::to_string(&part).unwrap());
            piece += 1;
        }
        last = end;
    }
    out.push_str(&text[last..]);
    assert!(!out.contains(&format!("\"{old_name}\"")), "{old_name} is still named");
    out.into_bytes()
}

/// A streamed OpenAI text answer in the documented chunk shape (no text
/// stream was recorded; see SOURCES.md): a role chunk, the text, a `stop`
/// chunk, a usage chunk and `[DONE]`.
pub fn openai_text(text: &str, prompt_tokens: u64, completion_tokens: u64) -> Vec<u8> {
    let chunk = |delta: Value, finish: Value| {
        serde_json::json!({"id": "c", "object": "chat.completion.chunk",
        "model": "gpt-4o-2024-08-06", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let usage = serde_json::json!({"id": "c", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}});
    let frames = [
        chunk(serde_json::json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(serde_json::json!({"content": text}), Value::Null),
        chunk(serde_json::json!({}), serde_json::json!("stop")),
        usage,
    ];
    let mut body: String = frames.iter().map(|f| format!("data: {f}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

/// A streamed OpenAI answer, in the same documented chunk shape, that calls
/// `bash` with `command` as call `id`, then its usage and `[DONE]`.
pub fn openai_bash_call(id: &str, command: &str, prompt_tokens: u64, completion_tokens: u64) -> Reply {
    let arguments = serde_json::json!({"command": command}).to_string();
    let call = serde_json::json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0,
        "finish_reason": null, "delta": {"tool_calls": [{"index": 0, "id": id, "type": "function",
        "function": {"name": "bash", "arguments": arguments}}]}}]});
    let finish = serde_json::json!({"id": "c", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    let usage = serde_json::json!({"id": "c", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}});
    let mut body: String = [call, finish, usage].iter().map(|f| format!("data: {f}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    Reply::sse(body.into_bytes())
}

/// One scripted answer: a status, headers, and a body written in parts with
/// a pause after each, then the connection is closed.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub parts: Vec<(Vec<u8>, Duration)>,
    /// Never answer: for timeouts.
    pub silent: bool,
    /// After the parts, this piece again and again with this pause after
    /// each, until the client closes the connection: a model that never stops.
    pub endless: Option<(Vec<u8>, Duration)>,
}

impl Reply {
    /// A reply with a body and content type.
    pub fn new(status: u16, content_type: &str, body: Vec<u8>) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            parts: vec![(body, Duration::ZERO)],
            silent: false,
            endless: None,
        }
    }

    /// A JSON reply.
    pub fn json(status: u16, body: Vec<u8>) -> Reply {
        Reply::new(status, "application/json", body)
    }

    /// A 200 event stream.
    pub fn sse(body: Vec<u8>) -> Reply {
        Reply::new(200, "text/event-stream; charset=utf-8", body)
    }

    /// A 200 NDJSON stream.
    pub fn ndjson(body: Vec<u8>) -> Reply {
        Reply::new(200, "application/x-ndjson", body)
    }

    /// An error reply whose status and headers come from a recorded
    /// `{"status", "headers"}` file.
    pub fn recorded(headers_file: &str, body_file: &str) -> Reply {
        let recorded = fixture_json(headers_file);
        let status = recorded["status"].as_u64().unwrap() as u16;
        let headers = recorded["headers"].as_object().unwrap();
        let headers = headers.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect();
        Reply { status, headers, parts: vec![(fixture(body_file), Duration::ZERO)], silent: false, endless: None }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Splits the body into pieces of `size` bytes with `pause` after each,
    /// so the client sees lines and characters cut anywhere.
    pub fn chunked(mut self, size: usize, pause: Duration) -> Reply {
        let body: Vec<u8> = self.parts.iter().flat_map(|(b, _)| b.clone()).collect();
        self.parts = body.chunks(size).map(|c| (c.to_vec(), pause)).collect();
        self
    }

    /// Pauses before the first occurrence of `marker` in the body.
    pub fn pause_before(mut self, marker: &str, pause: Duration) -> Reply {
        let body: Vec<u8> = self.parts.iter().flat_map(|(b, _)| b.clone()).collect();
        let at = body.windows(marker.len()).position(|w| w == marker.as_bytes()).expect("marker in the body");
        self.parts = vec![(body[..at].to_vec(), pause), (body[at..].to_vec(), Duration::ZERO)];
        self
    }

    /// A reply that never comes.
    pub fn silence() -> Reply {
        Reply { status: 200, headers: vec![], parts: vec![], silent: true, endless: None }
    }

    /// After the body, sends `piece` forever with `pause` after each, until
    /// the client closes the connection (which the server counts: see
    /// [`MockServer::closed`]).
    pub fn then_forever(mut self, piece: &[u8], pause: Duration) -> Reply {
        self.endless = Some((piece.to_vec(), pause));
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: Value,
}

/// Answers a request from what it holds, for a server that decides as it goes.
pub type Responder = Arc<dyn Fn(&Received) -> Reply + Send + Sync>;

/// The replaying server.
pub struct MockServer {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    cut_short: Arc<Mutex<usize>>,
}

impl MockServer {
    /// Starts a server that answers requests with `replies`, in order.
    pub async fn start(replies: Vec<Reply>) -> MockServer {
        MockServer::launch(replies, None).await
    }

    /// Starts a server that answers each request with what `f` makes of it
    /// (requests are still recorded, before `f` is called).
    pub async fn answering(f: impl Fn(&Received) -> Reply + Send + Sync + 'static) -> MockServer {
        MockServer::launch(Vec::new(), Some(Arc::new(f))).await
    }

    async fn launch(replies: Vec<Reply>, responder: Option<Responder>) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let cut_short = Arc::new(Mutex::new(0));
        let (rec, rep, cut) = (received.clone(), replies.clone(), cut_short.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (rec, rep, cut, responder) = (rec.clone(), rep.clone(), cut.clone(), responder.clone());
                tokio::spawn(async move {
                    if !serve(stream, rec, rep, responder).await {
                        *cut.lock().unwrap() += 1;
                    }
                });
            }
        });
        MockServer { url, received, replies, cut_short }
    }

    /// How many replies the client closed the connection on before their end.
    pub fn cut_short(&self) -> usize {
        *self.cut_short.lock().unwrap()
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Replies not used yet.
    pub fn unused(&self) -> usize {
        self.replies.lock().unwrap().len()
    }
}

/// Answers one request; false when the client closed the connection before
/// the reply's end.
async fn serve(
    mut stream: TcpStream,
    received: Arc<Mutex<Vec<Received>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    responder: Option<Responder>,
) -> bool {
    let Some(request) = read_request(&mut stream).await else { return true };
    received.lock().unwrap().push(request.clone());
    let reply = match responder {
        Some(f) => Some(f(&request)),
        None => replies.lock().unwrap().pop_front(),
    };
    let reply =
        reply.unwrap_or_else(|| Reply::json(500, b"{\"error\":\"the mock server has no reply left\"}".to_vec()));
    if reply.silent {
        tokio::time::sleep(Duration::from_secs(60)).await;
        return true;
    }
    let mut head = format!("HTTP/1.1 {} Mock\r\nconnection: close\r\n", reply.status);
    for (name, value) in &reply.headers {
        if !["content-length", "connection", "transfer-encoding"].contains(&name.to_lowercase().as_str()) {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).await.is_err() {
        return false;
    }
    for (part, pause) in reply.parts {
        if stream.write_all(&part).await.is_err() || stream.flush().await.is_err() {
            return false;
        }
        tokio::time::sleep(pause).await;
    }
    if let Some((piece, pause)) = reply.endless {
        // Writing fails only once the client has closed its end.
        while stream.write_all(&piece).await.is_ok() && stream.flush().await.is_ok() {
            tokio::time::sleep(pause).await;
        }
        return false;
    }
    let _ = stream.shutdown().await;
    true
}

async fn read_request(stream: &mut TcpStream) -> Option<Received> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: HashMap<String, String> =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string())).collect();
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buffer[head_end..]).unwrap_or(Value::Null);
    Some(Received { method, path, headers, body })
}

/// Asserts that `actual` equals `expected` field by field, naming the first
/// path that differs.
pub fn assert_same(actual: &Value, expected: &Value) {
    fn compare(a: &Value, e: &Value, path: &str) -> Result<(), String> {
        match (a, e) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys()) {
                    match (x.get(key), y.get(key)) {
                        (Some(p), Some(q)) => compare(p, q, &format!("{path}.{key}"))?,
                        (Some(_), None) => return Err(format!("{path}.{key} sent but not in the capture")),
                        (None, _) => return Err(format!("{path}.{key} in the capture but not sent")),
                    }
                }
                Ok(())
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().try_for_each(|(i, (p, q))| compare(p, q, &format!("{path}[{i}]")))
            }
            _ if a == e => Ok(()),
            _ => Err(format!("{path}: {a} instead of {e}")),
        }
    }
    if let Err(path) = compare(actual, expected, "$") {
        panic!("differs at {path}\nactual:   {actual:#}\nexpected: {expected:#}");
    }
}
