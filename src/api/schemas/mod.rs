//! What the handlers accept that a field's Rust type does not say, as
//! schemas of the OpenAPI document: IDs, text that must not be blank, the
//! names of providers, tools and credentials, absolute paths. Each is built
//! from the constants and catalogues the handlers check against, so the
//! document follows them when they change; the tests check each schema
//! against the handlers' own checks.

use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

use crate::domain::{guard, secret};
use crate::submit::checks::MAX_MESSAGE_BYTES;
use crate::{provider, tools};

pub mod formation;
mod json;
mod nullable;
pub mod schedule;
mod variants;

pub use json::{AnyJson, JsonObject};
use nullable::or_null;
pub use nullable::{not_null, requiring, without_version};
pub use variants::merge_tagged_variants;

/// Text without NUL characters: the API refuses a body with one in any
/// string or key (PostgreSQL cannot store it).
const NO_NUL: &str = r"^[^\u0000]*$";

/// The characters `str::trim` removes (Unicode's White_Space), spelled out,
/// since `\s` means other sets in other regular expression dialects.
const WHITE_SPACE: &str = r"\u0009-\u000d\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// A resource's ID: a ULID, 26 characters of Crockford's base 32, as the
/// server makes every ID. Anything else names no resource (`404`).
pub struct Id;

impl PartialSchema for Id {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some("^[0-7][0-9A-HJKMNP-TV-Z]{25}$"))
            .description(Some("An ID the server gave: a ULID (26 characters of Crockford's base 32)"))
            .into()
    }
}

impl ToSchema for Id {}

/// An event's `seq` as a client gives it back (`?after=`, `Last-Event-ID`):
/// any whole number up to the largest `u64`, since a cursor past the end of a
/// log is answered with nothing rather than refused.
pub struct Seq;

impl PartialSchema for Seq {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(0))
            .maximum(Some(utoipa::Number::UInt(u64::MAX as usize)))
            .description(Some("An event's `seq`: a whole number from 0"))
            .into()
    }
}

impl ToSchema for Seq {}

/// An `Idempotency-Key`: 1 to 255 visible ASCII characters (with spaces
/// and tabs between them, which HTTP keeps; around them it drops them).
pub struct IdempotencyKey;

impl PartialSchema for IdempotencyKey {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(r"^[\t -~]*[!-~][\t -~]*$"))
            .max_length(Some(255))
            .description(Some("1 to 255 visible ASCII characters"))
            .into()
    }
}

impl ToSchema for IdempotencyKey {}

/// A credential name, as a path parameter: see [`credential_name`].
pub struct CredentialName;

impl PartialSchema for CredentialName {
    fn schema() -> RefOr<Schema> {
        credential_name().into()
    }
}

impl ToSchema for CredentialName {}

/// A secret's name, as a path parameter: see [`secret::check_name`].
pub struct SecretName;

impl PartialSchema for SecretName {
    fn schema() -> RefOr<Schema> {
        let description = format!("1 to {} characters of A-Z, a-z, 0-9, `_`, `.`, `-`", secret::MAX_NAME_CHARS);
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(format!("^[A-Za-z0-9_.-]{{1,{}}}$", secret::MAX_NAME_CHARS)))
            .description(Some(description))
            .into()
    }
}

impl ToSchema for SecretName {}

/// A string with a character other than white space and no NUL character
/// (the API refuses text with one anywhere in a body).
fn text(description: &str) -> Schema {
    let pattern = format!(r"^[^\u0000]*[^\u0000{WHITE_SPACE}][^\u0000]*$");
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(pattern)).description(Some(description)).into()
}

/// A message a run is given: not blank, at most [`MAX_MESSAGE_BYTES`].
///
/// The limit is in bytes of UTF-8, which JSON Schema cannot state, so it is
/// only described: `maxLength` counts characters, and the bound it could
/// give (as many characters as bytes) is no bound a client can rely on.
pub fn message() -> Schema {
    text(&format!("Not blank; at most {} KiB of UTF-8", MAX_MESSAGE_BYTES / 1024))
}

/// A name that must not be blank, or `null`.
pub fn name() -> Schema {
    or_null(text("Not blank"))
}

/// Any text without NUL characters.
pub fn no_nul() -> Schema {
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(NO_NUL)).into()
}

/// Any text without NUL characters, or `null`.
pub fn plain() -> Schema {
    or_null(no_nul())
}

/// One of `values`, a string: what a field with a few known values accepts.
pub fn one_of_strings(values: &[&str], description: &str) -> Schema {
    one_of(values.iter().copied(), description)
}

/// A `work_dir`, an absolute path without NUL characters, or `null`.
pub fn work_dir() -> Schema {
    let description = "An absolute path that does not contain the database; with --work-root, inside it";
    let path = ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"^/[^\u0000]*$"));
    or_null(path.description(Some(description)).into())
}

/// A string that is one of `values`.
fn one_of<'a>(values: impl IntoIterator<Item = &'a str>, description: &str) -> Schema {
    let values: Vec<&str> = values.into_iter().collect();
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(values)).description(Some(description)).into()
}

