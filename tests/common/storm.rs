//! The kill storm both storm suites share: a worker SIGKILLed every 0.5–2 s
//! (a new one started in its place) and the server twice, until the work
//! is done.

use std::time::{Duration, Instant};

use super::{Process, Server, TestEnv};

/// What the storm did.
#[derive(Default)]
pub struct Tally {
    pub worker_kills: usize,
    pub server_kills: usize,
}

/// Kills a random worker every 0.5–2 s and the server at the third and
/// sixth kill, until `unfinished` (a `SELECT COUNT(*) …` read straight from
/// the database, since the server may be down) counts nothing, or panics
/// after `limit`. The server is killed twice even if the work ends sooner.
pub async fn storm(
    env: &TestEnv,
    server: &mut Server,
    workers: &mut [Process],
    unfinished: &str,
    limit: Duration,
) -> Tally {
    let mut tally = Tally::default();
    let start = Instant::now();
    while env.count(unfinished, &[]).await > 0 || tally.server_kills < 2 {
        assert!(start.elapsed() < limit, "the storm never ended: {} unfinished", env.count(unfinished, &[]).await);
        tokio::time::sleep(Duration::from_millis(fastrand::u64(500..=2000))).await;
        let victim = fastrand::usize(..workers.len());
        workers[victim].kill9();
        workers[victim] = env.worker();
        tally.worker_kills += 1;
        if tally.worker_kills % 3 == 0 && tally.server_kills < 2 {
            server.process.kill9();
            *server = env.server(0);
            tally.server_kills += 1;
        }
    }
    tally
}
