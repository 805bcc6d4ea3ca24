//! A fresh PostgreSQL database per test, created on the server that
//! `WINGMAN_TEST_POSTGRES_URL` names and dropped when the test ends, so that
//! tests run in parallel without seeing each other's rows.
#![allow(dead_code)]

use sqlx::Connection;

/// The server tests may create databases on, when one is configured.
pub fn postgres_url() -> Option<String> {
    std::env::var("WINGMAN_TEST_POSTGRES_URL").ok().filter(|u| !u.trim().is_empty())
}

/// A database of its own for one test; dropped with it.
pub struct PgDatabase {
    pub url: String,
    server: String,
    name: String,
}

impl PgDatabase {
    /// Creates a uniquely named database on the configured server.
    pub fn create() -> PgDatabase {
        let server = postgres_url().expect("WINGMAN_TEST_POSTGRES_URL is set");
        let name = format!("wingman_test_{}", ulid::Ulid::new().to_string().to_lowercase());
        admin(&server, format!("CREATE DATABASE {name}"));
        let mut url = url::Url::parse(&server).expect("WINGMAN_TEST_POSTGRES_URL is a URL");
        url.set_path(&format!("/{name}"));
        PgDatabase { url: url.to_string(), server, name }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        admin(&self.server, format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// Runs one statement on the server's own database, from a thread of its
/// own (callers may be inside an async runtime or not).
fn admin(server: &str, sql: String) {
    let server = server.to_string();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let mut conn = sqlx::PgConnection::connect(&server).await.expect("connect to WINGMAN_TEST_POSTGRES_URL");
            sqlx::raw_sql(&sql).execute(&mut conn).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        })
    })
    .join()
    .expect("the database statement ran");
}
