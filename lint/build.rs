//! Turns the trained scorer weights (`src/scorer_weights.tsv`) into the table the scorer reads
//! at run time, so that no process pays for parsing 70,000 text rows and zeroing a megabyte
//! of heap before its first line is judged (that was a visible share of a small knowledge
//! base's lint, and of every `evokb add`).
//!
//! Writes two files into `OUT_DIR`:
//! - `scorer_weights.bin`: every bucket's weight as a little-endian `f32`, bucket 0 first, up
//!   to the highest bucket the file names (a bucket past the end weighs 0.0, as does one the
//!   file does not name);
//! - `scorer_net.bin`: the one-hidden-layer network (`src/scorer_net.bin`, checked against the
//!   `hidden` and `hidden_bits` rows of the TSV and copied), or an empty file when the TSV
//!   names no network (the model is then the logistic one, `scorer_weights.bin`);
//! - `scorer_meta.rs`: the bias, the thresholds (plain and rule-line, for English and for
//!   Chinese lines; a file without the Chinese pair uses the English one) and the lexicon
//!   fingerprint, as constants
//!   whose floats are written as their bit patterns, so that the table holds exactly the values
//!   `str::parse::<f32>` gives for the text.
//!
//! The rows are read as the run-time parser read them before: `#` lines are comments, a row is
//! `key<TAB>value[<TAB>…]`, a value that does not parse gives the same default, and a later row
//! for a bucket replaces an earlier one. The TSV is rewritten by the trainer
//! (`examples/train_scorer.rs`); Cargo reruns this script whenever it changes, so a retrained
//! model needs no hand step.

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "fingerprint.rs"]
mod fingerprint;
#[allow(dead_code)] // the reader's offsets are the scorer's
#[path = "src/net_format.rs"]
mod net_format;

/// Buckets past this are not a hash bucket of any feature width the scorer could use (2^24);
/// a row naming one is a corrupt file, reported instead of writing a huge table.
const MAX_BUCKET: usize = 1 << 24;

