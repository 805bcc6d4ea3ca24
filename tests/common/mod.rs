//! The test harness: real `wingman` processes on free ports, a fresh database
//! per test, and small HTTP/SSE helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};

pub use wingman::sse::Decoder as SseDecoder;

pub mod browser;
pub mod outage;
pub mod routes;
pub mod storm;

#[path = "../pg_support/mod.rs"]
mod pg_support;
#[allow(unused_imports)]
pub use pg_support::postgres_url_or_skip;

/// Which database a test's processes share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Defines each test once and runs it on both backends: a module per test
/// with a `sqlite` and a `postgres` test function (the latter skipped, with
/// a message, unless `WINGMAN_TEST_POSTGRES_URL` is set, and failed instead
/// under `WINGMAN_TEST_POSTGRES=required`).
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($backend:ident: Backend) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            async fn body($backend: Backend) $body

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                body(Backend::Sqlite).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if common::postgres_url_or_skip().is_none() {
                    return;
                }
                body(Backend::Postgres).await
            }
        }
    )*};
}

/// A temporary Wingman installation: a data directory and a database.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub env: Vec<(String, String)>,
    pub backend: Backend,
    /// The PostgreSQL database of this test, dropped with it.
    database: Option<pg_support::PgDatabase>,
}

impl TestEnv {
    /// A fresh SQLite database with settings that keep tests quick: a 1 s lease.
    pub fn new() -> TestEnv {
        TestEnv::on(Backend::Sqlite)
    }

    /// A fresh database of the given backend (PostgreSQL: a database of its
    /// own on the server `WINGMAN_TEST_POSTGRES_URL` names).
    pub fn on(backend: Backend) -> TestEnv {
        let mut env = TestEnv::sqlite();
        if backend == Backend::Postgres {
            let database = pg_support::PgDatabase::create();
            env.set("WINGMAN_DATABASE_URL", &database.url.clone());
            let data = env.path().to_string_lossy().into_owned();
            env.set("WINGMAN_DATA_DIR", &data);
            env.database = Some(database);
            env.backend = Backend::Postgres;
        }
        env
    }

    fn sqlite() -> TestEnv {
        let mut dir = tempfile::tempdir().expect("tempdir");
        // For debugging: keep every test's directory (database and process logs).
        if std::env::var_os("WINGMAN_TEST_KEEP_DIRS").is_some() {
            dir.disable_cleanup(true);
            eprintln!("test directory kept: {}", dir.path().display());
        }
        let db = dir.path().join("wingman.db").to_string_lossy().into_owned();
        let env = vec![
            ("WINGMAN_DATABASE_URL".into(), db),
            ("WINGMAN_LEASE_MS".into(), "1000".into()),
            ("WINGMAN_GRACE_MS".into(), "2000".into()),
            ("WINGMAN_RETRY_BASE_MS".into(), "20".into()),
            ("WINGMAN_LOG".into(), "warn,wingman=info".into()),
            // The suites' MCP servers run python3, node, sh: tests of the
            // setting itself set or unset it.
            ("WINGMAN_ALLOW_MCP_COMMANDS".into(), "*".into()),
        ];
        TestEnv { dir, env, backend: Backend::Sqlite, database: None }
    }

    /// Runs a `SELECT COUNT(*) …` (with `$1`, `$2`, … bound to `args`)
    /// straight on this test's database, whichever backend it is, for what
    /// the API does not show.
    pub async fn count(&self, sql: &str, args: &[&str]) -> i64 {
        match &self.database {
            Some(database) => {
                use sqlx::Row;
                let db = sqlx::PgPool::connect(&database.url).await.unwrap();
                let mut query = sqlx::query(sql);
                for arg in args {
                    query = query.bind(*arg);
                }
                let n = query.fetch_one(&db).await.unwrap().get(0);
                db.close().await;
                n
            }
            None => {
                // SQLite numbers its parameters `?1`, `?2`, …
                let sql = sql.replace('$', "?");
                let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                let path = self.db();
                tokio::task::spawn_blocking(move || {
                    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
                    let db = rusqlite::Connection::open_with_flags(path, flags).unwrap();
                    db.busy_timeout(Duration::from_secs(5)).unwrap();
                    db.query_row(&sql, rusqlite::params_from_iter(args), |r| r.get(0)).unwrap()
                })
                .await
                .unwrap()
            }
        }
    }

