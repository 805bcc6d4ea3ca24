//! What `POST /schedules` and `PUT /schedules/{id}` take as `target`, as the
//! handler checks it: one of three shapes, its text without NUL, its
//! message not blank, its tasks as a fleet run takes them.

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

use super::{message, NO_NUL};

fn plain() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL))
}

/// The `target` of a schedule's definition.
pub fn target() -> Schema {
    let session = ObjectBuilder::new()
        .description(Some("A message to a session, for `agent_id` or the session's agent"))
        .property("session_id", plain())
        .property("agent_id", ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL)))
        .property("message", message())
        .required("session_id")
        .required("message");
    let tasks = ArrayBuilder::new()
        .items(RefOr::Ref(Ref::from_schema_name("TaskBody")))
        .min_items(Some(1))
        .max_items(Some(10_000));
    let fleet = ObjectBuilder::new()
        .description(Some("A fleet run of these tasks"))
        .property("fleet_id", plain())
        .property("tasks", tasks)
        .required("fleet_id")
        .required("tasks");
    let formation = ObjectBuilder::new()
        .description(Some("A formation run of this input"))
        .property("formation_id", plain())
        .property("input", RefOr::Ref(Ref::from_schema_name("AnyJson")))
        .required("formation_id")
        .required("input");
    OneOfBuilder::new().item(session).item(fleet).item(formation).description(Some("What each tick submits")).into()
}
