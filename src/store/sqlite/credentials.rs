//! Provider credentials in SQLite. Keys are written through the group-commit
//! writer like everything else and read through the pool; only
//! `get_credential` ever reads the key column.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::Row;

use super::rows::{at, ms};
use crate::credential::{ApiKey, CredentialInfo};
use crate::store::{StoreError, StoreResult};

/// Inserts or replaces a key, keeping its first `created_at`.
pub fn put(conn: &Connection, name: &str, key: &ApiKey, now: DateTime<Utc>) -> StoreResult<CredentialInfo> {
    let created_at: i64 = conn
        .prepare_cached(
            "INSERT INTO credentials (provider, api_key, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT (provider) DO UPDATE SET api_key = excluded.api_key, updated_at = excluded.updated_at
             RETURNING created_at",
        )?
        .query_row(params![name, key.expose(), ms(now)], |r| r.get(0))?;
    // Timestamps are stored in milliseconds; answer with what a later read will show.
    Ok(CredentialInfo {
        provider: name.to_string(),
        hint: key.hint(),
        created_at: at(created_at),
        updated_at: at(ms(now)),
    })
}

/// The key stored under a name.
pub async fn get(reads: &SqlitePool, name: &str) -> StoreResult<Option<ApiKey>> {
    let key: Option<String> = sqlx::query_scalar("SELECT api_key FROM credentials WHERE provider = ?")
        .bind(name)
        .fetch_optional(reads)
        .await?;
    Ok(key.map(ApiKey::new))
}

/// Every credential, without its key (the hint is computed from it here).
pub async fn list(reads: &SqlitePool) -> StoreResult<Vec<CredentialInfo>> {
    let found = sqlx::query("SELECT provider, api_key, created_at, updated_at FROM credentials ORDER BY provider")
        .fetch_all(reads)
        .await?;
    found.iter().map(info).collect()
}

fn info(row: &SqliteRow) -> StoreResult<CredentialInfo> {
    let key = ApiKey::new(row.try_get::<String, _>("api_key")?);
    Ok(CredentialInfo {
        provider: row.try_get("provider")?,
        hint: key.hint(),
        created_at: at(row.try_get("created_at")?),
        updated_at: at(row.try_get("updated_at")?),
    })
}

/// Deletes a credential.
pub fn delete(conn: &Connection, name: &str) -> StoreResult<()> {
    let deleted = conn.prepare_cached("DELETE FROM credentials WHERE provider = ?1")?.execute([name])?;
    if deleted == 0 {
        return Err(StoreError::NotFound("credential"));
    }
    Ok(())
}
