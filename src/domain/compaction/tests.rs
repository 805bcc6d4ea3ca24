use std::sync::Arc;

use serde_json::json;

use super::*;

fn user(words: usize, tag: &str) -> Message {
    Message::user_text(vec![tag; words].join(" "))
}

fn call(id: &str) -> Message {
    Message {
        role: Role::Assistant,
        content: vec![Content::ToolUse { id: id.into(), name: "read".into(), input: json!({}) }],
    }
}

fn result(id: &str, chars: usize) -> Message {
    let content = "x".repeat(chars);
    Message {
        role: Role::Tool,
        content: vec![Content::ToolResult { tool_use_id: id.into(), content, is_error: false }],
    }
}

fn arcs(messages: &[Message]) -> Vec<Arc<Message>> {
    messages.iter().cloned().map(Arc::new).collect()
}

fn tokens(messages: &[Message]) -> u64 {
    messages.iter().map(|m| tokens_of(chars_of(m))).sum()
}

fn budget(threshold: u64, keep_recent: u64) -> Budget {
    Budget { window: threshold * 2, threshold, keep_recent }
}

#[test]
fn a_prompt_within_the_threshold_is_left_alone_unless_forced() {
    let messages = vec![user(10, "a"), user(10, "b"), user(10, "c")];
    let all = tokens(&messages);
    assert_eq!(plan(&arcs(&messages), 0, all, &budget(all, 10), false), None);
    let forced = plan(&arcs(&messages), 0, all, &budget(all, 10), true).expect("forced");
    assert_eq!(forced.summarize, 2, "all but the newest message");
    assert_eq!(forced.first_kept, 2);
}

#[test]
fn old_tool_output_is_pruned_first_and_that_can_be_enough() {
    let messages = vec![user(5, "q"), call("1"), result("1", 4000), user(5, "r"), call("2"), result("2", 40)];
    let all = tokens(&messages);
    let recent = tokens(&messages[3..]);
    let plan = plan(&arcs(&messages), 10, all, &budget(all - 500, recent), false).expect("a plan");
    assert_eq!((plan.pruned_results, plan.summarize), (1, 0), "{plan:?}");
    assert_eq!(plan.pruned_before, 13, "positions count from the first message's");
    assert_eq!(plan.first_kept, 10, "nothing summarized");
}

#[test]
fn when_pruning_is_not_enough_the_older_messages_are_summarized() {
    let messages = vec![user(200, "a"), user(200, "b"), call("1"), result("1", 200), user(10, "c")];
    let all = tokens(&messages);
    // The newest two fit in what is kept, but the cut may not fall between a
    // call and its result: it moves back to the call.
    let keep = tokens(&messages[3..]);
    let plan = plan(&arcs(&messages), 0, all, &budget(all / 4, keep), false).expect("a plan");
    assert_eq!(plan.summarize, 2, "{plan:?}");
    assert_eq!(plan.first_kept, 2);
}

#[test]
fn stubs_are_made_once() {
    let stub = stubbed(&result("1", 100)).unwrap();
    assert!(matches!(&stub.content[0], Content::ToolResult { content, .. } if content.contains("100 characters")));
    assert_eq!(stubbed(&stub), None);
    assert_eq!(stubbed(&user(3, "a")), None);
}

#[test]
fn a_transcript_keeps_the_newest_messages_that_fit_after_the_summary_before() {
    let messages = [user(400, "old"), user(5, "new"), call("1"), result("1", 30)];
    let text = transcript(Some("earlier"), messages.iter(), 100);
    assert!(text.starts_with("Summary of the conversation before this part:\nearlier"), "{text}");
    assert!(text.contains("[1 earlier messages left out]"), "{text}");
    assert!(!text.contains("old"));
    assert!(text.contains("User: new new"));
    assert!(text.contains("[calls read with {}]"));
    let whole = transcript(None, messages.iter(), 10_000);
    assert!(whole.starts_with("User: old"), "{whole}");
}

#[test]
fn the_budget_leaves_room_for_the_answer_and_the_summary() {
    let settings = CompactionSettings { reserve_tokens: 1000, keep_recent_tokens: 5000, ..Default::default() };
    let b = Budget::new(4000, &settings);
    assert_eq!((b.threshold, b.keep_recent), (3000, 1500));
    let tiny = Budget::new(4000, &CompactionSettings::default());
    assert_eq!(tiny.threshold, 1000, "a reserve larger than the window leaves a quarter of it");
    assert!(b.transcript_tokens() + b.summary_tokens() < b.window);
    let said = summary_message("they talked");
    assert_eq!(summary_of(&said), "they talked");
}

#[test]
fn settings_are_checked() {
    assert!(CompactionSettings::default().check().is_ok());
    let blank = CompactionSettings { model: Some(" ".into()), ..Default::default() };
    assert!(blank.check().is_err());
    let huge = CompactionSettings { reserve_tokens: MAX_SETTING_TOKENS + 1, ..Default::default() };
    assert!(huge.check().is_err());
    let parsed: CompactionSettings = serde_json::from_value(json!({"reserve_tokens": 10})).unwrap();
    assert_eq!(
        (parsed.reserve_tokens, parsed.keep_recent_tokens, parsed.enabled),
        (10, DEFAULT_KEEP_RECENT_TOKENS, true)
    );
    assert!(serde_json::from_value::<CompactionSettings>(json!({"reserve": 1})).is_err(), "unknown keys are refused");
}
