//! Landlock: the kernel confines a process and everything it starts to the
//! paths it was granted, whatever its uid (root included) and however it
//! names a path (`..`, symlinks, /proc magic links).
//!
//! The ruleset is built in the worker before the tool starts; the tool's
//! process adds the paths it mounts itself and applies it between fork and
//! exec ([`ChildRuleset`]), where only async-signal-safe calls are allowed.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// Filesystem access rights (`LANDLOCK_ACCESS_FS_*`), by the ABI that added them.
mod fs {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    /// Every right of ABI 1: the above plus removing and making entries.
    pub const ABI1: u64 = (1 << 13) - 1;
    /// ABI 2: linking or renaming a file into another directory.
    pub const REFER: u64 = 1 << 13;
    /// ABI 3: truncating a file (`O_TRUNC`, `truncate`).
    pub const TRUNCATE: u64 = 1 << 14;
    /// ABI 5: ioctl on device files.
    pub const IOCTL_DEV: u64 = 1 << 15;
    /// The rights that apply to a file rather than a directory.
    pub const FILE: u64 = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV;
}

/// ABI 6 scopes: no connecting to abstract unix sockets, and no signals, to
/// anything outside the sandbox (the worker included).
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

const CREATE_RULESET_VERSION: libc::c_uint = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version this kernel offers, or `None` where Landlock is
/// missing or disabled. Asked once per process.
pub fn abi() -> Option<u32> {
    static ABI: OnceLock<Option<u32>> = OnceLock::new();
    *ABI.get_or_init(|| {
        // SAFETY: with a null attribute and the version flag, the call only returns a number.
        let version = unsafe {
            libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<RulesetAttr>(), 0, CREATE_RULESET_VERSION)
        };
        u32::try_from(version).ok().filter(|v| *v >= 1)
    })
}

/// What a granted path may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// Everything: the work_dir and the private temporary directory.
    ReadWrite,
    /// Read files, list directories, run programs: system paths.
    ReadExecute,
    /// Read files and list directories.
    Read,
    /// Read, write and ioctl: device files such as `/dev/null`.
    Device,
}

/// A ruleset under construction: every right the kernel can restrict is
/// denied except where a rule grants it.
pub struct Ruleset {
    fd: OwnedFd,
    handled: u64,
}

impl Ruleset {
    /// A ruleset that handles every right of `abi`.
    pub fn new(abi: u32) -> io::Result<Ruleset> {
        let mut handled = fs::ABI1;
        if abi >= 2 {
            handled |= fs::REFER;
        }
        if abi >= 3 {
            handled |= fs::TRUNCATE;
        }
        if abi >= 5 {
            handled |= fs::IOCTL_DEV;
        }
        let attr = RulesetAttr {
            handled_access_fs: handled,
            handled_access_net: 0,
            scoped: if abi >= 6 { SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL } else { 0 },
        };
        // The attribute grew with the ABI: older kernels refuse a larger one.
        let size = match abi {
            1..=3 => 8,
            4 | 5 => 16,
            _ => std::mem::size_of::<RulesetAttr>(),
        };
        // SAFETY: `attr` is a valid ruleset attribute of at least `size` bytes.
        let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, size, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the kernel returned a new file descriptor that nothing else owns.
        Ok(Ruleset { fd: unsafe { OwnedFd::from_raw_fd(fd as RawFd) }, handled })
    }

    /// Grants `grant` beneath `path`. A path that does not exist is skipped:
    /// the system paths granted differ between distributions.
    pub fn allow(&mut self, path: &Path, grant: Grant) -> io::Result<()> {
        let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) else { return Ok(()) };
        // SAFETY: a valid C string; O_PATH opens without reading anything.
        let raw = unsafe { libc::open(c_path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if raw < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOENT | libc::ENOTDIR | libc::EACCES | libc::ELOOP) => Ok(()),
                _ => Err(e),
            };
        }
        // SAFETY: `open` returned a new descriptor we own.
        let target = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut rights = match grant {
            Grant::ReadWrite => self.handled,
            Grant::ReadExecute => fs::READ_FILE | fs::READ_DIR | fs::EXECUTE,
            Grant::Read => fs::READ_FILE | fs::READ_DIR,
            Grant::Device => fs::READ_FILE | fs::WRITE_FILE | fs::TRUNCATE | fs::IOCTL_DEV,
        } & self.handled;
        if !path.is_dir() {
            rights &= fs::FILE;
        }
        let rule = PathBeneathAttr { allowed_access: rights, parent_fd: target.as_raw_fd() };
        // SAFETY: both descriptors are open and `rule` is a valid path-beneath rule.
        let added = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                self.fd.as_raw_fd(),
                RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0,
            )
        };
        if added < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The ruleset for the tool's process, which applies it to itself.
    /// `self` must stay alive until the process has started.
    pub fn for_child(&self) -> ChildRuleset {
        ChildRuleset { fd: self.fd.as_raw_fd(), handled: self.handled }
    }
}

/// A ruleset as the tool's process tree uses it between fork and exec:
/// plain data, and async-signal-safe methods only.
#[derive(Debug, Clone, Copy)]
pub struct ChildRuleset {
    fd: RawFd,
    /// Every right the ruleset handles: what a read-write grant gives.
    handled: u64,
}

impl ChildRuleset {
    /// Grants reading beneath `path` as this process sees it now: after it
    /// mounted a /proc of its own, which the worker's view would not cover.
    ///
    /// # Safety
    /// The ruleset's descriptor must still be open.
    pub unsafe fn allow_read(&self, path: &CStr) -> io::Result<()> {
        self.allow_now(path, fs::READ_FILE | fs::READ_DIR)
    }

    /// Grants everything beneath `path` as this process sees it now (a
    /// private /tmp it mounted).
    ///
    /// # Safety
    /// The ruleset's descriptor must still be open.
    pub unsafe fn allow_write(&self, path: &CStr) -> io::Result<()> {
        self.allow_now(path, self.handled)
    }

    unsafe fn allow_now(&self, path: &CStr, rights: u64) -> io::Result<()> {
        let target = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if target < 0 {
            return Err(io::Error::last_os_error());
        }
        let rule = PathBeneathAttr { allowed_access: rights, parent_fd: target };
        let added =
            libc::syscall(libc::SYS_landlock_add_rule, self.fd, RULE_PATH_BENEATH, &rule as *const PathBeneathAttr, 0);
        let result = if added < 0 { Err(io::Error::last_os_error()) } else { Ok(()) };
        libc::close(target);
        result
    }

    /// Applies the ruleset to the calling process and everything it starts
    /// later. Needs `no_new_privs` (set by the caller).
    ///
    /// # Safety
    /// The ruleset's descriptor must still be open.
    pub unsafe fn restrict_self(&self) -> io::Result<()> {
        if libc::syscall(libc::SYS_landlock_restrict_self, self.fd, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
