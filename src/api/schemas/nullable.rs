//! Optional fields and `null`: a field that may be left out also reads
//! `null` as left out, so its schema allows `null`; a `POST` that requires
//! some of the fields its `PUT` makes optional takes `null` from them again.

use serde_json::Value;
use utoipa::openapi::schema::{Schema, SchemaType, Type};
use utoipa::openapi::RefOr;

/// `schema` or `null`: a field that may be left out reads `null` as left out.
pub fn or_null(schema: Schema) -> Schema {
    match schema {
        Schema::Object(mut object) => {
            object.schema_type = with_null(object.schema_type, true);
            if let Some(values) = object.enum_values.as_mut() {
                values.push(Value::Null);
            }
            Schema::Object(object)
        }
        Schema::Array(mut array) => {
            array.schema_type = with_null(array.schema_type, true);
            Schema::Array(array)
        }
        other => other,
    }
}

/// `schema` without `null`, for a field that must be given.
pub fn not_null(schema: RefOr<Schema>) -> RefOr<Schema> {
    let schema = match schema {
        RefOr::T(schema) => schema,
        reference => return reference,
    };
    RefOr::T(match schema {
        // What utoipa writes for an optional reference: `oneOf: [null, T]`.
        Schema::OneOf(mut one_of) => {
            one_of.items.retain(
                |item| !matches!(item, RefOr::T(Schema::Object(o)) if o.schema_type == SchemaType::Type(Type::Null)),
            );
            match one_of.items.len() {
                1 => return one_of.items.remove(0),
                _ => Schema::OneOf(one_of),
            }
        }
        Schema::Object(mut object) => {
            object.schema_type = with_null(object.schema_type, false);
            if let Some(values) = object.enum_values.as_mut() {
                values.retain(|v| !v.is_null());
            }
            Schema::Object(object)
        }
        Schema::Array(mut array) => {
            array.schema_type = with_null(array.schema_type, false);
            Schema::Array(array)
        }
        other => other,
    })
}

/// A schema's types with `null` added or taken away.
fn with_null(schema_type: SchemaType, null: bool) -> SchemaType {
    let mut types = match schema_type {
        SchemaType::Type(t) => vec![t],
        SchemaType::Array(types) => types,
        SchemaType::AnyValue => return SchemaType::AnyValue,
    };
    types.retain(|t| *t != Type::Null);
    if null {
        types.push(Type::Null);
    }
    match types.as_slice() {
        [single] => SchemaType::Type(single.clone()),
        _ => SchemaType::Array(types),
    }
}

/// `schema`, an object, with `fields` required (and not `null`) and
/// `description`: the body of a `POST` whose `PUT` takes the same fields,
/// all optional.
pub fn requiring(schema: RefOr<Schema>, fields: &[&str], description: &str) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = schema else { return schema };
    for field in fields {
        if !object.required.iter().any(|r| r == field) {
            object.required.push(field.to_string());
        }
        if let Some(property) = object.properties.get_mut(*field) {
            *property = not_null(property.clone());
        }
    }
    object.description = Some(description.to_string());
    RefOr::T(Schema::Object(object))
}

/// A definition's fields as a `POST` takes them: without `version`, which
/// names what a change is made over and so only a `PUT` takes.
pub fn without_version(schema: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = schema else { return schema };
    object.properties.remove("version");
    object.required.retain(|r| r != "version");
    RefOr::T(Schema::Object(object))
}
