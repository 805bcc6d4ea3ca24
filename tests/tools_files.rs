//! The file tools read, write and edit: their behaviour, limits and errors.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use serde_json::{json, Value};
use tempfile::TempDir;
use wingman::tools::{self, ToolContext, ToolOutput};

fn setup() -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

async fn call(ctx: &ToolContext, name: &str, input: Value) -> ToolOutput {
    tools::run(name, &input, ctx).await
}

fn numbered(range: std::ops::RangeInclusive<usize>) -> String {
    range.map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn read_numbers_lines_and_honours_offset_and_limit() {
    let (dir, ctx) = setup();
    fs::write(dir.path().join("f.txt"), numbered(1..=10)).unwrap();
    let all = call(&ctx, "read", json!({"path": "f.txt"})).await;
    assert!(!all.is_error);
    assert!(all.output.starts_with("     1\tline 1\n     2\tline 2\n"), "{}", all.output);
    assert!(all.output.ends_with("    10\tline 10"), "{}", all.output);
    let part = call(&ctx, "read", json!({"path": "f.txt", "offset": 3, "limit": 2})).await;
    assert_eq!(
        part.output,
        "     3\tline 3\n     4\tline 4\n[more lines follow: showing lines 3-4 of 10; read again with offset=5 to continue]"
    );
    let tail = call(&ctx, "read", json!({"path": "f.txt", "offset": 9})).await;
    assert_eq!(tail.output, "     9\tline 9\n    10\tline 10");
}

#[tokio::test]
async fn read_truncates_to_2000_lines_with_a_note() {
    let (dir, ctx) = setup();
    fs::write(dir.path().join("long.txt"), numbered(1..=3000)).unwrap();
    let out = call(&ctx, "read", json!({"path": "long.txt"})).await;
    let lines: Vec<&str> = out.output.lines().collect();
    assert_eq!(lines.len(), 2001);
    assert_eq!(lines[1999], "  2000\tline 2000");
    assert_eq!(
        lines[2000],
        "[more lines follow: showing lines 1-2000 of 3000; read again with offset=2001 to continue]"
    );
    let capped = call(&ctx, "read", json!({"path": "long.txt", "limit": 5000})).await;
    assert_eq!(capped.output.lines().count(), 2001, "limit is capped at 2000");
}

#[tokio::test]
async fn read_truncates_to_50_kb_and_cuts_long_lines() {
    let (dir, ctx) = setup();
    let wide: String = (1..=1000).map(|i| format!("{i:04}{}\n", "x".repeat(96))).collect();
    fs::write(dir.path().join("wide.txt"), wide).unwrap();
    let out = call(&ctx, "read", json!({"path": "wide.txt"})).await;
    assert!(out.output.len() <= 50 * 1024 + 200, "{} bytes", out.output.len());
    // Each numbered line takes 108 bytes, so 474 of them fit in 50 KB.
    let note = out.output.lines().last().unwrap();
    assert_eq!(note, "[output cut at 50 KB: showing lines 1-474 of 1000; read again with offset=475 to continue]");
    fs::write(dir.path().join("one.txt"), "y".repeat(10_000)).unwrap();
    let one = call(&ctx, "read", json!({"path": "one.txt"})).await;
    assert!(one.output.ends_with("… [line cut at 2000 bytes]"), "{}", &one.output[one.output.len() - 60..]);
}

#[tokio::test]
async fn read_gives_clear_answers_for_odd_files() {
    let (dir, ctx) = setup();
    fs::write(dir.path().join("bin"), b"\x7fELF\x00\x01\x02binary").unwrap();
    fs::write(dir.path().join("empty"), b"").unwrap();
    fs::write(dir.path().join("short"), "a\nb\n").unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let fifo = std::ffi::CString::new(dir.path().join("fifo").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let cases = [
        (json!({"path": "bin"}), true, "bin is a binary file (13 bytes); its content is not shown"),
        (json!({"path": "missing.txt"}), true, "missing.txt does not exist"),
        (json!({"path": "sub"}), true, "sub is a directory, not a file"),
        (json!({"path": "fifo"}), true, "fifo is not a regular file"),
        (json!({"path": "empty"}), false, "empty is empty (0 bytes)"),
        (json!({"path": "short", "offset": 5}), true, "offset 5 is past the end of short (2 lines)"),
        (json!({"path": "short", "offset": 0}), true, "\"offset\" must be a positive integer"),
        (json!({"path": "short", "limit": "all"}), true, "\"limit\" must be a positive integer"),
        (json!({"path": ""}), true, "the path is empty"),
        (json!({}), true, "missing the required \"path\" string"),
    ];
    for (input, is_error, expected) in cases {
        let out = call(&ctx, "read", input.clone()).await;
        assert_eq!(out, ToolOutput { output: expected.into(), is_error, shell: None }, "{input}");
    }
    let absolute = dir.path().join("short").to_string_lossy().into_owned();
    assert_eq!(call(&ctx, "read", json!({"path": absolute})).await.output, "     1\ta\n     2\tb");
}

#[tokio::test]
async fn write_creates_parents_reports_bytes_and_leaves_no_temporary_file() {
    let (dir, ctx) = setup();
    let out = call(&ctx, "write", json!({"path": "a/b/c.txt", "content": "héllo\n"})).await;
    assert_eq!(out, ToolOutput::ok("wrote 7 bytes to a/b/c.txt"));
    assert_eq!(fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(), "héllo\n");
    let again = call(&ctx, "write", json!({"path": "a/b/c.txt", "content": ""})).await;
    assert_eq!(again, ToolOutput::ok("wrote 0 bytes to a/b/c.txt"));
    assert_eq!(fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(), "");
    let names: Vec<_> = fs::read_dir(dir.path().join("a/b")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("c.txt")]);
}

#[tokio::test]
async fn write_replaces_atomically_keeping_the_mode() {
    let (dir, ctx) = setup();
    let script = dir.path().join("run.sh");
    fs::write(&script, "old").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
    let before = fs::metadata(&script).unwrap();
    call(&ctx, "write", json!({"path": "run.sh", "content": "#!/bin/sh\necho new\n"})).await;
    let after = fs::metadata(&script).unwrap();
    assert_eq!(after.permissions().mode() & 0o7777, 0o750);
    // A new inode: the old file was replaced by rename, not rewritten in place.
    assert_ne!(std::os::unix::fs::MetadataExt::ino(&before), std::os::unix::fs::MetadataExt::ino(&after));
    assert_eq!(fs::read_to_string(&script).unwrap(), "#!/bin/sh\necho new\n");
}

#[tokio::test]
async fn write_through_an_inner_symlink_writes_its_target() {
    let (dir, ctx) = setup();
    fs::create_dir(dir.path().join("real")).unwrap();
    fs::write(dir.path().join("real/target.txt"), "old").unwrap();
    std::os::unix::fs::symlink("real/target.txt", dir.path().join("link.txt")).unwrap();
    let out = call(&ctx, "write", json!({"path": "link.txt", "content": "new"})).await;
    assert_eq!(out, ToolOutput::ok("wrote 3 bytes to real/target.txt"));
    assert_eq!(fs::read_to_string(dir.path().join("real/target.txt")).unwrap(), "new");
    assert!(fs::symlink_metadata(dir.path().join("link.txt")).unwrap().file_type().is_symlink());
}

#[tokio::test]
async fn write_refuses_directories_and_bad_input() {
    let (dir, ctx) = setup();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("file"), "x").unwrap();
    let cases = [
        (json!({"path": "sub", "content": "x"}), "sub is a directory; refused"),
        (json!({"path": ".", "content": "x"}), ". does not name a file"),
        (json!({"path": "file/inner.txt", "content": "x"}), "file: a component of the path is not a directory"),
        (json!({"path": "x.txt"}), "missing the required \"content\" string"),
        (json!({"path": "x.txt", "content": 5}), "\"content\" must be a string"),
    ];
    for (input, expected) in cases {
        assert_eq!(call(&ctx, "write", input.clone()).await, ToolOutput::error(expected), "{input}");
    }
}

