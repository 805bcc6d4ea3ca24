//! Free-form JSON as the API accepts it: any value, but no NUL character in
//! any string or key, at any depth. The two schemas refer to each other by
//! name, so each registers the other with the document.

use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use super::NO_NUL;

/// Any JSON value whose strings and keys hold no NUL character, at any
/// depth: what a field of free-form JSON accepts.
pub struct AnyJson;

impl PartialSchema for AnyJson {
    fn schema() -> RefOr<Schema> {
        let scalars = SchemaType::from_iter([Type::Number, Type::Boolean, Type::Null]);
        AnyOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL)))
            .item(ObjectBuilder::new().schema_type(scalars))
            .item(ArrayBuilder::new().items(RefOr::Ref(Ref::from_schema_name("AnyJson"))))
            .item(RefOr::Ref(Ref::from_schema_name("JsonObject")))
            .description(Some("Any JSON without NUL characters in its strings and keys"))
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
        for refused in [json!({"a": [{"b": "x\u{0}"}]}), json!({"k\u{0}": 1}), json!(["\u{0}"])] {
            assert!(!accepts(AnyJson::schema(), &refused), "{refused}");
        }
    }
}
