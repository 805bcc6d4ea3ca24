//! The output side of the HTML converter: whitespace, blocks and markup.

use super::Tag;

/// Builds the text while tags and text arrive in document order.
#[derive(Default)]
pub(super) struct Writer {
    out: String,
    title: Option<String>,
    /// Line breaks owed before the next text (1: new line, 2: blank line).
    breaks: usize,
    /// Whitespace was seen and one space is owed before the next word.
    space: bool,
    /// `out.len()` just after an opening mark such as `**`; no space follows it.
    glue: usize,
    /// Depth of `<pre>`, inside which text is kept as it is.
    pre: usize,
    /// Open lists: `None` for bullets, `Some(n)` for the next number.
    lists: Vec<Option<u32>>,
    /// The open link, if any (links never nest: see [`Writer::open_link`]).
    link: Option<Link>,
}

/// A link being written.
struct Link {
    /// Where its text starts in `out`: just after the `[` written for it
    /// when it has a target.
    start: usize,
    target: Option<String>,
}

impl Writer {
    /// Text between tags, already decoded.
    pub(super) fn text(&mut self, text: &str) {
        if self.pre > 0 {
            self.flush_breaks();
            self.out.push_str(text);
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.space = true;
                continue;
            }
            self.start_inline();
            self.out.push(c);
        }
    }

    /// The content of a raw-text element: a title is kept, a text area is
    /// text, and the rest (scripts, styles, embedded objects) is dropped.
    pub(super) fn raw(&mut self, name: &str, content: &str) {
        match name {
            "title" if self.title.is_none() => {
                let title = super::decode(content).split_whitespace().collect::<Vec<_>>().join(" ");
                self.title = Some(title).filter(|t| !t.is_empty());
            }
            "textarea" => self.text(&super::decode(content)),
            _ => {}
        }
    }

    /// A start or end tag.
    pub(super) fn tag(&mut self, tag: &Tag) {
        match (tag.name.as_str(), tag.closing) {
            ("a", false) => self.open_link(tag.attr("href")),
            ("a", true) => self.close_link(),
            ("img", _) => self.image(tag),
            ("strong" | "b", closing) => self.emphasis("**", closing),
            ("em" | "i", closing) => self.emphasis("_", closing),
            ("code", closing) if self.pre == 0 => self.emphasis("`", closing),
            // A cell after another on the same row is set off by a bar.
            ("td" | "th", false) if self.breaks == 0 && !self.out.is_empty() && !self.out.ends_with('\n') => {
                self.out.push_str(" |");
                self.space = true;
            }
            _ => self.structure(tag),
        }
    }

    /// Tags that shape lines and blocks rather than words.
    fn structure(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        match (name, tag.closing) {
            ("p" | "blockquote", _) => self.block(2),
            ("br", _) => {
                self.trim_spaces();
                self.out.push('\n');
                self.space = false;
            }
            ("hr", false) => {
                self.block(2);
                self.mark("---");
                self.block(2);
            }
            (h, false) if is_heading(h) => {
                self.block(2);
                let level = usize::from(h.as_bytes()[1] - b'0');
                self.mark(&format!("{} ", "#".repeat(level)));
            }
            (h, true) if is_heading(h) => self.block(2),
            ("ul" | "ol", false) => {
                self.lists.push(if name == "ol" { Some(1) } else { None });
                self.block(1);
            }
            ("ul" | "ol", true) => {
                self.lists.pop();
                self.block(if self.lists.is_empty() { 2 } else { 1 });
            }
            ("li", false) => self.list_item(),
            ("pre", closing) => self.preformatted(closing),
            (block, _) if super::BLOCKS.contains(&block) => self.block(1),
            _ => {}
        }
    }

    /// The finished text: the title first, no trailing spaces, no runs of
    /// blank lines. A link still open ends with the document, as in a
    /// browser.
    pub(super) fn finish(mut self) -> String {
        self.close_link();
        let mut text = String::new();
        if let Some(title) = self.title {
            text.push_str(&format!("Title: {title}\n\n"));
        }
        let mut blank = 0;
        for line in self.out.lines() {
            let line = line.trim_end();
            blank = if line.is_empty() { blank + 1 } else { 0 };
            if blank < 2 {
                text.push_str(line);
                text.push('\n');
            }
        }
        text.trim().to_string()
    }

    fn block(&mut self, breaks: usize) {
        self.breaks = self.breaks.max(breaks);
        self.space = false;
    }

    /// Writes the line breaks owed, if any text came before.
    fn flush_breaks(&mut self) {
        if self.breaks == 0 {
            return;
        }
        self.trim_spaces();
        if !self.out.is_empty() {
            let have = self.out.len() - self.out.trim_end_matches('\n').len();
            for _ in have..self.breaks {
                self.out.push('\n');
            }
        }
        self.breaks = 0;
        self.space = false;
    }

    /// Prepares for inline content: owed breaks, then an owed space.
    fn start_inline(&mut self) {
        self.flush_breaks();
        if self.space && self.out.len() != self.glue && !self.out.is_empty() && !self.out.ends_with(['\n', ' ']) {
            self.out.push(' ');
        }
        self.space = false;
    }

    /// Writes a mark at the start of a line or word (no space after it).
    fn mark(&mut self, mark: &str) {
        self.start_inline();
        self.out.push_str(mark);
        self.glue = self.out.len();
    }

    fn trim_spaces(&mut self) {
        let kept = self.out.trim_end_matches(' ').len();
        self.out.truncate(kept);
    }

    fn list_item(&mut self) {
        self.block(1);
        let depth = self.lists.len().saturating_sub(1);
        let marker = match self.lists.last_mut() {
            Some(Some(n)) => {
                *n += 1;
                format!("{}. ", *n - 1)
            }
            _ => "- ".to_string(),
        };
        self.mark(&format!("{}{marker}", "  ".repeat(depth)));
    }

    /// `<pre>` becomes a fenced code block whose text is kept as it is.
    fn preformatted(&mut self, closing: bool) {
        if !closing {
            self.block(2);
            self.mark("```\n");
            self.pre += 1;
        } else if self.pre > 0 {
            self.pre -= 1;
            if !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            self.out.push_str("```");
            self.block(2);
        }
    }

    fn emphasis(&mut self, mark: &str, closing: bool) {
        if closing {
            // An owed space stays owed, so it lands after the closing mark.
            self.out.push_str(mark);
        } else {
            self.mark(mark);
        }
    }

    /// Starts a link; its `[` is written now, so that closing it only
    /// appends. An `a` inside an open `a` ends that one first, as HTML
    /// parsers do: links never nest, and nested ones closed from the inside
    /// out would each have moved the text after the outer one's start.
    fn open_link(&mut self, href: Option<&str>) {
        self.close_link();
        self.start_inline();
        let target =
            href.map(str::trim).filter(|h| !h.is_empty() && !h.starts_with('#') && !h.starts_with("javascript:"));
        if target.is_some() {
            self.out.push('[');
        }
        self.link = Some(Link { start: self.out.len(), target: target.map(str::to_string) });
        self.glue = self.out.len();
    }

    /// Ends the open link as `[text](target)` when it has both; a link
    /// without text loses its `[` (which is cheap: all that follows it is
    /// whitespace).
    fn close_link(&mut self) {
        let Some(Link { start, target: Some(target) }) = self.link.take() else { return };
        if self.out.get(start..).is_some_and(|text| !text.trim().is_empty()) {
            self.out.push_str(&format!("]({target})"));
        } else if self.out.get(start - 1..start) == Some("[") {
            self.out.remove(start - 1);
            if self.glue >= start {
                self.glue -= 1;
            }
        }
    }

    fn image(&mut self, tag: &Tag) {
        let alt = tag.attr("alt").map(str::trim).unwrap_or("");
        if alt.is_empty() {
            return;
        }
        let alt = alt.split_whitespace().collect::<Vec<_>>().join(" ");
        self.start_inline();
        match tag.attr("src").map(str::trim).filter(|s| !s.is_empty() && !s.starts_with("data:")) {
            Some(src) => self.out.push_str(&format!("![{alt}]({src})")),
            None => self.out.push_str(&format!("[image: {alt}]")),
        }
    }
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}
