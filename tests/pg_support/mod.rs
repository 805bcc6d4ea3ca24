//! A fresh PostgreSQL database per test, created on the server that
//! `WINGMAN_TEST_POSTGRES_URL` names and dropped when the test ends, so that
//! tests run in parallel without seeing each other's rows.
#![allow(dead_code)]

use wingman::store::ScratchDatabase;

/// The server tests may create databases on, when one is configured.
pub fn postgres_url() -> Option<String> {
    std::env::var("WINGMAN_TEST_POSTGRES_URL").ok().filter(|u| !u.trim().is_empty())
}

/// A database of its own for one test; dropped with it.
pub struct PgDatabase {
    pub url: String,
    scratch: Option<ScratchDatabase>,
}

impl PgDatabase {
    /// Creates a uniquely named database on the configured server.
    pub fn create() -> PgDatabase {
        let server = postgres_url().expect("WINGMAN_TEST_POSTGRES_URL is set");
        let scratch = on_own_runtime(move || async move { ScratchDatabase::create(&server, "wingman_test").await })
            .expect("create a database on WINGMAN_TEST_POSTGRES_URL");
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