/// The ID of a provider this build knows, or `null`.
pub fn provider() -> Schema {
    let catalog = provider::catalog();
    or_null(one_of(catalog.iter().map(|p| p.id), "The provider (`scripted` by default)"))
}

/// A reasoning level, or `null`.
pub fn reasoning() -> Schema {
    let description =
        "How much the model reasons before it answers: `off` (the default), `low`, `medium`, `high`, `max`";
    or_null(one_of(crate::domain::model::Reasoning::NAMES.iter().copied(), description))
}

/// A list of built-in tools, or `null`.
pub fn tools() -> Schema {
    let tool = one_of(tools::NAMES.iter().copied(), "A built-in tool");
    let description = "Built-in tool names: the only tools its runs may use";
    or_null(ArrayBuilder::new().items(RefOr::T(tool)).description(Some(description)).into())
}

/// A list of tool names and patterns (`*` for every tool, `prefix*`), or `null`.
pub fn approve_tools() -> Schema {
    let tool = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^[A-Za-z0-9_-]{0,64}\\*?$"))
        .min_length(Some(1))
        .description(Some("One of the agent's tools, `*` for all, or a prefix pattern such as `server__*`"));
    let description = "Tools whose calls wait for a person's decision (`[\"*\"]` for all)";
    or_null(ArrayBuilder::new().items(RefOr::T(Schema::Object(tool.build()))).description(Some(description)).into())
}

/// A `loop_guard`: 0 (off), or how many identical calls in a row, from 2
/// to [`guard::MAX_LOOP_GUARD`], or `null`.
pub fn loop_guard() -> Schema {
    let off = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(0));
    let on = ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(2)).maximum(Some(guard::MAX_LOOP_GUARD));
    let null = ObjectBuilder::new().schema_type(Type::Null);
    let description = "Identical tool calls in a row that are not run again (default 3; 0 for off)";
    OneOfBuilder::new().item(off).item(on).item(null).description(Some(description)).into()
}

/// A budget in US dollars: a number above 0, or `null` for none.
pub fn budget_usd(description: &str) -> Schema {
    let usd = ObjectBuilder::new().schema_type(Type::Number).exclusive_minimum(Some(0));
    or_null(usd.description(Some(description)).into())
}

/// A submission's priority: an integer from -10 to 10, or `null` for 0.
pub fn priority() -> Schema {
    let priority =
        ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(-10)).maximum(Some(10)).description(Some(
            "From -10 to 10, higher first (default 0): claims take the highest priority first, then the oldest. \
             It orders sessions, never the messages of one session, and every run this one makes carries it",
        ));
    or_null(priority.into())
}

/// A run's token budget: 1 to [`guard::MAX_MAX_TOTAL_TOKENS`], or `null`
/// for no limit.
pub fn max_total_tokens() -> Schema {
    let tokens = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(utoipa::Number::UInt(guard::MAX_MAX_TOTAL_TOKENS as usize)))
        .description(Some("Tokens a run may use, whatever its model's price; `null` for no limit"));
    or_null(tokens.into())
}

/// A credential name: the ID of a provider that takes keys, alone or with
/// a label (`openai:work`) of 1 to 64 characters of a-z, 0-9, `-`, `_`, `.`.
pub fn credential_name() -> Schema {
    let catalog = provider::catalog();
    let keyed: Vec<&str> = catalog.iter().filter(|p| p.env.is_some()).map(|p| p.id).collect();
    let pattern = format!("^({})(:[a-z0-9_.-]{{1,64}})?$", keyed.join("|"));
    let description = "A provider that takes keys, alone or with a label: `openai` or `openai:work`";
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(pattern)).description(Some(description)).into()
}

/// The credentials of `PUT /provider/auth`: at least one, each under a
/// credential name.
pub fn credentials(credential: RefOr<Schema>) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .property_names(Some(credential_name()))
        .additional_properties(Some(AdditionalProperties::RefOr(credential)))
        .min_properties(Some(1))
        .description(Some("Keyed by credential name: a provider ID, or `provider:label`; at least one"))
        .into()
}

/// An API key: 1 to 4096 visible ASCII characters, no spaces.
pub fn api_key() -> Schema {
    let description = "1 to 4096 visible ASCII characters, no spaces";
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some("^[!-~]{1,4096}$"))
        .description(Some(description))
        .into()
}

/// A secret's value: not empty, no NUL, at most [`secret::MAX_VALUE_BYTES`]
/// (in bytes of UTF-8, which JSON Schema cannot state: see [`message`]).
pub fn secret_value() -> Schema {
    let description = format!("Not empty, no NUL; at most {} KiB of UTF-8", secret::MAX_VALUE_BYTES / 1024);
    let pattern = r"^[^\u0000]+$";
    ObjectBuilder::new().schema_type(Type::String).pattern(Some(pattern)).description(Some(description)).into()
}

