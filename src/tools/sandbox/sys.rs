//! The raw system calls the sandbox's child processes make between fork and
//! exec. Each is async-signal-safe: no allocation, no locks, no panics, since
//! the calling process is a copy of a multi-threaded one.

use std::io;
use std::os::fd::RawFd;

/// Zeroes this process's copy of the worker's command line and environment
/// (the memory `/proc/<pid>/cmdline` and `environ` show): a secret given to
/// the worker as an argument must not show in the tool's /proc.
pub(super) unsafe fn scrub_arguments_and_environment() {
    let mut stat = [0u8; 2048];
    let fd = libc::open(c"/proc/self/stat".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return;
    }
    let len = libc::read(fd, stat.as_mut_ptr() as *mut libc::c_void, stat.len());
    libc::close(fd);
    if len <= 0 {
        return;
    }
    // Fields 48 to 51 (after the command name, which ends at the last ')'):
    // arg_start, arg_end, env_start, env_end.
    let Some(mut fields) = stat_fields_after_name(&stat[..len as usize]) else { return };
    let mut at = [0u64; 4];
    for (n, field) in (3..=51).zip(&mut fields) {
        if n >= 48 {
            at[n - 48] = parse_u64(field);
        }
    }
    for (start, end) in [(at[0], at[1]), (at[2], at[3])] {
        if start > 0 && end > start {
            std::ptr::write_bytes(start as *mut u8, 0, (end - start) as usize);
        }
    }
}

/// The space-separated fields of `/proc/self/stat` after the `(comm)` one.
fn stat_fields_after_name(stat: &[u8]) -> Option<impl Iterator<Item = &[u8]>> {
    let close = stat.iter().rposition(|b| *b == b')')?;
    Some(stat[close + 1..].split(|b| *b == b' ').filter(|f| !f.is_empty()))
}

fn parse_u64(digits: &[u8]) -> u64 {
    digits
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |n, b| n.wrapping_mul(10).wrapping_add((b - b'0') as u64))
}

/// Restores every signal's default action: handlers inherited from the
/// worker's runtime must not run in these processes, which never exec.
pub(super) unsafe fn reset_signal_handlers() {
    for signal in 1..libc::SIGRTMAX() {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            libc::signal(signal, libc::SIG_DFL);
        }
    }
}

/// fork(2) through clone(2), so that it can make new namespaces. The child
/// returns 0 on a copy of the caller's stack.
pub(super) unsafe fn raw_fork(flags: libc::c_int) -> io::Result<libc::pid_t> {
    let clone_flags = (flags | libc::SIGCHLD) as libc::c_ulong;
    let pid = libc::syscall(libc::SYS_clone, clone_flags, 0usize, 0usize, 0usize, 0usize);
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(pid as libc::pid_t)
}

/// Closes every descriptor but `keep`.
pub(super) unsafe fn close_all_except(keep: RawFd) {
    let keep = keep as libc::c_uint;
    close_range(0, keep);
    close_range(keep + 1, libc::c_uint::MAX);
}

/// Closes descriptors `first..last` (exclusive of `last`).
unsafe fn close_range(first: libc::c_uint, last: libc::c_uint) {
    if first >= last {
        return;
    }
    if libc::syscall(libc::SYS_close_range, first, last - 1, 0) == 0 {
        return;
    }
    // Kernels before 5.9: one by one, up to a bound that covers real use.
    for fd in first..last.min(65_536) {
        libc::close(fd as RawFd);
    }
}

pub(super) unsafe fn write_file(path: &std::ffi::CStr, content: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let written = libc::write(fd, content.as_ptr() as *const libc::c_void, content.len());
    libc::close(fd);
    written == content.len() as isize
}

pub(super) unsafe fn write_all(fd: RawFd, mut data: *const u8, mut len: usize) {
    while len > 0 {
        let n = libc::write(fd, data as *const libc::c_void, len);
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            return;
        }
        data = data.add(n as usize);
        len -= n as usize;
    }
}

/// Reads exactly `len` bytes; false on end of file or error first.
pub(super) unsafe fn read_exact(fd: RawFd, mut data: *mut u8, mut len: usize) -> bool {
    while len > 0 {
        let n = libc::read(fd, data as *mut libc::c_void, len);
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            return false;
        }
        data = data.add(n as usize);
        len -= n as usize;
    }
    true
}

pub(super) fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_start_after_the_last_parenthesis_of_the_name() {
        // A command name may hold spaces and parentheses of its own.
        let stat = b"42 (a) b (c)) S 1 42 42 0";
        let fields: Vec<&[u8]> = stat_fields_after_name(stat).unwrap().collect();
        assert_eq!(fields, [&b"S"[..], b"1", b"42", b"42", b"0"]);
        assert!(stat_fields_after_name(b"no name here").is_none());
    }

    #[test]
    fn numbers_are_read_up_to_the_first_non_digit() {
        assert_eq!(parse_u64(b"140737488351232"), 140_737_488_351_232);
        assert_eq!(parse_u64(b"17\n"), 17);
        assert_eq!(parse_u64(b""), 0);
    }
}
