//! Schedules: when their ticks fall, and which tick is due, apart from any
//! I/O.
//!
//! A schedule's ticks are instants every server computes alike: a cron
//! pattern's matches in the schedule's time zone, or multiples of an
//! `every` period since the Unix epoch. A tick's time is its key: the
//! submission it makes carries an idempotency key of the schedule and the
//! tick, so however many servers fire the same tick, one run (fleet run,
//! formation run) comes of it. After downtime only the newest tick that
//! was missed is due ([`due`]).

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The shortest `every`.
pub const SHORTEST_EVERY: Duration = Duration::from_secs(1);
/// The longest `every`: a year.
pub const LONGEST_EVERY: Duration = Duration::from_secs(366 * 86_400);

/// When a schedule's ticks fall.
#[derive(Debug, Clone)]
pub enum When {
    /// A cron pattern's matches, in a time zone.
    Cron { cron: Box<croner::Cron>, zone: Tz },
    /// Every period, counted from the Unix epoch (so `"1h"` ticks on the hour, UTC).
    Every(Duration),
}

impl When {
    /// Reads a schedule's `cron` (5 fields, or 6 with seconds first) or
    /// `every` (`"30s"`, `"5m"`, `"1h"`, `"1d"`), and `timezone` (an IANA
    /// name, `UTC` by default; for `cron` only).
    pub fn parse(cron: Option<&str>, every: Option<&str>, timezone: Option<&str>) -> Result<When, String> {
        match (cron, every) {
            (Some(_), Some(_)) => Err("give either cron or every, not both".into()),
            (None, None) => Err("cron or every is required".into()),
            (None, Some(_)) if timezone.is_some() => Err("timezone applies to cron only".into()),
            (None, Some(every)) => parse_every(every).map(When::Every),
            (Some(pattern), None) => {
                let zone = match timezone {
                    Some(name) => {
                        Tz::from_str(name).map_err(|_| format!("timezone {name:?} is not an IANA time zone"))?
                    }
                    None => Tz::UTC,
                };
                Ok(When::Cron { cron: Box::new(parse_cron(pattern)?), zone })
            }
        }
    }

    /// The first tick strictly after `after`, if there is one.
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            When::Every(period) => {
                let period = period.as_millis() as i64;
                let next = (after.timestamp_millis().div_euclid(period) + 1) * period;
                Utc.timestamp_millis_opt(next).single()
            }
            When::Cron { cron, zone } => {
                let local = whole_second(after).with_timezone(zone);
                cron.find_next_occurrence(&local, false).ok().map(|t| whole_second(t.with_timezone(&Utc)))
            }
        }
    }

    /// The newest tick at or before `now`, if there is one.
    pub fn latest_at_or_before(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            When::Every(period) => {
                let period = period.as_millis() as i64;
                Utc.timestamp_millis_opt(now.timestamp_millis().div_euclid(period) * period).single()
            }
            When::Cron { cron, zone } => {
                let local = whole_second(now).with_timezone(zone);
                cron.find_previous_occurrence(&local, true).ok().map(|t| whole_second(t.with_timezone(&Utc)))
            }
        }
    }
}

/// `t` without its fraction of a second. A cron pattern names whole seconds,
/// and the search carries the fraction of the time it starts from into the
/// time it finds (a schedule created at 12:00:00.319 ticked at 09:30:00.319).
fn whole_second(t: DateTime<Utc>) -> DateTime<Utc> {
    Utc.timestamp_opt(t.timestamp(), 0).single().unwrap_or(t)
}

fn parse_cron(pattern: &str) -> Result<croner::Cron, String> {
    let fields = pattern.split_whitespace().count();
    if !(5..=6).contains(&fields) {
        return Err(format!("cron {pattern:?} has {fields} fields: give 5, or 6 with seconds first"));
    }
    let parser = croner::parser::CronParser::builder()
        .seconds(croner::parser::Seconds::Optional)
        .year(croner::parser::Year::Disallowed)
        .build();
    parser.parse(pattern).map_err(|e| format!("cron {pattern:?} does not parse: {e}"))
}

/// Reads `"<n><unit>"` with unit `s`, `m`, `h` or `d`.
pub fn parse_every(text: &str) -> Result<Duration, String> {
    let bad = || format!("every {text:?} is not a period such as \"30s\", \"5m\", \"1h\" or \"1d\"");
    let unit = text.chars().last().ok_or_else(bad)?;
    let seconds = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return Err(bad()),
    };
    let count: u64 = text[..text.len() - 1].parse().map_err(|_| bad())?;
    let period = Duration::from_secs(count.checked_mul(seconds).ok_or_else(bad)?);
    if period < SHORTEST_EVERY || period > LONGEST_EVERY {
        return Err(format!("every {text:?} must be from 1s to 366d"));
    }
    Ok(period)
}

