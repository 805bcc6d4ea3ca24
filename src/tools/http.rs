//! HTTP tools: a call is a signed POST to the user's service.

use super::{ToolContext, ToolOutput};
use crate::model::ToolCall;
use crate::toolset::HttpTool;

/// Calls the HTTP tool `tool` for `call`.
pub async fn call(tool: &HttpTool, call: &ToolCall, ctx: &ToolContext) -> ToolOutput {
    let _ = (call, ctx);
    ToolOutput::error(format!("HTTP tool {} cannot be called yet", tool.name))
}
