//! Provider credentials and secrets in SQLite, the two sealed tables
//! ([`SealedTable`]). Values are written through the group-commit writer like
//! everything else and read on a read connection; only `get_credential` and
//! `get_secrets` ever read a value column (a credential list reads keys too,
//! to make their hints, and answers with nothing more of them).

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::rows::{self, at, ms};
use crate::domain::credential::{ApiKey, CredentialInfo};
use crate::domain::secret::{Secret, SecretInfo};
use crate::store::sealed::SealedTable;
use crate::store::{StoreError, StoreResult};

/// Inserts or replaces the value under `name` in `table`, keeping the row's
/// first `created_at`; answers the row's (created_at, updated_at).
fn upsert(
    conn: &Connection,
    table: SealedTable,
    name: &str,
    value: &str,
    now: DateTime<Utc>,
) -> StoreResult<(DateTime<Utc>, DateTime<Utc>)> {
    let (t, k, v) = (table.name(), table.key(), table.value());
    let sql = format!(
        "INSERT INTO {t} ({k}, {v}, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
         ON CONFLICT ({k}) DO UPDATE SET {v} = excluded.{v}, updated_at = excluded.updated_at
         RETURNING created_at"
    );
    let created_at: i64 = conn.prepare_cached(&sql)?.query_row(params![name, value, ms(now)], |r| r.get(0))?;
    // Timestamps are stored in milliseconds; answer with what a later read will show.
    Ok((at(created_at), at(ms(now))))
}

/// Deletes the row of `name` from `table`.
pub fn delete(conn: &Connection, table: SealedTable, name: &str) -> StoreResult<()> {
    let sql = format!("DELETE FROM {} WHERE {} = ?1", table.name(), table.key());
    if conn.prepare_cached(&sql)?.execute([name])? == 0 {
        return Err(StoreError::NotFound(table.what()));
    }
    Ok(())
}

/// Upserts a credential row.
pub fn put_credential(conn: &Connection, name: &str, key: &ApiKey, now: DateTime<Utc>) -> StoreResult<CredentialInfo> {
    let (created_at, updated_at) = upsert(conn, SealedTable::Credentials, name, key.expose(), now)?;
    Ok(CredentialInfo { provider: name.to_string(), hint: key.hint(), created_at, updated_at })
}

/// The key stored under a name.
pub fn get_credential(conn: &Connection, name: &str) -> StoreResult<Option<ApiKey>> {
    rows::select_first(conn, "SELECT api_key FROM credentials WHERE provider = ?1", [name], |row| {
        Ok(ApiKey::new(row.get::<_, String>(0)?))
    })
}

/// Every credential's info; keys are read only to make their hints.
pub fn list_credentials(conn: &Connection) -> StoreResult<Vec<CredentialInfo>> {
    let sql = "SELECT provider, api_key, created_at, updated_at FROM credentials ORDER BY provider";
    rows::select_all(conn, sql, [], |row| {
        let key = ApiKey::new(row.get::<_, String>("api_key")?);
        Ok(CredentialInfo {
            provider: row.get("provider")?,
            hint: key.hint(),
            created_at: at(row.get("created_at")?),
            updated_at: at(row.get("updated_at")?),
        })
    })
}

/// Upserts a secret row.
pub fn put_secret(conn: &Connection, name: &str, value: &Secret, now: DateTime<Utc>) -> StoreResult<SecretInfo> {
    let (created_at, updated_at) = upsert(conn, SealedTable::Secrets, name, value.expose(), now)?;
    Ok(SecretInfo { name: name.to_string(), created_at, updated_at })
}

/// The stored ones of `names`, with their values. The names go in as one
/// JSON array, which `json_each` unpacks, so that any number of them is one
/// cached statement.
pub fn get_secrets(conn: &Connection, names: &[String]) -> StoreResult<Vec<(String, Secret)>> {
    let sql = "SELECT name, value FROM secrets WHERE name IN (SELECT value FROM json_each(?1)) ORDER BY name";
    rows::select_all(conn, sql, [serde_json::to_string(names)?], |row| {
        Ok((row.get::<_, String>(0)?, Secret::new(row.get::<_, String>(1)?)))
    })
}

/// Every secret's name and times; the value column is not read.
pub fn list_secrets(conn: &Connection) -> StoreResult<Vec<SecretInfo>> {
    let sql = "SELECT name, created_at, updated_at FROM secrets ORDER BY name";
    rows::select_all(conn, sql, [], |row| {
        Ok(SecretInfo {
            name: row.get("name")?,
            created_at: at(row.get("created_at")?),
            updated_at: at(row.get("updated_at")?),
        })
    })
}
