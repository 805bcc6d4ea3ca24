//! How a PostgreSQL test behaves without a PostgreSQL server to run on: it
//! skips with a message, unless `WINGMAN_TEST_POSTGRES=required` (set by
//! `.ci/run`), where it fails; a configured server that cannot be reached
//! fails it either way. Checked on both ways tests are written, the store
//! suites' and the integration suites', by running this suite's own probe
//! tests again in a process of their own with the environment of each case.

mod common;
// Each harness carries its own copy of the PostgreSQL helpers; this suite
// checks both harnesses, so it holds both copies.
#[allow(clippy::duplicate_mod)]
mod store_support;

use std::process::Command;

use common::{Backend, TestEnv};
use wingman::store::{self, StoreOptions};

// The probes: a test of each kind, cheap, and true on either backend.

store_tests! {
    #[tokio::test]
    async fn a_fresh_store_has_an_empty_queue(store, _guard) {
        let stats = store.queue_stats().await.unwrap();
        assert_eq!((stats.queued, stats.running, stats.workers), (0, 0, 0));
    }
}

on_both_backends! {
    async fn a_fresh_installation_has_an_empty_queue(backend: Backend) {
        let env = TestEnv::on(backend);
        let store = store::open(&env.database_url(), &StoreOptions::default()).await.unwrap();
        let stats = store.queue_stats().await.unwrap();
        assert_eq!((stats.queued, stats.running, stats.workers), (0, 0, 0));
    }
}

/// The PostgreSQL probe of each kind, by its full test name.
const PROBES: [&str; 2] =
    ["a_fresh_store_has_an_empty_queue::postgres", "a_fresh_installation_has_an_empty_queue::postgres"];

/// Runs one probe alone in a process of its own, with `WINGMAN_TEST_POSTGRES`
/// and `WINGMAN_TEST_POSTGRES_URL` as given (unset when `None`); answers
/// whether it passed, and everything it printed.
fn probe(name: &str, required: Option<&str>, url: Option<&str>) -> (bool, String) {
    let mut command = Command::new(std::env::current_exe().expect("this suite's binary"));
    command.args(["--exact", name, "--nocapture", "--test-threads=1"]);
    for (key, value) in [("WINGMAN_TEST_POSTGRES", required), ("WINGMAN_TEST_POSTGRES_URL", url)] {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    let out = command.output().expect("run the probe");
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(printed.contains("1 passed") || printed.contains("1 failed"), "{name} did not run alone: {printed}");
    (out.status.success(), printed)
}

#[test]
fn a_postgres_test_without_a_server_skips_with_a_message() {
    for name in PROBES {
        let (passed, printed) = probe(name, None, None);
        assert!(passed, "{name}: {printed}");
        assert!(printed.contains("skipped: WINGMAN_TEST_POSTGRES_URL is not set"), "{name}: {printed}");
    }
}

#[test]
fn a_postgres_test_without_a_server_fails_when_postgres_is_required() {
    for name in PROBES {
        let (passed, printed) = probe(name, Some("required"), None);
        assert!(!passed, "{name} passed: {printed}");
        let why = "WINGMAN_TEST_POSTGRES=required but WINGMAN_TEST_POSTGRES_URL is not set";
        assert!(printed.contains(why), "{name}: {printed}");
    }
}

#[test]
fn a_postgres_test_whose_server_cannot_be_reached_fails() {
    // Port 1 on this machine: nothing listens there, the connection is refused at once.
    let unreachable = "postgres://postgres@127.0.0.1:1/test";
    for name in PROBES {
        for required in [None, Some("required")] {
            let (passed, printed) = probe(name, required, Some(unreachable));
            assert!(!passed, "{name}, {required:?}, passed: {printed}");
            assert!(printed.contains("cannot be reached"), "{name}, {required:?}: {printed}");
        }
    }
}
