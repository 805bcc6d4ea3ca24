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

/// `every` as the handler takes it: 1 s to 366 days. (Seconds up to seven
/// digits, minutes five, hours three and days 1–366 all stay in range.)
const EVERY: &str =
    r"^([1-9][0-9]{0,6}s|[1-9][0-9]{0,4}m|[1-9][0-9]{0,2}h|([1-9][0-9]?|[12][0-9]{2}|3[0-5][0-9]|36[0-6])d)$";

/// A cron pattern the handler takes, in a form a schema can state: 5 fields,
/// or 6 with seconds first, each `*` or a number in range, with an optional
/// step. The handler takes more (ranges, lists, names, `L`, `#`, `W`); a day
/// of the month up to 28 matches every month, so the pattern never runs out.
fn cron_pattern() -> String {
    let field = |values: &str, steps: &str| format!(r"(\*|{values})(/{steps})?");
    let second = field("[0-5]?[0-9]", "[1-9]");
    let minute = second.clone();
    let hour = field("([01]?[0-9]|2[0-3])", "[1-9]");
    let day = field("(0?[1-9]|1[0-9]|2[0-8])", "[1-9]");
    let month = field("(0?[1-9]|1[0-2])", "[1-9]");
    let weekday = field("[0-6]", "[1-6]");
    format!("^({second} )?{minute} {hour} {day} {month} {weekday}$")
}

fn nullable(schema: ObjectBuilder) -> Schema {
    let null = ObjectBuilder::new().schema_type(Type::Null);
    OneOfBuilder::new().item(schema).item(null).into()
}

/// `every`, or `null`.
pub fn every() -> Schema {
    let every = ObjectBuilder::new().schema_type(Type::String).pattern(Some(EVERY)).description(Some(
        "A period from `1s` to `366d` (`30s`, `5m`, `1h`, `1d`), counted from the Unix epoch; give this or `cron`",
    ));
    nullable(every)
}

/// `cron`, or `null`.
pub fn cron() -> Schema {
    let cron = ObjectBuilder::new().schema_type(Type::String).pattern(Some(cron_pattern())).description(Some(
        "5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; give this or `every`. \
         Ranges, lists, names, `L`, `#` and `W` are taken too",
    ));
    nullable(cron)
}

/// `timezone`: an IANA name, or `null` (UTC).
pub fn timezone() -> Schema {
    let names: Vec<&str> = chrono_tz::TZ_VARIANTS.iter().map(|zone| zone.name()).collect();
    let zone = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names))
        .description(Some("The IANA time zone a cron pattern is read in (default `UTC`); for `cron` only"));
    nullable(zone)
}

/// What a definition must hold besides its fields: `every` alone, or `cron`
/// (with a `timezone` or not).
pub fn one_of_cron_or_every() -> Schema {
    let null = || ObjectBuilder::new().schema_type(Type::Null);
    let every = ObjectBuilder::new()
        .property("every", ObjectBuilder::new().schema_type(Type::String))
        .property("cron", null())
        .property("timezone", null())
        .required("every");
    let cron = ObjectBuilder::new()
        .property("cron", ObjectBuilder::new().schema_type(Type::String))
        .property("every", null())
        .required("cron");
    OneOfBuilder::new().item(every).item(cron).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_patterns_allow_the_handler_takes() {
        let every = regex_lite(EVERY);
        for text in ["1s", "9999999s", "99999m", "999h", "1d", "366d"] {
            assert!(every(text), "{text}");
            assert!(crate::domain::schedule::parse_every(text).is_ok(), "{text}");
        }
        assert!(!every("367d") && !every("0s") && !every("1000h"));
        let cron = regex_lite(&cron_pattern());
        for text in ["* * * * *", "0 9 * * 1", "*/5 * * * *", "59 59 23 28 12 6", "30 0 9 * * *"] {
            assert!(cron(text), "{text}");
            let when = crate::domain::schedule::When::parse(Some(text), None, None).unwrap();
            assert!(when.next_after(chrono::Utc::now()).is_some(), "{text}");
        }
        assert!(!cron("* * * *") && !cron("60 * * * *") && !cron("0 0 31 2 *"));
    }

    /// The pattern as JSON Schema reads it (ECMA-262 here coincides with Rust's `regex` syntax).
    fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
        let re = regex::Regex::new(pattern).unwrap();
        move |text| re.is_match(text)
    }
}
