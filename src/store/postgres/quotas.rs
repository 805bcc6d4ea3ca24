//! Owners' quotas and usage by day on PostgreSQL (`owner_quotas`,
//! `owner_usage`). A batch of commits adds to its owners' days in one
//! statement, in the part of the day its worker keeps, so that workers
//! committing at once never wait for each other's row; the day is the
//! database's, as every host agrees on it.

use sqlx::{PgConnection, PgPool, Row};

use crate::domain::quota::{DayUsage, Quota};
use crate::store::StoreResult;

/// Today (UTC) by the database's clock, as SQL.
const TODAY: &str = "to_char(to_timestamp(wingman_ms() / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')";

/// Upserts the owner's row, stamped by the database's clock; an empty quota deletes it.
pub async fn put(c: &mut PgConnection, owner: &str, quota: &Quota) -> StoreResult<()> {
    if quota.is_empty() {
        sqlx::query("DELETE FROM owner_quotas WHERE owner = $1").bind(owner).execute(&mut *c).await?;
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO owner_quotas (owner, body, updated_at) VALUES ($1, $2, wingman_ms())
         ON CONFLICT (owner) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at",
    )
    .bind(owner)
    .bind(serde_json::to_string(quota)?)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Every quota, by owner.
pub async fn list(pool: &PgPool) -> StoreResult<Vec<(String, Quota)>> {
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT owner, body FROM owner_quotas ORDER BY owner").fetch_all(pool).await?;
    rows.into_iter().map(|(owner, body)| Ok((owner, serde_json::from_str(&body)?))).collect()
}

/// What runs used, each added to its owner's day in part `part`: (run ID, usage).
pub async fn charge(c: &mut PgConnection, part: &[&str], charged: &[(&str, DayUsage)]) -> StoreResult<()> {
    if charged.is_empty() {
        return Ok(());
    }
    let ids: Vec<&str> = charged.iter().map(|(id, _)| *id).collect();
    let count = |f: fn(&DayUsage) -> u64| charged.iter().map(|(_, u)| f(u) as i64).collect::<Vec<i64>>();
    let costs: Vec<f64> = charged.iter().map(|(_, u)| u.cost_usd).collect();
    sqlx::query(&format!(
        "INSERT INTO owner_usage AS o (owner, day, part, runs, input_tokens, output_tokens,
                                       cache_read_input_tokens, cache_creation_input_tokens, cost_usd)
         SELECT r.owner, {TODAY}, u.part, SUM(u.runs), SUM(u.i), SUM(u.o), SUM(u.cr), SUM(u.cc), SUM(u.cost)
         FROM UNNEST($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                     $8::float8[]) AS u(id, part, runs, i, o, cr, cc, cost)
         JOIN runs r ON r.id = u.id
         GROUP BY r.owner, u.part ORDER BY r.owner, u.part
         ON CONFLICT (owner, day, part) DO UPDATE SET runs = o.runs + EXCLUDED.runs,
           input_tokens = o.input_tokens + EXCLUDED.input_tokens,
           output_tokens = o.output_tokens + EXCLUDED.output_tokens,
           cache_read_input_tokens = o.cache_read_input_tokens + EXCLUDED.cache_read_input_tokens,
           cache_creation_input_tokens = o.cache_creation_input_tokens + EXCLUDED.cache_creation_input_tokens,
           cost_usd = o.cost_usd + EXCLUDED.cost_usd"
    ))
    .bind(&ids)
    .bind(part)
    .bind(count(|u| u.runs))
    .bind(count(|u| u.input_tokens))
    .bind(count(|u| u.output_tokens))
    .bind(count(|u| u.cache_read_input_tokens))
    .bind(count(|u| u.cache_creation_input_tokens))
    .bind(&costs)
    .execute(&mut *c)
    .await?;
    Ok(())
}

/// Each day's parts added up, from `from` to `to`, on the pool.
pub async fn usage(pool: &PgPool, owner: &str, from: &str, to: &str) -> StoreResult<Vec<DayUsage>> {
    let rows = sqlx::query(
        "SELECT day, SUM(runs)::bigint AS runs, SUM(input_tokens)::bigint AS i, SUM(output_tokens)::bigint AS o,
                SUM(cache_read_input_tokens)::bigint AS cr, SUM(cache_creation_input_tokens)::bigint AS cc,
                SUM(cost_usd) AS cost
         FROM owner_usage WHERE owner = $1 AND day >= $2 AND day <= $3 GROUP BY day ORDER BY day",
    )
    .bind(owner)
    .bind(from)
    .bind(to)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|row| {
            let count = |col: &str| row.try_get::<i64, _>(col).map(|n| n as u64);
            Ok(DayUsage {
                day: row.try_get("day")?,
                runs: count("runs")?,
                input_tokens: count("i")?,
                output_tokens: count("o")?,
                cache_read_input_tokens: count("cr")?,
                cache_creation_input_tokens: count("cc")?,
                cost_usd: row.try_get("cost")?,
            })
        })
        .collect()
}

/// What an owner's runs spent today, by the database's clock.
pub async fn spent_today(pool: &PgPool, owner: &str) -> StoreResult<f64> {
    let spent: Option<f64> =
        sqlx::query_scalar(&format!("SELECT SUM(cost_usd) FROM owner_usage WHERE owner = $1 AND day = {TODAY}"))
            .bind(owner)
            .fetch_one(pool)
            .await?;
    Ok(spent.unwrap_or(0.0))
}

/// Counts the owner's queued rows (the partial index `runs_owner_queued`), on the pool.
pub async fn count_queued(pool: &PgPool, owner: &str) -> StoreResult<u64> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM runs WHERE owner = $1 AND status = 'queued'")
        .bind(owner)
        .fetch_one(pool)
        .await?;
    Ok(n as u64)
}
