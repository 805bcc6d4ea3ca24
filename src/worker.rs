//! The worker: claims runs, executes them, heartbeats its lease, and shuts
//! down gracefully.
//!
//! One worker holds one lease in the database (its row in `workers`), renewed
//! by one heartbeat for all its runs. A run is claimable when it is queued at
//! the head of its session, or running under a worker whose lease expired.
//! Every write for a run is fenced by the claim's epoch and the worker's lease.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::domain::model::new_id;
use crate::engine::{self, counted, LoopConfig, RunExit, RunSignals};
use crate::metrics::{self, FencedWrite};
use crate::store::{Claim, HandBack, Heartbeat, Lease, Store, StoreError, StoreResult};

/// Settings of a worker.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// A name for logs and the `workers` table.
    pub name: String,
    /// How many runs it executes at once.
    pub concurrency: u32,
    /// How long its lease lasts without a heartbeat.
    pub lease: Duration,
    /// How often it renews the lease.
    pub heartbeat: Duration,
    /// How often it looks for work when nothing woke it.
    pub poll: Duration,
    /// How long in-flight steps may take to finish at shutdown.
    pub grace: Duration,
    pub engine: LoopConfig,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            name: format!("worker-{}", std::process::id()),
            concurrency: 16,
            lease: Duration::from_secs(3),
            heartbeat: Duration::from_secs(1),
            poll: Duration::from_millis(250),
            grace: Duration::from_secs(10),
            engine: LoopConfig::default(),
        }
    }
}

struct InFlight {
    lease: Lease,
    signals: RunSignals,
    /// When the claim that handed it over had committed.
    since: tokio::time::Instant,
}

/// A heartbeat's outcome, for the worker ID it renewed, with when it began.
type Beat = (String, tokio::time::Instant, StoreResult<Heartbeat>);

/// A running worker's state.
struct Worker {
    store: Arc<dyn Store>,
    config: WorkerConfig,
    in_flight: HashMap<String, InFlight>,
    tasks: JoinSet<(Lease, RunExit)>,
    /// The worker's ID (it changes when a lapsed lease makes it register
    /// anew), shared with its heartbeat task.
    id: watch::Sender<String>,
    /// Runs whose execution gave up without ending them or handing them back
    /// (the database kept failing): this worker's live lease would keep them
    /// from a rescue, so they are handed back as soon as the database answers.
    abandoned: Vec<(Lease, HandBack)>,
    /// Runs the last heartbeat said this worker held while it was not
    /// executing them: handed back if the next one says so again.
    unknown_held: Vec<Lease>,
    /// The earliest time a run this worker handed back for its provider
    /// budget may be claimed again: the worker looks for work then, rather
    /// than at its next poll.
    next_wake: Option<tokio::time::Instant>,
}

/// Runs a worker until `shutdown` fires, then drains it: in-flight steps get
/// `config.grace` to finish, and every run still held is handed back uncharged.
/// `wake` lets an in-process API announce new work without waiting for a poll.
pub async fn run(
    store: Arc<dyn Store>,
    config: WorkerConfig,
    wake: Arc<Notify>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    // Tools run as this process's children: keep its memory and environment
    // (provider keys) out of their reach.
    crate::tools::sandbox::protect_worker_process();
    let mut worker = Worker::register(store, config).await?;
    let mut changes = worker.store.changes();
    // An interval, not a sleep per loop: wake-ups must not push the poll back.
    let mut poll = tokio::time::interval(worker.config.poll);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let (beat_tx, mut beats) = mpsc::channel(8);
    let beating = tokio::spawn(heartbeats(worker.store.clone(), worker.config.clone(), worker.id.subscribe(), beat_tx));
    loop {
        // Reap everything that finished first, so one claim fills every free slot.
        while let Some(joined) = worker.tasks.try_join_next() {
            worker.reap(joined);
        }
        worker.claim_while_room().await;
        // Database changes matter only to a worker with a free slot.
        let has_room = (worker.in_flight.len() as u32) < worker.config.concurrency;
        let woken = worker.next_wake;
        tokio::select! {
            _ = tokio::time::sleep_until(woken.unwrap_or_else(tokio::time::Instant::now)), if woken.is_some() => {
                worker.next_wake = None;
            }
            _ = shutdown.cancelled() => break,
            _ = wake.notified() => {}
            _ = crate::store::changed(&mut changes), if has_room => {}
            _ = poll.tick() => {}
            Some(beat) = beats.recv() => {
                worker.on_heartbeat(beat).await;
                worker.hand_back_abandoned().await;
            }
            Some(joined) = worker.tasks.join_next() => worker.reap(joined),
        }
    }
    worker.drain(&mut beats).await;
    beating.abort();
    Ok(())
}

