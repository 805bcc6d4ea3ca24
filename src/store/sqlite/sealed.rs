//! Provider credentials and secrets in SQLite, the two sealed tables
//! ([`SealedTable`]), each value under its owner and name. Values are written
//! through the group-commit writer like everything else and read on a read
//! connection; only `get_credential` and `get_secrets` ever read a value
//! column (a credential list reads keys too, to make their hints, and
//! answers with nothing more of them).

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::rows::{self, at, ms};
use crate::domain::credential::{ApiKey, CredentialInfo};
use crate::domain::model::FIRST_ADMIN;
use crate::domain::secret::{Secret, SecretInfo};
use crate::store::sealed::{self as shared, SealedTable};
use crate::store::{StoreError, StoreResult};

/// Inserts or replaces `owner`'s value under `name` in `table`, keeping the
/// row's first `created_at`; answers the row's (created_at, updated_at).
fn upsert(
    conn: &Connection,
    table: SealedTable,
    owner: &str,
    name: &str,
    value: &str,
    now: DateTime<Utc>,
) -> StoreResult<(DateTime<Utc>, DateTime<Utc>)> {
    let (t, k, v) = (table.name(), table.key(), table.value());
    let sql = format!(
        "INSERT INTO {t} (owner, {k}, {v}, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT (owner, {k}) DO UPDATE SET {v} = excluded.{v}, updated_at = excluded.updated_at
         RETURNING created_at"
    );
    let created_at: i64 = conn.prepare_cached(&sql)?.query_row(params![owner, name, value, ms(now)], |r| r.get(0))?;
    // Timestamps are stored in milliseconds; answer with what a later read will show.
    Ok((at(created_at), at(ms(now))))
}

/// Deletes `owner`'s row of `name` from `table`.
pub fn delete(conn: &Connection, table: SealedTable, owner: &str, name: &str) -> StoreResult<()> {
    let sql = format!("DELETE FROM {} WHERE owner = ?1 AND {} = ?2", table.name(), table.key());
    if conn.prepare_cached(&sql)?.execute([owner, name])? == 0 {
        return Err(StoreError::NotFound(table.what()));
    }
    Ok(())
}

/// Upserts a credential row of `owner`.
pub fn put_credential(
    conn: &Connection,
    owner: &str,
    name: &str,
    key: &ApiKey,
    now: DateTime<Utc>,
) -> StoreResult<CredentialInfo> {
    let (created_at, updated_at) = upsert(conn, SealedTable::Credentials, owner, name, key.expose(), now)?;
    Ok(CredentialInfo::of(owner, name, key, created_at, updated_at))
}

/// The key a run of `owner` uses under a name: its owner's, else the first admin's.
pub fn get_credential(conn: &Connection, owner: &str, name: &str) -> StoreResult<Option<ApiKey>> {
    let sql =
        "SELECT api_key FROM credentials WHERE provider = ?1 AND owner IN (?2, ?3) ORDER BY owner = ?2 DESC LIMIT 1";
    rows::select_first(conn, sql, params![name, owner, FIRST_ADMIN], |row| Ok(ApiKey::new(row.get::<_, String>(0)?)))
}

/// The credentials a run of `owner` uses, by name; keys are read only to make their hints.
pub fn list_credentials(conn: &Connection, owner: &str) -> StoreResult<Vec<CredentialInfo>> {
    let sql = "SELECT owner, provider, api_key, created_at, updated_at FROM credentials WHERE owner IN (?1, ?2)
               ORDER BY provider, owner = ?1 DESC";
    let found = rows::select_all(conn, sql, params![owner, FIRST_ADMIN], |row| {
        let key = ApiKey::new(row.get::<_, String>("api_key")?);
        Ok(CredentialInfo {
            provider: row.get("provider")?,
            owner: row.get("owner")?,
            hint: key.hint(),
            created_at: at(row.get("created_at")?),
            updated_at: at(row.get("updated_at")?),
        })
    })?;
    Ok(shared::first_of_each(found, |c| c.provider.clone()))
}

/// Upserts a secret row of `owner`.
pub fn put_secret(
    conn: &Connection,
    owner: &str,
    name: &str,
    value: &Secret,
    now: DateTime<Utc>,
) -> StoreResult<SecretInfo> {
    let (created_at, updated_at) = upsert(conn, SealedTable::Secrets, owner, name, value.expose(), now)?;
    Ok(SecretInfo { name: name.to_string(), owner: owner.to_string(), created_at, updated_at })
}

/// The values a run of `owner` uses of `names` (its owner's, else the first
/// admin's). The names go in as one JSON array, which `json_each` unpacks,
/// so that any number of them is one cached statement.
pub fn get_secrets(conn: &Connection, owner: &str, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
    let sql = "SELECT name, value FROM secrets WHERE name IN (SELECT value FROM json_each(?1)) AND owner IN (?2, ?3)
               ORDER BY name, owner = ?2 DESC";
    let found = rows::select_all(conn, sql, params![serde_json::to_string(names)?, owner, FIRST_ADMIN], |row| {
        Ok((row.get::<_, String>(0)?, Secret::new(row.get::<_, String>(1)?)))
    })?;
    Ok(shared::first_of_each(found, |(name, _)| name.clone()))
}

/// The secrets a run of `owner` uses, by name, with their times; the value column is not read.
pub fn list_secrets(conn: &Connection, owner: &str) -> StoreResult<Vec<SecretInfo>> {
    let sql = "SELECT owner, name, created_at, updated_at FROM secrets WHERE owner IN (?1, ?2)
               ORDER BY name, owner = ?1 DESC";
    let found = rows::select_all(conn, sql, params![owner, FIRST_ADMIN], |row| {
        Ok(SecretInfo {
            name: row.get("name")?,
            owner: row.get("owner")?,
            created_at: at(row.get("created_at")?),
            updated_at: at(row.get("updated_at")?),
        })
    })?;
    Ok(shared::first_of_each(found, |s| s.name.clone()))
}
