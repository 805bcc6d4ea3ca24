//! The row decoding of webhook deliveries both backends share.

use super::rows::{at, Columns};
use super::{StoreError, StoreResult};
use crate::domain::webhook::{Attempt, Delivery, DeliveryStatus, Subject};

/// The columns [`delivery`] reads, in a `SELECT`.
pub const COLUMNS: &str = "id, subject, subject_id, url, payload, status, attempts, next_attempt_at, created_at, \
     delivered_at";

/// The columns [`attempt`] reads.
pub const ATTEMPT_COLUMNS: &str = "delivery_id, attempt, at, duration_ms, status_code, error";

/// Decodes a delivery's row selected with [`COLUMNS`], without its attempts.
pub fn delivery(row: &impl Columns) -> StoreResult<Delivery> {
    let subject = row.text("subject")?;
    let status = row.text("status")?;
    Ok(Delivery {
        id: row.text("id")?,
        subject: Subject::parse(&subject)
            .ok_or_else(|| StoreError::internal(format!("unknown delivery subject {subject:?}")))?,
        subject_id: row.text("subject_id")?,
        url: row.text("url")?,
        payload: row.text("payload")?,
        status: DeliveryStatus::parse(&status)
            .ok_or_else(|| StoreError::internal(format!("unknown delivery status {status:?}")))?,
        attempts: row.int("attempts")? as u32,
        next_attempt_at: row.opt_int("next_attempt_at")?.map(at),
        created_at: at(row.int("created_at")?),
        delivered_at: row.opt_int("delivered_at")?.map(at),
        log: Vec::new(),
    })
}

/// Decodes an attempt's row selected with [`ATTEMPT_COLUMNS`], with the
/// delivery it belongs to.
pub fn attempt(row: &impl Columns) -> StoreResult<(String, Attempt)> {
    let attempt = Attempt {
        attempt: row.int("attempt")? as u32,
        at: at(row.int("at")?),
        duration_ms: row.int("duration_ms")? as u64,
        status_code: row.opt_int("status_code")?.map(|code| code as u16),
        error: row.opt_text("error")?,
    };
    Ok((row.text("delivery_id")?, attempt))
}

/// Puts each attempt in its delivery's log, in the order given.
pub fn attach(deliveries: &mut [Delivery], attempts: Vec<(String, Attempt)>) {
    for (delivery_id, attempt) in attempts {
        if let Some(delivery) = deliveries.iter_mut().find(|d| d.id == delivery_id) {
            delivery.log.push(attempt);
        }
    }
}
