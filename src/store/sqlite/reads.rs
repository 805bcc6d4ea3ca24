//! The store's reads, each run on a read connection of
//! [`super::readers::Readers`]: the API's resources (agents, fleets,
//! sessions, runs, fleet runs, counts), and what workers, the hub and SSE
//! replay read on the hot path (the claimable check, the event log). Reads
//! the writer also needs (a run, a fleet run) live beside the writes, a
//! run's whole context in `load.rs`, and credentials and secrets in `sealed.rs`.

use chrono::Utc;
use rusqlite::{params, Connection, OptionalExtension};

use super::fleet;
use super::rows::{self, ms};
use super::run_rows;
use crate::domain::formation::Formation;
use crate::domain::model::{Agent, Event, Fleet, FleetRun, Message, Run, RunStanding, RunStatus, Session};
use crate::store::{
    event_rows, EventCursor, FleetRunFilter, QueueStats, RunFilter, SessionFilter, StoreResult, WorkerInfo,
};

/// An agent by ID.
pub fn agent(conn: &Connection, id: &str) -> StoreResult<Option<Agent>> {
    rows::select_first(conn, "SELECT body FROM agents WHERE id = ?1", [id], |row| rows::body(row))
}

/// Every agent, by ID.
pub fn agents(conn: &Connection) -> StoreResult<Vec<Agent>> {
    rows::select_all(conn, "SELECT body FROM agents ORDER BY id", [], |row| rows::body(row))
}

/// A fleet by ID, with whether one of its fleet runs is unfinished.
pub fn fleet(conn: &Connection, id: &str) -> StoreResult<Option<Fleet>> {
    rows::select_first(conn, &format!("{} WHERE id = ?1", rows::FLEET_SELECT), [id], |row| rows::fleet(row))
}

/// Every fleet, by ID.
pub fn fleets(conn: &Connection) -> StoreResult<Vec<Fleet>> {
    rows::select_all(conn, &format!("{} ORDER BY id", rows::FLEET_SELECT), [], |row| rows::fleet(row))
}

/// A formation by ID.
pub fn formation(conn: &Connection, id: &str) -> StoreResult<Option<Formation>> {
    rows::select_first(conn, "SELECT body FROM formations WHERE id = ?1", [id], |row| rows::body(row))
}

/// Every formation, by ID.
pub fn formations(conn: &Connection) -> StoreResult<Vec<Formation>> {
    rows::select_all(conn, "SELECT body FROM formations ORDER BY id", [], |row| rows::body(row))
}

/// A session by ID.
pub fn session(conn: &Connection, id: &str) -> StoreResult<Option<Session>> {
    rows::select_first(conn, "SELECT * FROM sessions WHERE id = ?1", [id], |row| rows::session(row))
}

/// A session and the agent a message to it uses (`agent_id`, else the
/// session's own), read on one connection: a message costs one trip to a
/// reader's thread, not two.
pub fn session_and_agent(
    conn: &Connection,
    session_id: &str,
    agent_id: Option<&str>,
) -> StoreResult<Option<(Session, Option<Agent>)>> {
    let Some(session) = session(conn, session_id)? else { return Ok(None) };
    let agent = match agent_id.or(session.agent_id.as_deref()) {
        Some(id) => agent(conn, id)?,
        None => None,
    };
    Ok(Some((session, agent)))
}

/// Sessions by ID, paged as `filter` says.
pub fn sessions(conn: &Connection, filter: &SessionFilter) -> StoreResult<Vec<Session>> {
    let sql = format!(
        "SELECT * FROM sessions WHERE (?1 IS NULL OR id {} ?1) AND {} ORDER BY id {} LIMIT ?2",
        rows::past(filter.order),
        rows::owned_by(&filter.owner, "owner", "?3"),
        rows::order_by(filter.order)
    );
    // SQLite reads a negative limit as none.
    let limit = filter.limit.map_or(-1, i64::from);
    rows::select_all(conn, &sql, params![filter.after, limit, filter.owner], |row| rows::session(row))
}

/// A session's messages, oldest first (those its runs are sent: not the
/// ones a rewind set aside).
pub fn history(conn: &Connection, session_id: &str) -> StoreResult<Vec<Message>> {
    rows::select_all(
        conn,
        "SELECT message FROM session_messages WHERE session_id = ?1 AND branch = 0 ORDER BY idx",
        [session_id],
        |row| Ok(serde_json::from_str(&row.get::<_, String>(0)?)?),
    )
}

