//! Webhooks: the rules of announcing that a run, a fleet run or a
//! formation run ended, apart from any I/O.
//!
//! A delivery is a row written in the transaction that ends its subject (an
//! outbox), so an end is never announced without having happened, nor
//! happens without being announced. A server's deliverer
//! ([`crate::services::delivery`]) claims due rows for a short lease and POSTs them;
//! what each attempt's outcome makes of the row is [`after_attempt`]'s
//! rule. Delivery is at least once: a receiver tells repeats apart by the
//! `Wingman-Delivery` header, the same on every attempt.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

pub use crate::domain::model::Webhook;
use crate::domain::model::{new_id, FleetProgress, FleetRunStatus, RunStatus, Usage};

/// The longest webhook URL accepted.
pub const MAX_URL_BYTES: usize = 2048;

/// The first wait after a failed attempt; each later wait doubles it.
pub const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between two attempts.
pub const LONGEST_WAIT: Duration = Duration::from_secs(3600);
/// How long after its subject ended a delivery is tried at all.
pub const GIVE_UP_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Checks a webhook URL's form: absolute `http` or `https` with a host, no
/// credentials, no fragment. Whether its host may be reached is the
/// network policy's to say ([`crate::services::delivery`]).
pub fn check_url(text: &str) -> Result<url::Url, String> {
    if text.len() > MAX_URL_BYTES {
        return Err(format!("webhook.url is longer than {MAX_URL_BYTES} bytes"));
    }
    let url = url::Url::parse(text).map_err(|e| format!("webhook.url {text:?} is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("webhook.url must be http or https, not {}", url.scheme()));
    }
    if url.host().is_none() {
        return Err("webhook.url has no host".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("webhook.url may not carry credentials: the request is signed instead".into());
    }
    if url.fragment().is_some() {
        return Err("webhook.url may not have a fragment".into());
    }
    Ok(url)
}

/// What ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    Run,
    FleetRun,
    FormationRun,
}

impl Subject {
    /// The subject as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Subject::Run => "run",
            Subject::FleetRun => "fleet_run",
            Subject::FormationRun => "formation_run",
        }
    }

    /// Reads a stored subject.
    pub fn parse(text: &str) -> Option<Subject> {
        [Subject::Run, Subject::FleetRun, Subject::FormationRun].into_iter().find(|s| s.as_str() == text)
    }

    /// The payload's `type`.
    pub fn event_type(self) -> &'static str {
        match self {
            Subject::Run => "run.finished",
            Subject::FleetRun => "fleet_run.finished",
            Subject::FormationRun => "formation_run.finished",
        }
    }
}

/// A delivery to write in the transaction that ends its subject.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDelivery {
    /// The `Wingman-Delivery` header, the same on every attempt.
    pub id: String,
    pub subject: Subject,
    pub subject_id: String,
    pub url: String,
    /// The body, byte for byte the same on every attempt.
    pub payload: String,
}

fn delivery(subject: Subject, id: &str, url: &str, status: &str, fields: Map<String, Value>) -> NewDelivery {
    let mut body = Map::new();
    body.insert("type".into(), json!(subject.event_type()));
    body.insert("id".into(), json!(id));
    body.insert("status".into(), json!(status));
    body.extend(fields);
    NewDelivery {
        id: new_id(),
        subject,
        subject_id: id.to_string(),
        url: url.to_string(),
        payload: Value::Object(body).to_string(),
    }
}

/// The announcement of a run's end.
pub fn run_finished(
    run_id: &str,
    url: &str,
    status: RunStatus,
    response: Option<&str>,
    usage: Usage,
    error: Option<&str>,
) -> NewDelivery {
    let mut fields = Map::new();
    if let Some(response) = response {
        fields.insert("response".into(), json!(response));
    }
    fields.insert("usage".into(), json!(usage));
    if let Some(error) = error {
        fields.insert("error".into(), json!(error));
    }
    delivery(Subject::Run, run_id, url, status.as_str(), fields)
}

/// The announcement of a fleet run's end, with its tasks' counts.
pub fn fleet_run_finished(id: &str, url: &str, status: FleetRunStatus, progress: &FleetProgress) -> NewDelivery {
    let counts = json!({
        "total": progress.total,
        "succeeded": progress.succeeded,
        "failed": progress.failed,
        "cancelled": progress.cancelled,
    });
    delivery(Subject::FleetRun, id, url, status.as_str(), Map::from_iter([("counts".to_string(), counts)]))
}

/// The announcement of a formation run's end, with its exit nodes' outputs.
pub fn formation_run_finished(
    id: &str,
    url: &str,
    status: FleetRunStatus,
    outputs: &Value,
    error: Option<&str>,
) -> NewDelivery {
    let mut fields = Map::from_iter([("outputs".to_string(), outputs.clone())]);
    if let Some(error) = error {
        fields.insert("error".into(), json!(error));
    }
    delivery(Subject::FormationRun, id, url, status.as_str(), fields)
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not delivered yet; another attempt is due at `next_attempt_at`.
    Pending,
    /// A 2xx answer came.
    Delivered,
    /// Given up: 24 hours of attempts failed, or the address was refused.
    Failed,
}

impl DeliveryStatus {
    /// The status as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
        }
    }

    /// Reads a stored status.
    pub fn parse(text: &str) -> Option<DeliveryStatus> {
        [DeliveryStatus::Pending, DeliveryStatus::Delivered, DeliveryStatus::Failed]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A delivery as stored, with its attempts (oldest first) where read for a client.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Delivery {
    pub id: String,
    pub subject: Subject,
    pub subject_id: String,
    pub url: String,
    /// The body every attempt sends.
    #[serde(skip)]
    pub payload: String,
    pub status: DeliveryStatus,
    /// Attempts begun, including one under way.
    pub attempts: u32,
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>)]
    pub next_attempt_at: Option<DateTime<Utc>>,
    #[serde(with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>)]
    pub delivered_at: Option<DateTime<Utc>>,
    /// The attempts that finished, oldest first.
    pub log: Vec<Attempt>,
}

