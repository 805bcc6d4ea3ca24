//! Built-in tools, run by the worker inside the session's work_dir.
//!
//! A tool never fails the run: whatever goes wrong becomes a result with
//! `is_error: true` that the model sees. File tools reach the filesystem
//! only through [`confine`], which has the kernel resolve every path beneath
//! the work_dir; webfetch connects only to addresses [`netpolicy`] allows.
//! See `docs/tools.md` for each tool's inputs, limits and guarantees.

use std::path::PathBuf;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::provider::ToolSpec;

mod args;
pub mod bash;
pub mod confine;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod html;
pub mod netpolicy;
pub mod output;
pub mod read;
mod specs;
mod walk;
pub mod webfetch;
pub mod write;

/// What a tool runs with.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory; every path a tool touches is inside it.
    pub work_dir: PathBuf,
    /// Fired when the run is cancelled or the worker gives the run up: a
    /// running tool stops at once (bash kills its process group).
    pub cancel: CancellationToken,
    /// Lets webfetch reach loopback, private, link-local and unique-local
    /// addresses: for trusted deployments and tests only.
    pub allow_private_network: bool,
}

impl ToolContext {
    /// A context for `work_dir` with its own cancel token and the safe
    /// network default.
    pub fn new(work_dir: impl Into<PathBuf>) -> Self {
        ToolContext { work_dir: work_dir.into(), cancel: CancellationToken::new(), allow_private_network: false }
    }
}

/// The result the model sees.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text shown to the model.
    pub output: String,
    /// True when the tool failed; the model sees the failure and may retry.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(output: impl Into<String>) -> Self {
        ToolOutput { output: output.into(), is_error: false }
    }

    /// A failed result.
    pub fn error(output: impl Into<String>) -> Self {
        ToolOutput { output: output.into(), is_error: true }
    }
}

/// The names of every built-in tool.
pub const NAMES: &[&str] = &["bash", "read", "write", "edit", "glob", "grep", "webfetch"];

/// True if `name` is a built-in tool.
pub fn is_known(name: &str) -> bool {
    NAMES.contains(&name)
}

/// True for tools that change nothing, which may run concurrently.
pub fn is_read_only(name: &str) -> bool {
    matches!(name, "read" | "glob" | "grep" | "webfetch")
}

/// The description of a tool given to the model: what it does, its limits,
/// and a JSON schema of its input.
pub fn spec(name: &str) -> Option<ToolSpec> {
    specs::spec(name)
}

/// Runs a tool by name.
pub async fn run(name: &str, input: &Value, ctx: &ToolContext) -> ToolOutput {
    if !input.is_object() {
        return ToolOutput::error(format!("the input of {name} must be a JSON object"));
    }
    match name {
        "bash" => bash::run(input, ctx).await,
        "read" => read::run(input, ctx).await,
        "write" => write::run(input, ctx).await,
        "edit" => edit::run(input, ctx).await,
        "glob" => glob::run(input, ctx).await,
        "grep" => grep::run(input, ctx).await,
        "webfetch" => webfetch::run(input, ctx).await,
        other => ToolOutput::error(format!("unknown tool {other:?} (known: {})", NAMES.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_tools_that_change_nothing_are_read_only() {
        let read_only: Vec<&str> = NAMES.iter().copied().filter(|n| is_read_only(n)).collect();
        assert_eq!(read_only, ["read", "glob", "grep", "webfetch"]);
        assert!(NAMES.iter().all(|n| is_known(n)) && !is_known("rm"));
    }

    #[test]
    fn every_named_tool_has_an_object_schema_whose_required_fields_exist() {
        for name in NAMES {
            let spec = spec(name).unwrap_or_else(|| panic!("{name} has no spec"));
            let schema = &spec.input_schema;
            assert_eq!(schema["type"], "object", "{name}");
            for field in schema["required"].as_array().unwrap() {
                assert!(schema["properties"].get(field.as_str().unwrap()).is_some(), "{name}: {field}");
            }
        }
        assert!(spec("nope").is_none());
    }

    #[tokio::test]
    async fn unknown_tools_and_non_object_inputs_are_errors() {
        let ctx = ToolContext::new(std::env::temp_dir());
        assert!(run("nope", &json!({}), &ctx).await.is_error);
        assert!(run("read", &json!("x"), &ctx).await.output.contains("JSON object"));
    }
}
