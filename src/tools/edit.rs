//! `edit {path, old_string, new_string, replace_all?}`: exact replacement.
//!
//! The old string must occur exactly once, unless `replace_all` is set, so
//! the model never changes a place it did not mean to; the count is named
//! when it does not. The file is rewritten atomically and the result is a
//! unified diff of the change.

use std::io::Read;
use std::time::Duration;

use serde_json::Value;
use similar::TextDiff;

use super::confine::Root;
use super::write::write_atomic;
use super::{args, output};
use super::{ToolContext, ToolOutput};

/// Files larger than this are not edited in memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// The diff shown is cut to this many lines and bytes.
const MAX_DIFF_LINES: usize = 2000;
const MAX_DIFF_BYTES: usize = 50 * 1024;

/// The parsed input.
struct Request {
    path: String,
    old: String,
    new: String,
    replace_all: bool,
}

/// Edits the file.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let request = match parse(input) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let work_dir = ctx.work_dir.clone();
    args::blocking(move || {
        let root = Root::open(&work_dir)?;
        edit(&root, &request)
    })
    .await
}

fn parse(input: &Value) -> Result<Request, ToolOutput> {
    let path = args::string(input, "path")?.to_string();
    let old = args::string(input, "old_string")?.to_string();
    let new = args::string(input, "new_string")?.to_string();
    let replace_all = args::opt_bool(input, "replace_all")?.unwrap_or(false);
    if old.is_empty() {
        return Err(ToolOutput::error("\"old_string\" is empty; use write to create a file"));
    }
    if old == new {
        return Err(ToolOutput::error("\"old_string\" and \"new_string\" are the same; nothing would change"));
    }
    Ok(Request { path, old, new, replace_all })
}

/// Reads, replaces, writes back, and describes the change.
fn edit(root: &Root, req: &Request) -> Result<String, String> {
    let rel = root.relative(&req.path)?;
    let display = rel.display().to_string();
    let before = read_text(root, &rel)?;
    let count = before.matches(req.old.as_str()).count();
    if count == 0 {
        return Err(format!(
            "old_string was not found in {display} (0 matches); it must match the file exactly, including whitespace and indentation"
        ));
    }
    if count > 1 && !req.replace_all {
        return Err(format!(
            "old_string matches {count} times in {display}; include more surrounding text so that it matches exactly once, or set replace_all to true"
        ));
    }
    let after =
        if req.replace_all { before.replace(&req.old, &req.new) } else { before.replacen(&req.old, &req.new, 1) };
    let written = write_atomic(root, &rel, after.as_bytes())?;
    let noun = if count == 1 { "occurrence" } else { "occurrences" };
    Ok(format!("replaced {count} {noun} in {}\n{}", written.display, diff(&before, &after, &written.display)))
}

/// The file's text; binary and oversized files are refused.
fn read_text(root: &Root, rel: &std::path::Path) -> Result<String, String> {
    let display = rel.display();
    let file = root.open_file(rel)?;
    let size = file.metadata().map_err(|e| format!("{display}: {e}"))?.len();
    if size > MAX_FILE_BYTES {
        return Err(format!("{display} is {size} bytes, more than the {MAX_FILE_BYTES} bytes edit handles"));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_FILE_BYTES).read_to_end(&mut bytes).map_err(|e| format!("{display}: {e}"))?;
    if bytes.contains(&0) {
        return Err(format!("{display} is a binary file; edit changes text files only"));
    }
    String::from_utf8(bytes).map_err(|_| format!("{display} is not valid UTF-8 text; edit changes text files only"))
}

/// A unified diff, cut with a note if it is very long.
fn diff(before: &str, after: &str, display: &str) -> String {
    let text = TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string();
    match output::head(&text, MAX_DIFF_LINES, MAX_DIFF_BYTES) {
        (all, false) => all.trim_end_matches('\n').to_string(),
        (part, true) => format!("{part}\n[diff cut at {MAX_DIFF_LINES} lines / 50 KB]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_removed_and_added_lines_with_headers() {
        let d = diff("a\nb\nc\n", "a\nB\nc\n", "f.txt");
        assert!(d.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@"), "{d}");
        assert!(d.contains("\n-b\n+B\n"), "{d}");
    }

    #[test]
    fn empty_and_identical_strings_are_refused() {
        let empty = parse(&serde_json::json!({"path": "f", "old_string": "", "new_string": "x"}));
        assert!(empty.err().unwrap().output.contains("empty"));
        let same = parse(&serde_json::json!({"path": "f", "old_string": "x", "new_string": "x"}));
        assert!(same.err().unwrap().output.contains("the same"));
        let bad = parse(&serde_json::json!({"path": "f", "old_string": "x", "new_string": "y", "replace_all": "yes"}));
        assert!(bad.err().unwrap().output.contains("replace_all"));
    }
}