/// The tick due at `now` of a schedule whose next tick was `next_tick_at`,
/// and the tick after it: after downtime, only the newest tick that was
/// missed is due, and the ones before it are let go.
pub fn due(
    when: &When,
    next_tick_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, Option<DateTime<Utc>>)> {
    if next_tick_at > now {
        return None;
    }
    let tick = when.latest_at_or_before(now).filter(|t| *t >= next_tick_at).unwrap_or(next_tick_at);
    Some((tick, when.next_after(tick)))
}

/// What a schedule does when a tick falls while what its last tick made has
/// not ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Overlap {
    /// The tick is recorded as skipped and nothing is submitted.
    #[default]
    Skip,
    /// The tick submits anyway (a session's runs still take turns).
    Enqueue,
}

/// Whether a tick submits its target, given whether its previous tick's
/// work is still open.
pub fn fires(overlap: Overlap, previous_open: bool) -> bool {
    overlap == Overlap::Enqueue || !previous_open
}

/// What a tick submits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Target {
    /// A message to a session (for `agent_id`, or the session's agent).
    Message {
        session_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_id: Option<String>,
        message: String,
    },
    /// A fleet run of these tasks.
    Fleet {
        fleet_id: String,
        #[schema(schema_with = task_bodies)]
        tasks: Vec<Value>,
    },
    /// A formation run of this input.
    Formation {
        formation_id: String,
        #[schema(schema_with = any_json)]
        input: Value,
    },
}

/// A fleet run's tasks, in the OpenAPI document: each as `POST
/// /fleets/{id}/run` takes it (`TaskBody`), which is how a schedule's
/// definition was checked before it was stored.
fn task_bodies() -> utoipa::openapi::schema::Array {
    let task = utoipa::openapi::Ref::from_schema_name("TaskBody");
    utoipa::openapi::schema::ArrayBuilder::new().items(task).build()
}

/// Any JSON value, in the OpenAPI document.
fn any_json() -> utoipa::openapi::schema::Schema {
    let any = utoipa::openapi::schema::SchemaType::AnyValue;
    utoipa::openapi::schema::ObjectBuilder::new().schema_type(any).description(Some("Any JSON value")).into()
}

impl crate::domain::model::Owned for Schedule {
    fn owner(&self) -> &str {
        &self.owner
    }
}

/// A schedule as stored and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Schedule {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cron: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    pub target: Target,
    #[serde(default)]
    pub overlap: Overlap,
    /// The priority of what each tick submits (-10 to 10; 0 when not given).
    #[serde(default, skip_serializing_if = "crate::domain::model::is_default_priority")]
    #[schema(minimum = -10, maximum = 10)]
    pub priority: i8,
    /// The concurrency key and limit of what each tick submits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<crate::domain::model::Concurrency>,
    #[serde(default)]
    pub paused: bool,
    /// Why a server paused it (its stored rule no longer parsed); none when
    /// a client paused it, or it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_reason: Option<String>,
    /// The tick due next (none while paused, or when the pattern never matches again).
    #[serde(default, with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>)]
    pub next_tick_at: Option<DateTime<Utc>>,
    #[serde(default, with = "crate::domain::model::timestamp::option")]
    #[schema(value_type = Option<String>)]
    pub last_tick_at: Option<DateTime<Utc>>,
    /// The owner whose key made it; set by the server, never by a client.
    #[serde(default = "crate::domain::model::first_admin")]
    pub owner: String,
    /// 1 when made, one more with each change: what `If-Match` names to
    /// make a change only over the version read.
    #[serde(default = "crate::domain::model::first_version")]
    pub version: u64,
    #[serde(with = "crate::domain::model::timestamp")]
    pub created_at: DateTime<Utc>,
    #[serde(with = "crate::domain::model::timestamp")]
    pub updated_at: DateTime<Utc>,
}

impl Schedule {
    /// When its ticks fall.
    pub fn when(&self) -> Result<When, String> {
        When::parse(self.cron.as_deref(), self.every.as_deref(), self.timezone.as_deref())
    }
}

