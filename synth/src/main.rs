//! `evokb-synth --entries N [--seed S] DIR`: writes a synthetic knowledge base in the real
//! format, for benchmarks and scale runs (`scripts/timings.sh`). Not part of the `evokb` CLI.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// The most entries one corpus holds.
const MAX_ENTRIES: usize = 1_000_000;

fn entries(s: &str) -> Result<usize, String> {
    let expected = format!("expected a whole number from 1 to {MAX_ENTRIES}");
    let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a number; {expected}"))?;
    if n == 0 || n > MAX_ENTRIES {
        return Err(format!("{n} is out of range; {expected}"));
    }
    Ok(n)
}

/// Write a synthetic knowledge base in the real format.
#[derive(Parser)]
#[command(name = "evokb-synth", version)]
struct Args {
    /// How many entries (1 to 1000000)
    #[arg(long, default_value_t = 10_000, value_parser = entries)]
    entries: usize,
    /// The random seed
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Topic files per topic (7 topics); e.g. 715 gives ~5,000 files of ~20 entries at 100k
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    files_per_topic: u64,
    /// Where to write it
    dir: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match evokb_synth::write_kb_shaped(
        &args.dir,
        args.entries,
        args.seed,
        args.files_per_topic as usize,
    ) {
        Ok(()) => {
            println!(
                "wrote a synthetic knowledge base with {} entries to {}",
                args.entries,
                args.dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("evokb-synth: cannot write '{}': {e}", args.dir.display());
            ExitCode::from(5)
        }
    }
}
