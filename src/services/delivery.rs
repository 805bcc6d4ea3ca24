//! The deliverer: a task of `wingman serve` that sends webhook deliveries
//! from the outbox ([`crate::domain::webhook`]). Every server runs one, so a
//! delivery goes out whichever server is up; a claim gives each attempt to
//! one of them.
//!
//! **Invariant:** an attempt is recorded only under the claim that made it
//! (its attempt number). A server that stalls past its claim's lease finds
//! the delivery claimed again, and its late outcome is dropped: the row
//! never goes back from `delivered`, and its attempts are numbered once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use reqwest::header::{HeaderValue, CONTENT_TYPE};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use url::Url;

use super::ServiceResult;
use crate::domain::webhook::{self, Attempt, Delivery, Next, Tried};
use crate::store::{Store, StoreResult};
use crate::tools::netpolicy::{self, Unreachable};
use crate::tools::outside::OutsideConfig;
use crate::tools::{http, signature};

/// The header that names a delivery, the same on every attempt.
pub const DELIVERY_HEADER: &str = "Wingman-Delivery";

/// Settings of the deliverer.
#[derive(Debug, Clone)]
pub struct DeliveryConfig {
    /// The hosts webhooks may reach besides public ones, and the key requests
    /// are signed with (`--allow-webhook-host`, `--webhook-secret`).
    pub reach: Arc<OutsideConfig>,
    /// How long an attempt may take before it counts as failed.
    pub timeout: Duration,
    /// Attempts under way at once.
    pub concurrency: u32,
    /// How often the outbox is looked at when nothing announces a change.
    pub poll: Duration,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        DeliveryConfig {
            reach: Arc::new(OutsideConfig::webhooks(&[], None)),
            timeout: Duration::from_secs(10),
            concurrency: 16,
            poll: Duration::from_secs(5),
        }
    }
}

impl DeliveryConfig {
    /// How long a claim keeps other servers off a delivery: the attempt's
    /// time limit, and a margin to record its outcome.
    fn lease(&self) -> Duration {
        self.timeout + Duration::from_secs(5)
    }
}

/// The least time between two looks at the outbox that a database change
/// prompted: a busy queue changes the database many times a second, and a
/// delivery a fifth of a second late costs nothing.
const LOOK_EVERY: Duration = Duration::from_millis(200);

/// Sends due deliveries until `shutdown`; attempts under way are left to
/// finish or, if the process ends first, to another claim. A store error
/// ends the run with it (the supervisor starts the deliverer again), and
/// the attempts under way go on to record their outcomes if they can.
pub async fn run(store: Arc<dyn Store>, config: DeliveryConfig, shutdown: CancellationToken) -> ServiceResult {
    let mut changes = store.changes();
    let mut attempts = JoinSet::new();
    loop {
        let room = config.concurrency.saturating_sub(attempts.len() as u32);
        let wait = match claim_due(&store, &config, room, &mut attempts).await {
            Ok(wait) => wait,
            Err(e) => {
                attempts.detach_all();
                return Err(e.into());
            }
        };
        let next = tokio::time::Instant::now() + wait;
        tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            _ = crate::store::changed(&mut changes) => tokio::time::sleep(LOOK_EVERY).await,
            _ = tokio::time::sleep_until(next) => {}
            Some(_) = attempts.join_next() => {}
        }
    }
}

/// Claims what is due (at most `room`) and starts an attempt for each;
/// answers how long to wait before the next look.
async fn claim_due(
    store: &Arc<dyn Store>,
    config: &DeliveryConfig,
    room: u32,
    attempts: &mut JoinSet<()>,
) -> StoreResult<Duration> {
    if room == 0 {
        return Ok(config.poll);
    }
    let Some(due) = store.next_delivery_due().await? else { return Ok(config.poll) };
    // Due times are written by the database's clock, and read by it.
    let claimed = (store.now().await?, Instant::now());
    let until_due = (due - claimed.0).to_std().unwrap_or_default();
    if !until_due.is_zero() {
        return Ok(until_due.min(config.poll));
    }
    for delivery in store.claim_deliveries(config.lease(), room).await? {
        attempts.spawn(attempt_and_record(store.clone(), config.clone(), delivery, claimed));
    }
    // More may be due at once: look again straight away.
    Ok(Duration::ZERO)
}

