//! A tool's process tree, set up in the child between fork and exec: what
//! ties every process a command starts to the call, and the call to its
//! worker.
//!
//! With a PID namespace (the normal case) the worker's child is a small
//! supervisor outside the namespace, which starts the namespace's init,
//! which starts the shell:
//!
//! ```text
//! worker ─▶ supervisor ─▶ init (PID 1 of a new namespace) ─▶ bash ─▶ …
//! ```
//!
//! - When the shell ends, init reports its status and exits; the kernel then
//!   kills every process left in the namespace, `setsid` ones included, and
//!   the supervisor exits with the shell's status once they are gone.
//! - The supervisor dies with the worker (parent-death signal), init dies with
//!   the supervisor (the same), and the namespace dies with its init. A
//!   SIGKILL of the worker therefore ends the whole tree, with no process of
//!   Wingman's left to clean up.
//! - Nothing inside can address a process outside by PID, the worker included.
//!
//! Without namespaces the shell is the worker's child, in a process group of
//! its own, with the parent-death signal: a background child outlives a
//! SIGKILLed worker there (see docs/tools.md).
//!
//! Everything here after the fork runs in a copy of a multi-threaded process:
//! only async-signal-safe calls, no allocation, no locks.

use std::io;
use std::os::fd::RawFd;

use super::landlock::ChildRuleset;
use super::sys::{
    close_all_except, errno, raw_fork, read_exact, reset_signal_handlers, scrub_arguments_and_environment, write_all,
    write_file,
};

/// How a tool's process tree is tied to its call and its worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessTree {
    /// A PID namespace (and a mount namespace with a private /proc) of its own.
    PidNamespace,
    /// The same, inside a user namespace: for workers without privileges.
    UserNamespace,
    /// Its own process group, and the parent-death signal on the shell only.
    ProcessGroup,
}

impl ProcessTree {
    /// The name shown at start-up and in `GET /health`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProcessTree::PidNamespace => "pid_namespace",
            ProcessTree::UserNamespace => "user_namespace",
            ProcessTree::ProcessGroup => "process_group",
        }
    }

    fn clone_flags(self) -> libc::c_int {
        match self {
            ProcessTree::PidNamespace => libc::CLONE_NEWPID | libc::CLONE_NEWNS,
            ProcessTree::UserNamespace => libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS,
            ProcessTree::ProcessGroup => 0,
        }
    }
}

/// The best process tree this process can make, found by trying: a PID
/// namespace needs privilege (root), a user namespace may be refused by the
/// system's policy.
pub fn probe() -> ProcessTree {
    [ProcessTree::PidNamespace, ProcessTree::UserNamespace]
        .into_iter()
        .find(|tree| available(*tree))
        .unwrap_or(ProcessTree::ProcessGroup)
}

/// True if this process can make `tree`: tried with a child that exits at once.
pub fn available(tree: ProcessTree) -> bool {
    // SAFETY: the child only calls _exit; the parent reaps it.
    unsafe {
        match raw_fork(tree.clone_flags()) {
            Ok(0) => libc::_exit(0),
            Ok(pid) => {
                let mut status = 0;
                while libc::waitpid(pid, &mut status, 0) < 0 && errno() == libc::EINTR {}
                true
            }
            Err(_) => false,
        }
    }
}

/// Everything the child needs, prepared before the fork: plain data only.
#[derive(Debug, Clone, Copy)]
pub struct ChildPlan {
    pub tree: ProcessTree,
    /// The worker's PID: the supervisor checks it is still its parent.
    pub worker_pid: libc::pid_t,
    /// Confine the shell: no new privileges, no capabilities, the ruleset.
    pub confine: bool,
    /// Give the tool its own /proc and /dev/shm (in its mount namespace): it
    /// sees only its own processes, and its shared memory vanishes with it.
    pub private_mounts: bool,
    /// A Landlock ruleset to apply, when the kernel has Landlock.
    pub ruleset: Option<ChildRuleset>,
    /// `"<uid> <uid> 1"` and the same for the gid, for a user namespace.
    pub uid_map: IdMap,
    pub gid_map: IdMap,
}

