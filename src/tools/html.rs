//! HTML turned into readable text close to Markdown, for webfetch.
//!
//! A small converter rather than a full HTML parser (which would be a large
//! dependency to compile): it reads tags and text in one pass, drops scripts,
//! styles and comments, decodes entities, collapses whitespace, and renders
//! headings, paragraphs, lists, links, emphasis, code blocks and table rows.
//! It never fails: malformed markup degrades to plain text. Every slice it
//! takes starts and ends next to an ASCII byte, so it is always on a
//! character boundary.

use std::borrow::Cow;

/// Elements whose content is raw text up to their closing tag.
const RAW_TEXT: &[&str] = &["script", "style", "title", "textarea", "noscript", "template", "svg", "iframe", "object"];
/// Elements that start a new line.
const BLOCKS: &[&str] = &[
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "form",
    "fieldset",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "center",
    "option",
];

/// Converts an HTML document to text.
pub fn to_text(html: &str) -> String {
    let mut w = Writer::default();
    let mut pos = 0;
    while pos < html.len() {
        let rest = &html[pos..];
        if rest.starts_with("<!--") {
            pos += rest.find("-->").map_or(rest.len(), |i| i + 3);
        } else if rest.starts_with("<!") || rest.starts_with("<?") {
            pos += rest.find('>').map_or(rest.len(), |i| i + 1);
        } else if let Some((tag, len)) = rest.strip_prefix('<').and_then(|_| parse_tag(rest)) {
            pos += len;
            if !tag.closing && !tag.self_closing && RAW_TEXT.contains(&tag.name.as_str()) {
                let inner = &html[pos..];
                let end = find_close(inner, &tag.name);
                w.raw(&tag.name, &inner[..end]);
                pos += end;
            } else {
                w.tag(&tag);
            }
        } else if rest.starts_with('<') {
            w.text("<");
            pos += 1;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            w.text(&decode(&rest[..end]));
            pos += end;
        }
    }
    w.finish()
}

/// One start or end tag.
#[derive(Debug, Default)]
struct Tag {
    name: String,
    closing: bool,
    self_closing: bool,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Parses the tag at the start of `s` (which starts with `<`), returning
/// it and its length; `None` if this `<` does not open a tag.
fn parse_tag(s: &str) -> Option<(Tag, usize)> {
    let b = s.as_bytes();
    let closing = b.get(1) == Some(&b'/');
    let start = if closing { 2 } else { 1 };
    if !b.get(start)?.is_ascii_alphabetic() {
        return None;
    }
    let mut i = skip(b, start, |c| c.is_ascii_alphanumeric() || c == b'-' || c == b':');
    let mut tag = Tag { name: s[start..i].to_ascii_lowercase(), closing, ..Tag::default() };
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            tag.self_closing = b[i] == b'/';
            i += 1;
        }
        match b.get(i) {
            None => return Some((tag, b.len())),
            Some(b'>') => return Some((tag, i + 1)),
            Some(_) => {
                tag.self_closing = false;
                let (attr, next) = parse_attr(s, i);
                tag.attrs.push(attr);
                i = next;
            }
        }
    }
}

/// One attribute starting at `i` (not whitespace, `/` or `>`), with or
/// without a value, and where it ends.
fn parse_attr(s: &str, i: usize) -> ((String, String), usize) {
    let b = s.as_bytes();
    let end = skip(b, i, |c| !c.is_ascii_whitespace() && !matches!(c, b'=' | b'>' | b'/'));
    let name = s[i..end].to_ascii_lowercase();
    let after = skip(b, end, |c| c.is_ascii_whitespace());
    if b.get(after) != Some(&b'=') {
        return ((name, String::new()), after);
    }
    let (value, next) = attr_value(s, skip(b, after + 1, |c| c.is_ascii_whitespace()));
    ((name, decode(value).into_owned()), next)
}

/// The first index from `i` whose byte does not satisfy `keep`.
fn skip(b: &[u8], mut i: usize, keep: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && keep(b[i]) {
        i += 1;
    }
    i
}

/// An attribute value starting at `i`, quoted or not, and where it ends.
fn attr_value(s: &str, i: usize) -> (&str, usize) {
    let b = s.as_bytes();
    match b.get(i) {
        Some(&q) if q == b'"' || q == b'\'' => match s[i + 1..].find(q as char) {
            Some(len) => (&s[i + 1..i + 1 + len], i + len + 2),
            None => (&s[i + 1..], s.len()),
        },
        _ => {
            let len = s[i..].find(|c: char| c.is_ascii_whitespace() || c == '>').unwrap_or(s.len() - i);
            (&s[i..i + len], i + len)
        }
    }
}

