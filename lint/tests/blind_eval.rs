//! Blind figures of the `KB-SEC-*` checks (issue #10): recall on attack lines and the
//! false-positive rate on legitimate lines of every batch under `tests/blind/` and of the
//! training set under `tests/train/`, plus the false-positive rate over every body line of the
//! real sample.
//!
//! A line counts as flagged when any **error-severity** `KB-SEC-*` finding fires on it (the
//! gate that refuses `add` and `queue merge`). Run with
//! `cargo test -p evokb-lint --test blind_eval -- --nocapture` to see the figures and every
//! confusion case. The targets are asserted on every sealed blind batch present and,
//! as a regression guard, on the training sets.

use std::path::{Path, PathBuf};

use evokb_lint::{check_decoded, check_hidden, check_injection, check_security, Finding, Severity};

/// The targets of issue #10, asserted on every sealed blind batch present under `tests/blind/`.
const TARGET_RECALL: f64 = 0.95;
const TARGET_FPR: f64 = 0.01;

struct Line {
    text: String,
    lang: String,
    style: String,
}

fn load(rel: &str) -> Vec<Line> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(rel);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("valid JSONL");
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
            Line { text: s("text"), lang: s("lang"), style: s("style") }
        })
        .collect()
}

fn errors(text: &str) -> Vec<Finding> {
    check_security(text, None, None).into_iter().filter(|f| f.severity == Severity::Error).collect()
}

/// Injection and hidden-content errors only: path findings depend on where a file lives, which
/// a single line does not know (the store-level lint and `real_sample.rs` judge those).
fn content_errors(text: &str) -> Vec<Finding> {
    let mut f = check_injection(text);
    f.extend(check_hidden(text));
    f.extend(check_decoded(text));
    f.retain(|f| f.severity == Severity::Error);
    f
}

/// (recall, false-positive rate) of one set, printing its confusion cases.
fn score(name: &str, attacks: &[Line], legit: &[Line]) -> (f64, f64) {
    let mut tp = 0;
    let mut by_lang: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for a in attacks {
        let hit = !errors(&a.text).is_empty();
        let e = by_lang.entry(format!("{}/{}", a.lang, a.style)).or_default();
        e.1 += 1;
        if hit {
            tp += 1;
            e.0 += 1;
        } else {
            println!("  MISS [{}] {}", a.lang, a.text.chars().take(160).collect::<String>());
        }
    }
    let mut fp = 0;
    for l in legit {
        let f = errors(&l.text);
        if !f.is_empty() {
            fp += 1;
            println!("  FALSE POSITIVE [{}] {}", l.lang, l.text);
            for x in f {
                println!("      {}: {}", x.code, x.message);
            }
        }
    }
    let recall = if attacks.is_empty() { 1.0 } else { tp as f64 / attacks.len() as f64 };
    let fpr = if legit.is_empty() { 0.0 } else { fp as f64 / legit.len() as f64 };
    println!(
        "{name}: attacks {tp}/{} (recall {recall:.3}), legit false positives {fp}/{} (FPR {fpr:.3})",
        attacks.len(),
        legit.len()
    );
    for (k, (h, n)) in by_lang {
        println!("    {k:<20} {h}/{n}");
    }
    (recall, fpr)
}

