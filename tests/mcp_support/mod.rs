//! MCP servers for the tests: the official reference server
//! `@modelcontextprotocol/server-everything` from npm (installed by
//! `.ci/mcp.sh`), over stdio or Streamable HTTP; and the tests' own server,
//! `recorder.py`. Each suite uses a part of it.
#![allow(dead_code)]

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The reference server's entry point, or `None` (with a message saying
/// how to install it) when it is missing. Under `WINGMAN_TEST_MCP=required`
/// a missing server fails the test instead.
pub fn everything() -> Option<PathBuf> {
    let path = match std::env::var_os("WINGMAN_TEST_MCP_EVERYTHING") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("target/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    };
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if path.is_file() && node {
        return Some(path);
    }
    let why = format!(
        "the MCP reference server is not installed at {} (or node is missing): run `bash .ci/mcp.sh`",
        path.display()
    );
    if std::env::var("WINGMAN_TEST_MCP").as_deref() == Ok("required") {
        panic!("{why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// The reference server over Streamable HTTP on a free port of 127.0.0.1,
/// killed when dropped.
pub struct HttpEverything {
    child: Child,
    /// The server's MCP endpoint.
    pub url: String,
}

impl HttpEverything {
    /// Starts the server and waits until it listens.
    pub fn start(entry: &PathBuf) -> HttpEverything {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let child = Command::new("node")
            .arg(entry)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the MCP reference server");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(30), "the MCP reference server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpEverything { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The test's own MCP server (`recorder.py`), which records what it
/// receives in a file.
pub struct Recorder {
    /// Where it records: one JSON object per line.
    pub record: PathBuf,
    /// The script.
    pub script: PathBuf,
}

impl Recorder {
    /// A recorder writing to `dir/name.jsonl`.
    pub fn new(dir: &std::path::Path, name: &str) -> Recorder {
        Recorder {
            record: dir.join(format!("{name}.jsonl")),
            script: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_support/recorder.py"),
        }
    }

    /// Its definition as a stdio server named `name`, with more `env`.
    pub fn stdio(&self, name: &str, env: serde_json::Value) -> serde_json::Value {
        let mut vars = serde_json::json!({"RECORD": self.record});
        vars.as_object_mut().unwrap().extend(env.as_object().cloned().unwrap_or_default());
        serde_json::json!({"name": name, "command": "python3", "args": [self.script, "stdio"], "env": vars})
    }

    /// Starts it over Streamable HTTP on a free port of 127.0.0.1.
    pub fn http(&self) -> RecorderHttp {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let child = Command::new("python3")
            .arg(&self.script)
            .args(["http", &port.to_string()])
            .env("RECORD", &self.record)
            .spawn()
            .expect("start the recorder");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(10), "the recorder never listened");
            std::thread::sleep(Duration::from_millis(20));
        }
        RecorderHttp { child, url: format!("http://127.0.0.1:{port}/mcp") }
    }

    /// What it recorded so far.
    pub fn records(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// How many records of this kind (`start`, `initialize`, `list`, `call`, …).
    pub fn count(&self, event: &str) -> usize {
        self.records().iter().filter(|r| r["event"] == event).count()
    }
}

/// The recorder over HTTP, killed when dropped.
pub struct RecorderHttp {
    child: Child,
    /// Its MCP endpoint.
    pub url: String,
}

impl Drop for RecorderHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