/// One attempt that finished.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Attempt {
    /// 1 for the first attempt.
    pub attempt: u32,
    #[serde(with = "crate::domain::model::timestamp")]
    pub at: DateTime<Utc>,
    pub duration_ms: u64,
    /// The answer's status, when one came.
    pub status_code: Option<u16>,
    /// Why the attempt failed (a timeout, a refused connection, a non-2xx
    /// status, a refused address).
    pub error: Option<String>,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tried {
    /// A 2xx answer.
    Delivered,
    /// No answer, or a non-2xx one: tried again later.
    Failed(String),
    /// The network policy refused the address: never tried again.
    Refused(String),
}

/// What an attempt makes of its delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    Delivered,
    /// Another attempt at this time.
    RetryAt(DateTime<Utc>),
    GaveUp,
}

impl Next {
    /// The delivery's status after it.
    pub fn status(&self) -> DeliveryStatus {
        match self {
            Next::Delivered => DeliveryStatus::Delivered,
            Next::RetryAt(_) => DeliveryStatus::Pending,
            Next::GaveUp => DeliveryStatus::Failed,
        }
    }
}

/// What attempt number `attempt` (1 for the first) of a delivery made at
/// `created_at` makes of it, ending at `now` as `tried`: attempts go on
/// with waits of 1 s, 2 s, 4 s, … at most an hour (each up to a tenth
/// longer, so that deliveries failing together spread out), for 24 hours.
pub fn after_attempt(attempt: u32, created_at: DateTime<Utc>, now: DateTime<Utc>, tried: &Tried) -> Next {
    match tried {
        Tried::Delivered => Next::Delivered,
        Tried::Refused(_) => Next::GaveUp,
        Tried::Failed(_) => {
            let wait = retry_wait(attempt).mul_f64(1.0 + fastrand::f64() * 0.1).min(LONGEST_WAIT);
            let at = now + chrono::Duration::from_std(wait).unwrap_or_default();
            let deadline = created_at + chrono::Duration::from_std(GIVE_UP_AFTER).unwrap_or_default();
            if at > deadline {
                Next::GaveUp
            } else {
                Next::RetryAt(at)
            }
        }
    }
}

/// The wait after failed attempt `attempt`, before jitter: 1 s doubled
/// each time, at most an hour.
pub fn retry_wait(attempt: u32) -> Duration {
    FIRST_RETRY.saturating_mul(1u32 << attempt.saturating_sub(1).min(20)).min(LONGEST_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_a_second_to_an_hour() {
        let waits: Vec<u64> = (1..=14).map(|n| retry_wait(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600]);
        assert_eq!(retry_wait(u32::MAX), LONGEST_WAIT);
    }

    #[test]
    fn a_failure_is_retried_within_a_tenth_of_its_wait_until_a_day_has_passed() {
        let created = Utc::now();
        let failed = Tried::Failed("500".into());
        for attempt in 1..=5 {
            let Next::RetryAt(at) = after_attempt(attempt, created, created, &failed) else { panic!("retried") };
            let wait = (at - created).to_std().unwrap();
            assert!(wait >= retry_wait(attempt) && wait <= retry_wait(attempt).mul_f64(1.1), "{attempt}: {wait:?}");
        }
        let late = created + chrono::Duration::hours(24) - chrono::Duration::minutes(30);
        assert_eq!(after_attempt(30, created, late, &failed), Next::GaveUp, "the next would be past a day");
        assert!(matches!(after_attempt(30, created, created, &failed), Next::RetryAt(_)));
        assert_eq!(after_attempt(1, created, created, &Tried::Delivered), Next::Delivered);
        assert_eq!(after_attempt(1, created, created, &Tried::Refused("private".into())), Next::GaveUp);
    }

    #[test]
    fn a_payload_names_its_type_subject_and_status() {
        let usage = Usage { input_tokens: 3, output_tokens: 2, ..Default::default() };
        let run = run_finished("r1", "https://h/x", RunStatus::Succeeded, Some("hi"), usage, None);
        let body: Value = serde_json::from_str(&run.payload).unwrap();
        assert_eq!(body["type"], "run.finished");
        assert_eq!(
            (body["id"].as_str(), body["status"].as_str(), body["response"].as_str()),
            (Some("r1"), Some("succeeded"), Some("hi"))
        );
        assert_eq!(body["usage"]["input_tokens"], 3);
        assert!(body.get("error").is_none());
        let progress = FleetProgress { total: 2, succeeded: 1, failed: 1, ..Default::default() };
        let fleet = fleet_run_finished("f1", "https://h/x", FleetRunStatus::Failed, &progress);
        let body: Value = serde_json::from_str(&fleet.payload).unwrap();
        assert_eq!((body["type"].as_str(), body["counts"]["failed"].as_u64()), (Some("fleet_run.finished"), Some(1)));
        assert_ne!(run.id, fleet.id, "each delivery has an ID of its own");
    }

    #[test]
    fn a_url_must_be_plain_http_or_https() {
        assert!(check_url("https://example.com/hook?x=1").is_ok());
        assert!(check_url("http://10.0.0.1:8080/").is_ok(), "the address is the network policy's to judge");
        for bad in ["", "example.com/hook", "ftp://example.com/", "https://u:p@example.com/", "https://e.com/#f"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(check_url(&format!("https://e.com/{}", "a".repeat(MAX_URL_BYTES))).is_err());
    }
}
