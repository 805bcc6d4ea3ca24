//! How values read on a terminal: times, durations, tokens, costs,
//! shortened text and aligned tables.

use chrono::{DateTime, Utc};
use serde_json::Value;
use unicode_width::UnicodeWidthStr;

use super::style::{Style, Tone};

/// An RFC 3339 time from the API.
pub fn time(value: &Value) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value.as_str()?).ok().map(|t| t.with_timezone(&Utc))
}

/// A time as people read it, to the second: `2025-06-01 14:03:07 UTC`.
pub fn timestamp(value: &Value) -> String {
    time(value).map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string()).unwrap_or_else(|| "—".into())
}

/// How long ago a time was: `12 s ago`, `3 min ago`, `2 d ago`.
pub fn age(value: &Value) -> String {
    let Some(t) = time(value) else { return "—".into() };
    let s = (Utc::now() - t).num_seconds().max(0);
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86400 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86400),
    }
}

/// The time from one API time to another.
pub fn between(from: &Value, to: &Value) -> Option<chrono::Duration> {
    Some(time(to)? - time(from)?)
}

/// A duration in the largest unit that keeps it short: `420 ms`, `1.4 s`,
/// `3 min 12 s`, `5 h 2 min`, `3 d 4 h`.
pub fn duration(d: chrono::Duration) -> String {
    let ms = d.num_milliseconds().max(0);
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{ms} ms"),
        0..60 => format!("{:.1} s", ms as f64 / 1000.0),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        3600..86400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        _ => format!("{} d {} h", s / 86400, s % 86400 / 3600),
    }
}

/// Token counts of a `usage`: `13 in / 9 out`.
pub fn tokens(usage: &Value) -> String {
    format!("{} in / {} out", usage["input_tokens"].as_u64().unwrap_or(0), usage["output_tokens"].as_u64().unwrap_or(0))
}

/// The cost of a `usage` in dollars (`$0.000174`); `None` when the model
/// has no known price.
pub fn cost(usage: &Value) -> Option<String> {
    let c = usage["cost_usd"].as_f64()?;
    let digits = if c >= 1.0 { format!("{c:.2}") } else { format!("{c:.6}") };
    let trimmed = if digits.contains('.') { digits.trim_end_matches('0').trim_end_matches('.') } else { &digits };
    Some(format!("${trimmed}"))
}

/// `1 step`, `2 steps`.
pub fn count(n: u64, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        _ => format!("{n} {thing}s"),
    }
}

/// Text on one line of at most `width` characters: whitespace runs become
/// one space and a cut is marked with `…`.
pub fn one_line(text: &str, width: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&flat, width)
}

/// At most `width` characters, a cut marked with `…`.
pub fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// How much of long text to show.
#[derive(Debug, Clone, Copy)]
pub struct Shorten {
    /// Lines kept of a tool's output.
    pub lines: usize,
    /// Characters kept of each line, and of a tool call's input.
    pub width: usize,
}

impl Shorten {
    /// Enough to see what happened on one screen.
    pub const SOME: Shorten = Shorten { lines: 8, width: 200 };
    /// Everything (`--full`).
    pub const NONE: Shorten = Shorten { lines: usize::MAX, width: usize::MAX };

    /// `text`'s first lines, each clipped, and how many lines were left out.
    pub fn lines(&self, text: &str) -> Vec<String> {
        let all: Vec<&str> = text.trim_end_matches('\n').lines().collect();
        let mut kept: Vec<String> = all.iter().take(self.lines).map(|l| clip(l, self.width)).collect();
        if all.len() > self.lines {
            kept.push(format!("… {} more lines", all.len() - self.lines));
        }
        kept
    }
}

/// Columns aligned under bold headers, each cell in its own tone. Cells
/// are aligned by the columns a terminal gives them (two for most CJK
/// characters and emoji), and a row may have more cells than there are
/// headers.
#[derive(Debug, Default)]
pub struct Table {
    headers: Vec<&'static str>,
    rows: Vec<Vec<(String, Tone)>>,
}

