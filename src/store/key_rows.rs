//! The row decoding of API keys both backends share, and the digest's form
//! in the `api_keys` table.

use super::rows::{at, Columns};
use super::{StoreError, StoreResult};
use crate::domain::access::{self, ApiKeyInfo, Role};

/// The columns [`key`] reads, in a `SELECT`: never the digest.
pub const COLUMNS: &str = "id, owner, role, name, hint, created_at, expires_at, revoked_at";

/// A digest as the table keeps it: lowercase hex, unique.
pub fn hex(digest: &[u8; 32]) -> String {
    access::hex(digest)
}

/// Decodes a key's row selected with [`COLUMNS`].
pub fn key(row: &impl Columns) -> StoreResult<ApiKeyInfo> {
    let role = row.text("role")?;
    Ok(ApiKeyInfo {
        id: row.text("id")?,
        owner: row.text("owner")?,
        role: Role::parse(&role).ok_or_else(|| StoreError::internal(format!("unknown key role {role:?}")))?,
        name: row.opt_text("name")?,
        hint: row.text("hint")?,
        created_at: at(row.int("created_at")?),
        expires_at: row.opt_int("expires_at")?.map(at),
        revoked_at: row.opt_int("revoked_at")?.map(at),
    })
}
