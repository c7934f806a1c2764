//! The `evokb` binary: parses the command line, runs the command, and maps its outcome to an
//! exit code. Everything else lives in the library crates.

mod args;
mod cli;
mod clock;
mod commands;
mod error;
#[cfg(feature = "git")]
mod git;
mod root;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match commands::run(&args) {
        Ok(code) => code,
        Err(err) => {
            if err.is_broken_pipe() {
                return ExitCode::SUCCESS;
            }
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "evokb: {err}");
            for detail in &err.details {
                let _ = writeln!(stderr, "  {detail}");
            }
            for hint in &err.hints {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            ExitCode::from(err.kind.exit_code())
        }
    }
}
