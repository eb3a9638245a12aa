//! The `tilekit` command (`tilekit_cli::main`).

fn main() -> std::process::ExitCode {
    tilekit_cli::main()
}
