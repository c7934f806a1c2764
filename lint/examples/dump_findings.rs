//! Prints every `KB-SEC-*` and `KB-IMPERATIVE` finding (code, severity, line, message) on every
//! line of the training, development, scored and corpus sets, on every file of the real
//! sample, and on every markdown file under the directories given as arguments (e.g. a
//! generated corpus), one per line, in a fixed order:
//!
//! ```text
//! cargo run --release -p evokb-lint --example dump_findings [DIR...] > findings.txt
//! ```
//!
//! Two dumps from two commits are identical when a change (a speed-up) left every verdict and
//! every explanation as it was. Never reads the sealed blind batches.

use std::path::Path;

#[path = "../tests/support/walk.rs"]
mod walk;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for set in ["tests/train", "tests/dev", "tests/scored", "tests/corpus"] {
        all.extend(walk::sorted_files(&root.join(set), &[]));
    }
    all.extend(walk::sorted_files(&root.join("../tests/data/tilelang-kb"), &[]));
    for dir in std::env::args().skip(1) {
        all.extend(walk::sorted_files(Path::new(&dir), &["md"]));
    }
    for p in all {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        let name = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        let texts: Vec<String> = if p.extension().is_some_and(|x| x == "jsonl") {
            text.lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .map(|v| v["text"].as_str().unwrap_or("").to_string())
                .collect()
        } else {
            vec![text]
        };
        for (i, t) in texts.iter().enumerate() {
            let found = evokb_lint::check_security(t, None, None)
                .into_iter()
                .chain(evokb_lint::check_imperative(t));
            for f in found {
                println!("{name}#{i}:{} {} {} {}", f.line, f.code, f.severity.as_str(), f.message);
            }
        }
    }
}
