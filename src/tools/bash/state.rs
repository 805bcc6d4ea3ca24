//! Carrying the shell from one bash call to the next: starting a call from
//! the state the last one left ([`start`]), and reading the state this one
//! leaves ([`after`]).
//!
//! The command still runs as `bash -c COMMAND`, so its output, its exit
//! status and its error messages are what they would be without this. Bash
//! reads the file named by `BASH_ENV` before the command; ours removes
//! `BASH_ENV` (no child shell reads it) and sets an `EXIT` trap. When the
//! shell exits, by the command's end or its `exit`, the trap writes the
//! directory (`pwd -P`) and every exported variable, NUL-separated, to a
//! file of the call's private temporary directory, not to the output the
//! model sees. A shell killed by a signal, or one that replaced itself
//! (`exec`) or the trap, writes nothing, and the state stays as it was.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::domain::shell::{self, ShellState, MAX_VARS_BYTES};

/// The file `BASH_ENV` names, in the call's temporary directory.
const INIT_FILE: &str = ".wingman-shell-init";
/// The file the trap writes, beside it.
const STATE_FILE: &str = ".wingman-shell-state";
/// The last record of a complete state file.
const END: &[u8] = b"end";
/// The most of a state file read: far more than any state carried.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A call about to start from a carried state.
#[derive(Debug)]
pub struct Start {
    /// The work_dir with its symlinks resolved, as `pwd -P` names it.
    root: PathBuf,
    /// The directory the shell starts in.
    pub dir: PathBuf,
    /// The shell's whole environment.
    pub env: BTreeMap<String, OsString>,
    /// The environment every call gets, which the state is a difference from.
    base: BTreeMap<String, OsString>,
    /// The state the call started from (its directory the one it started in).
    from: ShellState,
    /// What the result says about the state, each a line of its own.
    pub notes: Vec<String>,
}

/// Prepares a call in `work_dir` from `state`, with the base environment
/// `base` and the call's temporary directory `tmp`: where it starts (the
/// saved directory if it still exists inside the work_dir; the work_dir
/// otherwise, which the result will say), its environment, and the file
/// that has bash report its state when it exits.
pub fn start(
    work_dir: &Path,
    state: &ShellState,
    base: BTreeMap<String, OsString>,
    tmp: &Path,
) -> std::io::Result<Start> {
    let root = work_dir.canonicalize()?;
    let mut from = state.clone();
    let mut notes = Vec::new();
    let dir = match inside(&root, &root.join(&state.dir)) {
        Some(rel) => root.join(rel),
        None => {
            notes.push(format!(
                "[the directory {} where the last call ended is gone or not inside the work_dir: this call started in the work_dir]",
                state.dir
            ));
            from.dir.clear();
            root.clone()
        }
    };
    let init = tmp.join(INIT_FILE);
    if init.as_os_str().as_bytes().iter().any(|b| matches!(b, b'$' | b'`')) {
        // Bash expands `BASH_ENV` before it reads the file.
        let why = format!("the temporary directory {} has a $ or ` in its name", tmp.display());
        return Err(std::io::Error::other(why));
    }
    std::fs::write(&init, init_script(&tmp.join(STATE_FILE)))?;
    let mut env = base.clone();
    for name in &state.unset {
        env.remove(name);
    }
    env.extend(state.vars.iter().map(|(k, v)| (k.clone(), OsString::from(v))));
    env.insert("BASH_ENV".into(), init.into_os_string());
    Ok(Start { root, dir, env, base, from, notes })
}

