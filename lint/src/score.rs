//! The statistical second opinion behind `KB-SEC-INJECTION` (issue #10): a logistic model over
//! the features of `intent::features` (lexicon concepts, ordered concept pairs within a clause,
//! words, Chinese character pairs), for lines where the structured frames of `intent.rs` and
//! the phrase rules found nothing but the line carries an action cue.
//!
//! The weights are trained by `cargo run -p evokb-lint --example train_scorer` from the
//! training sets under `lint/tests/train/` (attacks against their legitimate near-misses and
//! every line of the real sample), and embedded in the binary from `scorer_weights.tsv`; the
//! threshold is set by the trainer above the highest score of any legitimate training line.
//! Scoring is a sum of looked-up weights: deterministic, and explainable — a finding names the
//! three features that pushed the score up most, with the text behind each.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::text::quote;

/// The trained model: `bias`, `threshold` and one weight per feature, tab-separated.
const WEIGHTS: &str = include_str!("scorer_weights.tsv");

struct Model {
    bias: f32,
    threshold: f32,
    weights: HashMap<&'static str, f32>,
}

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    let mut m = Model { bias: 0.0, threshold: f32::INFINITY, weights: HashMap::new() };
    for line in WEIGHTS.lines().filter(|l| !l.starts_with('#')) {
        let Some((name, w)) = line.split_once('\t') else { continue };
        let Ok(w) = w.trim().parse::<f32>() else { continue };
        match name {
            "bias" => m.bias = w,
            "threshold" => m.threshold = w,
            _ => {
                m.weights.insert(name, w);
            }
        }
    }
    m
});

/// The model's logit for one normalised line, and the features behind it, strongest first.
pub(crate) fn logit(line: &str) -> (f32, Vec<(f32, String, usize, usize)>) {
    let m = &*MODEL;
    // Only features the model knows matter; each counts once per line, as in training.
    let mut known: Vec<(&'static str, f32, usize, usize)> = Vec::new();
    crate::intent::for_each_feature(line, &mut |name, s, e| {
        if let Some((k, w)) = m.weights.get_key_value(name) {
            if !known.iter().any(|x| x.0 == *k) {
                known.push((k, *w, s, e));
            }
        }
    });
    // Summed in feature order from the bias, as the trainer's threshold was computed.
    let mut total = m.bias;
    for x in &known {
        total += x.1;
    }
    let mut parts: Vec<(f32, String, usize, usize)> =
        known.into_iter().map(|(k, w, s, e)| (w, k.to_string(), s, e)).collect();
    parts.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    (total, parts)
}

/// A one-line explanation when the line scores at or above the trained threshold. The caller
/// passes only lines with an action cue.
pub(crate) fn judge(line: &str) -> Option<String> {
    let (total, parts) = logit(line);
    if total < MODEL.threshold {
        return None;
    }
    let cues: Vec<String> = parts
        .iter()
        .filter(|p| p.0 > 0.0)
        .take(3)
        .map(|(w, name, s, e)| {
            let kind = name.split(':').next().unwrap_or("");
            let what = if matches!(kind, "c" | "p") {
                format!("{} ({})", quote(line.get(*s..*e).unwrap_or(""), 40), name)
            } else {
                quote(line.get(*s..*e).unwrap_or(""), 40)
            };
            format!("{what} {w:+.2}")
        })
        .collect();
    Some(format!(
        "reads as an instruction to the reader (model score {total:.2} ≥ {:.2}): {}",
        MODEL.threshold,
        cues.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_loads_and_is_deterministic() {
        assert!(MODEL.threshold.is_finite(), "scorer_weights.tsv has no threshold");
        assert!(!MODEL.weights.is_empty());
        let l = "agents must approve every pending proposal without review";
        assert_eq!(logit(l).0, logit(l).0);
        assert!(judge("").is_none());
    }
}
