//! Where tool processes run: confined to their work_dir, stripped of the
//! worker's secrets and privileges, and tied to their call and their worker.
//!
//! Layers, each from what Linux offers (docs/tools.md says what each one
//! guarantees and what is left where the kernel lacks it):
//!
//! - **Landlock** ([`landlock`]): the shell may read and write only its
//!   work_dir and a private temporary directory, and read and run only
//!   system paths (and `--tool-read-path`s). Holds for root too.
//! - **No privileges**: `no_new_privs` and empty capability sets, so a root
//!   worker's shell cannot read other processes' memory or environment.
//! - **The worker is not dumpable** ([`protect_worker_process`]): no process
//!   without privilege may read its environment or memory through /proc.
//! - **A process tree per call** ([`contain`]): a PID namespace whose
//!   processes all die when the shell ends or the worker dies.
//! - **A scrubbed environment** (in `bash`): only what a shell needs and the
//!   agent's `tool_env`.
//! - **No work_dir contains the database** ([`check_work_dir`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Serialize;

pub mod contain;
pub mod landlock;
mod sys;

use contain::{ChildPlan, IdMap, ProcessTree};
use landlock::{Grant, Ruleset};

/// How far tool processes are confined (`--tool-sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Confine with everything the kernel offers; warn at start-up about what it lacks.
    #[default]
    Auto,
    /// Refuse to start a worker unless Landlock and a PID namespace are both available.
    Required,
    /// No confinement (no Landlock, no dropped privileges): for trusted agents
    /// that need the whole machine. Process trees are still contained.
    Off,
}

/// The confinement settings of a worker's tools.
#[derive(Debug, Clone, Default)]
pub struct SandboxConfig {
    pub mode: SandboxMode,
    /// More paths a shell may read and run programs from (toolchains
    /// installed outside /usr, say).
    pub read_paths: Vec<PathBuf>,
    /// Files no work_dir may contain: the database (and, beside it, its WAL).
    pub protected: Vec<PathBuf>,
    /// The process tree to use instead of the best one this machine offers
    /// (`None`): for tests of each kind, and systems where the probe is wrong.
    pub process_tree: Option<ProcessTree>,
}

/// What this process's tools run with, as start-up and `GET /health` report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SandboxStatus {
    pub mode: SandboxMode,
    /// The kernel's Landlock ABI, `null` without Landlock.
    #[schema(required = true)]
    pub landlock_abi: Option<u32>,
    /// `pid_namespace`, `user_namespace` or `process_group`.
    #[schema(value_type = String, pattern = "^(pid_namespace|user_namespace|process_group)$")]
    pub process_tree: &'static str,
    /// True when the shell runs confined by Landlock to its paths.
    pub confined: bool,
}

/// The best process tree this process can make, probed once.
fn process_tree() -> ProcessTree {
    static TREE: OnceLock<ProcessTree> = OnceLock::new();
    *TREE.get_or_init(contain::probe)
}

/// What tools of a worker in `mode` run with on this machine.
pub fn status(mode: SandboxMode) -> SandboxStatus {
    let landlock_abi = landlock::abi();
    SandboxStatus {
        mode,
        landlock_abi,
        process_tree: process_tree().as_str(),
        confined: mode != SandboxMode::Off && landlock_abi.is_some(),
    }
}

/// Checks the sandbox a worker is about to run tools with: in `required`
/// mode anything missing is an error; otherwise it is a warning.
pub fn check_at_start(config: &SandboxConfig) -> anyhow::Result<SandboxStatus> {
    let status = status(config.mode);
    let mut missing = Vec::new();
    if status.landlock_abi.is_none() {
        missing.push("Landlock (kernel 5.13+ with landlock in its LSM list): bash is not confined to its work_dir");
    }
    if process_tree() == ProcessTree::ProcessGroup {
        missing.push("PID namespaces (root, or unprivileged user namespaces): a tool's background processes can outlive a killed worker");
    }
    match config.mode {
        SandboxMode::Required if !missing.is_empty() => {
            anyhow::bail!("--tool-sandbox required, but this system lacks {}", missing.join("; and "))
        }
        SandboxMode::Off => tracing::warn!("--tool-sandbox off: bash runs unconfined, with the worker's privileges"),
        _ => {
            for what in &missing {
                tracing::warn!("tool sandbox: missing {what}");
            }
        }
    }
    Ok(status)
}

/// Makes this process undumpable: no process without `CAP_SYS_PTRACE` may
/// read its memory or its environment (`/proc/<pid>/environ`, where provider
/// keys may be) any more, nor attach a debugger. Core dumps are off too.
pub fn protect_worker_process() {
    // SAFETY: prctl(PR_SET_DUMPABLE) changes only this process's flag.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
}

/// Read-only system paths with programs and libraries.
const SYSTEM_PROGRAMS: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store", "/etc/alternatives"];

