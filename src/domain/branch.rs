//! Rewind and fork: which of a session's history rows a reader is shown.
//!
//! A session's history rows are numbered in the order they were written,
//! and a rewind neither deletes nor renumbers them: it sets the rows after
//! the point it goes back to aside as a *branch*, marking each with the
//! rewind's number (rewinds are numbered from 1; a row in the history the
//! session's runs are sent is in branch 0). Since numbers keep growing, a
//! row's number still says when it was written, and the history as it was
//! at any moment can be read back: a [`Lineage`] says which rows it held.
//!
//! A row set aside by rewind `k` was written before it; so was every row up
//! to the session's last one then (the rewind's `top`). The history as it
//! was after row `x` was written holds the rows up to `x` except those set
//! aside before `x` was written: the branches whose rewind came before it,
//! which are the rewinds whose `top` is below `x`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::lifecycle::Refusal;
use crate::domain::model::timestamp;

/// The rows a history held at one moment: those numbered up to `through`
/// that are in branch 0 or in a branch numbered above `set_aside`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lineage {
    /// The last row it held (0: none).
    pub through: i64,
    /// The rewinds made before that moment: their branches were no longer part of it.
    pub set_aside: i64,
}

impl Lineage {
    /// The history as it was after row `through` was written, given each
    /// rewind's `top` (in rewind order): the rewinds with a `top` below
    /// `through` came before it.
    pub fn after_row(through: i64, tops: &[i64]) -> Lineage {
        let set_aside = tops.iter().take_while(|top| **top < through).count() as i64;
        Lineage { through, set_aside }
    }

    /// The history a session's runs are sent: its rows in branch 0, after
    /// `rewinds` rewinds, up to its last row `top`.
    pub fn live(top: i64, rewinds: i64) -> Lineage {
        Lineage { through: top, set_aside: rewinds }
    }

    /// Branch `branch` as it was just before the rewind that set it aside,
    /// which happened when the session's last row was `top`.
    pub fn of_branch(branch: i64, top: i64) -> Lineage {
        Lineage { through: top, set_aside: branch - 1 }
    }

    /// Whether a row of this number and branch is part of it.
    pub fn holds(&self, idx: i64, branch: i64) -> bool {
        idx <= self.through && (branch == 0 || branch > self.set_aside)
    }
}

/// A rewind as stored: the last row it kept and the session's last row
/// when it was made (the live rows between were set aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rewind {
    /// The rewind's number, which is the branch it set aside.
    pub branch: i64,
    /// The last row kept in the history (0: none).
    pub cut: i64,
    /// The session's last row when it was made.
    pub top: i64,
}

/// A history set aside by a rewind, as a session lists it: kept, never
/// deleted, and readable with `GET /sessions/{id}?branch=N`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Branch {
    /// Its number: the rewind that set it aside (the first is 1).
    pub branch: i64,
    /// The run the session went back to the end of (`null`: its start).
    pub after_run_id: Option<String>,
    /// The runs whose messages it holds, oldest first.
    pub runs: Vec<String>,
    /// How many messages it holds (compaction markers included).
    pub messages: u64,
    /// When it was set aside.
    #[serde(with = "timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: DateTime<Utc>,
}

/// Where a rewind goes back to, named by a run of the session whose
/// messages are in its history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewindTo {
    /// The end of this run: the runs after it are set aside.
    After(String),
    /// Just before this run: it and the runs after it are set aside (what a
    /// message that replaces a run does first).
    Before(String),
    /// Just before this run, which must be the last in the history (what a
    /// retry of it does first, so that its messages are not there twice). A
    /// run that added nothing leaves nothing to set aside.
    Retrying(String),
}

impl RewindTo {
    /// The run named.
    pub fn run_id(&self) -> &str {
        match self {
            RewindTo::After(id) | RewindTo::Before(id) | RewindTo::Retrying(id) => id,
        }
    }

    /// The last row kept, given the first and last rows of the named run's
    /// messages.
    pub fn cut(&self, first: i64, last: i64) -> i64 {
        match self {
            RewindTo::After(_) => last,
            RewindTo::Before(_) | RewindTo::Retrying(_) => first - 1,
        }
    }
}