/// One line of an ID map, formatted before the fork.
#[derive(Debug, Clone, Copy)]
pub struct IdMap {
    bytes: [u8; 40],
    len: usize,
}

impl IdMap {
    /// The identity map of one ID: the tool keeps its user and group.
    pub fn identity(id: u32) -> IdMap {
        let line = format!("{id} {id} 1\n");
        let mut bytes = [0u8; 40];
        bytes[..line.len()].copy_from_slice(line.as_bytes());
        IdMap { bytes, len: line.len() }
    }
}

/// Runs in the child after fork, before exec. Returns only in the process
/// that must go on to exec the shell; every other process it makes exits here.
///
/// # Safety
/// Only between fork and exec, with the plan's descriptors open.
pub unsafe fn in_child(plan: &ChildPlan) -> io::Result<()> {
    reset_signal_handlers();
    die_with_parent(plan.worker_pid);
    if plan.tree == ProcessTree::ProcessGroup {
        if let Some(rules) = plan.ruleset.filter(|_| plan.confine) {
            rules.allow_read(c"/proc")?;
        }
        return confine(plan);
    }
    let mut pipe = [0; 2];
    if libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
        return Err(io::Error::last_os_error());
    }
    let (status_read, status_write) = (pipe[0], pipe[1]);
    // The supervisor and init are copies of the worker, memory and
    // environment included, and init is PID 1 in the tool's /proc: make
    // them undumpable, so no process without privilege can read them.
    // (The shell's exec makes it dumpable again, with its own clean environment.)
    libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    // Errors up to here reach the worker as a failed spawn; past the fork,
    // this process never returns.
    let init = raw_fork(plan.tree.clone_flags())?;
    if init == 0 {
        libc::close(status_read);
        return init_process(plan, status_write);
    }
    supervise(init, status_read)
}

/// The supervisor: waits for init's report of the shell's status, waits for
/// the namespace to empty, and exits the way the shell did.
unsafe fn supervise(init: libc::pid_t, status_read: RawFd) -> ! {
    close_all_except(status_read);
    let mut status: libc::c_int = 0;
    let reported = read_exact(status_read, &mut status as *mut libc::c_int as *mut u8, 4);
    let mut init_status = 0;
    while libc::waitpid(init, &mut init_status, 0) < 0 && errno() == libc::EINTR {}
    if !reported {
        // Init ended before the shell did: it failed to set the namespace up
        // (and said so on the output), or it was killed, like the tree.
        status = init_status;
    }
    if libc::WIFEXITED(status) {
        libc::_exit(libc::WEXITSTATUS(status));
    }
    exit_like(if libc::WIFSIGNALED(status) { libc::WTERMSIG(status) } else { libc::SIGKILL })
}

/// Init, PID 1 of the new namespace: sets the namespace up, starts the shell,
/// reaps everything until the shell ends, reports its status and exits,
/// which ends the namespace.
unsafe fn init_process(plan: &ChildPlan, status_write: RawFd) -> io::Result<()> {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    // Init is PID 1 in the tool's /proc, where anyone reads a command line.
    scrub_arguments_and_environment();
    if supervisor_gone(status_write) {
        libc::_exit(1);
    }
    if plan.tree == ProcessTree::UserNamespace {
        // An undumpable process's /proc files belong to root: its own ID
        // maps could not be written. Dumpable for as long as that takes.
        libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
        let mapped = write_id_maps(plan);
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
        if !mapped {
            fail(b"wingman: could not map the tool's user and group into its user namespace\n");
        }
    }
    if plan.private_mounts {
        private_mounts(plan);
    }
    let shell = match raw_fork(0) {
        Ok(pid) => pid,
        Err(_) => fail(b"wingman: could not start the tool's shell in its namespace\n"),
    };
    if shell == 0 {
        return confine(plan);
    }
    close_all_except(status_write);
    let status = reap_until(shell);
    write_all(status_write, &status as *const libc::c_int as *const u8, 4);
    libc::_exit(0)
}

