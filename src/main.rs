//! The `tilekit` command: it parses the arguments and hands each subcommand to the library
//! (`tilekit::cli::commands`); the `run` subcommands come from the kernel registry.

use clap::Parser;
use std::process::ExitCode;
use tilekit::cli::args::{Cli, Command};
use tilekit::cli::commands::{self, Globals};
use tilekit::cli::Fail;

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
        } => commands::plan(&g, &kernel, &sizes, &limits, json),
        Command::Run(r) => commands::run(&g, &r.command, &r.matches),
        Command::Bench(a) => commands::bench(&g, a),
        Command::Tour {
            quick,
            full,
            json,
            html,
        } => commands::tour(&g, quick, full, json, html),
        Command::Exercise { action } => commands::exercise(&g, action),
        Command::Tune { quick, json } => commands::tune(&g, quick, json),
    }
}

fn main() -> ExitCode {
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
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
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
            if json {
                commands::print_error(&f);
            }
            ExitCode::from(f.code())
        }
    }
}
