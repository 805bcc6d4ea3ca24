//! Schema migrations, applied in order on first start and on every upgrade.

use anyhow::Context;
use rusqlite::Connection;

/// Every migration of the SQLite schema: (version, name, SQL).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "init", include_str!("../../../migrations/sqlite/0001_init.sql")),
    (2, "credentials", include_str!("../../../migrations/sqlite/0002_credentials.sql")),
    (3, "fleets", include_str!("../../../migrations/sqlite/0003_fleets.sql")),
    (4, "fleet_runs", include_str!("../../../migrations/sqlite/0004_fleet_runs.sql")),
    (5, "resume_facts", include_str!("../../../migrations/sqlite/0005_resume_facts.sql")),
    (6, "session_turns", include_str!("../../../migrations/sqlite/0006_session_turns.sql")),
    (7, "inbox", include_str!("../../../migrations/sqlite/0007_inbox.sql")),
    (8, "retention", include_str!("../../../migrations/sqlite/0008_retention.sql")),
    (9, "session_tools", include_str!("../../../migrations/sqlite/0009_session_tools.sql")),
    (10, "secrets", include_str!("../../../migrations/sqlite/0010_secrets.sql")),
    (11, "subagents", include_str!("../../../migrations/sqlite/0011_subagents.sql")),
    (12, "formations", include_str!("../../../migrations/sqlite/0012_formations.sql")),
    (13, "webhooks", include_str!("../../../migrations/sqlite/0013_webhooks.sql")),
    (14, "schedules", include_str!("../../../migrations/sqlite/0014_schedules.sql")),
    (15, "retention_everywhere", include_str!("../../../migrations/sqlite/0015_retention_everywhere.sql")),
    (16, "versions", include_str!("../../../migrations/sqlite/0016_versions.sql")),
    (17, "mcp_listings", include_str!("../../../migrations/sqlite/0017_mcp_listings.sql")),
    (18, "flow_control", include_str!("../../../migrations/sqlite/0018_flow_control.sql")),
    (19, "provider_budgets", include_str!("../../../migrations/sqlite/0019_provider_budgets.sql")),
    (20, "keyed_ready", include_str!("../../../migrations/sqlite/0020_keyed_ready.sql")),
    (21, "parked", include_str!("../../../migrations/sqlite/0021_parked.sql")),
    (22, "api_keys", include_str!("../../../migrations/sqlite/0022_api_keys.sql")),
    (23, "owners", include_str!("../../../migrations/sqlite/0023_owners.sql")),
    (24, "owned_sealed", include_str!("../../../migrations/sqlite/0024_owned_sealed.sql")),
    (25, "quotas", include_str!("../../../migrations/sqlite/0025_quotas.sql")),
    (26, "audit", include_str!("../../../migrations/sqlite/0026_audit.sql")),
    (27, "branches", include_str!("../../../migrations/sqlite/0027_branches.sql")),
    (28, "event_rows", include_str!("../../../migrations/sqlite/0028_event_rows.sql")),
    (29, "agent_snapshots", include_str!("../../../migrations/sqlite/0029_agent_snapshots.sql")),
    (30, "run_owner_column", include_str!("../../../migrations/sqlite/0030_run_owner_column.sql")),
];

/// Applies the migrations the database does not have yet, each in its own
/// transaction. Several processes may start at once: the write lock taken by
/// `BEGIN IMMEDIATE` makes them apply each migration once.
pub fn run(conn: &Connection) -> anyhow::Result<()> {
    apply_all(conn, MIGRATIONS)
}

/// Applies the migrations up to version `last` alone: a database as an
/// earlier release left it, for tests of the upgrade.
pub fn up_to(conn: &Connection, last: i64) -> anyhow::Result<()> {
    let upto = MIGRATIONS.iter().position(|(version, _, _)| *version > last).unwrap_or(MIGRATIONS.len());
    apply_all(conn, &MIGRATIONS[..upto])
}

fn apply_all(conn: &Connection, migrations: &[(i64, &str, &str)]) -> anyhow::Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS wingman_migrations (
             version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)",
    )?;
    for (version, name, sql) in migrations {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        match apply_once(conn, *version, name, sql) {
            Ok(()) => conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e).with_context(|| format!("migration {version} ({name}) failed"));
            }
        }
    }
    Ok(())
}

/// Applies one migration unless another process already did, inside the
/// caller's transaction.
fn apply_once(conn: &Connection, version: i64, name: &str, sql: &str) -> rusqlite::Result<()> {
    let applied: bool =
        conn.query_row("SELECT EXISTS(SELECT 1 FROM wingman_migrations WHERE version = ?1)", [version], |r| r.get(0))?;
    if applied {
        return Ok(());
    }
    conn.execute_batch(sql)?;
    conn.execute("INSERT INTO wingman_migrations (version, name) VALUES (?1, ?2)", (version, name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(conn: &Connection) -> Vec<i64> {
        let mut select = conn.prepare("SELECT version FROM wingman_migrations ORDER BY version").unwrap();
        select.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    }

    #[test]
    fn each_migration_is_applied_once_and_recorded() {
        let conn = Connection::open_in_memory().unwrap();
        run(&conn).unwrap();
        run(&conn).unwrap();
        let all: Vec<i64> = MIGRATIONS.iter().map(|(version, _, _)| *version).collect();
        assert_eq!(versions(&conn), all);
    }

    #[test]
    fn a_failing_migration_leaves_nothing_of_itself_and_keeps_the_earlier_ones() {
        let conn = Connection::open_in_memory().unwrap();
        let migrations =
            [(1, "a", "CREATE TABLE a (x)"), (2, "b", "CREATE TABLE b (x); INSERT INTO missing VALUES (1)")];
        let failed = apply_all(&conn, &migrations).unwrap_err();
        assert!(format!("{failed:#}").contains("migration 2 (b) failed"), "{failed:#}");
        assert_eq!(versions(&conn), vec![1]);
        let b: bool =
            conn.query_row("SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE name = 'b')", [], |r| r.get(0)).unwrap();
        assert!(!b, "the failed migration's table was rolled back");
    }
}
