//! Walking the work_dir for glob and grep without leaving it.
//!
//! The walk uses the `ignore` crate's walker with symlinks never followed,
//! in sorted order. Its own ignore-file handling is off, because it would
//! open `.gitignore` files by path, following a symlink anywhere; instead
//! `.gitignore` and `.ignore` files are read here through the confined open
//! and applied with the same crate's matcher. `.git` directories are skipped.
//!
//! The walker itself lists directories by path, so a directory swapped for
//! a symlink mid-walk could make it list names outside. Every path it
//! yields is therefore handed on only as a path relative to the work_dir,
//! and callers open or check it through the confined open, which refuses
//! such a path.

use std::collections::HashMap;
use std::fs::FileType;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, Match, WalkBuilder};
use tokio_util::sync::CancellationToken;

use super::confine::Root;

/// Ignore files larger than this are not read.
const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;
/// The ignore files honoured in every directory.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore"];

/// Calls `visit` with each entry that is not a directory beneath `start`
/// (relative to the work_dir, already canonical), as a path relative to the
/// work_dir, in sorted order, until it breaks or `cancel` fires.
pub fn walk(
    root: &Root,
    start: &Path,
    cancel: &CancellationToken,
    mut visit: impl FnMut(&Path, FileType) -> ControlFlow<()>,
) -> Result<(), String> {
    let ignores =
        Arc::new(Ignores { root: root.try_clone()?, real: root.real_path().to_path_buf(), cache: Mutex::default() });
    let mut builder = WalkBuilder::new(root.real_path().join(start));
    builder
        .standard_filters(false)
        .follow_links(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |entry| ignores.allows(entry));
    for entry in builder.build() {
        if cancel.is_cancelled() {
            return Err("cancelled".into());
        }
        // Unreadable entries are skipped, as ripgrep does.
        let Ok(entry) = entry else { continue };
        let Some(file_type) = entry.file_type() else { continue };
        if file_type.is_dir() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root.real_path()) else { continue };
        if visit(rel, file_type).is_break() {
            break;
        }
    }
    Ok(())
}

/// Ignore rules per directory, read through the confined open.
struct Ignores {
    root: Root,
    real: PathBuf,
    cache: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
}

impl Ignores {
    /// False for `.git` directories and for entries an ignore file excludes;
    /// the deepest directory with a rule about the entry decides.
    fn allows(&self, entry: &DirEntry) -> bool {
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if is_dir && entry.file_name() == ".git" {
            return false;
        }
        let path = entry.path();
        let mut dir = path.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(&self.real)) {
            if let Some(rules) = self.rules(d) {
                match rules.matched(path, is_dir) {
                    Match::Ignore(_) => return false,
                    Match::Whitelist(_) => return true,
                    Match::None => {}
                }
            }
            dir = d.parent();
        }
        true
    }

    /// The rules of one directory, read once.
    fn rules(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        let mut cache = self.cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(found) = cache.get(dir) {
            return found.clone();
        }
        let rules = self.load(dir);
        cache.insert(dir.to_path_buf(), rules.clone());
        rules
    }

    fn load(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        let rel = dir.strip_prefix(&self.real).ok()?;
        let mut builder = GitignoreBuilder::new(dir);
        let mut any = false;
        for name in IGNORE_FILES {
            let Ok(file) = self.root.open_file(&rel.join(name)) else { continue };
            let mut text = String::new();
            if file.take(MAX_IGNORE_FILE_BYTES).read_to_string(&mut text).is_err() {
                continue;
            }
            for line in text.lines() {
                // A malformed line is skipped, as git does.
                let _ = builder.add_line(None, line);
            }
            any = true;
        }
        if !any {
            return None;
        }
        builder.build().ok().map(Arc::new)
    }
}

/// Builds a matcher for a glob over paths relative to the work_dir. A
/// pattern without `/` matches a file name at any depth, as in `.gitignore`
/// files and ripgrep's `--glob`; one with `/` matches the whole path.
pub fn matcher(root: &Root, pattern: &str) -> Result<PathMatcher, String> {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return Err("the glob pattern is empty".into());
    }
    let pattern = if Path::new(pattern).is_absolute() {
        root.relative(pattern)?.to_string_lossy().into_owned()
    } else {
        pattern.trim_start_matches("./").to_string()
    };
    if pattern.split('/').any(|part| part == "..") {
        return Err(format!("the glob {pattern:?} contains `..`; patterns match inside the working directory only"));
    }
    let glob = globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| format!("invalid glob {pattern:?}: {e}"))?;
    Ok(PathMatcher { by_name: !pattern.contains('/'), glob: glob.compile_matcher(), pattern })
}

/// A compiled glob, see [`matcher`].
pub struct PathMatcher {
    glob: globset::GlobMatcher,
    by_name: bool,
    pattern: String,
}

impl PathMatcher {
    /// True if `rel` (relative to the work_dir) matches.
    pub fn is_match(&self, rel: &Path) -> bool {
        if self.by_name {
            rel.file_name().is_some_and(|name| self.glob.is_match(name))
        } else {
            self.glob.is_match(rel)
        }
    }

    /// The directory the walk can start in: the pattern's leading components
    /// that hold no glob syntax (`src` for `src/**/*.rs`).
    pub fn literal_prefix(&self) -> PathBuf {
        if self.by_name {
            return PathBuf::new();
        }
        let mut parts: Vec<&str> = self.pattern.split('/').collect();
        parts.pop();
        parts.iter().take_while(|p| !p.contains(['*', '?', '[', '{', '\\'])).collect()
    }
}