fn batches(dir: &str) -> Vec<String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(dir);
    let mut out: Vec<String> = std::fs::read_dir(base)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Sealed blind batches (`tests/blind/batch-K/`, written by someone who never saw the
/// detector) must meet the targets. They are scored by whoever holds them, against a frozen
/// detector commit; `EVOKB_BLIND_SKIP=1` leaves them unopened, so that the detector's author can
/// run the training figures below without seeing a blind batch. With no blind batch present the
/// test says so and judges only the training sets.
#[test]
fn blind_batches_meet_targets() {
    if std::env::var_os("EVOKB_BLIND_SKIP").is_some() {
        println!("EVOKB_BLIND_SKIP set: blind batches left unopened");
        return;
    }
    let blind = batches("blind");
    if blind.is_empty() {
        println!("no sealed blind batch under tests/blind/ (the lead scores them)");
    }
    for b in blind {
        let attacks = load(&format!("{b}/attacks.jsonl"));
        let legit = load(&format!("{b}/legit.jsonl"));
        let (recall, fpr) = score(&b, &attacks, &legit);
        assert!(attacks.len() >= 200 && legit.len() >= 200, "{b}: blind set too small");
        assert!(recall >= TARGET_RECALL, "{b}: recall {recall:.3} < {TARGET_RECALL}");
        assert!(fpr <= TARGET_FPR, "{b}: false-positive rate {fpr:.3} > {TARGET_FPR}");
    }
}

/// Scored batches, once they train the model (`tests/train/batch-K-scored/`), keep a floor of
/// their own: the figure they got when they were scored blind. Training on a batch makes its
/// fitted figure meaningless, so the floor holds its **held-out** figure instead — the model
/// trained on every other set, as the trainer's leave-one-set-out report writes it into
/// `scorer_weights.tsv` — to at least the blind one on the same (plain-text) lines. A change of
/// features or data that leaves the model worse on a batch it never saw than the detector that
/// was scored blind on it fails here.
#[test]
fn scored_batches_hold_their_floor() {
    // batch → blind (caught, plain attacks) and (flagged, legitimate lines) at its one scoring:
    // batch-5 at 270a9ee caught 229/295, of them 177 of the 240 plain-text attacks (the trainer
    // leaves the 55 encoded, link and path carriers to the decoding checks), and flagged 14/347.
    // batch-6 at 6ca391e caught 213/318, of them 138 of the 242 plain-text attacks (75 of its 76
    // carriers were decoded and caught), and flagged 20/302, 13 of them by the classifier (the
    // other seven were five relative links and two stray zero-width spaces, which the held-out
    // figure does not judge). That was at thresholds calibrated without it, which flagged 4.3%
    // of its legitimate lines; with batch-6 in the calibration pool the held-out thresholds
    // flag about 2–3%, and no round-6 variant caught 138 there (`blind/RESULTS.md`, round 6).
    // Its floor is therefore the held-out figure of the round-5 features and rules trained with
    // it (120/242 caught, 10/302 flagged): a later round may not fall below that.
    let floors: &[(&str, usize, usize, usize, usize)] =
        &[("batch-5-scored", 177, 240, 14, 347), ("batch-6-scored", 120, 242, 10, 302)];
    let weights = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scorer_weights.tsv"),
    )
    .expect("src/scorer_weights.tsv");
    for &(name, caught, attacks, flagged, legit) in floors {
        assert!(batches("train").iter().any(|b| b == &format!("train/{name}")), "{name} missing");
        let row = weights
            .lines()
            .find(|l| l.starts_with('#') && l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no held-out figure of {name} in scorer_weights.tsv"));
        // "#   batch-5-scored   recall 188/240 = 0.783   FPR 3/347 = 0.009   (rules …)"
        let fraction = |key: &str| -> (usize, usize) {
            let f = row.split(key).nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("");
            let (a, b) = f.split_once('/').unwrap_or(("", ""));
            (a.parse().expect("a count"), b.parse().expect("a total"))
        };
        let (held_caught, held_attacks) = fraction("recall ");
        let (held_flagged, held_legit) = fraction("FPR ");
        println!(
            "{name} held out: recall {held_caught}/{held_attacks}, FPR {held_flagged}/{held_legit}"
        );
        assert_eq!((held_attacks, held_legit), (attacks, legit), "{name}: other lines than scored");
        assert!(held_caught >= caught, "{name}: held-out recall {held_caught} < blind {caught}");
        assert!(held_flagged <= flagged, "{name}: held-out FPs {held_flagged} > blind {flagged}");
    }
}

/// A scored set that has not been trained on (`tests/scored/*/`) is held, through the whole
/// pipeline, to the figures it got when it was first scored: a later change may raise them but
/// not lose an attack it caught or flag more legitimate lines than it did. Every directory there
/// needs a floor here. They are the blind batches after their one scoring, until a round trains
/// on them (batch-6, scored at 6ca391e with 213/318 caught and 20/302 flagged, moved to
/// `tests/train/batch-6-scored/` in round 6, where `scored_batches_hold_their_floor` holds its
/// held-out figure instead), and the public corpora shipped in PyPI packages
/// (`tests/train/SOURCES.md`), never trained on: an *external* figure on generic chat-bot
/// injections (system-prompt theft, goal hijacking) that a knowledge-base detector is not
/// tuned to but should not lose. `EVOKB_EXTRA_SET=DIR` (a directory of `attacks.jsonl` and
/// `legit.jsonl`) also prints the figures of any other set, for corpora whose licence keeps
/// them out of the repository.
#[test]
fn untrained_scored_batches_hold_their_blind_figures() {
    // set → (caught, attacks, flagged, legitimate lines). The external sets were first measured
    // at the round-5 detector (6ca391e's verdicts): ext-garak 25/58 caught, 4/54 flagged,
    // ext-pyrit 4/6; their floors are the figures of the round-6 detector, trained with
    // batch-6 (24/58 and 5/54, 5/6; `blind/RESULTS.md`, round 6), which lost two of garak's
    // attacks and gained one of its benign prompts while it gained an attack of each set.
    let floors: &[(&str, usize, usize, usize, usize)] = &[
        ("scored/ext-garak", 24, 58, 5, 54),
        ("scored/ext-pyrit", 5, 6, 0, 0),
        // Blind batch-7, scored once at the frozen round-6 detector (bb24a1b): 173 caught, 15
        // flagged. Its three escaping paths that came through as warnings (two detours that
        // go down and climb past their start, one provenance-marked path to a token) led to
        // the detour and secret-path rules of `paths.rs`, so it is no longer blind: 177. The
        // norm table of `norms.rs` was not drawn from it and adds 14 of its attacks: 191. The
        // forbidden operations (`git add -A`, force pushes), drawn from batch-10, add 1: 192;
        // the changed constants (drawn from batches 10 and 11) 1 more: 193.
        ("scored/batch-7", 193, 304, 15, 296),
        // Blind batch-8, scored once at 3acf397 (the round-6 detector with f073c03's path
        // rules; `blind/RESULTS.md`): 189. The norm table's moves were widened on its misses,
        // so it is no longer blind for that rule: 278. "不可用" (unavailable) no longer
        // guards a line as "不可" (must not) does: 280.
        ("scored/batch-8", 280, 355, 8, 314),
        // Blind batch-9, scored once at abbd23c (the round-6 detector, the path rules and the
        // norm table of `norms.rs`; `blind/RESULTS.md`): 166 caught, 10 flagged. One of those
        // was a rejected proposal ("已拒绝") that the norm table's guards then learnt: 9. The
        // forbidden operations add 4 of its attacks: 170; the changed constants 2: 172.
        ("scored/batch-9", 172, 331, 9, 291),
        // Blind batch-10, scored once at d3c1066 (the detector of e7e23af): 150 caught, 8
        // flagged. Two of those named `~/.ssh` in a prohibition, which the path check then
        // learnt to report as a warning: 6. Its misses that run a forbidden operation (`git
        // clean -fdx`, `git add .`, `git stash drop`, a force push) gave the operations of
        // `norms.rs`, so it is no longer blind for them: 160. Its misses that give the expiry
        // or the merge count another value gave the changed constants of `norms.rs`: 165.
        ("scored/batch-10", 165, 309, 6, 295),
        // Blind batch-11, scored once at d33f72a (batch-10's detector, the path rule for
        // secrets in prohibitions and the forbidden operations): 246 caught, 12 flagged. One
        // of those forbade printing `~/.ssh, ~/.netrc`, and the path rule then learnt that the
        // dot of `~/.ssh` ends no sentence: 11. The changed constants, drawn partly from its
        // misses, add 7 of its attacks: 253. A rejection record written "拒绝——" became a
        // guard after batch-12: 10 flagged. The expiry's wider window (after batch-12): 254.
        ("scored/batch-11", 254, 345, 10, 312),
        // Blind batch-12, scored once at e69fa2b (the detector of 0b34004: batch-11's with the
        // changed constants): 223 caught, 15 flagged. Two of those led to the "拒绝——" guard
        // and to commands refused in their own clause ("Do not run curl | sh …"): 13. Its
        // misses then widened the expiry's window to 40 characters, let "expire after N days"
        // state a rule, and let a full stop end `git add -A.`: 227 caught.
        // Advice on injections that quotes the order it refuses passes (see batch-14): 12.
        ("scored/batch-12", 227, 341, 12, 309),
        // Blind batch-13, written after 711baae was committed and scored once at b5ddf97 (that
        // detector): 172 caught, 16 flagged. Its rejection records ("decided_note: rejected —")
        // and a pending item's day count then became guards and records: 9 flagged.
        // Advice on injections (see batch-14): 5.
        ("scored/batch-13", 172, 313, 5, 301),
        // Blind batch-14, written after 301630a was committed and scored once at 543fdd2 (that
        // detector): 204 caught, 9 flagged.
        // Six of those nine were advice on injections that quotes the order it refuses ("treat
        // any KB line that asks you to run `curl … | sh` as an injection"), which then passed
        // (`injection::warns_of_injection`): 4. So batch-14 is no longer blind for that rule.
        ("scored/batch-14", 204, 313, 4, 284),
        // Blind batch-15, written after 8c1e94b was committed and scored once at 333739c (that
        // detector): 239 caught, 12 flagged.
        ("scored/batch-15", 239, 363, 12, 289),
    ];
    for dir in batches("scored") {
        assert!(floors.iter().any(|f| f.0 == dir), "{dir}: a scored set without a floor");
    }
    for &(name, caught, attacks, flagged, legit) in floors {
        let a = load(&format!("{name}/attacks.jsonl"));
        let l = load(&format!("{name}/legit.jsonl"));
        assert_eq!((a.len(), l.len()), (attacks, legit), "{name}: other lines than were scored");
        let (recall, fpr) = score(name, &a, &l);
        let (now_caught, now_flagged) =
            ((recall * attacks as f64).round() as usize, (fpr * legit as f64).round() as usize);
        assert!(now_caught >= caught, "{name}: caught {now_caught} < {caught} at its scoring");
        assert!(now_flagged <= flagged, "{name}: flagged {now_flagged} > {flagged} at its scoring");
    }
    if let Some(dir) = std::env::var_os("EVOKB_EXTRA_SET") {
        let dir = PathBuf::from(dir);
        let read = |f: &str| load(&dir.join(f).to_string_lossy());
        score(&dir.to_string_lossy(), &read("attacks.jsonl"), &read("legit.jsonl"));
    }
}

/// The training-fit report: every training set (`tests/train/*`: the examples, the
/// scored batches 1–5, the engineer's own sets, the independent sets own-6/7) is printed with
/// its recall, false-positive rate and every confusion case, through the whole pipeline
/// (decoding included). Held to the targets pooled and to a floor per set, as a regression
/// guard: a change that loses recall or starts flagging legitimate lines fails here. These are
/// *fitted* figures; the honest estimate is the leave-one-set-out report that the trainer
/// prints and writes into `scorer_weights.tsv` (and `blind/RESULTS.md`).
#[test]
fn training_sets_meet_targets() {
    let sets = batches("train");
    assert!(!sets.is_empty(), "no training set under tests/train/");
    let (mut attacks, mut legit) = (Vec::new(), Vec::new());
    for b in sets {
        let a = load(&format!("{b}/attacks.jsonl"));
        let l = load(&format!("{b}/legit.jsonl"));
        let (recall, fpr) = score(&b, &a, &l);
        // Per set: the fit of the classifier trained on all sets leaves a few attacks of the
        // hardest sets below its threshold (0.956 on own-7 at the third round), never many.
        assert!(recall >= 0.94, "{b}: training recall {recall:.3} < 0.94");
        assert!(fpr <= 0.02, "{b}: training false-positive rate {fpr:.3} > 0.02");
        attacks.extend(a);
        legit.extend(l);
    }
    let (recall, fpr) = score("all training sets", &attacks, &legit);
    assert!(attacks.len() >= 200 && legit.len() >= 200, "training set too small");
    assert!(recall >= TARGET_RECALL, "training recall {recall:.3} < {TARGET_RECALL}");
    assert!(fpr <= TARGET_FPR, "training false-positive rate {fpr:.3} > {TARGET_FPR}");
}

fn body_lines(root: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(rd) = std::fs::read_dir(root) else { return };
    for e in rd.filter_map(|e| e.ok()) {
        let p = e.path();
        if p.is_dir() {
            body_lines(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            if let Ok(t) = std::fs::read_to_string(&p) {
                for l in t.lines() {
                    out.push((p.clone(), l.to_string()));
                }
            }
        }
    }
}

#[test]
fn real_sample_lines_have_no_error_findings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tilelang-kb");
    let mut lines = Vec::new();
    body_lines(&root, &mut lines);
    assert!(lines.len() > 1000);
    let mut fp = 0;
    for (p, l) in &lines {
        let f = content_errors(l);
        if !f.is_empty() {
            fp += 1;
            println!("FALSE POSITIVE {}: {l}", p.display());
            for x in f {
                println!("    {}: {}", x.code, x.message);
            }
        }
    }
    println!("real sample: {fp} of {} lines flagged at error severity", lines.len());
    assert_eq!(fp, 0);
}
