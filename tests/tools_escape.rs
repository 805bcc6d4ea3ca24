//! The escape suite: read, write, edit, glob and grep given every kind of
//! path the Linux openat2 selftests use to climb out of a directory (`..`
//! chains, absolute paths, symlinks to `/`, to the parent, to a sibling,
//! through /proc magic links, loops) and a symlink swapped in while they run.
//! An escape is any outside content shown, any outside file changed or
//! created, or any outside name listed. The count must be zero.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use tempfile::TempDir;
use wingman::tools::{self, ToolContext, ToolOutput};

/// Text that exists only outside the work_dir.
const SECRET: &str = "TOP SECRET";

/// A work_dir with escape hatches in it, beside an outside directory.
struct Fixture {
    _tmp: TempDir,
    base: PathBuf,
    root: PathBuf,
    ctx: ToolContext,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("root");
    let outside = base.join("outside");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{SECRET} outside\n")).unwrap();
    std::fs::write(outside.join("outside-only.txt"), format!("{SECRET} too\n")).unwrap();
    std::fs::write(root.join("inside.txt"), "inside content\n").unwrap();
    std::fs::write(root.join("sub/inner.txt"), "inner content\n").unwrap();
    let links: &[(&str, String)] = &[
        ("abs_root", "/".into()),
        ("abs_secret", format!("{}/secret.txt", outside.display())),
        ("abs_outside_dir", outside.display().to_string()),
        ("abs_self", root.display().to_string()),
        ("rel_parent", "..".into()),
        ("rel_sibling", "../outside".into()),
        ("rel_secret", "../outside/secret.txt".into()),
        ("dotdot_passwd", "../../../../../../../../../../../../etc/passwd".into()),
        ("garbage_passwd", "/../../../../../../etc/passwd".into()),
        ("cheeky_self", "../root".into()),
        ("sub/up_out", "../../outside".into()),
        ("proc_root", "/proc/self/root".into()),
        ("proc_cwd", "/proc/self/cwd".into()),
        ("loop_a", "loop_b".into()),
        ("loop_b", "loop_a".into()),
        ("self_loop", "self_loop".into()),
        ("dangling_out", "../outside/created.txt".into()),
        ("dangling_abs", format!("{}/created-abs.txt", outside.display())),
        ("inner_link", "sub/inner.txt".into()),
        ("sub/back_in", "../inside.txt".into()),
        ("inner_dir", "sub".into()),
    ];
    for (name, target) in links {
        symlink(target, root.join(name)).unwrap();
    }
    let ctx = ToolContext::new(&root);
    Fixture { _tmp: tmp, base, root, ctx }
}

impl Fixture {
    fn outside(&self) -> PathBuf {
        self.base.join("outside")
    }

    /// Every path the suite tries, relative, absolute and through links.
    fn hostile_paths(&self) -> Vec<String> {
        let base = self.base.display();
        let root = self.root.display();
        let mut paths: Vec<String> = [
            "..",
            "../outside/secret.txt",
            "./../outside/secret.txt",
            "sub/../../outside/secret.txt",
            "sub/../../../../../../../../etc/passwd",
            "../../../../../../../../etc/passwd",
            "/etc/passwd",
            "/",
            "abs_root/etc/passwd",
            "abs_secret",
            "abs_outside_dir/secret.txt",
            "abs_self/inside.txt",
            "rel_parent/outside/secret.txt",
            "rel_sibling/secret.txt",
            "rel_secret",
            "dotdot_passwd",
            "garbage_passwd",
            "cheeky_self/../outside/secret.txt",
            "sub/up_out/secret.txt",
            "proc_root/etc/passwd",
            "proc_cwd/Cargo.toml",
            "/proc/self/root/etc/passwd",
            "/proc/self/cwd/Cargo.toml",
            "loop_a",
            "self_loop",
            "loop_a/x",
            "dangling_out",
            "dangling_abs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        paths.push(format!("{base}/outside/secret.txt"));
        paths.push(format!("{root}/../outside/secret.txt"));
        paths.push(format!("{root}/sub/up_out/secret.txt"));
        paths.push(format!("abs_root{base}/outside/secret.txt"));
        paths.push(format!("proc_root{base}/outside/secret.txt"));
        paths
    }

    /// Names and contents of everything outside, to compare before and after.
    fn outside_snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut map = BTreeMap::new();
        for entry in std::fs::read_dir(&self.base).unwrap() {
            let path = entry.unwrap().path();
            if path != self.root {
                snapshot_into(&path, &mut map);
            }
        }
        map
    }
}

fn snapshot_into(path: &Path, map: &mut BTreeMap<PathBuf, Vec<u8>>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            snapshot_into(&entry.unwrap().path(), map);
        }
    } else {
        map.insert(path.to_path_buf(), std::fs::read(path).unwrap_or_default());
    }
}

