//! A database that goes away: a TCP relay between processes and their
//! PostgreSQL server, switched off and on by the test.

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::TestEnv;

/// Points the processes `env` starts from now on at its PostgreSQL database
/// through a relay: answers the switch that cuts them off, and the URL
/// that reaches the database directly.
pub async fn through_relay(env: &mut TestEnv) -> (watch::Sender<bool>, String) {
    let direct = env.database_url();
    let mut through = reqwest::Url::parse(&direct).unwrap();
    let (port, switch) = relay(through.socket_addrs(|| Some(5432)).unwrap()[0].to_string()).await;
    through.set_port(Some(port)).unwrap();
    through.query_pairs_mut().append_pair("sslmode", "disable");
    env.set("WINGMAN_DATABASE_URL", through.as_str());
    (switch, direct)
}

/// A TCP relay to `upstream` with a switch: switched off, it cuts every
/// connection it carries and closes new ones at once, as a database that
/// went away would look to its clients. Returns its port and the switch.
pub async fn relay(upstream: String) -> (u16, watch::Sender<bool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (switch, on) = watch::channel(true);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let mut on = on.clone();
            if !*on.borrow() {
                continue;
            }
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let Ok(mut server) = TcpStream::connect(&upstream).await else { return };
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                    _ = on.wait_for(|on| !on) => {}
                }
            });
        }
    });
    (port, switch)
}
