//! Provider credentials in SQLite. Keys are written through the group-commit
//! writer like everything else and read through the pool; only
//! `get_credential` ever reads the key column.

use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnection, SqlitePool, SqliteRow};
use sqlx::Row;

use super::rows::{at, ms};
use crate::provider::auth::{ApiKey, CredentialInfo};
use crate::store::{StoreError, StoreResult};

/// Inserts or replaces a key, keeping its first `created_at`.
pub async fn put(
    conn: &mut SqliteConnection,
    name: &str,
    key: &ApiKey,
    now: DateTime<Utc>,
) -> StoreResult<CredentialInfo> {
    let row = sqlx::query(
        "INSERT INTO credentials (provider, api_key, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
         ON CONFLICT (provider) DO UPDATE SET api_key = excluded.api_key, updated_at = excluded.updated_at
         RETURNING created_at",
    )
    .bind(name)
    .bind(key.expose())
    .bind(ms(now))
    .fetch_one(&mut *conn)
    .await?;
    // Timestamps are stored in milliseconds; answer with what a later read will show.
    Ok(CredentialInfo {
        provider: name.to_string(),
        hint: key.hint(),
        created_at: at(row.try_get(0)?),
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
pub async fn delete(conn: &mut SqliteConnection, name: &str) -> StoreResult<()> {
    let done = sqlx::query("DELETE FROM credentials WHERE provider = ?").bind(name).execute(&mut *conn).await?;
    if done.rows_affected() == 0 {
        return Err(StoreError::NotFound("credential"));
    }
    Ok(())
}
