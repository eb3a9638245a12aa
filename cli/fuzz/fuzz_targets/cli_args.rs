//! The command line's argument handling on arbitrary argument lists: clap's parse, then the
//! checks that run before any GPU is opened (sizes, names, presets, the planner), never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tilekit_cli::fuzzing::cli_bytes(data));
