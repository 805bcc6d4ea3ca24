//! Provider budgets on SQLite ([`crate::domain::share`] decides; this
//! loads and writes, in the writer's transaction, which no other call
//! shares).

use rusqlite::{params, Connection, OptionalExtension};

use super::rows;
use crate::domain::budget::{Budget, BudgetSeen, Heard, Outcome};
use crate::domain::model::ProviderLimits;
use crate::domain::share::{self, Seen, Share, ShareAsk};
use crate::store::StoreResult;

/// [`crate::store::Store::take_provider_share`].
pub fn take(conn: &Connection, ask: &ShareAsk, now: i64) -> StoreResult<Share> {
    let mut seen = Vec::with_capacity(ask.budgets.len());
    for budget in &ask.budgets {
        seen.push(Seen {
            budget: load(conn, &budget.name)?,
            reserved: reserved(conn, &budget.name, &ask.run_id)?,
            in_flight: in_flight(conn, &budget.name, &ask.run_id)?,
            waiting_ahead: waiting_ahead(conn, &budget.name, &ask.run_id)?,
        });
    }
    let decision = share::decide(now, ask, seen);
    for (name, budget) in &decision.budgets {
        store(conn, name, budget, now)?;
    }
    for (name, place) in &decision.places {
        conn.prepare_cached(
            "INSERT INTO provider_calls (budget, run_id, epoch, until, reserved) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (budget, run_id) DO UPDATE
             SET epoch = excluded.epoch, until = excluded.until, reserved = excluded.reserved",
        )?
        .execute(params![name, ask.run_id, ask.epoch, place.until, place.reserved])?;
    }
    Ok(decision.share)
}

/// Whether a call's ask touches nothing: no budget declared by the agent
/// and no row for its credential. Such a call goes without a write.
pub fn untouched(conn: &Connection, ask: &ShareAsk) -> StoreResult<bool> {
    for budget in &ask.budgets {
        if budget.declared.is_some() || load(conn, &budget.name)?.is_some() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// [`crate::store::Store::settle_provider_call`].
pub fn settle(
    conn: &Connection,
    run_id: &str,
    names: &[String],
    outcome: Outcome,
    heard: Option<Heard>,
    now: i64,
) -> StoreResult<()> {
    conn.prepare_cached("DELETE FROM provider_calls WHERE run_id = ?1")?.execute([run_id])?;
    for name in names {
        let learns = matches!(outcome, Outcome::Limited { .. }) || heard.is_some();
        let budget = match load(conn, name)? {
            Some(budget) => budget,
            // A credential nobody limited gets a row when the provider first says something.
            None if learns => Budget::default(),
            None => continue,
        };
        let mut budget = budget;
        budget.settle(now, outcome);
        if let Some(heard) = &heard {
            budget.heard(now, heard);
        }
        store(conn, name, &budget, now)?;
    }
    Ok(())
}

/// [`crate::store::Store::set_provider_limits`]: a removal keeps what was
/// learned, and a pause.
pub fn set_limits(conn: &Connection, name: &str, limits: Option<ProviderLimits>, now: i64) -> StoreResult<()> {
    let mut budget = load(conn, name)?.unwrap_or_default();
    budget.declared = limits.unwrap_or_default();
    store(conn, name, &budget, now)
}

/// [`crate::store::Store::provider_budgets`].
pub fn list(conn: &Connection, now: i64) -> StoreResult<Vec<BudgetSeen>> {
    let names = rows::all(conn.prepare_cached("SELECT name FROM provider_budgets ORDER BY name")?.query([])?, |r| {
        Ok(r.get::<_, String>(0)?)
    })?;
    let mut seen = Vec::with_capacity(names.len());
    for name in names {
        let Some(budget) = load(conn, &name)? else { continue };
        let waiting: u32 = conn
            .prepare_cached(
                "SELECT COUNT(*) FROM provider_calls c LEFT JOIN runs r ON r.id = c.run_id
                 WHERE c.budget = ?1 AND (c.until > ?2 OR r.wake_at > ?2)",
            )?
            .query_row(params![name, now], |r| r.get(0))?;
        let in_flight = in_flight(conn, &name, "")?;
        seen.push(BudgetSeen { name, budget, waiting, in_flight });
    }
    Ok(seen)
}

/// [`crate::store::Store::provider_wait`].
pub fn wait_of(conn: &Connection, run_id: &str, now: i64) -> StoreResult<Option<(String, i64)>> {
    Ok(conn
        .prepare_cached(
            "SELECT c.budget, MAX(c.until, COALESCE(r.wake_at, 0)) AS ends FROM provider_calls c LEFT JOIN runs r ON r.id = c.run_id
             WHERE c.run_id = ?1 AND (c.until > ?2 OR r.wake_at > ?2) ORDER BY ends DESC LIMIT 1",
        )?
        .query_row(params![run_id, now], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

fn load(conn: &Connection, name: &str) -> StoreResult<Option<Budget>> {
    let state: Option<String> = conn
        .prepare_cached("SELECT state FROM provider_budgets WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?;
    Ok(match state {
        Some(state) => Some(serde_json::from_str(&state)?),
        None => None,
    })
}

fn store(conn: &Connection, name: &str, budget: &Budget, now: i64) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO provider_budgets (name, state, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
    )?
    .execute(params![name, serde_json::to_string(budget)?, now])?;
    Ok(())
}

fn reserved(conn: &Connection, name: &str, run_id: &str) -> StoreResult<Option<i64>> {
    let until: Option<Option<i64>> = conn
        .prepare_cached("SELECT until FROM provider_calls WHERE budget = ?1 AND run_id = ?2 AND reserved = 1")?
        .query_row([name, run_id], |r| r.get(0))
        .optional()?;
    Ok(until.flatten())
}

/// Calls of running runs sending now under their current epoch, `run_id`'s aside.
fn in_flight(conn: &Connection, name: &str, run_id: &str) -> StoreResult<u32> {
    Ok(conn
        .prepare_cached(
            "SELECT COUNT(*) FROM provider_calls c JOIN runs r ON r.id = c.run_id
             WHERE c.budget = ?1 AND c.until IS NULL AND c.run_id <> ?2
               AND r.status = 'running' AND r.lease_epoch = c.epoch",
        )?
        .query_row([name, run_id], |r| r.get(0))?)
}

/// Calls of other live runs waiting in `name` for a share not yet
/// reserved, whose wait ends before `run_id`'s own (all of them when it has
/// none): the line it stands behind.
fn waiting_ahead(conn: &Connection, name: &str, run_id: &str) -> StoreResult<u32> {
    Ok(conn
        .prepare_cached(
            "SELECT COUNT(*) FROM provider_calls c JOIN runs r ON r.id = c.run_id
             WHERE c.budget = ?1 AND c.reserved = 0 AND c.until IS NOT NULL AND c.run_id <> ?2
               AND r.status IN ('queued', 'running')
               AND c.until < COALESCE((SELECT until FROM provider_calls WHERE budget = ?1 AND run_id = ?2
                                         AND reserved = 0), 9223372036854775807)",
        )?
        .query_row([name, run_id], |r| r.get(0))?)
}
