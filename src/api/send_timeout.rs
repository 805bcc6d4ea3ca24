//! The send timeout: a connection whose client takes none of the bytes
//! waiting for it for a while is closed, as nginx's `send_timeout` does. An
//! SSE reader that stopped reading would otherwise hold its connection, and
//! whatever the server had queued for it, for as long as TCP keeps the
//! socket: instead it is disconnected, and resumes later from the
//! `Last-Event-ID` of the last whole frame it read.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// A TCP connection whose writes fail once the socket has taken nothing
/// for the timeout.
pub struct Connection {
    stream: TcpStream,
    timeout: Duration,
    /// Since the first write the socket could not take: the deadline.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Connection {
    /// Wraps an accepted stream.
    pub fn new(stream: TcpStream, timeout: Duration) -> Connection {
        Connection { stream, timeout, stalled: None }
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
}

impl AsyncRead for Connection {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
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

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
