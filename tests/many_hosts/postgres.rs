//! A PostgreSQL server of the test's own: `initdb` into a temporary
//! directory with the machine's PostgreSQL binaries, run as the `postgres`
//! user, listening on the bridge's address, stopped and started at will.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server and its data directory.
pub struct OwnPostgres {
    bin: PathBuf,
    data: tempfile::TempDir,
    address: String,
    pub port: u16,
    postmaster: Option<Child>,
}

/// The newest PostgreSQL's binaries on this machine, if any.
pub fn binaries() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists() && bin.join("postgres").exists())
        .collect();
    found.sort_by_key(|p| p.parent().and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok()));
    found.pop()
}

/// Why the server could not be run as the `postgres` user, if it cannot.
pub fn cannot_run_as_postgres() -> Option<String> {
    let ran =
        |program: &str, args: &[&str]| Command::new(program).args(args).output().is_ok_and(|o| o.status.success());
    if !ran("id", &["postgres"]) {
        return Some("there is no `postgres` user to run PostgreSQL as".into());
    }
    if !ran("setpriv", &["--version"]) {
        return Some("setpriv (util-linux) is not installed".into());
    }
    None
}

/// Runs a PostgreSQL binary as the `postgres` user (the server refuses root).
fn as_postgres(program: &Path) -> Command {
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=postgres", "--regid=postgres", "--init-groups"]).arg(program);
    cmd
}

impl OwnPostgres {
    /// Creates a database cluster and starts it on `address`.
    pub fn start(bin: PathBuf, address: &str) -> OwnPostgres {
        let data = tempfile::Builder::new().prefix("wingman-pg-").tempdir().expect("tempdir");
        let chown = Command::new("chown").args(["-R", "postgres:postgres"]).arg(data.path()).status();
        assert!(chown.is_ok_and(|s| s.success()), "chown the data directory to postgres");
        let out = as_postgres(&bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
            .arg(data.path().join("cluster"))
            .output()
            .expect("run initdb");
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        // initdb trusts loopback only; the hosts connect over the bridge.
        let hba = data.path().join("cluster/pg_hba.conf");
        let mut rules = std::fs::read_to_string(&hba).expect("read pg_hba.conf");
        rules.push_str(&format!("host all all {address}/24 trust\n"));
        std::fs::write(&hba, rules).expect("write pg_hba.conf");
        let port = 20_000 + (std::process::id() % 30_000) as u16;
        let mut server = OwnPostgres { bin, data, address: address.into(), port, postmaster: None };
        server.start_postmaster();
        server
    }

    /// The URL of its `postgres` database, reached at `address:port`.
    pub fn url_at(&self, address: &str, port: u16) -> String {
        format!("postgres://postgres@{address}:{port}/postgres")
    }

    /// Its URL on the bridge.
    pub fn url(&self) -> String {
        self.url_at(&self.address, self.port)
    }

    fn start_postmaster(&mut self) {
        let cluster = self.data.path().join("cluster");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data.path().join("postgres.log"))
            .expect("postgres log");
        let child = as_postgres(&self.bin.join("postgres"))
            .arg("-D")
            .arg(&cluster)
            .args(["-c", &format!("listen_addresses={}", self.address), "-p", &self.port.to_string()])
            .args(["-c", &format!("unix_socket_directories={}", cluster.display())])
            .args(["-c", "max_connections=200"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start postgres");
        self.postmaster = Some(child);
        self.wait_ready();
    }

    fn wait_ready(&self) {
        let start = Instant::now();
        let bin = self.bin.join("pg_isready");
        loop {
            let ready = Command::new(&bin)
                .args(["-q", "-h", &self.address, "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "postgres never accepted connections: {}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server the way an operator's restart does (a fast
    /// shutdown: open transactions are rolled back, connections closed).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.postmaster.take() {
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            let _ = child.wait();
        }
    }

    /// Stops and starts the server again, on the same port and data.
    pub fn restart(&mut self) {
        self.stop();
        self.start_postmaster();
    }

    /// The server's log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.data.path().join("postgres.log")).unwrap_or_default()
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        if let Some(mut child) = self.postmaster.take() {
            unsafe { libc::kill(child.id() as i32, libc::SIGQUIT) };
            let _ = child.wait();
        }
    }
}
