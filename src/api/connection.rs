//! A TCP connection as the server holds it.
//!
//! - The send timeout: a connection whose client takes none of the bytes
//!   waiting for it for a while is closed, as nginx's `send_timeout` does. An
//!   SSE reader that stopped reading would otherwise hold its connection, and
//!   whatever the server had queued for it, for as long as TCP keeps the
//!   socket: instead it is disconnected, and resumes later from the
//!   `Last-Event-ID` of the last whole frame it read.
//! - Reads are reported to the connection's [`Activity`], which the idle
//!   watch ([`super::idle`]) reads to close a connection that owes a request
//!   head or sits idle.
//! - A lingering close: the server may answer before it has read all that
//!   its client sends (a `GET` with a body, an upload refused for its size).
//!   Closing a socket with unread bytes makes the kernel reset it, and a
//!   reset can destroy the answer before the client reads it. So a
//!   connection that ends shuts its side for writing first and reads (and
//!   drops) what still comes, until its client closes or falls silent, as
//!   nginx's `lingering_close` does.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

use super::idle::Activity;

/// How long a closing connection waits for its client's next bytes.
const LINGER_QUIET: Duration = Duration::from_secs(5);
/// The longest a closing connection reads what its client still sends.
const LINGER_MOST: Duration = Duration::from_secs(30);

/// A TCP connection whose writes fail once the socket has taken nothing
/// for the send timeout, and whose close lingers.
pub struct Connection {
    stream: TcpStream,
    timeout: Duration,
    activity: Arc<Activity>,
    /// Since the first write the socket could not take: the deadline.
    stalled: Option<Pin<Box<Sleep>>>,
    /// Once the connection is closing: until when it reads what comes.
    lingering: Option<Linger>,
}

/// A closing connection's reading of what its client still sends.
struct Linger {
    quiet: Pin<Box<Sleep>>,
    until: Instant,
}

impl Connection {
    /// Wraps an accepted stream.
    pub fn new(stream: TcpStream, timeout: Duration, activity: Arc<Activity>) -> Connection {
        Connection { stream, timeout, activity, stalled: None, lingering: None }
    }

    /// What a write that could not proceed comes to: still waiting, or,
    /// past the deadline, an error that ends the connection.
    fn waiting(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let timeout = self.timeout;
        let deadline = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if deadline.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        crate::metrics::connection_stalled();
        // Reset rather than close: the kernel would otherwise go on trying
        // to deliver what the client does not read, for minutes.
        if let Err(e) = self.stream.set_zero_linger() {
            tracing::debug!(error = %e, "could not set SO_LINGER");
        }
        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client took nothing for the send timeout")))
    }

    fn wrote(&mut self, written: Poll<io::Result<usize>>, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        match written {
            Poll::Pending => self.waiting(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    /// Reads and drops what the client still sends, until it closes, falls
    /// silent for [`LINGER_QUIET`] or [`LINGER_MOST`] has passed.
    fn linger(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut scratch = [0u8; 4096];
        loop {
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.stream).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(()),
                Poll::Ready(Err(_)) => return Poll::Ready(()),
                Poll::Ready(Ok(())) => {
                    let linger = self.lingering.as_mut().expect("lingering");
                    let next = (Instant::now() + LINGER_QUIET).min(linger.until);
                    linger.quiet.as_mut().reset(next);
                }
                Poll::Pending => {
                    let linger = self.lingering.as_mut().expect("lingering");
                    return linger.quiet.as_mut().poll(cx);
                }
            }
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read();
        }
        read
    }
}

impl AsyncWrite for Connection {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.wrote(written, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.wrote(written, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    /// Shuts the server's side for writing (the client reads the answer to
    /// its end), then lingers; a failed shutdown ends at once.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.lingering.is_none() {
            ready!(Pin::new(&mut self.stream).poll_shutdown(cx))?;
            let now = Instant::now();
            let quiet = Box::pin(tokio::time::sleep_until(now + LINGER_QUIET));
            self.lingering = Some(Linger { quiet, until: now + LINGER_MOST });
        }
        self.linger(cx).map(Ok)
    }
}