    /// Runs SQL statements (separated by `;`, nothing bound) straight on
    /// this test's database, in one transaction, for what a test sets up
    /// that the API cannot make (rows from long ago, say).
    pub async fn execute(&self, sql: &str) {
        match &self.database {
            Some(database) => {
                let db = sqlx::PgPool::connect(&database.url).await.unwrap();
                let mut tx = db.begin().await.unwrap();
                sqlx::raw_sql(sql).execute(&mut *tx).await.unwrap();
                tx.commit().await.unwrap();
                db.close().await;
            }
            None => {
                let (sql, path) = (sql.to_string(), self.db());
                tokio::task::spawn_blocking(move || {
                    let db = rusqlite::Connection::open(path).unwrap();
                    db.busy_timeout(Duration::from_secs(30)).unwrap();
                    db.execute_batch(&format!("BEGIN IMMEDIATE; {sql}; COMMIT")).unwrap();
                })
                .await
                .unwrap()
            }
        }
    }

    /// Sets (or overrides) an environment variable for every process started later.
    pub fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    /// Removes an environment variable from every process started later.
    pub fn unset(&mut self, key: &str) {
        self.env.retain(|(k, _)| k != key);
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The URL every process of this test opens its database with.
    pub fn database_url(&self) -> String {
        let url = self.env.iter().find(|(key, _)| key == "WINGMAN_DATABASE_URL");
        url.expect("a database URL").1.clone()
    }

    /// Freezes `process` (SIGSTOP) at a moment it holds no write lock that
    /// would stall the others (SQLite's one writer lock; a PostgreSQL
    /// process's row locks are its transactions', which never wait on a
    /// frozen peer).
    pub async fn freeze(&self, process: &Process) {
        match self.backend {
            Backend::Sqlite => process.stop_outside_transaction(&self.db()).await,
            Backend::Postgres => process.stop(),
        }
    }

    /// The database file.
    pub fn db(&self) -> PathBuf {
        self.dir.path().join("wingman.db")
    }

    fn command(&self, args: &[&str], log: &str) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_wingman"));
        cmd.args(args).envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let log = std::fs::File::create(self.dir.path().join(log)).expect("log file");
        cmd.stderr(log).stdin(Stdio::null());
        cmd
    }

    /// Starts `wingman serve` on a free port with `workers` embedded workers.
    pub fn server(&self, workers: u32) -> Server {
        self.server_at(workers, "127.0.0.1:0")
    }

