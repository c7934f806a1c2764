//! The differential test of the byte-level prefilters: every `KB-SEC-*` check gives the same
//! findings with the prefilters on (the fast path `evokb lint` takes) as with them off (every
//! scanner and regex on every line), over every line and every whole text of the training
//! sets, the development set, any blind batch present, the labelled corpus and the real
//! sample, and over encoded, wrapped and invisibly split variants of every attack line (the
//! inputs the hidden-content and decoding prefilters exist to pass through).
//!
//! The prefilter switch is process-wide, so this file holds one test and is its own binary.

use std::path::{Path, PathBuf};

use base64::Engine;

#[path = "support/walk.rs"]
mod walk;
use evokb_lint::Finding;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn jsonl_texts(dir: &Path, out: &mut Vec<(String, bool)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            jsonl_texts(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            let attack = p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("attack"));
            let text = std::fs::read_to_string(&p).expect("training file is UTF-8");
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
                if let Some(t) = v.get("text").and_then(|t| t.as_str()) {
                    out.push((t.to_string(), attack));
                }
            }
        }
    }
}

/// Encoded and hidden forms of an attack line, as the decoding and hidden checks see them.
fn variants(line: &str) -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(line);
    let b64url = base64::engine::general_purpose::URL_SAFE.encode(line);
    let hex: String = line.bytes().map(|b| format!("{b:02x}")).collect();
    let url: String = line.bytes().map(|b| format!("%{b:02X}")).collect();
    let ent: String = line.chars().map(|c| format!("&#{};", c as u32)).collect();
    let zw: String = line.chars().flat_map(|c| [c, '\u{200B}']).collect();
    let wrapped: String =
        b64.as_bytes().chunks(60).map(|c| String::from_utf8_lossy(c) + "\n").collect();
    vec![
        format!("payload {b64} (decode and follow it)"),
        format!("blob={b64url}"),
        hex.clone(),
        format!("\\x{}", line.bytes().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join("\\x")),
        format!("see {url}"),
        ent,
        zw,
        format!("intro:\n{wrapped}end"),
        format!("<!-- {line} -->"),
        format!("[note](javascript:{})", line.replace(' ', "%20")),
        format!("<span style=\"display:none\">{line}</span>"),
        format!("data:text/plain;base64,{b64}"),
        format!("0x{hex}"),
    ]
}

/// The findings of `check_security` on one text, then `check_hidden`'s alone (inside
/// `check_security` a decoded-instruction finding replaces a hidden one on the same line, which
/// could hide a difference; the other checks' findings are all kept there).
fn all_findings(text: &str, root: Option<&Path>, dir: Option<&Path>) -> Vec<Finding> {
    let mut out = evokb_lint::check_security(text, root, dir);
    out.extend(evokb_lint::check_hidden(text));
    out
}

#[test]
fn prefilters_change_no_finding() {
    let mut texts: Vec<(String, Option<PathBuf>)> = Vec::new();
    let mut lines = Vec::new();
    jsonl_texts(&manifest().join("tests/train"), &mut lines);
    jsonl_texts(&manifest().join("tests/dev"), &mut lines);
    jsonl_texts(&manifest().join("tests/blind"), &mut lines);
    assert!(lines.len() > 1000, "training and development lines found: {}", lines.len());
    for (line, attack) in &lines {
        texts.push((line.clone(), None));
        if *attack {
            texts.extend(variants(line).into_iter().map(|v| (v, None)));
        }
    }
    let corpus = walk::texts_of(&manifest().join("tests/corpus"), &["md"]);
    assert!(!corpus.is_empty());
    for (_, t) in &corpus {
        let payload = t.split_once("\n---\n").map_or(t.as_str(), |(_, p)| p);
        texts.push((payload.to_string(), None));
        texts.extend(payload.lines().map(|l| (l.to_string(), None)));
    }
    let sample_root = manifest().join("../tests/data/tilelang-kb");
    let sample = walk::texts_of(&sample_root, &["md", "py", "jsonl"]);
    assert!(sample.len() > 10, "real sample files found: {}", sample.len());
    for (path, t) in &sample {
        let dir = path.parent().map(Path::to_path_buf);
        texts.push((t.clone(), dir.clone()));
        texts.extend(t.lines().map(|l| (l.to_string(), dir.clone())));
    }

    let run = |texts: &[(String, Option<PathBuf>)]| -> Vec<Vec<Finding>> {
        evokb_lint::clear_caches();
        texts
            .iter()
            .map(|(t, dir)| match dir {
                Some(d) => all_findings(t, Some(&sample_root), Some(d)),
                None => all_findings(t, None, None),
            })
            .collect()
    };
    let fast = run(&texts);
    evokb_lint::set_prefilters(false);
    let full = run(&texts);
    evokb_lint::set_prefilters(true);

    let fired = fast.iter().filter(|f| !f.is_empty()).count();
    assert!(fired > 1000, "the inputs exercise the checks: {fired} texts with findings");
    let mut differ = Vec::new();
    for (((t, _), a), b) in texts.iter().zip(&fast).zip(&full) {
        if a != b {
            differ.push(format!("{t:?}\n  fast: {a:?}\n  full: {b:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} texts differ with the prefilters on:\n{}",
        differ.len(),
        texts.len(),
        differ.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
    );
}
