//! A run's row as SQLite reads it: a run whose history rows hold its
//! response and calls ([`crate::store::answer_rows`]) has them put back
//! from those rows, and a session's deletion writes them back into its
//! runs' rows first.

use rusqlite::{params, Connection, Row};

use super::rows::select_all;
use crate::domain::model::{Message, Run, ToolCallRecord};
use crate::store::answer_rows::{self, Span, StoredAnswer};
use crate::store::rows::{self, Columns};
use crate::store::{StoreError, StoreResult};

/// Decodes a run row selected with [`rows::RUN_COLUMNS`], with its response
/// and calls read from its history rows where the row says they are.
pub fn run(conn: &Connection, row: &Row<'_>) -> StoreResult<Run> {
    let (mut run, span) = rows::run_with_answer(row)?;
    if let Some(span) = span {
        (run.response, run.tool_calls) = answer_of(conn, &run.id, run.session_id.as_deref(), span)?;
    }
    Ok(run)
}

/// A run's response from a row selected with `id, session_id, response,
/// tool_calls`: what an end that needs only the answers of many runs reads
/// (a fleet node's), without decoding the rest of their rows.
pub fn response(conn: &Connection, row: &Row<'_>) -> StoreResult<Option<String>> {
    match answer_rows::parse(row.opt_text("tool_calls")?.as_deref())? {
        StoredAnswer::Listed(_) => row.opt_text("response"),
        StoredAnswer::InHistory(span) => {
            Ok(answer_of(conn, &row.text("id")?, row.opt_text("session_id")?.as_deref(), span)?.0)
        }
    }
}

/// The response and calls a run's history rows hold.
fn answer_of(
    conn: &Connection,
    run_id: &str,
    session_id: Option<&str>,
    span: Span,
) -> StoreResult<(Option<String>, Vec<ToolCallRecord>)> {
    let session_id = session_id
        .ok_or_else(|| StoreError::internal(format!("run {run_id}: its answer is in the history of no session")))?;
    answer_in_history(conn, session_id, span)
}

/// The response and calls that a run's rows of its session's history spell.
fn answer_in_history(
    conn: &Connection,
    session_id: &str,
    span: Span,
) -> StoreResult<(Option<String>, Vec<ToolCallRecord>)> {
    let messages: Vec<Message> = select_all(
        conn,
        "SELECT message FROM session_messages WHERE session_id = ?1 AND idx BETWEEN ?2 AND ?3 ORDER BY idx",
        params![session_id, span.first, span.last],
        |r| Ok(serde_json::from_str(&r.get::<_, String>(0)?)?),
    )?;
    answer_rows::spelled(&messages).ok_or_else(|| {
        let (first, last) = (span.first, span.last);
        StoreError::internal(format!("session {session_id}: history rows {first} to {last} spell no run's answer"))
    })
}

/// Writes the response and calls back into the rows of a session's runs
/// whose history rows hold them, before those rows are deleted: a run
/// outlives its session.
pub fn write_back_answers(conn: &Connection, session_id: &str) -> StoreResult<()> {
    let held: Vec<(String, String)> = select_all(
        conn,
        "SELECT id, tool_calls FROM runs INDEXED BY runs_session WHERE session_id = ?1 AND tool_calls LIKE '{%'",
        [session_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    for (run_id, stored) in held {
        let StoredAnswer::InHistory(span) = answer_rows::parse(Some(&stored))? else { continue };
        let (response, calls) = answer_in_history(conn, session_id, span)?;
        conn.prepare_cached("UPDATE runs SET response = ?2, tool_calls = ?3 WHERE id = ?1")?.execute(params![
            run_id,
            response,
            answer_rows::listed(&calls)?
        ])?;
    }
    Ok(())
}
