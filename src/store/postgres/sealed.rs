//! The sealed tables in PostgreSQL: provider keys and secrets, each value
//! under its owner and name. Writes run in the store's transactions, stamped
//! by the database's clock; a value leaves the database only for the worker
//! lookups (`get_credential`, `get_secrets`), and for a credential list's hints.

use sqlx::{PgConnection, PgPool};

use super::found;
use crate::domain::credential::{ApiKey, CredentialInfo};
use crate::domain::model::FIRST_ADMIN;
use crate::domain::secret::{Secret, SecretInfo};
use crate::store::rows::at;
use crate::store::sealed::{self as shared, SealedTable};
use crate::store::StoreResult;

/// The order of a list of what a run of the owner bound to `$1` uses: by
/// name in byte order, the owner's own before the first admin's.
const OWN_FIRST: &str = r#"COLLATE "C", owner = $1 DESC"#;

/// Writes `owner`'s `value` under `name`, a new row or over the old value,
/// whose row keeps its `created_at`. Answers (created_at, updated_at) as stored.
async fn upsert(
    c: &mut PgConnection,
    table: SealedTable,
    owner: &str,
    name: &str,
    value: &str,
) -> StoreResult<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)> {
    let (t, k, v) = (table.name(), table.key(), table.value());
    let sql = format!(
        "INSERT INTO {t} (owner, {k}, {v}, created_at, updated_at) VALUES ($1, $2, $3, wingman_ms(), wingman_ms())
         ON CONFLICT (owner, {k}) DO UPDATE SET {v} = excluded.{v}, updated_at = excluded.updated_at
         RETURNING created_at, updated_at"
    );
    let query = sqlx::query_as(&sql).bind(owner).bind(name).bind(value);
    let (created_at, updated_at): (i64, i64) = query.fetch_one(&mut *c).await?;
    Ok((at(created_at), at(updated_at)))
}

/// Removes `owner`'s row of `name` from `table`: not found when there was none.
pub async fn delete(c: &mut PgConnection, table: SealedTable, owner: &str, name: &str) -> StoreResult<()> {
    let sql = format!("DELETE FROM {} WHERE owner = $1 AND {} = $2", table.name(), table.key());
    let deleted = sqlx::query(&sql).bind(owner).bind(name).execute(&mut *c).await?;
    found(deleted.rows_affected(), table.what())
}

/// Inserts or replaces `owner`'s key, keeping its first `created_at`.
pub async fn put_credential(
    c: &mut PgConnection,
    owner: &str,
    name: &str,
    key: &ApiKey,
) -> StoreResult<CredentialInfo> {
    let (created_at, updated_at) = upsert(c, SealedTable::Credentials, owner, name, key.expose()).await?;
    Ok(CredentialInfo::of(owner, name, key, created_at, updated_at))
}

/// The key a run of `owner` uses under a name (its owner's, else the first
/// admin's), read straight from the pool.
pub async fn get_credential(pool: &PgPool, owner: &str, name: &str) -> StoreResult<Option<ApiKey>> {
    let key: Option<String> = sqlx::query_scalar(
        "SELECT api_key FROM credentials WHERE provider = $1 AND owner IN ($2, $3) ORDER BY owner = $2 DESC LIMIT 1",
    )
    .bind(name)
    .bind(owner)
    .bind(FIRST_ADMIN)
    .fetch_optional(pool)
    .await?;
    Ok(key.map(ApiKey::new))
}

/// The credentials a run of `owner` uses, without their keys (the hint is
/// computed from each here).
pub async fn list_credentials(pool: &PgPool, owner: &str) -> StoreResult<Vec<CredentialInfo>> {
    let found: Vec<(String, String, String, i64, i64)> = sqlx::query_as(&format!(
        "SELECT owner, provider, api_key, created_at, updated_at FROM credentials WHERE owner IN ($1, $2)
         ORDER BY provider {OWN_FIRST}"
    ))
    .bind(owner)
    .bind(FIRST_ADMIN)
    .fetch_all(pool)
    .await?;
    let infos = found.into_iter().map(|(owner, provider, key, created, updated)| CredentialInfo {
        provider,
        owner,
        hint: ApiKey::new(key).hint(),
        created_at: at(created),
        updated_at: at(updated),
    });
    Ok(shared::first_of_each(infos.collect(), |c| c.provider.clone()))
}

/// Inserts or replaces `owner`'s value of a secret.
pub async fn put_secret(c: &mut PgConnection, owner: &str, name: &str, value: &Secret) -> StoreResult<SecretInfo> {
    let (created_at, updated_at) = upsert(c, SealedTable::Secrets, owner, name, value.expose()).await?;
    Ok(SecretInfo { name: name.to_string(), owner: owner.to_string(), created_at, updated_at })
}

/// The values a run of `owner` uses of `names` (its owner's, else the
/// first admin's), bound as one text array. Names sort by their bytes
/// (`COLLATE "C"`), as SQLite sorts them, whatever the database's collation.
pub async fn get_secrets(pool: &PgPool, owner: &str, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
    let found: Vec<(String, String)> = sqlx::query_as(
        r#"SELECT name, value FROM secrets WHERE name = ANY($1) AND owner IN ($2, $3)
           ORDER BY name COLLATE "C", owner = $2 DESC"#,
    )
    .bind(names)
    .bind(owner)
    .bind(FIRST_ADMIN)
    .fetch_all(pool)
    .await?;
    let found = found.into_iter().map(|(name, value)| (name, Secret::new(value))).collect();
    Ok(shared::first_of_each(found, |(name, _)| name.clone()))
}

/// The secrets a run of `owner` uses, names and times in the same byte
/// order; values stay in the table.
pub async fn list_secrets(pool: &PgPool, owner: &str) -> StoreResult<Vec<SecretInfo>> {
    let found: Vec<(String, String, i64, i64)> = sqlx::query_as(&format!(
        "SELECT owner, name, created_at, updated_at FROM secrets WHERE owner IN ($1, $2) ORDER BY name {OWN_FIRST}"
    ))
    .bind(owner)
    .bind(FIRST_ADMIN)
    .fetch_all(pool)
    .await?;
    let infos = found.into_iter().map(|(owner, name, created, updated)| SecretInfo {
        name,
        owner,
        created_at: at(created),
        updated_at: at(updated),
    });
    Ok(shared::first_of_each(infos.collect(), |s| s.name.clone()))
}
