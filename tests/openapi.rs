//! `GET /openapi.json`: the OpenAPI 3.1 document of every route, checked
//! against the real server both ways. Every route of the test suites' own
//! list is documented, every documented operation is served (not "no such
//! route", not 405), and real answers, read with real IDs, fit the schemas
//! the document gives for their status.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::routes::every_route;
use common::{Api, Backend, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

/// An ID no resource has.
const NO_SUCH_ID: &str = "01JNOSUCHRESOURCE000000000";

/// The document's operations, as (method, path template).
fn operations(document: &Value) -> BTreeSet<(String, String)> {
    let mut all = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            all.insert((method.to_uppercase(), path.clone()));
        }
    }
    all
}

/// The template a concrete path was made from: `{…}` matches one segment.
fn template_of<'a>(templates: impl Iterator<Item = &'a String>, path: &str) -> Option<String> {
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let matches = |template: &str| {
        let parts: Vec<&str> = template.split('/').collect();
        parts.len() == segments.len()
            && parts.iter().zip(&segments).all(|(t, s)| (t.starts_with('{') && !s.is_empty()) || t == s)
    };
    // A literal segment wins over a parameter (`/provider/auth` over `/provider/{id}`).
    let mut found: Vec<&String> = templates.filter(|t| matches(t)).collect();
    found.sort_by_key(|t| t.matches('{').count());
    found.first().map(|t| t.to_string())
}

/// The resources a test made, for the path parameters of the document.
struct Ids {
    agent: String,
    session: String,
    run: String,
    fleet: String,
    fleet_run: String,
    formation: String,
    formation_run: String,
    schedule: String,
}

/// A template with its parameters filled in: with `ids`, or with IDs of
/// nothing when `ids` is `None`.
fn fill(template: &str, ids: Option<&Ids>) -> String {
    let id = match (template.split('/').nth(1), ids) {
        (_, None) => NO_SUCH_ID,
        (Some("agents"), Some(ids)) => &ids.agent,
        (Some("sessions"), Some(ids)) => &ids.session,
        (Some("runs"), Some(ids)) => &ids.run,
        (Some("fleets"), Some(ids)) => &ids.fleet,
        (Some("fleet-runs"), Some(ids)) => &ids.fleet_run,
        (Some("formations"), Some(ids)) => &ids.formation,
        (Some("formation-runs"), Some(ids)) => &ids.formation_run,
        (Some("schedules"), Some(ids)) => &ids.schedule,
        _ => "scripted",
    };
    template
        .replace("{id}", id)
        .replace("{model}", "echo")
        .replace("{provider}", "openai")
        .replace("{name}", "A_SECRET")
        .replace("{owner}", "admin")
}

/// The schema the document gives for `status` of an operation, with the
/// document's schemas as `$defs`, so that a JSON Schema validator reads it alone.
fn response_schema(document: &Value, method: &str, template: &str, status: u16) -> Value {
    let operation = &document["paths"][template][method.to_lowercase()];
    let mut response = operation["responses"][status.to_string()].clone();
    assert!(response.is_object(), "{method} {template} documents no {status}");
    if let Some(reference) = response["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap();
        response = document["components"]["responses"][name].clone();
    }
    let mut schema = response["content"]["application/json"]["schema"].clone();
    assert!(schema.is_object(), "{method} {template} {status} has no JSON schema: {response}");
    schema["$defs"] = document["components"]["schemas"].clone();
    let text = schema.to_string().replace("#/components/schemas/", "#/$defs/");
    serde_json::from_str(&text).unwrap()
}

/// Asserts that `body` fits the schema the document gives for its status.
fn assert_fits(document: &Value, method: &str, template: &str, status: u16, body: &Value) {
    let schema = response_schema(document, method, template, status);
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler.add_resource("urn:wingman:answer", schema).unwrap();
    let index = compiler.compile("urn:wingman:answer", &mut schemas).unwrap_or_else(|e| panic!("{e:#}"));
    if let Err(e) = schemas.validate(body, index) {
        panic!("{method} {template} answered {status} with a body its schema refuses: {e:#}\n{body:#}");
    }
}

