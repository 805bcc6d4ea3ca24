//! The text a worker's commit writes, encoded before the writer's
//! transaction. SQLite has one writer thread, and in a burn-down it is
//! what every run waits on: JSON that nothing in the database decides is
//! made on the caller's thread instead, and the writer only binds it.

use crate::domain::lifecycle::{self, Commit, Completion, Ending, Stored};
use crate::store::{answer_rows, event_rows, StoreResult};

/// A commit completed ([`lifecycle::complete`]) with its rows' text: its
/// events as one row holds them, and its run's end, if it ends one.
#[derive(Debug)]
pub struct EncodedCommit {
    pub done: Completion,
    /// The `events` column of the commit's row of events
    /// ([`event_rows::encode`]).
    pub events: String,
    /// The text of the run's end, for a commit that ends it.
    end: Option<EndText>,
}

impl EncodedCommit {
    /// Completes `commit` with what the store holds of its run (`stored`,
    /// needed when [`Commit::needs_stored`] says so) and encodes it.
    pub fn of(commit: &Commit, stored: Option<Stored>) -> StoreResult<EncodedCommit> {
        let done = lifecycle::complete(commit, stored);
        let events = event_rows::encode(&done.events);
        let end = done.ending.as_ref().map(EndText::of).transpose()?;
        Ok(EncodedCommit { done, events, end })
    }

    /// The run's end and its text, for a commit that ends its run: both
    /// or neither, as [`EncodedCommit::of`] makes them.
    pub fn ending(&self) -> Option<EndOf<'_>> {
        self.done.ending.as_ref().zip(self.end.as_ref())
    }

    /// `commit` encoded ahead of the writer, where nothing stored decides
    /// it (none where the writer must read the run first).
    pub fn ahead(commit: &Commit) -> StoreResult<Option<EncodedCommit>> {
        if commit.needs_stored() {
            return Ok(None);
        }
        EncodedCommit::of(commit, None).map(Some)
    }
}

/// A run's end and its text ([`EndText`]).
pub type EndOf<'a> = (&'a Ending, &'a EndText);

/// The JSON columns of a run's end: its usage, its tool calls as its row
/// lists them, and the messages it appends to its session's history; and
/// whether those messages spell its answer ([`answer_rows::history_spells`]).
#[derive(Debug)]
pub struct EndText {
    pub usage: String,
    pub tool_calls: String,
    pub history: Vec<String>,
    pub spelled_by_history: bool,
}

impl EndText {
    /// The text of `ending`.
    pub fn of(ending: &Ending) -> StoreResult<EndText> {
        let summary = &ending.summary;
        Ok(EndText {
            usage: serde_json::to_string(&summary.usage)?,
            tool_calls: answer_rows::listed(&summary.tool_calls)?,
            history: summary.history.iter().map(serde_json::to_string).collect::<Result<_, _>>()?,
            spelled_by_history: answer_rows::history_spells(summary),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::checkpoint::RunSummary;
    use crate::domain::event::RunEvent;
    use crate::domain::lifecycle::{EndReason, Finish};
    use crate::domain::model::{Content, Message, Role};

    /// An event as the rules make one: a backend builds none of its own.
    fn a_start() -> RunEvent {
        lifecycle::started(1, "worker", 0)
    }

    /// A commit that ends its run (interrupted, as the rules say), with the
    /// worker's summary or without one.
    fn ends(summary: Option<RunSummary>) -> Commit {
        let finish = Finish { summary, ..Finish::because(&EndReason::Interrupted) };
        Commit { events: vec![a_start()], finish: Some(finish), ..Default::default() }
    }

    #[test]
    fn a_commit_is_encoded_ahead_only_when_nothing_stored_decides_it() {
        assert!(EncodedCommit::ahead(&ends(None)).unwrap().is_none(), "its summary is made from the store");
        let step = Commit { events: vec![a_start()], ..Default::default() };
        let encoded = EncodedCommit::ahead(&step).unwrap().expect("a step needs nothing stored");
        assert_eq!(encoded.events, event_rows::encode(&step.events));
        assert!(encoded.end.is_none() && encoded.done.ending.is_none());
    }

    #[test]
    fn an_ending_commit_carries_its_done_and_the_text_of_its_end() {
        let answer = Message { role: Role::Assistant, content: vec![Content::Text { text: "hi".into() }] };
        let history = vec![Message::user_text("hello"), answer];
        let summary = RunSummary { response: Some("hi".into()), history, ..Default::default() };
        let commit = ends(Some(summary.clone()));
        let encoded = EncodedCommit::ahead(&commit).unwrap().expect("the worker gave its summary");
        let done = lifecycle::complete(&commit, None);
        assert_eq!(encoded.done.events, done.events);
        assert_eq!(done.events.last().map(|e| e.kind()), Some("done"), "its `done` is among them");
        assert_eq!(encoded.events, event_rows::encode(&done.events));
        let (_, end) = encoded.ending().expect("the commit ends its run");
        let history: Vec<String> = summary.history.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
        assert_eq!(end.history, history);
        assert_eq!(end.usage, serde_json::to_string(&summary.usage).unwrap());
        assert_eq!(end.tool_calls, "[]");
        assert!(end.spelled_by_history, "the assistant's message spells the answer");
    }
}
