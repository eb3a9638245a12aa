//! The `tilekit` command: it parses the arguments and hands each subcommand to the library
//! (`tilekit::cli::commands`); the `run` subcommands come from the kernel registry.

use clap::{Args, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tilekit::cli::commands::{self, Globals};
use tilekit::cli::{Common, Fail, OutputArg, RunCommand};

#[derive(Parser)]
#[command(
    name = "tilekit",
    version,
    about = "CUDA's shared-memory lessons on any GPU: tiled kernels in WGSL, tile sizes planned from the adapter's limits"
)]
struct Cli {
    /// Part of the adapter's name (also TILEKIT_ADAPTER); WGPU_BACKEND picks the backend. A name
    /// that matches no adapter is an error listing those there are, for every subcommand.
    #[arg(long, global = true)]
    adapter: Option<String>,
    /// Device profile for the residency analysis (device-d, hopper, ampere, ampere-consumer,
    /// turing, rdna, apple, intel-xe, cpu, default).
    #[arg(long, global = true)]
    profile: Option<String>,
    /// Keep wgpu's shader runtime checks (slower; also TILEKIT_CHECKED=1).
    #[arg(long, global = true)]
    checked: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The adapters on every backend and their compute limits (as cudaGetDeviceProperties).
    Info {
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// The planner's table for a kernel: candidates, residency, the choice and why.
    Plan {
        /// The kernel: tiled-matmul, blocked-matmul, reduce, reverse, transpose, blur.
        kernel: String,
        /// Its sizes: M K N for matmul, N for reduce/reverse, M N for transpose, W H R for blur.
        sizes: Vec<u64>,
        /// Whose limits: adapter (the one tilekit opens), or a preset for a platform this
        /// machine cannot run: webgpu-default, apple-m, dx12, gl, lavapipe, h100.
        #[arg(long, default_value = "adapter")]
        limits: String,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run one kernel on random or .npy data, verify it, print its time and plan.
    Run(RunCmd),
    /// Every kernel against the ceilings measured in the same run.
    Bench(commands::BenchArgs),
    /// Run every lesson in order, verified, with a summary.
    Tour {
        /// Small sizes (the default on a CPU adapter such as lavapipe).
        #[arg(long)]
        quick: bool,
        /// GPU-sized inputs even on a CPU adapter.
        #[arg(long, conflicts_with = "quick")]
        full: bool,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Write a self-contained HTML report to this file.
        #[arg(long, value_name = "FILE.html")]
        html: Option<PathBuf>,
    },
}

/// `tilekit run <kernel>`: one subcommand per registered family command.
struct RunCmd {
    command: RunCommand,
    matches: clap::ArgMatches,
}

fn run_commands() -> Vec<RunCommand> {
    tilekit::kernels::FAMILIES
        .iter()
        .flat_map(|f| f.commands())
        .collect()
}

impl Args for RunCmd {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.subcommand_required(true)
            .subcommands(run_commands().into_iter().map(|c| {
                let sub = clap::Command::new(c.name).about(c.about);
                let sub = Common::augment_args((c.args)(sub));
                if c.writes {
                    OutputArg::augment_args(sub)
                } else {
                    sub
                }
            }))
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for RunCmd {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let command = run_commands()
            .into_iter()
            .find(|c| c.name == name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        Ok(RunCmd {
            command,
            matches: sub.clone(),
        })
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
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
        } => commands::plan(&g, &kernel, &sizes, &limits, json),
        Command::Run(r) => commands::run(&g, &r.command, &r.matches),
        Command::Bench(a) => commands::bench(&g, a),
        Command::Tour {
            quick,
            full,
            json,
            html,
        } => commands::tour(&g, quick, full, json, html),
    }
}

fn main() -> ExitCode {
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
