//! Trains the classifier of `KB-SEC-INJECTION` (`lint/src/score.rs`) and writes its weights to
//! `lint/src/scorer_weights.tsv`:
//!
//! ```text
//! cargo run --release -p evokb-lint --example train_scorer                    # CV, then train on all
//! cargo run --release -p evokb-lint --example train_scorer -- --exclude own-7     # hold a set out entirely
//! cargo run --release -p evokb-lint --example train_scorer -- --generated DIR     # also report on a synth corpus
//! cargo run --release -p evokb-lint --example train_scorer -- --drop q:,y: --out /tmp/w.tsv  # ablation
//! cargo run --release -p evokb-lint --example train_scorer -- --dev lint/tests/dev/own-12 # score a dev set
//! TRAIN_FEATURES=/tmp/feats.tsv cargo run --release -p evokb-lint --example train_scorer  # rows for scripts/model_class.py
//! ```
//!
//! **Data.** Label 1: the plain-text attacks of every set under `lint/tests/train/` (encoded
//! carriers are left out: the checks decode them before judging). Label 0: their legitimate
//! lines, and every distinct non-blank line of every file of the real sample
//! (`tests/data/tilelang-kb`), of the legitimate entries of the labelled corpus
//! (`lint/tests/corpus/negative`) and of the generated-corpus sample
//! (`lint/tests/train/generated-lines.txt`); every sentence of a legitimate line of two or more
//! sentences is also a legitimate example of its own. Never a sealed blind batch.
//!
//! **Model.** A network of one hidden layer over the hashed features of `score.rs` (words,
//! bigrams, Chinese trigrams, lexicon concepts, structural flags, stance cues, the rule
//! verdicts): 16 units, each bucket a row of weights, trained by mini-batch Adam for six epochs
//! and quantised to signed bytes (`train_scorer/net.rs`; `TRAIN_HIDDEN`, `TRAIN_HBITS`,
//! `TRAIN_NET_EPOCHS`, `TRAIN_NET_LR`, `TRAIN_NET_L2`, `TRAIN_BATCH`). With `TRAIN_HIDDEN=0`,
//! the logistic regression of rounds 1 to 9: SGD in a seeded order, L2-regularised, the
//! average of twenty runs in different orders (`TRAIN_AVG`). Either way attacks are weighted up
//! to balance the classes, and a line scores the larger of its own logit and each sentence's
//! (as `score::logit`).
//!
//! **Thresholds.** Four: one for lines on which a rule (a frame of `intent.rs` or a phrase
//! rule) fired, one for the rest, each for lines without and with Chinese characters (round 7:
//! Chinese lines carry more n-grams per character, and their scores sit about 1.6 higher).
//! Chosen by leave-one-set-out cross-validation: for each training set, a model trained on
//! everything else scores that set's lines; the thresholds are those that catch most held-out
//! attacks while at most 1% of the pooled held-out legitimate lines are flagged (the pool
//! leaves out the author's boundary sets named in `NOT_CALIBRATED`). The per-set held-out
//! figures at those thresholds are printed and written into the weights
//! file (an honest estimate for phrasings of a set never trained on — though the phrase rules
//! and lexicon were tuned on the older sets, so their figures flatter). The final model is
//! trained on everything, and every threshold raised, if need be, above every line of the real
//! sample, the labelled corpus and the generated sample. Deterministic: same data and same
//! checks (the rules' verdicts are features), same file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "train_scorer/net.rs"]
mod net;
#[allow(dead_code)] // the reader's offsets are the scorer's
#[path = "../src/net_format.rs"]
mod net_format;

fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn text_lines(dir: &Path, out: &mut BTreeSet<String>) {
    if dir.is_file() {
        for l in std::fs::read_to_string(dir).unwrap_or_default().lines() {
            if !l.trim().is_empty() {
                out.insert(l.to_string());
            }
        }
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.file_name().is_some_and(|n| n == ".evokb") {
            continue;
        }
        text_lines(&p, out);
    }
}

const DIM: usize = 1 << 18;

