//! What workers saw of MCP servers' tools, one row per definition.

use rusqlite::{params, Connection};

use super::rows::{self, ms};
use crate::domain::model::McpListing;
use crate::store::StoreResult;

/// [`crate::store::Store::record_mcp_listing`]: one upsert that keeps the newer.
pub fn record(conn: &Connection, listing: &McpListing) -> StoreResult<()> {
    conn.prepare_cached(
        "INSERT INTO mcp_listings (definition, server, tools, error, listed_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (definition) DO UPDATE SET server = excluded.server, tools = excluded.tools,
             error = excluded.error, listed_at = excluded.listed_at
         WHERE excluded.listed_at >= mcp_listings.listed_at",
    )?
    .execute(params![
        listing.definition,
        listing.server,
        serde_json::to_string(&listing.tools)?,
        listing.error,
        ms(listing.listed_at)
    ])?;
    Ok(())
}

/// [`crate::store::Store::mcp_listing`].
pub fn get(conn: &Connection, definition: &str) -> StoreResult<Option<McpListing>> {
    let sql = "SELECT definition, server, tools, error, listed_at FROM mcp_listings WHERE definition = ?1";
    rows::select_first(conn, sql, [definition], |row| rows::mcp_listing(row))
}
