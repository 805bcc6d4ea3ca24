use chrono::TimeZone;
use serde_json::json;

use super::*;
use crate::domain::model::Message;

fn inference(step: u32, input_tokens: u64, cost_usd: Option<f64>) -> Checkpoint {
    let usage = Usage { input_tokens, output_tokens: 10, cost_usd, ..Usage::default() };
    let body = CheckpointBody::Inference { message: Message::user_text("hi"), usage, stop_reason: "end".into() };
    Checkpoint { step, body }
}

#[test]
fn a_quota_reads_and_checks_its_limits() {
    let quota: Quota =
        serde_json::from_value(json!({"max_queued_runs": 3, "max_running_runs": 2, "max_cost_usd_per_day": 2.5}))
            .unwrap();
    assert_eq!(quota, Quota { max_queued_runs: Some(3), max_running_runs: Some(2), max_cost_usd_per_day: Some(2.5) });
    assert!(quota.check().is_ok());
    assert!(serde_json::from_value::<Quota>(json!({"max_running": 1})).is_err(), "unknown fields are refused");
    assert!(Quota { max_queued_runs: Some(0), ..Quota::default() }.check().unwrap_err().contains("max_queued_runs"));
    let running = Quota { max_running_runs: Some(10_001), ..Quota::default() };
    assert!(running.check().unwrap_err().contains("max_running_runs must be from 1 to 10000"));
    let free = Quota { max_cost_usd_per_day: Some(-1.0), ..Quota::default() };
    assert!(free.check().unwrap_err().contains("max_cost_usd_per_day"));
    assert!(Quota::default().is_empty() && !quota.is_empty());
    assert_eq!(serde_json::to_value(Quota::default()).unwrap(), json!({}));
}

#[test]
fn a_full_queue_is_refused_for_now_and_a_submission_larger_than_the_quota_for_good() {
    let quota = Quota { max_queued_runs: Some(3), ..Quota::default() };
    assert_eq!(quota.queue_refusal("bob", 2, 1), None, "exactly at the limit fits");
    assert!(matches!(quota.queue_refusal("bob", 3, 1), Some(QueueRefusal::Full(m)) if m.contains("3 runs queued")));
    assert!(matches!(quota.queue_refusal("bob", 0, 4), Some(QueueRefusal::NeverFits(m)) if m.contains("4 runs")));
    assert_eq!(Quota::default().queue_refusal("bob", 1_000, 1_000), None, "no quota, no limit");
}

#[test]
fn what_a_commit_charges_is_what_its_inferences_used() {
    assert_eq!(charged(&[], false), None);
    let tool = Checkpoint {
        step: 1,
        body: CheckpointBody::ToolResult {
            call_id: "c".into(),
            name: "bash".into(),
            output: "x".into(),
            is_error: false,
        },
    };
    assert_eq!(charged(std::slice::from_ref(&tool), false), None, "a tool result costs nothing");
    let charged = charged(&[inference(1, 100, Some(0.25)), tool.clone(), inference(2, 50, None)], false).unwrap();
    assert_eq!((charged.input_tokens, charged.output_tokens, charged.runs), (150, 20, 0));
    assert_eq!(charged.cost_usd, 0.25, "an unpriced step adds nothing to the cost");
    assert_eq!(super::charged(&[tool], true), Some(ended()), "an end adds the run, whatever it spent");
}

#[test]
fn days_are_utc_dates() {
    let at = Utc.with_ymd_and_hms(2026, 11, 28, 23, 59, 59).unwrap();
    assert_eq!(day_of(at), "2026-11-28");
    assert!(parse_day("2026-11-28").is_ok());
    for bad in ["2026-11-31", "2026-1-2", "yesterday", ""] {
        assert!(parse_day(bad).is_err(), "{bad}");
    }
    assert_eq!(
        day_budget_error("bob", 1.5, 1.0),
        "budget exhausted: owner bob spent $1.5 of $1 today (max_cost_usd_per_day)"
    );
}
