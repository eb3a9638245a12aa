//! The `tilekit` command, built on the public APIs of `tilekit` and `tilekit-course`: its grammar
//! ([`command`]), its subcommands, and [`main`]. The `run` subcommands are registered in
//! `run/mod.rs`, one file per family beside what they share; the bench's cases likewise in
//! `bench/`. Everything here is private to the crate but for [`main`],
//! [`command`] (for tests that walk the grammar), [`SCHEMA`] and the fuzz targets' entry points.

pub(crate) mod args;
pub(crate) mod bench;
pub(crate) mod commands;
pub(crate) mod error;
pub(crate) mod npy;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod read;
pub(crate) mod run;
pub(crate) mod trace;

pub(crate) use run::*;
pub(crate) use tilekit_course::units;

use args::{Cli, Command};
use clap::Parser;
use commands::Globals;
use std::process::ExitCode;

pub use run::SCHEMA;

/// The command's grammar (clap), to walk: every argument has help text (`tests/help.rs`).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

fn dispatch(cli: Cli) -> Result<(), Fail> {
    let g = Globals {
        adapter: cli.adapter,
        profile: cli.profile,
        checked: cli.checked,
    };
    g.check_adapter()?;
    match cli.command {
        Command::Info { json } => commands::info(&g, json),
        Command::Plan {
            kernel,
            sizes,
            limits,
            json,
        } => plan::plan(&g, &kernel, &sizes, &limits, json),
        Command::Run(r) => commands::run(&g, &r.command, &r.matches),
        Command::Bench(a) => commands::bench(&g, a),
        Command::Tour {
            quick,
            full,
            json,
            html,
        } => commands::tour(&g, quick, full, json, html),
        Command::Trace(a) => trace::trace(g.options(), a),
        Command::Exercise { action } => commands::exercise(&g, action),
        Command::Tune { quick, json } => commands::tune(&g, quick, json),
    }
}

/// The `tilekit` command: parse the process's arguments, run the subcommand, print its answer
/// (text, or one JSON object with `--json`), and return the exit code: 0, 1 for a result that did
/// not verify, 2 for bad input. `src/main.rs` is this call.
pub fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a closed pipe (`tilekit info | head -1`) made every print panic;
    // the default action ends the process quietly, as other command-line tools do.
    #[cfg(unix)]
    // SAFETY: called first in main, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Mesa's software drivers complain on every start when this is unset; nothing else reads it.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    // The library's warnings as the command's own ("warning: ..."), not in a logger's format;
    // RUST_LOG=debug adds where each comes from.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|buf, record| {
            use std::io::Write;
            match record.level() {
                log::Level::Error => writeln!(buf, "error: {}", record.args()),
                log::Level::Warn => writeln!(buf, "warning: {}", record.args()),
                level => writeln!(
                    buf,
                    "{}: {}: {}",
                    level.as_str().to_lowercase(),
                    record.target(),
                    record.args()
                ),
            }
        })
        .init();
    // With --json, stdout holds one JSON object whatever happens (errors included); `bench
    // --json FILE` writes to a file and prints its table.
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json") && !args.iter().any(|a| a == "bench");
    let result = match Cli::try_parse() {
        Ok(cli) => dispatch(cli),
        Err(e) if !json || !e.use_stderr() => e.exit(),
        Err(e) => Err(Fail::from(e)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.message());
            if json && !matches!(f, Fail::Reported(_)) {
                commands::print_error(&f);
            }
            ExitCode::from(f.code())
        }
    }
}

/// Entry points for the fuzz targets (`fuzz/`): not an API.
#[doc(hidden)]
pub mod fuzzing {
    /// The `.npy` reader on arbitrary bytes: a typed error or an array whose length matches its
    /// shape, which writes back and reads again to the same shape and dtype. Panics otherwise.
    pub fn npy(data: &[u8]) {
        use crate::npy;
        use std::io::Cursor;
        use std::path::Path;
        let len = data.len() as u64;
        if let Ok(a) = npy::read_from(Cursor::new(data), Some(len), Path::new("fuzz.npy")) {
            let elems: u64 = a.shape.iter().product();
            assert_eq!(a.data.len() as u64, elems);
            let bytes = npy::to_bytes(&a).expect("a read array serialises");
            let b = npy::read_from(
                Cursor::new(&bytes),
                Some(bytes.len() as u64),
                Path::new("again.npy"),
            )
            .expect("tilekit reads what it writes");
            assert_eq!(a.shape, b.shape);
            assert_eq!(a.data.dtype(), b.data.dtype());
        }
    }

    /// [`cli_args`] on a fuzzer's bytes: the arguments are the text split at NUL bytes.
    pub fn cli_bytes(data: &[u8]) {
        let text = String::from_utf8_lossy(data);
        let args: Vec<String> = std::iter::once("tilekit".to_string())
            .chain(text.split('\0').map(str::to_string))
            .collect();
        cli_args(&args);
    }

    /// The argument handling on an argument list: clap's parse, then the checks that run before
    /// any GPU is opened (sizes, names, presets, the planner). Panics if any of them does.
    pub fn cli_args(args: &[String]) {
        use clap::Parser;
        if let Ok(cli) = super::args::Cli::try_parse_from(args) {
            if let super::args::Command::Plan {
                kernel,
                sizes,
                limits,
                ..
            } = cli.command
            {
                if limits != "adapter" {
                    let _ = super::plan::plan_for(
                        &kernel,
                        &sizes,
                        &limits,
                        cli.profile.as_deref(),
                        None,
                    );
                }
            }
        }
    }
}
