//! Tagged variants written as one object each. For a variant of an
//! internally tagged enum that holds another type (`Compaction(Marker)` of
//! `Content`), utoipa writes `allOf: [{"$ref": "…/Marker"}, {"type": {…}}]`;
//! client generators that build one model per member of a union cannot
//! take an `allOf` as a member. [`merge_tagged_variants`] writes each such
//! member as the one object it means: the referred object's properties and
//! required fields with the tag's added.

use std::collections::BTreeMap;

use utoipa::openapi::schema::{Object, Schema};
use utoipa::openapi::RefOr;

/// Rewrites every `allOf` of a reference to an object schema and an inline
/// object that is a member of a component's `oneOf`, as one object.
pub fn merge_tagged_variants(schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    let objects: BTreeMap<String, Object> = schemas
        .iter()
        .filter_map(|(name, schema)| match schema {
            RefOr::T(Schema::Object(object)) => Some((name.clone(), object.clone())),
            _ => None,
        })
        .collect();
    for schema in schemas.values_mut() {
        let RefOr::T(Schema::OneOf(union)) = schema else { continue };
        for member in union.items.iter_mut() {
            if let Some(merged) = merged_variant(member, &objects) {
                *member = RefOr::T(Schema::Object(merged));
            }
        }
    }
}

/// The one object `member` means, when it is `allOf` of a reference to one
/// of `objects` and an inline object (in either order).
fn merged_variant(member: &RefOr<Schema>, objects: &BTreeMap<String, Object>) -> Option<Object> {
    let RefOr::T(Schema::AllOf(all)) = member else { return None };
    let [first, second] = all.items.as_slice() else { return None };
    let (reference, tag) = match (first, second) {
        (RefOr::Ref(reference), RefOr::T(Schema::Object(tag)))
        | (RefOr::T(Schema::Object(tag)), RefOr::Ref(reference)) => (reference, tag),
        _ => return None,
    };
    let name = reference.ref_location.strip_prefix("#/components/schemas/")?;
    let mut merged = objects.get(name)?.clone();
    for (property, schema) in &tag.properties {
        merged.properties.insert(property.clone(), schema.clone());
    }
    for field in &tag.required {
        if !merged.required.contains(field) {
            merged.required.push(field.clone());
        }
    }
    merged.description = all.description.clone().or(merged.description);
    Some(merged)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_compaction_block_is_one_object_with_the_markers_fields_and_its_tag() {
        let document = serde_json::to_value(crate::api::document()).unwrap();
        let schemas = &document["components"]["schemas"];
        let members = schemas["Content"]["oneOf"].as_array().unwrap();
        assert!(members.iter().all(|m| m.get("allOf").is_none() && m["type"] == "object"), "{members:?}");
        let compaction = members.iter().find(|m| m["properties"]["type"]["enum"] == json!(["compaction"])).unwrap();
        let required = compaction["required"].as_array().unwrap();
        assert!(required.contains(&json!("type")));
        for (field, _) in schemas["Marker"]["properties"].as_object().unwrap() {
            assert!(compaction["properties"].get(field).is_some(), "{field}");
        }
        for field in schemas["Marker"]["required"].as_array().unwrap() {
            assert!(required.contains(field), "{field}");
        }
    }
}