/// Runs in submission order, filtered and paged as `filter` says.
pub fn runs(conn: &Connection, filter: &RunFilter) -> StoreResult<Vec<Run>> {
    let sql = format!(
        "SELECT {} FROM runs
         WHERE (?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR status = ?2)
           AND (?5 IS NULL OR fleet_run_id = ?5) AND {} AND {}
           AND (?3 IS NULL OR queue_seq {} (SELECT queue_seq FROM runs WHERE id = ?3))
         ORDER BY queue_seq {} LIMIT ?4",
        rows::RUN_COLUMNS,
        rows::lineage(filter, "?6", "?7"),
        rows::owned_by(&filter.owner, "owner", "?8"),
        rows::past(filter.order),
        rows::order_by(filter.order)
    );
    let status = filter.status.map(|s| s.as_str());
    let params = params![
        filter.session_id,
        status,
        filter.after,
        filter.limit as i64,
        filter.fleet_run_id,
        filter.parent_run_id,
        filter.formation_run_id,
        filter.owner
    ];
    rows::select_all(conn, &sql, params, |row| run_rows::run(conn, row))
}

/// How many runs are in `status`.
pub fn count_runs(conn: &Connection, status: RunStatus) -> StoreResult<u64> {
    let n: i64 = conn
        .prepare_cached("SELECT COUNT(*) FROM runs WHERE status = ?1")?
        .query_row([status.as_str()], |r| r.get(0))?;
    Ok(n as u64)
}

/// The queue at a glance: queued and running runs, live workers.
pub fn queue_stats(conn: &Connection) -> StoreResult<QueueStats> {
    let stats = conn
        .prepare_cached(
            "SELECT (SELECT COUNT(*) FROM runs INDEXED BY runs_status WHERE status = 'queued'),
                    (SELECT COUNT(*) FROM runs INDEXED BY runs_running WHERE status = 'running'),
                    (SELECT COUNT(*) FROM workers WHERE lease_expires_at > ?1)",
        )?
        .query_row([ms(Utc::now())], |r| {
            Ok(QueueStats {
                queued: r.get::<_, i64>(0)? as u64,
                running: r.get::<_, i64>(1)? as u64,
                workers: r.get::<_, i64>(2)? as u64,
            })
        })?;
    Ok(stats)
}

/// Every worker the database remembers, with the runs it holds, its lease
/// judged by this host's clock (the one SQLite's writers use).
pub fn workers(conn: &Connection) -> StoreResult<Vec<WorkerInfo>> {
    let mut select = conn.prepare_cached(&rows::WORKERS_SELECT.replace("NOW_MS", "?1"))?;
    let mut found = select.query([ms(Utc::now())])?;
    let mut workers = Vec::new();
    while let Some(row) = found.next()? {
        rows::push_worker(&mut workers, row)?;
    }
    Ok(workers)
}

/// Fleet runs by ID, filtered and paged as `filter` says.
pub fn fleet_runs(conn: &Connection, filter: &FleetRunFilter) -> StoreResult<Vec<FleetRun>> {
    let sql = format!(
        "{} WHERE (?1 IS NULL OR f.fleet_id = ?1) AND (?2 IS NULL OR f.id {} ?2) AND {} ORDER BY f.id {} LIMIT ?3",
        fleet::SELECT,
        rows::past(filter.order),
        rows::owned_by(&filter.owner, "f.owner", "?4"),
        rows::order_by(filter.order)
    );
    let params = params![filter.fleet_id, filter.after, filter.limit as i64, filter.owner];
    rows::select_all(conn, &sql, params, |row| rows::fleet_run(row))
}

/// A fleet run's tasks by index, after `after_index` (from the first if `None`).
pub fn fleet_run_tasks(conn: &Connection, id: &str, after_index: Option<u32>, limit: u32) -> StoreResult<Vec<Run>> {
    let sql = format!(
        "SELECT {} FROM runs INDEXED BY runs_fleet WHERE fleet_run_id = ?1 AND task_index > ?2
         ORDER BY task_index LIMIT ?3",
        rows::RUN_COLUMNS
    );
    let after = after_index.map(i64::from).unwrap_or(-1);
    rows::select_all(conn, &sql, params![id, after, limit as i64], |row| run_rows::run(conn, row))
}