/// Renews the worker's lease on a task of its own, every `config.heartbeat`,
/// so that a claim or a load waiting on the database never delays it (a
/// lapsed lease would hand every run of a live worker to another). Each
/// outcome goes to the worker's loop, tagged with the worker ID it is for;
/// when the loop is behind, outcomes are dropped rather than waited on.
async fn heartbeats(store: Arc<dyn Store>, config: WorkerConfig, id: watch::Receiver<String>, out: mpsc::Sender<Beat>) {
    let mut tick = tokio::time::interval(config.heartbeat);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let current = id.borrow().clone();
        let began = tokio::time::Instant::now();
        let outcome = store.heartbeat(&current, config.lease).await;
        // A heartbeat that takes a large part of the lease is the warning sign
        // before leases start to lapse (a starved machine, a stalled database).
        if began.elapsed() > config.lease / 3 {
            tracing::warn!(took_ms = began.elapsed().as_millis() as u64, "slow heartbeat");
        }
        if let Err(mpsc::error::TrySendError::Closed(_)) = out.try_send((current, began, outcome)) {
            return;
        }
    }
}

/// Executes a run, catching a panic of its code (a provider's, a tool's, the
/// loop's): the run is failed with the panic's message, so it is neither
/// stuck under a lease this worker keeps renewing nor retried into the same
/// panic, and its slot is freed.
async fn execute_guarded(
    store: Arc<dyn Store>,
    engine: LoopConfig,
    claim: Claim,
    signals: RunSignals,
) -> (Lease, RunExit) {
    let lease = claim.lease.clone();
    // The execution's state machine is tens of kilobytes; boxed, spawning
    // this future moves a pointer rather than copying it several times
    // (the spawn, the task's cell, its output), which was a tenth of a
    // worker's instructions in a burn-down of one-step runs.
    let execution = Box::pin(engine::execute(store.clone(), engine, claim, signals));
    let exit = match AssertUnwindSafe(execution).catch_unwind().await {
        Ok(exit) => exit,
        Err(panic) => {
            let message = panic_message(panic.as_ref());
            tracing::error!(panic = %message, "the run's execution panicked; failing the run");
            Box::pin(engine::fail_after_panic(store.as_ref(), &lease, &message)).await
        }
    };
    (lease, exit)
}

/// The text a panic was raised with.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => text.to_string(),
        (_, Some(text)) => text.clone(),
        _ => "a panic without a message".to_string(),
    }
}

impl Worker {
    async fn register(store: Arc<dyn Store>, config: WorkerConfig) -> anyhow::Result<Worker> {
        let id = new_id();
        store.register_worker(&id, &config.name, config.lease).await?;
        tracing::info!(worker_id = %id, name = %config.name, concurrency = config.concurrency, "worker started");
        let (id, _) = watch::channel(id);
        Ok(Worker {
            store,
            config,
            id,
            in_flight: HashMap::new(),
            tasks: JoinSet::new(),
            abandoned: Vec::new(),
            unknown_held: Vec::new(),
            next_wake: None,
        })
    }

    /// The worker's current ID.
    fn id(&self) -> String {
        self.id.borrow().clone()
    }

