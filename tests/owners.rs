//! Owners through the real binary, on both backends: another owner's
//! objects answer 404 on every operation of the OpenAPI document, exactly as
//! IDs of nothing do, and nothing changes; lists and tails show the caller's
//! own work (an admin's show everyone's); what a run makes (fleet tasks,
//! formation nodes, sub-agents' runs, a schedule's ticks) belongs to its
//! submitter; a shared agent, fleet or formation is used by every owner and
//! changed only by its own owner or an admin; a new object that names
//! another owner's unshared one is refused as if that one did not exist.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::{Api, Backend, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

const TOKEN: &str = "wm-test-token-owners-5c3a";
const LIMIT: Duration = Duration::from_secs(60);

/// An ID no resource has.
const NO_SUCH_ID: &str = "01JNOSUCHRESOURCE000000000";

/// The route roots whose `{id}` names an object with an owner.
const OWNED: [&str; 8] =
    ["agents", "sessions", "runs", "fleets", "fleet-runs", "formations", "formation-runs", "schedules"];

/// The route roots whose parameters name no owned object: keys, provider
/// names and credentials, secret names, workers, owners.
const NOT_OWNED: [&str; 5] = ["keys", "provider", "secrets", "workers", "owners"];

/// A server whose first admin is [`TOKEN`] (owner "admin").
fn keyed_env(backend: Backend) -> TestEnv {
    let mut env = TestEnv::on(backend);
    env.set("WINGMAN_AUTH_TOKEN", TOKEN);
    env
}

/// An agent whose run asks to `read` a file and waits for a person's
/// approval: it stays alive, holding no worker, as long as a test needs.
fn waiting_agent(name: &str) -> Value {
    let script = json!([{"tool_calls": [{"name": "read", "input": {"path": "missing.txt"}}]}, {"text": "read it"}]);
    json!({"name": name, "tools": ["read"], "approve_tools": ["read"], "options": {"script": script}})
}

/// An agent that answers with the message it is sent.
fn echo_agent(name: &str) -> Value {
    json!({"name": name})
}

/// POSTs `body` to `path`, which must make something (201 or 202).
async fn make(api: &Api, path: &str, body: Value) -> Value {
    let (status, answer) = api.post(path, body.clone()).await;
    assert!(status == 201 || status == 202, "POST {path} {body}: {status} {answer}");
    answer
}

fn text(value: &Value, field: &str) -> String {
    value[field].as_str().unwrap_or_else(|| panic!("no {field} in {value}")).to_string()
}

/// One owner's work: an object of each kind, every run in it waiting for a
/// person, so that nothing changes by itself while a test looks.
struct Work {
    agent: String,
    session: String,
    run: String,
    /// The call the message's run waits on.
    call: String,
    fleet: String,
    fleet_run: String,
    formation: String,
    formation_run: String,
    schedule: String,
}

impl Work {
    /// The object of this work that a route root names.
    fn id_for(&self, root: &str) -> &str {
        match root {
            "agents" => &self.agent,
            "sessions" => &self.session,
            "runs" => &self.run,
            "fleets" => &self.fleet,
            "fleet-runs" => &self.fleet_run,
            "formations" => &self.formation,
            "formation-runs" => &self.formation_run,
            "schedules" => &self.schedule,
            other => panic!("no object of /{other} in this work"),
        }
    }

    /// Every ID of this work.
    fn ids(&self) -> Vec<&str> {
        OWNED.iter().map(|root| self.id_for(root)).collect()
    }
}

/// Makes an agent, a session with a message, a fleet with a fleet run, a
/// formation with a formation run and a schedule, all through `api`, and
/// waits until each run waits for a person.
async fn make_work(api: &Api, name: &str) -> Work {
    let agent = api.create_agent(waiting_agent(name)).await;
    let session = api.create_session(&agent, None).await;
    let run = api.send(&session, "read the file").await;
    let fleet = text(&make(api, "/fleets", json!({"name": name, "agent_id": agent, "worker_count": 1})).await, "id");
    let tasks = json!({"tasks": [{"message": "read the file"}]});
    let fleet_run = text(&make(api, &format!("/fleets/{fleet}/run"), tasks).await, "fleet_run_id");
    let graph = json!({"name": name, "nodes": [{"id": "ask", "agent_id": agent}], "edges": []});
    let formation = text(&make(api, "/formations", graph).await, "id");
    let input = json!({"input": "read the file"});
    let formation_run = text(&make(api, &format!("/formations/{formation}/run"), input).await, "formation_run_id");
    // Its first tick is months away: nothing ticks while a test looks.
    let every = json!({"name": name, "every": "366d", "target": {"session_id": session, "message": "tick"}});
    let schedule = text(&make(api, "/schedules", every).await, "id");
    api.wait_waiting(&run, LIMIT).await;
    wait_listed_waiting(api, &format!("fleet_run_id={fleet_run}"), 1).await;
    wait_listed_waiting(api, &format!("formation_run_id={formation_run}"), 1).await;
    let events = api.events(&run).await;
    let asked = events.iter().find(|e| e["type"] == "approval_requested").expect("the run asked for approval");
    let call = text(&asked["calls"][0], "call_id");
    Work { agent, session, run, call, fleet, fleet_run, formation, formation_run, schedule }
}

