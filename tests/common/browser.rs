//! A real browser for the tests that need one: Debian's headless Chromium,
//! driven over WebDriver by its ChromeDriver, with plain HTTP calls.
//!
//! Where ChromeDriver is not installed the browser tests skip with a
//! message, unless `WINGMAN_TEST_BROWSER=required` (set by `.ci/run` after it
//! installs Chromium), where a missing browser fails them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";

/// One headless Chromium, closed with its driver when dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts ChromeDriver and a browser; `None` (after saying why) when
    /// this machine has no ChromeDriver and the browser is not required.
    pub async fn start() -> Option<Browser> {
        if !Path::new(CHROMEDRIVER).exists() || !Path::new(CHROMIUM).exists() {
            let required = std::env::var("WINGMAN_TEST_BROWSER").is_ok_and(|v| v == "required");
            assert!(!required, "WINGMAN_TEST_BROWSER=required but {CHROMEDRIVER} or {CHROMIUM} is missing");
            eprintln!("skipped: no {CHROMEDRIVER} (apt-get install chromium chromium-driver; .ci/run does as root)");
            return None;
        }
        let port = super::free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        wait_ready(&http, &base).await;
        let profile = tempfile::tempdir().expect("profile dir");
        let session = new_session(&http, &base, profile.path()).await;
        Some(Browser { driver, base, session, http, _profile: profile })
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut request = self.http.request(method, url);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer: Value = request.send().await.expect("webdriver").json().await.expect("webdriver json");
        assert!(answer["value"]["error"].is_null(), "webdriver {path}: {answer}");
        answer["value"].clone()
    }

    /// Opens `url` and waits for it to load.
    pub async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({"url": url}))).await;
    }

    /// Runs `script` (a function body: `return …;`) in the page and gives its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.call(reqwest::Method::POST, "/execute/sync", Some(json!({"script": script, "args": []}))).await
    }

    /// Evaluates `script` every 100 ms until it gives `true`; panics with
    /// `what` after `limit`.
    pub async fn wait_for(&self, script: &str, limit: Duration, what: &str) {
        let start = Instant::now();
        while self.eval(script).await != Value::Bool(true) {
            if start.elapsed() > limit {
                let page = self.eval("return location.href + '\\n' + document.body.innerText").await;
                panic!(
                    "the page did not get there within {limit:?}: {what}\nThe page: {}",
                    page.as_str().unwrap_or("")
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Resizes the window (to a phone's screen, say).
    pub async fn resize(&self, width: u32, height: u32) {
        self.call(reqwest::Method::POST, "/window/rect", Some(json!({"width": width, "height": height}))).await;
    }

    /// The WebDriver reference of the first element `css` selects, once
    /// there is one (panics after 20 s).
    async fn element(&self, css: &str) -> String {
        let selector = serde_json::to_string(css).expect("selector");
        let present = format!("return document.querySelector({selector}) !== null");
        self.wait_for(&present, Duration::from_secs(20), &format!("an element {css}")).await;
        let found =
            self.call(reqwest::Method::POST, "/element", Some(json!({"using": "css selector", "value": css}))).await;
        let reference = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str);
        reference.unwrap_or_else(|| panic!("no element reference for {css}: {found}")).to_string()
    }

    /// Clicks the first element `css` selects, as a person would.
    pub async fn click(&self, css: &str) {
        let element = self.element(css).await;
        self.call(reqwest::Method::POST, &format!("/element/{element}/click"), Some(json!({}))).await;
    }

    /// Types `text` into the first element `css` selects, key by key.
    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.element(css).await;
        self.call(reqwest::Method::POST, &format!("/element/{element}/value"), Some(json!({"text": text}))).await;
    }

    /// Makes the page's `prefers-color-scheme` media feature `scheme`
    /// (`dark` or `light`), as an operating system's dark mode would,
    /// through the DevTools protocol ChromeDriver relays.
    pub async fn prefer_color_scheme(&self, scheme: &str) {
        let features = json!([{"name": "prefers-color-scheme", "value": scheme}]);
        let command = json!({"cmd": "Emulation.setEmulatedMedia", "params": {"features": features}});
        self.call(reqwest::Method::POST, "/goog/cdp/execute", Some(command)).await;
    }

    /// Saves a PNG of the page under `target/tmp/screenshots/` and returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.call(reqwest::Method::GET, "/screenshot", None).await;
        let bytes = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap_or("")).expect("base64");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
        std::fs::create_dir_all(&dir).expect("screenshot dir");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, bytes).expect("write screenshot");
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closing the session ends Chromium; the driver is killed either way.
        let url = format!("{}/session/{}", self.base, self.session);
        let _ = std::thread::spawn(move || close_session(&url)).join();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

async fn wait_ready(http: &reqwest::Client, base: &str) {
    let start = Instant::now();
    loop {
        if let Ok(r) = http.get(format!("{base}/status")).send().await {
            if r.json::<Value>().await.is_ok_and(|v| v["value"]["ready"] == true) {
                return;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(20), "chromedriver did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn new_session(http: &reqwest::Client, base: &str, profile: &Path) -> String {
    let args = [
        "--headless=new".to_string(),
        "--no-sandbox".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-gpu".into(),
        "--window-size=1200,900".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    let capabilities = json!({"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
    }}});
    let answer: Value = http
        .post(format!("{base}/session"))
        .json(&capabilities)
        .send()
        .await
        .expect("new webdriver session")
        .json()
        .await
        .expect("webdriver json");
    answer["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no browser session: {answer}")).to_string()
}

/// Deletes a WebDriver session from a thread of its own: a `Drop` may run
/// inside the test's runtime, which cannot be blocked on.
fn close_session(url: &str) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
    runtime.block_on(async {
        let _ = reqwest::Client::new().delete(url).timeout(Duration::from_secs(5)).send().await;
    });
}
