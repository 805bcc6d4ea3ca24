//! The architecture invariants of docs/architecture.md, read from the code:
//! which module may use which (a `use crate::x`, or a path `crate::x::…`,
//! that breaks a rule fails with the file and the line), and what a test
//! can check of "a backend persists decisions; it makes none".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The domain: plain types and rules, no I/O.
const DOMAIN: &[&str] = &[
    "model",
    "toolset",
    "attempt",
    "approval",
    "checkpoint",
    "compaction",
    "credential",
    "secret",
    "event",
    "fleet",
    "formation",
    "guard",
    "history",
    "lifecycle",
    "shell",
    "subagent",
    "webhook",
    "schedule",
];

/// What each module may use besides itself. Modules not listed here are the
/// top layer (the command line, the application's wiring, benchmarks,
/// configuration), which may use anything.
fn allowed(module: &str) -> Option<Vec<&'static str>> {
    let with = |extra: &[&'static str]| Some(DOMAIN.iter().chain(extra).copied().collect());
    match module {
        // The domain uses only the domain (and not all of it: see below).
        "attempt" => Some(vec![]),
        // An agent's declared tools are part of the model, and name the agent.
        "model" => Some(vec!["toolset", "guard", "compaction", "subagent", "formation", "webhook"]),
        // An end's announcement is built from the model's values alone.
        "webhook" => Some(vec!["model"]),
        // When ticks fall is computed from a schedule alone.
        "schedule" => Some(vec!["model"]),
        // What to prune and summarize is decided on messages alone.
        "compaction" => Some(vec!["model"]),
        // A sub-agent is one more source of tools, named `agent__<name>`.
        "toolset" => Some(vec!["model", "subagent"]),
        // A sub-agent's call shares out its parent's budget.
        "subagent" => Some(vec!["model", "guard", "toolset"]),
        "approval" => Some(vec!["model", "toolset"]),
        // A provider key is one kind of sealed value, a secret another.
        "credential" => Some(vec!["model", "secret"]),
        "secret" => Some(vec!["model"]),
        // A checkpoint may record a shell state, whose rules read checkpoints.
        "checkpoint" => Some(vec!["model", "toolset", "approval", "shell", "guard", "compaction"]),
        // The guards read checkpoints (and decide, with the approvals, what
        // becomes of a call), and the agent carries its guards.
        "guard" => Some(vec!["model", "checkpoint", "approval"]),
        "shell" => Some(vec!["model", "checkpoint"]),
        // A session's history is messages and the compaction markers among them.
        "history" => Some(vec!["model", "compaction"]),
        "event" | "fleet" | "lifecycle" => with(&[]),
        // A backend persists domain values: it knows no provider, tool,
        // engine or HTTP.
        "store" => with(&[]),
        // Providers get their keys handed to them: they never read the store.
        // They read their streams with the crate's one SSE decoder.
        "provider" => with(&["sse"]),
        "tools" => with(&[]),
        // Metrics count what the layers above report: they know only the domain.
        "metrics" => with(&[]),
        "engine" => with(&["store", "provider", "tools", "metrics", "otel"]),
        // Spans are made from the domain's values alone.
        "otel" => with(&[]),
        "hub" => with(&["store", "metrics", "sse"]),
        "worker" => with(&["store", "engine", "tools", "metrics"]),
        // The deliverer reads the outbox through the store and reaches
        // receivers under the tools' network policy and signature.
        "delivery" => with(&["store", "tools", "metrics"]),
        // The pruner deletes through the store and nothing else.
        "retention" => with(&["store"]),
        // The API enqueues and tails: it never executes a run.
        // A submission's `traceparent` is read, or made up, where it comes in.
        "api" => with(&["store", "provider", "tools", "hub", "metrics", "ui", "otel"]),
        // The SSE decoder reads bytes into events: it knows nothing of the
        // crate, so every layer may use it.
        "sse" => Some(vec![]),
        // The dashboard reads only through the public API, from the
        // browser: its server side uses nothing of the crate.
        "ui" => Some(vec![]),
        _ => None,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to: `src/store/sqlite/x.rs` → `store`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::name` a line mentions, with the rest of its path.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + "crate::".len()..];
        let path: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            if path.is_empty() && tail.starts_with('{') {
                // `use crate::{a, b::c};`: each name at the braces' top level.
                let inner = tail[1..].split('}').next().unwrap_or("");
                found.extend(inner.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()));
            } else {
                found.push(path);
            }
        }
        rest = tail;
    }
    found
}

fn code_part(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        ""
    } else {
        line
    }
}

#[test]
fn modules_use_only_what_the_architecture_allows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut broken = Vec::new();
    let mut seen = BTreeSet::new();
    for file in &files {
        let module = module_of(&src, file);
        seen.insert(module.clone());
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for path in crate_paths(code_part(line)) {
                let used = path.split("::").next().unwrap_or("").to_string();
                let place = format!("{}:{}: {}", file.strip_prefix(&src).unwrap().display(), n + 1, line.trim());
                // Backends are the store's own business: everyone else goes
                // through the `Store` trait.
                let backend = path.starts_with("store::sqlite") || path.starts_with("store::postgres");
                if backend && module != "store" {
                    broken.push(format!("{place}\n    only `store` may name a backend"));
                }
                if used == module || used.is_empty() {
                    continue;
                }
                if let Some(allowed) = allowed(&module) {
                    if !allowed.contains(&used.as_str()) {
                        broken.push(format!("{place}\n    `{module}` may not use `{used}`"));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "architecture invariants broken:\n{}", broken.join("\n"));
    // The rules must know every lower module: a new one gets a rule.
    for module in DOMAIN.iter().chain(&[
        "store",
        "provider",
        "tools",
        "metrics",
        "engine",
        "hub",
        "worker",
        "retention",
        "api",
        "ui",
        "sse",
    ]) {
        assert!(seen.contains(*module), "no module {module} in src/: update this test's rules");
    }
}

#[test]
fn the_checker_sees_a_broken_rule() {
    assert_eq!(
        crate_paths("use crate::store::sqlite::X; let y = crate::engine::run();"),
        ["store::sqlite::X", "engine::run"]
    );
    assert!(crate_paths("use $crate::x;").is_empty());
    assert_eq!(crate_paths("use crate::{provider, tools::x};"), ["provider", "tools::x"]);
    assert!(!allowed("provider").unwrap().contains(&"store"));
    assert!(!allowed("store").unwrap().contains(&"provider"));
    assert!(!allowed("api").unwrap().contains(&"engine"));
    assert!(!allowed("metrics").unwrap().contains(&"store"));
    assert!(allowed("sse").unwrap().is_empty());
}

/// The backends' source files, each with its text.
fn backend_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for backend in ["store/sqlite", "store/postgres"] {
        rust_files(&src.join(backend), &mut files);
    }
    files.sort();
    files.iter().map(|f| (format!("{}", f.strip_prefix(&src).unwrap().display()), read(f))).collect()
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap()
}

/// What belongs to the rules (`src/lifecycle`, `attempt`, `fleet`,
/// `checkpoint`), with the reason: code of a backend that names one of these
/// is making a decision, or building an event, of its own.
const RULES_ONLY: &[(&str, &str)] = &[
    ("RunEvent::", "events are built by the rules"),
    ("_event(", "events are built by the rules"),
    ("RunStatus::", "which status a run takes is the rules' to say"),
    ("FleetRunStatus::", "how a fleet run ends is fleet::task_ended's to say"),
    ("is_terminal(", "whether a run has ended is the rules' to say"),
    ("MultitaskStrategy::", "a strategy's plan is lifecycle::make_way's"),
    ("attempt::", "a rescue's charge is lifecycle::rescue's"),
    ("final_status", "how a fleet run ends is fleet::task_ended's to say"),
    ("fleet::starts_blocked", "a fleet run's slots are lifecycle::fleet_run's"),
    ("summarize(", "a run's summary is the rules' (Ending::of, lifecycle::complete)"),
    ("StoreError::Conflict(", "refusals come from the rules (lifecycle::Refusal)"),
    ("StoreError::Busy(", "refusals come from the rules (lifecycle::Refusal)"),
    ("StoreError::InboxWaiting", "refusals come from the rules (lifecycle::admit)"),
];

/// The places in `files` where code (not comments) names something of [`RULES_ONLY`].
fn decisions_in(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (name, text) in files {
        for (n, line) in text.lines().enumerate() {
            for (pattern, reason) in RULES_ONLY {
                if code_part(line).contains(pattern) {
                    found.push(format!("{name}:{}: {}\n    {reason}", n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn a_backend_persists_decisions_and_makes_none() {
    let found = decisions_in(&backend_files());
    assert!(found.is_empty(), "a backend decides what the rules should:\n{}", found.join("\n"));
}

/// The text of every comment line of `text` at least `min` characters long.
fn comment_lines(text: &str, min: usize) -> Vec<String> {
    let comment = |line: &str| {
        let line = line.trim_start().strip_prefix("//")?;
        Some(line.trim_start_matches(['/', '!']).trim().to_string())
    };
    text.lines().filter_map(comment).filter(|c| c.chars().count() >= min).collect()
}

#[test]
fn no_comment_is_copied_between_the_backends() {
    let files = backend_files();
    let of = |backend: &str| -> BTreeSet<String> {
        files.iter().filter(|(name, _)| name.contains(backend)).flat_map(|(_, text)| comment_lines(text, 40)).collect()
    };
    let copied: Vec<_> = of("sqlite").intersection(&of("postgres")).cloned().collect();
    assert!(
        copied.is_empty(),
        "comments written in both backends (say a rule once, in the domain, and what the operation does once, \
         on the Store trait):\n{}",
        copied.join("\n")
    );
}

/// The string literals of Rust source, with the line each starts on.
fn literals(text: &str) -> Vec<(usize, String)> {
    let (mut found, mut line, mut chars) = (Vec::new(), 1, text.char_indices().peekable());
    while let Some((at, c)) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if text[at..].starts_with("//") => {
                while chars.peek().is_some_and(|&(_, c)| c != '\n') {
                    chars.next();
                }
            }
            '\'' if text[at..].starts_with("'\"'") => {
                chars.next();
                chars.next();
            }
            '"' => {
                let mut literal = String::new();
                while let Some((_, c)) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => literal.extend(chars.next().map(|(_, c)| c)),
                        c => literal.push(c),
                    }
                }
                found.push((line, literal.clone()));
                line += literal.matches('\n').count();
            }
            _ => {}
        }
    }
    found
}

/// A literal that is SQL, or a part of SQL.
fn is_sql(literal: &str) -> bool {
    const WORDS: &[&str] = &[
        "SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "EXISTS", "CREATE", "PRAGMA", "ORDER", "WHERE", "ASC", "DESC",
    ];
    let first = literal.split_whitespace().next().unwrap_or("");
    WORDS.iter().any(|w| first.starts_with(w)) || first.starts_with("runs.") || literal.contains(" FROM ")
}

/// A literal that reads as a message: words, not SQL or a format of SQL.
fn is_message(literal: &str) -> bool {
    let first = literal.split_whitespace().next().unwrap_or("");
    literal.split_whitespace().count() >= 3 && !first.starts_with('{') && !is_sql(literal)
}

#[test]
fn each_message_of_a_backend_is_written_once_in_src() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut count: std::collections::BTreeMap<String, usize> = Default::default();
    for file in &files {
        for (_, literal) in literals(&read(file)) {
            *count.entry(literal).or_default() += 1;
        }
    }
    let mut copied = Vec::new();
    for (name, text) in backend_files() {
        for (line, literal) in literals(&text).into_iter().filter(|(_, l)| is_message(l)) {
            if count[&literal] > 1 {
                copied.push(format!("{name}:{line}: {literal:?} is written {} times in src/", count[&literal]));
            }
        }
    }
    assert!(copied.is_empty(), "messages written more than once:\n{}", copied.join("\n"));
}

#[test]
fn the_backend_checks_see_what_they_look_for() {
    let backend = |text: &str| vec![("store/sqlite/x.rs".to_string(), text.to_string())];
    assert_eq!(decisions_in(&backend("let e = RunEvent::done(s, None, &sum);")).len(), 1);
    assert_eq!(decisions_in(&backend("if strategy == MultitaskStrategy::Reject {")).len(), 1);
    assert!(decisions_in(&backend("// RunEvent::Done is the rules'")).is_empty(), "comments are not code");
    assert!(decisions_in(&backend("let plan = lifecycle::make_way(s, id, &runs)?;")).is_empty());
    assert_eq!(comment_lines("    /// Cancels every task that has not ended, first\nlet x = 1;", 40).len(), 1);
    let found = literals("let a = \"one \\\"two\\\" three\"; // \"not this\"\nlet b = '\"'; \"x\"");
    assert_eq!(found, [(1, "one \"two\" three".to_string()), (2, "x".to_string())]);
    assert!(is_message("run {id} is already {}") && !is_message("SELECT id FROM runs WHERE x") && !is_message("a b"));
    assert!(is_sql("ORDER BY id") && is_sql("x FROM runs") && !is_sql("run {id} is already {}"));
}

#[test]
fn the_stores_types_carry_no_sql_and_no_http_schema() {
    let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
    let mut broken = Vec::new();
    for name in ["mod.rs", "contract.rs", "error.rs", "answers.rs", "filters.rs"] {
        let text = read(&store.join(name));
        if text.contains("utoipa") || text.contains("serde::") {
            broken.push(format!("store/{name}: an HTTP schema or serialization (the API has its own types)"));
        }
        for (line, literal) in literals(&text) {
            if is_sql(&literal) {
                broken.push(format!("store/{name}:{line}: SQL {literal:?} (SQL is a backend's)"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
