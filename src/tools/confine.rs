//! Path confinement: every path a file tool touches is resolved by the
//! kernel beneath the work_dir.
//!
//! Resolution uses `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`
//! against a descriptor of the work_dir, so `..` chains, absolute symlinks,
//! symlinks that climb out, `/proc` magic links and symlink loops are refused
//! by the kernel at the moment of use. Nothing here compares path strings to
//! decide what is safe: a symlink swapped in between a check and a use can at
//! worst make an operation fail, never reach outside. (Linux 5.6 or later.)

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

/// How many symlinks at the final component a write follows before giving up.
const MAX_FINAL_LINKS: usize = 40;

/// The work_dir, opened once per tool call.
#[derive(Debug)]
pub struct Root {
    dir: OwnedFd,
    /// The work_dir as configured, used to accept absolute paths inside it.
    given: PathBuf,
    /// The work_dir with symlinks resolved, also accepted as a prefix.
    real: PathBuf,
}

/// Where a write lands: a confined descriptor of the parent and a final name.
#[derive(Debug)]
pub struct WriteTarget {
    /// The directory that holds the file, opened beneath the work_dir.
    pub parent: OwnedFd,
    /// A single path component, never `.`, `..` or containing `/`.
    pub name: OsString,
    /// The path relative to the work_dir, for messages.
    pub display: PathBuf,
}

impl Root {
    /// Opens the work_dir. It is trusted configuration, so it may itself be
    /// reached through a symlink.
    pub fn open(work_dir: &Path) -> Result<Root, String> {
        let real = std::fs::canonicalize(work_dir)
            .map_err(|e| format!("the working directory {} is unusable: {e}", work_dir.display()))?;
        let c = cstring(real.as_os_str())?;
        // SAFETY: `c` is a valid NUL-terminated string; the result is checked.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(format!("cannot open the working directory: {}", io::Error::last_os_error()));
        }
        // SAFETY: `fd` was just returned by open(2) and is owned by nobody else.
        let dir = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Root { dir, given: work_dir.to_path_buf(), real })
    }

    /// The work_dir with symlinks resolved.
    pub fn real_path(&self) -> &Path {
        &self.real
    }

    /// Turns a path given by the model into one relative to the work_dir.
    /// Absolute paths must lie inside the work_dir; everything else is left
    /// to the kernel, which refuses whatever resolves outside.
    pub fn relative(&self, path: &str) -> Result<PathBuf, String> {
        if path.is_empty() {
            return Err("the path is empty".into());
        }
        if path.contains('\0') {
            return Err("the path contains a NUL byte".into());
        }
        let p = Path::new(path);
        if !p.is_absolute() {
            return Ok(p.to_path_buf());
        }
        let inside = p.strip_prefix(&self.real).or_else(|_| p.strip_prefix(&self.given));
        match inside {
            Ok(rest) if rest.as_os_str().is_empty() => Ok(PathBuf::from(".")),
            Ok(rest) => Ok(rest.to_path_buf()),
            Err(_) => {
                Err(format!("{path} is outside the working directory {} (use a path inside it)", self.real.display()))
            }
        }
    }

    /// A second handle on the same work_dir, for work on another thread.
    pub fn try_clone(&self) -> Result<Root, String> {
        let dir = self.dir.try_clone().map_err(|e| format!("cannot reopen the working directory: {e}"))?;
        Ok(Root { dir, given: self.given.clone(), real: self.real.clone() })
    }

    /// Resolves `rel` beneath the work_dir and names what it resolved to,
    /// relative to the work_dir, with `..` and symlinks gone. The kernel does
    /// the resolving; `/proc/self/fd` only reports its answer.
    pub fn canonical(&self, rel: &Path) -> Result<PathBuf, String> {
        let fd = self.open_beneath(rel, libc::O_PATH).map_err(|e| explain(rel, &e))?;
        if let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())) {
            if let Ok(inside) = real.strip_prefix(&self.real) {
                return Ok(inside.to_path_buf());
            }
        }
        // Without /proc, a path with no `..` and no symlinks is already clean.
        let clean: PathBuf = rel.components().filter(|c| *c != Component::CurDir).collect();
        let plain = clean.components().all(|c| matches!(c, Component::Normal(_)));
        if plain && self.open_beneath(&clean, libc::O_PATH | libc::O_NOFOLLOW).is_ok() {
            return Ok(clean);
        }
        Err(format!("{}: cannot tell where this path leads; give it without `..` or symlinks", rel.display()))
    }

    /// Opens a path beneath the work_dir with `flags` (always `O_CLOEXEC`).
    pub fn open_beneath(&self, rel: &Path, flags: libc::c_int) -> Result<OwnedFd, io::Error> {
        openat2(self.dir.as_raw_fd(), rel, flags)
    }

    /// Opens a regular file for reading. `O_NONBLOCK` keeps a FIFO from
    /// hanging the tool; anything but a regular file is refused.
    pub fn open_file(&self, rel: &Path) -> Result<File, String> {
        let fd = self.open_beneath(rel, libc::O_RDONLY | libc::O_NONBLOCK).map_err(|e| explain(rel, &e))?;
        let file = File::from(fd);
        let meta = file.metadata().map_err(|e| explain(rel, &e))?;
        if meta.is_dir() {
            return Err(format!("{} is a directory, not a file", rel.display()));
        }
        if !meta.is_file() {
            return Err(format!("{} is not a regular file", rel.display()));
        }
        Ok(file)
    }

    /// True if `rel` names something beneath the work_dir, without following
    /// a symlink at its last component.
    pub fn exists_nofollow(&self, rel: &Path) -> bool {
        self.open_beneath(rel, libc::O_PATH | libc::O_NOFOLLOW).is_ok()
    }

    /// Finds where a write to `rel` lands, creating missing parent
    /// directories (each beneath the work_dir). A symlink at the last
    /// component is followed, again beneath the work_dir, so that a write
    /// goes to the link's target rather than replacing the link.
    pub fn write_target(&self, rel: &Path) -> Result<WriteTarget, String> {
        let mut rel = rel.to_path_buf();
        for _ in 0..MAX_FINAL_LINKS {
            let (parent_rel, name) = split_final(&rel)?;
            let parent = self.make_dirs(&parent_rel)?;
            match read_link_at(parent.as_raw_fd(), &name) {
                Ok(Some(target)) => rel = self.link_destination(&parent_rel, &target)?,
                Ok(None) => return Ok(WriteTarget { parent, name, display: tidy(&rel) }),
                Err(e) => return Err(explain(&rel, &e)),
            }
        }
        Err(format!("{}: too many levels of symbolic links", rel.display()))
    }

    /// Where a symlink found in `parent_rel` points, relative to the work_dir.
    fn link_destination(&self, parent_rel: &Path, target: &Path) -> Result<PathBuf, String> {
        if target.is_absolute() {
            let text = target.to_string_lossy();
            return self
                .relative(&text)
                .map_err(|_| format!("a symlink points outside the working directory ({text})"));
        }
        Ok(parent_rel.join(target))
    }

    /// Opens the directory `rel`, creating each missing component with
    /// `mkdirat` inside an already-confined parent.
    fn make_dirs(&self, rel: &Path) -> Result<OwnedFd, String> {
        let dir_flags = libc::O_PATH | libc::O_DIRECTORY;
        match self.open_beneath(rel, dir_flags) {
            Ok(fd) => return Ok(fd),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
            Err(e) => return Err(explain(rel, &e)),
        }
        let mut prefix = PathBuf::from(".");
        for component in rel.components() {
            let parent = self.open_beneath(&prefix, dir_flags).map_err(|e| explain(&prefix, &e))?;
            prefix.push(component);
            if let Component::Normal(name) = component {
                mkdir_at(parent.as_raw_fd(), name).map_err(|e| explain(&prefix, &e))?;
            }
        }
        self.open_beneath(rel, dir_flags).map_err(|e| explain(rel, &e))
    }
}

