//! What `POST /formations` accepts, as close as JSON Schema can say it: a
//! node is one of its kinds with the arguments its function takes. What
//! only the whole graph can tell (edges between known nodes, no cycle, an
//! entry, what each node is fed) is the handler's to refuse.

use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::RefOr;

use super::{text, NO_NUL};
use crate::domain::formation::MAX_NODES;

/// A node's ID, as [`crate::domain::formation::check`] takes it.
pub const NODE_ID: &str = "^[A-Za-z0-9_-]{1,64}$";

/// A `json_path`'s path, as its parser takes it: `$`, then `.key`,
/// `["key"]` or `[index]` steps.
const JSON_PATH: &str = r#"^\$(\.[^.\[]+|\["[^"\]]*"\]|\[[0-9]+\])*$"#;

/// A formation's name: not blank.
pub fn name() -> Schema {
    text("Not blank")
}

/// 1 to 200 nodes, each an agent node, a fleet node or a function node.
pub fn nodes() -> Schema {
    let kinds = OneOfBuilder::new()
        .item(node(vec![("agent_id", reference("The agent that answers the node's input"))], &["agent_id"]))
        .item(node(vec![("fleet_id", reference("The fleet that runs a task per item of its input"))], &["fleet_id"]))
        .item(function("split_lines", vec![], &[], false))
        .item(function("json_path", vec![("path", pattern(JSON_PATH))], &["path"], true))
        .item(function("join", vec![("separator", string())], &[], false))
        .item(function("template", vec![("template", string())], &["template"], true));
    let description =
        "Nodes: `{\"id\", \"agent_id\"}`, `{\"id\", \"fleet_id\"}` or `{\"id\", \"function\", \"args\"?}`";
    ArrayBuilder::new()
        .items(RefOr::T(Schema::OneOf(kinds.build())))
        .min_items(Some(1))
        .max_items(Some(MAX_NODES))
        .description(Some(description))
        .into()
}

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL))
}

fn pattern(pattern: &str) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(pattern))
}

fn reference(description: &str) -> ObjectBuilder {
    string().min_length(Some(1)).description(Some(description))
}

/// An object of these fields (the `required` ones among them), no others.
fn closed(fields: Vec<(&str, ObjectBuilder)>, required: &[&str]) -> ObjectBuilder {
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for (name, schema) in fields {
        object = object.property(name, schema);
    }
    for name in required {
        object = object.required(*name);
    }
    object
}

/// A node object: its `id` and the fields given.
fn node(fields: Vec<(&str, ObjectBuilder)>, required: &[&str]) -> ObjectBuilder {
    let mut all = vec![("id", pattern(NODE_ID))];
    all.extend(fields);
    let mut needed = vec!["id"];
    needed.extend_from_slice(required);
    closed(all, &needed)
}

/// A function node of `name`, whose `args` are an object of `args` (with
/// the `required` ones), itself required or not.
fn function(name: &str, args: Vec<(&str, ObjectBuilder)>, required: &[&str], args_required: bool) -> ObjectBuilder {
    let function = ObjectBuilder::new().schema_type(Type::String).enum_values(Some([name]));
    let fields = vec![("function", function), ("args", closed(args, required))];
    node(fields, if args_required { &["function", "args"] } else { &["function"] })
}
