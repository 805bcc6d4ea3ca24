//! The programs stdio MCP servers may run. A stdio server's `command` is a
//! program the workers start, so only the operator says which ones may be
//! declared (`--allow-mcp-command node,uvx`, or `*` for any): without the
//! setting, none may. Servers check a declaration against it (a refusal is
//! a `422`), and each worker checks a server against its own before it
//! starts one, since a definition may have been stored under another
//! setting.

use std::collections::BTreeSet;

use crate::domain::model::McpServer;

/// The commands allowed (`--allow-mcp-command`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedCommands {
    any: bool,
    commands: BTreeSet<String>,
}

impl AllowedCommands {
    /// From the setting's entries: `*` allows any command; any other entry
    /// allows the command written exactly so (`node` is found on the PATH;
    /// it does not allow `/tmp/x/node`, which must be named itself).
    pub fn new(entries: &[String]) -> AllowedCommands {
        let entries = entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty());
        let mut allowed = AllowedCommands::default();
        for entry in entries {
            if entry == "*" {
                allowed.any = true;
            } else {
                allowed.commands.insert(entry.to_string());
            }
        }
        allowed
    }

    /// Any command.
    pub fn any() -> AllowedCommands {
        AllowedCommands { any: true, commands: BTreeSet::new() }
    }

    /// Whether `command` may be run.
    pub fn allows(&self, command: &str) -> bool {
        self.any || self.commands.contains(command)
    }

    /// Why `command` may not be run.
    pub fn refusal(&self, command: &str) -> String {
        if self.commands.is_empty() {
            return format!(
                "the command {command:?} is not allowed: no stdio MCP server may run here until the operator \
                 allows its command (--allow-mcp-command, WINGMAN_ALLOW_MCP_COMMANDS)"
            );
        }
        let listed: Vec<&str> = self.commands.iter().map(String::as_str).collect();
        format!(
            "the command {command:?} is not allowed: the operator allows {} (--allow-mcp-command)",
            listed.join(", ")
        )
    }

    /// Checks the stdio servers of a declaration: the first whose command is
    /// not allowed, with why.
    pub fn check(&self, servers: &[McpServer]) -> Result<(), String> {
        for server in servers {
            if let Some(command) = server.command.as_deref().filter(|c| !self.allows(c)) {
                return Err(format!("mcp_servers: {}: {}", server.name, self.refusal(command)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(name: &str, command: &str) -> McpServer {
        serde_json::from_value(serde_json::json!({"name": name, "command": command})).unwrap()
    }

    #[test]
    fn only_the_commands_named_are_allowed_and_none_without_the_setting() {
        let none = AllowedCommands::new(&[]);
        assert!(!none.allows("node"));
        assert!(none.check(&[stdio("a", "node")]).unwrap_err().contains("--allow-mcp-command"));
        let some = AllowedCommands::new(&["node".into(), " uvx ".into()]);
        assert!(some.allows("node") && some.allows("uvx"));
        assert!(!some.allows("/tmp/x/node") && !some.allows("sh"));
        let refused = some.check(&[stdio("a", "node"), stdio("b", "sh")]).unwrap_err();
        assert!(refused.starts_with("mcp_servers: b:") && refused.contains("node, uvx"), "{refused}");
        let http: McpServer = serde_json::from_value(serde_json::json!({"name": "h", "url": "https://x"})).unwrap();
        assert!(none.check(&[http]).is_ok(), "an HTTP server runs nothing");
        assert!(AllowedCommands::new(&["*".into()]).allows("/anything"));
    }
}