/// The attack line of every `KB-SEC-INJECTION` file of the labelled corpus: the body line
/// (not front matter, not a heading) that no other corpus file contains.
fn corpus_attacks(corpus: &Path) -> Vec<String> {
    let read_dir = |d: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = std::fs::read_dir(corpus.join(d))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        (name, std::fs::read_to_string(e.path()).unwrap_or_default())
                    })
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let body = |text: &str| -> Vec<String> {
        let payload = text.split_once("\n---\n").map_or("", |x| x.1);
        payload
            .lines()
            .filter(|l| {
                let t = l.trim();
                let key = t.split_once(": ").is_some_and(|(k, _)| {
                    !k.is_empty() && k.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                });
                !t.is_empty() && t != "---" && !t.starts_with('#') && !key
            })
            .map(String::from)
            .collect()
    };
    let positives = read_dir("positive");
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen_elsewhere: BTreeSet<String> = BTreeSet::new();
    for (_, t) in read_dir("negative") {
        seen_elsewhere.extend(t.lines().map(String::from));
    }
    let mut files = Vec::new();
    for (_, t) in &positives {
        let header = t.split_once("\n---\n").map_or("", |x| x.0);
        let b: BTreeSet<String> = body(t).into_iter().collect();
        for l in &b {
            *count.entry(l.clone()).or_default() += 1;
        }
        if header.contains("KB-SEC-INJECTION") {
            files.push(b);
        }
    }
    files
        .into_iter()
        .flat_map(|b| {
            b.into_iter()
                .filter(|l| count[l] == 1 && !seen_elsewhere.contains(l))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Sets left out of the pool on which the thresholds are calibrated (they train the model and
/// their held-out figures are reported): the fourth round's sets written by the detector's
/// author *to sit on the boundary* — hand-written near-misses (deontic process descriptions,
/// HTML comments, secrets rules) and template variations of one framing × one act. Their
/// legitimate lines are far denser in hard cases than any knowledge base or blind batch, so
/// holding their held-out false positives at 1% would buy a margin on lines that real text
/// seldom holds with recall on attacks that it does.
const NOT_CALIBRATED: &[&str] = &["own-8", "own-9", "own-10", "own-11", "own-12", "own-13"];

/// Sets whose attacks every build must flag: the issue's own examples and the textbook
/// injections of the unit tests (`canonical`). With three times the data of round 6 and the
/// thresholds it calibrates, a plain fit left some of them below threshold ("do not tell the
/// user"); their attacks weigh `MUST_WEIGHT` times as much in training. The held-out figures
/// are not helped by it: a held-out set is never trained on.
const MUST_FLAG: &[&str] = &["canonical", "issue-10"];
const MUST_WEIGHT: f32 = 4.0;

/// Styles of attacks left out of the classifier's training: encoded carriers of a plain attack
/// (the checks decode them first), and batch-4's to batch-6's escaping paths and `javascript:`/`data:`/`file:`
/// links, which `KB-SEC-PATH` and `KB-SEC-HIDDEN` judge by their form, not their words.
const ENCODED: &[&str] = &[
    "path",
    "link",
    "base64",
    "base64url",
    "hex",
    "url",
    "entities",
    "entities-hex",
    "html-entity",
    "zw",
    "zero-width",
    // batch-5's names for the same carriers and link or path forms.
    "entity",
    "urlenc",
    "zwsp",
    "zwbinary",
    "jslink",
    "datalink",
    "filelink",
    "pathescape",
    // batch-6's names: zero-width interleaving and Unicode tag characters.
    "zerowidth",
    "tagchars",
    // A rot13 "cipher note": the checks do not decode rot13 (not among the encodings of the
    // issue), and its letters are noise to a word model.
    "rot13",
];

/// Whether an attack's style marks a carrier the checks decode or judge by form (see
/// `ENCODED`). From batch-7 on, every writer named these styles differently but always with
/// "carrier" in the name (`carrier-base64`, `hex_carrier`, `carrier_zw200b`, `carrier-js`); a plain
/// HTML comment carrier is kept, since its words are plain text the classifier reads.
fn is_carrier(style: &str) -> bool {
    let encoded_inside = ["b64", "base64", "hex", "pct", "zw"].iter().any(|e| style.contains(e));
    ENCODED.contains(&style)
        || (style.contains("carrier") && (!style.contains("comment") || encoded_inside))
}

/// Training hyper-parameters: epochs, L2, weight clip, weight of the sets' legitimate lines
/// (environment `TRAIN_*`; the defaults are the best of the CV figures tried).
fn hyper() -> (usize, f32, f32, f32) {
    let get = |k: &str, d: f32| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    (
        get("TRAIN_EPOCHS", 20.0) as usize,
        get("TRAIN_L2", 1e-2),
        get("TRAIN_CLIP", 3.0),
        get("TRAIN_HARD", 2.0),
    )
}

struct Row {
    feats: Vec<u32>,
    /// Each sentence's features with the line-wide ones (lines of two or more sentences).
    views: Vec<Vec<u32>>,
    rule: bool,
    /// Whether the line holds any lexicon concept or stance cue (the classifier judges only
    /// such lines).
    concept: bool,
    attack: bool,
    /// Whether the line holds Chinese characters (its thresholds are the Chinese pair).
    zh: bool,
    /// The rules that fired (`r:` features other than `r:any`), by name: a bucket may hold
    /// another feature too, so names are kept rather than looked up by bucket.
    rules: Vec<String>,
    /// Whether a rule of `evokb_lint::DECISIVE_RULES` fired: flagged whatever it scores.
    decisive: bool,
    /// Whether the line is an attack of a set in `MUST_FLAG`, weighted up in training.
    must: bool,
    /// Index of the training set, or `None` for the background legitimate lines.
    set: Option<usize>,
    /// A sentence of a legitimate line, added as an example of its own (not in the figures).
    view: bool,
}

struct Model {
    w: Vec<f32>,
    bias: f32,
    /// The network, when one was trained (`TRAIN_HIDDEN`): it scores instead of `w`.
    net: Option<net::Net>,
}

impl Model {
    fn logit(&self, fs: &[u32]) -> f32 {
        match &self.net {
            Some(n) => n.logit(fs),
            None => self.bias + fs.iter().map(|&f| self.w[f as usize]).sum::<f32>(),
        }
    }

    /// As `score::logit`: the larger of the whole line's and of each sentence's logit.
    fn score(&self, r: &Row) -> f32 {
        if !r.concept {
            // `injection.rs` leaves a line without any concept or stance cue unjudged.
            return f32::MIN;
        }
        r.views.iter().map(|v| self.logit(v)).fold(self.logit(&r.feats), f32::max)
    }

    /// The score a line is flagged by: infinite when a decisive rule fired on it.
    fn verdict_score(&self, r: &Row) -> f32 {
        if r.decisive {
            f32::INFINITY
        } else {
            self.score(r)
        }
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The average of `TRAIN_AVG` (default 20) models trained in different SGD orders: one order's
/// model moves the pooled held-out recall by about ±0.02 against another's; the average is
/// steadier and never worse than the typical single run (`blind/RESULTS.md`, round 4). Scoring
/// costs the same: the averaged weights are one vector. Round 8 raised the default from 5 to
/// 20: over two base seeds, leave-one-set-out 0.712 and 0.714 against 0.707 and 0.708; the
/// Chinese rule-line threshold 2.29 and 2.77 against 1.69 and 1.74 (a threshold that low let
/// Chinese process descriptions through on any rule); the scored batches' spread between the
/// two seeds at most 7 attacks against 12 (`blind/RESULTS.md`, round 8). Training takes about
/// four minutes instead of one.
fn train(rows: &[&Row]) -> Model {
    if let Some(p) = net::NetParams::from_env() {
        let (pos_weight, hard) = class_weights(rows);
        let data: Vec<(&[u32], bool, f32)> = rows
            .iter()
            .map(|r| (r.feats.as_slice(), r.attack, row_weight(r, pos_weight, hard)))
            .collect();
        let seed = std::env::var("TRAIN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        return Model { w: Vec::new(), bias: 0.0, net: Some(net::train(&data, &p, seed)) };
    }
    let runs =
        std::env::var("TRAIN_AVG").ok().and_then(|v| v.parse::<u64>().ok()).unwrap_or(20).max(1);
    let base = std::env::var("TRAIN_SEED").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let mut avg = Model { w: vec![0.0f32; DIM], bias: 0.0, net: None };
    for k in 0..runs {
        let m = train_once(rows, base.wrapping_add(k));
        for (a, x) in avg.w.iter_mut().zip(&m.w) {
            *a += x / runs as f32;
        }
        avg.bias += m.bias / runs as f32;
    }
    avg
}

/// The weight of an attack (the classes balanced, at most 4:1) and of a set's legitimate line.
fn class_weights(rows: &[&Row]) -> (f32, f32) {
    let pos = rows.iter().filter(|r| r.attack).count().max(1);
    let neg = rows.len() - pos;
    ((neg as f32 / pos as f32).clamp(1.0, 4.0), hyper().3)
}

/// A row's weight in the loss.
fn row_weight(row: &Row, pos_weight: f32, hard: f32) -> f32 {
    // The legitimate lines of the sets are near-misses written to look like attacks.
    match (row.attack, row.set) {
        (true, _) if row.must => pos_weight * MUST_WEIGHT,
        (true, _) => pos_weight,
        (false, Some(_)) => hard,
        (false, None) => 1.0,
    }
}

fn train_once(rows: &[&Row], seed: u64) -> Model {
    let (pos_weight, hard) = class_weights(rows);
    let mut w = vec![0.0f32; DIM];
    let mut bias = 0.0f32;
    let (epochs, l2, clip, _) = hyper();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // `TRAIN_SEED` varies the SGD order, to see how much of a difference between two runs is
    // the order alone.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ seed;
    for epoch in 0..epochs {
        for i in (1..order.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let j = (state >> 33) as usize % (i + 1);
            order.swap(i, j);
        }
        let lr = 0.2 / (1.0 + epoch as f32 * 0.15);
        for &r in &order {
            let row = rows[r];
            let z = bias + row.feats.iter().map(|&f| w[f as usize]).sum::<f32>();
            let y = if row.attack { 1.0 } else { 0.0 };
            let weight = row_weight(row, pos_weight, hard);
            let g = (sigmoid(z) - y) * weight;
            bias -= lr * g * 0.1;
            for &f in &row.feats {
                let x = &mut w[f as usize];
                *x = (*x - lr * (g + l2 * *x)).clamp(-clip, clip);
            }
        }
    }
    Model { w, bias, net: None }
}

/// A held-out score: logit, whether a rule fired, whether the line is an attack, whether it
/// holds Chinese.
type Scored = (f32, bool, bool, bool);

/// The thresholds a score must reach, per language (0: a line without Chinese characters, 1:
/// a line with them), each a pair (plain line, line on which a rule fired). Chinese lines
/// carry more features per character (bigrams and trigrams of characters), so their scores
/// sit on another scale than English lines'.
#[derive(Clone, Copy)]
struct Thresholds([(f32, f32); 2]);

impl Thresholds {
    fn of(&self, x: &Scored) -> f32 {
        let (plain, rule) = self.0[usize::from(x.3)];
        if x.1 {
            rule
        } else {
            plain
        }
    }

    fn raised_to(self, floor: f32) -> Self {
        Thresholds(self.0.map(|(p, r)| (p.max(floor), r.max(floor))))
    }

    fn describe(&self) -> String {
        let [(e, er), (z, zr)] = self.0;
        format!("English {e:.3} (rule-line {er:.3}), Chinese {z:.3} (rule-line {zr:.3})")
    }
}

fn flagged(x: &Scored, th: &Thresholds) -> bool {
    x.0 >= th.of(x)
}

/// Attacks caught, and the (plain, rule-line) pair that catches them.
type Catch = (usize, (f32, f32));

/// The thresholds that catch most attacks of `held` while at most `rate` of its legitimate
/// lines are flagged, in all; in each language the rule-line threshold is never above the
/// other. For each language, every split of its flagged legitimate lines between rule lines
/// and plain lines is tried, keeping the best catch for each number flagged; the two languages'
/// best are then combined within the allowance.
fn pick(held: &[Scored], rate: f64) -> Thresholds {
    let allowed = (held.iter().filter(|x| !x.2).count() as f64 * rate).floor() as usize;
    let above = |v: &[f32], k: usize| v.get(k).map_or(f32::MIN, |z| z + 1e-3);
    let per_language: Vec<Vec<Option<Catch>>> = [false, true]
        .iter()
        .map(|&zh| {
            let lines: Vec<&Scored> = held.iter().filter(|x| x.3 == zh).collect();
            let sorted = |rule: bool| {
                let mut v: Vec<f32> =
                    lines.iter().filter(|x| !x.2 && x.1 == rule).map(|x| x.0).collect();
                v.sort_by(|a, b| b.total_cmp(a));
                v
            };
            let (rule_legit, plain_legit) = (sorted(true), sorted(false));
            let mut best: Vec<Option<Catch>> = vec![None; allowed + 1];
            for kr in 0..=allowed.min(rule_legit.len()) {
                for kp in 0..=(allowed - kr).min(plain_legit.len()) {
                    let t = above(&plain_legit, kp);
                    let t_rule = above(&rule_legit, kr).min(t);
                    let hit = |x: &&&Scored| x.0 >= if x.1 { t_rule } else { t };
                    let fp = lines.iter().filter(|x| !x.2).filter(hit).count();
                    if fp > allowed {
                        continue;
                    }
                    let caught = lines.iter().filter(|x| x.2).filter(hit).count();
                    if best[fp].is_none_or(|(c, _)| caught > c) {
                        best[fp] = Some((caught, (t, t_rule)));
                    }
                }
            }
            best
        })
        .collect();
    let mut result = (0usize, Thresholds([(f32::INFINITY, f32::INFINITY); 2]));
    for (f0, en) in per_language[0].iter().enumerate() {
        for zh in per_language[1].iter().take(allowed + 1 - f0) {
            if let (Some(en), Some(zh)) = (en, zh) {
                if en.0 + zh.0 > result.0 || result.0 == 0 {
                    result = (en.0 + zh.0, Thresholds([en.1, zh.1]));
                }
            }
        }
    }
    result.1
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let opt =
        |k: &str| args.windows(2).filter(|w| w[0] == k).map(|w| w[1].clone()).collect::<Vec<_>>();
    let exclude = opt("--exclude");
    let generated = opt("--generated");
    // Development sets scored by the final model, never trained on (`lint/tests/dev/`).
    let dev = opt("--dev");
    // Ablation: `--drop q:,y:` trains without the feature kinds named.
    let drop: Vec<String> = opt("--drop")
        .iter()
        .flat_map(|d| d.split(',').map(String::from).collect::<Vec<_>>())
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let train_dir = root.join("tests/train");
    let mut set_paths: Vec<PathBuf> = std::fs::read_dir(&train_dir)
        .expect("lint/tests/train")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    set_paths.sort();
    let mut names: Vec<String> = Vec::new();
    let mut data: Vec<(String, bool, Option<usize>)> = Vec::new();
    for s in &set_paths {
        let name = s.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if exclude.contains(&name) {
            eprintln!("held out entirely: {name}");
            continue;
        }
        let k = names.len();
        names.push(name);
        for v in jsonl(&s.join("attacks.jsonl")) {
            let style = v.get("style").and_then(|x| x.as_str()).unwrap_or("plain");
            if !is_carrier(style) {
                data.push((v["text"].as_str().unwrap_or("").to_string(), true, Some(k)));
            }
        }
        for v in jsonl(&s.join("legit.jsonl")) {
            data.push((v["text"].as_str().unwrap_or("").to_string(), false, Some(k)));
        }
    }
    // The injection files of the labelled corpus: each holds one attack line among template
    // advice; it is the one body line that occurs in no other corpus file.
    if !exclude.iter().any(|e| e == "corpus-positive") {
        let k = names.len();
        names.push("corpus-positive".to_string());
        for l in corpus_attacks(&root.join("tests/corpus")) {
            data.push((l, true, Some(k)));
        }
    }
    let mut background = BTreeSet::new();
    text_lines(&root.join("../tests/data/tilelang-kb"), &mut background);
    text_lines(&root.join("tests/corpus/negative"), &mut background);
    text_lines(&train_dir.join("generated-lines.txt"), &mut background);
    data.extend(background.into_iter().map(|l| (l, false, None)));

    let mut bucket_names: BTreeMap<u32, String> = BTreeMap::new();
    let row_of = |t: &str, bucket_names: &mut BTreeMap<u32, String>| -> Row {
        let (mut fs, rule, inside) = evokb_lint::scorer_row(t);
        let dropped: BTreeSet<u32> = fs
            .iter()
            .filter(|(_, n)| drop.iter().any(|d| n.starts_with(d.as_str())))
            .map(|x| x.0)
            .collect();
        fs.retain(|(b, _)| !dropped.contains(b));
        for (b, n) in &fs {
            bucket_names.entry(*b).or_insert_with(|| n.clone());
        }
        let shared: Vec<u32> = fs
            .iter()
            .filter(|(_, n)| n.starts_with("r:") || n.starts_with("s:"))
            .map(|x| x.0)
            .collect();
        let views: Vec<Vec<u32>> = inside
            .iter()
            .map(|v| {
                shared.iter().chain(v.iter().filter(|b| !dropped.contains(b))).copied().collect()
            })
            .collect();
        // As `injection.rs`: a line is judged when it holds a lexicon concept or a stance cue.
        let concept = fs.iter().any(|(_, n)| n.starts_with("c:") || n.starts_with("m:"));
        let dedup = |mut v: Vec<u32>| {
            if std::env::var_os("TRAIN_DEDUP").is_some() {
                v.sort_unstable();
                v.dedup();
            }
            v
        };
        let views: Vec<Vec<u32>> = views.into_iter().map(dedup).collect();
        Row {
            feats: dedup(fs.iter().map(|x| x.0).collect()),
            views,
            rule,
            concept,
            attack: false,
            zh: evokb_lint::scorer_chinese(t),
            must: false,
            decisive: fs.iter().any(|(_, n)| {
                n.strip_prefix("r:").is_some_and(|r| evokb_lint::DECISIVE_RULES.contains(&r))
            }),
            rules: fs
                .iter()
                .filter(|(_, n)| n.starts_with("r:") && n != "r:any")
                .map(|(_, n)| n.clone())
                .collect(),
            set: None,
            view: false,
        }
    };
    let mut rows: Vec<Row> = data
        .iter()
        .map(|(t, attack, set)| Row {
            attack: *attack,
            set: *set,
            must: *attack && set.is_some_and(|k| MUST_FLAG.contains(&names[k].as_str())),
            ..row_of(t, &mut bucket_names)
        })
        .collect();
    // Every sentence of a legitimate line is legitimate on its own.
    let extra: Vec<Row> = rows
        .iter()
        .filter(|r| !r.attack)
        .flat_map(|r| {
            r.views.iter().map(|v| Row {
                feats: v.clone(),
                views: Vec::new(),
                rule: false,
                concept: r.concept,
                attack: false,
                zh: r.zh,
                rules: Vec::new(),
                decisive: false,
                must: false,
                set: r.set,
                view: true,
            })
        })
        .collect();
    rows.extend(extra);
    // `TRAIN_FEATURES=FILE`: every row's hashed features, for experiments with other model
    // classes outside the repository (one row a line: set, attack, rule, zh, concept,
    // decisive, must, view, the line's buckets, each sentence's buckets separated by `;`).
    if let Ok(p) = std::env::var("TRAIN_FEATURES") {
        let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        let mut out = String::new();
        for r in &rows {
            let set = r.set.map_or("-", |k| names[k].as_str());
            let views: Vec<String> = r.views.iter().map(|v| join(v)).collect();
            out.push_str(&format!(
                "{set}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                u8::from(r.attack),
                u8::from(r.rule),
                u8::from(r.zh),
                u8::from(r.concept),
                u8::from(r.decisive),
                u8::from(r.must),
                u8::from(r.view),
                join(&r.feats),
                views.join(";")
            ));
        }
        std::fs::write(p, out).expect("write the feature rows");
        return;
    }
    // `TRAIN_RULES=1`: how often each rule verdict stands on attacks and on legitimate lines
    // (sets and background), to see which rules a legitimate line never trips;
    // `TRAIN_RULES=r:phrase:override` also prints the legitimate lines that one trips.
    if let Some(shown) = std::env::var_os("TRAIN_RULES") {
        let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (r, d) in rows.iter().zip(&data).filter(|(r, _)| !r.view) {
            for name in r.rules.iter().collect::<BTreeSet<_>>() {
                let t = tally.entry(name).or_default();
                if r.attack {
                    t.0 += 1;
                } else {
                    t.1 += 1;
                    if shown.to_str() == Some(name) {
                        eprintln!("legitimate line with {name}: {}", d.0);
                    }
                }
            }
        }
        for (name, (a, l)) in &tally {
            eprintln!("rule {name:<28} attacks {a:>5}  legitimate {l:>5}");
        }
    }
    let pos = rows.iter().filter(|r| r.attack).count();
    let lines = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| !r.view && f(r)).count();
    eprintln!(
        "{pos} attacks, {} legitimate lines of the sets, {} background lines, {} sentences of legitimate lines",
        lines(&|r| !r.attack && r.set.is_some()),
        lines(&|r| r.set.is_none()),
        rows.iter().filter(|r| r.view).count()
    );

    // Leave one set out.
    let mut held: Vec<Vec<Scored>> = vec![Vec::new(); names.len()];
    let mut dump = String::new();
    let mut no_concept: Vec<(f32, bool)> = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let tr: Vec<&Row> = rows.iter().filter(|r| r.set != Some(k)).collect();
        let m = train(&tr);
        for (r, d) in rows.iter().zip(&data).filter(|(r, _)| r.set == Some(k) && !r.view) {
            let z = m.verdict_score(r);
            held[k].push((z, r.rule, r.attack, r.zh));
            if r.attack && !r.concept {
                no_concept.push((z, r.rule));
            }
            let text = d.0.replace(['\n', '\t'], " ");
            dump.push_str(&format!(
                "{name}\t{}\t{z:.3}\t{}\t{text}\t{}\n",
                u8::from(r.attack),
                u8::from(r.rule),
                r.rules.join(",")
            ));
        }
    }
    if let Ok(p) = std::env::var("TRAIN_DUMP") {
        std::fs::write(p, &dump).expect("write the held-out scores");
    }
    let pooled: Vec<Scored> = names
        .iter()
        .zip(&held)
        .filter(|(n, _)| !NOT_CALIBRATED.contains(&n.as_str()))
        .flat_map(|(_, h)| h.iter().copied())
        .collect();
    let cv = pick(&pooled, 0.01);
    let mut report = format!(
        "# Leave-one-set-out, plain-text lines; thresholds {} hold the pooled held-out FPR <= 1% (sets marked * not in that pool):\n",
        cv.describe()
    );
    let (mut ta, mut tn, mut fl, mut nl) = (0, 0, 0, 0);
    let mut calibrated = (0usize, 0usize, 0usize, 0usize);
    for (k, name) in names.iter().enumerate() {
        let a: Vec<_> = held[k].iter().filter(|x| x.2).collect();
        let l: Vec<_> = held[k].iter().filter(|x| !x.2).collect();
        let caught = a.iter().filter(|x| flagged(x, &cv)).count();
        let fp = l.iter().filter(|x| flagged(x, &cv)).count();
        let star = if NOT_CALIBRATED.contains(&name.as_str()) { "*" } else { " " };
        report.push_str(&format!(
            "#  {star}{name:<16} recall {caught}/{} = {:.3}   FPR {fp}/{} = {:.3}   (rules alone: {}/{}, {}/{})\n",
            a.len(),
            caught as f64 / a.len().max(1) as f64,
            l.len(),
            fp as f64 / l.len().max(1) as f64,
            a.iter().filter(|x| x.1).count(),
            a.len(),
            l.iter().filter(|x| x.1).count(),
            l.len()
        ));
        ta += caught;
        tn += a.len();
        fl += fp;
        nl += l.len();
        if star == " " {
            calibrated.0 += caught;
            calibrated.1 += a.len();
            calibrated.2 += fp;
            calibrated.3 += l.len();
        }
    }
    let (ca, cn, cf, cl) = calibrated;
    report.push_str(&format!(
        "#   {:<16} recall {ca}/{cn} = {:.3}   FPR {cf}/{cl} = {:.3}   (the calibration pool)\n",
        "pooled",
        ca as f64 / cn.max(1) as f64,
        cf as f64 / cl.max(1) as f64
    ));
    report.push_str(&format!(
        "#   {:<16} recall {ta}/{tn} = {:.3}   FPR {fl}/{nl} = {:.3}   (every set)\n",
        "pooled",
        ta as f64 / tn.max(1) as f64,
        fl as f64 / nl.max(1) as f64
    ));
    eprint!("{report}");
    eprintln!(
        "attacks without any lexicon concept or stance cue: {} (caught held out: {}); background lines without one: {}",
        no_concept.len(),
        no_concept.iter().filter(|x| x.0 >= cv.0[0].0.min(cv.0[1].0)).count(),
        rows.iter().filter(|r| r.set.is_none() && !r.view && !r.concept).count()
    );

    // The final model, on everything.
    let all: Vec<&Row> = rows.iter().collect();
    let m = train(&all);
    let max_background = rows
        .iter()
        .filter(|r| r.set.is_none() && !r.view)
        .map(|r| m.score(r))
        .fold(f32::MIN, f32::max);
    let decisive_background = rows.iter().filter(|r| r.set.is_none() && r.decisive).count();
    assert_eq!(decisive_background, 0, "a decisive rule fired on a background line");
    let th = cv.raised_to(max_background + 0.05);
    let fit = |attack: bool| {
        rows.iter()
            .filter(|r| r.set.is_some() && r.attack == attack && !r.view)
            .filter(|r| flagged(&(m.verdict_score(r), r.rule, attack, r.zh), &th))
            .count()
    };
    let summary = format!(
        "# Final model on all lines: highest background score {max_background:.3}; thresholds {}; training fit {}/{pos} attacks, {}/{} legitimate set lines flagged.\n",
        th.describe(),
        fit(true),
        fit(false),
        lines(&|r| !r.attack && r.set.is_some())
    );
    eprint!("{summary}");
    for g in &generated {
        let mut lines = BTreeSet::new();
        text_lines(Path::new(g), &mut lines);
        let mut fp = 0;
        for l in &lines {
            let r = row_of(l, &mut BTreeMap::new());
            if flagged(&(m.verdict_score(&r), r.rule, false, r.zh), &th) {
                fp += 1;
                if fp <= 20 {
                    eprintln!("  generated FP: {l}");
                }
            }
        }
        eprintln!("generated corpus {g}: {fp} of {} distinct lines flagged", lines.len());
    }

    for d in &dev {
        // The classifier alone, at the final thresholds (the whole pipeline, decoding included,
        // is `blind_eval.rs`; the two agree on plain lines).
        let dir = Path::new(d);
        let judge = |v: &serde_json::Value| {
            let r = row_of(v["text"].as_str().unwrap_or(""), &mut BTreeMap::new());
            flagged(&(m.verdict_score(&r), r.rule, false, r.zh), &th)
        };
        let plain = |v: &&serde_json::Value| {
            !is_carrier(v.get("style").and_then(|x| x.as_str()).unwrap_or("plain"))
        };
        let a = jsonl(&dir.join("attacks.jsonl"));
        let l = jsonl(&dir.join("legit.jsonl"));
        let a: Vec<&serde_json::Value> = a.iter().filter(plain).collect();
        let caught = a.iter().filter(|v| judge(v)).count();
        let fp = l.iter().filter(|v| judge(v)).count();
        for v in a.iter().filter(|v| !judge(v)) {
            eprintln!("  dev MISS {}", v["text"].as_str().unwrap_or(""));
        }
        for v in l.iter().filter(|v| judge(v)) {
            eprintln!("  dev FALSE POSITIVE {}", v["text"].as_str().unwrap_or(""));
        }
        eprintln!(
            "dev set {d}: recall {caught}/{} = {:.3}, FPR {fp}/{} = {:.3} (classifier, plain lines)",
            a.len(),
            caught as f64 / a.len().max(1) as f64,
            l.len(),
            fp as f64 / l.len().max(1) as f64
        );
    }

    let (fingerprint, bits) = evokb_lint::scorer_meta();
    assert_eq!(1usize << bits, DIM, "score.rs hashes into another number of buckets");
    let mut out = String::from(
        "# Weights of the KB-SEC-INJECTION classifier, written by `cargo run --release -p evokb-lint --example train_scorer`.\n",
    );
    out.push_str(if m.net.is_some() {
        "# Do not edit by hand. Rows: the thresholds, the lexicon fingerprint and the network's shape; its weights are in scorer_net.bin.\n"
    } else {
        "# Do not edit by hand. Rows: hash bucket, weight, the first feature seen in that bucket.\n"
    });
    out.push_str(&report);
    out.push_str(&summary);
    out.push_str(&format!(
        "bias\t{:.4}\nthreshold\t{:.4}\nrule_threshold\t{:.4}\nthreshold_zh\t{:.4}\nrule_threshold_zh\t{:.4}\nfingerprint\t{fingerprint:x}\n",
        m.bias,
        th.0[0].0,
        th.0[0].1,
        th.0[1].0,
        th.0[1].1
    ));
    let path =
        opt("--out").first().map_or_else(|| root.join("src/scorer_weights.tsv"), PathBuf::from);
    // The network's weights go next to the TSV (`scorer_net.bin` beside the default one); a
    // logistic model removes a network file left there, so the build embeds the model trained.
    let net_path = path.with_file_name(
        path.file_stem().map_or("scorer".into(), |s| s.to_string_lossy().replace("_weights", ""))
            + "_net.bin",
    );
    if let Some(n) = &m.net {
        out.push_str(&format!("hidden\t{}\nhidden_bits\t{}\n", n.hidden, n.bits));
        std::fs::write(&net_path, n.to_bytes()).expect("write the network's weights");
        eprintln!(
            "network of {} hidden units over 2^{} buckets written to {}",
            n.hidden,
            n.bits,
            net_path.display()
        );
    } else {
        let _ = std::fs::remove_file(&net_path);
        let mut kept = 0;
        for (b, name) in &bucket_names {
            let w = m.w[*b as usize];
            if w.abs() >= 0.01 {
                kept += 1;
                out.push_str(&format!("{b}\t{w:.4}\t{name}\n"));
            }
        }
        eprintln!("{kept} weights written");
    }
    std::fs::write(path, out).expect("write scorer_weights.tsv");
}
