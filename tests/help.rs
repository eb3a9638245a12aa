#![cfg(feature = "cli")]
//! Every argument of every subcommand has help text (`--help` leaves none without a word), and
//! the registry's `run` subcommands each say what they do.

use clap::CommandFactory;
use tilekit::cli::args::Cli;

fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>, count: &mut usize) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        *count += 1;
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        if help.trim().is_empty() {
            missing.push(format!("{path} {id}"));
        }
    }
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        if sub.get_about().is_none() {
            missing.push(format!("{path} {} (the subcommand)", sub.get_name()));
        }
        walk(sub, &format!("{path} {}", sub.get_name()), missing, count);
    }
}

#[test]
fn every_argument_has_help_text() {
    let cmd = Cli::command();
    let (mut missing, mut count) = (Vec::new(), 0);
    walk(&cmd, "tilekit", &mut missing, &mut count);
    assert!(missing.is_empty(), "without help text: {missing:#?}");
    assert!(count > 60, "only {count} arguments found");
}