    /// Claims as many runs as there is room for, as long as there are some.
    async fn claim_while_room(&mut self) {
        loop {
            let room = self.config.concurrency.saturating_sub(self.in_flight.len() as u32);
            if room == 0 {
                return;
            }
            if self.store.look_before_claiming() {
                match self.store.has_claimable().await {
                    Ok(true) => {}
                    Ok(false) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not look for work");
                        return;
                    }
                }
            }
            let claims = match counted(FencedWrite::Claim, self.store.claim_runs(&self.id(), room).await) {
                Ok(claims) => claims,
                Err(StoreError::Fenced) => {
                    // Only a lapsed lease refuses a claim.
                    self.lease_lost().await;
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "claim failed");
                    return;
                }
            };
            let claimed = claims.len() as u32;
            for claim in self.with_contexts(claims).await {
                let signals = RunSignals::default();
                let run_id = claim.lease.run_id.clone();
                tracing::debug!(run_id, attempt = claim.attempt, rescued = claim.rescued, "claimed");
                if claim.rescued {
                    metrics::lease_rescued();
                }
                self.in_flight.insert(
                    run_id.clone(),
                    InFlight {
                        lease: claim.lease.clone(),
                        signals: signals.clone(),
                        since: tokio::time::Instant::now(),
                    },
                );
                let (store, engine) = (self.store.clone(), self.config.engine.clone());
                // Every line logged while the run executes carries its ID. At
                // the error level, so that a filter that lets any line through
                // keeps the span too.
                let span = tracing::error_span!("run", run_id = %run_id, attempt = claim.attempt);
                self.tasks.spawn(execute_guarded(store, engine, claim, signals).instrument(span));
            }
            if claimed < room {
                return;
            }
        }
    }

    /// Loads a claimed batch's contexts in one store round trip instead of
    /// one per run. If that fails, each execution loads its own.
    async fn with_contexts(&self, mut claims: Vec<Claim>) -> Vec<Claim> {
        if claims.len() < 2 {
            return claims;
        }
        let ids = claims.iter().map(|c| c.lease.run_id.clone()).collect();
        match self.store.load_runs(ids, self.config.engine.histories.clone()).await {
            Ok(contexts) => {
                for (claim, context) in claims.iter_mut().zip(contexts) {
                    claim.context = Some(Box::new(context));
                }
            }
            Err(e) => tracing::debug!(error = %e, "could not load the claimed batch; each run loads its own"),
        }
        claims
    }

    fn reap(&mut self, joined: Result<(Lease, RunExit), tokio::task::JoinError>) {
        match joined {
            Ok((lease, exit)) => {
                match exit {
                    RunExit::Abandoned => self.abandoned.push((lease.clone(), HandBack::Interrupted)),
                    RunExit::DatabaseLost => self.abandoned.push((lease.clone(), HandBack::DatabaseLost)),
                    RunExit::ForBudget { wake } => {
                        self.next_wake = Some(self.next_wake.map_or(wake, |w| w.min(wake)));
                    }
                    RunExit::Finished | RunExit::HandedBack | RunExit::Waiting => {}
                }
                tracing::debug!(run_id = lease.run_id, ?exit, "run left the worker");
                // After a lapsed lease the same run may be claimed again before
                // the abandoned attempt has wound down: remove only this attempt.
                if self.in_flight.get(&lease.run_id).is_some_and(|f| f.lease == lease) {
                    self.in_flight.remove(&lease.run_id);
                }
            }
            Err(e) => {
                // Panics are caught per run (`execute_guarded`); this is a
                // task that was itself cancelled.
                tracing::error!(error = %e, "a run task failed");
                self.in_flight.retain(|_, f| !f.signals.abort.is_cancelled());
            }
        }
    }

    /// Acts on a heartbeat's outcome: aborts runs the worker no longer holds
    /// (cancelled or taken over), and everything if the lease had lapsed.
    /// An outcome for an ID the worker no longer uses is stale, and runs
    /// claimed after the heartbeat began are not in its list yet.
    async fn on_heartbeat(&mut self, (id, began, outcome): Beat) {
        if id != self.id() {
            return;
        }
        match outcome {
            Ok(Heartbeat::Renewed { held_runs }) => {
                for (run_id, flight) in &self.in_flight {
                    if flight.since < began && !held_runs.iter().any(|held| &held.run_id == run_id) {
                        tracing::info!(run_id, "run no longer held (cancelled or taken over); stopping it");
                        flight.signals.abort.cancel();
                    }
                }
                self.hand_back_unstarted(held_runs).await;
            }
            Ok(Heartbeat::Lost) => self.lease_lost().await,
            Err(e) => tracing::warn!(error = %e, "heartbeat failed"),
        }
    }

    /// Hands back the runs the database says this worker holds but it is not
    /// executing: a claim that committed and whose answer was lost. Otherwise
    /// they would wait, under a lease this worker keeps renewing, until it
    /// stops. A run is handed back only when two heartbeats in a row list it
    /// so: one that ended after the first read its list is simply not listed
    /// again, so a run that merely finished meanwhile costs no write.
    async fn hand_back_unstarted(&mut self, held_runs: Vec<Lease>) {
        let unknown: Vec<Lease> = held_runs
            .into_iter()
            .filter(|lease| {
                let executing = self.in_flight.get(&lease.run_id).is_some_and(|f| &f.lease == lease);
                !executing && !self.abandoned.iter().any(|(abandoned, _)| abandoned == lease)
            })
            .collect();
        let previously = std::mem::replace(&mut self.unknown_held, unknown.clone());
        for lease in unknown.into_iter().filter(|lease| previously.contains(lease)) {
            // Fenced: a run that moved on meanwhile is left alone. Any other
            // failure is retried at the next heartbeat, which lists it again.
            match counted(FencedWrite::HandBack, self.store.release_run(&lease, HandBack::Unstarted).await) {
                Ok(()) => {
                    tracing::warn!(run_id = %lease.run_id, "handed back a run whose claim never reached this worker")
                }
                Err(StoreError::Fenced) => {}
                Err(e) => tracing::warn!(run_id = %lease.run_id, error = %e, "could not hand back an unstarted run"),
            }
        }
    }

    /// The lease lapsed: every run held is void. Abandons them and registers
    /// anew under a fresh ID, which the heartbeat task renews from then on.
    async fn lease_lost(&mut self) {
        tracing::warn!(worker_id = %self.id(), "lease lapsed; abandoning every run and registering anew");
        for flight in self.in_flight.values() {
            flight.signals.abort.cancel();
        }
        let id = new_id();
        match self.store.register_worker(&id, &self.config.name, self.config.lease).await {
            Ok(()) => {
                self.id.send_replace(id);
            }
            Err(e) => tracing::error!(error = %e, "could not register again"),
        }
    }

    /// Hands back the runs executions abandoned. Fenced, as every write: a
    /// run that was cancelled or taken over meanwhile is left alone.
    async fn hand_back_abandoned(&mut self) {
        let mut still = Vec::new();
        for (lease, how) in std::mem::take(&mut self.abandoned) {
            match counted(FencedWrite::HandBack, self.store.release_run(&lease, how).await) {
                Err(e) if e.is_retryable() => still.push((lease, how)),
                Ok(()) => tracing::info!(run_id = %lease.run_id, "handed an abandoned run back"),
                Err(_) => {}
            }
        }
        self.abandoned = still;
    }

    /// Graceful shutdown: stop at step boundaries, wait out the grace period
    /// (still heartbeating), then abort and hand back what is left.
    async fn drain(mut self, beats: &mut mpsc::Receiver<Beat>) {
        tracing::info!(in_flight = self.in_flight.len(), "worker stopping");
        for flight in self.in_flight.values() {
            flight.signals.stop.cancel();
        }
        let deadline = tokio::time::Instant::now() + self.config.grace;
        while !self.in_flight.is_empty() {
            tokio::select! {
                Some(joined) = self.tasks.join_next() => self.reap(joined),
                Some(beat) = beats.recv() => self.on_heartbeat(beat).await,
                _ = tokio::time::sleep_until(deadline) => break,
            }
        }
        let left: Vec<Lease> = self.in_flight.values().map(|f| f.lease.clone()).collect();
        for flight in self.in_flight.values() {
            flight.signals.abort.cancel();
        }
        while let Some(joined) = self.tasks.join_next().await {
            self.reap(joined);
        }
        // Fenced: a run that ended or was handed back meanwhile is untouched.
        for lease in left {
            let _ = counted(FencedWrite::HandBack, self.store.release_run(&lease, HandBack::Interrupted).await);
        }
        let _ = self.store.deregister_worker(&self.id()).await;
        tracing::info!(worker_id = %self.id(), "worker stopped");
    }
}
