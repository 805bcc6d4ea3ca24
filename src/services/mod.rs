//! What runs beside the API in every `wingman serve` (the scheduler, the
//! webhook deliverer, the pruner, the event hub and the embedded workers),
//! and the supervisor that keeps them running.
//!
//! A service is an async function that runs until shutdown. If it panics,
//! or returns an error it could not get past (its database unreachable,
//! its disk full), the supervisor logs it, counts it
//! (`wingman_service_restarts_total{service}`), shows it in `GET /health`
//! as `restarting`, and starts it again after a backoff: half a second,
//! doubling to five. A service that ran a minute before failing starts
//! again from the shortest wait.
//!
//! **Invariant:** no service stops for good while the server runs: whatever
//! ends one early, the supervisor starts it again.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub mod delivery;
pub mod faults;
pub mod hub;
pub mod retention;
pub mod scheduler;

/// The first wait before a failed service starts again.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// The longest wait: a service whose cause went away (space freed, the
/// database back) is running again within this.
const LONGEST_BACKOFF: Duration = Duration::from_secs(5);

/// A service that ran this long before it failed starts again at once.
const HEALTHY_AFTER: Duration = Duration::from_secs(60);

/// What a service's run ends with: `Ok` at shutdown, an error otherwise.
pub type ServiceResult = anyhow::Result<()>;

/// How a service stands, as `GET /health` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ServiceState {
    /// `ok` while it runs, `restarting` while it waits to start again.
    #[schema(pattern = "^(ok|restarting)$")]
    pub state: &'static str,
    /// How often it was started again since the server started.
    pub restarts: u64,
    /// What ended its last run early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Every supervised service of this process, by name.
#[derive(Debug, Default)]
pub struct Board {
    services: Mutex<BTreeMap<String, ServiceState>>,
}

impl Board {
    /// Each service's state, by name.
    pub fn snapshot(&self) -> BTreeMap<String, ServiceState> {
        self.services.lock().expect("the board's lock is never poisoned").clone()
    }

    fn set(&self, name: &str, change: impl FnOnce(&mut ServiceState)) {
        let mut services = self.services.lock().expect("the board's lock is never poisoned");
        let entry = services.entry(name.to_string()).or_insert(ServiceState { state: "ok", restarts: 0, error: None });
        change(entry);
    }
}

/// How long a failed service waits before it starts again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub first: Duration,
    pub longest: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { first: FIRST_BACKOFF, longest: LONGEST_BACKOFF }
    }
}

impl Backoff {
    /// The wait after `wait`: twice as long, at most `longest`.
    pub fn after(&self, wait: Duration) -> Duration {
        (wait * 2).min(self.longest)
    }
}

/// Starts services and keeps them running until shutdown.
pub struct Supervisor {
    board: Arc<Board>,
    tasks: JoinSet<()>,
    shutdown: CancellationToken,
    backoff: Backoff,
}

impl Supervisor {
    /// A supervisor whose services stop when `shutdown` fires.
    pub fn new(shutdown: CancellationToken) -> Supervisor {
        Supervisor { board: Arc::default(), tasks: JoinSet::new(), shutdown, backoff: Backoff::default() }
    }

    /// The same, waiting as `backoff` says between a failure and a new start.
    pub fn with_backoff(mut self, backoff: Backoff) -> Supervisor {
        self.backoff = backoff;
        self
    }