/// Which history `GET /sessions/{id}` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryAt {
    /// The one the session's runs are sent now.
    Live,
    /// As it was after this run ended.
    AfterRun(String),
    /// A branch as it was when a rewind set it aside.
    Branch(i64),
    /// As it was after this run ended, which must be part of that branch
    /// (a branch read up to one of its runs).
    BranchAfterRun(i64, String),
}

impl HistoryAt {
    /// The run it names, whose rows a backend reads for [`lineage`].
    pub fn run_id(&self) -> Option<&str> {
        match self {
            HistoryAt::AfterRun(run_id) | HistoryAt::BranchAfterRun(_, run_id) => Some(run_id),
            HistoryAt::Live | HistoryAt::Branch(_) => None,
        }
    }

    /// What is missing when [`lineage`] finds nothing: the branch, or the run.
    pub fn missing(&self) -> &'static str {
        match self {
            HistoryAt::Branch(_) => "branch",
            _ => "run",
        }
    }
}

/// The rows a history held at `at`, given the rows of the run it names
/// (`rows`, read by the backend): `None` when the session has no such
/// branch, or the run is not part of the branch named.
pub fn lineage(facts: &SessionFacts, at: &HistoryAt, rows: Option<RunRows>) -> Result<Option<Lineage>, Refusal> {
    match at {
        HistoryAt::Live => Ok(Some(Lineage::live(facts.top, facts.rewinds()))),
        HistoryAt::AfterRun(run_id) => after_run(facts, run_id, rows).map(Some),
        HistoryAt::Branch(n) => {
            Ok(facts.tops.get((*n as usize).wrapping_sub(1)).map(|top| Lineage::of_branch(*n, *top)))
        }
        HistoryAt::BranchAfterRun(n, run_id) => branch_after_run(facts, *n, run_id, rows),
    }
}

/// Adds to each listed branch its runs and its count of messages, from
/// rows of `(branch, run, messages)` in the order of the session's rows.
pub fn tally(listed: &mut [Branch], found: impl IntoIterator<Item = (i64, Option<String>, i64)>) {
    for (number, run_id, count) in found {
        if let Some(branch) = listed.iter_mut().find(|b| b.branch == number) {
            branch.runs.extend(run_id);
            branch.messages += count as u64;
        }
    }
}

/// Where a run's messages are in its session's history: its first and last
/// rows, and the branch they are in (0: the live history). A backend reads
/// `None` for a run of the session that added none, and "not found" for a
/// run that is not the session's (a fork's copied rows still name the runs
/// of the session it was forked from, so they are found by their rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunRows {
    pub first: i64,
    pub last: i64,
    pub branch: i64,
}

/// What a backend read of a session, with its rows locked, before a
/// rewind, a fork or a read of its history as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFacts {
    pub session_id: String,
    /// The session's last row (0: none), in any branch.
    pub top: i64,
    /// The last row of its live history (0: none).
    pub last_live: i64,
    /// Each rewind's `top`, in rewind order.
    pub tops: Vec<i64>,
    /// A run of the session that is queued, running or waiting.
    pub active_run: Option<String>,
}

impl SessionFacts {
    /// How many times the session was rewound.
    pub fn rewinds(&self) -> i64 {
        self.tops.len() as i64
    }
}

/// The run's messages must be in the history to go back to it or fork at it.
fn rows_of(facts: &SessionFacts, run_id: &str, rows: Option<RunRows>) -> Result<RunRows, Refusal> {
    rows.ok_or_else(|| {
        Refusal::Busy(format!(
            "run {run_id} added nothing to session {}'s history (it has not ended, or ended before its first step)",
            facts.session_id
        ))
    })
}

/// The history as it was after `run_id`, whose messages are `rows`.
pub fn after_run(facts: &SessionFacts, run_id: &str, rows: Option<RunRows>) -> Result<Lineage, Refusal> {
    let rows = rows_of(facts, run_id, rows)?;
    Ok(Lineage::after_row(rows.last, &facts.tops))
}

