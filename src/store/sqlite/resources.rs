//! Writes of agents, fleets and sessions. Each function runs inside the writer's
//! transaction, on the writer's thread; a missing row is refused before
//! anything changes.

use chrono::Utc;
use rusqlite::{params, Connection, OptionalExtension};

use super::progress;
use super::rows::ms;
use crate::domain::lifecycle::EndReason;
use crate::domain::model::Session;
pub use crate::store::body::{Body, BodyTable};
use crate::store::{StoreError, StoreResult};

pub fn insert_body(conn: &Connection, table: BodyTable, body: &Body) -> StoreResult<()> {
    let sql =
        format!("INSERT INTO {} (id, body, created_at, updated_at, version) VALUES (?1, ?2, ?3, ?4, ?5)", table.name());
    let values = params![body.id, body.json, ms(body.created_at), ms(body.updated_at), body.version as i64];
    let inserted = conn.prepare_cached(&sql)?.execute(values);
    match inserted {
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
            Err(StoreError::already_exists(table.what(), &body.id))
        }
        other => other.map(|_| ()).map_err(Into::into),
    }
}

pub fn update_body(conn: &Connection, table: BodyTable, body: &Body) -> StoreResult<()> {
    let sql =
        format!("UPDATE {} SET body = ?1, updated_at = ?2, version = ?4 WHERE id = ?3 AND version = ?5", table.name());
    let values = params![body.json, ms(body.updated_at), body.id, body.version as i64, body.replaces()];
    if conn.prepare_cached(&sql)?.execute(values)? == 1 {
        return Ok(());
    }
    let current = version_of(conn, table.name(), &body.id)?;
    Err(StoreError::not_updated(table.what(), current))
}

/// A definition's version as SQLite holds it (`None`: no such row).
pub fn version_of(conn: &Connection, table: &str, id: &str) -> StoreResult<Option<u64>> {
    let sql = format!("SELECT version FROM {table} WHERE id = ?1");
    let version: Option<i64> = conn.prepare_cached(&sql)?.query_row([id], |r| r.get(0)).optional()?;
    Ok(version.map(|v| v as u64))
}

pub fn delete_body(conn: &Connection, table: BodyTable, id: &str) -> StoreResult<()> {
    let deleted = conn.prepare_cached(&format!("DELETE FROM {} WHERE id = ?1", table.name()))?.execute([id])?;
    found(deleted, table.what())
}

pub fn insert_session(conn: &Connection, s: &Session) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO sessions (id, agent_id, title, work_dir, metadata, tools, created_at, updated_at, owner, forked_from)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        s.id,
        s.agent_id,
        s.title,
        s.work_dir,
        serde_json::to_string(&s.metadata)?,
        serde_json::to_string(&s.added_tools)?,
        ms(s.created_at),
        ms(s.updated_at),
        s.owner,
        s.forked_from.as_ref().map(serde_json::to_string).transpose()?
    ])?;
    Ok(())
}

pub fn update_session(conn: &Connection, s: &Session) -> StoreResult<()> {
    let updated = conn
        .prepare_cached(
            "UPDATE sessions SET agent_id = ?1, title = ?2, work_dir = ?3, metadata = ?4, tools = ?5, updated_at = ?6
             WHERE id = ?7",
        )?
        .execute(params![
            s.agent_id,
            s.title,
            s.work_dir,
            serde_json::to_string(&s.metadata)?,
            serde_json::to_string(&s.added_tools)?,
            ms(s.updated_at),
            s.id
        ])?;
    found(updated, "session")
}

/// [`crate::store::Store::delete_session`], in the writer's transaction.
pub fn delete_session(conn: &Connection, id: &str) -> StoreResult<()> {
    let present: bool =
        conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM sessions WHERE id = ?1)")?.query_row([id], |r| r.get(0))?;
    if !present {
        return Err(StoreError::NotFound("session"));
    }
    let active: Vec<String> = conn
        .prepare_cached(
            "SELECT id FROM runs WHERE session_id = ?1 AND status IN ('queued','running','waiting')
             ORDER BY queue_seq",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for run_id in active {
        progress::finish(conn, &run_id, &EndReason::SessionDeleted, Utc::now())?;
    }
    super::run_rows::write_back_answers(conn, id)?;
    conn.prepare_cached("DELETE FROM session_messages WHERE session_id = ?1")?.execute([id])?;
    conn.prepare_cached("DELETE FROM session_branches WHERE session_id = ?1")?.execute([id])?;
    let deleted = conn.prepare_cached("DELETE FROM sessions WHERE id = ?1")?.execute([id])?;
    found(deleted, "session")
}

fn found(rows: usize, what: &'static str) -> StoreResult<()> {
    if rows == 0 {
        Err(StoreError::NotFound(what))
    } else {
        Ok(())
    }
}
