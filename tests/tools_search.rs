//! The search tools glob and grep: matching, ordering, ignore files, binary
//! files, caps and errors.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use tempfile::TempDir;
use wingman::tools::{self, ToolContext, ToolOutput};

fn put(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A small project: sources, a build directory ignored by .gitignore, a
/// .git directory, a hidden file and a binary file.
fn project() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "Cargo.toml", b"[package]\nname = \"demo\"\n");
    put(root, "src/main.rs", b"fn main() {\n    demo::run();\n}\n");
    put(root, "src/lib.rs", b"pub fn run() {\n    println!(\"run\");\n}\n");
    put(root, "src/util/mod.rs", b"// TODO: helpers\npub fn helper() {}\n");
    put(root, "docs/guide.md", b"# Guide\nCall run() to start.\n");
    put(root, "target/debug/build.rs", b"fn run() {}\n");
    put(root, ".gitignore", b"/target\n*.log\n");
    put(root, "app.log", b"fn run() logged\n");
    put(root, ".git/config", b"fn run() in git\n");
    put(root, ".hidden.rs", b"fn hidden_run() {}\n");
    put(root, "data.bin", b"fn run()\x00\x01\x02");
    let ctx = ToolContext::new(root);
    (dir, ctx)
}

async fn call(ctx: &ToolContext, name: &str, input: Value) -> ToolOutput {
    tools::run(name, &input, ctx).await
}

#[tokio::test]
async fn glob_matches_paths_sorted_and_honours_ignore_files() {
    let (_dir, ctx) = project();
    let rs = call(&ctx, "glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(rs, ToolOutput::ok(".hidden.rs\nsrc/lib.rs\nsrc/main.rs\nsrc/util/mod.rs"));
    let by_name = call(&ctx, "glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(by_name.output, rs.output, "a pattern without / matches names at any depth");
    let direct = call(&ctx, "glob", json!({"pattern": "src/*.rs"})).await;
    assert_eq!(direct.output, "src/lib.rs\nsrc/main.rs", "* does not cross /");
    let braces = call(&ctx, "glob", json!({"pattern": "{Cargo.toml,docs/*.md}"})).await;
    assert_eq!(braces.output, "Cargo.toml\ndocs/guide.md");
    let absolute = format!("{}/src/**/*.rs", ctx.work_dir.display());
    assert_eq!(
        call(&ctx, "glob", json!({"pattern": absolute})).await.output,
        "src/lib.rs\nsrc/main.rs\nsrc/util/mod.rs"
    );
    let git = call(&ctx, "glob", json!({"pattern": "**/config"})).await;
    assert_eq!(git.output, "no files match \"**/config\"", ".git is skipped");
    let logs = call(&ctx, "glob", json!({"pattern": "*.log"})).await;
    assert_eq!(logs.output, "no files match \"*.log\"", ".gitignore is honoured");
}

#[tokio::test]
async fn glob_caps_its_results_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1100 {
        put(dir.path(), &format!("many/f{i:04}.txt"), b"");
    }
    let ctx = ToolContext::new(dir.path());
    let out = call(&ctx, "glob", json!({"pattern": "many/*.txt"})).await;
    let lines: Vec<&str> = out.output.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "many/f0000.txt");
    assert_eq!(lines[999], "many/f0999.txt");
    assert_eq!(lines[1000], "[results cut: showing 1000 of 1100 matching files; use a narrower pattern]");
}

#[tokio::test]
async fn glob_rejects_bad_patterns() {
    let (_dir, ctx) = project();
    for (pattern, needle) in [
        ("[", "invalid glob \"[\""),
        ("", "the glob pattern is empty"),
        ("../*", "contains `..`"),
        ("src/../../*", "contains `..`"),
        ("/etc/*", "is outside the working directory"),
    ] {
        let out = call(&ctx, "glob", json!({"pattern": pattern})).await;
        assert!(out.is_error && out.output.contains(needle), "{pattern}: {}", out.output);
    }
}

#[tokio::test]
async fn grep_reports_file_line_text_in_sorted_order_skipping_binaries() {
    let (_dir, ctx) = project();
    let out = call(&ctx, "grep", json!({"pattern": "run\\("})).await;
    assert_eq!(
        out,
        ToolOutput::ok(".hidden.rs:1:fn hidden_run() {}\ndocs/guide.md:2:Call run() to start.\nsrc/lib.rs:1:pub fn run() {\nsrc/main.rs:2:    demo::run();\n[1 binary files skipped]")
    );
}

#[tokio::test]
async fn grep_limits_by_path_and_glob() {
    let (_dir, ctx) = project();
    let in_src = call(&ctx, "grep", json!({"pattern": "fn \\w+", "path": "src"})).await;
    assert_eq!(
        in_src.output,
        "src/lib.rs:1:pub fn run() {\nsrc/main.rs:1:fn main() {\nsrc/util/mod.rs:2:pub fn helper() {}"
    );
    let md = call(&ctx, "grep", json!({"pattern": "(?i)call", "glob": "*.md"})).await;
    assert_eq!(md.output, "docs/guide.md:2:Call run() to start.");
    let one_file = call(&ctx, "grep", json!({"pattern": "TODO", "path": "src/util/mod.rs"})).await;
    assert_eq!(one_file.output, "src/util/mod.rs:1:// TODO: helpers");
    let via_dots = call(&ctx, "grep", json!({"pattern": "TODO", "path": "docs/../src"})).await;
    assert_eq!(via_dots.output, "src/util/mod.rs:1:// TODO: helpers");
    let none = call(&ctx, "grep", json!({"pattern": "no such text"})).await;
    assert_eq!(none, ToolOutput::ok("no matches for \"no such text\"\n[1 binary files skipped]"));
}

#[tokio::test]
async fn grep_caps_results_and_cuts_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let many: String = (1..=300).map(|i| format!("match {i}\n")).collect();
    put(dir.path(), "many.txt", many.as_bytes());
    put(dir.path(), "wide.txt", format!("match {}\n", "w".repeat(5000)).as_bytes());
    let ctx = ToolContext::new(dir.path());
    let out = call(&ctx, "grep", json!({"pattern": "^match"})).await;
    let lines: Vec<&str> = out.output.lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[199], "many.txt:200:match 200");
    assert_eq!(
        lines[200],
        "[results cut at 200 matching lines / 50 KB; more matches exist: narrow the pattern, path or glob]"
    );
    let wide = call(&ctx, "grep", json!({"pattern": "^match", "path": "wide.txt"})).await;
    assert!(wide.output.ends_with("… [line cut at 500 bytes]") && wide.output.len() < 600, "{}", wide.output);
}

#[tokio::test]
async fn grep_rejects_bad_input() {
    let (_dir, ctx) = project();
    for (input, needle) in [
        (json!({"pattern": "("}), "invalid regular expression"),
        (json!({"pattern": "x", "path": "missing"}), "missing does not exist"),
        (json!({"pattern": "x", "glob": "["}), "invalid glob"),
        (json!({"pattern": 3}), "\"pattern\" must be a string"),
        (json!({"pattern": "x", "path": 3}), "\"path\" must be a string"),
    ] {
        let out = call(&ctx, "grep", input.clone()).await;
        assert!(out.is_error && out.output.contains(needle), "{input}: {}", out.output);
    }
}
