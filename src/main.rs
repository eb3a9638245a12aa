//! The `tilekit` command (`tilekit::cli::main`).

fn main() -> std::process::ExitCode {
    tilekit::cli::main()
}
