//! The `evokb` binary: parses the command line, runs the command, and maps its outcome to an
//! exit code. Everything else lives in the library crates.
//!
//! A panic inside a dependency (redb reading a damaged page is the known case) is caught at the
//! command boundary and reported like any other store failure: exit 5, with the message and the
//! way to rebuild the store, never Rust's default backtrace print and exit 101.

mod args;
mod cli;
mod clock;
mod commands;
mod error;
mod exe;
#[cfg(feature = "git")]
mod git;
mod progress;
mod root;

use std::io::Write;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::sync::Mutex;

use clap::Parser;

use crate::error::{CommandError, ErrorKind};

/// The message and location of the last panic, kept by the panic hook for the report.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an unknown failure".to_string());
        let text = match info.location() {
            Some(l) => format!("{message} (at {}:{})", l.file(), l.line()),
            None => message,
        };
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(text);
        }
    }));
    let outcome = std::panic::catch_unwind(|| commands::run(&args));
    let result = match outcome {
        Ok(result) => result,
        Err(_) => {
            let message = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut m| m.take())
                .unwrap_or_else(|| "an unknown failure".to_string());
            Err(CommandError::new(
                ErrorKind::Store,
                format!(
                    "internal error in a dependency while running 'evokb {}'; the store may be damaged: {message}",
                    command_words()
                ),
            )
            .damage_hints())
        }
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if err.is_broken_pipe() {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(std::io::stderr().lock(), "evokb: {}", err.full_text());
            ExitCode::from(err.kind.exit_code())
        }
    }
}

/// The subcommand of the command line (`list`, `queue show`), for messages.
fn command_words() -> String {
    let mut words = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--root" {
            args.next();
        } else if a.starts_with('-') {
            if words.is_empty() {
                continue;
            }
            break;
        } else {
            let group = matches!(
                a.as_str(),
                "queue" | "stats" | "timeline" | "errors" | "rounds" | "chart" | "hooks"
            );
            words.push(a);
            if !group {
                break;
            }
        }
    }
    words.join(" ")
}
