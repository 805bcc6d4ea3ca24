//! What a process counts for Prometheus: the metric families, the calls that
//! record them, and the text `GET /metrics` answers with.
//!
//! Each process has one registry (a `static`): the server's counts include its
//! embedded workers', and a separate worker serves its own on
//! `--metrics-addr` ([`serve`]). Labels take only bounded values (a status, a
//! kind of step, a provider and a model, a route template), never an ID.

use std::net::SocketAddr;
use std::time::Duration;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::domain::model::{RunStatus, Usage};

mod registry;

pub use registry::{Exposition, Family, Kind, Registry};

/// The registry of this process.
static REGISTRY: Registry = Registry::new();

/// The content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Bounds for step and provider latencies: a tool call or a model's answer
/// takes from milliseconds to minutes.
const STEP_BUCKETS: &[f64] = &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// Bounds for the event pump's lag: milliseconds when all is well, seconds
/// when the database or the pump falls behind.
const LAG_BUCKETS: &[f64] = &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

static RUNS_FINISHED: Family = Family {
    name: "wingman_runs_finished_total",
    help: "Runs ended by this process's workers, by final status.",
    kind: Kind::Counter,
    labels: &["status"],
};

static RATE_LIMITED: Family = Family {
    name: "wingman_provider_waits_total",
    help: "Inferences that waited for their share of a provider budget, by budget and reason.",
    kind: Kind::Counter,
    labels: &["budget", "reason"],
};

static STEP_DURATION: Family = Family {
    name: "wingman_step_duration_seconds",
    help: "Steps executed by this process's workers, from start to checkpoint: an inference (kind=inference) or one tool call (kind=tool).",
    kind: Kind::Histogram(STEP_BUCKETS),
    labels: &["kind"],
};

static PROVIDER_DURATION: Family = Family {
    name: "wingman_provider_request_duration_seconds",
    help: "Requests to model providers, from request to complete answer or error, by provider, model and outcome (ok or error).",
    kind: Kind::Histogram(STEP_BUCKETS),
    labels: &["provider", "model", "outcome"],
};

static TOKENS: Family = Family {
    name: "wingman_tokens_total",
    help: "Tokens providers reported, by provider, model and kind (input, output, cache_read, cache_write).",
    kind: Kind::Counter,
    labels: &["provider", "model", "kind"],
};

static COST: Family = Family {
    name: "wingman_cost_usd_total",
    help: "What inferences cost in US dollars at the configured prices, by provider and model (models without a price add nothing).",
    kind: Kind::Counter,
    labels: &["provider", "model"],
};

static LEASE_RESCUES: Family = Family {
    name: "wingman_lease_rescues_total",
    help: "Runs this process's workers took over from a worker whose lease had lapsed.",
    kind: Kind::Counter,
    labels: &[],
};

static FENCED_WRITES: Family = Family {
    name: "wingman_fenced_writes_refused_total",
    help:
        "Writes of this process's workers refused because the lease no longer held (write=commit, hand_back or claim).",
    kind: Kind::Counter,
    labels: &["write"],
};

static COMPACTIONS: Family = Family {
    name: "wingman_compactions_total",
    help: "Compactions this process's workers checkpointed, by why (reason=context, overflow or requested).",
    kind: Kind::Counter,
    labels: &["reason"],
};

static PUMP_LAG: Family = Family {
    name: "wingman_event_pump_lag_seconds",
    help: "Time from an event's write to its delivery by this server's event pump (events read while someone tails a run).",
    kind: Kind::Histogram(LAG_BUCKETS),
    labels: &[],
};

static HTTP_REQUESTS: Family = Family {
    name: "wingman_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    kind: Kind::Counter,
    labels: &["method", "route", "status"],
};

static WEBHOOK_ATTEMPTS: Family = Family {
    name: "wingman_webhook_deliveries_total",
    help: "Webhook delivery attempts this server made, by outcome: delivered (a 2xx answer), retried (an error, a timeout or another status; tried again later), failed (the last attempt of 24 hours failed), refused (the network policy refused the address).",
    kind: Kind::Counter,
    labels: &["outcome"],
};

