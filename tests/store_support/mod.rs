//! What the store conformance suites share: the macro that runs each test
//! on every backend, a fresh store of each, and small builders of agents,
//! sessions, runs, workers and commits.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};
use wingman::domain::checkpoint::{Checkpoint, CheckpointBody};
use wingman::domain::event::RunEvent;
use wingman::domain::model::{new_id, Agent, Message, RunInput, RunKind, RunStatus, Session, Usage};
use wingman::store::{self, Commit, Finish, NewRun, Store};

pub const LEASE: Duration = Duration::from_millis(300);
/// The lease of a [`patient_worker`].
pub const PATIENT_LEASE: Duration = Duration::from_secs(600);

#[path = "../pg_support/mod.rs"]
pub mod pg_support;

/// Defines each store test once and runs it on every backend: a module per
/// test with a `sqlite` and a `postgres` test function, each on a fresh
/// store of its backend, so that one backend's failure hides nothing of the
/// other's and either runs alone (`cargo test --test store -- ::postgres`).
/// The attributes written above a test (its `#[tokio::test(…)]`, its doc)
/// go on both functions. The `postgres` one skips with a message unless
/// `WINGMAN_TEST_POSTGRES_URL` is set, and fails instead under
/// `WINGMAN_TEST_POSTGRES=required`.
#[macro_export]
macro_rules! store_tests {
    ($($(#[$attr:meta])* async fn $name:ident($store:ident, $guard:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body(
                $store: std::sync::Arc<dyn wingman::store::Store>,
                $guard: $crate::store_support::Guard,
            ) $body

            $(#[$attr])*
            async fn sqlite() {
                let (store, guard) = $crate::store_support::open_sqlite().await;
                body(store, guard).await
            }

            $(#[$attr])*
            async fn postgres() {
                let Some((store, guard)) = $crate::store_support::open_postgres().await else { return };
                body(store, guard).await
            }
        }
    )*};
}

/// What a store under test lives in: a directory (the SQLite file, and the
/// runs' work dirs), and for PostgreSQL a database of its own, dropped with it.
pub struct Guard {
    dir: tempfile::TempDir,
    url: String,
    _database: Option<pg_support::PgDatabase>,
}

impl Guard {
    /// The test's directory: the SQLite file's, and the runs' work dirs'.
    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// The database's URL, to open it a second time as another process would.
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// A store on a fresh SQLite file.
pub async fn open_sqlite() -> (Arc<dyn Store>, Guard) {
    let dir = tempfile::tempdir().unwrap();
    let url = dir.path().join("t.db").to_string_lossy().into_owned();
    let store = store::open(&url, &store::StoreOptions::default()).await.unwrap();
    (store, Guard { dir, url, _database: None })
}

/// A store on a fresh PostgreSQL database, or `None` once the test has said
/// it is skipped (see [`pg_support::postgres_url_or_skip`]).
pub async fn open_postgres() -> Option<(Arc<dyn Store>, Guard)> {
    pg_support::postgres_url_or_skip()?;
    let database = pg_support::PgDatabase::create();
    let store = store::open(&database.url, &store::StoreOptions::default()).await.unwrap();
    let url = database.url.clone();
    Some((store, Guard { dir: tempfile::tempdir().unwrap(), url, _database: Some(database) }))
}

pub fn agent(options: Value, max_steps: u32) -> Agent {
    let now = Utc::now();
    Agent {
        id: new_id(),
        name: "a".into(),
        owner: wingman::domain::model::first_admin(),
        shared: false,
        provider: "scripted".into(),
        model: "echo".into(),
        options: options.as_object().cloned().unwrap_or_default(),
        instructions: None,
        tools: vec!["bash".into()],
        output_schema: None,
        max_steps,
        guards: Default::default(),
        approve_tools: Vec::new(),
        http_tools: Vec::new(),
        client_tools: Vec::new(),
        mcp_servers: Vec::new(),
        reasoning: Default::default(),
        reasoning_byte_limit: wingman::domain::model::DEFAULT_REASONING_BYTE_LIMIT,
        compaction: Default::default(),
        subagents: Vec::new(),
        max_depth: wingman::domain::subagent::DEFAULT_MAX_DEPTH,
        webhook: None,
        concurrency: None,
        limits: None,
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

/// A new session working in `dir`, not yet stored, answered by `agent_id`.
pub fn new_session(dir: &std::path::Path, agent_id: Option<&str>) -> Session {
    let now = Utc::now();
    Session {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        agent_id: agent_id.map(str::to_string),
        title: None,
        work_dir: dir.to_string_lossy().into_owned(),
        metadata: json!({}),
        added_tools: Default::default(),
        forked_from: None,
        created_at: now,
        updated_at: now,
    }
}

pub async fn session(store: &Arc<dyn Store>, dir: &std::path::Path) -> String {
    let s = new_session(dir, None);
    store.insert_session(&s).await.unwrap();
    s.id
}

pub async fn enqueue(store: &Arc<dyn Store>, session_id: &str, agent: &Agent, message: &str) -> String {
    enqueue_at(store, session_id, agent, message, 0).await
}

/// Enqueues a message's run at `priority`.
pub async fn enqueue_at(
    store: &Arc<dyn Store>,
    session_id: &str,
    agent: &Agent,
    message: &str,
    priority: i8,
) -> String {
    let carried = wingman::domain::model::Carried { priority, ..Default::default() };
    enqueue_carrying(store, session_id, agent, message, carried).await
}

/// Enqueues a message's run under concurrency key `key` with `limit`.
pub async fn enqueue_keyed(store: &Arc<dyn Store>, session_id: &str, agent: &Agent, key: &str, limit: u32) -> String {
    let concurrency = Some(wingman::domain::model::Concurrency { key: key.into(), limit });
    let carried = wingman::domain::model::Carried { concurrency, ..Default::default() };
    enqueue_carrying(store, session_id, agent, key, carried).await
}

/// Enqueues a message's run of `owner`, under concurrency key `key` (limit 1) if given.
pub async fn enqueue_owned(
    store: &Arc<dyn Store>,
    session_id: &str,
    agent: &Agent,
    owner: &str,
    key: Option<&str>,
) -> String {
    let concurrency = key.map(|key| wingman::domain::model::Concurrency { key: key.into(), limit: 1 });
    let carried = wingman::domain::model::Carried { owner: owner.into(), concurrency, ..Default::default() };
    enqueue_carrying(store, session_id, agent, "owned", carried).await
}

async fn enqueue_carrying(
    store: &Arc<dyn Store>,
    session_id: &str,
    agent: &Agent,
    message: &str,
    carried: wingman::domain::model::Carried,
) -> String {
    let run = NewRun {
        id: new_id(),
        kind: RunKind::Message,
        session_id: Some(session_id.into()),
        agent: agent.clone(),
        input: RunInput { message: message.into(), ..RunInput::new("", carried) },
        work_dir: std::env::temp_dir().to_string_lossy().into_owned(),
        max_attempts: 2,
        strategy: Default::default(),
        from_past: None,
    };
    store.enqueue_run(run, None).await.unwrap().run.id
}

pub async fn worker(store: &Arc<dyn Store>) -> String {
    let id = new_id();
    store.register_worker(&id, "test", LEASE).await.unwrap();
    id
}

/// A worker whose lease no test outlives, for the tests that time only
/// another worker's lapse: a loaded machine cannot let this one lapse too.
pub async fn patient_worker(store: &Arc<dyn Store>) -> String {
    let id = new_id();
    store.register_worker(&id, "test", PATIENT_LEASE).await.unwrap();
    id
}

pub fn text_commit(step: u32, text: &str, finish: bool) -> Commit {
    Commit {
        checkpoints: vec![Checkpoint {
            step,
            body: CheckpointBody::Inference {
                message: Message {
                    role: wingman::domain::model::Role::Assistant,
                    content: vec![wingman::domain::model::Content::Text { text: text.into() }],
                },
                usage: Usage { input_tokens: 1, output_tokens: 1, ..Default::default() },
                stop_reason: "end_turn".into(),
            },
        }],
        events: vec![RunEvent::StepCompleted { step, usage: Usage::default(), stop_reason: "end_turn".into() }],
        finish: finish.then_some(Finish { status: RunStatus::Succeeded, error: None, summary: None }),
        ..Default::default()
    }
}

pub fn seqs(events: &[wingman::domain::model::Event]) -> Vec<u64> {
    events.iter().map(|e| e.seq).collect()
}

/// A schedule of a message every second, its next tick `next_in` from now.
pub fn schedule(next_in: chrono::Duration) -> wingman::domain::schedule::Schedule {
    use chrono::DurationRound;
    use wingman::domain::schedule::{Overlap, Schedule, Target};
    let now = Utc::now().duration_trunc(chrono::Duration::milliseconds(1)).unwrap();
    Schedule {
        id: new_id(),
        owner: wingman::domain::model::first_admin(),
        name: "every second".into(),
        cron: None,
        every: Some("1s".into()),
        timezone: None,
        target: Target::Message { session_id: "s".into(), agent_id: None, message: "tick".into() },
        overlap: Overlap::Skip,
        priority: 0,
        concurrency: None,
        paused: false,
        paused_reason: None,
        next_tick_at: Some(now + next_in),
        last_tick_at: None,
        version: 1,
        created_at: now,
        updated_at: now,
    }
}

/// The person a test's cancels and steers are made by: the first admin.
pub fn admin() -> wingman::domain::access::By {
    wingman::domain::access::Caller::first_admin().by()
}

/// The single number `sql` answers, read on a connection of its own to the
/// store's database: what the store holds beneath its contract (how many
/// rows of a table), as a second process would see it.
pub async fn count(guard: &Guard, sql: &str) -> i64 {
    if guard.url().starts_with("postgres") {
        use sqlx::Connection;
        let mut c = sqlx::PgConnection::connect(guard.url()).await.unwrap();
        sqlx::query_scalar(sql).fetch_one(&mut c).await.unwrap()
    } else {
        let c = rusqlite::Connection::open(guard.url()).unwrap();
        c.query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

/// Runs `statements` on a connection of their own to the store's database,
/// as a second process would: to put rows in a shape an older version
/// wrote.
pub async fn execute(guard: &Guard, statements: &str) {
    if guard.url().starts_with("postgres") {
        use sqlx::Connection;
        let mut c = sqlx::PgConnection::connect(guard.url()).await.unwrap();
        sqlx::raw_sql(statements).execute(&mut c).await.unwrap();
    } else {
        let c = rusqlite::Connection::open(guard.url()).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
        c.execute_batch(statements).unwrap();
    }
}
