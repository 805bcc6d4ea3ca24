//! Where agents may work: the checks on a `work_dir` a client gives a
//! session, a fleet or a fleet run's task.
//!
//! The API creates nothing on disk: a client's path is only checked, and the
//! worker makes the directory before the run's first tool call. With
//! `--work-root`, a path must also resolve inside that directory, symlinks
//! followed as far as the path exists.

use std::path::{Component, Path, PathBuf};

use super::error::{ApiError, ApiResult};
use super::AppState;
use crate::tools::sandbox;

/// Checks a `work_dir` given by a client: an absolute path without NUL,
/// inside the work root when one is set, that is a directory if it exists
/// and does not contain the database.
pub fn check(state: &AppState, dir: &str) -> ApiResult<()> {
    if dir.contains('\0') {
        return Err(ApiError::BadRequest("work_dir must not contain a NUL byte".into()));
    }
    let path = Path::new(dir);
    if !path.is_absolute() {
        return Err(ApiError::BadRequest("work_dir must be an absolute path".into()));
    }
    if let Some(root) = &state.config.work_root {
        if !resolves_inside(path, root) {
            return Err(ApiError::Unprocessable(format!(
                "work_dir {dir:?} is outside the server's work root {}",
                root.display()
            )));
        }
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
        return Err(ApiError::BadRequest(format!("work_dir {dir:?} is not a directory")));
    }
    sandbox::check_work_dir(path, &state.config.protected).map_err(ApiError::BadRequest)
}

/// True if `path` lies inside `root` (itself canonical) once its existing
/// part is resolved: `..` is refused outright, since the part that does not
/// exist yet cannot be resolved and a symlink may appear below it later.
pub fn resolves_inside(path: &Path, root: &Path) -> bool {
    if path.components().any(|c| c == Component::ParentDir) {
        return false;
    }
    let mut existing = path.to_path_buf();
    let mut missing: Vec<PathBuf> = Vec::new();
    let resolved = loop {
        if let Ok(resolved) = existing.canonicalize() {
            break resolved;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(PathBuf::from(name));
                existing = parent.to_path_buf();
            }
            _ => return false,
        }
    };
    let full = missing.iter().rev().fold(resolved, |acc, part| acc.join(part));
    full.starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_root_pass_and_escapes_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
        let root = root.canonicalize().unwrap();
        assert!(resolves_inside(&root, &root));
        assert!(resolves_inside(&root.join("a"), &root));
        assert!(resolves_inside(&root.join("not/yet/made"), &root));
        assert!(!resolves_inside(&root.join("a/../../elsewhere"), &root));
        assert!(!resolves_inside(&root.join("out/passwd-dir"), &root));
        assert!(!resolves_inside(Path::new("/tmp"), &root));
        assert!(!resolves_inside(&dir.path().join("rootless"), &root));
    }
}
