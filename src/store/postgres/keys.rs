//! API keys in PostgreSQL (`api_keys`): written in the store's
//! transactions and stamped by the database's clock, so that every host
//! agrees on when a key was made, revoked or expires.

use sqlx::{PgConnection, PgPool};

use crate::domain::access::{ApiKeyInfo, NewApiKey};
use crate::store::key_rows::{self, COLUMNS};
use crate::store::rows::ms;
use crate::store::{StoreError, StoreResult};

/// Inserts the key's row, stamped by the database's clock.
pub async fn insert(c: &mut PgConnection, key: &NewApiKey) -> StoreResult<ApiKeyInfo> {
    let row = sqlx::query(&format!(
        "INSERT INTO api_keys (id, owner, role, name, digest, hint, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, wingman_ms(), $7) RETURNING {COLUMNS}"
    ))
    .bind(&key.id)
    .bind(&key.owner)
    .bind(key.role.as_str())
    .bind(&key.name)
    .bind(key_rows::hex(&key.digest))
    .bind(&key.hint)
    .bind(key.expires_at.map(ms))
    .fetch_one(&mut *c)
    .await?;
    key_rows::key(&row)
}

/// Looks the row up by its unique digest, on the pool.
pub async fn find(pool: &PgPool, digest: &[u8; 32]) -> StoreResult<Option<ApiKeyInfo>> {
    let row = sqlx::query(&format!("SELECT {COLUMNS} FROM api_keys WHERE digest = $1"))
        .bind(key_rows::hex(digest))
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(key_rows::key).transpose()
}

/// Every row, by `created_at` then `id`, both descending.
pub async fn list(pool: &PgPool) -> StoreResult<Vec<ApiKeyInfo>> {
    let rows = sqlx::query(&format!("SELECT {COLUMNS} FROM api_keys ORDER BY created_at DESC, id DESC"))
        .fetch_all(pool)
        .await?;
    rows.iter().map(key_rows::key).collect()
}

/// Sets `revoked_at` to the database's now unless it is set already.
pub async fn revoke(c: &mut PgConnection, id: &str) -> StoreResult<ApiKeyInfo> {
    let row = sqlx::query(&format!(
        "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, wingman_ms()) WHERE id = $1 RETURNING {COLUMNS}"
    ))
    .bind(id)
    .fetch_optional(&mut *c)
    .await?;
    row.as_ref().map(key_rows::key).transpose()?.ok_or(StoreError::NotFound("key"))
}

/// Whether a row is neither revoked nor past its `expires_at`, by the database's clock.
pub async fn any_live(pool: &PgPool) -> StoreResult<bool> {
    let live = sqlx::query_scalar(
        "SELECT EXISTS(SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > wingman_ms()))",
    )
    .fetch_one(pool)
    .await?;
    Ok(live)
}
