//! The command line's grammar (clap): `tilekit`'s global options, subcommands and the `run`
//! subcommands that the kernel registry contributes. In the library so that tests can walk it
//! (every argument has help text).

use super::{Common, OutputArg, RunCommand};
use clap::{Args, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;

/// `tilekit`'s arguments.
#[derive(Parser)]
#[command(
    name = "tilekit",
    version,
    about = "CUDA's shared-memory lessons on any GPU: tiled kernels in WGSL, tile sizes planned from the adapter's limits"
)]
pub struct Cli {
    /// Part of the adapter's name (also TILEKIT_ADAPTER); WGPU_BACKEND picks the backend. A name
    /// that matches no adapter is an error listing those there are, for every subcommand.
    #[arg(long, global = true)]
    pub adapter: Option<String>,
    /// Device profile for the residency analysis (device-d, hopper, ampere, ampere-consumer,
    /// turing, rdna, apple, intel-xe, cpu, default).
    #[arg(long, global = true)]
    pub profile: Option<String>,
    /// Keep wgpu's shader runtime checks (slower; also TILEKIT_CHECKED=1).
    #[arg(long, global = true)]
    pub checked: bool,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub enum Command {
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
    Bench(BenchArgs),
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
    /// Time every matmul candidate that fits on a shape set and keep the winners in the cache
    /// that `Gpu::choose_matmul` reads (the autotuner).
    Tune {
        /// The small shape set (the default on a CPU adapter such as lavapipe).
        #[arg(long)]
        quick: bool,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Run a WGSL compute kernel on the CPU, invocation by invocation, and report its races,
    /// out-of-bounds indices, unwritten workgroup reads and divergent barriers (exactly, whatever
    /// a GPU's schedule would do), its memory traffic and its bank conflicts.
    Trace(TraceArgs),
    /// Exercises: write the lesson's kernel yourself and have it checked.
    Exercise {
        /// What to do.
        #[command(subcommand)]
        action: ExerciseAction,
    },
}

/// `tilekit exercise`'s actions.
#[derive(Subcommand)]
pub enum ExerciseAction {
    /// Every exercise, what to do, and how to start it.
    List,
    /// Write exercise NAME's starter (the lesson's kernel with its key lines as TODOs) to a file
    /// (never over an existing one).
    Start {
        /// The exercise (see `tilekit exercise list`).
        name: String,
        /// Where to write it (default: NAME.wgsl in this directory).
        file: Option<PathBuf>,
    },
    /// Run your WGSL file for exercise NAME at the shapes that catch the classic mistakes:
    /// traced first (races, bounds, counts), then on the GPU against the CPU reference.
    Check {
        /// The exercise (see `tilekit exercise list`).
        name: String,
        /// Your shader: the starter (`tilekit exercise start NAME`) with its TODOs done.
        file: PathBuf,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Write the trace's pictures (workgroup memory by epoch, bank conflicts) as SVG files
        /// into this folder (made if missing; existing files of the same names are replaced).
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
    },
}

/// `tilekit trace`'s arguments.
#[derive(Args)]
pub struct TraceArgs {
    /// The WGSL file.
    pub file: PathBuf,
    /// The compute entry point (default: the file's only one).
    #[arg(long)]
    pub entry: Option<String>,
    /// Workgroups to dispatch: X, X,Y or X,Y,Z.
    #[arg(long, default_value = "1", value_name = "X[,Y[,Z]]")]
    pub workgroups: String,
    /// An override constant: NAME=VALUE (repeat for more).
    #[arg(long = "override", value_name = "NAME=VALUE")]
    pub overrides: Vec<String>,
    /// A buffer's contents: BINDING=FILE.npy (float32, int32 or uint32), BINDING=zeros:N or
    /// BINDING=range:N; BINDING is `B` (group 0) or `G:B`. Buffers not given are made: random
    /// f32 in [-1, 1) or 0, 1, 2, … of --len elements; atomics zero.
    #[arg(long = "buffer", value_name = "BINDING=DATA")]
    pub buffers: Vec<String>,
    /// A uniform's field: NAME=VALUE (u32; repeat for more). Fields not set are 0.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Elements of each made-up runtime-sized buffer.
    #[arg(long, default_value_t = 1024)]
    pub len: u32,
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write the pictures (workgroup memory by epoch, bank conflicts) as SVG files into this
    /// folder (made if missing; existing files of the same names are replaced).
    #[arg(long, value_name = "DIR")]
    pub svg: Option<PathBuf>,
    /// After a clean trace, run the kernel on the adapter with the same buffers and compare what
    /// it leaves with what the trace left (f32 within a relative 1e-5, other words exactly).
    #[arg(long)]
    pub run: bool,
}

/// `tilekit run <kernel>`: one subcommand per registered family command.
pub struct RunCmd {
    /// The registered command.
    pub command: RunCommand,
    /// Its parsed arguments.
    pub matches: clap::ArgMatches,
}

fn run_commands() -> Vec<RunCommand> {
    crate::run::commands()
}

impl Args for RunCmd {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.subcommand_required(true)
            .subcommands(run_commands().into_iter().map(|c| {
                // A negative size reaches the size parser, which names it, instead of being taken
                // for an option.
                let sub = Common::augment_args((c.args)(clap::Command::new(c.name)))
                    .allow_negative_numbers(true);
                let sub = if c.writes {
                    OutputArg::augment_args(sub)
                } else {
                    sub
                };
                // Last: each derived `Args` sets the command's about from its own doc comment
                // ("Arguments every `run` subcommand has" had replaced every family's line).
                sub.about(c.about).long_about(None::<&str>)
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

/// `tilekit bench`'s arguments.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct BenchArgs {
    /// Small sizes (under a minute on lavapipe).
    #[arg(long)]
    pub quick: bool,
    /// Timed repeats per kernel (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeats: Option<u32>,
    /// Only kernels whose name contains this (the ceilings always run).
    #[arg(long)]
    pub filter: Option<String>,
    /// Write every repeat as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    pub json: Option<PathBuf>,
    /// Write the roofline chart (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
    /// Write a self-contained HTML report to this file.
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,
    /// Compare with an earlier --json file.
    #[arg(long, value_name = "FILE.json")]
    pub compare: Option<PathBuf>,
}
