//! API keys in SQLite (`api_keys`): written through the group-commit
//! writer, read on a read connection, a request's key found by its digest.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

use super::rows::{select_all, select_first};
use crate::domain::access::{ApiKeyInfo, NewApiKey};
use crate::store::key_rows::{self, COLUMNS};
use crate::store::rows::ms;
use crate::store::{StoreError, StoreResult};

/// Stores a new key; answers it as a list shows it.
pub fn insert(conn: &Connection, key: &NewApiKey, now: DateTime<Utc>) -> StoreResult<ApiKeyInfo> {
    conn.prepare_cached(
        "INSERT INTO api_keys (id, owner, role, name, digest, hint, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        key.id,
        key.owner,
        key.role.as_str(),
        key.name,
        key_rows::hex(&key.digest),
        key.hint,
        ms(now),
        key.expires_at.map(ms)
    ])?;
    by_id(conn, &key.id)?.ok_or_else(|| StoreError::internal("a key just stored was not found"))
}

/// The key with `digest`, revoked and expired ones included.
pub fn find(conn: &Connection, digest: &[u8; 32]) -> StoreResult<Option<ApiKeyInfo>> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE digest = ?1");
    select_first(conn, &sql, [key_rows::hex(digest)], |row| key_rows::key(row))
}

fn by_id(conn: &Connection, id: &str) -> StoreResult<Option<ApiKeyInfo>> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE id = ?1");
    select_first(conn, &sql, [id], |row| key_rows::key(row))
}

/// Every key, the newest first.
pub fn list(conn: &Connection) -> StoreResult<Vec<ApiKeyInfo>> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys ORDER BY created_at DESC, id DESC");
    select_all(conn, &sql, [], |row| key_rows::key(row))
}

/// Revokes a key at `now`, once: a key revoked before keeps its time.
pub fn revoke(conn: &Connection, id: &str, now: DateTime<Utc>) -> StoreResult<ApiKeyInfo> {
    conn.prepare_cached("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1")?
        .execute(params![id, ms(now)])?;
    by_id(conn, id)?.ok_or(StoreError::NotFound("key"))
}

/// Whether any key opens the API at `now`.
pub fn any_live(conn: &Connection, now: DateTime<Utc>) -> StoreResult<bool> {
    let live = conn
        .prepare_cached(
            "SELECT EXISTS(SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?1))",
        )?
        .query_row([ms(now)], |r| r.get(0))?;
    Ok(live)
}
