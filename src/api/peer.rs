//! The client's end of a connection, for answers that wait. The server lets
//! a client half-close (see [`super::serve`]), so hyper reads nothing while
//! an answer is pending, and a client that hangs up during a `?wait=true`
//! would be noticed only once its answer is written: a wait on a run that
//! takes an hour would hold its tail for that hour. A wait looks at the
//! socket once a second instead, and gives up when the client is gone.

use std::future::Future;
use std::os::fd::RawFd;
use std::time::Duration;

use axum::http::StatusCode;

use super::error::{ApiError, ApiResult};

/// How often a wait looks at its client's socket.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// The socket of the connection a request came on, put in each request's
/// extensions by the server's accept loop.
///
/// **Invariant:** a `Peer` is used only by the handler of a request on its
/// connection, while that handler runs: the connection's task owns both the
/// socket and the handler, so the descriptor is open (and is this socket)
/// whenever the handler is polled. It must not be moved into a task of its
/// own.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    fd: RawFd,
}

impl Peer {
    pub(super) fn new(fd: RawFd) -> Peer {
        Peer { fd }
    }

    /// Whether the client has closed the connection (or shut its side of
    /// it, which hyper takes for the same unless told otherwise), or it was
    /// reset.
    fn hung_up(self) -> bool {
        let mut look = libc::pollfd { fd: self.fd, events: libc::POLLRDHUP, revents: 0 };
        // SAFETY: `poll` only reads the descriptor's state; by the type's
        // invariant the descriptor is this connection's open socket.
        let ready = unsafe { libc::poll(&mut look, 1, 0) };
        ready > 0 && look.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
    }
}

/// Runs `wait` to its end, unless the client hangs up first: then the wait
/// is dropped (its tail with it) and the answer, which nobody reads, says
/// so with nginx's 499. The run itself goes on; a request served without
/// the accept loop (no `Peer`) just waits.
pub async fn unless_hung_up<T>(peer: Option<Peer>, wait: impl Future<Output = ApiResult<T>>) -> ApiResult<T> {
    let Some(peer) = peer else { return wait.await };
    let mut wait = std::pin::pin!(wait);
    let mut look = tokio::time::interval(LOOK_EVERY);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            done = &mut wait => return done,
            _ = look.tick() => {
                if peer.hung_up() {
                    let status = StatusCode::from_u16(499).expect("499 is a status code");
                    let message = "the client closed the connection before the answer".to_string();
                    return Err(ApiError::Rejected { status, message });
                }
            }
        }
    }
}