static TAILS_OPEN: Family = Family {
    name: "wingman_event_tails_open",
    help: "Event tails this server holds open (SSE streams of runs, fleet runs and formation runs, and answers waiting for a run's end).",
    kind: Kind::Gauge,
    labels: &[],
};

static TAIL_PAGES: Family = Family {
    name: "wingman_event_tail_pages_total",
    help: "Pages of a log's past that this server's tails read to catch up, by source: store (read from the database) or shared (read before by another tail of the same log).",
    kind: Kind::Counter,
    labels: &["source"],
};

static STALLED: Family = Family {
    name: "wingman_http_connections_stalled_total",
    help: "Connections this server closed because the client took none of the bytes waiting for it for --send-timeout-ms (a reader that stopped reading; an SSE client resumes with Last-Event-ID).",
    kind: Kind::Counter,
    labels: &[],
};

static CONNECTIONS_OPEN: Family = Family {
    name: "wingman_http_connections_open",
    help:
        "Connections this server holds open (at most --max-connections; past it, new ones wait in the listen backlog).",
    kind: Kind::Gauge,
    labels: &[],
};

static TIMED_OUT: Family = Family {
    name: "wingman_http_connections_timed_out_total",
    help: "Connections this server closed by reason: header (no complete request head within --header-timeout-secs), idle (no new request within --idle-timeout-secs).",
    kind: Kind::Counter,
    labels: &["reason"],
};

static SERVICE_RESTARTS: Family = Family {
    name: "wingman_service_restarts_total",
    help: "Background services of this process (scheduler, deliverer, pruner, event hub, embedded workers) restarted after a panic or an error they could not get past, by service.",
    kind: Kind::Counter,
    labels: &["service"],
};

static QUEUE_DEPTH: Family = Family {
    name: "wingman_queue_depth",
    help: "Runs not yet ended, by status (queued includes runs waiting for their session's turn or a fleet slot), in the whole database, read at scrape time.",
    kind: Kind::Gauge,
    labels: &["status"],
};

static WORKERS_LIVE: Family = Family {
    name: "wingman_workers_live",
    help: "Workers whose lease is live, in the whole database, read at scrape time.",
    kind: Kind::Gauge,
    labels: &[],
};

static RESIDENT: Family = Family {
    name: "process_resident_memory_bytes",
    help: "This process's resident memory (RSS), read at scrape time.",
    kind: Kind::Gauge,
    labels: &[],
};

static SQLITE_MEMORY: Family = Family {
    name: "wingman_sqlite_memory_bytes",
    help: "What SQLite holds in this process's heap (its connections' page caches, statements and schemas), read at scrape time; 0 on PostgreSQL.",
    kind: Kind::Gauge,
    labels: &[],
};

static HISTORY_CACHE_BYTES: Family = Family {
    name: "wingman_history_cache_bytes",
    help: "Decoded session histories this process's workers keep for the sessions' next runs, estimated as the allocator counts them (bounded by --history-cache-mb), read at scrape time.",
    kind: Kind::Gauge,
    labels: &[],
};

static HISTORY_CACHE_SESSIONS: Family = Family {
    name: "wingman_history_cache_sessions",
    help: "Sessions whose history this process's workers keep, read at scrape time.",
    kind: Kind::Gauge,
    labels: &[],
};

/// What every process that executes runs records.
const WORKER_FAMILIES: &[&Family] = &[
    &RUNS_FINISHED,
    &STEP_DURATION,
    &PROVIDER_DURATION,
    &TOKENS,
    &COST,
    &LEASE_RESCUES,
    &FENCED_WRITES,
    &COMPACTIONS,
    &RATE_LIMITED,
];

/// What a server records besides.
const SERVER_FAMILIES: &[&Family] = &[
    &PUMP_LAG,
    &HTTP_REQUESTS,
    &WEBHOOK_ATTEMPTS,
    &TAILS_OPEN,
    &TAIL_PAGES,
    &STALLED,
    &CONNECTIONS_OPEN,
    &TIMED_OUT,
    &SERVICE_RESTARTS,
];

/// A kind of step, for [`step_finished`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Inference,
    Tool,
}

/// A write fenced by a lease, for [`fenced_write_refused`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FencedWrite {
    /// A run's progress or end.
    Commit,
    /// A run handed back to the queue.
    HandBack,
    /// A claim by a worker whose own lease had lapsed.
    Claim,
}