/// The history of branch `branch` as it was after `run_id`: `None` when the
/// run is not part of the branch (neither its own nor what came before it).
pub fn branch_after_run(
    facts: &SessionFacts,
    branch: i64,
    run_id: &str,
    rows: Option<RunRows>,
) -> Result<Option<Lineage>, Refusal> {
    let Some(top) = facts.tops.get((branch as usize).wrapping_sub(1)) else { return Ok(None) };
    let rows = rows_of(facts, run_id, rows)?;
    let after = Lineage::after_row(rows.last, &facts.tops);
    Ok(Lineage::of_branch(branch, *top).holds(rows.last, rows.branch).then_some(after))
}

/// Decides a rewind of a session to `to`, whose run's messages are `rows`:
/// `None` when nothing is after the point (it changes nothing). Refused
/// while a run of the session has not ended (it would end on a history that
/// is no longer there), and for a run whose messages are no longer in the
/// history (set aside by an earlier rewind: a fork at it goes there).
pub fn rewind(facts: &SessionFacts, to: &RewindTo, rows: Option<RunRows>) -> Result<Option<Rewind>, Refusal> {
    if let Some(active) = &facts.active_run {
        return Err(Refusal::Busy(format!(
            "session {} has run {active} queued or running; rewind it once the run has ended (or cancel it)",
            facts.session_id
        )));
    }
    let run_id = to.run_id();
    let rows = match (rows, to) {
        (None, RewindTo::Retrying(_)) => return Ok(None),
        (rows, _) => rows_of(facts, run_id, rows)?,
    };
    if rows.branch != 0 {
        return Err(Refusal::Busy(format!(
            "run {run_id}'s messages were set aside by rewind {} of session {}; fork at it instead",
            rows.branch, facts.session_id
        )));
    }
    if matches!(to, RewindTo::Retrying(_)) && rows.last < facts.last_live {
        return Err(Refusal::Busy(format!(
            "run {run_id} is not the last in session {}'s history, and a retry takes the place of the last: \
             rewind the session to the end of run {run_id} first, or fork it",
            facts.session_id
        )));
    }
    let cut = to.cut(rows.first, rows.last);
    if cut >= facts.last_live {
        return Ok(None);
    }
    Ok(Some(Rewind { branch: facts.rewinds() + 1, cut, top: facts.top }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs A (rows 1-2), B (3-4); rewind 1 to A sets 3-4 aside (top 4);
    /// run C (5-6); rewind 2 to the start sets 1-2 and 5-6 aside (top 6).
    const ROWS: [(i64, i64); 6] = [(1, 2), (2, 2), (3, 1), (4, 1), (5, 2), (6, 2)];
    const TOPS: [i64; 2] = [4, 6];

    fn held(lineage: Lineage) -> Vec<i64> {
        ROWS.iter().filter(|(idx, branch)| lineage.holds(*idx, *branch)).map(|(idx, _)| *idx).collect()
    }

    #[test]
    fn the_history_after_a_run_holds_what_was_live_when_it_ended() {
        assert_eq!(held(Lineage::after_row(2, &TOPS)), vec![1, 2]);
        assert_eq!(held(Lineage::after_row(4, &TOPS)), vec![1, 2, 3, 4]);
        // C was written after the first rewind: B is not part of its history.
        assert_eq!(held(Lineage::after_row(6, &TOPS)), vec![1, 2, 5, 6]);
    }

    #[test]
    fn a_branch_reads_as_it_was_before_its_rewind() {
        assert_eq!(held(Lineage::of_branch(1, 4)), vec![1, 2, 3, 4]);
        assert_eq!(held(Lineage::of_branch(2, 6)), vec![1, 2, 5, 6]);
    }

    #[test]
    fn a_branch_reads_up_to_one_of_its_runs_and_no_other() {
        let facts = SessionFacts { tops: TOPS.to_vec(), ..facts(None) };
        let b = RunRows { first: 3, last: 4, branch: 1 };
        let c = RunRows { first: 5, last: 6, branch: 2 };
        let a = RunRows { first: 1, last: 2, branch: 2 };
        let held = |at: Option<Lineage>| at.map(held);
        assert_eq!(held(branch_after_run(&facts, 1, "b", Some(b)).unwrap()), Some(vec![1, 2, 3, 4]));
        assert_eq!(held(branch_after_run(&facts, 1, "a", Some(a)).unwrap()), Some(vec![1, 2]), "a is before b");
        assert_eq!(branch_after_run(&facts, 1, "c", Some(c)).unwrap(), None, "c is not in branch 1");
        assert_eq!(branch_after_run(&facts, 3, "b", Some(b)).unwrap(), None, "no branch 3");
    }

    #[test]
    fn nothing_is_held_after_the_start() {
        assert_eq!(held(Lineage::after_row(0, &TOPS)), Vec::<i64>::new());
    }

    fn facts(active_run: Option<&str>) -> SessionFacts {
        let active_run = active_run.map(Into::into);
        SessionFacts { session_id: "s".into(), top: 6, last_live: 6, tops: TOPS.to_vec(), active_run }
    }

    #[test]
    fn a_rewind_sets_aside_what_is_after_the_point_as_the_next_branch() {
        let live = RunRows { first: 5, last: 6, branch: 0 };
        let first = RunRows { first: 1, last: 1, branch: 0 };
        let to = RewindTo::After("a".into());
        assert_eq!(rewind(&facts(None), &to, Some(first)), Ok(Some(Rewind { branch: 3, cut: 1, top: 6 })));
        assert_eq!(rewind(&facts(None), &RewindTo::After("c".into()), Some(live)), Ok(None), "nothing after C");
        let before = rewind(&facts(None), &RewindTo::Before("c".into()), Some(live));
        assert_eq!(before, Ok(Some(Rewind { branch: 3, cut: 4, top: 6 })));
    }

    #[test]
    fn a_retry_sets_aside_only_the_last_run_and_nothing_for_a_run_that_added_nothing() {
        let facts = SessionFacts { last_live: 4, top: 4, tops: Vec::new(), ..facts(None) };
        let last = RunRows { first: 3, last: 4, branch: 0 };
        let retrying = RewindTo::Retrying("b".into());
        assert_eq!(rewind(&facts, &retrying, Some(last)), Ok(Some(Rewind { branch: 1, cut: 2, top: 4 })));
        assert_eq!(rewind(&facts, &retrying, None), Ok(None));
        let earlier = RunRows { first: 1, last: 2, branch: 0 };
        let refused = rewind(&facts, &RewindTo::Retrying("a".into()), Some(earlier)).unwrap_err().to_string();
        assert!(refused.contains("not the last"), "{refused}");
    }

    #[test]
    fn a_rewind_to_the_end_of_what_is_live_sets_nothing_aside_whatever_branches_lie_above() {
        // Rows 3-4 were set aside (top 4); the live history ends at row 2.
        let facts = SessionFacts { top: 4, last_live: 2, tops: vec![4], ..facts(None) };
        let a = RunRows { first: 1, last: 2, branch: 0 };
        assert_eq!(rewind(&facts, &RewindTo::After("a".into()), Some(a)), Ok(None));
        assert_eq!(
            rewind(&facts, &RewindTo::Before("a".into()), Some(a)),
            Ok(Some(Rewind { branch: 2, cut: 0, top: 4 }))
        );
    }

    #[test]
    fn a_rewind_is_refused_while_a_run_is_unfinished_or_to_a_run_set_aside() {
        let live = RunRows { first: 5, last: 6, branch: 0 };
        let to = RewindTo::After("c".into());
        let busy = rewind(&facts(Some("q")), &to, Some(live)).unwrap_err().to_string();
        assert!(busy.contains("run q queued or running"), "{busy}");
        let aside = RunRows { first: 3, last: 4, branch: 1 };
        let refused = rewind(&facts(None), &RewindTo::After("b".into()), Some(aside)).unwrap_err().to_string();
        assert!(refused.contains("set aside by rewind 1") && refused.contains("fork at it"), "{refused}");
        let nothing = rewind(&facts(None), &to, None).unwrap_err().to_string();
        assert!(nothing.contains("added nothing"), "{nothing}");
    }

    #[test]
    fn a_rewind_keeps_up_to_the_end_of_a_run_or_up_to_its_start() {
        assert_eq!(RewindTo::After("r".into()).cut(3, 4), 4);
        assert_eq!(RewindTo::Before("r".into()).cut(3, 4), 2);
    }
}
