//! The tables of values that never show (provider keys and secrets), as
//! both backends keep them: one row per name, with the value and when it was
//! first and last stored. Only a worker's lookup reads a value back.

/// A table of sealed values, named by what it holds.
#[derive(Debug, Clone, Copy)]
pub enum SealedTable {
    /// Provider credentials: `provider` → `api_key`.
    Credentials,
    /// Secrets for MCP servers: `name` → `value`.
    Secrets,
}

impl SealedTable {
    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            SealedTable::Credentials => "credentials",
            SealedTable::Secrets => "secrets",
        }
    }

    /// The column of the name a value is stored under.
    pub fn key(self) -> &'static str {
        match self {
            SealedTable::Credentials => "provider",
            SealedTable::Secrets => "name",
        }
    }

    /// The column of the value.
    pub fn value(self) -> &'static str {
        match self {
            SealedTable::Credentials => "api_key",
            SealedTable::Secrets => "value",
        }
    }

    /// What one of its rows is, for a not-found refusal.
    pub fn what(self) -> &'static str {
        match self {
            SealedTable::Credentials => "credential",
            SealedTable::Secrets => "secret",
        }
    }
}
