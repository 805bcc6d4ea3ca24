//! Free-form JSON as the API accepts it: any value, but no NUL character in
//! any string or key, at any depth. The two schemas refer to each other by
//! name, so each registers the other with the document.
//!
//! `AnyJson` says it with `if`/`then`/`else` rather than as a union of the
//! six kinds of JSON value: client generators read a schema with neither a
//! `type` nor a union as "any value" (`Any` in Python, `unknown` in
//! TypeScript), where a union that refers to itself is a model some of them
//! cannot build, and a schema without a `type` but with `items` or
//! `additionalProperties` at its top is taken for an object. The constraint
//! is the same: `pattern` only ever applies to strings, `items` to arrays,
//! `propertyNames` and `additionalProperties` to objects.

use serde_json::json;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::NO_NUL;

/// Any JSON value whose strings and keys hold no NUL character, at any
/// depth: what a field of free-form JSON accepts.
pub struct AnyJson;

impl PartialSchema for AnyJson {
    fn schema() -> RefOr<Schema> {
        let any_json = json!({ "$ref": "#/components/schemas/AnyJson" });
        let inside = json!({
            "items": any_json,
            "propertyNames": { "type": "string", "pattern": NO_NUL },
            "additionalProperties": any_json,
        });
        // utoipa's schema has no `if`, `then` or `else`; its extensions are
        // written flat into the schema's object, so they carry the three.
        let conditions = Extensions::from_iter([
            ("if", json!({ "type": "string" })),
            ("then", json!({ "pattern": NO_NUL })),
            ("else", inside),
        ]);
        ObjectBuilder::new()
            .schema_type(SchemaType::AnyValue)
            .description(Some("Any JSON without NUL characters in its strings and keys"))
            .extensions(Some(conditions))
            .into()
    }
}

impl ToSchema for AnyJson {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push(("JsonObject".into(), JsonObject::schema()));
    }
}

/// A JSON object whose keys and values hold no NUL character, at any depth.
pub struct JsonObject;

impl PartialSchema for JsonObject {
    fn schema() -> RefOr<Schema> {
        let key = ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property_names(Some(key))
            .additional_properties(Some(RefOr::Ref(Ref::from_schema_name("AnyJson"))))
            .description(Some("A JSON object without NUL characters in its strings and keys"))
            .into()
    }
}

impl ToSchema for JsonObject {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push(("AnyJson".into(), AnyJson::schema()));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// Whether `schema` accepts `value`, with both JSON schemas beside it.
    fn accepts(schema: RefOr<Schema>, value: &Value) -> bool {
        let mut schema = serde_json::to_value(schema).unwrap();
        let components = json!({"AnyJson": AnyJson::schema(), "JsonObject": JsonObject::schema()});
        schema["components"] = json!({ "schemas": components });
        crate::api::schemas::validates(schema, value)
    }

    #[test]
    fn free_form_json_is_any_json_without_nul_at_any_depth() {
        let nested = json!({"a": [1, 2.5, "x", true, null, {"b": {"c": []}}]});
        assert!(accepts(AnyJson::schema(), &nested) && accepts(JsonObject::schema(), &nested));
        assert!(accepts(AnyJson::schema(), &json!("text")) && !accepts(JsonObject::schema(), &json!("text")));
        for refused in [json!({"a": [{"b": "x\u{0}"}]}), json!({"k\u{0}": 1}), json!(["\u{0}"]), json!("\u{0}")] {
            assert!(!accepts(AnyJson::schema(), &refused), "{refused}");
        }
        for scalar in [json!(1), json!(-2.5), json!(true), json!(null), json!([]), json!({})] {
            assert!(accepts(AnyJson::schema(), &scalar), "{scalar}");
        }
    }

    /// What client generators need to read `AnyJson` as "any value": no
    /// `type` and no union at its top.
    #[test]
    fn free_form_json_has_no_type_and_no_union_at_its_top() {
        let schema = serde_json::to_value(AnyJson::schema()).unwrap();
        for keyword in ["type", "anyOf", "oneOf", "allOf", "items", "additionalProperties", "properties"] {
            assert!(schema.get(keyword).is_none(), "{keyword} in {schema}");
        }
    }
}