/// Confines the process that execs the shell: no new privileges, no
/// capabilities, and the Landlock ruleset.
unsafe fn confine(plan: &ChildPlan) -> io::Result<()> {
    if !plan.confine {
        return Ok(());
    }
    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
        return Err(io::Error::last_os_error());
    }
    drop_capabilities()?;
    if let Some(rules) = plan.ruleset {
        rules.restrict_self()?;
    }
    Ok(())
}

/// Empties the bounding, ambient and effective capability sets, so that even
/// a root worker's shell holds no privilege (no reading other processes'
/// memory or environment, no bypassing file permissions).
unsafe fn drop_capabilities() -> io::Result<()> {
    for cap in 0..64 {
        // EINVAL past the kernel's last capability; EPERM without CAP_SETPCAP (nothing to drop).
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header { version: VERSION_3, pid: 0 };
    let data =
        [Data { effective: 0, permitted: 0, inheritable: 0 }, Data { effective: 0, permitted: 0, inheritable: 0 }];
    if libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr()) != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Asks for SIGKILL when the parent (thread) dies, and checks the parent did
/// not die before the request took effect.
unsafe fn die_with_parent(parent: libc::pid_t) {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    if libc::getppid() != parent {
        libc::_exit(1);
    }
}

/// True when the supervisor is gone: the read end of the status pipe closed.
/// (Inside the namespace `getppid` is 0 whoever the parent is.)
unsafe fn supervisor_gone(status_write: RawFd) -> bool {
    let mut poll = libc::pollfd { fd: status_write, events: libc::POLLOUT, revents: 0 };
    libc::poll(&mut poll, 1, 0) == 1 && poll.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

/// Keeps the tool's own user and group inside its user namespace.
unsafe fn write_id_maps(plan: &ChildPlan) -> bool {
    write_file(c"/proc/self/setgroups", b"deny")
        && write_file(c"/proc/self/uid_map", &plan.uid_map.bytes[..plan.uid_map.len])
        && write_file(c"/proc/self/gid_map", &plan.gid_map.bytes[..plan.gid_map.len])
}

/// Mounts the tool's own /proc (of its PID namespace: it sees only its own
/// processes) and /dev/shm (a tmpfs, gone with the namespace), and grants
/// them. Best effort: without its own /proc the tool reads the host's, whose
/// other processes' environments stay closed to it (no capabilities; the
/// worker is not dumpable); without its own /dev/shm it has none.
/// (/tmp is not replaced: work_dirs often live under it.)
unsafe fn private_mounts(plan: &ChildPlan) {
    // Nothing mounted here may propagate back to the host.
    let root = c"/".as_ptr();
    if libc::mount(std::ptr::null(), root, std::ptr::null(), libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
        return;
    }
    let hidden = libc::MS_NOSUID | libc::MS_NODEV;
    libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), hidden | libc::MS_NOEXEC, std::ptr::null());
    let tmpfs = c"tmpfs".as_ptr();
    let mode = c"mode=1777".as_ptr() as *const libc::c_void;
    let shm = libc::mount(tmpfs, c"/dev/shm".as_ptr(), tmpfs, hidden, mode) == 0;
    if let Some(rules) = plan.ruleset {
        let _ = rules.allow_read(c"/proc");
        if shm {
            let _ = rules.allow_write(c"/dev/shm");
        }
    }
}

/// Reaps every process that ends (init inherits the namespace's orphans)
/// until the shell does; returns the shell's wait status.
unsafe fn reap_until(shell: libc::pid_t) -> libc::c_int {
    loop {
        let mut status = 0;
        let pid = libc::waitpid(-1, &mut status, 0);
        if pid == shell {
            return status;
        }
        if pid < 0 && errno() != libc::EINTR {
            // No child left to wait for: report a plain failure.
            return 1 << 8;
        }
    }
}

/// Writes a setup failure where the tool's output goes, and exits.
unsafe fn fail(message: &[u8]) -> ! {
    write_all(2, message.as_ptr(), message.len());
    libc::_exit(125)
}

/// Ends this process the way a signal would have: the worker sees the
/// shell's own death.
unsafe fn exit_like(signal: libc::c_int) -> ! {
    libc::signal(signal, libc::SIG_DFL);
    libc::kill(libc::getpid(), signal);
    libc::_exit(128 + signal)
}