fn main() {
    if let Err(e) = run() {
        eprintln!("evokb-lint build script: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let src = "src/scorer_weights.tsv";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(src).map_err(|e| format!("cannot read {src}: {e}"))?;
    let out_dir = PathBuf::from(
        std::env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR for the build script")?,
    );

    let mut bias = 0.0f32;
    let mut threshold = f32::INFINITY;
    let mut rule_threshold = f32::INFINITY;
    let mut threshold_zh = None;
    let mut rule_threshold_zh = None;
    let mut fingerprint = 0u64;
    let (mut hidden_units, mut hidden_bits): (Option<usize>, Option<u32>) = (None, None);
    let mut weights: Vec<f32> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.split('\t');
        let (Some(key), Some(value)) = (it.next(), it.next()) else { continue };
        match key {
            "bias" => bias = value.parse().unwrap_or(0.0),
            "threshold" => threshold = value.parse().unwrap_or(f32::INFINITY),
            "rule_threshold" => rule_threshold = value.parse().unwrap_or(f32::INFINITY),
            "threshold_zh" => threshold_zh = Some(value.parse().unwrap_or(f32::INFINITY)),
            "rule_threshold_zh" => {
                rule_threshold_zh = Some(value.parse().unwrap_or(f32::INFINITY));
            }
            "fingerprint" => fingerprint = u64::from_str_radix(value, 16).unwrap_or(0),
            "hidden" => {
                let units = value
                    .parse()
                    .map_err(|_| format!("{src}: hidden '{value}' is not a number"))?;
                hidden_units = Some(units);
            }
            "hidden_bits" => {
                let bits = value
                    .parse()
                    .map_err(|_| format!("{src}: hidden_bits '{value}' is not a number"))?;
                hidden_bits = Some(bits);
            }
            _ => {
                if let (Ok(b), Ok(w)) = (key.parse::<usize>(), value.parse::<f32>()) {
                    if b >= MAX_BUCKET {
                        return Err(format!(
                            "{src} names bucket {b}, past any feature hash width (2^24)"
                        ));
                    }
                    if weights.len() <= b {
                        weights.resize(b + 1, 0.0);
                    }
                    if let Some(slot) = weights.get_mut(b) {
                        *slot = w;
                    }
                }
            }
        }
    }

    let hidden = match (hidden_units, hidden_bits) {
        (None, None) => None,
        (Some(units), Some(bits)) => Some(net_format::Shape { bits, units }),
        _ => return Err(format!("{src} names only one of `hidden` and `hidden_bits`")),
    };
    write_network(&out_dir, hidden)?;

    let blob: Vec<u8> = weights.iter().flat_map(|w| w.to_le_bytes()).collect();
    let bin = out_dir.join("scorer_weights.bin");
    std::fs::write(&bin, blob).map_err(|e| format!("cannot write {}: {e}", bin.display()))?;

    let mut meta = String::new();
    let _ = writeln!(meta, "// Generated by lint/build.rs from {src}; do not edit.");
    let _ = writeln!(meta, "const BIAS: f32 = f32::from_bits({:#010x});", bias.to_bits());
    let _ = writeln!(meta, "const THRESHOLD: f32 = f32::from_bits({:#010x});", threshold.to_bits());
    let _ = writeln!(
        meta,
        "const RULE_THRESHOLD: f32 = f32::from_bits({:#010x});",
        rule_threshold.to_bits()
    );
    let _ = writeln!(
        meta,
        "const THRESHOLD_ZH: f32 = f32::from_bits({:#010x});",
        threshold_zh.unwrap_or(threshold).to_bits()
    );
    let _ = writeln!(
        meta,
        "const RULE_THRESHOLD_ZH: f32 = f32::from_bits({:#010x});",
        rule_threshold_zh.unwrap_or(rule_threshold).to_bits()
    );
    // Read only by the test that the weights were trained on the current lexicon.
    let _ = writeln!(meta, "#[cfg_attr(not(test), allow(dead_code))]");
    let _ = writeln!(meta, "const FINGERPRINT: u64 = {fingerprint:#018x};");
    let rs = out_dir.join("scorer_meta.rs");
    std::fs::write(&rs, meta).map_err(|e| format!("cannot write {}: {e}", rs.display()))?;
    write_detector_fingerprint(&out_dir)
}

/// Checks `src/scorer_net.bin` against the network the TSV names (its layout is
/// `src/net_format.rs`) and copies it to `OUT_DIR`; writes an empty file when the TSV names
/// none. A network file without a TSV naming it is an error: the trainer removes it when it
/// writes a logistic model, so one left there is from another training run.
fn write_network(
    out_dir: &std::path::Path,
    hidden: Option<net_format::Shape>,
) -> Result<(), String> {
    let src = "src/scorer_net.bin";
    println!("cargo:rerun-if-changed={src}");
    let dest = out_dir.join("scorer_net.bin");
    let bytes = match (hidden, std::fs::read(src)) {
        (None, Err(_)) => Vec::new(),
        (None, Ok(_)) => {
            return Err(format!(
                "{src} exists but src/scorer_weights.tsv names no network (no `hidden` row): \
                 retrain, or remove the file"
            ))
        }
        (Some(_), Err(e)) => {
            return Err(format!(
                "src/scorer_weights.tsv names a network, but {src} cannot be read: {e}"
            ))
        }
        (Some(named), Ok(bytes)) => {
            let net_format::Shape { bits, units } = named;
            let Some(found) = net_format::Shape::of(&bytes) else {
                return Err(format!("{src} does not start with a network header"));
            };
            if found != named {
                return Err(format!(
                    "{src} holds a network of {} units over 2^{} buckets; the TSV names {units} over 2^{bits}",
                    found.units, found.bits
                ));
            }
            if bits > 24 || units == 0 || units > 256 {
                return Err(format!(
                    "{src}: {units} units over 2^{bits} buckets is not a network the scorer takes"
                ));
            }
            let expected = named.file_len().unwrap_or(usize::MAX);
            if bytes.len() != expected {
                return Err(format!(
                    "{src} is {} bytes; a network of its shape is {expected}",
                    bytes.len()
                ));
            }
            bytes
        }
    };
    std::fs::write(&dest, bytes).map_err(|e| format!("cannot write {}: {e}", dest.display()))
}

/// Writes `detector_fingerprint.rs`: one number that changes whenever any source file of the
/// checks or the weights change, so that a verdict remembered by an earlier build (see
/// `evokb_lint::DETECTOR_FINGERPRINT`) is never taken for this build's. The hash is
/// `fingerprint.rs`'s, which `tests/fingerprint.rs` recomputes over the tree it tests.
fn write_detector_fingerprint(out_dir: &std::path::Path) -> Result<(), String> {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=fingerprint.rs");
    let (hash, _) = fingerprint::of_sources(std::path::Path::new("src"))?;
    let rs = out_dir.join("detector_fingerprint.rs");
    let text = format!(
        "// Generated by lint/build.rs from the files under src/; do not edit.\n\
         /// Changes whenever a source file of the checks or the scorer weights change.\n\
         pub const DETECTOR_FINGERPRINT: u64 = {hash:#018x};\n"
    );
    std::fs::write(&rs, text).map_err(|e| format!("cannot write {}: {e}", rs.display()))
}
