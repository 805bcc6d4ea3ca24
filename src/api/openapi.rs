//! The OpenAPI 3.1 document of the API, served at `GET /openapi.json`.
//!
//! It is generated from the code: every handler carries a `#[utoipa::path]`
//! annotation (method, path, parameters, body, answers) and is registered
//! through utoipa-axum's `OpenApiRouter` with `routes!`, which adds it to the
//! router and to the document in one step, so a route cannot be served
//! without being described. The answers every route shares (a wrong token, a
//! refused `Host`, an unreachable database, a body that is not JSON) are
//! added here once, by [`complete`], rather than repeated on each handler.

use axum::http::{header, Method};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use bytes::Bytes;
use utoipa::openapi::path::Operation;
use utoipa::openapi::schema::{Schema, SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, OpenApi as Document, Ref, RefOr, Required, ResponseBuilder};
use utoipa::{Modify, OpenApi, PartialSchema};

use super::bearer::OPEN_PATHS;
use super::cors::RouteMethods;
use super::error::ErrorBody;
use super::order::ListOrder;
use super::schemas::{self, AnyJson, Id, IdempotencyKey, JsonObject, Seq};

/// The document's fixed parts; the paths come from the router.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Wingman",
        description = "A durable job-queue orchestrator for LLM agents. docs/api.md describes every route."
    ),
    security(("bearer" = [])),
    modifiers(&BearerScheme),
    components(schemas(ErrorBody, ListOrder, Id, Seq, IdempotencyKey, AnyJson, JsonObject)),
    tags(
        (name = "health", description = "Liveness, readiness and this document"),
        (name = "providers", description = "The provider and model catalogue, and provider credentials"),
        (name = "keys", description = "API keys: each opens the API for one owner, with one role"),
        (name = "owners", description = "Owners' quotas, and what their runs used by day"),
        (name = "secrets", description = "Write-only values that MCP servers' `env` and `headers` refer to"),
        (name = "agents", description = "Agents: a provider, a model, instructions and tools"),
        (name = "sessions", description = "Conversations with a working directory and a history"),
        (name = "runs", description = "Messages as durable jobs: submitting, reading, tailing, cancelling"),
        (name = "people", description = "People in the loop: approving tool calls, steering runs"),
        (name = "fleets", description = "One agent fanned out over many tasks"),
        (name = "fleet-runs", description = "Submissions of tasks to a fleet"),
        (name = "formations", description = "Graphs of agents, fleets and functions"),
        (name = "formation-runs", description = "Runs of a formation: each node started once its inputs are stored"),
    )
)]
pub struct ApiDoc;

/// The bearer token of `--auth-token`, named `bearer` in the document.
struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, document: &mut Document) {
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "The server's --auth-token (WINGMAN_AUTH_TOKEN), or an API key (`POST /keys`). Asked for only \
                 when the server runs with a token or has a live key; GET /health never asks for it.",
            ))
            .build();
        let components = document.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// The answers every route may give whatever it does, by status, and
/// whether they apply to a route without a token (`/health`) and to a
/// route with no body.
const SHARED: &[(&str, &str, Applies)] = &[
    (
        "400",
        "Malformed JSON, a refused value (text with a NUL character anywhere, in a body or the query) or bad query parameters",
        Applies::WithInput,
    ),
    (
        "401",
        "With --auth-token or a live API key: no `Authorization: Bearer <token or key>`, or one that is neither",
        Applies::WithToken,
    ),
    (
        "403",
        "A `Host` the server does not answer to, a state-changing request from a page of another origin, or a key whose role may not make the request (a reader's change; a member's request to an admin's route)",
        Applies::All,
    ),
    ("413", "A body over the limit (--max-body-bytes)", Applies::WithBody),
    ("415", "A body that declares another type than JSON", Applies::WithBody),
    ("422", "JSON that does not fit the request's shape (a missing, mistyped or unknown field)", Applies::WithBody),
    ("503", "The database cannot be reached; the same request may succeed shortly (`Retry-After: 1`)", Applies::All),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Applies {
    All,
    WithToken,
    WithInput,
    WithBody,
}

/// Adds the shared answers to every operation (each as a reference to one
/// response of the components, `{"error": …}`), and says that the routes
/// the token check lets through (`/health`) need no token. Called once the router has registered every route.
pub fn complete(document: &mut Document) {
    let components = document.components.get_or_insert_with(Default::default);
    schemas::merge_tagged_variants(&mut components.schemas);
    for (status, description, _) in SHARED {
        let response = ResponseBuilder::new()
            .description(*description)
            .content("application/json", Content::new(Some(ErrorBody::schema())))
            .build();
        components.responses.insert(response_name(status), RefOr::T(response));
    }
    for (path, item) in document.paths.paths.iter_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
            &mut item.head,
            &mut item.options,
        ];
        for operation in operations.into_iter().flatten() {
            let open = OPEN_PATHS.contains(&path.as_str());
            if open {
                // An empty list lifts the document's bearer requirement.
                operation.security = Some(Vec::new());
            }
            optional_body(operation);
            parameters_not_null(operation);
            add_shared(operation, open);
        }
    }
}

/// A body a handler takes as `request_body = Option<T>` may be left out (an
/// empty body reads as `{}`), but is never `null`: utoipa writes it as
/// `oneOf: [T, null]`, which is turned into `T`, not required.
fn optional_body(operation: &mut Operation) {
    let Some(RefOr::T(body)) = operation.request_body.as_mut() else { return };
    for content in body.content.values_mut() {
        let RefOr::T(content) = content else { continue };
        let Some(RefOr::T(Schema::OneOf(one_of))) = &content.schema else { continue };
        let mut items = one_of.items.iter().filter(|item| !is_null(item));
        if let (Some(item), None, 2) = (items.next(), items.next(), one_of.items.len()) {
            content.schema = Some(item.clone());
            body.required = Some(Required::False);
        }
    }
}

