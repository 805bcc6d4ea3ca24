//! The audit log in PostgreSQL (`audit_log`), as on SQLite: one row per
//! change, each keeping its entry whole, paged by ID from the newest.

use sqlx::{PgConnection, PgPool};

use crate::domain::audit::AuditEntry;
use crate::store::rows::{self, ms};
use crate::store::{AuditFilter, StoreResult};

/// Inserts the entries' rows in one statement, each unless its ID is
/// taken (the same entry, written again).
pub async fn record(c: &mut PgConnection, entries: &[AuditEntry]) -> StoreResult<()> {
    let mut columns: (Vec<&str>, Vec<&str>, Vec<i64>, Vec<String>) = Default::default();
    for entry in entries {
        columns.0.push(&entry.id);
        columns.1.push(&entry.by.owner);
        columns.2.push(ms(entry.at));
        columns.3.push(serde_json::to_string(entry)?);
    }
    sqlx::query(
        "INSERT INTO audit_log (id, owner, at, body)
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::text[]) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&columns.0)
    .bind(&columns.1)
    .bind(&columns.2)
    .bind(&columns.3)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Rows by descending ID, narrowed to an owner's and below a cursor.
pub async fn list(pool: &PgPool, filter: &AuditFilter) -> StoreResult<Vec<AuditEntry>> {
    let found = sqlx::query(&format!(
        "SELECT body FROM audit_log WHERE {} AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
        rows::owned_by(&filter.owner, "owner", "$1::text")
    ))
    .bind(&filter.owner)
    .bind(&filter.after)
    .bind(filter.limit as i64)
    .fetch_all(pool)
    .await?;
    found.iter().map(rows::body).collect()
}