/// A worker ended a run.
pub fn run_finished(status: RunStatus) {
    REGISTRY.add(&RUNS_FINISHED, &[status.as_str()], 1.0);
}

/// An inference waited for its share of a provider budget.
pub fn rate_limited(budget: &str, reason: &str) {
    REGISTRY.add(&RATE_LIMITED, &[budget, reason], 1.0);
}

/// A step was executed and its checkpoint written.
pub fn step_finished(kind: StepKind, took: Duration) {
    let kind = match kind {
        StepKind::Inference => "inference",
        StepKind::Tool => "tool",
    };
    REGISTRY.observe(&STEP_DURATION, &[kind], took.as_secs_f64());
}

/// A provider answered a request (`ok`) or failed it.
pub fn provider_answered(provider: &str, model: &str, ok: bool, took: Duration) {
    let outcome = if ok { "ok" } else { "error" };
    REGISTRY.observe(&PROVIDER_DURATION, &[provider, model, outcome], took.as_secs_f64());
}

/// The tokens and cost of one answer, counted as the provider reports them,
/// whether or not its checkpoint is written afterwards: they were spent.
pub fn usage(provider: &str, model: &str, usage: &Usage) {
    let kinds = [
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("cache_read", usage.cache_read_input_tokens),
        ("cache_write", usage.cache_creation_input_tokens),
    ];
    for (kind, tokens) in kinds {
        // A kind the provider never reports stays out of the listing.
        if tokens > 0 {
            REGISTRY.add(&TOKENS, &[provider, model, kind], tokens as f64);
        }
    }
    if let Some(cost) = usage.cost_usd {
        REGISTRY.add(&COST, &[provider, model], cost);
    }
}

/// A worker took a run over from a lapsed lease.
pub fn lease_rescued() {
    REGISTRY.add(&LEASE_RESCUES, &[], 1.0);
}

/// A compaction was checkpointed; `reason` is `context`, `overflow` or `requested`.
pub fn compacted(reason: &'static str) {
    REGISTRY.add(&COMPACTIONS, &[reason], 1.0);
}

/// A write was refused because its lease no longer held.
pub fn fenced_write_refused(write: FencedWrite) {
    let write = match write {
        FencedWrite::Commit => "commit",
        FencedWrite::HandBack => "hand_back",
        FencedWrite::Claim => "claim",
    };
    REGISTRY.add(&FENCED_WRITES, &[write], 1.0);
}

/// The event pump delivered an event written `lag` ago (0 when the clocks
/// that wrote and read it disagree the other way).
pub fn event_delivered(lag: Duration) {
    REGISTRY.observe(&PUMP_LAG, &[], lag.as_secs_f64());
}

/// An event tail opened.
pub fn tail_opened() {
    REGISTRY.add(&TAILS_OPEN, &[], 1.0);
}

/// An event tail closed.
pub fn tail_closed() {
    REGISTRY.add(&TAILS_OPEN, &[], -1.0);
}

/// A tail read a page of its log's past: from the store, or from what
/// another tail of the log read before.
pub fn tail_page_read(shared: bool) {
    REGISTRY.add(&TAIL_PAGES, &[if shared { "shared" } else { "store" }], 1.0);
}

/// A connection was closed because its client took nothing for the send timeout.
pub fn connection_stalled() {
    REGISTRY.add(&STALLED, &[], 1.0);
}

/// The server accepted a connection.
pub fn connection_opened() {
    REGISTRY.add(&CONNECTIONS_OPEN, &[], 1.0);
}

/// A connection the server held ended.
pub fn connection_closed() {
    REGISTRY.add(&CONNECTIONS_OPEN, &[], -1.0);
}

/// A connection was closed because it owed a request head (`header`) or sat
/// idle (`idle`) past its timeout.
pub fn connection_timed_out(reason: &'static str) {
    REGISTRY.add(&TIMED_OUT, &[reason], 1.0);
}

/// The API answered a request; `route` is the matched route's template.
pub fn http_request(method: &str, route: &str, status: u16) {
    REGISTRY.add(&HTTP_REQUESTS, &[method, route, &status.to_string()], 1.0);
}