/// `rel` without `.` components, for messages.
fn tidy(rel: &Path) -> PathBuf {
    rel.components().filter(|c| *c != Component::CurDir).collect()
}

/// Splits `rel` into its parent and a final plain name.
fn split_final(rel: &Path) -> Result<(PathBuf, OsString), String> {
    match rel.components().next_back() {
        Some(Component::Normal(name)) => {
            let parent = rel.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Ok((parent.to_path_buf(), name.to_os_string()))
        }
        _ => Err(format!("{} does not name a file", rel.display())),
    }
}

fn cstring(s: &OsStr) -> Result<CString, String> {
    CString::new(s.as_bytes()).map_err(|_| "the path contains a NUL byte".to_string())
}

/// `openat2` beneath `dir`. The kernel returns `EAGAIN` when a concurrent
/// rename makes a `..` lookup unsafe to check; that is retried a few times.
fn openat2(dir: RawFd, rel: &Path, flags: libc::c_int) -> Result<OwnedFd, io::Error> {
    let rel = if rel.as_os_str().is_empty() { Path::new(".") } else { rel };
    let c = CString::new(rel.as_os_str().as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: open_how is a plain C struct for which all-zero is valid.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    for _ in 0..16 {
        // SAFETY: `c` and `how` outlive the call, and the size passed is
        // the size of `how`; the result is checked below.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir,
                c.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            // SAFETY: a non-negative result is a new descriptor owned by us.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) });
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EAGAIN) {
            return Err(err);
        }
    }
    Err(io::Error::from_raw_os_error(libc::EAGAIN))
}

/// Creates one directory inside `dir`; an existing entry is left for the
/// next confined open to judge (a symlink there is never followed here).
fn mkdir_at(dir: RawFd, name: &OsStr) -> io::Result<()> {
    let c = CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: `c` is a valid C string and `dir` an open descriptor.
    if unsafe { libc::mkdirat(dir, c.as_ptr(), 0o777) } == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EEXIST) {
        return Ok(());
    }
    Err(err)
}

/// The target of `name` in `dir` if it is a symlink, `None` if it is
/// something else or does not exist.
fn read_link_at(dir: RawFd, name: &OsStr) -> io::Result<Option<PathBuf>> {
    let c = CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let mut buf = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: `buf` is writable for its full length, which is what we pass.
    let n = unsafe { libc::readlinkat(dir, c.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let err = io::Error::last_os_error();
        return match err.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOENT) => Ok(None),
            _ => Err(err),
        };
    }
    buf.truncate(n as usize);
    Ok(Some(PathBuf::from(OsString::from_vec(buf))))
}

/// A clear message for a failed confined operation on `rel`.
pub fn explain(rel: &Path, err: &io::Error) -> String {
    let p = rel.display();
    match err.raw_os_error() {
        Some(libc::EXDEV) => {
            format!("{p} resolves outside the working directory (through `..`, an absolute path or a symlink); refused")
        }
        Some(libc::ELOOP) => format!("{p}: too many levels of symbolic links (a symlink loop?); refused"),
        Some(libc::ENOENT) => format!("{p} does not exist"),
        Some(libc::ENOTDIR) => format!("{p}: a component of the path is not a directory"),
        Some(libc::EISDIR) => format!("{p} is a directory"),
        Some(libc::ENOSYS) => "this kernel lacks openat2 (Linux 5.6 or later is needed); refused".into(),
        _ => format!("{p}: {err}"),
    }
}
