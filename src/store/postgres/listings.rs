//! MCP listings in PostgreSQL: one row per definition, the newest kept.

use sqlx::PgPool;

use crate::domain::model::McpListing;
use crate::store::rows::{self, ms};
use crate::store::StoreResult;

/// The upsert of a listing, guarded by its time.
pub async fn record(pool: &PgPool, listing: &McpListing) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO mcp_listings (definition, server, tools, error, listed_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (definition) DO UPDATE SET server = excluded.server, tools = excluded.tools,
             error = excluded.error, listed_at = excluded.listed_at
         WHERE excluded.listed_at >= mcp_listings.listed_at",
    )
    .bind(&listing.definition)
    .bind(&listing.server)
    .bind(serde_json::to_string(&listing.tools)?)
    .bind(&listing.error)
    .bind(ms(listing.listed_at))
    .execute(pool)
    .await?;
    Ok(())
}

/// One listing by its key.
pub async fn get(pool: &PgPool, definition: &str) -> StoreResult<Option<McpListing>> {
    let sql = "SELECT definition, server, tools, error, listed_at FROM mcp_listings WHERE definition = $1";
    let row = sqlx::query(sql).bind(definition).fetch_optional(pool).await?;
    row.as_ref().map(rows::mcp_listing).transpose()
}