    /// The token its services stop on.
    pub fn shutdown(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// The board `GET /health` reads.
    pub fn board(&self) -> Arc<Board> {
        self.board.clone()
    }

    /// Runs `service` under `name`, starting it again whenever it panics or
    /// fails before shutdown. `service` makes one run; it must return once
    /// the shutdown token it was given fires.
    pub fn spawn<F, Fut>(&mut self, name: impl Into<String>, service: F)
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ServiceResult> + Send + 'static,
    {
        let (name, board, shutdown) = (name.into(), self.board.clone(), self.shutdown.clone());
        board.set(&name, |_| {});
        self.tasks.spawn(supervise(name, board, shutdown, self.backoff, service));
    }

    /// Waits until every service has returned after shutdown.
    pub async fn join(mut self) {
        while self.tasks.join_next().await.is_some() {}
    }
}

/// The supervision of one service: run it, and after each early end, wait
/// and run it again.
async fn supervise<F, Fut>(name: String, board: Arc<Board>, shutdown: CancellationToken, waits: Backoff, mut service: F)
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = ServiceResult> + Send + 'static,
{
    let mut backoff = waits.first;
    loop {
        let started = Instant::now();
        // A task of its own, so that a panic ends this run and not the supervisor.
        let why = match tokio::spawn(faults::guarded(name.clone(), service())).await {
            Ok(Ok(())) if shutdown.is_cancelled() => return,
            Ok(Ok(())) => "it stopped on its own".to_string(),
            Ok(Err(e)) => error_text(&e),
            Err(e) if e.is_panic() => format!("it panicked: {}", panic_message(e.into_panic())),
            Err(e) => format!("it was stopped: {e}"),
        };
        if started.elapsed() >= HEALTHY_AFTER {
            backoff = waits.first;
        }
        tracing::error!(service = %name, error = %why, retry_in_ms = backoff.as_millis() as u64, "a service failed; starting it again");
        crate::metrics::service_restarted(&name);
        board.set(&name, |s| (s.state, s.error, s.restarts) = ("restarting", Some(why), s.restarts + 1));
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = waits.after(backoff);
        board.set(&name, |s| s.state = "ok");
    }
}

/// An error with its causes, each said once: a cause whose text its error
/// already quotes is left out.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}

/// The text a panic carried, if it was one.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_service_that_panics_or_fails_is_started_again_and_counted() {
        let shutdown = CancellationToken::new();
        let quick = Backoff { first: Duration::from_millis(10), longest: Duration::from_millis(20) };
        let mut supervisor = Supervisor::new(shutdown.clone()).with_backoff(quick);
        let runs = Arc::new(AtomicU32::new(0));
        let (counted, stop) = (runs.clone(), shutdown.clone());
        let (third_run_tx, third_run) = tokio::sync::oneshot::channel();
        let third_run_tx = Arc::new(Mutex::new(Some(third_run_tx)));
        supervisor.spawn("flaky", move || {
            let (runs, stop, third) = (counted.clone(), stop.clone(), third_run_tx.clone());
            async move {
                match runs.fetch_add(1, Ordering::SeqCst) {
                    0 => panic!("first run"),
                    1 => anyhow::bail!("the database is unavailable"),
                    _ => {
                        third.lock().unwrap().take().map(|tx| tx.send(()));
                        stop.cancelled().await;
                        Ok(())
                    }
                }
            }
        });
        let board = supervisor.board();
        third_run.await.unwrap();
        let state = &board.snapshot()["flaky"];
        assert_eq!((state.state, state.restarts), ("ok", 2));
        assert!(state.error.as_deref().unwrap().contains("unavailable"), "{state:?}");
        shutdown.cancel();
        supervisor.join().await;
        assert_eq!(runs.load(Ordering::SeqCst), 3, "nothing runs after shutdown");
    }

    #[test]
    fn a_failing_service_waits_twice_as_long_each_time_up_to_five_seconds() {
        let backoff = Backoff::default();
        let waits: Vec<u128> = std::iter::successors(Some(backoff.first), |w| Some(backoff.after(*w)))
            .take(7)
            .map(|w| w.as_millis())
            .collect();
        assert_eq!(waits, [500, 1000, 2000, 4000, 5000, 5000, 5000]);
    }

    #[test]
    fn an_error_says_each_cause_once() {
        let store = crate::store::StoreError::unavailable("connection reset");
        let e = anyhow::Error::from(store).context("reading the schedules");
        assert_eq!(error_text(&e), "reading the schedules: database unavailable: connection reset");
    }

    #[test]
    fn a_panic_says_what_it_carried() {
        assert_eq!(panic_message(Box::new("boom")), "boom");
        assert_eq!(panic_message(Box::new(String::from("bang"))), "bang");
        assert_eq!(panic_message(Box::new(7)), "a panic without a message");
    }
}