/// One attempt, and its outcome recorded under its claim. Its times are
/// the database's clock at the claim (`claimed`) moved on by this
/// process's own, so that the next attempt's time and the give-up deadline
/// compare with what the database compares them with.
async fn attempt_and_record(
    store: Arc<dyn Store>,
    config: DeliveryConfig,
    delivery: Delivery,
    claimed: (chrono::DateTime<Utc>, Instant),
) {
    let database_now = |now: Instant| claimed.0 + chrono::Duration::from_std(now - claimed.1).unwrap_or_default();
    let began = Instant::now();
    let at = database_now(began);
    let (tried, status_code) = attempt(&config, &delivery).await;
    let next = webhook::after_attempt(delivery.attempts, delivery.created_at, database_now(Instant::now()), &tried);
    crate::metrics::webhook_attempt(outcome(&tried, &next));
    let error = match &tried {
        Tried::Delivered => None,
        Tried::Failed(why) | Tried::Refused(why) => Some(why.clone()),
    };
    let record =
        Attempt { attempt: delivery.attempts, at, duration_ms: began.elapsed().as_millis() as u64, status_code, error };
    match store.record_delivery_attempt(&delivery.id, &record, &next).await {
        Ok(true) => {}
        Ok(false) => tracing::info!(delivery = %delivery.id, "a webhook attempt ended after its claim lapsed"),
        Err(e) => tracing::warn!(delivery = %delivery.id, error = %e, "could not record a webhook attempt"),
    }
    if next == Next::GaveUp {
        let url = crate::domain::secret::url_for_logs(&delivery.url);
        tracing::warn!(delivery = %delivery.id, %url, "gave up delivering a webhook");
    }
}

fn outcome(tried: &Tried, next: &Next) -> &'static str {
    match (tried, next) {
        (Tried::Delivered, _) => "delivered",
        (Tried::Refused(_), _) => "refused",
        (Tried::Failed(_), Next::GaveUp) => "failed",
        (Tried::Failed(_), _) => "retried",
    }
}

/// POSTs the delivery once, to an address the network policy allows, and
/// says how it went (with the answer's status when one came). The whole
/// attempt, the name's resolution included, takes at most the attempt's
/// time limit: a claim lasts only that long and a little more, and a slow
/// resolver must not let a second server send the delivery meanwhile.
pub async fn attempt(config: &DeliveryConfig, delivery: &Delivery) -> (Tried, Option<u16>) {
    let within = tokio::time::timeout(config.timeout, attempt_unbounded(config, delivery)).await;
    within.unwrap_or_else(|_| (Tried::Failed(format!("no answer within {} ms", config.timeout.as_millis())), None))
}

async fn attempt_unbounded(config: &DeliveryConfig, delivery: &Delivery) -> (Tried, Option<u16>) {
    let url = match Url::parse(&delivery.url) {
        Ok(url) => url,
        Err(e) => return (Tried::Refused(format!("the URL does not parse: {e}")), None),
    };
    let policy = config.reach.policy_for(&url, false);
    let addr = match netpolicy::resolve(&url, &policy, &[]).await {
        Ok(addr) => addr,
        Err(Unreachable::Refused { ip, message }) => {
            return (Tried::Refused(config.reach.refusal(&url, ip, &message)), None)
        }
        Err(Unreachable::NoAddress(why)) => return (Tried::Failed(why), None),
    };
    let client = match http::pinned_client(&url, addr, concat!("wingman-webhook/", env!("CARGO_PKG_VERSION"))) {
        Ok(client) => client,
        Err(e) => return (Tried::Failed(e), None),
    };
    let mut request = client
        .post(url)
        .timeout(config.timeout)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header(DELIVERY_HEADER, &delivery.id);
    if let Some(secret) = &config.reach.signing_secret {
        // Signed afresh on every attempt, so that the receiver's freshness check holds for retries.
        request = request.header(signature::HEADER, secret.sign(Utc::now().timestamp(), delivery.payload.as_bytes()));
    }
    match request.body(delivery.payload.clone()).send().await {
        Ok(answer) if answer.status().is_success() => (Tried::Delivered, Some(answer.status().as_u16())),
        Ok(answer) => {
            let status = answer.status();
            (Tried::Failed(format!("the receiver answered {status}")), Some(status.as_u16()))
        }
        Err(e) if e.is_timeout() => {
            (Tried::Failed(format!("no answer within {} ms", config.timeout.as_millis())), None)
        }
        Err(e) => (
            Tried::Failed(format!("the request failed: {}", crate::tools::webfetch::error_chain(&e.without_url()))),
            None,
        ),
    }
}
