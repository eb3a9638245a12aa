//! The command line's argument handling on arbitrary argument lists: clap's parse, then the
//! checks that run before any GPU is opened (sizes, names, presets, the planner), never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let args: Vec<String> = std::iter::once("tilekit".to_string())
        .chain(text.split('\0').map(str::to_string))
        .collect();
    tilekit::cli::fuzzing::cli_args(&args);
});
