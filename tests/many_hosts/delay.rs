//! A delay line between the workers and the database: a TCP relay that
//! holds every chunk for a fixed time in each direction, in order. This
//! machine's kernel has no `netem` queueing discipline, so latency is added
//! here rather than on the hosts' links; to the processes on either side it
//! is the same (every round trip takes that much longer).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Relays connections made to `listen` to `upstream`, each direction held
/// for `one_way`. Returns the port it listens on; stops with the runtime.
pub async fn spawn(listen: &str, upstream: String, one_way: Duration) -> u16 {
    let listener = TcpListener::bind((listen, 0)).await.expect("bind the delay line");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(&upstream).await else { return };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(relay(client_read, server_write, one_way));
                tokio::spawn(relay(server_read, client_write, one_way));
            });
        }
    });
    port
}

/// Copies one direction, each chunk sent `delay` after it arrived.
async fn relay(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, delay: Duration) {
    let (held, mut due) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let sender = tokio::spawn(async move {
        while let Some((at, chunk)) = due.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    });
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if held.send((Instant::now() + delay, buffer[..n].to_vec())).is_err() {
                    break;
                }
            }
        }
    }
    drop(held);
    let _ = sender.await;
}