    /// Starts `wingman serve` on the given address.
    pub fn server_at(&self, workers: u32, addr: &str) -> Server {
        let log = format!("serve-{}.log", unique());
        let mut cmd = self.command(&["serve", "--addr", addr, "--workers", &workers.to_string()], &log);
        cmd.stdout(Stdio::piped());
        let mut child = cmd.spawn().expect("start wingman serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("read the listening line");
        let process = Process { child, log: self.dir.path().join(log) };
        let url = line.trim().rsplit(' ').next().expect("url").to_string();
        // A server that stopped before listening says why in its log.
        assert!(
            url.starts_with("http://"),
            "unexpected first line: {line:?}; the server's log:\n{}",
            process.log_text()
        );
        Server { process, url }
    }

    /// Starts a separate `wingman worker` process.
    pub fn worker(&self) -> Process {
        let log = format!("worker-{}.log", unique());
        let mut cmd = self.command(&["worker"], &log);
        cmd.stdout(Stdio::null());
        Process { child: cmd.spawn().expect("start wingman worker"), log: self.dir.path().join(log) }
    }

    /// Starts a `wingman worker` through `wrapper` (say `ip netns exec
    /// HOST`, to run it on another network host), with `extra` environment
    /// on top of the test's.
    pub fn worker_via(&self, wrapper: &[&str], extra: &[(&str, &str)]) -> Process {
        let log = format!("worker-{}.log", unique());
        let file = std::fs::File::create(self.dir.path().join(&log)).expect("log file");
        let (program, args) = wrapper.split_first().expect("a wrapper command");
        let child = Command::new(program)
            .args(args)
            .args([env!("CARGO_BIN_EXE_wingman"), "worker"])
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .envs(extra.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start wingman worker");
        Process { child, log: self.dir.path().join(log) }
    }

    /// Starts a client command with its stdout piped.
    pub fn spawn_client(&self, args: &[&str]) -> Process {
        let log = format!("client-{}.log", unique());
        let mut cmd = self.command(args, &log);
        cmd.stdout(Stdio::piped());
        Process { child: cmd.spawn().expect("start client"), log: self.dir.path().join(log) }
    }

    /// Starts the standalone `wingman-worker` binary built from `worker/`
    /// (present when the workspace is built, as `cargo test --workspace`
    /// does); falls back to `wingman worker` when it is not there.
    pub fn standalone_worker(&self) -> Process {
        let path = Path::new(env!("CARGO_BIN_EXE_wingman")).with_file_name("wingman-worker");
        if !path.exists() {
            return self.worker();
        }
        let log = format!("standalone-{}.log", unique());
        let file = std::fs::File::create(self.dir.path().join(&log)).expect("log file");
        let child = Command::new(path)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start wingman-worker");
        Process { child, log: self.dir.path().join(log) }
    }

    /// Runs a client command to completion, returning (exit code, stdout, stderr).
    pub fn client_exit(&self, args: &[&str]) -> (i32, String, String) {
        let log = format!("client-{}.log", unique());
        let out = self.command(args, &log).output().expect("run client");
        let stderr = std::fs::read_to_string(self.dir.path().join(log)).unwrap_or_default();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
    }

    /// Runs a client command to completion, returning (success, stdout).
    pub fn client(&self, args: &[&str]) -> (bool, String) {
        let mut cmd = self.command(args, &format!("client-{}.log", unique()));
        let out = cmd.output().expect("run client");
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// A client command run on a pseudo-terminal (through `script`, from
/// util-linux), as a person at a terminal runs it: its prompts are answered
/// by what [`Terminal::type_in`] writes, and everything it shows is read.
pub struct Terminal {
    child: Child,
    stdin: std::process::ChildStdin,
    shown: std::thread::JoinHandle<String>,
}

impl TestEnv {
    /// Starts `wingman ARGS` on a terminal, with colour allowed; `None`,
    /// with a message, where `script` is not installed.
    pub fn on_a_terminal(&self, args: &str) -> Option<Terminal> {
        if Command::new("script").arg("--version").output().is_err() {
            eprintln!("skipped: `script` (util-linux), which gives the command a terminal, is not installed");
            return None;
        }
        let command = format!("{} {args}", env!("CARGO_BIN_EXE_wingman"));
        let mut child = Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env_remove("NO_COLOR")
            .env_remove("TERM")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start script");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let shown = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
        Some(Terminal { child, stdin, shown })
    }
}

impl Terminal {
    /// Types `text` at the terminal.
    pub fn type_in(&mut self, text: &str) {
        std::io::Write::write_all(&mut self.stdin, text.as_bytes()).expect("type at the terminal");
    }

    /// Waits for the command to end: whether it succeeded, and what it showed.
    pub fn finish(mut self) -> (bool, String) {
        let status = self.child.wait().expect("wait for script");
        drop(self.stdin);
        (status.success(), self.shown.join().unwrap_or_default())
    }
}

/// A port no one listens on now (the OS picks it; a later bind may race).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

fn unique() -> String {
    wingman::domain::model::new_id()
}

/// A child process that is killed when dropped.
pub struct Process {
    pub child: Child,
    pub log: PathBuf,
}

impl Process {
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    fn signal(&self, sig: i32) {
        unsafe {
            libc::kill(self.pid(), sig);
        }
    }

    /// SIGKILL, and wait for it to be gone.
    pub fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }

    pub fn stop(&self) {
        self.signal(libc::SIGSTOP);
    }

    /// SIGSTOP at a moment when the process holds no write transaction on
    /// the database: SQLite has one writer lock, and a process frozen while
    /// holding it would stall every other writer until it continues.
    pub async fn stop_outside_transaction(&self, db: &Path) {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE;
        let mut conn = rusqlite::Connection::open_with_flags(db, flags).expect("open the database");
        conn.busy_timeout(Duration::from_millis(200)).expect("busy timeout");
        loop {
            self.stop();
            tokio::time::sleep(Duration::from_millis(30)).await;
            // Waiting for the lock blocks: on a blocking thread, not the runtime's.
            let (back, free) = tokio::task::spawn_blocking(move || {
                let free = conn.execute_batch("BEGIN IMMEDIATE").is_ok();
                if free {
                    conn.execute_batch("ROLLBACK").expect("rollback");
                }
                (conn, free)
            })
            .await
            .expect("the lock check");
            if free {
                return;
            }
            conn = back;
            self.resume();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn resume(&self) {
        self.signal(libc::SIGCONT);
    }

    /// SIGTERM, then wait for a graceful exit.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        self.signal(libc::SIGTERM);
        self.child.wait().expect("wait")
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }
}

/// A running server.
pub struct Server {
    pub process: Process,
    pub url: String,
}

impl Server {
    pub fn api(&self) -> Api {
        Api { base: self.url.clone(), http: reqwest::Client::new(), transcript: Arc::default() }
    }

    /// A client that sends `Authorization: Bearer <token>` on every request.
    pub fn api_with_token(&self, token: &str) -> Api {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        let http = reqwest::Client::builder().default_headers(headers).build().unwrap();
        Api { base: self.url.clone(), http, transcript: Arc::default() }
    }
}

/// An answer with its status, headers and body (`Null` if not JSON).
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    /// A header's value, if it is there and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A small JSON client.
#[derive(Clone)]
pub struct Api {
    pub base: String,
    pub http: reqwest::Client,
    /// The raw body of every answer this client (and its clones) received,
    /// SSE streams included, in order: what a test greps for secrets.
    pub transcript: Arc<Mutex<Vec<String>>>,
}

impl Api {
    /// The same server's API, sending `key` as the bearer (an API key or a token).
    pub fn with_key(&self, key: &str) -> Api {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {key}").parse().unwrap());
        let http = reqwest::Client::builder().default_headers(headers).build().unwrap();
        Api { base: self.base.clone(), http, transcript: Default::default() }
    }

    /// A client of a new key for `owner` with `role`, made with this client's (an admin's) key.
    pub async fn key_for(&self, owner: &str, role: &str) -> Api {
        let (status, made) = self.post("/keys", json!({"owner": owner, "role": role})).await;
        assert_eq!(status, 201, "POST /keys for {owner} as {role}: {status} {made}");
        self.with_key(made["key"].as_str().unwrap())
    }

    /// Sends a request and returns the status and the body as JSON (`Null`
    /// if it is not JSON), keeping the raw body in the transcript.
    pub async fn request(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut request = self.http.request(method.clone(), format!("{}{path}", self.base));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let r = request.send().await.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = r.status().as_u16();
        let text = r.text().await.unwrap_or_default();
        self.transcript.lock().unwrap().push(text.clone());
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Sends a request with extra headers and returns the whole answer,
    /// headers included, for the tests that look at them.
    pub async fn send_with(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = self.http.request(method, format!("{}{path}", self.base));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null);
        Answer { status, headers, body }
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.request(reqwest::Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.request(reqwest::Method::POST, path, Some(body)).await
    }

    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        self.request(reqwest::Method::PUT, path, Some(body)).await
    }

    /// Every answer received so far, raw, one after another.
    pub fn transcript(&self) -> String {
        self.transcript.lock().unwrap().join("\n")
    }

    pub async fn create_agent(&self, body: Value) -> String {
        let (status, agent) = self.post("/agents", body).await;
        assert_eq!(status, 201, "create agent: {agent}");
        agent["id"].as_str().expect("agent id").to_string()
    }

    pub async fn create_session(&self, agent_id: &str, work_dir: Option<&Path>) -> String {
        let mut body = json!({"agent_id": agent_id});
        if let Some(dir) = work_dir {
            body["work_dir"] = json!(dir.to_string_lossy());
        }
        let (status, session) = self.post("/sessions", body).await;
        assert_eq!(status, 201, "create session: {session}");
        session["id"].as_str().expect("session id").to_string()
    }

    /// Submits a message and returns the run ID.
    pub async fn send(&self, session_id: &str, message: &str) -> String {
        let (status, body) = self.post(&format!("/sessions/{session_id}/message"), json!({"message": message})).await;
        assert_eq!(status, 202, "submit: {body}");
        body["run_id"].as_str().expect("run id").to_string()
    }

    pub async fn run(&self, run_id: &str) -> Value {
        let (status, run) = self.get(&format!("/runs/{run_id}")).await;
        assert_eq!(status, 200, "get run: {run}");
        run
    }

    /// The run's whole log, read as JSON, a page of 10,000 at a time.
    pub async fn events(&self, run_id: &str) -> Vec<Value> {
        self.events_in_pages(run_id, 10_000).await
    }

    /// The run's whole log, read as JSON pages of `limit` events, each
    /// page following the last event of the one before.
    pub async fn events_in_pages(&self, run_id: &str, limit: usize) -> Vec<Value> {
        let mut all: Vec<Value> = Vec::new();
        loop {
            let after = all.last().and_then(|e| e["seq"].as_u64()).unwrap_or(0);
            let (status, page) = self.get(&format!("/runs/{run_id}/events?after={after}&limit={limit}")).await;
            assert_eq!(status, 200, "events: {page}");
            let page = page.as_array().expect("array").clone();
            assert!(page.len() <= limit, "a page of {limit} held {}", page.len());
            let full = page.len() == limit;
            all.extend(page);
            if !full {
                return all;
            }
        }
    }

    /// Polls until the run is `waiting` (for a person or its client), or
    /// panics after `limit`.
    pub async fn wait_waiting(&self, run_id: &str, limit: Duration) -> Value {
        let start = Instant::now();
        loop {
            let run = self.run(run_id).await;
            if run["status"] == "waiting" {
                return run;
            }
            assert!(start.elapsed() < limit, "run {run_id} never waited: {run}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Polls until the run is terminal, or panics after `limit`.
    pub async fn wait_terminal(&self, run_id: &str, limit: Duration) -> Value {
        let start = Instant::now();
        loop {
            let run = self.run(run_id).await;
            if matches!(run["status"].as_str(), Some("succeeded" | "failed" | "cancelled" | "interrupted")) {
                return run;
            }
            assert!(start.elapsed() < limit, "run {run_id} not terminal after {limit:?}: {run}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Polls the log until `pred` holds for some event.
    pub async fn wait_event(&self, run_id: &str, limit: Duration, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let events = self.events(run_id).await;
            if events.iter().any(&pred) {
                return events;
            }
            assert!(start.elapsed() < limit, "event not seen after {limit:?}: {events:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Opens an SSE tail and reads up to `max` events (all if `None`), then
    /// drops the connection. Returns the events and whether `done` was seen.
    pub async fn sse_read(&self, run_id: &str, last_event_id: Option<u64>, max: Option<usize>) -> (Vec<Value>, bool) {
        self.sse_read_at(&format!("/runs/{run_id}/events"), last_event_id, max).await
    }

    /// [`Api::sse_read`] of any log's events route (`path`).
    pub async fn sse_read_at(&self, path: &str, last_event_id: Option<u64>, max: Option<usize>) -> (Vec<Value>, bool) {
        let mut request = self.http.get(format!("{}{path}", self.base)).header("Accept", "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id.to_string());
        }
        let response = request.send().await.expect("SSE request");
        assert_eq!(response.status().as_u16(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap_or("").to_string();
        assert!(content_type.starts_with("text/event-stream"), "{content_type}");
        // The body goes to the transcript whole: decoded chunk by chunk, a
        // character or a secret cut between two chunks would not be found.
        let mut raw = Vec::new();
        let read = read_events(response, &mut raw, max).await;
        self.transcript.lock().unwrap().push(String::from_utf8_lossy(&raw).into_owned());
        read
    }
}

/// Reads an SSE log's events until its `done` or the `max`-th, keeping the
/// bytes received in `raw`; checks that each frame's `id` and `event` are
/// the event's `seq` and `type`.
async fn read_events(response: reqwest::Response, raw: &mut Vec<u8>, max: Option<usize>) -> (Vec<Value>, bool) {
    let mut decoder = SseDecoder::default();
    let mut stream = response.bytes_stream();
    let mut events = Vec::new();
    while let Some(chunk) = tokio::time::timeout(Duration::from_secs(30), stream.next()).await.expect("SSE stalled") {
        let chunk = chunk.expect("chunk");
        raw.extend_from_slice(&chunk);
        for frame in decoder.push(&chunk) {
            let event: Value = serde_json::from_str(&frame.data).expect("frame JSON");
            assert_eq!(frame.id.as_deref(), Some(event["seq"].to_string().as_str()), "id: is the seq");
            assert_eq!(frame.event.as_deref(), event["type"].as_str(), "event: is the type");
            let done = event["type"] == "done";
            events.push(event);
            if done {
                return (events, true);
            }
            if max.is_some_and(|m| events.len() >= m) {
                return (events, false);
            }
        }
    }
    (events, false)
}

/// Asserts that every way of reading a run's log gives the same events:
/// JSON pages of 1, 2 and 5 events (which end inside and across a stored
/// write's events), and an SSE replay from no `Last-Event-ID` and from
/// every one of its events, each the log after that event exactly (after
/// the last, a 204: nothing more).
pub async fn assert_log_reads_agree(api: &Api, run_id: &str) {
    let log = api.events(run_id).await;
    for limit in [1, 2, 5] {
        assert_eq!(api.events_in_pages(run_id, limit).await, log, "run {run_id}'s log read {limit} at a time");
    }
    let (replayed, done) = api.sse_read(run_id, None, None).await;
    assert!(done, "run {run_id}'s SSE replay ends at its done");
    assert_eq!(replayed, log, "run {run_id}'s log over SSE");
    let (last, before_last) = log.split_last().expect("a log");
    for (i, event) in before_last.iter().enumerate() {
        let seq = event["seq"].as_u64().expect("seq");
        let (after, _) = api.sse_read(run_id, Some(seq), None).await;
        assert_eq!(after, log[i + 1..], "run {run_id}'s log over SSE after Last-Event-ID {seq}");
    }
    let url = format!("{}/runs/{run_id}/events", api.base);
    let request =
        api.http.get(url).header("Accept", "text/event-stream").header("Last-Event-ID", last["seq"].to_string());
    let status = request.send().await.expect("SSE request").status().as_u16();
    assert_eq!(status, 204, "run {run_id}'s SSE after its last event: nothing more");
}

/// Asserts that a run's log is dense (seq 1, 2, …) with exactly one `done`, last.
pub fn assert_dense(events: &[Value]) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["seq"].as_u64(), Some(i as u64 + 1), "seq gap or duplicate at {i}: {events:?}");
    }
    let dones = events.iter().filter(|e| e["type"] == "done").count();
    assert_eq!(dones, 1, "exactly one done: {events:?}");
    assert_eq!(events.last().map(|e| e["type"].clone()), Some(json!("done")), "done is last");
}

/// A scripted agent whose turns are `steps` bash commands, then a final text.
pub fn bash_script(commands: &[String], final_text: &str) -> Value {
    let mut turns: Vec<Value> =
        commands.iter().map(|c| json!({"tool_calls": [{"name": "bash", "input": {"command": c}}]})).collect();
    turns.push(json!({"text": final_text}));
    json!({"name": "scripted-bash", "provider": "scripted", "model": "echo", "tools": ["bash"],
           "options": {"script": turns}})
}

/// An agent of `n` tool steps; each sleeps 0.4 s, then appends its line
/// (`step-1`, `step-2`, …) to `steps.txt` in the work dir: a side effect a
/// test counts.
pub fn step_agent(n: usize) -> Value {
    let commands: Vec<String> = (1..=n).map(|i| format!("sleep 0.4; echo step-{i} >> steps.txt")).collect();
    bash_script(&commands, "finished")
}

/// A step runs once, plus at most once more for each `step_restarted` naming
/// its call (written before the call runs again). A checkpointed step is never
/// named, so it ran exactly once.
pub fn assert_steps_ran_as_announced(work: &Path, events: &[Value], steps: usize) {
    let text = std::fs::read_to_string(work.join("steps.txt")).unwrap_or_default();
    for i in 1..=steps {
        let line = format!("step-{i}");
        let ran = text.lines().filter(|l| *l == line).count();
        let call = format!("call_{i}_1");
        let announced =
            events.iter().filter(|e| e["type"] == "step_restarted" && e["call_id"] == call.as_str()).count();
        assert!(
            ran >= 1 && ran <= 1 + announced,
            "{}: step {i} ran {ran} times, {announced} restarts announced: {events:?}",
            work.display()
        );
    }
}

/// What one run went through, from its events.
pub struct RunReport {
    /// Claims of the run (one per attempt).
    pub claims: usize,
    /// Tool calls that were in flight when an attempt was lost and ran again.
    pub restarted_calls: usize,
}

/// Checks a `step_agent(steps)` run in its own work dir after crashes: it
/// succeeded; its log is dense; each result is recorded once; its claims
/// came one after another; at most one call in flight ran again per lost
/// attempt; and no checkpointed step ran twice.
pub async fn assert_run_survived(api: &Api, run_id: &str, work: &Path, steps: usize) -> RunReport {
    let run = api.run(run_id).await;
    assert_eq!(run["status"], "succeeded", "crashes that are not the run's fault never fail it: {run}");
    assert_eq!(run["response"], "finished");
    let events = api.events(run_id).await;
    assert_dense(&events);
    let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
    assert_eq!(count("tool_result"), steps, "each result recorded once: {events:?}");
    let attempts: Vec<u64> =
        events.iter().filter(|e| e["type"] == "run_started").filter_map(|e| e["attempt"].as_u64()).collect();
    let claims = attempts.len();
    assert_eq!(attempts, (1..=claims as u64).collect::<Vec<_>>(), "claims one after another: {events:?}");
    assert_eq!(run["attempt"], claims as u64, "one attempt per claim: {run}");
    let restarted_calls = events.iter().filter(|e| e["type"] == "step_restarted" && e["call_id"].is_string()).count();
    assert!(restarted_calls < claims, "{restarted_calls} calls ran again in {claims} attempts: {events:?}");
    assert_charged_only_without_progress(&events);
    assert_steps_ran_as_announced(work, &events, steps);
    RunReport { claims, restarted_calls }
}

/// Checks from a run's events that a lost attempt was charged exactly when
/// it checkpointed nothing (no step completed, no tool result, no provider
/// failure recorded) and was not handed back: each `run_started` says how
/// many earlier attempts were charged.
pub fn assert_charged_only_without_progress(events: &[Value]) {
    let mut charged: Option<u64> = None;
    let mut progressed = false;
    for event in events {
        match event["type"].as_str() {
            Some("run_started") => {
                let now = event["charged_attempts"].as_u64().expect("run_started says what was charged");
                if let Some(before) = charged {
                    let expected = before + u64::from(!progressed);
                    assert_eq!(now, expected, "charged only for attempts without progress: {events:?}");
                }
                (charged, progressed) = (Some(now), false);
            }
            Some("step_completed" | "tool_result" | "run_handed_back") => progressed = true,
            Some("step_restarted") if event["retry"].is_u64() => progressed = true,
            _ => {}
        }
    }
}

/// Prints a figure a test measured, and keeps it in
/// `target/tmp/figures/<test>.txt` (the run's output hides a passing test's
/// prints; CI shows these files after the suites).
pub fn report_figure(test: &str, line: &str) {
    println!("{line}");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("figures");
    let written = std::fs::create_dir_all(&dir).and_then(|_| {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(dir.join(format!("{test}.txt")))?;
        writeln!(file, "{line}")
    });
    if let Err(e) = written {
        eprintln!("could not keep the figure: {e}");
    }
}

/// True if a process with this pid exists.
pub fn pid_alive(pid: i32) -> bool {
    unsafe { libc::kill(pid, 0) == 0 }
}

/// True while `pid` is a live (not zombie) process.
pub fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start().chars().next();
            !matches!(state, Some('Z') | Some('X') | None)
        }
        Err(_) => false,
    }
}

/// A `sleep` argument no other process has (`1000.<digits>` seconds): tool
/// processes live in a PID namespace of their own, so a test finds them by
/// their command line rather than by a PID they report.
pub fn marker() -> String {
    format!("1000.{}", fastrand::u64(1_000_000_000..10_000_000_000))
}

/// The live processes, seen from the test, with the argument `marker`.
pub fn marked(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
        if cmdline.split(|b| *b == 0).any(|arg| arg == marker.as_bytes()) && running(pid) {
            found.push(pid);
        }
    }
    found
}

/// Waits up to `limit` for `count` processes with the marker to be running.
pub async fn wait_marked(marker: &str, count: usize, limit: Duration) -> Vec<i32> {
    let start = Instant::now();
    loop {
        let found = marked(marker);
        if found.len() >= count {
            return found;
        }
        assert!(start.elapsed() < limit, "{count} processes with {marker} never ran: {found:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits up to `limit` for every process with the marker to be gone.
pub async fn marked_gone(marker: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if marked(marker).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// CPU time (user + system) a process has used so far.
pub fn cpu_time(pid: i32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap().split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_millis(ticks * 1000 / per_second)
}

/// Whether the tool sandbox's suites must find what they check
/// (`WINGMAN_TEST_SANDBOX=required`, as `.ci/run` sets it): a kernel
/// feature they need that is missing then fails them instead of skipping.
pub fn sandbox_required() -> bool {
    std::env::var("WINGMAN_TEST_SANDBOX").is_ok_and(|v| v == "required")
}
