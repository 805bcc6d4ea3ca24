//! The sealed tables in PostgreSQL: provider keys and secrets. Writes run in
//! the store's transactions, stamped by the database's clock; a value leaves
//! the database only for the worker lookups (`get_credential`,
//! `get_secrets`), and for a credential list's hints.

use sqlx::{PgConnection, PgPool};

use super::found;
use crate::domain::credential::{ApiKey, CredentialInfo};
use crate::domain::secret::{Secret, SecretInfo};
use crate::store::rows::at;
use crate::store::sealed::SealedTable;
use crate::store::StoreResult;

/// Writes `value` under `name`, a new row or over the old value, whose row
/// keeps its `created_at`. Answers (created_at, updated_at) as stored.
async fn upsert(
    c: &mut PgConnection,
    table: SealedTable,
    name: &str,
    value: &str,
) -> StoreResult<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)> {
    let (t, k, v) = (table.name(), table.key(), table.value());
    let sql = format!(
        "INSERT INTO {t} ({k}, {v}, created_at, updated_at) VALUES ($1, $2, wingman_ms(), wingman_ms())
         ON CONFLICT ({k}) DO UPDATE SET {v} = excluded.{v}, updated_at = excluded.updated_at
         RETURNING created_at, updated_at"
    );
    let (created_at, updated_at): (i64, i64) = sqlx::query_as(&sql).bind(name).bind(value).fetch_one(&mut *c).await?;
    Ok((at(created_at), at(updated_at)))
}

/// Removes `name`'s row from `table`: not found when there was none.
pub async fn delete(c: &mut PgConnection, table: SealedTable, name: &str) -> StoreResult<()> {
    let sql = format!("DELETE FROM {} WHERE {} = $1", table.name(), table.key());
    let deleted = sqlx::query(&sql).bind(name).execute(&mut *c).await?;
    found(deleted.rows_affected(), table.what())
}

/// Inserts or replaces a key, keeping its first `created_at`.
pub async fn put_credential(c: &mut PgConnection, name: &str, key: &ApiKey) -> StoreResult<CredentialInfo> {
    let (created_at, updated_at) = upsert(c, SealedTable::Credentials, name, key.expose()).await?;
    Ok(CredentialInfo { provider: name.to_string(), hint: key.hint(), created_at, updated_at })
}

/// A credential's key, read straight from the pool.
pub async fn get_credential(pool: &PgPool, name: &str) -> StoreResult<Option<ApiKey>> {
    let key: Option<String> = sqlx::query_scalar("SELECT api_key FROM credentials WHERE provider = $1")
        .bind(name)
        .fetch_optional(pool)
        .await?;
    Ok(key.map(ApiKey::new))
}

/// Every credential, without its key (the hint is computed from it here).
pub async fn list_credentials(pool: &PgPool) -> StoreResult<Vec<CredentialInfo>> {
    let found: Vec<(String, String, i64, i64)> =
        sqlx::query_as("SELECT provider, api_key, created_at, updated_at FROM credentials ORDER BY provider")
            .fetch_all(pool)
            .await?;
    Ok(found
        .into_iter()
        .map(|(provider, key, created, updated)| CredentialInfo {
            provider,
            hint: ApiKey::new(key).hint(),
            created_at: at(created),
            updated_at: at(updated),
        })
        .collect())
}

/// Inserts or replaces a secret's value.
pub async fn put_secret(c: &mut PgConnection, name: &str, value: &Secret) -> StoreResult<SecretInfo> {
    let (created_at, updated_at) = upsert(c, SealedTable::Secrets, name, value.expose()).await?;
    Ok(SecretInfo { name: name.to_string(), created_at, updated_at })
}

/// The values of the stored ones of `names`, bound as one text array.
/// Names sort by their bytes (`COLLATE "C"`), as SQLite sorts them, whatever
/// the database's own collation.
pub async fn get_secrets(pool: &PgPool, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
    let found: Vec<(String, String)> =
        sqlx::query_as(r#"SELECT name, value FROM secrets WHERE name = ANY($1) ORDER BY name COLLATE "C""#)
            .bind(names)
            .fetch_all(pool)
            .await?;
    Ok(found.into_iter().map(|(name, value)| (name, Secret::new(value))).collect())
}

/// Each secret's name and times, in the same byte order; values stay in the table.
pub async fn list_secrets(pool: &PgPool) -> StoreResult<Vec<SecretInfo>> {
    let found: Vec<(String, i64, i64)> =
        sqlx::query_as(r#"SELECT name, created_at, updated_at FROM secrets ORDER BY name COLLATE "C""#)
            .fetch_all(pool)
            .await?;
    Ok(found
        .into_iter()
        .map(|(name, created, updated)| SecretInfo { name, created_at: at(created), updated_at: at(updated) })
        .collect())
}
