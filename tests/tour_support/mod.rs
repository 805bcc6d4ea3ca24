//! Reads the README's tour and turns it into a bash script that checks every
//! answer the README shows. The tour is the `sh` blocks under the headings
//! [`HEADINGS`]: the first block is the command that starts the server (its
//! flags are the ones the test server gets), the others run in order in one
//! shell, so the variables one block sets hold in the next.
//!
//! A `# →` comment shows the answer of the curl or wingman call before it,
//! cut short with `…`, and may begin with a curl answer's HTTP status;
//! lines after it that begin with `#` and two spaces or more continue it.
//! The script's `curl` and `wingman` are functions that call the real
//! programs and keep each answer (a curl's body and status, a wingman
//! command's output and errors); a curl status of 400 or more, or a wingman
//! command that fails, fails the script. Each `# →` becomes a check that the
//! last answer holds every piece the README shows, in order, spaces aside.
#![allow(dead_code)]

/// The headings of the README's sections that are run, in order.
pub const HEADINGS: [&str; 2] = ["## A short tour with curl", "## The same from the command line"];

/// The port the tour's server listens on, as the README writes it.
pub const SERVER_PORT: &str = "2323";

/// The port of the tour's webhook receiver, as the README writes it.
pub const RECEIVER_PORT: &str = "8123";

/// The tour, ready to run.
pub struct Tour {
    /// The flags the README starts the server with.
    pub serve_args: Vec<String>,
    /// The script's body, one README line a script line.
    body: Vec<(usize, String)>,
    /// How many answers the README shows.
    pub checks: usize,
}

/// Reads the tour from the README's text; an `Err` says what is wrong with it.
pub fn read(readme: &str) -> Result<Tour, String> {
    let blocks = blocks(readme)?;
    let (serve, rest) = blocks.split_first().ok_or(format!("no `sh` block under {:?}", HEADINGS[0]))?;
    let serve_args = serve_command(serve)?;
    let mut body = Vec::new();
    let mut checks = 0;
    for block in rest {
        checks += translate(block, &mut body)?;
    }
    if checks == 0 {
        return Err("the tour shows no answer (`# →`) to check".into());
    }
    Ok(Tour { serve_args, body, checks })
}

impl Tour {
    /// The script for a server on `server_port` and a receiver on
    /// `receiver_port`, and the README line of each of its lines (0 for
    /// the preamble's).
    pub fn script(&self, server_port: u16, receiver_port: u16) -> (String, Vec<usize>) {
        let mut text = String::from(PREAMBLE);
        let mut lines = vec![0; PREAMBLE.lines().count()];
        for (number, line) in &self.body {
            let line = line
                .replace(&format!(":{SERVER_PORT}"), &format!(":{server_port}"))
                .replace(RECEIVER_PORT, &receiver_port.to_string());
            text.push_str(&line);
            text.push('\n');
            lines.push(*number);
        }
        text.push_str("echo 'the tour ran to its end' >&2\n");
        (text, lines)
    }
}

type Block = Vec<(usize, String)>;

/// The `sh` blocks of the tour's sections, each line with its README line number.
fn blocks(readme: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    for heading in HEADINGS {
        let start = lines.iter().position(|l| l.trim_end() == heading).ok_or(format!("no heading {heading:?}"))?;
        blocks.extend(section_blocks(&lines, start)?);
    }
    Ok(blocks)
}

/// The `sh` blocks of the section whose heading is line `start`.
fn section_blocks(lines: &[&str], start: usize) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (index, line) in lines.iter().enumerate().skip(start + 1) {
        if open.is_none() && line.starts_with("## ") {
            break;
        }
        match (&mut open, line.trim_end()) {
            (None, "```sh") => open = Some(Vec::new()),
            (None, l) if l.starts_with("```") => return Err(format!("line {}: a block that is not `sh`", index + 1)),
            (Some(_), "```") => blocks.push(open.take().unwrap()),
            (Some(block), _) => block.push((index + 1, line.to_string())),
            (None, _) => {}
        }
    }
    if open.is_some() {
        return Err("a block of the tour is not closed".into());
    }
    Ok(blocks)
}

/// The flags of the first block's one command, `wingman serve …`.
fn serve_command(block: &Block) -> Result<Vec<String>, String> {
    let commands: Vec<&(usize, String)> =
        block.iter().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#')).collect();
    match commands.as_slice() {
        [(_, command)] if command.starts_with("wingman serve") => {
            Ok(command["wingman serve".len()..].split_whitespace().map(String::from).collect())
        }
        _ => Err(format!("the tour's first block must be one `wingman serve …` command, not {block:?}")),
    }
}

