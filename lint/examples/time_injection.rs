//! CPU-time probe of `check_injection` (issue #10 point 3), for comparing two builds on a busy
//! machine where criterion's wall-clock figures drift with the load:
//!
//! ```text
//! cargo build --release -p evokb-lint --example time_injection
//! /usr/bin/time -f "%U %S" target/release/examples/time_injection ROUNDS [KB_DIR]
//! ```
//!
//! Runs `check_injection` over every markdown file of the real sample (and of `KB_DIR`, e.g. a
//! generated corpus) `ROUNDS` times, emptying the per-line caches before each round (a cold
//! pass, as in the first pass of a process); prints the number of findings so the work is not
//! optimised away. Compare the user time of two builds; `ROUNDS 0` gives the cost of reading
//! the files.

use std::path::Path;

#[path = "../tests/support/walk.rs"]
mod walk;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut texts =
        walk::md_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tilelang-kb"));
    if let Some(d) = args.get(2) {
        texts.extend(walk::md_texts(Path::new(d)));
    }
    let lines: usize = texts.iter().map(|t| t.lines().count()).sum();
    let mut findings = 0;
    for _ in 0..rounds {
        evokb_lint::clear_caches();
        findings += texts.iter().map(|t| evokb_lint::check_injection(t).len()).sum::<usize>();
    }
    println!("{} texts, {lines} lines, {rounds} cold rounds, {findings} findings", texts.len());
}
