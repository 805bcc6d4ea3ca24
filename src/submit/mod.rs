//! The one door for work: every run is made here, whoever asks. The HTTP
//! handlers (messages, fleet runs, formation runs, compactions) and the
//! scheduler hand it a typed submission and an [`Envelope`]; it checks the
//! submission, builds what the runs carry once ([`Carried`]), writes them
//! through the store in one transaction, and wakes this process's workers.
//! The runs that runs make (fleet tasks, formation nodes, sub-agents' runs)
//! are built by the domain's rules from their maker's `Carried`.
//!
//! Its error ([`SubmitError`]) says whether trying again can help, so that
//! the API maps it to a status and the scheduler retries only what may
//! succeed.

use std::path::PathBuf;
use std::sync::Arc;

use crate::domain::access::Caller;
use crate::domain::model::{Carried, Concurrency};
use crate::domain::quota::QueueRefusal;
use crate::store::quota_book::QuotaBook;
use crate::store::{IdempotencyKey, Store};
use crate::tools::outside::OutsideConfig;

pub mod checks;
mod error;
mod fleet;
mod formation;
mod key;
mod message;
mod retry;
mod tally;

pub use error::{unavailable_message, SubmitError, SubmitResult, DISK_FULL_MESSAGE};
pub use fleet::{check_tasks, FleetRunSubmission, Task};
pub use formation::FormationRunSubmission;
pub use key::Keyed;
pub use message::{CompactionSubmission, MessageSubmission};
pub use retry::RetrySubmission;

/// What the door needs to know of the server it belongs to.
#[derive(Debug, Clone)]
pub struct SubmitConfig {
    /// Where runs without a `work_dir` of their own get one (`<data_dir>/sessions/<id>`).
    pub data_dir: PathBuf,
    /// Files no `work_dir` may contain: the database.
    pub protected: Vec<PathBuf>,
    /// The directory every client-given `work_dir` must resolve inside
    /// (`--work-root`), canonical; `None` lets clients choose any.
    pub work_root: Option<PathBuf>,
    /// Attempts a run gets before a crashing run is failed.
    pub max_attempts: u32,
    /// The hosts webhook URLs may name besides public ones (`--allow-webhook-host`).
    pub webhooks: Arc<OutsideConfig>,
}

impl Default for SubmitConfig {
    fn default() -> Self {
        SubmitConfig {
            data_dir: PathBuf::from("."),
            protected: Vec::new(),
            work_root: None,
            max_attempts: 3,
            webhooks: Arc::new(OutsideConfig::webhooks(&[], None)),
        }
    }
}

/// What a submission carries besides what it asks for: how it is keyed
/// against being made twice, and what every run it makes carries.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub keyed: Keyed,
    pub carried: Carried,
    /// The client whose request this is: what the submission names (its
    /// session, an agent) must be visible to it, or it is answered as one
    /// that does not exist. `None` for a schedule's tick, whose target was
    /// checked against its owner when the schedule was made.
    pub caller: Option<Caller>,
}

impl Envelope {
    /// A client's submission: its `Idempotency-Key`, if it sent one, and its
    /// `traceparent` (a new trace when it sent none, or an invalid one).
    pub fn client(idempotency_key: Option<&str>, traceparent: Option<&str>) -> SubmitResult<Envelope> {
        let keyed = match idempotency_key {
            Some(key) => Keyed::client(key)?,
            None => Keyed::None,
        };
        Ok(Envelope { keyed, carried: carried(traceparent), caller: None })
    }

    /// A schedule's tick: the schedule and the tick's time make the key, so
    /// however many servers fire one tick, one submission comes of it.
    pub fn tick(schedule_id: &str, tick: &str) -> Envelope {
        let keyed = Keyed::Tick { schedule_id: schedule_id.to_string(), tick: tick.to_string() };
        Envelope { keyed, carried: carried(None), caller: None }
    }

    /// The same envelope for work of `owner`: the caller's, or a schedule's
    /// owner's for its ticks.
    pub fn owned_by(mut self, owner: &str) -> Envelope {
        self.carried.owner = owner.to_string();
        self
    }

    /// The same envelope for `caller`'s request: its owner's work, and
    /// naming only what it may see.
    pub fn for_caller(self, caller: &Caller) -> Envelope {
        Envelope { caller: Some(caller.clone()), ..self.owned_by(&caller.owner) }
    }