/// The state a call left, and the notes its result gets. `exited` is true
/// when the shell ended by itself (not killed, timed out or cancelled);
/// otherwise, or when the trap wrote nothing, the state is `None`: the
/// next call starts where this one did.
pub fn after(start: Start, exited: bool, tmp: &Path) -> (Option<ShellState>, Vec<String>) {
    let Start { root, base, from, mut notes, .. } = start;
    if !exited {
        return (None, notes);
    }
    let Some(reported) = read_file(&tmp.join(STATE_FILE)).as_deref().and_then(parse) else {
        notes.push(
            "[the shell's directory and variables could not be read after the command (it replaced the shell \
             with exec, or the EXIT trap that reports them): the next call starts where this one did]"
                .into(),
        );
        return (None, notes);
    };
    let mut state = carried(&base, &reported.vars);
    if state.vars_bytes() > MAX_VARS_BYTES {
        notes.push(format!(
            "[the exported variables take more than {} KiB: they are not carried to the next call, which gets those the last call left]",
            MAX_VARS_BYTES / 1024
        ));
        (state.vars, state.unset) = (from.vars.clone(), from.unset.clone());
    }
    state.dir = dir_after(&root, reported.dir, &from.dir, &mut notes);
    (Some(state), notes)
}

/// The directory a call ended in (`ended`, as `pwd -P` wrote it), relative
/// to the work_dir `root`; if it is not inside, the one the call started
/// in (`from`), and a note saying so.
fn dir_after(root: &Path, ended: Vec<u8>, from: &str, notes: &mut Vec<String>) -> String {
    let ended = PathBuf::from(OsString::from_vec(ended));
    if let Some(rel) = inside(root, &ended) {
        return rel;
    }
    let next = if from.is_empty() { "the work_dir" } else { from };
    notes.push(if ended.as_os_str().is_empty() {
        format!("[the shell's directory was removed: the next call starts in {next}]")
    } else {
        format!(
            "[the shell ended in {}, outside the work_dir: that is not carried over; the next call starts in {next}]",
            ended.display()
        )
    });
    from.to_string()
}

/// `path` relative to `root` (empty for `root` itself) if it is an existing
/// directory inside it, symlinks resolved, and its name is UTF-8.
fn inside(root: &Path, path: &Path) -> Option<String> {
    let real = path.canonicalize().ok().filter(|p| p.is_dir())?;
    let rel = real.strip_prefix(root).ok()?;
    rel.to_str().map(str::to_string)
}

/// What the trap runs, up to the name of the file it writes. It turns off
/// the options of the command that would stop it (`-e`, `-u`) or trace it
/// into the output (`-x`, `-v`; what they print goes nowhere), and uses
/// builtins only, whatever `PATH` the command left. A variable the command
/// exported without a value is left out, as `env` leaves it out.
const TRAP: &str = r#"{ builtin set +euvx; builtin set -o pipefail; builtin pwd -P; builtin printf '\0'; builtin compgen -e | while IFS= read -r __wingman_name; do if [[ -v $__wingman_name ]]; then builtin printf '%s=%s\0' "$__wingman_name" "${!__wingman_name}"; fi; done && builtin printf 'end\0'; } 2>/dev/null >"#;

/// The script bash reads before the command: it removes itself from the
/// environment and sets the trap that writes the state to `state_file`.
fn init_script(state_file: &Path) -> Vec<u8> {
    let mut trap = TRAP.as_bytes().to_vec();
    trap.extend(quoted(state_file.as_os_str().as_bytes()));
    let mut script = b"unset BASH_ENV\ntrap ".to_vec();
    script.extend(quoted(&trap));
    script.extend_from_slice(b" EXIT\n");
    script
}

/// A word the shell reads back as exactly `bytes`: single-quoted, with each
/// `'` closed, escaped and reopened.
fn quoted(bytes: &[u8]) -> Vec<u8> {
    let mut word = vec![b'\''];
    for &b in bytes {
        match b {
            b'\'' => word.extend_from_slice(br"'\''"),
            b => word.push(b),
        }
    }
    word.push(b'\'');
    word
}

