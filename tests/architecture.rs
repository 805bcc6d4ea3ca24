//! The architecture invariants of docs/architecture.md, read from the code:
//! which module may use which (a `use crate::x`, or a path `crate::x::…`,
//! that breaks a rule fails with the file and the line; a module without a
//! rule fails too), that work enters through one door, and what a test can
//! check of "a backend persists decisions; it makes none".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The domain's modules (`src/domain/`): plain types and rules, no I/O.
const DOMAIN: &[&str] = &[
    "domain::model",
    "domain::queue",
    "domain::budget",
    "domain::share",
    "domain::toolset",
    "domain::attempt",
    "domain::approval",
    "domain::checkpoint",
    "domain::compaction",
    "domain::credential",
    "domain::secret",
    "domain::event",
    "domain::fleet",
    "domain::formation",
    "domain::guard",
    "domain::history",
    "domain::branch",
    "domain::retry",
    "domain::lifecycle",
    "domain::shell",
    "domain::subagent",
    "domain::webhook",
    "domain::schedule",
    "domain::commands",
    "domain::access",
    "domain::quota",
    "domain::audit",
];

/// The folders whose files are modules of their own, each with a rule
/// (`src/domain/model.rs` is `domain::model`); elsewhere a top-level file or
/// folder is one module (`src/store/sqlite/x.rs` is `store`).
const FOLDERS: &[&str] = &["domain", "services"];