/// Polls `GET /runs?{filter}` until it lists `n` runs, each waiting.
async fn wait_listed_waiting(api: &Api, filter: &str, n: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let (status, page) = api.get(&format!("/runs?{filter}")).await;
        assert_eq!(status, 200, "GET /runs?{filter}: {status} {page}");
        let runs = page["runs"].as_array().cloned().unwrap_or_default();
        if runs.len() == n && runs.iter().all(|r| r["status"] == "waiting") {
            return runs;
        }
        assert!(start.elapsed() < LIMIT, "GET /runs?{filter}: never {n} waiting runs: {page}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Polls a fleet run until it has ended.
async fn wait_fleet_run(api: &Api, id: &str) -> Value {
    let start = Instant::now();
    loop {
        let (status, run) = api.get(&format!("/fleet-runs/{id}?limit=1")).await;
        assert_eq!(status, 200, "GET /fleet-runs/{id}: {status} {run}");
        if matches!(run["status"].as_str(), Some("succeeded" | "failed" | "cancelled")) {
            return run;
        }
        assert!(start.elapsed() < LIMIT, "fleet run {id} never ended: {run}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The items of a list answer: a plain array, or the page's one array
/// (`runs`, `fleet_runs`, `formation_runs`).
fn items(list: &Value) -> Vec<Value> {
    match list {
        Value::Array(items) => items.clone(),
        Value::Object(page) => page.values().find_map(Value::as_array).cloned().unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The IDs a list answer shows.
fn listed_ids(list: &Value) -> BTreeSet<String> {
    items(list).iter().filter_map(|item| item["id"].as_str()).map(str::to_string).collect()
}

/// Sends a request, and fails the test if it does not answer within 30 s
/// (a stream opened on an object the caller should not see never ends).
async fn answer(api: &Api, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let request = api.request(method.clone(), path, body);
    tokio::time::timeout(Duration::from_secs(30), request)
        .await
        .unwrap_or_else(|_| panic!("{method} {path} did not answer within 30 s"))
}

/// Opens an SSE tail of `path`: its status and, unless it is a stream (a
/// 200, dropped unread), its body.
async fn tail(api: &Api, path: &str) -> (u16, String) {
    let request = api.http.get(format!("{}{path}", api.base)).header("Accept", "text/event-stream").send();
    let response = tokio::time::timeout(Duration::from_secs(30), request)
        .await
        .unwrap_or_else(|_| panic!("SSE GET {path} did not answer within 30 s"))
        .unwrap_or_else(|e| panic!("SSE GET {path}: {e}"));
    let status = response.status().as_u16();
    if status == 200 {
        return (status, String::new());
    }
    (status, response.text().await.unwrap_or_default())
}

async fn document(api: &Api) -> Value {
    let (status, document) = api.get("/openapi.json").await;
    assert_eq!(status, 200, "GET /openapi.json: {status} {document}");
    document
}

/// The document's operations on one owned object, as (method, template):
/// every path with a parameter, but those whose parameter names no owned
/// object. A new root with a parameter fails the test until it is sorted
/// into one list or the other, so that no route escapes the rule unseen.
fn owned_operations(document: &Value) -> Vec<(Method, String)> {
    let mut found = Vec::new();
    for (template, item) in document["paths"].as_object().expect("paths") {
        if !template.contains('{') {
            continue;
        }
        let root = root_of(template);
        if NOT_OWNED.contains(&root) {
            continue;
        }
        assert!(
            OWNED.contains(&root),
            "{template}: is its parameter an owned object? Add /{root} to OWNED or NOT_OWNED"
        );
        for method in item.as_object().expect("a path item").keys() {
            found.push((Method::from_bytes(method.to_uppercase().as_bytes()).unwrap(), template.clone()));
        }
    }
    found
}

/// A path's first segment: `runs` of `/runs/{id}/events?after=1`.
fn root_of(path: &str) -> &str {
    path.trim_start_matches('/').split(['/', '?']).next().unwrap_or("")
}

/// A template with its `{id}` filled in.
fn fill(template: &str, id: &str) -> String {
    let path = template.replace("{id}", id);
    assert!(!path.contains('{'), "{template} has a parameter besides {{id}}: fill it here");
    path
}

/// A body the operation would take on the caller's own object, where it
/// takes one: so that the ownership of the object in the path is the only
/// reason left to refuse it. `call` is the call the run in the path waits
/// on; `own_session` a session of the caller's, for a schedule's target.
fn body_for(document: &Value, method: &Method, template: &str, call: &str, own_session: &str) -> Option<Value> {
    let operation = &document["paths"][template][method.as_str().to_lowercase()];
    if !operation["requestBody"].is_object() {
        return None;
    }
    let body = match (method.as_str(), template) {
        ("PUT", "/agents/{id}") => json!({"name": "taken over"}),
        ("PUT", "/fleets/{id}") => json!({"name": "taken over", "worker_count": 2}),
        ("POST", "/fleets/{id}/run" | "/fleets/{id}/run/stream") => json!({"tasks": [{"message": "more work"}]}),
        ("POST", "/formations/{id}/run") => json!({"input": "more work"}),
        ("PUT", "/sessions/{id}") => json!({"title": "taken over"}),
        ("POST", "/sessions/{id}/message" | "/sessions/{id}/message/stream") => json!({"message": "more work"}),
        ("POST", "/runs/{id}/approve") => json!({"decisions": [{"call_id": call, "decision": "approve"}]}),
        ("POST", "/runs/{id}/tool-results") => json!({"results": []}),
        ("POST", "/runs/{id}/steer") => json!({"message": "stop that"}),
        ("POST", "/sessions/{id}/rewind") => json!({"to": call}),
        ("PUT", "/schedules/{id}") => {
            json!({"name": "taken over", "every": "1s", "target": {"session_id": own_session, "message": "tick"}})
        }
        // Any other operation (compacting, pausing, a route added later):
        // the empty body the document's walk in tests/openapi.rs sends.
        _ => json!({}),
    };
    Some(body)
}

/// Everything a refused request could change, read by the admin, with the
/// waiting run of `work` and its log.
async fn everything(admin: &Api, work: &Work) -> Value {
    let mut all = json!({});
    for path in [
        "/agents",
        "/sessions",
        "/runs?limit=500",
        "/fleets",
        "/fleet-runs",
        "/formations",
        "/formation-runs",
        "/schedules",
        "/secrets",
        "/provider/auth",
        "/provider/limits",
        "/keys",
    ] {
        let (status, body) = admin.get(path).await;
        assert_eq!(status, 200, "the admin's GET {path}: {status} {body}");
        all[path] = body;
    }
    all["the run"] = admin.run(&work.run).await;
    all["its events"] = json!(admin.events(&work.run).await.len());
    all
}

/// Asserts each part of the admin's view is as it was.
fn assert_unchanged(before: &Value, after: &Value, who: &str) {
    for (part, was) in before.as_object().unwrap() {
        assert_eq!(&after[part], was, "{who}'s requests changed {part}");
    }
}

/// Walks every owned operation of the document on `work`'s objects as
/// `caller`, and on IDs of nothing as well: each answer must be one that
/// `allowed` takes, and the same as the answer about nothing (the object's
/// ID read as the ID of nothing), so that it tells nothing of what exists.
async fn walk_as(
    caller: &Api,
    who: &str,
    document: &Value,
    work: &Work,
    own_session: &str,
    allowed: impl Fn(&Method, u16) -> bool,
) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    for (method, template) in owned_operations(document) {
        let root = root_of(&template);
        let id = work.id_for(root);
        let (path, nowhere) = (fill(&template, id), fill(&template, NO_SUCH_ID));
        let body = body_for(document, &method, &template, &work.call, own_session);
        let (status, got) = answer(caller, method.clone(), &path, body.clone()).await;
        let (no_status, nothing) = answer(caller, method.clone(), &nowhere, body.clone()).await;
        let shown = format!("{who}'s {method} {path} (body {body:?}): {status} {got}");
        assert!(allowed(&method, status), "{shown}");
        let as_nothing: Value = serde_json::from_str(&got.to_string().replace(id, NO_SUCH_ID)).unwrap();
        assert_eq!(
            (status, &as_nothing),
            (no_status, &nothing),
            "{shown}; the same request on an ID of nothing answers {no_status} {nothing}"
        );
        if method == Method::GET && template.ends_with("/events") {
            let (status, body) = tail(caller, &path).await;
            assert!(allowed(&method, status), "{who}'s SSE tail GET {path}: {status} {body}");
        }
        roots.insert(root.to_string());
    }
    roots
}

on_both_backends! {
    async fn another_owners_ids_are_a_404_on_every_documented_operation_and_change_nothing(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(1);
        let admin = server.api_with_token(TOKEN);
        let alpha = admin.key_for("alpha", "member").await;
        let beta = admin.key_for("beta", "member").await;
        let gamma = admin.key_for("gamma", "reader").await;
        let work = make_work(&alpha, "alpha's").await;
        // Beta's own session, for the schedule it would put in place of alpha's.
        let beta_agent = beta.create_agent(echo_agent("beta's")).await;
        let beta_session = beta.create_session(&beta_agent, None).await;
        let document = document(&admin).await;

        // Alpha reads every one of them: the IDs filled in name real objects.
        for (method, template) in owned_operations(&document).into_iter().filter(|(m, _)| *m == Method::GET) {
            let path = fill(&template, work.id_for(root_of(&template)));
            let (status, body) = answer(&alpha, method.clone(), &path, None).await;
            assert_eq!(status, 200, "alpha's own {method} {path}: {status} {body}");
        }

        let before = everything(&admin, &work).await;
        let walked = walk_as(&beta, "beta", &document, &work, &beta_session, |_, status| status == 404).await;
        let every_kind: BTreeSet<String> = OWNED.iter().map(|r| r.to_string()).collect();
        assert_eq!(walked, every_kind, "every kind of object was walked");
        assert_unchanged(&before, &everything(&admin, &work).await, "beta");
        // A reader's write may be refused for its role before the object is
        // looked up: a 403 tells nothing of the object either.
        let reader_may = |method: &Method, status: u16| status == 404 || (method != Method::GET && status == 403);
        walk_as(&gamma, "gamma", &document, &work, &beta_session, reader_may).await;
        assert_unchanged(&before, &everything(&admin, &work).await, "gamma");

        let run = alpha.run(&work.run).await;
        assert_eq!(run["status"], "waiting", "alpha's run still waits for alpha: {run}");
        // The decision beta sent was a good one: alpha's own is taken.
        let decisions = json!({"decisions": [{"call_id": work.call, "decision": "approve"}]});
        let (status, body) = alpha.post(&format!("/runs/{}/approve", work.run), decisions).await;
        assert_eq!(status, 202, "alpha's own POST /runs/{}/approve: {status} {body}", work.run);
        let run = alpha.wait_terminal(&work.run, LIMIT).await;
        assert_eq!(run["status"], "succeeded", "{run}");
    }

    async fn lists_and_tails_show_only_the_callers_own_work(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(1);
        let admin = server.api_with_token(TOKEN);
        let alpha = admin.key_for("alpha", "member").await;
        let beta = admin.key_for("beta", "member").await;
        let alphas = make_work(&alpha, "alpha's").await;
        let betas = make_work(&beta, "beta's").await;
        let admins = admin.create_agent(echo_agent("the admin's")).await;

        let lists = [
            "/agents",
            "/sessions",
            "/runs?limit=500",
            "/runs?status=waiting&limit=500",
            "/fleets",
            "/fleet-runs",
            "/formations",
            "/formation-runs",
            "/schedules",
        ];
        for (caller, who, own, other) in [(&alpha, "alpha", &alphas, &betas), (&beta, "beta", &betas, &alphas)] {
            for path in lists {
                let (status, list) = caller.get(path).await;
                assert_eq!(status, 200, "{who}'s GET {path}: {status} {list}");
                let ids = listed_ids(&list);
                let own_id = own.id_for(root_of(path));
                assert!(ids.contains(own_id), "{who}'s GET {path} lacks its own {own_id}: {list}");
                let others: Vec<&str> = other.ids().into_iter().filter(|id| ids.contains(*id)).collect();
                assert!(others.is_empty(), "{who}'s GET {path} shows another owner's {others:?}: {list}");
                assert!(!ids.contains(&admins), "{who}'s GET {path} shows the admin's agent: {list}");
                for item in items(&list) {
                    assert_eq!(item["owner"], who, "{who}'s GET {path} shows an item of another owner: {item}");
                }
            }
        }
        for path in lists {
            let (status, list) = admin.get(path).await;
            assert_eq!(status, 200, "the admin's GET {path}: {status} {list}");
            let shown = items(&list);
            for (who, work) in [("alpha", &alphas), ("beta", &betas)] {
                let id = work.id_for(root_of(path));
                let item = shown.iter().find(|item| item["id"] == id);
                let item = item.unwrap_or_else(|| panic!("the admin's GET {path} lacks {who}'s {id}: {list}"));
                assert_eq!(item["owner"], who, "the admin's GET {path}: {item}");
            }
        }
        for (who, work) in [("alpha", &alphas), ("beta", &betas)] {
            for root in OWNED {
                let path = format!("/{root}/{}", work.id_for(root));
                let (status, object) = admin.get(&path).await;
                assert_eq!((status, &object["owner"]), (200, &json!(who)), "the admin's GET {path}: {status} {object}");
            }
        }
        let (_, agent) = admin.get(&format!("/agents/{admins}")).await;
        assert_eq!(agent["owner"], "admin", "the token's owner is \"admin\": {agent}");

        // A client cannot make something in another owner's name.
        let (status, made) = beta.post("/agents", json!({"name": "impostor", "owner": "alpha"})).await;
        assert!(status == 201 || status == 422, "beta's POST /agents naming owner alpha: {status} {made}");
        if status == 201 {
            assert_eq!(made["owner"], "beta", "beta's POST /agents naming owner alpha: {made}");
        }
        let (_, listed) = alpha.get("/agents").await;
        assert!(items(&listed).iter().all(|a| a["name"] != "impostor"), "alpha's GET /agents: {listed}");

        // Tails: another owner's is a 404, as if it did not exist; one's own streams.
        for path in [
            format!("/runs/{}/events", betas.run),
            format!("/fleet-runs/{}/events", betas.fleet_run),
            format!("/formation-runs/{}/events", betas.formation_run),
        ] {
            let (status, body) = tail(&alpha, &path).await;
            assert_eq!(status, 404, "alpha's SSE tail GET {path}: {status} {body}");
            let (status, body) = tail(&beta, &path).await;
            assert_eq!(status, 200, "beta's own SSE tail GET {path}: {status} {body}");
        }
        let (events, _) = alpha.sse_read_at(&format!("/runs/{}/events", alphas.run), None, Some(1)).await;
        assert_eq!(events.first().map(|e| e["seq"].clone()), Some(json!(1)), "alpha's own tail: {events:?}");
    }

    async fn what_a_run_makes_belongs_to_its_submitter(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(2);
        let admin = server.api_with_token(TOKEN);
        let alpha = admin.key_for("alpha", "member").await;
        let beta = admin.key_for("beta", "member").await;
        let echo = alpha.create_agent(echo_agent("echo")).await;
        // What made each run, and the run.
        let mut made: Vec<(String, Value)> = Vec::new();

        let three = json!({"name": "three", "agent_id": echo, "worker_count": 3});
        let fleet = text(&make(&alpha, "/fleets", three).await, "id");
        let tasks = json!({"tasks": [{"message": "one"}, {"message": "two"}, {"message": "three"}]});
        let fleet_run = text(&make(&alpha, &format!("/fleets/{fleet}/run"), tasks).await, "fleet_run_id");
        let ended = wait_fleet_run(&alpha, &fleet_run).await;
        assert_eq!((ended["status"].as_str(), ended["owner"].as_str()), (Some("succeeded"), Some("alpha")), "{ended}");
        let (_, page) = alpha.get(&format!("/runs?fleet_run_id={fleet_run}")).await;
        assert_eq!(items(&page).len(), 3, "GET /runs?fleet_run_id={fleet_run}: {page}");
        made.extend(items(&page).into_iter().map(|run| (format!("fleet run {fleet_run}"), run)));

        let chain = json!({"name": "chain",
            "nodes": [{"id": "first", "agent_id": echo}, {"id": "second", "agent_id": echo}],
            "edges": [{"from": "first", "to": "second"}]});
        let formation = text(&make(&alpha, "/formations", chain).await, "id");
        let path = format!("/formations/{formation}/run?wait=true");
        let (status, ended) = alpha.post(&path, json!({"input": "pass it on"})).await;
        assert_eq!((status, ended["status"].as_str()), (200, Some("succeeded")), "POST {path}: {status} {ended}");
        let formation_run = text(&ended, "formation_run_id");
        let (_, shown) = alpha.get(&format!("/formation-runs/{formation_run}")).await;
        assert_eq!(shown["owner"], "alpha", "GET /formation-runs/{formation_run}: {shown}");
        let (_, page) = alpha.get(&format!("/runs?formation_run_id={formation_run}")).await;
        assert_eq!(items(&page).len(), 2, "GET /runs?formation_run_id={formation_run}: {page}");
        made.extend(items(&page).into_iter().map(|run| (format!("formation run {formation_run}"), run)));

        let calls: Vec<Value> =
            ["look", "see"].iter().map(|t| json!({"name": "agent__researcher", "input": {"task": t}})).collect();
        let lead = alpha.create_agent(json!({"name": "lead", "subagents": [{"agent_id": echo, "name": "researcher"}],
            "options": {"script": [{"tool_calls": calls}, {"text": "both answered"}]}})).await;
        let lead_session = alpha.create_session(&lead, None).await;
        let parent = alpha.send(&lead_session, "find out").await;
        let ended = alpha.wait_terminal(&parent, LIMIT).await;
        assert_eq!((ended["status"].as_str(), ended["owner"].as_str()), (Some("succeeded"), Some("alpha")), "{ended}");
        let (_, page) = alpha.get(&format!("/runs?parent_run_id={parent}")).await;
        assert_eq!(items(&page).len(), 2, "GET /runs?parent_run_id={parent}: {page}");
        made.extend(items(&page).into_iter().map(|run| (format!("parent run {parent}"), run)));

        let ticking = alpha.create_session(&echo, None).await;
        let every = json!({"name": "each second", "every": "1s", "target": {"session_id": ticking, "message": "tick"}});
        let schedule = text(&make(&alpha, "/schedules", every).await, "id");
        let start = Instant::now();
        let tick_run = loop {
            let (_, ticks) = alpha.get(&format!("/schedules/{schedule}/runs")).await;
            if let Some(id) = items(&ticks).iter().find_map(|t| t["id"].as_str().map(str::to_string)) {
                break id;
            }
            assert!(start.elapsed() < LIMIT, "schedule {schedule} never ticked: {ticks}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        alpha.wait_terminal(&tick_run, LIMIT).await;
        let (status, paused) = alpha.post(&format!("/schedules/{schedule}/pause"), json!({})).await;
        assert_eq!(status, 200, "POST /schedules/{schedule}/pause: {paused}");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (_, ticks) = alpha.get(&format!("/schedules/{schedule}/runs")).await;
        for id in items(&ticks).iter().filter_map(|t| t["id"].as_str()) {
            made.push((format!("schedule {schedule}"), alpha.run(id).await));
        }

        let (_, listed) = beta.get("/runs?limit=500").await;
        let beta_runs = listed_ids(&listed);
        let (_, listed) = beta.get("/sessions").await;
        let beta_sessions = listed_ids(&listed);
        for (maker, run) in &made {
            let id = text(run, "id");
            assert_eq!(run["owner"], "alpha", "a run of {maker}: {run}");
            for path in [format!("/runs/{id}"), format!("/runs/{id}/events")] {
                let (status, body) = beta.get(&path).await;
                assert_eq!(status, 404, "beta's GET {path} (a run of {maker}): {status} {body}");
            }
            let (status, body) = tail(&beta, &format!("/runs/{id}/events")).await;
            assert_eq!(status, 404, "beta's SSE tail of {id} (a run of {maker}): {status} {body}");
            assert!(!beta_runs.contains(&id), "beta's GET /runs lists {id}, a run of {maker}");
            // A run without a session of its own (if any kind has none) has none to leak.
            let Some(session) = run["session_id"].as_str().map(str::to_string) else { continue };
            let (status, shown) = alpha.get(&format!("/sessions/{session}")).await;
            assert_eq!((status, &shown["owner"]), (200, &json!("alpha")), "the session of {id} ({maker}): {shown}");
            let (status, body) = beta.get(&format!("/sessions/{session}")).await;
            assert_eq!(status, 404, "beta's GET /sessions/{session} (of {id}, {maker}): {status} {body}");
            assert!(!beta_sessions.contains(&session), "beta's GET /sessions lists {session}, of {maker}");
        }
        for filter in [format!("fleet_run_id={fleet_run}"), format!("formation_run_id={formation_run}"),
                       format!("parent_run_id={parent}")] {
            let (status, page) = beta.get(&format!("/runs?{filter}")).await;
            let hidden = status == 404 || (status == 200 && items(&page).is_empty());
            assert!(hidden, "beta's GET /runs?{filter}: {status} {page}");
        }
        let makers: BTreeSet<&str> = made.iter().map(|(maker, _)| maker.split(' ').next().unwrap()).collect();
        assert_eq!(makers, ["fleet", "formation", "parent", "schedule"].into(), "every kind of maker made runs");
    }

    async fn a_shared_agent_is_used_by_every_owner_and_changed_only_by_its_own(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(2);
        let admin = server.api_with_token(TOKEN);
        let alpha = admin.key_for("alpha", "member").await;
        let beta = admin.key_for("beta", "member").await;
        let shared = make(&alpha, "/agents", json!({"name": "everyone's", "shared": true})).await;
        assert_eq!((&shared["shared"], &shared["owner"]), (&json!(true), &json!("alpha")), "{shared}");
        let shared = text(&shared, "id");
        let unshared = make(&alpha, "/agents", echo_agent("alpha's")).await;
        assert_eq!(unshared["shared"], false, "not shared unless asked: {unshared}");
        let unshared = text(&unshared, "id");

        let (_, listed) = beta.get("/agents").await;
        let ids = listed_ids(&listed);
        assert!(ids.contains(&shared) && !ids.contains(&unshared), "beta's GET /agents: {listed}");
        let (status, seen) = beta.get(&format!("/agents/{shared}")).await;
        assert_eq!((status, &seen["owner"]), (200, &json!("alpha")), "beta's GET /agents/{shared}: {status} {seen}");
        let (status, body) = beta.get(&format!("/agents/{unshared}")).await;
        assert_eq!(status, 404, "beta's GET /agents/{unshared}: {status} {body}");

        // Beta's work with alpha's shared agent is beta's.
        let session = make(&beta, "/sessions", json!({"agent_id": shared})).await;
        assert_eq!(session["owner"], "beta", "{session}");
        let session = text(&session, "id");
        let run = beta.send(&session, "hello from beta").await;
        let ended = beta.wait_terminal(&run, LIMIT).await;
        let outcome = (ended["status"].as_str(), ended["response"].as_str());
        assert_eq!(outcome, (Some("succeeded"), Some("hello from beta")), "{ended}");
        assert_eq!(ended["owner"], "beta", "{ended}");
        for path in [format!("/runs/{run}"), format!("/sessions/{session}")] {
            let (status, body) = alpha.get(&path).await;
            assert_eq!(status, 404, "alpha's GET {path} (beta's, with alpha's shared agent): {status} {body}");
        }
        let (_, listed) = alpha.get("/runs?limit=500").await;
        assert!(!listed_ids(&listed).contains(&run), "alpha's GET /runs lists beta's {run}: {listed}");
        let (status, body) = beta.post("/sessions", json!({"agent_id": unshared})).await;
        assert_eq!(status, 404, "beta's POST /sessions with alpha's unshared agent: {status} {body}");

        // Only its owner or an admin changes it.
        let (_, before) = alpha.get(&format!("/agents/{shared}")).await;
        let (status, body) = beta.put(&format!("/agents/{shared}"), json!({"name": "beta's now"})).await;
        assert_eq!(status, 403, "beta's PUT /agents/{shared}: {status} {body}");
        let (status, body) = beta.request(Method::DELETE, &format!("/agents/{shared}"), None).await;
        assert_eq!(status, 403, "beta's DELETE /agents/{shared}: {status} {body}");
        let after = alpha.get(&format!("/agents/{shared}")).await.1;
        assert_eq!(after, before, "beta's refused requests changed the agent");
        let (status, changed) = admin.put(&format!("/agents/{shared}"), json!({"name": "renamed by the admin"})).await;
        assert_eq!(status, 200, "the admin's PUT /agents/{shared}: {status} {changed}");
        let (name, owner) = (&changed["name"], &changed["owner"]);
        assert_eq!((name, owner), (&json!("renamed by the admin"), &json!("alpha")), "the admin's change: {changed}");
        let (status, changed) = alpha.put(&format!("/agents/{shared}"), json!({"name": "everyone's again"})).await;
        let name = &changed["name"];
        assert_eq!((status, name), (200, &json!("everyone's again")), "alpha's PUT /agents/{shared}: {changed}");

        // A shared fleet the same way: beta's fleet run on it is beta's.
        let fleet = make(&alpha, "/fleets", json!({"name": "everyone's", "agent_id": shared, "shared": true})).await;
        assert_eq!((&fleet["shared"], &fleet["owner"]), (&json!(true), &json!("alpha")), "{fleet}");
        let fleet = text(&fleet, "id");
        let private = text(&make(&alpha, "/fleets", json!({"name": "alpha's", "agent_id": shared})).await, "id");
        let (_, listed) = beta.get("/fleets").await;
        let ids = listed_ids(&listed);
        assert!(ids.contains(&fleet) && !ids.contains(&private), "beta's GET /fleets: {listed}");
        let tasks = json!({"tasks": [{"message": "one"}, {"message": "two"}]});
        let (status, body) = beta.post(&format!("/fleets/{private}/run"), tasks.clone()).await;
        assert_eq!(status, 404, "beta's POST /fleets/{private}/run (alpha's unshared fleet): {status} {body}");
        let fleet_run = text(&make(&beta, &format!("/fleets/{fleet}/run"), tasks).await, "fleet_run_id");
        let ended = wait_fleet_run(&beta, &fleet_run).await;
        assert_eq!((ended["status"].as_str(), ended["owner"].as_str()), (Some("succeeded"), Some("beta")), "{ended}");
        let (_, page) = beta.get(&format!("/runs?fleet_run_id={fleet_run}")).await;
        let task_runs = items(&page);
        assert_eq!(task_runs.len(), 2, "{page}");
        assert!(task_runs.iter().all(|r| r["owner"] == "beta"), "beta's fleet run's tasks are beta's: {page}");
        let (status, body) = alpha.get(&format!("/fleet-runs/{fleet_run}")).await;
        assert_eq!(status, 404, "alpha's GET /fleet-runs/{fleet_run} (beta's, on a shared fleet): {status} {body}");
        let (_, before) = alpha.get(&format!("/fleets/{fleet}")).await;
        let (status, body) = beta.put(&format!("/fleets/{fleet}"), json!({"name": "beta's now"})).await;
        assert_eq!(status, 403, "beta's PUT /fleets/{fleet}: {status} {body}");
        let (status, body) = beta.request(Method::DELETE, &format!("/fleets/{fleet}"), None).await;
        assert_eq!(status, 403, "beta's DELETE /fleets/{fleet}: {status} {body}");
        assert_eq!(alpha.get(&format!("/fleets/{fleet}")).await.1, before, "beta's refused requests changed the fleet");

        // And a shared formation: beta's formation run on it is beta's.
        let graph =
            json!({"name": "everyone's", "nodes": [{"id": "ask", "agent_id": shared}], "edges": [], "shared": true});
        let formation = make(&alpha, "/formations", graph).await;
        assert_eq!((&formation["shared"], &formation["owner"]), (&json!(true), &json!("alpha")), "{formation}");
        let formation = text(&formation, "id");
        let path = format!("/formations/{formation}/run?wait=true");
        let (status, ended) = beta.post(&path, json!({"input": "hello"})).await;
        let outcome = (status, ended["status"].as_str());
        assert_eq!(outcome, (200, Some("succeeded")), "beta's POST {path}: {status} {ended}");
        let formation_run = text(&ended, "formation_run_id");
        let (_, shown) = beta.get(&format!("/formation-runs/{formation_run}")).await;
        assert_eq!(shown["owner"], "beta", "{shown}");
        let (_, page) = beta.get(&format!("/runs?formation_run_id={formation_run}")).await;
        assert!(items(&page).len() == 1 && items(&page)[0]["owner"] == "beta", "{page}");
        let (status, body) = alpha.get(&format!("/formation-runs/{formation_run}")).await;
        assert_eq!(status, 404, "alpha's GET /formation-runs/{formation_run} (beta's): {status} {body}");
        let (status, body) = beta.request(Method::DELETE, &format!("/formations/{formation}"), None).await;
        assert_eq!(status, 403, "beta's DELETE /formations/{formation}: {status} {body}");
        assert_eq!(alpha.get(&format!("/formations/{formation}")).await.0, 200, "the formation is still there");

        // Unshared by its owner, the agent is alpha's alone again.
        let (status, changed) = alpha.put(&format!("/agents/{shared}"), json!({"shared": false})).await;
        assert_eq!((status, &changed["shared"]), (200, &json!(false)), "alpha's PUT /agents/{shared}: {changed}");
        let (status, body) = beta.get(&format!("/agents/{shared}")).await;
        assert_eq!(status, 404, "beta's GET /agents/{shared} once unshared: {status} {body}");
        let (_, listed) = beta.get("/agents").await;
        assert!(!listed_ids(&listed).contains(&shared), "beta's GET /agents once unshared: {listed}");
    }

    async fn naming_another_owners_unshared_object_in_a_new_one_is_a_404(backend: Backend) {
        let env = keyed_env(backend);
        let server = env.server(1);
        let admin = server.api_with_token(TOKEN);
        let alpha = admin.key_for("alpha", "member").await;
        let beta = admin.key_for("beta", "member").await;
        let work = make_work(&alpha, "alpha's").await;
        let own_agent = beta.create_agent(echo_agent("beta's")).await;
        let own_session = beta.create_session(&own_agent, None).await;
        let own_fleet = text(&make(&beta, "/fleets", json!({"name": "beta's", "agent_id": own_agent})).await, "id");
        let before = everything(&admin, &work).await;

        // Each request names one of alpha's objects (`{}` in it), and is
        // sent again naming an ID of nothing: both must answer alike.
        let requests: Vec<(Method, String, Value)> = vec![
            (Method::POST, "/sessions".into(), json!({"agent_id": "{}"})),
            (Method::POST, "/fleets".into(), json!({"name": "f", "agent_id": "{}"})),
            (Method::POST, "/formations".into(),
                json!({"name": "g", "nodes": [{"id": "a", "agent_id": "{}"}], "edges": []})),
            (Method::POST, "/formations".into(),
                json!({"name": "g", "nodes": [{"id": "a", "fleet_id": "{}"}], "edges": []})),
            (Method::POST, "/schedules".into(),
                json!({"name": "s", "every": "1s", "target": {"session_id": "{}", "message": "tick"}})),
            (Method::POST, "/schedules".into(),
                json!({"name": "s", "every": "1s", "target": {"fleet_id": "{}", "tasks": [{"message": "x"}]}})),
            (Method::POST, "/schedules".into(),
                json!({"name": "s", "every": "1s", "target": {"formation_id": "{}", "input": "x"}})),
            (Method::POST, format!("/sessions/{own_session}/message"), json!({"message": "hi", "agent_id": "{}"})),
            (Method::POST, format!("/sessions/{own_session}/compact"), json!({"agent_id": "{}"})),
            (Method::PUT, format!("/sessions/{own_session}"), json!({"agent_id": "{}"})),
            (Method::PUT, format!("/fleets/{own_fleet}"), json!({"agent_id": "{}"})),
        ];
        for (method, path, template) in requests {
            let named = naming(&template, &work);
            let body = serde_json::from_str::<Value>(&template.to_string().replace("{}", named)).unwrap();
            let nothing = serde_json::from_str::<Value>(&template.to_string().replace("{}", NO_SUCH_ID)).unwrap();
            let (status, got) = answer(&beta, method.clone(), &path, Some(body.clone())).await;
            assert_eq!(status, 404, "beta's {method} {path} {body}: {status} {got}");
            let (no_status, expected) = answer(&beta, method.clone(), &path, Some(nothing)).await;
            let as_nothing: Value = serde_json::from_str(&got.to_string().replace(named, NO_SUCH_ID)).unwrap();
            assert_eq!((status, &as_nothing), (no_status, &expected),
                "beta's {method} {path} {body} answers unlike the same request naming nothing");
        }
        // A sub-agent of another owner's agent is refused as an agent of nothing is.
        let lead = |id: &str| json!({"name": "lead", "subagents": [{"agent_id": id, "name": "helper"}]});
        let (status, got) = beta.post("/agents", lead(work.agent.as_str())).await;
        let (no_status, expected) = beta.post("/agents", lead(NO_SUCH_ID)).await;
        assert!(status >= 400, "beta's POST /agents with alpha's agent as a sub-agent: {status} {got}");
        let as_nothing: Value = serde_json::from_str(&got.to_string().replace(&work.agent, NO_SUCH_ID)).unwrap();
        assert_eq!((status, &as_nothing), (no_status, &expected), "a sub-agent of alpha's agent, then of nothing");
        assert_unchanged(&before, &everything(&admin, &work).await, "beta");
    }
}

/// Which of `work`'s objects a request body's `{}` stands for, by the
/// field that holds it.
fn naming<'a>(template: &Value, work: &'a Work) -> &'a str {
    let text = template.to_string();
    if text.contains(r#""session_id":"{}""#) {
        &work.session
    } else if text.contains(r#""fleet_id":"{}""#) {
        &work.fleet
    } else if text.contains(r#""formation_id":"{}""#) {
        &work.formation
    } else {
        &work.agent
    }
}
