//! `grep {pattern, path?, glob?}`: a regular expression over files.
//!
//! Searching uses ripgrep's crates (`grep-regex`, `grep-searcher`) over the
//! confined walk in `walk`; each file is opened through the confined open.
//! Results are `file:line:text`, files in sorted order; binary files (a NUL
//! byte) are skipped and counted; results are capped with a note.

use std::fs::File;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::confine::Root;
use super::walk::{self, PathMatcher};
use super::{args, output};
use super::{ToolContext, ToolOutput};

/// The most matching lines returned.
pub const MAX_MATCHES: usize = 200;
/// The most bytes of results returned.
pub const MAX_BYTES: usize = 50 * 1024;
/// The largest buffer one line of a file may need; longer lines make the
/// file be skipped rather than read into memory whole.
const MAX_LINE_BUFFER: usize = 64 * 1024 * 1024;
/// Matching lines longer than this are cut.
const MAX_LINE_BYTES: usize = 500;

/// The parsed input.
struct Request {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
}

/// What a search found.
#[derive(Default)]
struct Found {
    lines: Vec<String>,
    bytes: usize,
    cut: bool,
    binary_files: usize,
}

/// Searches the files.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let request = match parse(input) {
        Ok(r) => r,
        Err(e) => return e,
    };
    let work_dir = ctx.work_dir.clone();
    let cancel = ctx.cancel.clone();
    args::blocking(move || {
        let root = Root::open(&work_dir)?;
        search(&root, &request, &cancel).map(|found| render(&request.pattern, found))
    })
    .await
}

fn parse(input: &Value) -> Result<Request, ToolOutput> {
    Ok(Request {
        pattern: args::string(input, "pattern")?.to_string(),
        path: args::opt_string(input, "path")?.map(str::to_string),
        glob: args::opt_string(input, "glob")?.map(str::to_string),
    })
}

fn search(root: &Root, req: &Request, cancel: &CancellationToken) -> Result<Found, String> {
    let matcher = RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(&req.pattern)
        .map_err(|e| format!("invalid regular expression: {e}"))?;
    let filter = req.glob.as_deref().map(|g| walk::matcher(root, g)).transpose()?;
    let start = match &req.path {
        Some(p) => root.canonical(&root.relative(p)?)?,
        None => Default::default(),
    };
    // The heap limit bounds the buffer a single enormous line would need;
    // such a file fails its search and is skipped.
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .heap_limit(Some(MAX_LINE_BUFFER))
        .build();
    let mut found = Found::default();
    let is_file = root.open_file(&start).is_ok();
    if is_file {
        search_file(root, &start, &matcher, &mut searcher, &mut found);
        return Ok(found);
    }
    walk::walk(root, &start, cancel, |rel, file_type| {
        if file_type.is_file() && filter.as_ref().is_none_or(|f: &PathMatcher| f.is_match(rel)) {
            search_file(root, rel, &matcher, &mut searcher, &mut found);
        }
        if found.cut {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    Ok(found)
}

/// Searches one file opened through the confined open; a file that no
/// longer resolves inside the work_dir, or cannot be read, is skipped.
fn search_file(root: &Root, rel: &Path, matcher: &RegexMatcher, searcher: &mut Searcher, found: &mut Found) {
    let Ok(file): Result<File, _> = root.open_file(rel) else { return };
    let mut sink = FileSink { name: rel.display().to_string(), lines: Vec::new(), binary: false, found };
    let _ = searcher.search_file(matcher, &file, &mut sink);
    let FileSink { lines, binary, .. } = sink;
    if binary {
        found.binary_files += 1;
        return;
    }
    for line in lines {
        if found.lines.len() >= MAX_MATCHES || found.bytes + line.len() + 1 > MAX_BYTES {
            found.cut = true;
            return;
        }
        found.bytes += line.len() + 1;
        found.lines.push(line);
    }
}

/// Collects one file's matches; they are kept only if the file turns out
/// not to be binary.
struct FileSink<'a> {
    name: String,
    lines: Vec<String>,
    binary: bool,
    found: &'a Found,
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let text = String::from_utf8_lossy(mat.bytes());
        let text = output::clip_line(text.trim_end_matches(['\n', '\r']), MAX_LINE_BYTES);
        self.lines.push(format!("{}:{}:{text}", self.name, mat.line_number().unwrap_or(0)));
        // One line past the cap is enough to know the results were cut.
        Ok(self.found.lines.len() + self.lines.len() <= MAX_MATCHES)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

fn render(pattern: &str, found: Found) -> String {
    let mut out = found.lines.join("\n");
    if out.is_empty() {
        out = format!("no matches for {pattern:?}");
    }
    if found.cut {
        out.push_str(&format!(
            "\n[results cut at {} matching lines / 50 KB; more matches exist: narrow the pattern, path or glob]",
            found.lines.len()
        ));
    }
    if found.binary_files > 0 {
        out.push_str(&format!("\n[{} binary files skipped]", found.binary_files));
    }
    out
}
