//! CPU time of each security check on its own (injection, hidden, decoded, paths), for seeing
//! which of them a change made cheaper:
//!
//! ```text
//! cargo build --release -p evokb-lint --example time_parts
//! target/release/examples/time_parts ROUNDS KB_DIR          # cold: caches emptied each round
//! WARM=1 target/release/examples/time_parts ROUNDS KB_DIR   # caches kept: only the first round is cold
//! ```
//!
//! Runs each check over every markdown file under `KB_DIR` (e.g. an `evokb-synth` corpus)
//! `ROUNDS` times and prints the mean milliseconds per round and the findings. Paths are
//! checked without a repository root or entry directory, so the symlink questions that `lint`
//! asks are not part of the figure.

use std::path::Path;
use std::time::Instant;

#[path = "../tests/support/walk.rs"]
mod walk;

type Check = fn(&str) -> usize;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let Some(dir) = args.get(2) else {
        eprintln!("usage: time_parts ROUNDS KB_DIR");
        std::process::exit(2);
    };
    let texts = walk::md_texts(Path::new(dir));
    let checks: [(&str, Check); 4] = [
        ("injection", |t| evokb_lint::check_injection(t).len()),
        ("hidden", |t| evokb_lint::check_hidden(t).len()),
        ("decoded", |t| evokb_lint::check_decoded(t).len()),
        ("paths", |t| evokb_lint::check_paths(t, None, None).len()),
    ];
    let warm = std::env::var_os("WARM").is_some();
    let mut seconds = [0f64; 4];
    let mut findings = [0usize; 4];
    for _ in 0..rounds {
        if !warm {
            evokb_lint::clear_caches();
        }
        evokb_lint::warm_up();
        for (k, (_, check)) in checks.iter().enumerate() {
            let start = Instant::now();
            findings[k] += texts.iter().map(|t| check(t)).sum::<usize>();
            seconds[k] += start.elapsed().as_secs_f64();
        }
    }
    for (k, (name, _)) in checks.iter().enumerate() {
        println!(
            "{name:10} {:8.1} ms/round  findings {}",
            seconds[k] * 1000.0 / rounds as f64,
            findings[k] / rounds
        );
    }
}
