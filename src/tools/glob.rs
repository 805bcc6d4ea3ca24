//! `glob {pattern}`: files in the work_dir whose path matches a pattern.
//!
//! Matching uses `globset` (`*` and `?` stay within one path component,
//! `**` crosses any number, `{a,b}` and `[ab]` work as in a shell). The walk
//! never follows a symlink, honours `.gitignore`/`.ignore` files and skips
//! `.git`; see `walk`. Results are relative to the work_dir, sorted, capped.

use std::ops::ControlFlow;
use std::path::PathBuf;

use serde_json::Value;

use super::args;
use super::confine::Root;
use super::walk::{self, PathMatcher};
use super::{ToolContext, ToolOutput};

/// The most paths returned.
pub const MAX_RESULTS: usize = 1000;

/// Lists the matching files.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let pattern = match args::string(input, "pattern") {
        Ok(p) => p.to_string(),
        Err(e) => return e,
    };
    let work_dir = ctx.work_dir.clone();
    let cancel = ctx.cancel.clone();
    args::blocking(move || {
        let root = Root::open(&work_dir)?;
        let matcher = walk::matcher(&root, &pattern)?;
        let (mut found, total) = search(&root, &matcher, &cancel)?;
        found.sort();
        Ok(render(&pattern, &found, total))
    })
    .await
}

/// The first matching paths in walk order, and how many matched in all.
fn search(
    root: &Root,
    matcher: &PathMatcher,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<(Vec<PathBuf>, usize), String> {
    let start = match root.canonical(&matcher.literal_prefix()) {
        Ok(start) => start,
        // The literal directory does not exist, so nothing can match.
        Err(_) => return Ok((Vec::new(), 0)),
    };
    let mut found = Vec::new();
    let mut total = 0;
    walk::walk(root, &start, cancel, |rel, _| {
        // Re-checked through the confined open: a name the walker listed from
        // outside (a directory swapped for a symlink) does not resolve.
        if matcher.is_match(rel) && (found.len() >= MAX_RESULTS || root.exists_nofollow(rel)) {
            total += 1;
            if found.len() < MAX_RESULTS {
                found.push(rel.to_path_buf());
            }
        }
        ControlFlow::Continue(())
    })?;
    Ok((found, total))
}

fn render(pattern: &str, found: &[PathBuf], total: usize) -> String {
    if found.is_empty() {
        return format!("no files match {pattern:?}");
    }
    let mut out: String = found.iter().map(|p| format!("{}\n", p.display())).collect();
    if total > found.len() {
        out.push_str(&format!(
            "[results cut: showing {} of {total} matching files; use a narrower pattern]\n",
            found.len()
        ));
    }
    out.trim_end().to_string()
}