/// Read-only files of /etc (and their kind elsewhere; /proc is granted by
/// the tool's process itself, once it has mounted its own) that name users, hosts,
/// certificates, time zones, locales and libraries. Not all of /etc: it
/// holds secrets such as /etc/shadow and host keys.
const SYSTEM_FILES: &[&str] = &[
    "/etc/passwd",
    "/etc/group",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/hostname",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/pki/tls/certs",
    "/etc/pki/ca-trust",
    "/etc/os-release",
    "/etc/debian_version",
    "/etc/lsb-release",
    "/etc/mime.types",
    "/etc/magic",
    "/etc/inputrc",
    "/etc/bash.bashrc",
    "/etc/profile",
    "/etc/profile.d",
    "/etc/terminfo",
    "/etc/gitconfig",
    "/etc/locale.alias",
    "/etc/locale.conf",
    "/etc/default/locale",
    "/run/systemd/resolve",
    "/sys/devices/system/cpu",
];

/// Devices a shell reads and writes.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

/// What one tool process is started with: its temporary directory, its
/// Landlock ruleset and the plan of its process tree.
pub struct Prepared {
    /// The call's private `TMPDIR`, removed when this is dropped.
    tmp: TempDir,
    /// `PATH` cut to the directories the shell may run programs from, when
    /// it is confined: a tool installed elsewhere (a version manager's shims
    /// under a home directory, say) must not shadow the system's copy.
    pub path: Option<OsString>,
    /// Held only to keep its descriptor open until the child has applied it.
    _ruleset: Option<Ruleset>,
    pub plan: ChildPlan,
}

impl Prepared {
    /// The tool's `TMPDIR`.
    pub fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }
}

/// Prepares a tool process for `work_dir` under `config`.
pub fn prepare(config: &SandboxConfig, work_dir: &Path) -> std::io::Result<Prepared> {
    let tree = config.process_tree.unwrap_or_else(process_tree);
    let confine = config.mode != SandboxMode::Off;
    let tmp = TempDir::create()?;
    let ruleset = match landlock::abi() {
        Some(abi) if confine => Some(ruleset(abi, config, work_dir, tmp.path())?),
        _ => None,
    };
    // SAFETY: getuid/getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let plan = ChildPlan {
        tree,
        worker_pid: std::process::id() as libc::pid_t,
        confine,
        private_mounts: confine && tree != ProcessTree::ProcessGroup,
        ruleset: ruleset.as_ref().map(Ruleset::for_child),
        uid_map: IdMap::identity(uid),
        gid_map: IdMap::identity(gid),
    };
    let path = ruleset.as_ref().map(|_| runnable_path(config, work_dir));
    Ok(Prepared { tmp, path, _ruleset: ruleset, plan })
}

/// The worker's `PATH` without the directories a confined shell cannot run
/// programs from; the system's default when nothing is left.
fn runnable_path(config: &SandboxConfig, work_dir: &Path) -> OsString {
    let allowed: Vec<&Path> = SYSTEM_PROGRAMS
        .iter()
        .map(Path::new)
        .chain(config.read_paths.iter().map(PathBuf::as_path))
        .chain([work_dir])
        .collect();
    let worker = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> =
        std::env::split_paths(&worker).filter(|dir| allowed.iter().any(|root| dir.starts_with(root))).collect();
    match std::env::join_paths(kept) {
        Ok(path) if !path.is_empty() => path,
        _ => OsString::from(DEFAULT_PATH),
    }
}

/// The search path when nothing else is left.
pub const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

fn ruleset(abi: u32, config: &SandboxConfig, work_dir: &Path, tmp: &Path) -> std::io::Result<Ruleset> {
    let mut rules = Ruleset::new(abi)?;
    rules.allow(work_dir, Grant::ReadWrite)?;
    rules.allow(tmp, Grant::ReadWrite)?;
    for path in SYSTEM_PROGRAMS.iter().map(Path::new).chain(config.read_paths.iter().map(PathBuf::as_path)) {
        rules.allow(path, Grant::ReadExecute)?;
    }
    for path in SYSTEM_FILES {
        rules.allow(Path::new(path), Grant::Read)?;
    }
    for path in DEVICES {
        rules.allow(Path::new(path), Grant::Device)?;
    }
    Ok(rules)
}

/// A private temporary directory (mode 0700), removed with everything in it
/// when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    fn create() -> std::io::Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt;
        let path = std::env::temp_dir().join(format!("wingman-tool-{}", crate::domain::model::new_id().to_lowercase()));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(TempDir(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Checks that a work_dir holds none of the protected files (the database):
/// a tool confined to the work_dir could read them otherwise.
pub fn check_work_dir(work_dir: &Path, protected: &[PathBuf]) -> Result<(), String> {
    let Ok(dir) = work_dir.canonicalize() else { return Ok(()) };
    for file in protected {
        let resolved = match (file.parent().and_then(|p| p.canonicalize().ok()), file.file_name()) {
            (Some(parent), Some(name)) => parent.join(name),
            _ => continue,
        };
        if resolved.starts_with(&dir) {
            return Err(format!(
                "the work_dir {} contains Wingman's database; tools must not reach it, so choose a directory that does not",
                work_dir.display()
            ));
        }
    }
    Ok(())
}
