//! A throw-away database on a PostgreSQL server, so that a benchmark or a
//! test starts from an empty queue, runs beside others, and leaves nothing
//! behind.

use sqlx::Connection;

/// A database created for one benchmark or test.
pub struct ScratchDatabase {
    pub url: String,
    pub name: String,
    server: String,
}

impl ScratchDatabase {
    /// Creates `<prefix>_<id>` on the server `server` names.
    pub async fn create(server: &str, prefix: &str) -> anyhow::Result<ScratchDatabase> {
        let name = format!("{prefix}_{}", crate::domain::model::new_id().to_lowercase());
        let mut conn = sqlx::PgConnection::connect(server).await?;
        sqlx::raw_sql(&format!("CREATE DATABASE {name}")).execute(&mut conn).await?;
        conn.close().await?;
        let mut url = url::Url::parse(server)?;
        url.set_path(&format!("/{name}"));
        Ok(ScratchDatabase { url: url.to_string(), name, server: server.to_string() })
    }

    /// Drops the database (and whatever connections are still open to it).
    pub async fn drop_it(self) -> anyhow::Result<()> {
        let mut conn = sqlx::PgConnection::connect(&self.server).await?;
        sqlx::raw_sql(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name)).execute(&mut conn).await?;
        conn.close().await?;
        Ok(())
    }
}