/// A parameter is a value or absent, never `null`: utoipa writes an
/// optional header's schema as `T` or `null`, and a client that sends the
/// text `null` as a number is refused.
fn parameters_not_null(operation: &mut Operation) {
    for parameter in operation.parameters.iter_mut().flatten() {
        let RefOr::T(parameter) = parameter else { continue };
        if let Some(schema) = parameter.schema.take() {
            parameter.schema = Some(schemas::not_null(schema));
        }
    }
}

fn is_null(schema: &RefOr<Schema>) -> bool {
    matches!(schema, RefOr::T(Schema::Object(object)) if object.schema_type == SchemaType::Type(Type::Null))
}

fn add_shared(operation: &mut Operation, open: bool) {
    let has_body = operation.request_body.is_some();
    let has_input = has_body || operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
    for (status, _, applies) in SHARED {
        let applies = match applies {
            Applies::All => true,
            Applies::WithToken => !open,
            Applies::WithInput => has_input,
            Applies::WithBody => has_body,
        };
        if applies && !operation.responses.responses.contains_key(*status) {
            let reference = Ref::from_response_name(response_name(status));
            operation.responses.responses.insert(status.to_string(), RefOr::Ref(reference));
        }
    }
}

/// The methods of every path of the document, for the `Allow` of `OPTIONS`.
pub fn route_methods(document: &Document) -> RouteMethods {
    RouteMethods::new(document.paths.paths.iter().map(|(path, item)| {
        let operations = [
            (Method::GET, &item.get),
            (Method::PUT, &item.put),
            (Method::POST, &item.post),
            (Method::DELETE, &item.delete),
            (Method::PATCH, &item.patch),
        ];
        let methods = operations.into_iter().filter(|(_, op)| op.is_some()).map(|(m, _)| m).collect();
        (path.as_str(), methods)
    }))
}

fn response_name(status: &str) -> String {
    format!("Error{status}")
}

/// The document as served: serialized once when the router is built.
#[derive(Clone)]
pub struct Served(Bytes);

impl Served {
    /// Serializes the finished document (at start-up: a document that
    /// cannot be written is a bug of the build, not of a request).
    pub fn new(document: &Document) -> Served {
        Served(Bytes::from(stable_json(document).to_string()))
    }
}

/// The document as JSON with every object's keys in order: utoipa keeps a
/// schema's extensions (which carry `AnyJson`'s `if`, `then` and `else`) in
/// a hash map, whose order changes from one process to the next, and
/// clients generated from the document must come out the same each time.
pub fn stable_json(document: &Document) -> serde_json::Value {
    // serde_json's maps are ordered by key (the crate is built without
    // `preserve_order`), so a round trip through a `Value` orders them.
    serde_json::to_value(document).expect("the OpenAPI document serializes")
}

/// The OpenAPI 3.1 document of every route.
#[utoipa::path(
    get,
    path = "/openapi.json",
    tag = "health",
    operation_id = "openapi",
    responses((status = 200, description = "This document", content_type = "application/json", body = Object))
)]
pub async fn document(Extension(served): Extension<Served>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], served.0).into_response()
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    fn document() -> Value {
        serde_json::to_value(super::super::document()).unwrap()
    }

    /// Each build of the document has hash maps of its own (each with its
    /// own random order), so equal text from several builds means the
    /// order does not come from them.
    #[test]
    fn the_document_is_written_the_same_each_time() {
        let written = || super::stable_json(&super::super::document()).to_string();
        let first = written();
        assert!(first.contains(r#""if":{"type":"string"}"#), "AnyJson's conditions are in it");
        for _ in 0..8 {
            assert_eq!(written(), first);
        }
    }

    #[test]
    fn every_operation_names_itself_its_parameters_and_a_success() {
        let document = document();
        for (path, item) in document["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let at = format!("{method} {path}");
                assert!(operation["operationId"].is_string() && operation["tags"][0].is_string(), "{at}");
                let responses = operation["responses"].as_object().unwrap();
                assert!(responses.keys().any(|s| s.starts_with('2')), "{at} documents no success");
                for name in path.split('/').filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')) {
                    let declared = operation["parameters"].as_array().into_iter().flatten();
                    let declared = declared.filter(|p| p["in"] == "path" && p["name"] == name).count();
                    assert_eq!(declared, 1, "{at} declares {{{name}}} once");
                }
            }
        }
    }

    #[test]
    fn bodies_that_refuse_unknown_fields_say_so_and_optional_bodies_are_not_null() {
        let document = document();
        let schemas = &document["components"]["schemas"];
        let bodies = ["AgentFields", "SessionFields", "FleetFields", "NewFleet", "MessageBody", "RunBody", "TaskBody"];
        for name in bodies.into_iter().chain(["PutBody", "SteerBody", "ApproveBody"]) {
            assert_eq!(schemas[name]["additionalProperties"], false, "{name}");
        }
        assert_eq!(schemas["NewAgent"]["allOf"][0]["additionalProperties"], false);
        let body = &document["paths"]["/sessions"]["post"]["requestBody"];
        assert_eq!(body["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/SessionFields");
        assert_eq!(body["required"], false, "an empty body is fine: {body}");
        assert_eq!(document["paths"]["/agents"]["post"]["requestBody"]["required"], true);
    }
}
