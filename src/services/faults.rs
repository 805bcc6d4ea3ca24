//! A test hook: faults a test asks a service to meet once, to show that the
//! supervisor starts it again. `WINGMAN_TEST_FAULTS` names them, comma
//! separated, each `<service>:panic` or `<service>:store_error` (a service's
//! name as `GET /health` lists it: `scheduler`, `deliverer`, `pruner`,
//! `hub`, `worker-0`, …). Each fault happens once, at the start of the
//! service's first run; without the variable nothing happens.

use std::future::Future;
use std::sync::Mutex;

use crate::store::StoreError;

/// The environment variable that names faults.
pub const VARIABLE: &str = "WINGMAN_TEST_FAULTS";

/// A fault a service meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Panic,
    /// An error of its database, as an outage would give it.
    StoreError,
}

/// The faults not yet met, read from the environment on first use.
static PENDING: Mutex<Option<Vec<(String, Fault)>>> = Mutex::new(None);

/// Parses `WINGMAN_TEST_FAULTS`' value; entries it does not know are ignored.
pub fn parse(value: &str) -> Vec<(String, Fault)> {
    let fault = |kind: &str| match kind {
        "panic" => Some(Fault::Panic),
        "store_error" => Some(Fault::StoreError),
        _ => None,
    };
    value
        .split(',')
        .filter_map(|entry| {
            let (service, kind) = entry.trim().split_once(':')?;
            Some((service.to_string(), fault(kind)?))
        })
        .collect()
}

/// Takes the fault `service` is to meet, if any is left.
fn take(service: &str) -> Option<Fault> {
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let faults = pending.get_or_insert_with(|| std::env::var(VARIABLE).map(|v| parse(&v)).unwrap_or_default());
    let at = faults.iter().position(|(name, _)| name == service)?;
    Some(faults.remove(at).1)
}

/// Runs `run`, unless `service` is to meet a fault first.
pub async fn guarded(service: String, run: impl Future<Output = anyhow::Result<()>>) -> anyhow::Result<()> {
    match take(&service) {
        Some(Fault::Panic) => panic!("{VARIABLE} asked {service} to panic"),
        Some(Fault::StoreError) => {
            Err(StoreError::unavailable(format!("{VARIABLE} asked {service} to meet a store error")).into())
        }
        None => run.await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_read_as_service_and_kind() {
        let faults = parse("scheduler:panic, worker-0:store_error,bad,hub:explode");
        assert_eq!(faults, [("scheduler".into(), Fault::Panic), ("worker-0".into(), Fault::StoreError)]);
        assert!(parse("").is_empty());
    }
}
