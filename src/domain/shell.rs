//! A session's shell state: what `bash` carries from one call to the next.
//!
//! Each bash call runs in a fresh process, so what a model means by
//! `cd src` or `export X=1` would be lost with it. The worker therefore
//! reads, after each call, the directory the shell ended in and the
//! variables it exported, and starts the next call from them. The state is
//! checkpointed with the call's result, in the same write, so the state a
//! call starts from is exactly what the last committed call left: a call
//! repeated after a crash starts from the state it first started from.
//!
//! This module holds the state and its rules; reading it from a shell and
//! starting a shell from it is the bash tool's.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::domain::checkpoint::{tool_calls_of, Checkpoint, CheckpointBody};
use crate::domain::model::{Run, RunKind};

/// Where the shell was and what it had exported after a bash call, as a
/// difference from the environment the worker gives every call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellState {
    /// The directory, relative to the work_dir (empty: the work_dir itself).
    #[serde(default)]
    pub dir: String,
    /// Variables the shell exported with a value other than the base one.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    /// Variables of the base environment the shell removed.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub unset: BTreeSet<String>,
}

/// Variables never carried: the shell's own bookkeeping, which bash sets
/// for itself, and `TMPDIR`, which is each call's private directory (and
/// `BASH_ENV`, through which the worker reads the state).
pub const NOT_CARRIED: &[&str] = &["PWD", "OLDPWD", "SHLVL", "_", "TMPDIR", "BASH_ENV"];

/// The most bytes of variable names and values carried from call to call:
/// the state is stored with every call that changes it.
pub const MAX_VARS_BYTES: usize = 64 * 1024;

impl ShellState {
    /// The bytes of names and values its variables hold.
    pub fn vars_bytes(&self) -> usize {
        self.vars.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
            + self.unset.iter().map(String::len).sum::<usize>()
    }
}

/// True for a variable a call may carry to the next: a plain name
/// (`[A-Za-z_][A-Za-z0-9_]*`; exported functions are not), not one of
/// [`NOT_CARRIED`].
pub fn is_carried(name: &str) -> bool {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain && !NOT_CARRIED.contains(&name)
}

/// True when the run's session keeps the state for its next runs: a
/// message's run does. A fleet task's session is its own and ends with it,
/// and a run without a session has nowhere to keep it: their state lives in
/// their own checkpoints only.
pub fn kept_by_session(run: &Run) -> bool {
    run.kind == RunKind::Message && run.session_id.is_some()
}

/// The state the newest bash call of a run left, from its checkpoints: the
/// latest step's, and within a step the call the model asked for last
/// (calls that change the shell run one at a time, in the model's order).
pub fn newest(checkpoints: &[Checkpoint]) -> Option<&ShellState> {
    checkpoints
        .iter()
        .filter_map(|c| match &c.body {
            CheckpointBody::Shell { call_id, state } => {
                Some(((c.step, place_in_step(checkpoints, c.step, call_id)), state))
            }
            _ => None,
        })
        .max_by_key(|(at, _)| *at)
        .map(|(_, state)| state)
}

/// Where a call comes among the calls its step's answer asked for.
fn place_in_step(checkpoints: &[Checkpoint], step: u32, call_id: &str) -> usize {
    checkpoints
        .iter()
        .find_map(|c| match &c.body {
            CheckpointBody::Inference { message, .. } if c.step == step => {
                tool_calls_of(message).iter().position(|call| call.id == call_id)
            }
            _ => None,
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::model::{Content, Message, Role, Usage};
    use serde_json::json;

    fn inference(step: u32, calls: &[&str]) -> Checkpoint {
        let content = calls
            .iter()
            .map(|id| Content::ToolUse { id: (*id).into(), name: "bash".into(), input: json!({}) })
            .collect();
        Checkpoint {
            step,
            body: CheckpointBody::Inference {
                message: Message { role: Role::Assistant, content },
                usage: Usage::default(),
                stop_reason: "tool_use".into(),
            },
        }
    }

    fn shell(step: u32, call_id: &str, dir: &str) -> Checkpoint {
        let state = ShellState { dir: dir.into(), ..Default::default() };
        Checkpoint { step, body: CheckpointBody::Shell { call_id: call_id.into(), state } }
    }

    #[test]
    fn the_newest_state_is_the_last_steps_last_call_whatever_the_stored_order() {
        assert_eq!(newest(&[]), None);
        // Stored order within a step follows the clock and then the call ID,
        // which need not be the order the calls ran in.
        let cps = vec![
            inference(1, &["z"]),
            shell(1, "z", "one"),
            inference(2, &["b", "a"]),
            shell(2, "a", "two-second"),
            shell(2, "b", "two-first"),
        ];
        assert_eq!(newest(&cps).map(|s| s.dir.as_str()), Some("two-second"));
        assert_eq!(newest(&cps[..2]).map(|s| s.dir.as_str()), Some("one"));
    }

    #[test]
    fn only_plain_names_that_are_not_the_shells_own_are_carried() {
        for name in ["X", "_x1", "PATH", "HOME", "GIT_DIR"] {
            assert!(is_carried(name), "{name}");
        }
        for name in ["PWD", "OLDPWD", "SHLVL", "_", "TMPDIR", "BASH_ENV", "BASH_FUNC_f%%", "1X", "A-B", ""] {
            assert!(!is_carried(name), "{name}");
        }
    }

    #[test]
    fn a_state_reads_and_writes_as_small_json() {
        let mut state = ShellState { dir: "src".into(), ..Default::default() };
        assert_eq!(serde_json::to_value(&state).unwrap(), json!({"dir": "src"}));
        state.vars.insert("X".into(), "1".into());
        state.unset.insert("TERM".into());
        let text = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<ShellState>(&text).unwrap(), state);
        assert_eq!(serde_json::from_str::<ShellState>("{}").unwrap(), ShellState::default());
        assert_eq!(state.vars_bytes(), 6);
    }
}
