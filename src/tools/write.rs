//! `write {path, content}`: creates or replaces a file atomically.
//!
//! The content goes to a temporary file in the target's directory, is
//! flushed to disk, and is renamed over the target, so a reader sees the old
//! file or the new one and never half of each. Missing parent directories
//! are created, each beneath the work_dir.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use serde_json::Value;

use super::args;
use super::confine::{explain, Root};
use super::{ToolContext, ToolOutput};

/// Writes the file.
pub async fn run(input: &Value, ctx: &ToolContext) -> ToolOutput {
    let (path, content) = match (args::string(input, "path"), args::string(input, "content")) {
        (Ok(p), Ok(c)) => (p.to_string(), c.to_string()),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let work_dir = ctx.work_dir.clone();
    args::blocking(move || {
        let root = Root::open(&work_dir)?;
        let rel = root.relative(&path)?;
        let written = write_atomic(&root, &rel, content.as_bytes())?;
        Ok(format!("wrote {} bytes to {}", written.bytes, written.display))
    })
    .await
}

/// What a write did.
#[derive(Debug)]
pub struct Written {
    /// Bytes written.
    pub bytes: usize,
    /// Where, relative to the work_dir (after following a final symlink).
    pub display: String,
}

/// Writes `bytes` to `rel` beneath the work_dir: temporary file, fsync,
/// rename. An existing file keeps its permission bits.
pub fn write_atomic(root: &Root, rel: &Path, bytes: &[u8]) -> Result<Written, String> {
    let target = root.write_target(rel)?;
    let dir = target.parent.as_raw_fd();
    let display = target.display.display().to_string();
    let mode = existing_mode(dir, &target.name).map_err(|e| explain(&target.display, &e))?;
    if mode == Some(u32::MAX) {
        return Err(format!("{display} is a directory; refused"));
    }
    let tmp_name = format!(".wingman-{:016x}.tmp", fastrand::u64(..));
    let tmp = CString::new(tmp_name).expect("no NUL in a generated name");
    let file = create_exclusive(dir, &tmp, mode.unwrap_or(0o666))
        .map_err(|e| format!("{display}: cannot create a temporary file: {e}"))?;
    let result = fill(file, bytes, mode).and_then(|()| rename_at(dir, &tmp, &target.name));
    if let Err(e) = result {
        // SAFETY: unlinkat on a name we created in a directory we hold.
        unsafe { libc::unlinkat(dir, tmp.as_ptr(), 0) };
        return Err(format!("{display}: write failed: {e}"));
    }
    Ok(Written { bytes: bytes.len(), display })
}

/// Writes and flushes the temporary file; restores an existing file's mode
/// exactly (the umask applied at creation may have narrowed it).
fn fill(mut file: File, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    file.write_all(bytes)?;
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    file.sync_all()
}

/// The permission bits of an existing regular file `name` in `dir`;
/// `Some(u32::MAX)` for a directory, `None` when nothing is there.
fn existing_mode(dir: RawFd, name: &OsStr) -> io::Result<Option<u32>> {
    let c = CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: stat is plain data; zeroed is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, C string and out-pointer.
    if unsafe { libc::fstatat(dir, c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
        let err = io::Error::last_os_error();
        return if err.raw_os_error() == Some(libc::ENOENT) { Ok(None) } else { Err(err) };
    }
    if st.st_mode & libc::S_IFMT == libc::S_IFDIR {
        return Ok(Some(u32::MAX));
    }
    Ok(Some(st.st_mode & 0o7777))
}

/// Creates a new file in `dir`; `O_EXCL | O_NOFOLLOW` mean it is always a
/// fresh file of ours, never something a symlink points to.
fn create_exclusive(dir: RawFd, name: &CString, mode: u32) -> io::Result<File> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: valid descriptor and C string; the result is checked.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags, mode as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Renames within one directory; a symlink at `to` is replaced, not followed.
fn rename_at(dir: RawFd, from: &CString, to: &OsStr) -> io::Result<()> {
    let to = CString::new(to.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: valid descriptor and C strings.
    if unsafe { libc::renameat(dir, from.as_ptr(), dir, to.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