#[tokio::test]
async fn edit_replaces_exactly_once_and_returns_a_diff() {
    let (dir, ctx) = setup();
    fs::write(dir.path().join("m.rs"), "fn main() {\n    println!(\"hi\");\n}\n").unwrap();
    let out = call(&ctx, "edit", json!({"path": "m.rs", "old_string": "\"hi\"", "new_string": "\"hello\""})).await;
    assert_eq!(
        out,
        ToolOutput::ok(
            "replaced 1 occurrence in m.rs\n--- a/m.rs\n+++ b/m.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n }"
        )
    );
    assert_eq!(fs::read_to_string(dir.path().join("m.rs")).unwrap(), "fn main() {\n    println!(\"hello\");\n}\n");
}

#[tokio::test]
async fn edit_names_the_count_when_zero_or_several_match() {
    let (dir, ctx) = setup();
    let text = "a = 1\nb = 1\nc = 1\n";
    fs::write(dir.path().join("v.txt"), text).unwrap();
    let none = call(&ctx, "edit", json!({"path": "v.txt", "old_string": "= 2", "new_string": "= 3"})).await;
    assert!(none.is_error);
    assert!(none.output.starts_with("old_string was not found in v.txt (0 matches)"), "{}", none.output);
    let many = call(&ctx, "edit", json!({"path": "v.txt", "old_string": "= 1", "new_string": "= 2"})).await;
    assert!(many.is_error);
    assert!(many.output.starts_with("old_string matches 3 times in v.txt"), "{}", many.output);
    assert_eq!(fs::read_to_string(dir.path().join("v.txt")).unwrap(), text, "a refused edit changes nothing");
    let all =
        call(&ctx, "edit", json!({"path": "v.txt", "old_string": "= 1", "new_string": "= 2", "replace_all": true}))
            .await;
    assert!(!all.is_error, "{}", all.output);
    assert!(all.output.starts_with("replaced 3 occurrences in v.txt\n"), "{}", all.output);
    assert!(all.output.contains("-a = 1\n-b = 1\n-c = 1\n+a = 2\n+b = 2\n+c = 2"), "{}", all.output);
    assert_eq!(fs::read_to_string(dir.path().join("v.txt")).unwrap(), "a = 2\nb = 2\nc = 2\n");
}

#[tokio::test]
async fn edit_refuses_missing_binary_and_non_utf8_files() {
    let (dir, ctx) = setup();
    fs::write(dir.path().join("bin"), b"ab\x00cd").unwrap();
    fs::write(dir.path().join("latin1"), b"caf\xe9").unwrap();
    let cases = [
        ("nope.txt", "nope.txt does not exist"),
        ("bin", "bin is a binary file; edit changes text files only"),
        ("latin1", "latin1 is not valid UTF-8 text; edit changes text files only"),
    ];
    for (path, expected) in cases {
        let out = call(&ctx, "edit", json!({"path": path, "old_string": "a", "new_string": "b"})).await;
        assert_eq!(out, ToolOutput::error(expected), "{path}");
    }
}
