//! Agents, fleets and sessions in PostgreSQL.

use sqlx::PgConnection;

use super::{found, progress, Pending};
use crate::domain::lifecycle::EndReason;
use crate::domain::model::Session;
pub use crate::store::body::{Body, BodyTable};
use crate::store::rows::ms;
use crate::store::{StoreError, StoreResult};

pub async fn insert_body(c: &mut PgConnection, table: BodyTable, body: &Body) -> StoreResult<()> {
    let sql =
        format!("INSERT INTO {} (id, body, created_at, updated_at, version) VALUES ($1, $2, $3, $4, $5)", table.name());
    let inserted = sqlx::query(&sql)
        .bind(&body.id)
        .bind(&body.json)
        .bind(ms(body.created_at))
        .bind(ms(body.updated_at))
        .bind(body.version as i64)
        .execute(&mut *c)
        .await;
    match inserted {
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
            Err(StoreError::already_exists(table.what(), &body.id))
        }
        other => other.map(|_| ()).map_err(Into::into),
    }
}

pub async fn update_body(c: &mut PgConnection, table: BodyTable, body: &Body) -> StoreResult<()> {
    let sql =
        format!("UPDATE {} SET body = $1, updated_at = $2, version = $4 WHERE id = $3 AND version = $5", table.name());
    let updated = sqlx::query(&sql)
        .bind(&body.json)
        .bind(ms(body.updated_at))
        .bind(&body.id)
        .bind(body.version as i64)
        .bind(body.replaces())
        .execute(&mut *c)
        .await?;
    if updated.rows_affected() == 1 {
        return Ok(());
    }
    let current = version_of(c, table.name(), &body.id).await?;
    Err(StoreError::not_updated(table.what(), current))
}

/// A definition's version as PostgreSQL holds it (`None`: no such row).
pub async fn version_of(c: &mut PgConnection, table: &str, id: &str) -> StoreResult<Option<u64>> {
    let sql = format!("SELECT version FROM {table} WHERE id = $1");
    let version: Option<i64> = sqlx::query_scalar(&sql).bind(id).fetch_optional(&mut *c).await?;
    Ok(version.map(|v| v as u64))
}

pub async fn delete_body(c: &mut PgConnection, table: BodyTable, id: &str) -> StoreResult<()> {
    let deleted = sqlx::query(&format!("DELETE FROM {} WHERE id = $1", table.name())).bind(id).execute(&mut *c).await?;
    found(deleted.rows_affected(), table.what())
}

pub async fn insert_session(c: &mut PgConnection, s: &Session) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO sessions (id, agent_id, title, work_dir, metadata, tools, created_at, updated_at, owner, forked_from)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&s.id)
    .bind(&s.agent_id)
    .bind(&s.title)
    .bind(&s.work_dir)
    .bind(serde_json::to_string(&s.metadata)?)
    .bind(serde_json::to_string(&s.added_tools)?)
    .bind(ms(s.created_at))
    .bind(ms(s.updated_at))
    .bind(&s.owner)
    .bind(s.forked_from.as_ref().map(serde_json::to_string).transpose()?)
    .execute(&mut *c)
    .await?;
    Ok(())
}

pub async fn update_session(c: &mut PgConnection, s: &Session) -> StoreResult<()> {
    let updated = sqlx::query(
        "UPDATE sessions SET agent_id = $1, title = $2, work_dir = $3, metadata = $4, tools = $5, updated_at = $6
         WHERE id = $7",
    )
    .bind(&s.agent_id)
    .bind(&s.title)
    .bind(&s.work_dir)
    .bind(serde_json::to_string(&s.metadata)?)
    .bind(serde_json::to_string(&s.added_tools)?)
    .bind(ms(s.updated_at))
    .bind(&s.id)
    .execute(&mut *c)
    .await?;
    found(updated.rows_affected(), "session")
}

/// Deletes a session and its history; its unfinished runs end `cancelled`.
/// Their rows are locked before the session's, the order every write keeps.
pub async fn delete_session(c: &mut PgConnection, p: &mut Pending, id: &str) -> StoreResult<()> {
    let active: Vec<String> = sqlx::query_scalar(
        "SELECT id FROM runs WHERE session_id = $1 AND status IN ('queued','running','waiting')
         ORDER BY queue_seq FOR UPDATE",
    )
    .bind(id)
    .fetch_all(&mut *c)
    .await?;
    let present: Option<i32> =
        sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE").bind(id).fetch_optional(&mut *c).await?;
    if present.is_none() {
        return Err(StoreError::NotFound("session"));
    }
    for run_id in active {
        progress::finish(c, p, &run_id, &EndReason::SessionDeleted).await?;
    }
    sqlx::query("DELETE FROM session_messages WHERE session_id = $1").bind(id).execute(&mut *c).await?;
    sqlx::query("DELETE FROM session_branches WHERE session_id = $1").bind(id).execute(&mut *c).await?;
    let deleted = sqlx::query("DELETE FROM sessions WHERE id = $1").bind(id).execute(&mut *c).await?;
    found(deleted.rows_affected(), "session")
}
