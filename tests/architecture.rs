//! The architecture invariants of docs/architecture.md, read from the code:
//! which module may use which. A `use crate::x` (or a path `crate::x::…`)
//! that breaks a rule fails this test with the file and the line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The domain: plain types and rules, no I/O.
const DOMAIN: &[&str] = &["model", "attempt", "approval", "checkpoint", "credential", "event", "fleet"];

/// What each module may use besides itself. Modules not listed here are the
/// top layer (the command line, the application's wiring, benchmarks,
/// configuration), which may use anything.
fn allowed(module: &str) -> Option<Vec<&'static str>> {
    let with = |extra: &[&'static str]| Some(DOMAIN.iter().chain(extra).copied().collect());
    match module {
        // The domain uses only the domain (and not all of it: see below).
        "model" | "attempt" => Some(vec![]),
        "approval" | "credential" => Some(vec!["model"]),
        "checkpoint" => Some(vec!["model", "approval"]),
        "event" | "fleet" => with(&[]),
        // A backend persists domain values: it knows no provider, tool,
        // engine or HTTP.
        "store" => with(&[]),
        // Providers get their keys handed to them: they never read the store.
        // They read their streams with the crate's one SSE decoder.
        "provider" => with(&["sse"]),
        "tools" => with(&[]),
        // Metrics count what the layers above report: they know only the domain.
        "metrics" => with(&[]),
        "engine" => with(&["store", "provider", "tools", "metrics"]),
        "hub" => with(&["store", "metrics"]),
        "worker" => with(&["store", "engine", "tools", "metrics"]),
        // The pruner deletes through the store and nothing else.
        "retention" => with(&["store"]),
        // The API enqueues and tails: it never executes a run.
        "api" => with(&["store", "provider", "tools", "hub", "metrics", "ui"]),
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