/// True if the output shows anything from outside the work_dir.
fn leaks(out: &ToolOutput) -> bool {
    let text = &out.output;
    text.contains(SECRET) || text.contains("root:x:") || text.contains("[package]") || text.contains("outside-only")
}

#[tokio::test]
async fn read_never_escapes() {
    let f = fixture();
    let mut escapes = Vec::new();
    for path in f.hostile_paths() {
        let out = tools::run("read", &json!({"path": path}), &f.ctx).await;
        if !out.is_error || leaks(&out) {
            escapes.push(format!("{path}: {}", out.output));
        }
    }
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
}

#[tokio::test]
async fn symlinks_that_stay_inside_still_work() {
    let f = fixture();
    let run = |name: &'static str, input: serde_json::Value| {
        let ctx = f.ctx.clone();
        async move { tools::run(name, &input, &ctx).await }
    };
    assert_eq!(run("read", json!({"path": "inner_link"})).await, ToolOutput::ok("     1\tinner content"));
    assert_eq!(run("read", json!({"path": "sub/back_in"})).await, ToolOutput::ok("     1\tinside content"));
    assert_eq!(run("read", json!({"path": "inner_dir/../inside.txt"})).await, ToolOutput::ok("     1\tinside content"));
    let edit = run("edit", json!({"path": "inner_link", "old_string": "inner", "new_string": "edited"})).await;
    assert!(edit.output.starts_with("replaced 1 occurrence in sub/inner.txt"), "{}", edit.output);
    let write = run("write", json!({"path": "inner_dir/made.txt", "content": "made"})).await;
    assert_eq!(write, ToolOutput::ok("wrote 4 bytes to inner_dir/made.txt"));
    assert_eq!(std::fs::read_to_string(f.root.join("sub/made.txt")).unwrap(), "made");
    let grep = run("grep", json!({"pattern": "edited|made", "path": "inner_dir"})).await;
    assert_eq!(grep.output, "sub/inner.txt:1:edited content\nsub/made.txt:1:made");
}

#[tokio::test]
async fn refusals_say_why() {
    let f = fixture();
    let read = |path: &str| {
        let ctx = f.ctx.clone();
        let path = path.to_string();
        async move { tools::run("read", &json!({"path": path}), &ctx).await.output }
    };
    assert!(read("../outside/secret.txt").await.contains("resolves outside the working directory"));
    assert!(read("abs_root/etc/passwd").await.contains("resolves outside the working directory"));
    assert!(read("/etc/passwd").await.contains("is outside the working directory"));
    assert!(read("self_loop").await.contains("too many levels of symbolic links"));
    assert!(read("proc_root/etc/passwd").await.contains("refused"));
}

#[tokio::test]
async fn write_never_escapes() {
    let f = fixture();
    let before = f.outside_snapshot();
    let mut escapes = Vec::new();
    let mut targets = f.hostile_paths();
    targets.retain(|p| !p.contains("passwd") && !p.contains("Cargo.toml") && p != "/");
    let dirs = ["..", "abs_outside_dir", "rel_parent/outside", "rel_sibling", "sub/up_out", "cheeky_self/../outside"];
    targets.extend(dirs.iter().map(|d| format!("{d}/new.txt")));
    targets.extend(dirs.iter().map(|d| format!("{d}/deeper/new.txt")));
    targets.push(format!("abs_root{}/new.txt", f.outside().display()));
    for path in &targets {
        let out = tools::run("write", &json!({"path": path, "content": "PWNED"}), &f.ctx).await;
        if !out.is_error {
            escapes.push(format!("{path}: {}", out.output));
        }
    }
    assert_eq!(f.outside_snapshot(), before, "a file outside was changed or created");
    assert!(!f.outside().join("created.txt").exists() && !f.outside().join("deeper").exists());
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
}

#[tokio::test]
async fn edit_never_escapes() {
    let f = fixture();
    let before = f.outside_snapshot();
    let mut escapes = Vec::new();
    for path in f.hostile_paths() {
        // A matching old_string only outside: reading it at all would show
        // up as a count in the message, changing it in the snapshot.
        let input = json!({"path": path, "old_string": SECRET, "new_string": "PWNED"});
        let out = tools::run("edit", &input, &f.ctx).await;
        if !out.is_error || leaks(&out) || out.output.contains("matches") || out.output.contains("replaced") {
            escapes.push(format!("{path}: {}", out.output));
        }
    }
    assert_eq!(f.outside_snapshot(), before, "a file outside was changed");
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
}

/// Every path glob may list: the entries of the work_dir itself.
fn inside_names(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for dir in ["", "sub"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let entry = entry.unwrap();
            let rel = Path::new(dir).join(entry.file_name());
            names.push(rel.display().to_string());
        }
    }
    names
}

