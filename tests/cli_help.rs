//! Every command of the command line says what it does, and every flag and
//! argument what it is for: the whole tree of subcommands is walked (so a
//! new one is covered by default), in the binary's own `--help` too.

use std::process::Command;

use clap::CommandFactory;
use wingman::cli::Cli;

/// Each command's path (`["fleet", "run"]`) with the command.
fn commands() -> Vec<(Vec<String>, clap::Command)> {
    let mut found = Vec::new();
    let mut stack = vec![(Vec::new(), Cli::command())];
    while let Some((path, command)) = stack.pop() {
        for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut sub_path = path.clone();
            sub_path.push(sub.get_name().to_string());
            stack.push((sub_path, sub.clone()));
        }
        found.push((path, command));
    }
    found
}

#[test]
fn every_command_flag_and_argument_has_a_help_line() {
    let mut missing = Vec::new();
    let commands = commands();
    assert!(commands.len() > 50, "the walk reaches every command: {}", commands.len());
    for (path, command) in &commands {
        let name = format!("wingman {}", path.join(" "));
        if !path.is_empty() && command.get_about().is_none_or(|a| a.to_string().trim().is_empty()) {
            missing.push(format!("{name}: no description"));
        }
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if arg.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                missing.push(format!("{name}: {id} has no help line"));
            }
        }
    }
    assert!(missing.is_empty(), "{} without a help line:\n{}", missing.len(), missing.join("\n"));
}

#[test]
fn every_commands_help_prints_and_names_its_flags() {
    for (path, command) in commands() {
        let out = Command::new(env!("CARGO_BIN_EXE_wingman")).args(&path).arg("--help").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "wingman {} --help: {}", path.join(" "), String::from_utf8_lossy(&out.stderr));
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                assert!(
                    text.contains(&format!("--{long}")),
                    "wingman {} --help names --{long}:\n{text}",
                    path.join(" ")
                );
            }
        }
    }
}