/// Appends a block's lines to the script, each `# →` as a check; returns
/// how many checks it made.
fn translate(block: &Block, body: &mut Vec<(usize, String)>) -> Result<usize, String> {
    let mut checks = 0;
    let mut index = 0;
    while index < block.len() {
        let (number, line) = &block[index];
        index += 1;
        let Some(shown) = line.strip_prefix("# →") else {
            body.push((*number, line.clone()));
            continue;
        };
        let mut shown = shown.trim().to_string();
        while let Some(more) = block.get(index).and_then(|(_, l)| continuation(l)) {
            shown.push(' ');
            shown.push_str(more);
            index += 1;
        }
        let (status, answer) = expected(&shown);
        if answer.is_empty() {
            return Err(format!("README.md line {number}: a `# →` that shows nothing"));
        }
        body.push((*number, format!("__tour_check {number} {status} {} {}", quote(&pattern(answer)), quote(&shown))));
        checks += 1;
    }
    Ok(checks)
}

/// The text of a line that continues a `# →` (a `#` and two spaces or more).
fn continuation(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?;
    rest.starts_with("  ").then(|| rest.trim())
}

/// The status the README shows (`-` for none) and the answer after it.
fn expected(shown: &str) -> (&str, &str) {
    let (head, rest) = shown.split_once(' ').unwrap_or((shown, ""));
    if head.len() == 3 && head.bytes().all(|b| b.is_ascii_digit()) {
        (head, rest.trim())
    } else {
        ("-", shown)
    }
}

/// A bash pattern that matches an answer, spaces removed, holding every
/// piece of `answer` between its `…`, in order. The commas around a `…`
/// are left out, since what it stands for may be nothing.
pub fn pattern(answer: &str) -> String {
    let squeezed: String = answer.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut pattern = String::from("*");
    for piece in squeezed.split('…').map(|p| p.trim_matches(',')).filter(|p| !p.is_empty()) {
        for c in piece.chars() {
            // Glob characters, and those of the extended globs `[[ == ]]`
            // reads whatever extglob says.
            if matches!(c, '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '!' | '@' | '+') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('*');
    }
    pattern
}

/// `text` as one single-quoted bash word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What the script does before the README's lines: its `curl`, its checks,
/// and the line the tour stopped at if a command fails. Its one argument
/// is a directory for its files.
const PREAMBLE: &str = r#"set -euo pipefail
__tour=$1
: > "$__tour/calls"
trap 'echo "the tour stopped at script line $LINENO" >&2' ERR
curl() {
    local rc=0 status
    command curl --max-time 120 --write-out '\n%{http_code}' "$@" > "$__tour/answer" || rc=$?
    status=$(tail -n 1 "$__tour/answer")
    head -n -1 "$__tour/answer" > "$__tour/last"
    echo "$status" > "$__tour/last-status"
    echo "$*" >> "$__tour/calls"
    cat "$__tour/last"
    if [ "$rc" != 0 ]; then
        echo "curl $* failed with exit code $rc" >&2
        return "$rc"
    elif [ "$status" -ge 400 ]; then
        echo "curl $* answered HTTP $status: $(cat "$__tour/last")" >&2
        return 22
    fi
}
wingman() {
    local rc=0
    command wingman "$@" > "$__tour/out" 2> "$__tour/err" || rc=$?
    cat "$__tour/out" "$__tour/err" > "$__tour/last"
    echo - > "$__tour/last-status"
    echo "wingman $*" >> "$__tour/calls"
    cat "$__tour/out"
    cat "$__tour/err" >&2
    if [ "$rc" != 0 ]; then
        echo "wingman $* exited with $rc" >&2
        return "$rc"
    fi
}
__tour_check() {
    local line=$1 status=$2 pattern=$3 shown=$4 got
    if [ ! -s "$__tour/calls" ]; then
        echo "README.md line $line: no curl or wingman call since the last answer shown" >&2
        exit 1
    fi
    : > "$__tour/calls"
    got=$(tr -d '[:space:]' < "$__tour/last")
    if [ "$status" != - ] && [ "$status" != "$(cat "$__tour/last-status")" ]; then
        echo "README.md line $line: HTTP $(cat "$__tour/last-status"), where the README shows $status" >&2
        exit 1
    fi
    if [[ $got != $pattern ]]; then
        printf 'README.md line %s: the answer is not what the README shows\n  shown: %s\n  got:   %s\n' \
            "$line" "$shown" "$(cat "$__tour/last")" >&2
        exit 1
    fi
    echo "$line" >> "$__tour/checked"
}
"#;