/// Where the end tag `</name` first occurs in `s`, ignoring ASCII case;
/// `s.len()` if never. As in HTML, the name must end there (whitespace, `/`,
/// `>` or the end of the input follows it): `</scriptx>` inside a script is
/// the script's text.
fn find_close(s: &str, name: &str) -> usize {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(i) = s[from..].find("</").map(|i| i + from) {
        let candidate = &b[i + 2..];
        if candidate.len() >= name.len()
            && candidate[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && candidate.get(name.len()).is_none_or(|&c| c.is_ascii_whitespace() || c == b'/' || c == b'>')
        {
            return i;
        }
        from = i + 2;
    }
    s.len()
}

/// Decodes character references: numeric ones and the common named ones.
/// An unknown or malformed reference is left as it was.
pub fn decode(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let semi = rest[1..].find(';').filter(|&n| n <= 32).map(|n| n + 1);
        match semi.filter(|&semi| push_entity(&rest[1..semi], &mut out)) {
            Some(semi) => rest = &rest[semi + 1..],
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Appends the text of one reference (given without its `&` and `;`);
/// false if it is not one.
fn push_entity(name: &str, out: &mut String) -> bool {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse().ok(),
        };
        let Some(code) = code else { return false };
        out.push(char::from_u32(code).filter(|&c| c != '\0').unwrap_or('\u{FFFD}'));
        return true;
    }
    match NAMED.iter().find(|(n, _)| *n == name) {
        Some((_, text)) => {
            out.push_str(text);
            true
        }
        None => false,
    }
}

/// The common named references.
const NAMED: &[(&str, &str)] = &[
    ("amp", "&"),
    ("lt", "<"),
    ("gt", ">"),
    ("quot", "\""),
    ("apos", "'"),
    ("nbsp", " "),
    ("ensp", " "),
    ("emsp", " "),
    ("thinsp", " "),
    ("shy", ""),
    ("zwj", ""),
    ("zwnj", ""),
    ("copy", "©"),
    ("reg", "®"),
    ("trade", "™"),
    ("hellip", "…"),
    ("mdash", "—"),
    ("ndash", "–"),
    ("minus", "−"),
    ("lsquo", "‘"),
    ("rsquo", "’"),
    ("ldquo", "“"),
    ("rdquo", "”"),
    ("laquo", "«"),
    ("raquo", "»"),
    ("bull", "•"),
    ("middot", "·"),
    ("deg", "°"),
    ("times", "×"),
    ("divide", "÷"),
    ("euro", "€"),
    ("pound", "£"),
    ("yen", "¥"),
    ("cent", "¢"),
    ("sect", "§"),
    ("para", "¶"),
    ("plusmn", "±"),
    ("larr", "←"),
    ("rarr", "→"),
    ("uarr", "↑"),
    ("darr", "↓"),
    ("le", "≤"),
    ("ge", "≥"),
    ("ne", "≠"),
];

mod writer;
use writer::Writer;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_becomes_markdown_like_text() {
        let html = r#"<!DOCTYPE html><html><head><title>The &amp; Page</title>
            <style>body { color: red }</style><script>var x = "<p>not text</p>";</script></head>
            <body><h1>Main   heading</h1><p>Some <b>bold</b> and <em>soft</em> text with a
            <a href="https://example.com/x?a=1&amp;b=2">link</a>.</p><!-- hidden -->
            <ul><li>one</li><li>two<ol><li>nested</li></ol></li></ul>
            <pre>  keep   this
  as is</pre><p>Use <code>cargo test</code>&nbsp;now &#x2014; &#169; &unknown; 5 &lt; 6</p></body></html>"#;
        let text = to_text(html);
        let expected = "Title: The & Page\n\n# Main heading\n\nSome **bold** and _soft_ text with a [link](https://example.com/x?a=1&b=2).\n\n- one\n- two\n  1. nested\n\n```\n  keep   this\n  as is\n```\n\nUse `cargo test` now — © &unknown; 5 < 6";
        assert_eq!(text, expected);
    }

    #[test]
    fn tables_images_and_breaks() {
        let text = to_text("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>x<br>y<img src=p.png alt='a cat'>");
        assert_eq!(text, "a | b\n1 | 2\nx\ny![a cat](p.png)");
    }

    #[test]
    fn malformed_markup_never_panics_and_keeps_text() {
        for html in [
            "<",
            "<a",
            "<a href=",
            "<a href=\"x",
            "a < b",
            "</",
            "<!--",
            "<script>x",
            "&#xFFFFFFFF;",
            "&#0;",
            "é<é>é",
            "<p class='é'>ü</p",
        ] {
            let _ = to_text(html);
        }
        assert_eq!(to_text("a < b"), "a < b");
        assert_eq!(to_text("&#xFFFFFFFF; &#0; &#x1FFFFFFFF;"), "\u{FFFD} \u{FFFD} &#x1FFFFFFFF;");
        assert_eq!(to_text("<SCRIPT>alert(1)</SCRIPT>after"), "after");
    }

    #[test]
    fn a_raw_text_element_ends_only_at_its_own_end_tag() {
        assert_eq!(find_close("a</scriptx>b</script>", "script"), 12);
        assert_eq!(find_close("a</script-x></SCRIPT >", "script"), 12);
        assert_eq!(find_close("a</script/>", "script"), 1);
        assert_eq!(find_close("a</script", "script"), 1, "the end of the input ends the name too");
        assert_eq!(find_close("a</scrip", "script"), 8);
        assert_eq!(to_text("<script>var a = '</scriptx>'; no text</script>after"), "after");
        assert_eq!(to_text("<title>A </titles> B</title>x"), "Title: A </titles> B\n\nx");
    }

    #[test]
    fn a_page_of_many_thousands_of_links_keeps_every_one() {
        let n = 20_000;
        let links: Vec<String> = (0..n).map(|i| format!("[link {i}](/p{i})")).collect();
        let page: String = (0..n).map(|i| format!("<a href=\"/p{i}\">link {i}</a> ")).collect();
        assert_eq!(to_text(&page), links.join(" "));
        // An `a` inside an open `a` ends it first, as HTML parsers do, so
        // links never nest and the end tags left over close nothing.
        let unclosed: String = (0..n).map(|i| format!("<a href=\"/p{i}\">link {i} ")).collect();
        assert_eq!(to_text(&(unclosed + &"</a>".repeat(n))), links.join(" "));
    }

    #[test]
    fn links_without_text_or_target_are_plain_and_an_open_one_ends_with_the_page() {
        assert_eq!(to_text("a <a href=x> </a> b <a>no target</a> <a href='#top'>top</a>"), "a b no target top");
        assert_eq!(to_text("<p><a href=x><b>bold</b> link</a>.</p>"), "[**bold** link](x).");
        assert_eq!(to_text("see <a href=x>the end"), "see [the end](x)");
    }
}
