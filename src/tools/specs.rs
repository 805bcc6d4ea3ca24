//! What the model is told about each tool: a description that states the
//! limits it will meet, and a JSON schema of the input (an object whose
//! required fields are listed).

use serde_json::{json, Value};

use crate::domain::model::ToolSpec;

/// A description, the input's properties, and which of them are required.
type Parts = (&'static str, Value, &'static [&'static str]);

/// The spec of a built-in tool, `None` for any other name.
pub(super) fn spec(name: &str) -> Option<ToolSpec> {
    let (description, properties, required) = match name {
        "bash" => bash(),
        "read" => read(),
        "write" => write(),
        "edit" => edit(),
        "glob" => glob(),
        "grep" => grep(),
        "webfetch" => webfetch(),
        _ => return None,
    };
    let input_schema = json!({"type": "object", "properties": properties, "required": required});
    Some(ToolSpec { name: name.into(), description: description.into(), input_schema })
}

fn bash() -> Parts {
    (
        "Run a bash command. The shell persists between calls: each starts in the directory the last one ended in (at first the working directory) with the variables it exported; a directory outside the working directory is not kept (HOME is the working directory; the environment holds only PATH, locale and a few basics). Write only inside the working directory, and put temporary files in $TMPDIR (private to this call): /tmp and other paths may not be writable, nor files outside readable. stdout and stderr are merged in order; the exit code is reported. Output is cut to its last 2000 lines / 50 KB. When the command ends, times out or is cancelled, everything it started is killed, background processes included.",
        json!({
            "command": {"type": "string", "description": "The command, run with bash -c."},
            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds; default 120000 (2 minutes), at most 600000 (10 minutes)."}
        }),
        &["command"],
    )
}

fn read() -> Parts {
    (
        "Read a text file in the working directory. Lines are numbered; at most 2000 lines / 50 KB are shown at once, with a note on how to read on. Binary files are not shown.",
        json!({
            "path": {"type": "string", "description": "Path relative to the working directory, or absolute inside it."},
            "offset": {"type": "integer", "minimum": 1, "description": "The 1-based line to start at; default 1."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "How many lines to show; default and maximum 2000."}
        }),
        &["path"],
    )
}

fn write() -> Parts {
    (
        "Create or replace a file in the working directory with the given content. Parent directories are created; the write is atomic. Reports the bytes written.",
        json!({
            "path": {"type": "string", "description": "Path relative to the working directory, or absolute inside it."},
            "content": {"type": "string", "description": "The complete new content of the file."}
        }),
        &["path", "content"],
    )
}

fn edit() -> Parts {
    (
        "Replace an exact string in a file. old_string must match the file exactly (whitespace included) and exactly once, unless replace_all is true. Returns a unified diff of the change.",
        json!({
            "path": {"type": "string", "description": "Path relative to the working directory, or absolute inside it."},
            "old_string": {"type": "string", "description": "The exact text to replace; not empty."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence; default false."}
        }),
        &["path", "old_string", "new_string"],
    )
}

fn glob() -> Parts {
    (
        "List files in the working directory whose path matches a glob pattern (`*`, `?`, `[ab]`, `{a,b}`, `**` for any number of directories). A pattern without `/` matches file names at any depth. Honours .gitignore; skips .git. Sorted; at most 1000 results.",
        json!({
            "pattern": {"type": "string", "description": "A glob such as `**/*.rs`, `src/*.toml` or `Cargo.toml`."}
        }),
        &["pattern"],
    )
}

fn grep() -> Parts {
    (
        "Search files in the working directory for a regular expression (Rust regex syntax; `(?i)` for case-insensitive). Results are `file:line:text`, at most 200. Binary files are skipped; .gitignore is honoured.",
        json!({
            "pattern": {"type": "string", "description": "The regular expression."},
            "path": {"type": "string", "description": "A file or directory to search instead of the whole working directory."},
            "glob": {"type": "string", "description": "Only search files matching this glob, e.g. `*.rs` (no `/`: matches file names at any depth)."}
        }),
        &["pattern"],
    )
}

fn webfetch() -> Parts {
    (
        "Fetch a web page over http(s) with GET and return it as text (HTML converted to Markdown-like text). At most 5 MB is downloaded and 50 KB returned; 30-second timeout. Private and local network addresses are refused unless the deployment allows them.",
        json!({
            "url": {"type": "string", "description": "An absolute http:// or https:// URL."}
        }),
        &["url"],
    )
}
