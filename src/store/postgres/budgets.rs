//! Provider budgets on PostgreSQL: workers on many hosts take shares at
//! once, so a call locks its budgets' rows (`FOR UPDATE`, in name order so
//! two calls never wait on each other crosswise) before
//! [`crate::domain::share::decide`] reads them. Times are the database's
//! clock (`wingman_ms()`), which every host shares.

use sqlx::{PgConnection, Row};

use crate::domain::budget::{Budget, BudgetSeen, Heard, Outcome};
use crate::domain::model::ProviderLimits;
use crate::domain::share::{self, Seen, Share, ShareAsk};
use crate::store::StoreResult;

/// Whether a call touches no budget (none declared, no row): then it goes
/// without a transaction.
pub async fn untouched(pool: &sqlx::PgPool, ask: &ShareAsk) -> StoreResult<Option<i64>> {
    if ask.budgets.iter().any(|b| b.declared.is_some()) {
        return Ok(None);
    }
    let names: Vec<&str> = ask.budgets.iter().map(|b| b.name.as_str()).collect();
    let (rows, now): (i64, i64) =
        sqlx::query_as("SELECT (SELECT COUNT(*) FROM provider_budgets WHERE name = ANY($1)), wingman_ms()")
            .bind(&names)
            .fetch_one(pool)
            .await?;
    Ok((rows == 0).then_some(now))
}

/// Takes a call's share with its budgets' rows locked
/// ([`crate::store::Store::take_provider_share`]).
pub async fn take(c: &mut PgConnection, ask: &ShareAsk) -> StoreResult<Share> {
    let now = clock(c).await?;
    for budget in ask.budgets.iter().filter(|b| b.declared.is_some()) {
        create(c, &budget.name, now).await?;
    }
    let mut order: Vec<&str> = ask.budgets.iter().map(|b| b.name.as_str()).collect();
    order.sort_unstable();
    for name in order {
        lock(c, name).await?;
    }
    let mut seen = Vec::with_capacity(ask.budgets.len());
    for budget in &ask.budgets {
        seen.push(Seen {
            budget: load(c, &budget.name).await?,
            reserved: reserved(c, &budget.name, &ask.run_id).await?,
            in_flight: in_flight(c, &budget.name, &ask.run_id).await?,
            waiting_ahead: waiting_ahead(c, &budget.name, &ask.run_id).await?,
        });
    }
    let decision = share::decide(now, ask, seen);
    for (name, budget) in &decision.budgets {
        store(c, name, budget, now).await?;
    }
    for (name, place) in &decision.places {
        sqlx::query(
            "INSERT INTO provider_calls (budget, run_id, epoch, until, reserved) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (budget, run_id) DO UPDATE
             SET epoch = excluded.epoch, until = excluded.until, reserved = excluded.reserved",
        )
        .bind(name)
        .bind(&ask.run_id)
        .bind(ask.epoch)
        .bind(place.until)
        .bind(place.reserved)
        .execute(&mut *c)
        .await?;
    }
    Ok(decision.share)
}

/// Settles a call, its budgets' rows locked in name order
/// ([`crate::store::Store::settle_provider_call`]).
pub async fn settle(
    c: &mut PgConnection,
    run_id: &str,
    names: &[String],
    outcome: Outcome,
    heard: Option<Heard>,
) -> StoreResult<()> {
    let now = clock(c).await?;
    sqlx::query("DELETE FROM provider_calls WHERE run_id = $1").bind(run_id).execute(&mut *c).await?;
    let learns = matches!(outcome, Outcome::Limited { .. }) || heard.is_some();
    let mut order: Vec<&String> = names.iter().collect();
    order.sort_unstable();
    for name in order {
        if learns {
            create(c, name, now).await?;
        }
        if !lock(c, name).await? {
            continue;
        }
        let Some(mut budget) = load(c, name).await? else { continue };
        budget.settle(now, outcome);
        if let Some(heard) = &heard {
            budget.heard(now, heard);
        }
        store(c, name, &budget, now).await?;
    }
    Ok(())
}

/// [`crate::store::Store::set_provider_limits`].
pub async fn set_limits(c: &mut PgConnection, name: &str, limits: Option<ProviderLimits>) -> StoreResult<()> {
    let now = clock(c).await?;
    create(c, name, now).await?;
    lock(c, name).await?;
    let mut budget = load(c, name).await?.unwrap_or_default();
    budget.declared = limits.unwrap_or_default();
    store(c, name, &budget, now).await
}

