//! Precision and recall of the three `KB-SEC-*` checks on the labelled corpus in
//! `tests/corpus/`.
//!
//! Each corpus file is a small header (`label:`, `category:`, `lang:`, `source:`, optional
//! `file_dir:`), a `---` line, then the payload that the checks see. `positive/*` files carry
//! exactly one attack and are labelled with the code that must fire; `negative/*` files are
//! legitimate advice (`label: none`) on which no `KB-SEC-*` code may fire. `source:` cites
//! the real sample file and line a negative was copied from.
//!
//! Two `holdout: roundN` batches were written *after* a tuning pass and scored blind before
//! the rules were tuned on them; their blind figures were (TP/FP/FN):
//! - round 1 (24 positives, 25 negatives): 15/0/9 — precision 1.000, recall 0.625
//!   (injection 7/16, hidden 4/4, path 4/4);
//! - round 2 (16 positives, 16 negatives): 8/0/8 — precision 1.000, recall 0.500
//!   (injection 6/14, hidden 1/1, path 1/1).
//!
//! So the phrase rules are precise but catch only about half of *unseen paraphrases* of
//! injected instructions; the figures on this corpus are an upper bound.
//!
//! Counting is per file: a positive is a true positive when its labelled code fires
//! (other codes firing on it are listed but not scored); every code that fires on a negative
//! is a false positive.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use evokb_lint::{check_hidden, check_injection, check_paths, Finding};

struct Case {
    name: String,
    label: String,
    category: String,
    lang: String,
    file_dir: Option<PathBuf>,
    round: String,
    payload: String,
}

fn load(dir: &str) -> Vec<Case> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus").join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&base)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("corpus file is UTF-8");
            let (header, payload) =
                text.split_once("\n---\n").expect("corpus file has a header and a --- separator");
            let field = |k: &str| {
                header
                    .lines()
                    .find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string()))
                    .unwrap_or_default()
            };
            let fd = field("file_dir:");
            Case {
                name: format!(
                    "{dir}/{}",
                    p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
                ),
                label: field("label:"),
                category: field("category:"),
                lang: field("lang:"),
                file_dir: (!fd.is_empty()).then(|| PathBuf::from(fd)),
                round: field("holdout:").split_whitespace().next().unwrap_or("").to_string(),
                payload: payload.to_string(),
            }
        })
        .collect()
}

fn run(case: &Case) -> Vec<Finding> {
    let mut f = check_injection(&case.payload);
    f.extend(check_hidden(&case.payload));
    f.extend(check_paths(&case.payload, None, case.file_dir.as_deref()));
    f
}

#[derive(Default, Debug)]
struct Tally {
    tp: usize,
    fp: usize,
    fn_: usize,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

#[test]
fn corpus_precision_and_recall() {
    let positives = load("positive");
    let negatives = load("negative");
    let codes = ["KB-SEC-INJECTION", "KB-SEC-HIDDEN", "KB-SEC-PATH"];
    let mut tally: BTreeMap<&str, Tally> = codes.iter().map(|c| (*c, Tally::default())).collect();
    let mut by_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // Held-out rounds (written after a tuning pass), scored separately too.
    let mut rounds: BTreeMap<String, Tally> = BTreeMap::new();

    for case in &positives {
        let found = run(case);
        let hit = found.iter().any(|f| f.code == case.label);
        let t = tally.get_mut(case.label.as_str()).expect("known label");
        let key = format!("{} {} {}", case.label, case.category, case.lang);
        let entry = by_category.entry(key).or_default();
        entry.1 += 1;
        if !case.round.is_empty() {
            let r = rounds.entry(case.round.clone()).or_default();
            if hit {
                r.tp += 1;
            } else {
                r.fn_ += 1;
            }
        }
        if hit {
            t.tp += 1;
            entry.0 += 1;
        } else {
            t.fn_ += 1;
            println!("MISS {} ({} / {})", case.name, case.label, case.category);
        }
        for f in found.iter().filter(|f| f.code != case.label) {
            println!("  also {}: {} line {}: {}", case.name, f.code, f.line, f.message);
        }
    }
    for case in &negatives {
        assert_eq!(case.label, "none", "{}", case.name);
        let found = run(case);
        let mut fired: Vec<&str> = found.iter().map(|f| f.code).collect();
        fired.sort_unstable();
        fired.dedup();
        if !case.round.is_empty() {
            rounds.entry(case.round.clone()).or_default().fp += fired.len();
        }
        for code in fired {
            if let Some(t) = tally.get_mut(code) {
                t.fp += 1;
            }
        }
        for f in &found {
            println!("FALSE POSITIVE {}: {} line {}: {}", case.name, f.code, f.line, f.message);
        }
    }

    let (mut tp, mut fp, mut fn_) = (0, 0, 0);
    println!("\ncorpus: {} positives, {} negatives", positives.len(), negatives.len());
    println!(
        "{:<18} {:>4} {:>4} {:>4} {:>9} {:>7}",
        "code", "TP", "FP", "FN", "precision", "recall"
    );
    for (code, t) in &tally {
        tp += t.tp;
        fp += t.fp;
        fn_ += t.fn_;
        println!(
            "{:<18} {:>4} {:>4} {:>4} {:>9.3} {:>7.3}",
            code,
            t.tp,
            t.fp,
            t.fn_,
            ratio(t.tp, t.tp + t.fp),
            ratio(t.tp, t.tp + t.fn_)
        );
    }
    let precision = ratio(tp, tp + fp);
    let recall = ratio(tp, tp + fn_);
    println!("{:<18} {:>4} {:>4} {:>4} {:>9.3} {:>7.3}", "all", tp, fp, fn_, precision, recall);
    for (round, t) in &rounds {
        println!(
            "{:<18} {:>4} {:>4} {:>4} {:>9.3} {:>7.3}",
            format!("held-out {round}"),
            t.tp,
            t.fp,
            t.fn_,
            ratio(t.tp, t.tp + t.fp),
            ratio(t.tp, t.tp + t.fn_)
        );
    }
    println!("\nrecall by category:");
    for (k, (hit, n)) in &by_category {
        println!("  {k:<50} {hit}/{n}");
    }

    // Corpus shape: enough cases, every injection category in both languages.
    assert!(positives.len() >= 40, "need ≥ 40 positives");
    assert!(negatives.len() >= 60, "need ≥ 60 negatives");
    let real_negatives = negatives.iter().filter(|c| c.name.contains("/real-")).count();
    assert!(real_negatives >= 30, "need ≥ 30 negatives copied from the real sample");
    for cat in ["override", "skip-gate", "run-command", "exfiltrate", "hide"] {
        for lang in ["en", "zh"] {
            let n = positives
                .iter()
                .filter(|c| c.label == "KB-SEC-INJECTION" && c.category == cat && c.lang == lang)
                .count();
            assert!(n >= 3, "need ≥ 3 {lang} positives for {cat}, have {n}");
        }
    }

    // The floors this rule set achieves; raise them when the rules improve.
    assert!(precision >= 0.98, "precision {precision:.3} < 0.98");
    assert!(recall >= 0.98, "recall {recall:.3} < 0.98");
    for (code, t) in &tally {
        assert!(ratio(t.tp, t.tp + t.fp) >= 0.95, "{code} precision");
        assert!(ratio(t.tp, t.tp + t.fn_) >= 0.90, "{code} recall");
    }
}