    /// The same envelope with the submission's `priority` (from -10 to 10;
    /// 0 when not given), which every run it makes carries.
    pub fn with_priority(mut self, priority: Option<i64>) -> SubmitResult<Envelope> {
        self.carried.priority = checks::priority(priority).map_err(SubmitError::Invalid)?;
        Ok(self)
    }

    /// The same envelope with the submission's concurrency key and limit,
    /// which every run it makes carries.
    pub fn with_concurrency(mut self, concurrency: Option<Concurrency>) -> SubmitResult<Envelope> {
        if let Some(concurrency) = &concurrency {
            concurrency.check().map_err(SubmitError::Invalid)?;
        }
        self.carried.concurrency = concurrency;
        Ok(self)
    }

    /// The idempotency key of a submission within `scope` standing for
    /// `parts`; a priority and a concurrency key join them only when given,
    /// so that keys stored before either existed still match their requests.
    fn key(&self, scope: &str, parts: &[&str]) -> Option<IdempotencyKey> {
        let priority = format!("priority={}", self.carried.priority);
        let concurrency = self.carried.concurrency.as_ref().map(|c| format!("concurrency={}/{}", c.limit, c.key));
        let mut parts = parts.to_vec();
        if self.carried.priority != 0 {
            parts.push(&priority);
        }
        parts.extend(concurrency.as_deref());
        // Each owner's keys are its own, so that one owner's key never
        // answers with another's work (the first admin's keep their scope).
        let scope = match self.carried.owner.as_str() {
            crate::domain::access::FIRST_ADMIN => scope.to_string(),
            owner => format!("{scope}@{owner}"),
        };
        self.keyed.key(&scope, &parts)
    }
}

/// What the runs of a submission carry: the trace it gave (if valid), or a
/// new one.
fn carried(traceparent: Option<&str>) -> Carried {
    Carried { traceparent: Some(crate::otel::traceparent_or_new(traceparent)), ..Carried::default() }
}

/// The door: a store to write through, the server's settings, and whom to
/// tell when something was written. Cheap to clone.
#[derive(Clone)]
pub struct Door {
    store: Arc<dyn Store>,
    config: Arc<SubmitConfig>,
    /// Called after every submission that wrote something: wakes this
    /// process's workers and event hub.
    written: Arc<dyn Fn() + Send + Sync>,
    /// The owners' quotas, read at most once a second.
    quotas: Arc<QuotaBook>,
    /// Owners' queued runs as last counted.
    tally: Arc<tally::QueueTally>,
}

impl Door {
    /// A door writing through `store`, calling `written` after each write.
    pub fn new(store: Arc<dyn Store>, config: SubmitConfig, written: Arc<dyn Fn() + Send + Sync>) -> Door {
        Door { store, config: Arc::new(config), written, quotas: Arc::default(), tally: Arc::default() }
    }

    /// The quotas the door holds submissions to; forgotten by whoever sets
    /// one, so that it holds from the next submission on.
    pub fn quotas(&self) -> &QuotaBook {
        &self.quotas
    }

    /// Refuses a submission that would queue `adding` runs of `owner` past
    /// its `max_queued_runs`. Checked before the write, against a count at
    /// most a quarter of a second old plus what this door queued since
    /// ([`tally`]), and counted afresh whenever that comes near the limit:
    /// submissions made at the same instant (on this server, or on others
    /// within the quarter second) may each pass with one place left, so a
    /// quota is held to within the submissions in flight, not to the run.
    async fn check_queue_room(&self, owner: &str, adding: u64) -> SubmitResult<()> {
        let quota = self.quotas.of(&*self.store, owner).await?;
        let Some(limit) = quota.max_queued_runs else { return Ok(()) };
        if self.tally.admits(owner, adding, limit) {
            return Ok(());
        }
        let queued = self.store.count_queued(owner).await?;
        let refusal = quota.queue_refusal(owner, queued, adding);
        self.tally.counted(owner, if refusal.is_none() { queued + adding } else { queued });
        match refusal {
            None => Ok(()),
            Some(QueueRefusal::Full(message)) => Err(SubmitError::OverQuota(message)),
            Some(QueueRefusal::NeverFits(message)) => Err(SubmitError::Refused(message)),
        }
    }

    /// The server's settings the door checks submissions against.
    pub fn config(&self) -> &SubmitConfig {
        &self.config
    }

    fn written(&self) {
        (self.written)()
    }
}
