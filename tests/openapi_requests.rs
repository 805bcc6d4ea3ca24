//! The request schemas of `GET /openapi.json` say what the handlers accept:
//! a request the real server refuses for its input (400 or 422) is one the
//! document's schema refuses too, and a request it accepts is one the schema
//! allows. A client or a test generator that follows the document then sends
//! what the API takes.

mod common;

use common::{Api, TestEnv};
use reqwest::Method;
use serde_json::{json, Value};

/// `schema`, a request body's or a parameter's from the document, with the
/// document's schemas as `$defs`, compiled.
fn compile(document: &Value, schema: &Value) -> (boon::Schemas, boon::SchemaIndex) {
    let mut schema = schema.clone();
    assert!(schema.is_object(), "no schema");
    schema["$defs"] = document["components"]["schemas"].clone();
    let text = schema.to_string().replace("#/components/schemas/", "#/$defs/");
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource("urn:wingman:request", serde_json::from_str(&text).unwrap()).unwrap();
    let index = compiler.compile("urn:wingman:request", &mut schemas).unwrap_or_else(|e| panic!("{e:#}"));
    (schemas, index)
}

/// Whether the document's schema of the JSON body of `method template` allows `body`.
fn body_fits(document: &Value, method: &str, template: &str, body: &Value) -> bool {
    let operation = &document["paths"][template][method];
    let (schemas, index) = compile(document, &operation["requestBody"]["content"]["application/json"]["schema"]);
    schemas.validate(body, index).is_ok()
}

/// Sends `body` and asserts the answer's status is `expected` and that the
/// document's schema allows the body exactly when the server took it.
async fn check(api: &Api, document: &Value, (method, template, path): (&str, &str, &str), body: Value, expected: u16) {
    let verb = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
    let (status, answer) = api.request(verb, path, Some(body.clone())).await;
    assert_eq!(status, expected, "{method} {path} {body}: {answer}");
    let refused = status == 400 || status == 422;
    assert_eq!(body_fits(document, method, template, &body), !refused, "{method} {template}: {body} got {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_the_handlers_refuse_are_refused_by_the_document() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let (_, doc) = api.get("/openapi.json").await;
    let agents = ("post", "/agents", "/agents");
    check(&api, &doc, agents, json!({}), 422).await;
    check(&api, &doc, agents, json!({"name": " "}), 400).await;
    check(&api, &doc, agents, json!({"name": "a", "provider": "openai"}), 400).await;
    check(&api, &doc, agents, json!({"name": "a", "tools": ["nope"]}), 400).await;
    check(&api, &doc, agents, json!({"name": "a", "options": {"k": "a\u{0}b"}}), 400).await;
    check(&api, &doc, agents, json!({"name": "a", "provider": "openai", "model": "gpt-5"}), 201).await;
    let agent = api.create_agent(json!({"name": "echo"})).await;
    let fleets = ("post", "/fleets", "/fleets");
    check(&api, &doc, fleets, json!({"name": "f"}), 422).await;
    check(&api, &doc, fleets, json!({"name": "f", "agent_id": agent}), 201).await;
    let session = api.create_session(&agent, None).await;
    let message = ("post", "/sessions/{id}/message", &*format!("/sessions/{session}/message"));
    check(&api, &doc, message, json!({"message": " \n"}), 400).await;
    check(&api, &doc, message, json!({"message": "hi"}), 202).await;
    let run = api.send(&session, "hi").await;
    let steer = ("post", "/runs/{id}/steer", &*format!("/runs/{run}/steer"));
    check(&api, &doc, steer, json!({"message": ""}), 400).await;
    let approve = ("post", "/runs/{id}/approve", &*format!("/runs/{run}/approve"));
    let decision = json!({"call_id": "c", "decision": "edit", "input": {"path": "\u{0}"}});
    check(&api, &doc, approve, json!({"decisions": [decision]}), 400).await;
    let auth = ("put", "/provider/auth", "/provider/auth");
    check(&api, &doc, auth, json!({"providers": {}}), 422).await;
    check(&api, &doc, auth, json!({"providers": {"nope": {"type": "api_key", "key": "k"}}}), 400).await;
    check(&api, &doc, auth, json!({"providers": {"openai": {"type": "api_key", "key": "a b"}}}), 400).await;
    check(&api, &doc, auth, json!({"providers": {"openai:work": {"type": "api_key", "key": "sk-1"}}}), 200).await;
    let secret = ("put", "/secrets/{name}", "/secrets/A_SECRET");
    check(&api, &doc, secret, json!({}), 422).await;
    check(&api, &doc, secret, json!({"value": 7}), 422).await;
    check(&api, &doc, secret, json!({"value": "v", "extra": 1}), 422).await;
    check(&api, &doc, secret, json!({"value": ""}), 400).await;
    check(&api, &doc, secret, json!({"value": "a\u{0}b"}), 400).await;
    check(&api, &doc, secret, json!({"value": " two\nlines "}), 200).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_name_the_handler_refuses_is_refused_by_its_parameter() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let (_, doc) = api.get("/openapi.json").await;
    let parameter = &doc["paths"]["/provider/auth/{provider}"]["delete"]["parameters"][0];
    let (schemas, index) = compile(&doc, &parameter["schema"]);
    for (name, expected) in [("nope", 400), ("openai:Work", 400), ("scripted", 400), ("openai:none-stored", 404)] {
        let (status, answer) = api.request(Method::DELETE, &format!("/provider/auth/{name}"), None).await;
        assert_eq!(status, expected, "{name}: {answer}");
        assert_eq!(schemas.validate(&json!(name), index).is_ok(), status != 400, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_name_the_handler_refuses_is_refused_by_its_parameter() {
    let env = TestEnv::new();
    let server = env.server(0);
    let api = server.api();
    let (_, doc) = api.get("/openapi.json").await;
    let long = "n".repeat(129);
    for method in ["put", "delete"] {
        let parameter = &doc["paths"]["/secrets/{name}"][method]["parameters"][0];
        let (schemas, index) = compile(&doc, &parameter["schema"]);
        for (name, path) in
            [("a b", "a%20b"), ("a:b", "a:b"), ("é", "%C3%A9"), (&long, &long), ("NONE_STORED", "NONE_STORED")]
        {
            let verb = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let (status, answer) = api.request(verb, &format!("/secrets/{path}"), Some(json!({"value": "v"}))).await;
            // The good name is stored by the PUT, then deleted.
            let expected = if name == "NONE_STORED" { 200 } else { 400 };
            assert_eq!(status, expected, "{method} {name}: {answer}");
            assert_eq!(schemas.validate(&json!(name), index).is_ok(), status != 400, "{name}");
        }
    }
}