impl Table {
    /// A table with these headers and no rows yet.
    pub fn new(headers: &[&'static str]) -> Table {
        Table { headers: headers.to_vec(), rows: Vec::new() }
    }

    /// Adds a row, one text and tone per column.
    pub fn row(&mut self, cells: Vec<(String, Tone)>) {
        self.rows.push(cells);
    }

    /// The table's lines (no header line without headers); the last column
    /// is not padded.
    pub fn render(&self, style: &Style) -> String {
        let widths = self.widths();
        let last = widths.len().saturating_sub(1);
        let pad = |i: usize, text: &str| match i == last {
            true => text.to_string(),
            false => format!("{text}{}", " ".repeat(widths[i].saturating_sub(text.width()))),
        };
        let mut out = String::new();
        if !self.headers.is_empty() {
            let header: Vec<String> = self.headers.iter().enumerate().map(|(i, h)| pad(i, h)).collect();
            out = style.paint(Tone::Bold, header.join("  ").trim_end()) + "\n";
        }
        for row in &self.rows {
            let cells: Vec<String> =
                row.iter().enumerate().map(|(i, (t, tone))| style.paint(*tone, &pad(i, t))).collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }

    /// Each column's width in terminal columns: its widest cell or header.
    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.width()).collect();
        for row in &self.rows {
            if widths.len() < row.len() {
                widths.resize(row.len(), 0);
            }
            for (width, (text, _)) in widths.iter_mut().zip(row) {
                *width = (*width).max(text.width());
            }
        }
        widths
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations_costs_and_tokens_read_shortly() {
        let d = chrono::Duration::milliseconds;
        assert_eq!(duration(d(420)), "420 ms");
        assert_eq!(duration(d(1_440)), "1.4 s");
        assert_eq!(duration(d(192_000)), "3 min 12 s");
        assert_eq!(duration(d(3 * 86_400_000 + 4 * 3_600_000)), "3 d 4 h");
        assert_eq!(cost(&json!({"cost_usd": 0.000174})).unwrap(), "$0.000174");
        assert_eq!(cost(&json!({"cost_usd": 12.5})).unwrap(), "$12.5");
        assert_eq!(cost(&json!({"cost_usd": 0.0})).unwrap(), "$0");
        assert_eq!(cost(&json!({})), None);
        assert_eq!((count(1, "step"), count(2, "step")), ("1 step".to_string(), "2 steps".to_string()));
        assert_eq!(tokens(&json!({"input_tokens": 13, "output_tokens": 9})), "13 in / 9 out");
        let from = json!("2025-06-01T14:03:07.000Z");
        assert_eq!(between(&from, &json!("2025-06-01T14:03:08.500Z")), Some(d(1_500)));
        assert_eq!(timestamp(&from), "2025-06-01 14:03:07 UTC");
    }

    #[test]
    fn long_text_is_cut_where_it_says_so() {
        assert_eq!(one_line("a\n  b   c", 10), "a b c");
        assert_eq!(clip("abcdef", 4), "abc…");
        let text: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let kept = Shorten { lines: 3, width: 5 }.lines(&text);
        assert_eq!(kept, ["line…", "line…", "line…", "… 17 more lines"]);
        assert_eq!(Shorten::NONE.lines(&text).len(), 20);
    }

    #[test]
    fn tables_align_on_the_text_not_the_colour() {
        let mut table = Table::new(&["ID", "STATUS", "NOTE"]);
        table.row(vec![("a".into(), Tone::Plain), ("succeeded".into(), Tone::Status), ("x".into(), Tone::Plain)]);
        table.row(vec![("bbb".into(), Tone::Plain), ("failed".into(), Tone::Status), ("".into(), Tone::Plain)]);
        let plain = table.render(&Style::decide(false, None, None));
        assert_eq!(plain, "ID   STATUS     NOTE\na    succeeded  x\nbbb  failed\n");
        let coloured = table.render(&Style::decide(true, None, None));
        assert!(coloured.contains("\x1b[31mfailed   \x1b[0m"), "{coloured:?}");
    }

    #[test]
    fn rows_longer_than_the_headers_and_empty_headers_are_drawn() {
        let plain = Style::decide(false, None, None);
        let cell = |text: &str| (text.to_string(), Tone::Plain);
        let mut table = Table::new(&["A"]);
        table.row(vec![cell("x"), cell("extra")]);
        table.row(vec![cell("long"), cell("y"), cell("z")]);
        assert_eq!(table.render(&plain), "A\nx     extra\nlong  y      z\n");
        let mut table = Table::new(&[]);
        assert_eq!(table.render(&plain), "");
        table.row(vec![cell("a"), cell("b")]);
        assert_eq!(table.render(&plain), "a  b\n");
    }

    #[test]
    fn wide_characters_are_aligned_by_the_columns_they_take() {
        let cell = |text: &str| (text.to_string(), Tone::Plain);
        let mut table = Table::new(&["NAME", "NOTE"]);
        table.row(vec![cell("漢字"), cell("x")]);
        table.row(vec![cell("🦀 ok"), cell("y")]);
        table.row(vec![cell("abcdef"), cell("z")]);
        let text = table.render(&Style::decide(false, None, None));
        assert_eq!(text, "NAME    NOTE\n漢字    x\n🦀 ok   y\nabcdef  z\n");
    }
}
