//! The command line's argument handling on arbitrary argument lists: clap's parse, then the
//! checks that run before any GPU is opened (sizes, names, presets, the planner), never a panic.
#![no_main]
use clap::Parser;
use libfuzzer_sys::fuzz_target;
use tilekit::cli::args::{Cli, Command};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let args = std::iter::once("tilekit".to_string()).chain(text.split('\0').map(str::to_string));
    if let Ok(cli) = Cli::try_parse_from(args) {
        // `plan` with a preset runs the planner without a GPU.
        if let Command::Plan { kernel, sizes, limits, .. } = cli.command {
            if limits != "adapter" {
                let _ = tilekit::cli::commands::plan_for(&kernel, &sizes, &limits, cli.profile.as_deref(), None);
            }
        }
    }
});