#[tokio::test]
async fn glob_never_escapes() {
    let f = fixture();
    let allowed = inside_names(&f.root);
    let mut escapes = Vec::new();
    let patterns = [
        "**/*",
        "*",
        "**/secret.txt",
        "**/passwd",
        "abs_root/etc/*",
        "abs_root/**/passwd",
        "rel_sibling/*",
        "rel_parent/**",
        "sub/up_out/*",
        "abs_outside_dir/**",
        "proc_root/etc/passwd",
        "loop_a/*",
        "cheeky_self/**",
        "../outside/*",
        "/etc/*",
        "**/../outside/*",
    ];
    for pattern in patterns {
        let out = tools::run("glob", &json!({"pattern": pattern}), &f.ctx).await;
        let listed = out.output.lines().filter(|l| !l.starts_with('[') && !l.starts_with("no files match"));
        let foreign: Vec<&str> = listed.filter(|l| !allowed.iter().any(|a| a == l)).collect();
        if leaks(&out) || (!out.is_error && !foreign.is_empty()) {
            escapes.push(format!("{pattern}: {foreign:?}"));
        }
    }
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
}

#[tokio::test]
async fn grep_never_escapes() {
    let f = fixture();
    // Written so that the pattern echoed in "no matches for ..." is no leak.
    let pattern = "TOP SECRE[T]|root:[x]:|\\[packag[e]\\]";
    let mut escapes = Vec::new();
    let mut inputs = vec![json!({"pattern": pattern}), json!({"pattern": pattern, "glob": "**/secret.txt"})];
    inputs.extend(f.hostile_paths().into_iter().map(|p| json!({"pattern": pattern, "path": p})));
    for input in inputs {
        let out = tools::run("grep", &input, &f.ctx).await;
        if leaks(&out) {
            escapes.push(format!("{input}: {}", out.output));
        }
    }
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
}

/// Swaps two names atomically, over and over, until told to stop.
fn start_swapping(
    a: PathBuf,
    b: PathBuf,
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicUsize>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let a = CString::new(a.to_str().unwrap()).unwrap();
        let b = CString::new(b.to_str().unwrap()).unwrap();
        while !stop.load(Ordering::Relaxed) {
            // SAFETY: valid C strings; the result is checked.
            let r = unsafe {
                libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE)
            };
            assert_eq!(r, 0, "renameat2: {}", std::io::Error::last_os_error());
            swaps.fetch_add(1, Ordering::Relaxed);
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_mid_operation_never_escapes() {
    let f = fixture();
    std::fs::write(f.outside().join("f.txt"), format!("{SECRET} in f\n")).unwrap();
    std::fs::create_dir(f.root.join("swap")).unwrap();
    std::fs::write(f.root.join("swap/f.txt"), "inside swap\n").unwrap();
    symlink("../outside", f.root.join("swap_alt")).unwrap();
    let before = f.outside_snapshot();
    let (stop, swaps) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
    let swapper = start_swapping(f.root.join("swap"), f.root.join("swap_alt"), stop.clone(), swaps.clone());
    let (mut escapes, mut read_ok, mut read_refused) = (Vec::new(), 0, 0);
    for i in 0..2000 {
        let calls = [
            ("read", json!({"path": "swap/f.txt"})),
            ("grep", json!({"pattern": "TOP SECRE[T]", "path": "swap"})),
            ("grep", json!({"pattern": "TOP SECRE[T]"})),
            ("glob", json!({"pattern": "swap/*"})),
            ("edit", json!({"path": "swap/f.txt", "old_string": SECRET, "new_string": "PWNED"})),
            ("write", json!({"path": format!("swap/new-{i}.txt"), "content": "PWNED"})),
            ("write", json!({"path": format!("swap/d{i}/new.txt"), "content": "PWNED"})),
        ];
        for (name, input) in calls {
            let out = tools::run(name, &input, &f.ctx).await;
            if leaks(&out) || (name == "glob" && out.output.contains("secret.txt")) {
                escapes.push(format!("{name} {input}: {}", out.output));
            }
            if name == "read" {
                if out.is_error {
                    read_refused += 1
                } else {
                    read_ok += 1
                }
            }
        }
        if i >= 200 && read_ok > 0 && read_refused > 0 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert_eq!(f.outside_snapshot(), before, "a file outside was changed or created");
    assert!(escapes.is_empty(), "{} escapes:\n{}", escapes.len(), escapes.join("\n"));
    // The race really ran: the same path was sometimes inside, sometimes refused.
    assert!(
        swaps.load(Ordering::Relaxed) > 0 && read_ok > 0 && read_refused > 0,
        "ok {read_ok}, refused {read_refused}"
    );
}
