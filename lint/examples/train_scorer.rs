//! Trains the statistical scorer of `KB-SEC-INJECTION` (`lint/src/score.rs`) and writes its
//! weights to `lint/src/scorer_weights.tsv`:
//!
//! ```text
//! cargo run -p evokb-lint --example train_scorer                 # all training sets
//! cargo run -p evokb-lint --example train_scorer -- --exclude own-3   # hold one set out
//! ```
//!
//! Data: the plain-text attacks of every set under `lint/tests/train/` (label 1; encoded
//! attacks are left out because the checks decode them before scoring), their legitimate
//! lines, and every distinct non-blank line of every file of the real sample
//! `tests/data/tilelang-kb` and of the legitimate entries in `lint/tests/corpus/negative`
//! (label 0). Never the sealed blind batches. Model: logistic regression over the features of
//! `evokb_lint::scorer_features`, trained by SGD in a fixed order (a seeded shuffle), L2
//! regularised, each weight clipped to ±1.5 so that no single feature reaches the threshold;
//! features seen in fewer than two training lines are dropped. The threshold is
//! set 0.25 above the highest logit of any legitimate line and at least 2.0 (p ≥ 0.88), so that no
//! legitimate training line
//! is flagged by the scorer alone. Deterministic: the same data gives the same file.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn md_lines(dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            md_lines(&p, out);
        } else {
            // Every text file: topic files, queue and stats, but also repro scripts and logs.
            for l in std::fs::read_to_string(&p).unwrap_or_default().lines() {
                if !l.trim().is_empty() {
                    out.insert(l.to_string());
                }
            }
        }
    }
}

/// Largest weight of one feature (below the threshold floor of 2.0).
const MAX_WEIGHT: f64 = 1.5;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let exclude: Vec<&str> =
        args.windows(2).filter(|w| w[0] == "--exclude").map(|w| w[1].as_str()).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let train = root.join("tests/train");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&train)
        .expect("lint/tests/train")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    let mut data: Vec<(String, bool)> = Vec::new();
    for s in &sets {
        let name = s.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if exclude.contains(&name) {
            eprintln!("held out: {name}");
            continue;
        }
        for v in jsonl(&s.join("attacks.jsonl")) {
            let style = v.get("style").and_then(|x| x.as_str()).unwrap_or("plain");
            if matches!(style, "plain" | "train" | "") {
                data.push((v["text"].as_str().unwrap_or("").to_string(), true));
            }
        }
        for v in jsonl(&s.join("legit.jsonl")) {
            data.push((v["text"].as_str().unwrap_or("").to_string(), false));
        }
    }
    let mut sample = BTreeSet::new();
    md_lines(&root.join("../tests/data/tilelang-kb"), &mut sample);
    // The legitimate entries of the labelled corpus (whole files, every line legitimate).
    md_lines(&root.join("tests/corpus/negative"), &mut sample);
    data.extend(sample.into_iter().map(|l| (l, false)));

    let kinds: Vec<&str> =
        args.windows(2).filter(|w| w[0] == "--kinds").flat_map(|w| w[1].split(',')).collect();
    let feats: Vec<Vec<String>> = data
        .iter()
        .map(|(t, _)| {
            let mut f = evokb_lint::scorer_features(t);
            if !kinds.is_empty() {
                f.retain(|x| kinds.iter().any(|k| x.starts_with(&format!("{k}:"))));
            }
            f
        })
        .collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for f in &feats {
        for x in f {
            *df.entry(x.as_str()).or_default() += 1;
        }
    }
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, n) in &df {
        if *n >= 2 {
            let next = index.len();
            index.insert(k, next);
        }
    }
    // Re-number in name order, so the file does not depend on hash order.
    for (i, v) in index.values_mut().enumerate() {
        *v = i;
    }
    let rows: Vec<(Vec<usize>, bool)> = feats
        .iter()
        .zip(&data)
        .map(|(f, (_, y))| (f.iter().filter_map(|x| index.get(x.as_str()).copied()).collect(), *y))
        .collect();
    let pos = rows.iter().filter(|r| r.1).count().max(1);
    let neg = rows.len() - pos;
    let pos_weight = (neg as f64 / pos as f64).min(4.0);
    let mut w = vec![0.0f64; index.len()];
    let mut bias = 0.0f64;
    let l2 = 1e-3;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for epoch in 0..60 {
        for i in (1..order.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = (state >> 33) as usize % (i + 1);
            order.swap(i, j);
        }
        let lr = 0.3 / (1.0 + epoch as f64 * 0.1);
        for &r in &order {
            let (fs, y) = &rows[r];
            let z = bias + fs.iter().map(|&f| w[f]).sum::<f64>();
            let g = (sigmoid(z) - if *y { 1.0 } else { 0.0 }) * if *y { pos_weight } else { 1.0 };
            bias -= lr * g * 0.1;
            for &f in fs {
                // No single feature may carry a line past the threshold on its own: a flag
                // needs at least two cues, which keeps one spurious word from deciding.
                w[f] = (w[f] - lr * (g + l2 * w[f])).clamp(-MAX_WEIGHT, MAX_WEIGHT);
            }
        }
    }
    let logit = |fs: &[usize]| bias + fs.iter().map(|&f| w[f]).sum::<f64>();
    let max_legit = rows.iter().filter(|r| !r.1).map(|r| logit(&r.0)).fold(f64::MIN, f64::max);
    let threshold = (max_legit + 0.25).max(2.0);
    let caught = rows.iter().filter(|r| r.1 && logit(&r.0) >= threshold).count();
    eprintln!(
        "{} lines ({pos} attacks, {neg} legitimate), {} features; max legitimate logit {max_legit:.2}, threshold {threshold:.2}; scorer alone catches {caught}/{pos} training attacks",
        rows.len(),
        index.len()
    );
    let mut out = String::from(
        "# Weights of the KB-SEC-INJECTION scorer, written by `cargo run -p evokb-lint --example train_scorer`.\n# Do not edit by hand.\n",
    );
    out.push_str(&format!("bias\t{bias:.4}\nthreshold\t{threshold:.4}\n"));
    for (name, i) in &index {
        if w[*i].abs() >= 0.02 {
            out.push_str(&format!("{name}\t{:.4}\n", w[*i]));
        }
    }
    std::fs::write(root.join("src/scorer_weights.tsv"), out).expect("write scorer_weights.tsv");
}
