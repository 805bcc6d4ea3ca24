//! A database of the benchmark's own on a PostgreSQL server, so that a
//! benchmark starts from an empty queue and leaves nothing behind.

use sqlx::Connection;

/// A database created for one benchmark.
pub struct BenchDatabase {
    pub url: String,
    pub name: String,
    server: String,
}

impl BenchDatabase {
    /// Creates `wingman_bench_<id>` on the server `server` names.
    pub async fn create(server: &str) -> anyhow::Result<BenchDatabase> {
        let name = format!("wingman_bench_{}", crate::model::new_id().to_lowercase());
        let mut conn = sqlx::PgConnection::connect(server).await?;
        sqlx::raw_sql(&format!("CREATE DATABASE {name}")).execute(&mut conn).await?;
        conn.close().await?;
        let mut url = url::Url::parse(server)?;
        url.set_path(&format!("/{name}"));
        Ok(BenchDatabase { url: url.to_string(), name, server: server.to_string() })
    }

    /// Drops the database (and whatever connections are still open to it).
    pub async fn drop_it(self) -> anyhow::Result<()> {
        let mut conn = sqlx::PgConnection::connect(&self.server).await?;
        sqlx::raw_sql(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(&mut conn).await?;
        conn.close().await?;
        Ok(())
    }
}
