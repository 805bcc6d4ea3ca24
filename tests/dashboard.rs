//! The dashboard at `/ui`, in a real browser (headless Chromium over
//! WebDriver) against the real binaries: a live run streams into its page
//! and the page catches up with no duplicate across a SIGKILL and restart of
//! the server; an approval is answered from the page; a fleet run's progress
//! moves; every page works on a phone's screen and in a dark theme; the runs
//! list pages through 100,000 runs; with a token the page asks for it once.
//! Screenshots land in `target/tmp/screenshots/`.

mod common;

use std::time::{Duration, Instant};

use common::browser::Browser;
use common::{Api, TestEnv};
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

/// One browser at a time: the suites share two cores with Chromium.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// An agent that streams a sentence of text, then runs a slow `bash` call,
/// `steps` times, then streams a last answer.
fn streaming_agent(steps: usize) -> Value {
    let mut turns: Vec<Value> = (1..=steps)
        .map(|i| {
            json!({"text": format!("Looking at part {i} of the work now. "),
                   "tool_calls": [{"name": "bash", "input": {"command": format!("sleep 0.5; echo output-{i}")}}]})
        })
        .collect();
    turns.push(json!({"text": "Every part is done."}));
    json!({"name": "streamer", "tools": ["bash"], "options": {"script": turns, "chunk_delay_ms": 60}})
}

/// The seqs of every element of the run page's timeline, sorted.
async fn page_seqs(browser: &Browser) -> Vec<u64> {
    let script = "return [...document.querySelectorAll('#events [data-seq]')].map((e) => Number(e.dataset.seq))";
    let mut seqs: Vec<u64> = browser.eval(script).await.as_array().unwrap().iter().filter_map(Value::as_u64).collect();
    seqs.sort_unstable();
    seqs
}

