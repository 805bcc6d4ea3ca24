//! Provider credentials in SQLite. Keys are written through the group-commit
//! writer like everything else and read on a read connection; only
//! `get_credential` ever reads the key column.

use super::rows::{self, at, ms};
use crate::credential::{ApiKey, CredentialInfo};
use crate::store::{StoreError, StoreResult};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

/// Upserts a credential row; `created_at` stays the first one's.
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
pub fn get(conn: &Connection, name: &str) -> StoreResult<Option<ApiKey>> {
    rows::select_first(conn, "SELECT api_key FROM credentials WHERE provider = ?1", [name], |row| {
        Ok(ApiKey::new(row.get::<_, String>(0)?))
    })
}

/// Every credential's info; keys are read only to make their hints.
pub fn list(conn: &Connection) -> StoreResult<Vec<CredentialInfo>> {
    let sql = "SELECT provider, api_key, created_at, updated_at FROM credentials ORDER BY provider";
    rows::select_all(conn, sql, [], info)
}

fn info(row: &rusqlite::Row<'_>) -> StoreResult<CredentialInfo> {
    let key = ApiKey::new(row.get::<_, String>("api_key")?);
    Ok(CredentialInfo {
        provider: row.get("provider")?,
        hint: key.hint(),
        created_at: at(row.get("created_at")?),
        updated_at: at(row.get("updated_at")?),
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