/// A tick that fell: what it submitted, or that it was skipped.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Tick {
    #[serde(with = "crate::domain::model::timestamp")]
    pub tick_at: DateTime<Utc>,
    /// `run`, `fleet_run` or `formation_run`; none when skipped.
    pub kind: Option<String>,
    /// The run, fleet run or formation run it submitted.
    pub id: Option<String>,
    /// Why nothing was submitted.
    pub skipped: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn cron_ticks_fall_on_whole_seconds_whatever_the_time_searched_from() {
        let when = When::parse(Some("0 30 9 * * MON-FRI"), None, None).unwrap();
        // A Friday noon and a fraction: the next is Monday's 09:30:00 exactly.
        assert_eq!(when.next_after(at("2026-11-27T12:00:00.319Z")), Some(at("2026-11-30T09:30:00Z")));
        assert_eq!(when.latest_at_or_before(at("2026-11-30T09:30:00.999Z")), Some(at("2026-11-30T09:30:00Z")));
        let every_second = When::parse(Some("* * * * * *"), None, None).unwrap();
        let next = every_second.next_after(at("2026-11-27T12:00:00.319Z")).unwrap();
        assert_eq!(next, at("2026-11-27T12:00:01Z"), "strictly after, on the next whole second");
        assert_eq!(next.timestamp_subsec_nanos(), 0);
    }

    #[test]
    fn every_ticks_on_multiples_of_its_period() {
        let when = When::parse(None, Some("5m"), None).unwrap();
        assert_eq!(when.next_after(at("2026-01-01T10:02:00Z")), Some(at("2026-01-01T10:05:00Z")));
        assert_eq!(when.next_after(at("2026-01-01T10:05:00Z")), Some(at("2026-01-01T10:10:00Z")), "strictly after");
        assert_eq!(when.latest_at_or_before(at("2026-01-01T10:05:00Z")), Some(at("2026-01-01T10:05:00Z")));
        for bad in ["", "5", "0s", "1w", "-1s", "367d", "s"] {
            assert!(parse_every(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_every("90s").unwrap(), Duration::from_secs(90));
    }

    #[test]
    fn after_downtime_only_the_newest_missed_tick_is_due() {
        let when = When::parse(None, Some("1m"), None).unwrap();
        let (tick, next) = due(&when, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:07:30Z")).unwrap();
        assert_eq!((tick, next), (at("2026-01-01T10:07:00Z"), Some(at("2026-01-01T10:08:00Z"))));
        assert_eq!(due(&when, at("2026-01-01T10:08:00Z"), at("2026-01-01T10:07:30Z")), None, "not yet");
    }

    #[test]
    fn a_six_field_cron_ticks_at_local_time_across_daylight_saving_changes() {
        // 09:00:30 every day in New York: 14:00:30 UTC in winter (EST), 13:00:30 once
        // the clocks go forward on 8 March 2026 (EDT).
        let when = When::parse(Some("30 0 9 * * *"), None, Some("America/New_York")).unwrap();
        assert_eq!(when.next_after(at("2026-03-07T12:00:00Z")), Some(at("2026-03-07T14:00:30Z")));
        assert_eq!(when.next_after(at("2026-03-07T14:00:30Z")), Some(at("2026-03-08T13:00:30Z")));
        assert_eq!(when.next_after(at("2026-03-08T13:00:30Z")), Some(at("2026-03-09T13:00:30Z")));
        // 02:30 in Berlin: on 29 March 2026 that hour does not exist (the tick
        // falls when the gap ends), and on 25 October it comes twice (one tick).
        let night = When::parse(Some("30 2 * * *"), None, Some("Europe/Berlin")).unwrap();
        let mut t = at("2026-03-27T00:00:00Z");
        let mut spring = Vec::new();
        for _ in 0..4 {
            t = night.next_after(t).unwrap();
            spring.push(t);
        }
        assert_eq!(spring[0], at("2026-03-27T01:30:00Z"), "CET");
        assert_eq!(spring[1], at("2026-03-28T01:30:00Z"));
        assert_eq!(spring[2], at("2026-03-29T01:00:00Z"), "the gap's end, 03:00 CEST: {spring:?}");
        assert_eq!(spring[3], at("2026-03-30T00:30:00Z"), "CEST");
        let mut t = at("2026-10-24T12:00:00Z");
        let mut autumn = Vec::new();
        for _ in 0..3 {
            t = night.next_after(t).unwrap();
            autumn.push(t);
        }
        assert_eq!(autumn[0], at("2026-10-25T00:30:00Z"), "the first 02:30, CEST");
        assert_eq!(autumn[1], at("2026-10-26T01:30:00Z"), "the second 02:30 of that night is not another tick");
    }

    #[test]
    fn a_schedule_says_cron_or_every_and_a_real_zone() {
        assert!(When::parse(Some("* * * * *"), Some("1s"), None).is_err());
        assert!(When::parse(None, None, None).is_err());
        assert!(When::parse(None, Some("1s"), Some("UTC")).is_err());
        assert!(When::parse(Some("* * * * *"), None, Some("Mars/Olympus")).is_err());
        for bad in ["* * * *", "* * * * * * *", "61 * * * *", "nonsense"] {
            assert!(When::parse(Some(bad), None, None).is_err(), "{bad}");
        }
        assert!(When::parse(Some("*/5 * * * *"), None, Some("Europe/Paris")).is_ok());
    }

    #[test]
    fn skip_fires_only_when_the_last_tick_s_work_has_ended() {
        assert!(fires(Overlap::Skip, false) && !fires(Overlap::Skip, true));
        assert!(fires(Overlap::Enqueue, true));
    }
}
