//! Schema migrations for PostgreSQL, applied in order on start. Processes
//! starting together take turns on a session advisory lock, so each
//! migration is applied once.

use sqlx::postgres::PgPool;
use sqlx::Connection;

/// Every migration of the PostgreSQL schema: (version, name, SQL).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "init", include_str!("../../../migrations/postgres/0001_init.sql")),
    (2, "commit_order", include_str!("../../../migrations/postgres/0002_commit_order.sql")),
    (3, "session_turns", include_str!("../../../migrations/postgres/0003_session_turns.sql")),
    (4, "inbox", include_str!("../../../migrations/postgres/0004_inbox.sql")),
    (5, "retention", include_str!("../../../migrations/postgres/0005_retention.sql")),
    (6, "enqueue_in_one_call", include_str!("../../../migrations/postgres/0006_enqueue_in_one_call.sql")),
    (7, "event_keys", include_str!("../../../migrations/postgres/0007_event_keys.sql")),
    (8, "event_rows", include_str!("../../../migrations/postgres/0008_event_rows.sql")),
    (9, "history_rows", include_str!("../../../migrations/postgres/0009_history_rows.sql")),
    (10, "session_tools", include_str!("../../../migrations/postgres/0010_session_tools.sql")),
    (11, "secrets", include_str!("../../../migrations/postgres/0011_secrets.sql")),
    (12, "subagents", include_str!("../../../migrations/postgres/0012_subagents.sql")),
    (13, "formations", include_str!("../../../migrations/postgres/0013_formations.sql")),
    (14, "webhooks", include_str!("../../../migrations/postgres/0014_webhooks.sql")),
    (15, "schedules", include_str!("../../../migrations/postgres/0015_schedules.sql")),
    (16, "retention_everywhere", include_str!("../../../migrations/postgres/0016_retention_everywhere.sql")),
    (17, "versions", include_str!("../../../migrations/postgres/0017_versions.sql")),
    (18, "mcp_listings", include_str!("../../../migrations/postgres/0018_mcp_listings.sql")),
    (19, "flow_control", include_str!("../../../migrations/postgres/0019_flow_control.sql")),
    (20, "provider_budgets", include_str!("../../../migrations/postgres/0020_provider_budgets.sql")),
    (21, "keyed_ready", include_str!("../../../migrations/postgres/0021_keyed_ready.sql")),
    (22, "parked", include_str!("../../../migrations/postgres/0022_parked.sql")),
    (23, "api_keys", include_str!("../../../migrations/postgres/0023_api_keys.sql")),
    (24, "owners", include_str!("../../../migrations/postgres/0024_owners.sql")),
    (25, "owned_sealed", include_str!("../../../migrations/postgres/0025_owned_sealed.sql")),
    (26, "quotas", include_str!("../../../migrations/postgres/0026_quotas.sql")),
    (27, "audit", include_str!("../../../migrations/postgres/0027_audit.sql")),
    (28, "branches", include_str!("../../../migrations/postgres/0028_branches.sql")),
    (29, "agent_snapshots", include_str!("../../../migrations/postgres/0029_agent_snapshots.sql")),
    (30, "run_owner_column", include_str!("../../../migrations/postgres/0030_run_owner_column.sql")),
];

/// The key of the advisory lock migrations take.
const MIGRATION_LOCK: i64 = 0x5749_4e47_4d41_4e02;

/// Applies the migrations the database does not have yet, each in its own transaction.
pub async fn run(pool: &PgPool) -> anyhow::Result<()> {
    up_to(pool, i64::MAX).await
}

/// Applies the missing migrations numbered `last` or below: a database as
/// an earlier release left it, for the tests of an upgrade.
pub async fn up_to(pool: &PgPool, last: i64) -> anyhow::Result<()> {
    let mut conn = pool.acquire().await?;
    sqlx::query("SELECT pg_advisory_lock($1)").bind(MIGRATION_LOCK).execute(&mut *conn).await?;
    let outcome = apply_missing(&mut conn, last).await;
    sqlx::query("SELECT pg_advisory_unlock($1)").bind(MIGRATION_LOCK).execute(&mut *conn).await?;
    outcome
}

async fn apply_missing(conn: &mut sqlx::PgConnection, last: i64) -> anyhow::Result<()> {
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS wingman_migrations (
             version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
    )
    .execute(&mut *conn)
    .await?;
    for (version, name, sql) in MIGRATIONS.iter().take_while(|(version, _, _)| *version <= last) {
        let applied: bool = sqlx::query_scalar("SELECT EXISTS(SELECT 1 FROM wingman_migrations WHERE version = $1)")
            .bind(version)
            .fetch_one(&mut *conn)
            .await?;
        if applied {
            continue;
        }
        let mut tx = conn.begin().await?;
        sqlx::raw_sql(sql).execute(&mut *tx).await.map_err(|e| anyhow::anyhow!("migration {version} ({name}): {e}"))?;
        sqlx::query("INSERT INTO wingman_migrations (version, name) VALUES ($1, $2)")
            .bind(version)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
    }
    Ok(())
}
