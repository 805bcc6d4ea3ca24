//! A server whose database's disk is full, on SQLite in a small tmpfs (as
//! root; skipped with a message otherwise). Started while the disk is full,
//! it comes up, says the disk is full (in `/health`, and in each refused
//! submission: a 507, not "unavailable; retry shortly"), and its embedded
//! worker keeps trying to register. Once space returns, it serves runs
//! within seconds, and a schedule's ticks that fell meanwhile each run
//! once, none recorded as skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(30);

/// A tmpfs of a few megabytes, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// Mounts one, or says why it cannot.
    fn mount(megabytes: u32) -> Result<SmallDisk, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let size = format!("size={megabytes}m");
        let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", &size, "tmpfs"]).arg(dir.path()).output();
        match mounted {
            Ok(out) if out.status.success() => Ok(SmallDisk { dir }),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).trim().to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn filler(&self) -> PathBuf {
        self.path().join("filler")
    }

    /// Writes zeros until no byte is left.
    fn fill(&self) {
        use std::io::Write;
        let mut file = std::fs::File::create(self.filler()).unwrap();
        let block = vec![0u8; 64 * 1024];
        while file.write_all(&block).is_ok() {}
        while file.write_all(&[0]).is_ok() {}
    }

    fn free(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.dir.path()).status();
    }
}

/// Mounts a small disk, or says why the test is skipped.
fn small_disk() -> Option<SmallDisk> {
    match SmallDisk::mount(16) {
        Ok(disk) => Some(disk),
        Err(why) => {
            eprintln!("skipped: a full disk needs a tmpfs of its own, which this user cannot mount ({why})");
            None
        }
    }
}

/// A test environment whose database is on `disk` (its data directory is not).
fn env_on(disk: &SmallDisk) -> TestEnv {
    let mut env = TestEnv::new();
    let db = disk.path().join("wingman.db");
    env.set("WINGMAN_DATABASE_URL", &db.to_string_lossy());
    let data = env.path().display().to_string();
    env.set("WINGMAN_DATA_DIR", &data);
    env
}

/// Polls `GET /health` until `done` holds of it.
async fn wait_health(api: &Api, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let began = Instant::now();
    loop {
        let (_, health) = api.get("/health").await;
        if done(&health) {
            return health;
        }
        assert!(began.elapsed() < LIMIT, "{what}: {health}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_on_a_full_disk_says_so_and_serves_runs_once_space_returns() {
    let Some(disk) = small_disk() else { return };
    let env = env_on(&disk);
    let first = env.server(0);
    let api = first.api();
    let agent = api.create_agent(json!({"name": "echo", "provider": "scripted", "model": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let target = json!({"session_id": session, "message": "tick"});
    let body = json!({"name": "s", "every": "1s", "target": target, "overlap": "enqueue"});
    let (status, schedule) = api.post("/schedules", body).await;
    assert_eq!(status, 201, "{schedule}");
    let id = schedule["id"].as_str().unwrap().to_string();
    let mut first = first;
    first.process.terminate();
    // The `-wal` and `-shm` files outlive a clean stop with their pages
    // allocated: without them no server could read the database while the
    // disk is full (the next test).
    for file in ["wingman.db-wal", "wingman.db-shm"] {
        assert!(disk.path().join(file).exists(), "{file} did not outlive the server");
    }
    disk.fill();

    let server = env.server(1);
    let api = server.api();
    let health = wait_health(&api, "the disk is never said to be full", |h| {
        h["disk_full_since"].is_string() && h["services"]["worker-0"]["state"] == "restarting"
    })
    .await;
    assert_eq!(health["status"], "degraded", "{health}");
    let worker = health["services"]["worker-0"]["error"].as_str().unwrap_or_default();
    assert!(worker.contains("disk is full"), "{health}");
    let (status, refusal) = api.post(&format!("/sessions/{session}/message"), json!({"message": "hello?"})).await;
    assert_eq!(status, 507, "a full disk is not 'unavailable; retry shortly': {refusal}");
    assert!(refusal["error"].as_str().unwrap().contains("disk is full"), "{refusal}");
    tokio::time::sleep(Duration::from_secs(2)).await;

    disk.free();
    let freed = Instant::now();
    let health = wait_health(&api, "the server never came back", |h| h["status"] == "ok").await;
    let scheduler = &health["services"]["scheduler"];
    let met = scheduler["error"].as_str().unwrap_or_default();
    assert!(met.contains("disk is full"), "the ticks met the full disk and were tried again: {health}");
    let (status, answer) =
        api.post(&format!("/sessions/{session}/message?wait=true"), json!({"message": "back"})).await;
    assert_eq!((status, answer["status"].as_str()), (200, Some("succeeded")), "{answer}");
    eprintln!("a run succeeded {} ms after space returned", freed.elapsed().as_millis());
    let (status, _) = api.post(&format!("/schedules/{id}/pause"), json!({})).await;
    assert_eq!(status, 200);

    let (_, answer) = api.get(&format!("/schedules/{id}/runs?limit=500")).await;
    let ticks = answer["ticks"].as_array().unwrap();
    let skipped: Vec<&Value> = ticks.iter().filter(|t| !t["skipped"].is_null()).collect();
    assert!(skipped.is_empty(), "no tick was lost to the full disk: {skipped:?}");
    let submitted: std::collections::HashSet<&str> = ticks.iter().filter_map(|t| t["id"].as_str()).collect();
    assert_eq!(submitted.len(), ticks.len(), "a run per tick: {ticks:?}");
    let (_, page) = api.get(&format!("/runs?session_id={session}&limit=500")).await;
    let runs: std::collections::HashSet<&str> = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["input"]["message"] == "tick")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(runs, submitted, "each tick ran once");
}

/// A database whose `-shm` file is gone (another program's connection was
/// the last to close it, and removed both WAL files) cannot be read while
/// the disk is full: SQLite must make the `-shm` first. The server stops at
/// once and says why in words an operator acts on, not SQLite's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_open_its_database_on_a_full_disk_says_the_disk_is_full() {
    let Some(disk) = small_disk() else { return };
    let env = env_on(&disk);
    env.server(0).process.terminate();
    for file in ["wingman.db-wal", "wingman.db-shm"] {
        std::fs::remove_file(disk.path().join(file)).unwrap();
    }
    disk.fill();

    let mut server = env.spawn_client(&["serve", "--addr", "127.0.0.1:0", "--workers", "1"]);
    let began = Instant::now();
    while !server.has_exited() {
        assert!(began.elapsed() < LIMIT, "the server neither started nor stopped: {}", server.log_text());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = server.log_text();
    assert!(log.contains("the database's disk is full"), "{log}");
    assert!(log.contains("free some space"), "{log}");
}