async fn wait_status(api: &Api, run: &str, status: &str) {
    let start = Instant::now();
    while api.run(run).await["status"] != status {
        assert!(start.elapsed() < LIMIT, "run {run} never became {status}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_run_streams_into_its_page_and_catches_up_after_a_server_restart() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let addr = format!("127.0.0.1:{}", common::free_port());
    let mut server = env.server_at(0, &addr);
    let _worker = env.worker();
    let api = server.api();
    let steps = 8;
    let agent = api.create_agent(streaming_agent(steps)).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "do the work").await;

    // Opened mid-run, the page shows everything so far, then streams.
    let so_far = api.wait_event(&run, LIMIT, |e| e["type"] == "tool_result").await.len() as u64;
    browser.goto(&format!("{}/ui/runs/{run}", server.url)).await;
    let shown = format!("return document.querySelectorAll('#events [data-seq]').length >= {so_far}");
    browser.wait_for(&shown, LIMIT, "the events so far").await;
    let streamed =
        format!("return [...document.querySelectorAll('#events .text span')].some((s) => s.dataset.seq > {so_far})");
    browser.wait_for(&streamed, LIMIT, "text streamed after the page opened").await;
    browser.screenshot("run-streaming").await;

    // The server dies mid-stream; the worker goes on. A server on the same
    // address takes over and the page reconnects to it by itself.
    assert_eq!(api.run(&run).await["status"], "running", "the run is mid-stream when the server dies");
    server.process.kill9();
    tokio::time::sleep(Duration::from_millis(700)).await;
    let server = env.server_at(0, &addr);
    let api = server.api();
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    browser.wait_for("return document.querySelector('#events [data-type=\"done\"]') !== null", LIMIT, "done").await;
    browser.wait_for("return document.querySelector('#live').dataset.state === 'done'", LIMIT, "closed").await;
    browser.screenshot("run-finished").await;

    // Each event once: the page's seqs are exactly the log's.
    let log = api.events(&run).await;
    assert_eq!(page_seqs(&browser).await, (1..=log.len() as u64).collect::<Vec<_>>(), "each event once");
    let outputs = browser
        .eval("return [...document.querySelectorAll('#events pre.output')].map((e) => e.textContent.trim())")
        .await;
    let expected: Vec<String> = (1..=steps).map(|i| format!("output-{i}\n[exit code 0]")).collect();
    assert_eq!(outputs, json!(expected), "each tool result once, under its call");
    for i in 1..=steps {
        let text =
            browser.eval(&format!("return document.querySelector('[data-step=\"{i}\"] .text').textContent")).await;
        assert_eq!(text, format!("Looking at part {i} of the work now. "), "step {i}'s text once");
    }
    let status = browser.eval("return document.querySelector('#main .status').textContent").await;
    assert_eq!(status, "succeeded", "the run's summary follows its events");
}

/// An agent whose one `bash` call waits for a person's approval.
fn careful_agent() -> Value {
    let call = json!({"name": "bash", "input": {"command": "echo approved-by-a-person"}});
    json!({"name": "careful", "tools": ["bash"], "approve_tools": ["bash"],
           "options": {"script": [{"text": "I need to run a command.", "tool_calls": [call]}, {"text": "It ran."}]}})
}

async fn fleet_run(api: &Api, tasks: usize, at_once: u32) -> String {
    let agent = api.create_agent(common::bash_script(&["sleep 0.8; echo task".to_string()], "task done")).await;
    let (status, fleet) =
        api.post("/fleets", json!({"name": "pages", "agent_id": agent, "worker_count": at_once})).await;
    assert_eq!(status, 201, "{fleet}");
    let tasks: Vec<Value> = (0..tasks).map(|i| json!({"message": format!("task {i}")})).collect();
    let (status, body) =
        api.post(&format!("/fleets/{}/run", fleet["id"].as_str().unwrap()), json!({"tasks": tasks})).await;
    assert_eq!(status, 202, "{body}");
    body["fleet_run_id"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_shows_its_part_approvals_are_answered_and_a_fleet_run_moves() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    let server = env.server(0);
    let _worker = env.worker();
    let api = server.api();
    let ui = format!("{}/ui", server.url);

    // The queue at a glance: the worker and the run it holds.
    let slow = api.create_agent(common::step_agent(6)).await;
    let slow_session = api.create_session(&slow, Some(&env.path().join("slow"))).await;
    let slow_run = api.send(&slow_session, "go").await;
    browser.goto(&ui).await;
    let holds = format!("return document.querySelector('tr[data-worker][data-status=\"live\"] a[href=\"/ui/runs/{slow_run}\"]') !== null");
    browser.wait_for(&holds, LIMIT, "a live worker holding the run").await;
    // Why queued runs wait, and the running run counted at its priority.
    let why = "return document.querySelector('[data-count=\"key at limit\"]') !== null
        && document.querySelector('tr[data-priority=\"0\"]') !== null";
    browser.wait_for(why, LIMIT, "the queue's reasons and priorities").await;
    // Provider budgets: none yet, then a declared one shows at the next refresh.
    let none = "return document.querySelector('#main')?.innerText.includes('No provider limits declared or learned.')";
    browser.wait_for(none, LIMIT, "no provider budgets yet").await;
    let (status, body) = api.put("/provider/limits/openai", json!({"requests_per_minute": 1200})).await;
    assert_eq!(status, 200, "{body}");
    let budget =
        "return [...(document.querySelector('tr[data-budget=\"openai\"]')?.cells || [])].map((c) => c.textContent)";
    let start = Instant::now();
    loop {
        let cells = browser.eval(budget).await;
        if cells == json!(["openai", "1200", "—", "—", "—", "0", "0"]) {
            break;
        }
        assert!(start.elapsed() < LIMIT, "the openai budget's row: {cells}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser.screenshot("queue").await;

    // An approval answered from the page; the run goes on.
    let careful = api.create_agent(careful_agent()).await;
    let session = api.create_session(&careful, None).await;
    let run = api.send(&session, "run it").await;
    wait_status(&api, &run, "waiting").await;
    browser.goto(&format!("{ui}/approvals")).await;
    let card = format!(".card[data-run=\"{run}\"]");
    browser
        .wait_for(&format!("return document.querySelector('{card} button.approve') !== null"), LIMIT, "the card")
        .await;
    browser.screenshot("approvals").await;
    browser.click(&format!("{card} button.approve")).await;
    browser
        .wait_for(&format!("return document.querySelector('{card} .approval.decided') !== null"), LIMIT, "decided")
        .await;
    browser.screenshot("approvals-decided").await;
    assert_eq!(api.wait_terminal(&run, LIMIT).await["status"], "succeeded");
    let events = api.events(&run).await;
    assert!(
        events.iter().any(|e| e["type"] == "tool_result" && e["output"] == "approved-by-a-person\n[exit code 0]"),
        "{events:?}"
    );
    // The run's page says who decided: the first admin, as this server has no key.
    browser.goto(&format!("{ui}/runs/{run}")).await;
    let decided =
        "return document.querySelector('#events [data-type=\"approval_decided\"]')?.textContent.endsWith('by admin')";
    browser.wait_for(decided, LIMIT, "who decided, on the run's page").await;

    // A fleet run's progress moves live, from its events.
    let fleet_run_id = fleet_run(&api, 8, 2).await;
    browser.goto(&format!("{ui}/fleet-runs/{fleet_run_id}")).await;
    let mut seen = Vec::new();
    let start = Instant::now();
    while seen.last() != Some(&8) {
        assert!(start.elapsed() < LIMIT, "the fleet run's progress stopped at {seen:?}");
        let done = browser.eval("return Number(document.querySelector('#progress-text').dataset.done || 0)").await;
        let done = done.as_u64().unwrap();
        if seen.last() != Some(&done) {
            seen.push(done);
            if done > 0 && done < 8 {
                browser.screenshot("fleet-run-progress").await;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(seen.iter().any(|d| *d > 0 && *d < 8), "the progress moved step by step: {seen:?}");
    browser
        .wait_for("return document.querySelector('#main .status')?.textContent === 'succeeded'", LIMIT, "ended")
        .await;
    browser.screenshot("fleet-run").await;
    // Its tasks among the runs: the runs page filtered by the fleet run.
    browser.click("#as-runs").await;
    let filtered = format!(
        "return location.search.includes('fleet_run_id={fleet_run_id}') \
         && document.querySelectorAll('#main table tbody tr').length === 8"
    );
    browser.wait_for(&filtered, LIMIT, "the fleet run's eight tasks on the runs page").await;

    // Sessions with their history, fleets with their runs' progress.
    browser.goto(&format!("{ui}/sessions")).await;
    browser
        .wait_for(
            &format!("return document.querySelector('tr[data-session=\"{session}\"]') !== null"),
            LIMIT,
            "the session",
        )
        .await;
    browser.screenshot("sessions").await;
    browser.goto(&format!("{ui}/sessions/{session}")).await;
    let told = "return [...document.querySelectorAll('#history pre.output')].some((p) => p.textContent.startsWith('approved-by'))";
    browser.wait_for(told, LIMIT, "the session's history").await;
    browser.screenshot("session").await;
    browser.goto(&format!("{ui}/fleets")).await;
    let listed =
        format!("return document.querySelector('tr[data-fleet-run=\"{fleet_run_id}\"] progress')?.value === 8");
    browser.wait_for(&listed, LIMIT, "the fleet run, all done").await;
    browser.screenshot("fleets").await;

    // A phone's screen: every page fits its width.
    let pages = [
        ("queue", String::new()),
        ("runs", "/runs".into()),
        ("run", format!("/runs/{run}")),
        ("sessions", "/sessions".into()),
        ("session", format!("/sessions/{session}")),
        ("fleets", "/fleets".into()),
        ("fleet-run", format!("/fleet-runs/{fleet_run_id}")),
        ("approvals", "/approvals".into()),
    ];
    browser.resize(390, 844).await;
    for (name, path) in &pages {
        browser.goto(&format!("{ui}{path}")).await;
        let drawn = "return document.querySelector('main').dataset.drawn === 'yes'";
        browser.wait_for(drawn, LIMIT, &format!("the {name} page")).await;
        let width = browser.eval("return [window.innerWidth, document.documentElement.scrollWidth]").await;
        let (inner, scroll) = (width[0].as_u64().unwrap(), width[1].as_u64().unwrap());
        assert!(inner <= 400, "a phone-sized window: {width}");
        assert!(scroll <= inner, "the {name} page is wider than a phone's screen: {width}");
        browser.screenshot(&format!("phone-{name}")).await;
    }

    // A dark theme where the system asks for one.
    browser.resize(1200, 900).await;
    let background = "return getComputedStyle(document.body).backgroundColor";
    assert_eq!(browser.eval(background).await, "rgb(255, 255, 255)");
    browser.prefer_color_scheme("dark").await;
    browser.goto(&format!("{ui}/runs/{run}")).await;
    browser.wait_for("return document.querySelector('#events [data-type=\"done\"]') !== null", LIMIT, "the run").await;
    assert_eq!(browser.eval("return matchMedia('(prefers-color-scheme: dark)').matches").await, true);
    assert_eq!(browser.eval(background).await, "rgb(18, 21, 25)", "the dark theme applies");
    browser.screenshot("dark-run").await;
    api.wait_terminal(&slow_run, LIMIT).await;
}

/// Copies the run `template` `n` times straight into the SQLite database,
/// as finished runs (one in ten failed, one in ten cancelled) with IDs
/// `01SEED<number>`, newest last.
async fn seed_runs(env: &TestEnv, template: &str, n: u32) {
    let (db, template) = (env.db(), template.to_string());
    tokio::task::spawn_blocking(move || {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.busy_timeout(Duration::from_secs(10)).unwrap();
        let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
            INSERT INTO runs (id, kind, status, session_id, agent_id, agent, agent_digest, input, work_dir,
                              max_attempts, steps, response, created_at, finished_at, updated_at, owner)
            SELECT printf('01SEED%020d', i), t.kind,
                   CASE i % 10 WHEN 0 THEN 'failed' WHEN 1 THEN 'cancelled' ELSE 'succeeded' END,
                   t.session_id, t.agent_id, t.agent, t.agent_digest, t.input, t.work_dir, t.max_attempts, 1,
                   'seeded ' || i,
                   t.created_at - (?2 - i + 1) * 1000, t.created_at - (?2 - i) * 1000, t.created_at - (?2 - i) * 1000,
                   t.owner
            FROM n, runs t WHERE t.id = ?1";
        conn.execute(sql, rusqlite::params![template, n]).unwrap();
    })
    .await
    .unwrap();
}

/// The run IDs and statuses of the rows of the runs page.
async fn rows(browser: &Browser) -> Vec<(String, String)> {
    let script = "return [...document.querySelectorAll('tr[data-run]')].map((r) => [r.dataset.run, r.dataset.status])";
    let found = browser.eval(script).await;
    found.as_array().unwrap().iter().map(|r| (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runs_list_pages_through_100000_runs_a_page_at_a_time() {
    let _one = ONE_BROWSER.lock().await;
    let Some(browser) = Browser::start().await else { return };
    let env = TestEnv::new();
    // No worker: the runs stay as they were written.
    let server = env.server(0);
    let api = server.api();
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let session = api.create_session(&agent, None).await;
    let template = api.send(&session, "the first run").await;
    let start = Instant::now();
    seed_runs(&env, &template, 99_999).await;
    common::report_figure("dashboard", &format!("dashboard: 99,999 runs seeded by SQL in {:?}", start.elapsed()));
    let seed = |i: u32| format!("01SEED{i:020}");

    // The newest page first, then the next one.
    browser.goto(&format!("{}/ui/runs", server.url)).await;
    browser.wait_for("return document.querySelectorAll('tr[data-run]').length === 50", LIMIT, "one page").await;
    let first = rows(&browser).await;
    assert_eq!(first[0].0, seed(99_999), "newest first");
    assert_eq!(first[49].0, seed(99_950));
    browser.screenshot("runs").await;
    browser.click("#next-page").await;
    let second_page = format!("return document.querySelector('tr[data-run]')?.dataset.run === '{}'", seed(99_949));
    browser.wait_for(&second_page, LIMIT, "the next page").await;
    assert_eq!(rows(&browser).await.len(), 50);
    assert_eq!(browser.eval("return document.querySelector('#page-number').textContent").await, "Page 2");

    // A status filter, paged the same way.
    let choose =
        "const s = document.querySelector('#status-filter'); s.value = 'failed'; s.dispatchEvent(new Event('change'));";
    browser.eval(choose).await;
    let failed = format!("return document.querySelector('tr[data-run]')?.dataset.run === '{}'", seed(99_990));
    browser.wait_for(&failed, LIMIT, "the newest failed runs").await;
    let page = rows(&browser).await;
    assert_eq!(page.len(), 50);
    assert!(page.iter().all(|(_, status)| status == "failed"), "{page:?}");
    browser.click("#next-page").await;
    let next = format!("return document.querySelector('tr[data-run]')?.dataset.run === '{}'", seed(99_490));
    browser.wait_for(&next, LIMIT, "the next page of failed runs").await;
    assert!(rows(&browser).await.iter().all(|(_, status)| status == "failed"));
    browser.screenshot("runs-failed-page-2").await;

    // Every request for runs asked for one page, never for everything.
    let asked =
        "return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.includes('/runs?'))";
    let asked = browser.eval(asked).await;
    let asked: Vec<&str> = asked.as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(!asked.is_empty() && asked.iter().all(|url| url.contains("limit=50")), "{asked:?}");
}
