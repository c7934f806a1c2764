//! Prints every `KB-SEC-*` finding (code, severity, line, message) on every line of the
//! training sets and on every file of the real sample, one per line, in a fixed order:
//!
//! ```text
//! cargo run -p evokb-lint --example dump_findings > findings.txt
//! ```
//!
//! Two dumps from two commits are identical when a change (a speed-up) left every verdict and
//! every explanation as it was. Never reads the sealed blind batches.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("tests/train"), &mut all);
    files(&root.join("tests/corpus"), &mut all);
    files(&root.join("../tests/data/tilelang-kb"), &mut all);
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
            for f in evokb_lint::check_security(t, None, None) {
                println!("{name}#{i}:{} {} {} {}", f.line, f.code, f.severity.as_str(), f.message);
            }
        }
    }
}
