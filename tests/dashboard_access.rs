//! How the dashboard is served and who may read through it: its pages and
//! assets come from the binary with their types and cache headers and need
//! no token; with `--auth-token` the browser asks for the token once, and the
//! cookie it keeps for `EventSource` opens reads only, never a change.

mod common;

use std::time::Duration;

use common::browser::Browser;
use common::routes::every_route;
use common::{Api, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

/// A token with characters a cookie cannot hold as they are.
const TOKEN: &str = "s3cret;token=with odd,chars";

const PAGES: &[&str] = &[
    "/ui",
    "/ui/runs",
    "/ui/runs/x",
    "/ui/sessions",
    "/ui/sessions/x",
    "/ui/fleets",
    "/ui/fleet-runs/x",
    "/ui/approvals",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_and_assets_are_served_from_the_binary() {
    let env = TestEnv::new();
    let server = env.server(0);
    let http = reqwest::Client::new();
    let mut shell = String::new();
    for page in PAGES {
        let answer = http.get(format!("{}{page}", server.url)).send().await.unwrap();
        assert_eq!(answer.status(), 200, "{page}");
        let headers = answer.headers().clone();
        assert_eq!(headers["content-type"], "text/html; charset=utf-8", "{page}");
        assert!(headers["content-security-policy"].to_str().unwrap().contains("script-src 'self'"), "{page}");
        assert_eq!(headers["x-frame-options"], "DENY", "{page}");
        shell = answer.text().await.unwrap();
        assert!(shell.contains("<main id=\"main\">"), "{page}: {shell}");
    }
    // The assets' URLs carry their digest, so they are cached for good.
    let mut total = shell.len();
    for (name, content_type) in [("app.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8")] {
        let at = shell.find(&format!("/ui/assets/{name}?v=")).unwrap_or_else(|| panic!("{name} in {shell}"));
        let url = shell[at..].split('"').next().unwrap();
        let answer = http.get(format!("{}{url}", server.url)).send().await.unwrap();
        assert_eq!(answer.status(), 200, "{url}");
        assert_eq!(answer.headers()["content-type"], content_type);
        assert_eq!(answer.headers()["cache-control"], "public, max-age=31536000, immutable");
        total += answer.text().await.unwrap().len();
    }
    common::report_figure("dashboard", &format!("dashboard: a page and its assets weigh {total} bytes"));
    assert!(total < 64 * 1024, "the dashboard stays small: {total} bytes");
    let answer = http.get(format!("{}/ui/nothing-here", server.url)).send().await.unwrap();
    assert_eq!(answer.status(), 404);
    assert!(answer.json::<Value>().await.unwrap()["error"].is_string());
}

/// What the API holds, to see that a refused request changed nothing.
async fn state(api: &Api) -> Value {
    let mut all = json!({});
    for path in ["/agents", "/sessions", "/runs", "/fleets", "/provider/auth", "/secrets"] {
        all[path] = api.get(path).await.1;
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_token_the_page_asks_once_and_the_cookie_opens_reads_only() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api_with_token(TOKEN);
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "hello").await;
    api.wait_terminal(&run, Duration::from_secs(30)).await;

    // The shell needs no token; data does. The cookie carries the token of
    // reads; a request that changes state needs the header.
    let anonymous = server.api();
    assert_eq!(anonymous.get("/ui").await.0, 200);
    assert_eq!(anonymous.get("/workers").await.0, 401);
    let cookie = format!("other=1; wingman_token={}", percent_encode(TOKEN));
    let before = state(&api).await;
    for (method, path, body) in every_route(&agent, &session, &run) {
        let mut request =
            anonymous.http.request(method.clone(), format!("{}{path}", server.url)).header("cookie", &cookie);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let status = request.send().await.unwrap().status().as_u16();
        if method == Method::GET {
            assert!(status != 401 && status < 500, "GET {path} with the cookie: {status}");
        } else {
            assert_eq!(status, 401, "{method} {path} with only the cookie");
        }
    }
    assert_eq!(state(&api).await, before, "a request with only the cookie changed something");
    let wrong = anonymous.http.get(format!("{}/runs", server.url)).header("cookie", "wingman_token=wrong");
    assert_eq!(wrong.send().await.unwrap().status(), 401);

    let Some(browser) = Browser::start().await else { return };
    browser.goto(&format!("{}/ui", server.url)).await;
    browser.type_into("#token", TOKEN).await;
    browser.screenshot("token").await;
    browser.click("#token-form button").await;
    let drawn = "return document.querySelector('[data-count=\"queued\"]') !== null";
    browser.wait_for(drawn, Duration::from_secs(20), "the queue, once the token is given").await;
    // Asked once: the next pages, their live tail included, just work.
    let second = api.send(&session, "again").await;
    browser.goto(&format!("{}/ui/runs/{second}", server.url)).await;
    let done = "return document.querySelector('#events [data-type=\"done\"]') !== null";
    browser.wait_for(done, Duration::from_secs(30), "the run's events through the cookie").await;
    assert_eq!(browser.eval("return document.querySelector('#token-form') === null").await, true);
    browser.goto(&format!("{}/ui/approvals", server.url)).await;
    browser
        .wait_for("return document.querySelector('#none-waiting') !== null", Duration::from_secs(20), "approvals")
        .await;
}

/// The token as the page keeps it in its cookie (`encodeURIComponent`).
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_members_key_shows_the_dashboard_only_its_owners_work() {
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    let server = env.server(0);
    let _worker = env.worker();
    let admin = server.api_with_token(TOKEN);
    let mut runs = Vec::new();
    let mut keys = Vec::new();
    for owner in ["alpha", "beta"] {
        let (status, made) = admin.post("/keys", json!({"owner": owner, "role": "member"})).await;
        assert_eq!(status, 201, "{made}");
        let key = made["key"].as_str().unwrap().to_string();
        let member = admin.with_key(&key);
        let agent = member.create_agent(json!({"name": owner})).await;
        let session = member.create_session(&agent, None).await;
        let run = member.send(&session, &format!("hello from {owner}")).await;
        member.wait_terminal(&run, Duration::from_secs(30)).await;
        (runs, keys) = ([runs, vec![run]].concat(), [keys, vec![key]].concat());
    }
    let Some(browser) = Browser::start().await else { return };
    browser.goto(&format!("{}/ui", server.url)).await;
    browser.type_into("#token", &keys[0]).await;
    browser.click("#token-form button").await;
    // The queue's detail counts every owner's work: the page says it is an admin's.
    let noted = "return document.querySelector('[data-admin-only]') !== null";
    browser.wait_for(noted, Duration::from_secs(20), "the queue page, for a member's key").await;
    let listed = |run: &str| format!("return document.querySelector('[data-run=\"{run}\"]') !== null");
    browser.wait_for(&listed(&runs[0]), Duration::from_secs(20), "alpha's run on the queue page").await;
    assert_eq!(browser.eval(&listed(&runs[1])).await, false, "beta's run on alpha's queue page");
    browser.goto(&format!("{}/ui/runs", server.url)).await;
    browser.wait_for(&listed(&runs[0]), Duration::from_secs(20), "alpha's run in the runs list").await;
    assert_eq!(browser.eval(&listed(&runs[1])).await, false, "beta's run in alpha's runs list");
    browser.goto(&format!("{}/ui/runs/{}", server.url, runs[1])).await;
    let refused = "return document.body.innerText.includes('not found')";
    browser.wait_for(refused, Duration::from_secs(20), "beta's run, opened by alpha, is not found").await;
    assert_eq!(browser.eval("return document.querySelector('#events [data-type]') === null").await, true);
}
