//! A fresh PostgreSQL database per test, created on the server that
//! `WINGMAN_TEST_POSTGRES_URL` names and dropped when the test ends, so that
//! tests run in parallel without seeing each other's rows.
//!
//! Without that variable a PostgreSQL test skips with a message, unless
//! `WINGMAN_TEST_POSTGRES=required` (set by `.ci/run`), where it fails: a
//! run that must cover PostgreSQL cannot pass by skipping it. A server that
//! is configured but cannot be reached fails the test either way.
#![allow(dead_code)]

use wingman::store::ScratchDatabase;

/// The server tests may create databases on, when one is configured.
fn configured_url() -> Option<String> {
    std::env::var("WINGMAN_TEST_POSTGRES_URL").ok().filter(|u| !u.trim().is_empty())
}

/// Whether PostgreSQL's tests must run rather than skip:
/// `WINGMAN_TEST_POSTGRES=required`.
pub fn postgres_required() -> bool {
    std::env::var("WINGMAN_TEST_POSTGRES").is_ok_and(|v| v == "required")
}

/// The server a PostgreSQL test runs on, or `None` once it has said the test
/// is skipped. Fails the test instead when PostgreSQL is required.
pub fn postgres_url_or_skip() -> Option<String> {
    let url = configured_url();
    if url.is_none() {
        assert!(!postgres_required(), "WINGMAN_TEST_POSTGRES=required but WINGMAN_TEST_POSTGRES_URL is not set");
        eprintln!("skipped: WINGMAN_TEST_POSTGRES_URL is not set");
    }
    url
}

/// A database of its own for one test; dropped with it.
pub struct PgDatabase {
    pub url: String,
    scratch: Option<ScratchDatabase>,
}

impl PgDatabase {
    /// Creates a uniquely named database on the configured server.
    pub fn create() -> PgDatabase {
        let server = configured_url().expect("WINGMAN_TEST_POSTGRES_URL is set");
        let scratch = on_own_runtime(move || async move { ScratchDatabase::create(&server, "wingman_test").await })
            .unwrap_or_else(|e| {
                panic!("the PostgreSQL server of WINGMAN_TEST_POSTGRES_URL cannot be reached or refused a new database: {e:#}")
            });
        PgDatabase { url: scratch.url.clone(), scratch: Some(scratch) }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        if let Some(scratch) = self.scratch.take() {
            on_own_runtime(move || scratch.drop_it()).expect("drop the test's database");
        }
    }
}

/// Runs the future `work` makes to completion on a thread and runtime of
/// its own (callers may be inside an async runtime or not).
fn on_own_runtime<T, F>(work: impl FnOnce() -> F + Send + 'static) -> T
where
    T: Send + 'static,
    F: std::future::Future<Output = T>,
{
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(work())
    })
    .join()
    .expect("the database statement ran")
}
