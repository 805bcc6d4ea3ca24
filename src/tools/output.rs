//! Shaping what a tool returns: cutting long output with a note.
//!
//! Output meant for the model is capped (2,000 lines / 50 KB, the same
//! everywhere) so that one tool call cannot flood its context; every cut
//! says so, and says what was left out.

/// The most lines of output kept.
pub const MAX_LINES: usize = 2000;
/// The most bytes of output kept.
pub const MAX_BYTES: usize = 50 * 1024;
/// How much of the end of a stream [`Tail`] holds before it drops the front.
const TAIL_KEEP: usize = MAX_BYTES + 16 * 1024;

/// Cuts `line` to at most `max` bytes on a character boundary, marking the cut.
pub fn clip_line(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [line cut at {max} bytes]", &line[..end])
}

/// The start of `text` within `max_lines` lines and `max_bytes` bytes, and
/// whether anything was left out.
pub fn head(text: &str, max_lines: usize, max_bytes: usize) -> (&str, bool) {
    let mut end = 0;
    for (count, line) in text.split_inclusive('\n').enumerate() {
        if count >= max_lines {
            return (&text[..end], true);
        }
        if end + line.len() > max_bytes {
            // The last line that fits only in part is kept in part.
            let mut cut = max_bytes;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return (&text[..cut], true);
        }
        end += line.len();
    }
    (text, false)
}

/// `text` within the cap ([`MAX_LINES`], [`MAX_BYTES`]): its start, with a
/// note that says what was cut when anything was. For results that arrive
/// whole (an HTTP tool's body, a client's output).
pub fn capped(text: &str) -> String {
    let (kept, cut) = head(text, MAX_LINES, MAX_BYTES);
    if !cut {
        return text.to_string();
    }
    let lines = text[kept.len()..].lines().count();
    let bytes = text.len() - kept.len();
    format!("{kept}\n[output truncated: {lines} more lines ({bytes} bytes) were cut; the first part is shown]")
}

/// The end of a stream of bytes, kept in bounded memory, with a count of
/// what was dropped from the front. Bash output goes through this, so a
/// command that prints gigabytes costs no more memory than one that prints
/// a page.
#[derive(Debug, Default)]
pub struct Tail {
    buf: Vec<u8>,
    dropped_lines: usize,
    dropped_bytes: usize,
}

impl Tail {
    /// Appends bytes, dropping whole lines from the front once the buffer
    /// holds well over what can be shown.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() <= 2 * TAIL_KEEP {
            return;
        }
        let mut cut = self.buf.len() - TAIL_KEEP;
        // Cut just after a newline when there is one, so lines stay whole.
        if let Some(i) = self.buf[cut..].iter().position(|&b| b == b'\n') {
            cut += i + 1;
        }
        self.dropped_lines += self.buf[..cut].iter().filter(|&&b| b == b'\n').count();
        self.dropped_bytes += cut;
        self.buf.drain(..cut);
    }

    /// The last lines within [`MAX_LINES`] and [`MAX_BYTES`], preceded by a
    /// note when anything before them was dropped.
    pub fn render(&self) -> String {
        let text = String::from_utf8_lossy(&self.buf);
        let text = text.strip_suffix('\n').unwrap_or(&text);
        let (kept, lines_cut) = tail(text, MAX_LINES, MAX_BYTES);
        let lines = self.dropped_lines + lines_cut;
        let bytes = self.dropped_bytes + (text.len() - kept.len());
        if lines == 0 && bytes == 0 {
            return kept.to_string();
        }
        format!(
            "[output truncated: the first {lines} lines ({bytes} bytes) were dropped; the last part is shown]\n{kept}"
        )
    }
}

/// The end of `text` within `max_lines` lines and `max_bytes` bytes, and how
/// many whole lines were left out before it. A last line too long to fit is
/// kept in part.
pub fn tail(text: &str, max_lines: usize, max_bytes: usize) -> (&str, usize) {
    let mut start = text.len();
    let mut kept = 0;
    for line in text.split_inclusive('\n').rev() {
        if kept >= max_lines {
            break;
        }
        if text.len() - start + line.len() > max_bytes {
            if kept == 0 {
                start = text.len() - max_bytes;
                while !text.is_char_boundary(start) {
                    start += 1;
                }
            }
            break;
        }
        start -= line.len();
        kept += 1;
    }
    let total = text.split_inclusive('\n').count();
    let partial = usize::from(kept == 0 && !text.is_empty());
    (&text[start..], total - kept - partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines() {
        let text: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
        let (kept, cut) = tail(text.trim_end(), MAX_LINES, MAX_BYTES);
        assert_eq!(cut, 1000);
        assert!(kept.starts_with("line 1001\n") && kept.ends_with("line 3000"));
    }

    #[test]
    fn a_huge_single_line_keeps_its_end() {
        let text = format!("{}END", "é".repeat(40_000));
        let (kept, cut) = tail(&text, MAX_LINES, MAX_BYTES);
        assert!(kept.len() <= MAX_BYTES && kept.ends_with("END"));
        assert_eq!(cut, 0);
    }

    #[test]
    fn the_stream_tail_is_bounded_and_counts_what_it_dropped() {
        let mut t = Tail::default();
        for i in 0..100_000 {
            t.push(format!("{i}\n").as_bytes());
        }
        assert!(t.buf.len() <= 2 * TAIL_KEEP + 8);
        let out = t.render();
        assert!(out.starts_with("[output truncated: the first 98000 lines"), "{}", &out[..100]);
        assert!(out.ends_with("\n99999"));
        assert_eq!(out.lines().count(), MAX_LINES + 1);
    }

    #[test]
    fn head_cuts_by_lines_and_bytes() {
        assert_eq!(head("a\nb\nc\n", 2, 100), ("a\nb\n", true));
        assert_eq!(head("abcdef", 10, 3), ("abc", true));
        assert_eq!(head("a\nb", 10, 100), ("a\nb", false));
    }

    #[test]
    fn clip_line_respects_char_boundaries() {
        assert_eq!(clip_line("ééé", 3), "é… [line cut at 3 bytes]");
        assert_eq!(clip_line("abc", 3), "abc");
    }
}
