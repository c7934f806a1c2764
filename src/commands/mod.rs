//! Command dispatch: one function per subcommand, each returning the exit code or an error.

mod records;
mod sync;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::error::CmdResult;

/// Runs the parsed command line.
pub fn run(cli: &Cli) -> CmdResult {
    let root = cli.root.as_deref();
    match &cli.command {
        Command::Init => sync::init(root),
        Command::Import { json, prefer } => sync::import(root, *json, *prefer),
        Command::Render { out, check, force } => sync::render(root, out.as_deref(), *check, *force),
        Command::Verify { json } => sync::verify(root, *json),
        Command::Get { id, kind, json } => records::get(root, id, *kind, *json),
        Command::Set { id, field, value, kind } => records::set(root, id, *kind, field, value),
        Command::Add { file, source } => records::add(root, file, source.as_deref()),
        Command::List { kind, json } => records::list(root, *kind, *json),
        Command::GenCorpus { entries, seed, dir } => {
            evokb_export::synth::write_kb(dir, *entries, *seed)?;
            print(&format!(
                "wrote a synthetic knowledge base with {entries} entries to {}\n",
                dir.display()
            ))?;
            ok()
        }
    }
}

/// Writes `text` to stdout in one go; a closed pipe is reported as such so `main` can exit 0.
pub fn print(text: &str) -> CmdResult<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Serialises `value` as pretty JSON followed by a newline.
pub fn print_json(value: &serde_json::Value) -> CmdResult<()> {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    print(&text)
}

/// Exit code 0.
pub fn ok() -> CmdResult {
    Ok(ExitCode::SUCCESS)
}
