//! `read {path, offset?, limit?}`: numbered lines of a text file.
//!
//! `offset` is the 1-based line to start at and `limit` the number of lines
//! to show. At most 2,000 lines or 50 KB are shown, and very long lines are
//! cut, each time with a note saying how to read on. The file is streamed,
//! so a huge file costs time, not memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use super::confine::Root;
use super::{args, output};
use super::{ToolContext, ToolOutput};

/// The most lines shown at once.
pub const MAX_LINES: u64 = 2000;
/// The most bytes of numbered lines shown at once.
pub const MAX_BYTES: usize = 50 * 1024;
/// Lines longer than this are cut.
pub const MAX_LINE_BYTES: usize = 2000;
/// How much of the start of a file is checked for NUL bytes.
const SNIFF_BYTES: usize = 8192;

/// Reads the file.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let path = match args::string(input, "path") {
        Ok(p) => p.to_string(),
        Err(e) => return e,
    };
    let (offset, limit) = match (args::opt_positive(input, "offset"), args::opt_positive(input, "limit")) {
        (Ok(o), Ok(l)) => (o.unwrap_or(1), l.unwrap_or(MAX_LINES).min(MAX_LINES)),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let work_dir = ctx.work_dir.clone();
    args::blocking(move || {
        let root = Root::open(&work_dir)?;
        let rel = root.relative(&path)?;
        let file = root.open_file(&rel)?;
        read_lines(file, &rel, offset, limit).map_err(|e| format!("{}: {e}", rel.display()))?
    })
    .await
}

/// What was gathered while streaming the file.
#[derive(Default)]
struct Shown {
    text: String,
    first: u64,
    last: u64,
    cut_by_bytes: bool,
}

/// Streams the file, keeping the requested lines and counting all of them.
fn read_lines(file: File, rel: &Path, offset: u64, limit: u64) -> io::Result<Result<String, String>> {
    let size = file.metadata()?.len();
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader.fill_buf()?;
    if head.is_empty() {
        return Ok(Ok(format!("{} is empty (0 bytes)", rel.display())));
    }
    if head[..head.len().min(SNIFF_BYTES)].contains(&0) {
        return Ok(Err(format!("{} is a binary file ({size} bytes); its content is not shown", rel.display())));
    }
    let mut shown = Shown::default();
    let mut collecting = true;
    let mut line_no = 0u64;
    let mut buf = Vec::new();
    while read_line_capped(&mut reader, &mut buf, MAX_LINE_BYTES)? {
        line_no += 1;
        if !collecting || line_no < offset {
            continue;
        }
        if shown.first > 0 && line_no - shown.first >= limit {
            collecting = false;
            continue;
        }
        let entry = format_line(line_no, &buf);
        if shown.text.len() + entry.len() > MAX_BYTES {
            shown.cut_by_bytes = true;
            collecting = false;
            continue;
        }
        shown.text.push_str(&entry);
        shown.first = if shown.first == 0 { line_no } else { shown.first };
        shown.last = line_no;
    }
    if shown.first == 0 {
        return Ok(Err(format!("offset {offset} is past the end of {} ({line_no} lines)", rel.display())));
    }
    Ok(Ok(with_note(shown, line_no)))
}

/// One numbered line, cut if it is very long.
fn format_line(line_no: u64, raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.trim_end_matches(['\n', '\r']);
    format!("{line_no:>6}\t{}\n", output::clip_line(text, MAX_LINE_BYTES))
}

/// The shown lines, with a note when the file goes on past them.
fn with_note(shown: Shown, total: u64) -> String {
    let mut out = shown.text;
    if shown.last < total {
        let why = if shown.cut_by_bytes { "output cut at 50 KB" } else { "more lines follow" };
        out.push_str(&format!(
            "[{why}: showing lines {}-{} of {total}; read again with offset={} to continue]\n",
            shown.first,
            shown.last,
            shown.last + 1
        ));
    }
    out.trim_end_matches('\n').to_string()
}

/// Reads one line into `buf` (cleared first), keeping at most `cap` bytes
/// of it plus the newline and skipping the rest. False at end of file.
fn read_line_capped(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<bool> {
    buf.clear();
    let mut got_any = false;
    loop {
        let avail = reader.fill_buf()?;
        if avail.is_empty() {
            return Ok(got_any);
        }
        got_any = true;
        let (take, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let room = (cap + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&avail[..take.min(room)]);
        reader.consume(take);
        if done {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_lines_skip_the_excess_but_count_every_line() {
        let data = format!("short\n{}\nlast", "x".repeat(10_000));
        let mut reader = io::Cursor::new(data.into_bytes());
        let mut buf = Vec::new();
        assert!(read_line_capped(&mut reader, &mut buf, 100).unwrap());
        assert_eq!(buf, b"short\n");
        assert!(read_line_capped(&mut reader, &mut buf, 100).unwrap());
        assert_eq!(buf.len(), 101);
        assert!(read_line_capped(&mut reader, &mut buf, 100).unwrap());
        assert_eq!(buf, b"last");
        assert!(!read_line_capped(&mut reader, &mut buf, 100).unwrap());
    }

    #[test]
    fn long_lines_are_cut_with_a_mark() {
        let line = format_line(7, "é".repeat(2000).as_bytes());
        assert!(line.starts_with("     7\t"));
        assert!(line.contains("[line cut at 2000 bytes]"));
    }
}