/// [`crate::store::Store::run_standing`].
pub fn run_standing(conn: &Connection, id: &str, after: u64) -> StoreResult<Option<RunStanding>> {
    rows::select_first(conn, rows::RUN_STANDING, params![id, rows::stored_place(after)], |row| rows::run_standing(row))
}

/// A run's events after `after`, in order, at most `limit` of them: its
/// rows from the first whose last number is past `after`
/// ([`crate::store::event_rows`]).
pub fn events(conn: &Connection, run_id: &str, after: u64, limit: u32) -> StoreResult<Vec<Event>> {
    let sql = "SELECT run_id, first_seq, last_seq, events, at FROM run_events WHERE run_id = ?1 AND last_seq > ?2
               ORDER BY last_seq LIMIT ?3";
    let after_stored = rows::stored_place(after);
    let rows =
        rows::select_all(conn, sql, params![run_id, after_stored, limit as i64], |row| event_rows::expand(row, after))?;
    let mut events: Vec<Event> = rows.into_iter().flatten().collect();
    events.truncate(limit as usize);
    Ok(events)
}

/// The place after the newest event of any run: its row's number and the
/// row's last event (nothing if there is none).
pub fn event_cursor(conn: &Connection) -> StoreResult<EventCursor> {
    let newest: Option<(i64, i64)> = conn
        .prepare_cached("SELECT gid, last_seq FROM run_events ORDER BY gid DESC LIMIT 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    Ok(newest.map_or_else(EventCursor::default, |(gid, seq)| EventCursor { tx: 0, gid: gid as u64, seq: seq as u64 }))
}

/// The events of every run after `cursor`, in commit order, with their
/// places, at most `limit`: rows in the writer's order, the cursor's own
/// row again if it holds events after the last one taken from it.
pub fn events_since(conn: &Connection, cursor: EventCursor, limit: u32) -> StoreResult<Vec<(EventCursor, Event)>> {
    let sql = "SELECT gid, run_id, first_seq, last_seq, events, at FROM run_events
               WHERE gid >= ?1 AND NOT (gid = ?1 AND last_seq <= ?3) ORDER BY gid LIMIT ?2";
    let gid = i64::try_from(cursor.gid).unwrap_or(i64::MAX);
    let seq = i64::try_from(cursor.seq).unwrap_or(i64::MAX);
    let rows = rows::select_all(conn, sql, params![gid, limit as i64, seq], |row| {
        let place = row.get::<_, i64>("gid")? as u64;
        let after = if place == cursor.gid { cursor.seq } else { 0 };
        let events = event_rows::expand(row, after)?;
        Ok(events
            .into_iter()
            .map(|event| (EventCursor { tx: 0, gid: place, seq: event.seq }, event))
            .collect::<Vec<_>>())
    })?;
    let mut events: Vec<(EventCursor, Event)> = rows.into_iter().flatten().collect();
    events.truncate(limit as usize);
    Ok(events)
}

/// Whether a claim would find anything: a ready queued run, a running
/// run whose worker's lease has lapsed, a held run whose key (or owner)
/// has a free slot, or a run handed back for its provider budget whose time has come.
pub fn has_claimable(conn: &Connection) -> StoreResult<bool> {
    let yes = conn
        .prepare_cached(
            "SELECT EXISTS(SELECT 1 FROM runs INDEXED BY runs_ready WHERE status = 'queued' AND blocked = 0 AND held = 0)
                 OR EXISTS(SELECT 1 FROM runs INDEXED BY runs_running WHERE status = 'running' AND NOT EXISTS
                     (SELECT 1 FROM workers w WHERE w.id = runs.worker_id AND w.lease_expires_at > ?1))
                 OR EXISTS(SELECT 1 FROM held_keys h WHERE h.lim >
                     (SELECT COUNT(*) FROM runs INDEXED BY runs_keyed WHERE concurrency_key = h.key AND status = 'running'))
                 OR EXISTS(SELECT 1 FROM held_owners h LEFT JOIN owner_quotas q ON q.owner = h.owner
                     WHERE q.max_running_runs IS NULL OR q.max_running_runs >
                     (SELECT COUNT(*) FROM runs INDEXED BY runs_owner_running WHERE owner = h.owner AND status = 'running'))
                 OR EXISTS(SELECT 1 FROM runs INDEXED BY runs_parked WHERE status = 'queued' AND held = 2 AND wake_at <= ?1)",
        )?
        .query_row([ms(Utc::now())], |r| r.get(0))?;
    Ok(yes)
}
