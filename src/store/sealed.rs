//! The tables of values that never show (provider keys and secrets), as
//! both backends keep them: one row per owner and name, with the value and
//! when it was first and last stored. A run uses its owner's value of a
//! name, else the first admin's, which every owner shares. Only a worker's
//! lookup reads a value back.

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

/// Of rows sorted by name with the one that wins first (an owner's own
/// before the first admin's shared one), the first of each name.
pub fn first_of_each<T>(rows: Vec<T>, name: impl Fn(&T) -> String) -> Vec<T> {
    let mut kept: Vec<T> = Vec::with_capacity(rows.len());
    for row in rows {
        if kept.last().is_none_or(|last| name(last) != name(&row)) {
            kept.push(row);
        }
    }
    kept
}