/// The state file's bytes, if the trap wrote one of a sane size.
fn read_file(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path).ok()?.take(MAX_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// What the trap reported of the shell as it exited.
#[derive(Debug, PartialEq)]
struct Reported {
    /// The directory as `pwd -P` printed it; empty if it had been removed.
    dir: Vec<u8>,
    /// Every exported variable that has a value, with its value.
    vars: Vec<(String, Vec<u8>)>,
}

/// Reads a complete state file: `DIR\n\0NAME=VALUE\0…end\0`.
fn parse(bytes: &[u8]) -> Option<Reported> {
    let mut records: Vec<&[u8]> = bytes.split(|b| *b == 0).collect();
    // A complete file ends with the END record and its NUL.
    if records.pop() != Some(&[][..]) || records.pop() != Some(END) || records.is_empty() {
        return None;
    }
    let dir = records[0].strip_suffix(b"\n").unwrap_or(records[0]).to_vec();
    let vars = records[1..]
        .iter()
        .filter_map(|record| {
            let eq = record.iter().position(|b| *b == b'=')?;
            let name = std::str::from_utf8(&record[..eq]).ok()?;
            Some((name.to_string(), record[eq + 1..].to_vec()))
        })
        .collect();
    Some(Reported { dir, vars })
}

/// What a shell's exported variables `after` a call change in the base
/// environment: variables set to another value (or new), and base ones
/// removed. Only what [`shell::is_carried`] allows counts, and a value that
/// is not UTF-8 is left out.
fn carried(base: &BTreeMap<String, OsString>, after: &[(String, Vec<u8>)]) -> ShellState {
    let mut state = ShellState::default();
    for (name, value) in after.iter().filter(|(name, _)| shell::is_carried(name)) {
        if base.get(name).is_some_and(|b| b.as_bytes() == value.as_slice()) {
            continue;
        }
        if let Ok(value) = String::from_utf8(value.clone()) {
            state.vars.insert(name.clone(), value);
        }
    }
    let present: Vec<&str> = after.iter().map(|(name, _)| name.as_str()).collect();
    state.unset =
        base.keys().filter(|name| shell::is_carried(name) && !present.contains(&name.as_str())).cloned().collect();
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> BTreeMap<String, OsString> {
        [("PATH", "/usr/bin"), ("HOME", "/w"), ("TMPDIR", "/t/1"), ("LANG", "C")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect()
    }

    fn vars(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter().map(|(k, v)| (k.to_string(), v.as_bytes().to_vec())).collect()
    }

    #[test]
    fn a_complete_state_file_gives_the_directory_and_every_variable() {
        let file = b"/w/src\n\0X=1\0MULTI=a\nb=c\0EMPTY=\0end\0";
        let reported = parse(file).unwrap();
        assert_eq!(reported.dir, b"/w/src");
        assert_eq!(reported.vars, vars(&[("X", "1"), ("MULTI", "a\nb=c"), ("EMPTY", "")]));
        let removed = parse(b"\0end\0").unwrap();
        assert!(removed.dir.is_empty(), "pwd failed: the directory was removed");
    }

    #[test]
    fn a_cut_or_foreign_state_file_gives_nothing() {
        for bad in [&b""[..], b"/w\n\0X=1\0", b"/w\n\0X=1\0end", b"end\0", b"/w\n\0X=1\0en\0"] {
            assert_eq!(parse(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn only_changes_to_the_base_environment_are_carried() {
        let after = vars(&[
            ("PATH", "/usr/bin:/w/bin"),
            ("HOME", "/w"),
            ("X", "1"),
            ("PWD", "/w/src"),
            ("SHLVL", "1"),
            ("OLDPWD", "/w"),
            ("TMPDIR", "/elsewhere"),
            ("BASH_FUNC_f%%", "() { :; }"),
        ]);
        let state = carried(&base(), &after);
        let expected: BTreeMap<String, String> =
            [("PATH", "/usr/bin:/w/bin"), ("X", "1")].into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        assert_eq!(state.vars, expected);
        assert_eq!(state.unset.iter().collect::<Vec<_>>(), ["LANG"], "TMPDIR is never carried, even gone");
        let mut odd = vars(&[("Y", "")]);
        odd[0].1 = vec![0xff, 0xfe];
        assert!(carried(&base(), &odd).vars.is_empty(), "a value that is not UTF-8 is left out");
    }

    #[test]
    fn a_quoted_word_survives_any_quote_in_it() {
        assert_eq!(quoted(b"/tmp/a b"), b"'/tmp/a b'");
        assert_eq!(quoted(b"it's"), br"'it'\''s'");
        // Read back by bash itself: the trap it sets names the file exactly.
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("it's \"odd\" \\ dir");
        std::fs::create_dir(&odd).unwrap();
        std::fs::write(odd.join(INIT_FILE), init_script(&odd.join(STATE_FILE))).unwrap();
        let status = std::process::Command::new("bash")
            .args(["-c", "cd /; export X=1"])
            .env("BASH_ENV", odd.join(INIT_FILE))
            .status()
            .unwrap();
        assert!(status.success());
        let reported = parse(&std::fs::read(odd.join(STATE_FILE)).unwrap()).unwrap();
        assert_eq!(reported.dir, b"/");
        assert!(reported.vars.contains(&("X".to_string(), b"1".to_vec())), "{:?}", reported.vars);
        assert!(!reported.vars.iter().any(|(name, _)| name == "BASH_ENV"), "the script removed itself");
    }

    #[test]
    fn a_start_falls_back_to_the_work_dir_when_the_saved_one_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("src")).unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let mut state = ShellState { dir: "src".into(), ..Default::default() };
        state.vars.insert("X".into(), "1".into());
        state.unset.insert("LANG".into());
        let kept = start(&work, &state, base(), &tmp).unwrap();
        assert_eq!(kept.dir, work.canonicalize().unwrap().join("src"));
        assert!(kept.notes.is_empty());
        assert_eq!(kept.env.get("X"), Some(&OsString::from("1")));
        assert!(!kept.env.contains_key("LANG") && kept.env.contains_key("BASH_ENV"));
        state.dir = "gone".into();
        let fell_back = start(&work, &state, base(), &tmp).unwrap();
        assert_eq!(fell_back.dir, work.canonicalize().unwrap());
        assert!(fell_back.notes[0].contains("gone"), "{:?}", fell_back.notes);
        state.dir = "..".into();
        assert_eq!(start(&work, &state, base(), &tmp).unwrap().dir, work.canonicalize().unwrap(), "never outside");
        let expanded = dir.path().join("$HOME");
        std::fs::create_dir(&expanded).unwrap();
        let refused = start(&work, &state, base(), &expanded).unwrap_err();
        assert!(refused.to_string().contains("has a $ or `"), "BASH_ENV would be expanded: {refused}");
    }

    #[test]
    fn a_directory_outside_the_work_dir_is_not_carried_and_the_result_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("src")).unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        let from = ShellState { dir: "src".into(), ..Default::default() };
        let write = |dir: &Path| {
            let mut file = dir.as_os_str().as_bytes().to_vec();
            file.extend_from_slice(b"\n\0X=2\0end\0");
            std::fs::write(tmp.join(STATE_FILE), file).unwrap();
        };
        write(Path::new("/"));
        let (state, notes) = after(start(&work, &from, base(), &tmp).unwrap(), true, &tmp);
        let state = state.unwrap();
        assert_eq!((state.dir.as_str(), state.vars["X"].as_str()), ("src", "2"), "the variables still are");
        assert!(
            notes[0].contains("ended in /, outside the work_dir") && notes[0].contains("starts in src"),
            "{notes:?}"
        );
        write(&work.canonicalize().unwrap());
        let (state, notes) = after(start(&work, &from, base(), &tmp).unwrap(), true, &tmp);
        assert_eq!(state.unwrap().dir, "", "back at the work_dir itself");
        assert!(notes.is_empty(), "{notes:?}");
        let (state, notes) = after(start(&work, &from, base(), &tmp).unwrap(), false, &tmp);
        assert!(state.is_none() && notes.is_empty(), "a killed shell's state is not read");
        std::fs::remove_file(tmp.join(STATE_FILE)).unwrap();
        let (state, notes) = after(start(&work, &from, base(), &tmp).unwrap(), true, &tmp);
        assert!(state.is_none() && notes[0].contains("could not be read"), "{notes:?}");
    }
}
