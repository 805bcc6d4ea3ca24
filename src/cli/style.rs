//! Colour for people, none for pipes: output is coloured only when it goes
//! to a terminal and `NO_COLOR` is not set (<https://no-color.org>).

use std::io::IsTerminal;

/// Whether to colour, decided once per stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

/// How a piece of text is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Bold,
    Dim,
    /// Coloured by the run status it names (green for `succeeded`, …).
    Status,
    /// A person's words.
    User,
    /// The model's words.
    Assistant,
    /// A tool call.
    Call,
    Error,
}

impl Style {
    /// For standard output.
    pub fn stdout() -> Style {
        Style::decide(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR"), std::env::var_os("TERM"))
    }

    /// For standard error.
    pub fn stderr() -> Style {
        Style::decide(std::io::stderr().is_terminal(), std::env::var_os("NO_COLOR"), std::env::var_os("TERM"))
    }

    /// Colour on a terminal, unless `NO_COLOR` is set to anything but the
    /// empty string or the terminal says it is dumb.
    pub fn decide(terminal: bool, no_color: Option<std::ffi::OsString>, term: Option<std::ffi::OsString>) -> Style {
        let refused = no_color.is_some_and(|v| !v.is_empty());
        let dumb = term.is_some_and(|t| t == "dumb");
        Style { colour: terminal && !refused && !dumb }
    }

    /// `text` in `tone`.
    pub fn paint(&self, tone: Tone, text: &str) -> String {
        let code = match tone {
            Tone::Plain => return text.to_string(),
            Tone::Bold => "1",
            Tone::Dim => "2",
            Tone::Status => status_colour(text.trim()),
            Tone::User => "1;36",
            Tone::Assistant => "1;32",
            Tone::Call => "33",
            Tone::Error => "31",
        };
        if !self.colour || text.is_empty() {
            return text.to_string();
        }
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

fn status_colour(status: &str) -> &'static str {
    match status {
        "succeeded" => "32",
        "failed" => "31",
        "cancelled" | "interrupted" => "33",
        "waiting" => "35",
        _ => "36",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        let on = Style::decide(true, None, Some("xterm".into()));
        assert_eq!(on.paint(Tone::Status, "failed"), "\x1b[31mfailed\x1b[0m");
        assert_eq!(Style::decide(false, None, None).paint(Tone::Bold, "x"), "x", "a pipe gets no colour");
        assert_eq!(Style::decide(true, Some("1".into()), None).paint(Tone::Bold, "x"), "x", "NO_COLOR");
        assert_eq!(Style::decide(true, Some("".into()), None), on, "an empty NO_COLOR does not count");
        assert_eq!(Style::decide(true, None, Some("dumb".into())).paint(Tone::Dim, "x"), "x");
    }
}