/// Whether `schema` (a JSON Schema, its components beside it if it refers
/// to any) accepts `value`, as a validator of the OpenAPI document reads it:
/// the schema tests' one way to hold a schema to its handler.
#[cfg(test)]
pub(crate) fn validates(schema: serde_json::Value, value: &serde_json::Value) -> bool {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource("urn:wingman:schema", schema).unwrap();
    let index = compiler.compile("urn:wingman:schema", &mut schemas).unwrap();
    schemas.validate(value, index).is_ok()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::domain::model::new_id;
    use crate::provider::auth::{check_key, check_name};

    /// Whether `schema` accepts `value`, as a JSON Schema validator reads it.
    fn accepts(schema: impl Into<RefOr<Schema>>, value: &Value) -> bool {
        validates(serde_json::to_value(schema.into()).unwrap(), value)
    }

    #[test]
    fn ids_are_the_ulids_the_server_makes() {
        for _ in 0..100 {
            assert!(accepts(Id::schema(), &json!(new_id())));
        }
        for refused in ["", "01jnosuchresource000000000", "01JNOSUCHRESOURCE000000000", "81ARZ3NDEKTSV4RRFFQ69G5FAV"] {
            assert!(!accepts(Id::schema(), &json!(refused)), "{refused:?}");
        }
    }

    #[test]
    fn a_message_is_what_check_message_accepts_short_of_its_byte_count() {
        let samples = ["a", " a ", "", " ", "\t\n\r", "\u{3000}\u{85}\u{a0}", "\u{1c}", "\u{200b}"];
        for sample in samples {
            let handler = crate::submit::checks::message(sample).is_ok();
            assert_eq!(accepts(message(), &json!(sample)), handler, "{sample:?}");
            assert_eq!(accepts(name(), &json!(sample)), !sample.trim().is_empty(), "{sample:?}");
        }
        assert!(!accepts(message(), &json!("a\u{0}b")), "the API refuses NUL in any text");
        assert!(accepts(plain(), &json!(" ")) && accepts(plain(), &json!(null)));
        assert!(!accepts(plain(), &json!("\u{0}")) && !accepts(name(), &json!("\u{0}")));
    }

    #[test]
    fn credential_names_and_keys_are_what_the_credential_checks_accept() {
        let label = "a".repeat(64);
        let names = ["openai", "anthropic:work", "ollama:a.b-c_9", "openai:", "openai:Work", "openai:a b", "scripted"];
        let long = [format!("openai:{label}"), format!("openai:{label}a"), "nope".into(), "OPENAI".into()];
        for name in names.iter().map(|n| n.to_string()).chain(long) {
            assert_eq!(accepts(credential_name(), &json!(name)), check_name(&name).is_ok(), "{name:?}");
        }
        for key in ["sk-0123456789", "", "a b", "é", "~!", &"k".repeat(4096), &"k".repeat(4097)] {
            assert_eq!(accepts(api_key(), &json!(key)), check_key(key).is_ok(), "{key:?}");
        }
    }

    #[test]
    fn secret_names_and_values_are_what_the_secret_checks_accept() {
        let names = ["GITHUB_TOKEN", "a.b-c_9", "", "a b", "a/b", "é", &"n".repeat(128), &"n".repeat(129)];
        for name in names {
            let accepted = accepts(SecretName::schema(), &json!(name));
            assert_eq!(accepted, secret::check_name(name).is_ok(), "{name:?}");
        }
        for value in ["v", " ", "line\nline", "", "a\u{0}b", "é"] {
            assert_eq!(accepts(secret_value(), &json!(value)), secret::check_value(value).is_ok(), "{value:?}");
        }
    }

    #[test]
    fn providers_and_tools_are_the_catalogues() {
        for known in provider::catalog().iter().map(|p| p.id).chain(["nope"]) {
            assert_eq!(accepts(provider(), &json!(known)), provider::is_known(known), "{known}");
        }
        let all: Vec<&str> = tools::NAMES.to_vec();
        assert!(accepts(tools(), &json!(all)) && accepts(approve_tools(), &json!(["*", "bash"])));
        assert!(!accepts(tools(), &json!(["*"])) && !accepts(approve_tools(), &json!(["no pe"])));
    }

    #[test]
    fn an_idempotency_key_is_visible_ascii_up_to_255_characters() {
        for (key, accepted) in [("k", true), ("a b\tc", true), ("", false), (" \t", false), ("é", false)] {
            assert_eq!(accepts(IdempotencyKey::schema(), &json!(key)), accepted, "{key:?}");
        }
        assert!(accepts(IdempotencyKey::schema(), &json!("k".repeat(255))));
        assert!(!accepts(IdempotencyKey::schema(), &json!("k".repeat(256))));
    }

    #[test]
    fn a_work_dir_is_an_absolute_path() {
        assert!(accepts(work_dir(), &json!("/srv/agents/a")));
        for refused in ["", "relative/dir", "/a\u{0}b"] {
            assert!(!accepts(work_dir(), &json!(refused)), "{refused:?}");
        }
    }
}