/// What a module may use besides itself.
#[derive(Debug, Clone, PartialEq)]
enum Rule {
    /// Only these modules (a folder's name alone, `domain`, stands for
    /// what its `mod.rs` declares, not for its modules).
    Only(Vec<&'static str>),
    /// Anything: the top layer (the command line, the application's
    /// wiring, benchmarks, configuration, the binaries).
    Any,
}

/// Every module's rule. A module with none is a failure: a new module gets
/// a rule before it lands.
fn rule(module: &str) -> Option<Rule> {
    let only = |uses: &[&'static str]| Some(Rule::Only(uses.to_vec()));
    let domain_and = |extra: &[&'static str]| Some(Rule::Only(DOMAIN.iter().chain(extra).copied().collect()));
    match module {
        // The domain uses only the domain (and not all of it: see below).
        "domain" | "domain::attempt" => only(&[]),
        // The types at the bottom: every other module stands on them, and
        // they use nothing, so that no import runs back up to them.
        "domain::model" => only(&[]),
        // An end's announcement is built from the model's values alone.
        "domain::webhook" => only(&["domain::model"]),
        // When ticks fall is computed from a schedule alone.
        "domain::schedule" => only(&["domain::model"]),
        // What to prune and summarize is decided on messages alone.
        "domain::compaction" => only(&["domain::model"]),
        // A sub-agent is one more source of tools, named `agent__<name>`.
        "domain::toolset" => only(&["domain::model", "domain::subagent"]),
        // A sub-agent's call shares out its parent's budget.
        "domain::subagent" => only(&["domain::model", "domain::guard", "domain::toolset"]),
        "domain::approval" => only(&["domain::model", "domain::toolset"]),
        // A provider key is one kind of sealed value, a secret another.
        "domain::credential" => only(&["domain::model", "domain::secret"]),
        "domain::secret" => only(&["domain::model"]),
        // Who calls the API: keys, owners and roles, over the model's IDs and times.
        "domain::access" => only(&["domain::model"]),
        // An audit entry names its caller as access does.
        "domain::audit" => only(&["domain::model", "domain::access"]),
        // The queue seen whole is counts and the model's timestamps.
        "domain::queue" => only(&["domain::model"]),
        // A provider budget is arithmetic over the declared limits.
        "domain::budget" => only(&["domain::model", "domain::queue"]),
        // An owner's quota and day are counted from checkpoints, priced like a run's budget.
        "domain::quota" => only(&["domain::model", "domain::checkpoint", "domain::guard"]),
        // A call's share is decided over budgets alone.
        "domain::share" => only(&["domain::model", "domain::budget"]),
        // Which programs stdio MCP servers may run is read from their definitions alone.
        "domain::commands" => only(&["domain::model"]),
        // A checkpoint may record a shell state, whose rules read checkpoints.
        "domain::checkpoint" => only(&[
            "domain::model",
            "domain::toolset",
            "domain::approval",
            "domain::shell",
            "domain::guard",
            "domain::compaction",
        ]),
        // The guards read checkpoints (and decide, with the approvals, what
        // becomes of a call).
        "domain::guard" => only(&["domain::model", "domain::checkpoint", "domain::approval"]),
        "domain::shell" => only(&["domain::model", "domain::checkpoint"]),
        // A session's history is messages and the compaction markers among them.
        "domain::history" => only(&["domain::model", "domain::compaction"]),
        // Which history rows a reader is shown, after rewinds.
        "domain::branch" => only(&["domain::model", "domain::lifecycle"]),
        // A retry reads its original's checkpoints and writes `step_reused`.
        "domain::retry" => only(&["domain::model", "domain::checkpoint", "domain::event"]),
        "domain::event" | "domain::fleet" | "domain::lifecycle" | "domain::formation" => domain_and(&[]),
        // A backend persists domain values: it knows no provider, tool,
        // engine or HTTP.
        "store" => domain_and(&[]),
        // Providers get their keys handed to them: they never read the store.
        // They read their streams with the crate's one SSE decoder.
        "provider" => domain_and(&["sse"]),
        "tools" => domain_and(&[]),
        // Metrics count what the layers above report: they know only the domain.
        "metrics" => domain_and(&[]),
        // Spans are made from the domain's values alone.
        "otel" => domain_and(&[]),
        "engine" => domain_and(&["store", "provider", "tools", "metrics", "otel"]),
        "worker" => domain_and(&["store", "engine", "tools", "metrics"]),
        // The one door for work: it checks a submission (a `work_dir` under
        // the sandbox's rules, a webhook under the network policy) and
        // writes through the store. A submission's trace is made here.
        "submit" => domain_and(&["store", "tools", "otel"]),
        // The supervisor counts restarts; its test hook makes store errors.
        "services" => domain_and(&["store", "metrics"]),
        "services::faults" => only(&["store"]),
        "services::hub" => domain_and(&["services", "store", "metrics", "sse"]),
        // The scheduler submits through the door, as a client would.
        "services::scheduler" => domain_and(&["services", "store", "submit"]),
        // The deliverer reads the outbox through the store and reaches
        // receivers under the tools' network policy and signature.
        "services::delivery" => domain_and(&["services", "store", "tools", "metrics"]),
        // The pruner deletes through the store and nothing else.
        "services::retention" => domain_and(&["services", "store"]),
        // The API enqueues through the door and tails: it never executes a
        // run. It reads the services' state and tails through the hub.
        "api" => {
            domain_and(&["store", "submit", "provider", "tools", "services", "services::hub", "metrics", "ui", "otel"])
        }
        // The SSE decoder reads bytes into events: it knows nothing of the
        // crate, so every layer may use it.
        "sse" => only(&[]),
        // The dashboard reads only through the public API, from the
        // browser: its server side uses nothing of the crate.
        "ui" => only(&[]),
        // Logging and the open-file limit know nothing of the crate.
        "telemetry" | "fdlimit" => only(&[]),
        "cli" | "app" | "bench" | "config" | "main" | "lib" => Some(Rule::Any),
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

/// The module a source file belongs to: `src/store/sqlite/x.rs` → `store`,
/// `src/domain/lifecycle/turn.rs` → `domain::lifecycle`, `src/domain/mod.rs` → `domain`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let parts: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    match parts.as_slice() {
        [folder, inner, ..] if FOLDERS.contains(&folder.as_str()) && inner != "mod" => format!("{folder}::{inner}"),
        [first, ..] => first.clone(),
        [] => String::new(),
    }
}

/// The module a `crate::` path names, among `modules` (those of src/):
/// `domain::model::Run` → `domain::model`, `services::ServiceResult` → `services`.
fn module_named(path: &str, modules: &BTreeSet<String>) -> String {
    let mut segments = path.split("::");
    let first = segments.next().unwrap_or("").to_string();
    match segments.next() {
        Some(second) if FOLDERS.contains(&first.as_str()) && modules.contains(&format!("{first}::{second}")) => {
            format!("{first}::{second}")
        }
        _ => first,
    }
}

/// Every `crate::name` a line mentions, with the rest of its path; a brace
/// list (`crate::{a, b::c}`, `crate::domain::{x, y}`) gives each of its names.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + "crate::".len()..];
        let path: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            let after = &tail[path.len()..];
            if after.starts_with('{') && (path.is_empty() || path.ends_with("::")) {
                // Each name at the braces' top level, under the path before them.
                let inner = after[1..].split('}').next().unwrap_or("");
                let names = inner.split(',').map(str::trim).filter(|p| !p.is_empty());
                found.extend(names.map(|name| format!("{path}{name}")));
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

/// What breaks the rules in `files` (each a module and its text): a use a
/// module's rule does not allow, a backend named outside the store, and a
/// module without a rule.
fn broken_rules(files: &[(String, String, String)]) -> Vec<String> {
    let modules: BTreeSet<String> = files.iter().map(|(_, module, _)| module.clone()).collect();
    let mut broken = Vec::new();
    for module in &modules {
        if rule(module).is_none() {
            broken.push(format!("{module}: no rule says what it may use; give it one in tests/architecture.rs"));
        }
    }
    for (name, module, text) in files {
        for (n, line) in text.lines().enumerate() {
            for path in crate_paths(code_part(line)) {
                let place = format!("{name}:{}: {}", n + 1, line.trim());
                // Backends are the store's own business: everyone else goes
                // through the `Store` trait.
                let backend = path.starts_with("store::sqlite") || path.starts_with("store::postgres");
                if backend && module != "store" {
                    broken.push(format!("{place}\n    only `store` may name a backend"));
                }
                let used = module_named(&path, &modules);
                if used == *module || used.is_empty() {
                    continue;
                }
                if let Some(Rule::Only(allowed)) = rule(module) {
                    if !allowed.contains(&used.as_str()) {
                        broken.push(format!("{place}\n    `{module}` may not use `{used}`"));
                    }
                }
            }
        }
    }
    broken
}

/// Every source file of src/: its path, its module and its text.
fn source_files() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|file| {
            let name = file.strip_prefix(&src).unwrap().display().to_string();
            (name, module_of(&src, file), read(file))
        })
        .collect()
}

#[test]
fn modules_use_only_what_the_architecture_allows() {
    let files = source_files();
    let broken = broken_rules(&files);
    assert!(broken.is_empty(), "architecture invariants broken:\n{}", broken.join("\n"));
    // The rules name modules that exist: a rule left behind by a move fails.
    let seen: BTreeSet<&str> = files.iter().map(|(_, module, _)| module.as_str()).collect();
    for module in DOMAIN.iter().chain(&["store", "provider", "tools", "engine", "worker", "submit", "api"]) {
        assert!(seen.contains(*module), "no module {module} in src/: update this test's rules");
    }
}

#[test]
fn the_checker_sees_a_broken_rule_and_a_module_without_one() {
    assert_eq!(
        crate_paths("use crate::store::sqlite::X; let y = crate::engine::run();"),
        ["store::sqlite::X", "engine::run"]
    );
    assert!(crate_paths("use $crate::x;").is_empty());
    assert_eq!(crate_paths("use crate::{provider, tools::x};"), ["provider", "tools::x"]);
    assert_eq!(crate_paths("use crate::domain::{guard, secret::X};"), ["domain::guard", "domain::secret::X"]);
    let file = |name: &str, module: &str, text: &str| (name.to_string(), module.to_string(), text.to_string());
    let modules = [file("domain/model.rs", "domain::model", ""), file("api/x.rs", "api", "")];
    let mut files = modules.to_vec();
    files.push(file("domain/model.rs", "domain::model", "use crate::api::AppState;"));
    assert_eq!(broken_rules(&files).len(), 1, "the model may not use the API");
    let mut files = modules.to_vec();
    files.push(file("newthing/mod.rs", "newthing", "pub fn f() {}"));
    let broken = broken_rules(&files);
    assert!(broken.len() == 1 && broken[0].starts_with("newthing: no rule"), "{broken:?}");
    let mut files = modules.to_vec();
    files.push(file("api/y.rs", "api", "use crate::store::postgres::PgStore;"));
    assert!(broken_rules(&files)[0].contains("only `store` may name a backend"));
    let src = Path::new("/p/src");
    assert_eq!(module_of(src, Path::new("/p/src/domain/lifecycle/turn.rs")), "domain::lifecycle");
    assert_eq!(module_of(src, Path::new("/p/src/domain/mod.rs")), "domain");
    assert_eq!(module_of(src, Path::new("/p/src/store/sqlite/x.rs")), "store");
    let known: BTreeSet<String> = ["services".into(), "services::hub".into()].into();
    assert_eq!(module_named("services::ServiceResult", &known), "services");
    assert_eq!(module_named("services::hub::Hub", &known), "services::hub");
}

/// Work enters through one door: outside `src/submit/`, nothing but the
/// store itself and the benchmarks (which fill a queue to measure it) asks
/// the store to enqueue a run, a fleet run or a formation run. The runs
/// that runs make (fleet tasks, formation nodes, sub-agents' runs) are
/// written by the store in the transactions of their makers, from the
/// domain's rules.
#[test]
fn work_enters_through_one_door() {
    let calls = [".enqueue_run(", ".enqueue_fleet_run(", ".enqueue_formation_run("];
    let mut broken = Vec::new();
    for (name, module, text) in source_files() {
        if ["submit", "store", "bench"].contains(&module.as_str()) {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            if calls.iter().any(|call| code_part(line).contains(call)) {
                broken.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(broken.is_empty(), "work enqueued around the door (use crate::submit::Door):\n{}", broken.join("\n"));
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