/// A webhook delivery attempt ended; `outcome` is `delivered`, `retried`,
/// `failed` or `refused`.
pub fn webhook_attempt(outcome: &'static str) {
    REGISTRY.add(&WEBHOOK_ATTEMPTS, &[outcome], 1.0);
}

/// A background service was restarted after it panicked or failed.
pub fn service_restarted(service: &str) {
    REGISTRY.add(&SERVICE_RESTARTS, &[service], 1.0);
}

/// What a process holds in memory besides its code and its runs, read at
/// each scrape from where it is held (nothing mirrors it between scrapes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    /// What SQLite holds in the process's heap (0 on PostgreSQL).
    pub sqlite_bytes: u64,
    /// The sessions and the estimated bytes of the workers' history cache
    /// (none in an API-only server).
    pub history: (usize, usize),
}

/// The queue as the database holds it, for a server's scrape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DatabaseGauges {
    pub queued: u64,
    pub running: u64,
    pub waiting: u64,
    pub workers: u64,
}

/// A server's scrape: the process's families, its memory, then the
/// database's gauges (their families without samples when the database did
/// not answer).
pub fn render_server(database: Option<DatabaseGauges>, held: Held) -> String {
    let mut out = Exposition::default();
    REGISTRY.render(WORKER_FAMILIES, &mut out);
    render_memory(held, &mut out);
    REGISTRY.render(SERVER_FAMILIES, &mut out);
    out.family(&QUEUE_DEPTH);
    if let Some(db) = database {
        for (status, runs) in [("queued", db.queued), ("running", db.running), ("waiting", db.waiting)] {
            out.sample(QUEUE_DEPTH.name, &[("status", status)], runs as f64);
        }
    }
    out.family(&WORKERS_LIVE);
    if let Some(db) = database {
        out.sample(WORKERS_LIVE.name, &[], db.workers as f64);
    }
    out.into_text()
}

/// A worker process's scrape: what its workers recorded, and its memory.
pub fn render_worker(held: Held) -> String {
    let mut out = Exposition::default();
    REGISTRY.render(WORKER_FAMILIES, &mut out);
    render_memory(held, &mut out);
    out.into_text()
}

/// The process's resident memory (where `/proc` tells it), SQLite's share
/// and the history cache.
fn render_memory(held: Held, out: &mut Exposition) {
    out.family(&RESIDENT);
    if let Some(bytes) = resident_bytes() {
        out.sample(RESIDENT.name, &[], bytes as f64);
    }
    let (sessions, bytes) = held.history;
    for (family, value) in [
        (&SQLITE_MEMORY, held.sqlite_bytes as f64),
        (&HISTORY_CACHE_BYTES, bytes as f64),
        (&HISTORY_CACHE_SESSIONS, sessions as f64),
    ] {
        out.family(family);
        out.sample(family.name, &[], value);
    }
}

/// This process's resident set: the second field of `/proc/self/statm`, in
/// pages (`None` off Linux).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no memory-safety requirements.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// A worker process's metrics listener: `GET /metrics`, and nothing else.
/// `held` reads what the process holds at each scrape.
pub fn worker_routes(held: impl Fn() -> Held + Clone + Send + Sync + 'static) -> Router {
    Router::new()
        .route("/metrics", get(move || async move { response(render_worker(held())) }))
        .fallback(|| async { (axum::http::StatusCode::NOT_FOUND, "only /metrics is served here\n") })
}

/// Serves `router` ([`worker_routes`], behind a token or not) on `addr`
/// until `shutdown` fires. Returns the address bound (port 0 picks a free one).
pub async fn serve(addr: SocketAddr, router: Router, shutdown: CancellationToken) -> anyhow::Result<SocketAddr> {
    let listener =
        TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen for metrics on {addr}: {e}"))?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        let serving =
            axum::serve(listener, router.into_make_service()).with_graceful_shutdown(shutdown.cancelled_owned());
        if let Err(e) = serving.await {
            tracing::error!(error = %e, "the metrics listener failed");
        }
    });
    tracing::info!(addr = %bound, "serving metrics");
    Ok(bound)
}

/// The answer to a scrape, with the format's content type.
pub fn response(text: String) -> axum::response::Response {
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
}
