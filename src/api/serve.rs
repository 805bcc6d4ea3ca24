//! The server's accept loop: at most `max_connections` at once, each one
//! watched for its timeouts ([`super::connection`], [`super::idle`]) and
//! served by hyper's HTTP/1 with one router shared by all.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::Router;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tower_http::timeout::TimeoutBody;

use super::connection::Connection;
use super::idle::{self, Activity, Answering};
use super::peer::Peer;

/// How the server holds its connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// How long a connection may take none of the bytes waiting for it.
    pub send_timeout: Duration,
    /// How long a client has to send a complete request head.
    pub header_timeout: Duration,
    /// How long a connection may sit idle between requests; also how long
    /// a request body may stall.
    pub idle_timeout: Duration,
    /// The most connections held at once; past it, new ones wait in the
    /// listen backlog.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            send_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 10_000,
        }
    }
}

/// Serves `router` on `listener` until `shutdown`, then returns once the
/// connections still open have finished the answers in progress (an SSE
/// stream never does: the caller bounds the wait).
pub async fn serve(listener: TcpListener, router: Router, limits: ConnectionLimits, shutdown: CancellationToken) {
    // Made ready for its state once: a `Router` handed out unprepared is
    // rebuilt for each connection (its route table and every layer cloned).
    let router = router.with_state(());
    let mut http = hyper::server::conn::http1::Builder::new();
    // A request's answer goes on when its client shuts its side for
    // writing; the read that would notice it is what a streaming answer
    // would otherwise keep a 16 KB buffer for, per connection. A client
    // that is gone is noticed at the next write (an SSE stream writes at
    // least every 15 s).
    http.half_close(true);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let connections = tokio_util::task::TaskTracker::new();
    loop {
        // A slot first: past the limit, connections wait in the backlog
        // rather than take a descriptor each.
        let slot = tokio::select! {
            _ = shutdown.cancelled() => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = accept(&listener) => accepted,
        };
        tracing::trace!(%peer, "connection accepted");
        // Small SSE frames must leave at once: without TCP_NODELAY, Nagle's
        // algorithm and the client's delayed ACK hold each one back ~40 ms.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        let activity = Activity::new();
        let service = answer_with(router.clone(), Peer::new(stream.as_raw_fd()), activity.clone(), limits.idle_timeout);
        let io = TokioIo::new(Connection::new(stream, limits.send_timeout, activity.clone()));
        let connection = http.serve_connection(io, TowerToHyperService::new(service));
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let _slot = slot;
            crate::metrics::connection_opened();
            let mut connection = std::pin::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                why = idle::expired(&activity, limits.header_timeout, limits.idle_timeout) => {
                    tracing::debug!(%peer, reason = why.as_str(), "connection timed out");
                    crate::metrics::connection_timed_out(why.as_str());
                    Ok(())
                }
                _ = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            crate::metrics::connection_closed();
            match served {
                Ok(()) => tracing::trace!(%peer, "connection closed"),
                Err(e) => tracing::trace!(%peer, error = %e, "connection ended"),
            }
        });
    }
    connections.close();
    connections.wait().await;
}

/// The service one connection's requests go to: the router, with the
/// client's address, a request body that may stall for `body_stall` at
/// most, and an answer reported to `activity` until its body is sent.
fn answer_with(
    router: Router,
    client: Peer,
    activity: Arc<Activity>,
    body_stall: Duration,
) -> impl tower::Service<Request<Incoming>, Response = axum::response::Response, Error = Infallible, Future: Send> + Clone
{
    tower::service_fn(move |request: Request<Incoming>| {
        let answering = activity.answering();
        let mut request = request.map(|body| Body::new(TimeoutBody::new(body_stall, body)));
        request.extensions_mut().insert(client);
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await?;
            Ok(response.map(|body| Body::new(Answer { body, _answering: answering })))
        }
    })
}

/// An answer's body, which holds its connection's [`Answering`] until it is
/// sent (or dropped).
struct Answer {
    body: Body,
    _answering: Answering,
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The next connection. Errors of one connection (reset before it was
/// accepted) are skipped; others, such as running out of open files, are
/// logged and waited out for a second.
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok(accepted) => return accepted,
            Err(e) if is_connection_error(&e) => {}
            Err(e) => {
                tracing::error!(error = %e, "could not accept a connection");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset)
}