/// Every budget, read by the database's clock ([`crate::store::Store::provider_budgets`]).
pub async fn list(c: &mut PgConnection) -> StoreResult<Vec<BudgetSeen>> {
    let now = clock(c).await?;
    let rows = sqlx::query("SELECT name, state FROM provider_budgets ORDER BY name").fetch_all(&mut *c).await?;
    let mut seen = Vec::with_capacity(rows.len());
    for row in rows {
        let name: String = row.try_get("name")?;
        let budget: Budget = serde_json::from_str(&row.try_get::<String, _>("state")?)?;
        let waiting: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM provider_calls c LEFT JOIN runs r ON r.id = c.run_id
             WHERE c.budget = $1 AND (c.until > $2 OR r.wake_at > $2)",
        )
        .bind(&name)
        .bind(now)
        .fetch_one(&mut *c)
        .await?;
        let in_flight = in_flight(c, &name, "").await?;
        seen.push(BudgetSeen { name, budget, waiting: waiting as u32, in_flight });
    }
    Ok(seen)
}

/// [`crate::store::Store::provider_wait`].
pub async fn wait_of(c: &mut PgConnection, run_id: &str) -> StoreResult<Option<(String, i64)>> {
    let row = sqlx::query(
        "SELECT c.budget, GREATEST(c.until, r.wake_at) AS until FROM provider_calls c LEFT JOIN runs r ON r.id = c.run_id
         WHERE c.run_id = $1 AND (c.until > wingman_ms() OR r.wake_at > wingman_ms()) ORDER BY 2 DESC LIMIT 1",
    )
    .bind(run_id)
    .fetch_optional(&mut *c)
    .await?;
    Ok(match row {
        Some(row) => Some((row.try_get("budget")?, row.try_get("until")?)),
        None => None,
    })
}

async fn clock(c: &mut PgConnection) -> StoreResult<i64> {
    Ok(sqlx::query_scalar("SELECT wingman_ms()").fetch_one(&mut *c).await?)
}

/// Makes sure a row exists to lock, with an empty budget.
async fn create(c: &mut PgConnection, name: &str, now: i64) -> StoreResult<()> {
    sqlx::query("INSERT INTO provider_budgets (name, state, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
        .bind(name)
        .bind(serde_json::to_string(&Budget::default())?)
        .bind(now)
        .execute(&mut *c)
        .await?;
    Ok(())
}

/// Locks a budget's row until the transaction ends; false when it has none.
async fn lock(c: &mut PgConnection, name: &str) -> StoreResult<bool> {
    let found = sqlx::query("SELECT 1 FROM provider_budgets WHERE name = $1 FOR UPDATE")
        .bind(name)
        .fetch_optional(&mut *c)
        .await?;
    Ok(found.is_some())
}

async fn load(c: &mut PgConnection, name: &str) -> StoreResult<Option<Budget>> {
    let state: Option<String> = sqlx::query_scalar("SELECT state FROM provider_budgets WHERE name = $1")
        .bind(name)
        .fetch_optional(&mut *c)
        .await?;
    Ok(match state {
        Some(state) => Some(serde_json::from_str(&state)?),
        None => None,
    })
}

async fn store(c: &mut PgConnection, name: &str, budget: &Budget, now: i64) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO provider_budgets (name, state, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
    )
    .bind(name)
    .bind(serde_json::to_string(budget)?)
    .bind(now)
    .execute(&mut *c)
    .await?;
    Ok(())
}

async fn reserved(c: &mut PgConnection, name: &str, run_id: &str) -> StoreResult<Option<i64>> {
    let until: Option<Option<i64>> =
        sqlx::query_scalar("SELECT until FROM provider_calls WHERE budget = $1 AND run_id = $2 AND reserved")
            .bind(name)
            .bind(run_id)
            .fetch_optional(&mut *c)
            .await?;
    Ok(until.flatten())
}

/// Sending calls of other runs that still run under the epoch they sent in.
async fn in_flight(c: &mut PgConnection, name: &str, run_id: &str) -> StoreResult<u32> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM provider_calls c JOIN runs r ON r.id = c.run_id
         WHERE c.budget = $1 AND c.until IS NULL AND c.run_id <> $2
           AND r.status = 'running' AND r.lease_epoch = c.epoch",
    )
    .bind(name)
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    Ok(n as u32)
}

/// The calls of other live runs a call waiting in `name` lines up behind:
/// those waiting for a share not yet reserved whose wait ends before its own.
async fn waiting_ahead(c: &mut PgConnection, name: &str, run_id: &str) -> StoreResult<u32> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM provider_calls c JOIN runs r ON r.id = c.run_id
         WHERE c.budget = $1 AND NOT c.reserved AND c.until IS NOT NULL AND c.run_id <> $2
           AND r.status IN ('queued', 'running')
           AND c.until < COALESCE((SELECT until FROM provider_calls WHERE budget = $1 AND run_id = $2
                                     AND NOT reserved), 9223372036854775807)",
    )
    .bind(name)
    .bind(run_id)
    .fetch_one(&mut *c)
    .await?;
    Ok(n as u32)
}