/// Sends a request and checks the answer against the document.
async fn checked(api: &Api, document: &Value, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let templates = document["paths"].as_object().unwrap().keys();
    let template = template_of(templates, path).unwrap_or_else(|| panic!("{path} is not documented"));
    let (status, answer) = api.request(method.clone(), path, body).await;
    assert_fits(document, method.as_str(), &template, status, &answer);
    (status, answer)
}

async fn document(api: &Api) -> Value {
    let (status, document) = api.get("/openapi.json").await;
    assert_eq!(status, 200, "{document}");
    document
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_is_openapi_3_1_with_the_crate_version_and_the_bearer_scheme() {
    let env = TestEnv::new();
    let server = env.server(0);
    let document = document(&server.api()).await;
    assert_eq!(document["openapi"], "3.1.0");
    assert_eq!(document["info"]["version"], env!("CARGO_PKG_VERSION"));
    let bearer = &document["components"]["securitySchemes"]["bearer"];
    assert_eq!((bearer["type"].as_str(), bearer["scheme"].as_str()), (Some("http"), Some("bearer")), "{bearer}");
    assert_eq!(document["security"], json!([{"bearer": []}]));
    assert_eq!(document["paths"]["/health"]["get"]["security"], json!([]), "/health asks for no token");
    let ids: Vec<&Value> = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .map(|operation| &operation["operationId"])
        .collect();
    let unique: BTreeSet<String> = ids.iter().map(|id| id.as_str().expect("an operationId").to_string()).collect();
    assert_eq!(unique.len(), ids.len(), "operationIds are unique");
}

/// Every `$ref` of `value` with where it was found, as (JSON pointer, reference).
fn references(value: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(object) => {
            for (key, item) in object {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                match (key.as_str(), item) {
                    ("$ref", Value::String(reference)) => found.push((here, reference.clone())),
                    _ => references(item, &here, found),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                references(item, &format!("{at}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reference_in_the_document_resolves() {
    let env = TestEnv::new();
    let server = env.server(0);
    let document = document(&server.api()).await;
    let mut found = Vec::new();
    references(&document, "", &mut found);
    assert!(found.len() > 10, "the document refers to its components: {found:?}");
    let dangling: Vec<String> = found
        .iter()
        .filter(|(_, reference)| {
            let target = reference.strip_prefix('#').filter(|pointer| pointer.starts_with("/components/"));
            target.and_then(|pointer| document.pointer(pointer)).is_none()
        })
        .map(|(at, reference)| format!("{at} -> {reference}"))
        .collect();
    assert!(dangling.is_empty(), "references that name nothing in the document's components:\n{}", dangling.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_is_documented_and_every_documented_operation_is_served() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let document = document(&api).await;
    let documented = operations(&document);
    let templates: Vec<String> = documented.iter().map(|(_, t)| t.clone()).collect();
    let mut listed = BTreeSet::new();
    for (method, path, _) in every_route(NO_SUCH_ID, NO_SUCH_ID, NO_SUCH_ID) {
        if path == "/no/such/route" {
            continue;
        }
        let template =
            template_of(templates.iter(), &path).unwrap_or_else(|| panic!("{method} {path} is not documented"));
        let operation = (method.to_string(), template);
        assert!(documented.contains(&operation), "{method} {path} is not documented as {operation:?}");
        listed.insert(operation);
    }
    assert_eq!(listed, documented, "the tests' list of routes and the document name the same operations");
    for (method, template) in &documented {
        let path = fill(template, None);
        let body = document["paths"][template][method.to_lowercase()]["requestBody"].is_object().then(|| json!({}));
        let (status, answer) = api.request(Method::from_bytes(method.as_bytes()).unwrap(), &path, body).await;
        assert_ne!(status, 405, "{method} {path}: {answer}");
        assert!(!(status == 404 && answer["error"] == "no such route"), "{method} {path} is not served");
        assert!(status < 500, "{method} {path}: {status} {answer}");
    }
    // OPTIONS is answered before routing, but its `Allow` is the route's own.
    for template in templates.iter().collect::<BTreeSet<_>>() {
        let path = fill(template, None);
        let response = api.http.request(Method::OPTIONS, format!("{}{path}", api.base)).send().await.unwrap();
        let allow = response.headers()["allow"].to_str().unwrap().to_string();
        let allowed: BTreeSet<&str> = allow.split(", ").collect();
        let mut expected: BTreeSet<&str> =
            documented.iter().filter(|(_, t)| t == template).map(|(m, _)| m.as_str()).collect();
        if expected.contains("GET") {
            expected.insert("HEAD");
        }
        expected.insert("OPTIONS");
        assert_eq!(allowed, expected, "OPTIONS {path}");
    }
}

/// A scripted agent whose run calls `read` once (a file that is not there:
/// an error result), then answers.
fn reading_agent(approve: bool) -> Value {
    let script = json!([{"tool_calls": [{"name": "read", "input": {"path": "missing.txt"}}]}, {"text": "read it"}]);
    let approve_tools = if approve { json!(["read"]) } else { json!([]) };
    json!({"name": "reader", "tools": ["read"], "options": {"script": script}, "approve_tools": approve_tools})
}

on_both_backends! {
    async fn real_answers_fit_the_document(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(2);
        let api = server.api();
        let doc = document(&api).await;
        let wait = Duration::from_secs(30);
        let (status, agent) = checked(&api, &doc, Method::POST, "/agents", Some(reading_agent(false))).await;
        assert_eq!(status, 201);
        let agent = agent["id"].as_str().unwrap().to_string();
        let (_, session) = checked(&api, &doc, Method::POST, "/sessions", Some(json!({"agent_id": agent}))).await;
        let session = session["id"].as_str().unwrap().to_string();
        let message = json!({"message": "read the file"});
        let (status, accepted) =
            checked(&api, &doc, Method::POST, &format!("/sessions/{session}/message"), Some(message.clone())).await;
        assert_eq!(status, 202);
        let run = accepted["run_id"].as_str().unwrap().to_string();
        api.wait_terminal(&run, wait).await;
        let path = format!("/sessions/{session}/message?wait=true");
        let (status, result) = checked(&api, &doc, Method::POST, &path, Some(message)).await;
        assert_eq!((status, result["tool_calls"][0]["is_error"].as_bool()), (200, Some(true)), "{result}");

        let (_, fleet) =
            checked(&api, &doc, Method::POST, "/fleets", Some(json!({"name": "f", "agent_id": agent}))).await;
        let fleet = fleet["id"].as_str().unwrap().to_string();
        let tasks = json!({"tasks": [{"message": "one", "data": {"n": 1}}, {"message": "two"}]});
        let (status, fleet_run) =
            checked(&api, &doc, Method::POST, &format!("/fleets/{fleet}/run"), Some(tasks.clone())).await;
        assert_eq!(status, 202);
        let fleet_run = fleet_run["fleet_run_id"].as_str().unwrap().to_string();
        let (status, results) =
            checked(&api, &doc, Method::POST, &format!("/fleets/{fleet}/run?wait=true"), Some(tasks)).await;
        assert_eq!((status, results.as_array().map(Vec::len)), (200, Some(2)), "{results}");

        let nodes = json!({"name": "chain", "nodes": [{"id": "first", "agent_id": agent},
            {"id": "quoted", "function": "template", "args": {"template": "«{{input}}»"}}, {"id": "fan", "fleet_id": fleet},
            {"id": "second", "agent_id": agent}],
            "edges": [{"from": "first", "to": "quoted"}, {"from": "quoted", "to": "second"}]});
        let (status, formation) = checked(&api, &doc, Method::POST, "/formations", Some(nodes)).await;
        assert_eq!(status, 201, "{formation}");
        let formation = formation["id"].as_str().unwrap().to_string();
        let input = json!({"input": ["a list for the fleet node", "and text for the agent"]});
        let (status, formation_run) =
            checked(&api, &doc, Method::POST, &format!("/formations/{formation}/run"), Some(input.clone())).await;
        assert_eq!(status, 202, "{formation_run}");
        let formation_run = formation_run["formation_run_id"].as_str().unwrap().to_string();
        let (status, ended) =
            checked(&api, &doc, Method::POST, &format!("/formations/{formation}/run?wait=true"), Some(input)).await;
        assert_eq!((status, ended["status"].as_str()), (200, Some("succeeded")), "{ended}");

        let key = json!({"providers": {"anthropic": {"type": "api_key", "key": "sk-test-0123456789abcdef"}}});
        checked(&api, &doc, Method::PUT, "/provider/auth", Some(key)).await;
        let (status, _) =
            checked(&api, &doc, Method::PUT, "/secrets/A_SECRET", Some(json!({"value": "s3cret value"}))).await;
        assert_eq!(status, 200);
        let (_, ticking) = checked(&api, &doc, Method::POST, "/sessions", Some(json!({"agent_id": agent}))).await;
        let every = json!({"name": "each second", "every": "1s", "overlap": "enqueue",
            "target": {"session_id": ticking["id"], "message": "tick"}});
        let (status, schedule) = checked(&api, &doc, Method::POST, "/schedules", Some(every)).await;
        assert_eq!(status, 201, "{schedule}");
        let schedule = schedule["id"].as_str().unwrap().to_string();
        let cron = json!({"name": "weekdays", "cron": "0 30 9 * * MON-FRI", "timezone": "Europe/Paris",
            "target": {"fleet_id": fleet, "tasks": [{"message": "report"}]}});
        let (status, _) = checked(&api, &doc, Method::POST, "/schedules", Some(cron)).await;
        assert_eq!(status, 201);
        let formation_target = json!({"name": "hourly", "every": "1h",
            "target": {"formation_id": formation, "input": ["a", "b"]}});
        let (status, _) = checked(&api, &doc, Method::POST, "/schedules", Some(formation_target)).await;
        assert_eq!(status, 201);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let (status, _) = checked(&api, &doc, Method::POST, &format!("/schedules/{schedule}/pause"), None).await;
        assert_eq!(status, 200);
        let ids = Ids { agent, session, run, fleet, fleet_run, formation, formation_run, schedule };
        let fleet_run_path = format!("/fleet-runs/{}", ids.fleet_run);
        for _ in 0..200 {
            if api.get(&fleet_run_path).await.1["finished_at"].is_string() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Every JSON answer; `/metrics` is text, parsed by tests/metrics.rs.
        for (method, template) in operations(&doc).into_iter().filter(|(m, t)| m == "GET" && t != "/metrics") {
            let (status, answer) = checked(&api, &doc, Method::GET, &fill(&template, Some(&ids)), None).await;
            assert_eq!(status, 200, "GET {template}: {answer}");
            if template.ends_with("/{id}/events") {
                assert!(answer.as_array().is_some_and(|a| !a.is_empty()), "{method} {template}: {answer}");
            }
        }
        let history = api.get(&format!("/sessions/{}", ids.session)).await.1["history"].clone();
        let types: Vec<&str> = history.as_array().unwrap().iter().flat_map(|m| m["content"].as_array().unwrap())
            .filter_map(|block| block["type"].as_str()).collect();
        assert!(types.contains(&"tool_use") && types.contains(&"tool_result"), "the history checked has tools: {history}");
    }

    async fn a_waiting_run_and_the_decisions_on_it_fit_the_document(backend: Backend) {
        let env = TestEnv::on(backend);
        let server = env.server(2);
        let api = server.api();
        let doc = document(&api).await;
        let agent = api.create_agent(reading_agent(true)).await;
        let session = api.create_session(&agent, None).await;
        let path = format!("/sessions/{session}/message?wait=true");
        let (status, waiting) = checked(&api, &doc, Method::POST, &path, Some(json!({"message": "read"}))).await;
        assert_eq!((status, waiting["status"].as_str()), (200, Some("waiting")), "{waiting}");
        let run = waiting["run_id"].as_str().unwrap().to_string();
        let call = waiting["approval"]["calls"][0]["call_id"].as_str().unwrap().to_string();
        let decisions = json!({"decisions": [{"call_id": call, "decision": "approve"}]});
        let (status, _) = checked(&api, &doc, Method::POST, &format!("/runs/{run}/approve"), Some(decisions)).await;
        assert_eq!(status, 202);
        api.wait_terminal(&run, Duration::from_secs(30)).await;
        let (status, _) = checked(&api, &doc, Method::POST, &format!("/runs/{run}/cancel"), None).await;
        assert_eq!(status, 409, "a finished run");
        let (status, _) = checked(&api, &doc, Method::POST, &format!("/runs/{run}/steer"), Some(json!({"message": "x"}))).await;
        assert_eq!(status, 409, "a finished run");
        checked(&api, &doc, Method::GET, &format!("/runs/{run}/events"), None).await;
        let (status, _) = checked(&api, &doc, Method::PUT, "/secrets/A_SECRET", Some(json!({"value": "v"}))).await;
        assert_eq!(status, 200);
        let (status, _) = checked(&api, &doc, Method::PUT, "/secrets/A_SECRET", Some(json!({"value": ""}))).await;
        assert_eq!(status, 400);
        let (key, secret) = ("/provider/auth/anthropic".to_string(), "/secrets/A_SECRET".to_string());
        for path in [format!("/agents/{agent}"), format!("/sessions/{session}"), key, secret] {
            checked(&api, &doc, Method::DELETE, &path, None).await;
        }
        let (status, _) = checked(&api, &doc, Method::DELETE, "/secrets/A_SECRET", None).await;
        assert_eq!(status, 404);
    }
}

/// Everything a refused request could change, read by the admin.
async fn everything(admin: &Api) -> Value {
    let mut all = json!({});
    for path in [
        "/agents",
        "/sessions",
        "/runs",
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
        all[path] = admin.get(path).await.1;
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_is_held_to_its_rights_on_every_documented_operation() {
    let token = "wm-test-token-roles-77b2";
    let mut env = TestEnv::new();
    env.set("WINGMAN_AUTH_TOKEN", token);
    let server = env.server(0);
    let admin = server.api_with_token(token);
    let mut keys = Vec::new();
    for role in ["reader", "member"] {
        let (status, made) = admin.post("/keys", json!({"owner": format!("a-{role}"), "role": role})).await;
        assert_eq!(status, 201, "{made}");
        keys.push(admin.with_key(made["key"].as_str().unwrap()));
    }
    let (reader, member) = (&keys[0], &keys[1]);
    let document = document(&admin).await;
    let admin_only =
        |path: &str| ["/keys", "/workers", "/metrics", "/queue", "/audit"].iter().any(|root| path.starts_with(root));
    // Provider limits are every owner's, and quotas bind their owner: an admin sets both.
    let shared = |path: &str| path.starts_with("/provider/limits") || path.starts_with("/owners");
    // Walked from the document, so that a new route is held to the rules by default.
    let walk = |caller: &'static str| -> Vec<(Method, String, Option<Value>, bool)> {
        let operations = operations(&document).into_iter();
        let requests = operations.map(|(method, template)| {
            let path = fill(&template, None);
            let body =
                document["paths"][&template][method.to_lowercase()]["requestBody"].is_object().then(|| json!({}));
            let may = match (caller, method == "GET") {
                (_, _) if admin_only(&template) => false,
                ("reader", reads) => reads,
                (_, reads) => reads || !shared(&template),
            };
            (Method::from_bytes(method.as_bytes()).unwrap(), path, body, may)
        });
        requests.collect()
    };
    let before = everything(&admin).await;
    for (method, path, body, may) in walk("reader") {
        let (status, answer) = reader.request(method.clone(), &path, body).await;
        assert_eq!(status == 403, !may, "a reader's {method} {path}: {status} {answer}");
    }
    assert_eq!(everything(&admin).await, before, "a reader's requests changed something");
    for (method, path, body, may) in walk("member") {
        let (status, answer) = member.request(method.clone(), &path, body).await;
        assert_eq!(status == 403, !may, "a member's {method} {path}: {status} {answer}");
        if status == 403 {
            assert!(answer["error"].as_str().is_some_and(|e| e.contains("admin")), "{answer}");
        }
    }
    let after = everything(&admin).await;
    for path in ["/secrets", "/provider/auth", "/provider/limits", "/keys"] {
        assert_eq!(after[path], before[path], "a member's refused request changed {path}");
    }
}
