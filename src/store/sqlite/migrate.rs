//! Schema migrations, applied in order on first start and on every upgrade.

use sqlx::sqlite::SqliteConnection;

/// Every migration of the SQLite schema: (version, name, SQL).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "init", include_str!("../../../migrations/sqlite/0001_init.sql")),
    (2, "credentials", include_str!("../../../migrations/sqlite/0002_credentials.sql")),
    (3, "fleets", include_str!("../../../migrations/sqlite/0003_fleets.sql")),
    (4, "fleet_runs", include_str!("../../../migrations/sqlite/0004_fleet_runs.sql")),
    (5, "resume_facts", include_str!("../../../migrations/sqlite/0005_resume_facts.sql")),
];

/// Applies the migrations the database does not have yet, each in its own
/// transaction. Several processes may start at once: the write lock taken by
/// `BEGIN IMMEDIATE` makes them apply each migration once.
pub async fn run(conn: &mut SqliteConnection) -> anyhow::Result<()> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS wingman_migrations (
             version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    )
    .execute(&mut *conn)
    .await?;
    for (version, name, sql) in MIGRATIONS {
        sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut *conn).await?;
        let applied: bool = sqlx::query_scalar("SELECT EXISTS(SELECT 1 FROM wingman_migrations WHERE version = ?)")
            .bind(version)
            .fetch_one(&mut *conn)
            .await?;
        let outcome = if applied { Ok(()) } else { apply(conn, *version, name, sql).await };
        match outcome {
            Ok(()) => sqlx::raw_sql("COMMIT").execute(&mut *conn).await.map(|_| ())?,
            Err(e) => {
                let _ = sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await;
                return Err(e.context(format!("migration {version} ({name}) failed")));
            }
        }
    }
    Ok(())
}

async fn apply(conn: &mut SqliteConnection, version: i64, name: &str, sql: &str) -> anyhow::Result<()> {
    sqlx::raw_sql(sql).execute(&mut *conn).await?;
    sqlx::query("INSERT INTO wingman_migrations (version, name) VALUES (?, ?)")
        .bind(version)
        .bind(name)
        .execute(&mut *conn)
        .await?;
    Ok(())
}
