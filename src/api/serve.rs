//! The server's accept loop: every connection through the send timeout
//! ([`super::send_timeout`]), served by hyper's HTTP/1 with one router
//! shared by all.

use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::peer::Peer;
use super::send_timeout::Connection;

/// Serves `router` on `listener` until `shutdown`, then returns once the
/// connections still open have finished the answers in progress (an SSE
/// stream never does: the caller bounds the wait).
pub async fn serve(listener: TcpListener, router: Router, send_timeout: Duration, shutdown: CancellationToken) {
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
    let connections = tokio_util::task::TaskTracker::new();
    loop {
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
        let client = Peer::new(stream.as_raw_fd());
        let io = TokioIo::new(Connection::new(stream, send_timeout));
        let service = router.clone().map_request(move |request: Request<Incoming>| {
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(client);
            request
        });
        let connection = http.serve_connection(io, TowerToHyperService::new(service));
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            match served {
                Ok(()) => tracing::trace!(%peer, "connection closed"),
                Err(e) => tracing::trace!(%peer, error = %e, "connection ended"),
            }
        });
    }
    connections.close();
    connections.wait().await;
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
