//! Lint rules for evokb knowledge-base entries: the security checks of issue 6 item 3
//! (`KB-SEC-INJECTION`, `KB-SEC-HIDDEN`, `KB-SEC-PATH`) and the whole-body `KB-IMPERATIVE`
//! check that fixes the old `kb_lint` defect (spec §8 item 4: only the start of the body was
//! tested, so the rule never fired).
//!
//! `KB-REPRO-COMPILE` ([`check_python_syntax`]) parses a repro script with tree-sitter's
//! Python grammar.
//!
//! Every check is a pure function over one entry's text (front-matter and body as one string);
//! only [`check_paths`] touches the file system, and only to resolve symlinks when a
//! repository root is given. No check panics on any input. So that a caller may keep findings
//! beyond one run, [`check_security_probed`] also returns every question the path check asked
//! the file system ([`Probe`], asked again by [`probes_hold`]), and
//! [`DETECTOR_FINGERPRINT`] changes with any source file of the checks.
//!
//! Encoded text (base64, hex, URL, HTML entities) is decoded and judged like plain text
//! ([`check_decoded`]); dangerous link schemes are errors.
//!
//! Line numbers in [`Finding::line`] are 1-based within the text that was passed in.

mod decode;
mod hidden;
mod imperative;
mod injection;
mod intent;
mod net_format;
mod norms;
mod paths;
mod python;
mod score;
mod text;

pub use decode::check_decoded;
pub use hidden::check_hidden;
pub use imperative::check_imperative;
pub use injection::check_injection;
pub use paths::{check_paths, probes_hold, Probe, PROVENANCE_MARKERS};

include!(concat!(env!("OUT_DIR"), "/detector_fingerprint.rs"));
pub use python::{check_python_syntax, SyntaxError};

/// Code of the injected-instruction check.
pub const KB_SEC_INJECTION: &str = "KB-SEC-INJECTION";
/// Code of the hidden-content check.
pub const KB_SEC_HIDDEN: &str = "KB-SEC-HIDDEN";
/// Code of the paths-leaving-the-repository check.
pub const KB_SEC_PATH: &str = "KB-SEC-PATH";
/// Code of the repro syntax check (the old tool's code, kept).
pub const KB_REPRO_COMPILE: &str = "KB-REPRO-COMPILE";
/// Code of the imperative-text check (the old tool's code, kept).
pub const KB_IMPERATIVE: &str = "KB-IMPERATIVE";

/// How serious a finding is. `Error` findings make `evokb lint` exit 1 and block `add`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    /// Blocks the mutation; lint exits 1.
    Error,
    /// Reported only.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`, as printed in `--json` output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One rule violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Rule code, e.g. `KB-SEC-INJECTION`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line within the text given to the check.
    pub line: usize,
    /// Human-readable explanation; names the category and quotes the offending fragment.
    pub message: String,
}

/// All three security checks over one entry, sorted by line then code.
pub fn check_security(
    text: &str,
    repo_root: Option<&std::path::Path>,
    file_dir: Option<&std::path::Path>,
) -> Vec<Finding> {
    let mut out = check_injection(text);
    out.extend(check_hidden(text));
    for f in check_decoded(text) {
        // One hidden-content finding per line is enough: a decoded instruction on a line
        // that is already flagged as an encoded payload replaces the plainer message.
        out.retain(|o| !(o.code == KB_SEC_HIDDEN && o.line == f.line));
        out.push(f);
    }
    out.extend(check_paths(text, repo_root, file_dir));
    out.sort_by(|a, b| a.line.cmp(&b.line).then(a.code.cmp(b.code)));
    out
}

/// [`check_security`], and the file-system probes its answer rests on: the findings are a
/// function of the text, `repo_root`, `file_dir`, [`DETECTOR_FINGERPRINT`] and the probes'
/// answers, so a caller that keeps them may reuse them while [`probes_hold`] says every probe
/// still gets the same answer.
pub fn check_security_probed(
    text: &str,
    repo_root: Option<&std::path::Path>,
    file_dir: Option<&std::path::Path>,
) -> (Vec<Finding>, Vec<Probe>) {
    paths::recording(|| check_security(text, repo_root, file_dir))
}

/// The scorer features of one line (after the same normalisation the checks use): the hash
/// bucket and name of each, whether a rule fired on the line, and the buckets inside each of
/// its sentences; for the trainer in `examples/train_scorer.rs`, not part of the checking API.
#[doc(hidden)]
#[allow(clippy::type_complexity)]
pub fn scorer_row(line: &str) -> (Vec<(u32, String)>, bool, Vec<Vec<u32>>) {
    injection::scorer_row(&text::normalise(line))
}

/// The rules whose verdict stands whatever the model scores; for the trainer.
#[doc(hidden)]
pub use injection::DECISIVE_RULES;

/// Whether the scorer holds `line` to its Chinese thresholds (it holds a Chinese character once
/// normalised); for the trainer.
#[doc(hidden)]
pub fn scorer_chinese(line: &str) -> bool {
    score::has_chinese(&text::normalise(line))
}

/// The fingerprint of the lexicon the scorer's concept features are numbered by, and the
/// number of hash bits; written into the weights by the trainer.
#[doc(hidden)]
pub fn scorer_meta() -> (u64, u32) {
    (intent::lexicon_fingerprint(), score::BITS)
}

/// Builds a fresh copy of every table the checks otherwise build once per process, on first
/// use (the phrase rules and their literal prefilter, the lexicon and norm automata; the scorer's
/// weights are a table built into the binary by `build.rs`, so only their size is counted),
/// and returns their sizes; for the construction benchmark, not part of the checking
/// API. A phrase rule's regex is compiled only when a line may match it, so it is not part of
/// this cost.
#[doc(hidden)]
pub fn construct_detectors() -> usize {
    injection::construct() + intent::construct() + score::construct() + norms::construct()
}

/// Builds now, on the calling thread, the tables that every check otherwise builds on the first
/// line that needs each (the phrase rules' literal prefilter, the lexicon automaton, the stance
/// cues, the norm table), so that a caller with a spare core can pay for them while it does other work, e.g.
/// while it reads the records it is about to check. Idempotent and safe to call from any
/// thread at any time: a check that needs a table still being built waits for it, and no
/// finding depends on when a table was built. The phrase rules' regexes are not compiled here:
/// each compiles only when a line may match it.
pub fn warm_up() {
    injection::warm_up();
    intent::warm_up();
    score::warm_up();
    norms::warm_up();
}

/// Forget everything memoised so far (injection verdicts, decoded lines, symlink and
/// canonical-path answers, directory listings): a long-running process (the MCP server) calls
/// it before each request, so that each sees the file system as a new process would, and a
/// benchmark calls it to time a cold pass. Results on an unchanged file system never depend on
/// the caches.
pub fn clear_caches() {
    forget_line_answers();
    paths::clear_listings();
}

/// Forget the per-line and per-token answers memoised so far, which grow with the text
/// checked, to bound a long run's memory (an import judging 100k records empties them every
/// 1,024). The directory listings are kept: they grow with the directories that hold the
/// records checked, not with the text, and a large one is costly to read again (a topic
/// directory of 15,000 files, listed again after each emptying, made the listing work grow as
/// n² in a first import at 300k).
/// Results never depend on the caches.
pub fn forget_line_answers() {
    intent::clear_cache();
    injection::clear_cache();
    decode::clear_cache();
    paths::clear_answers();
}

/// Whether the byte-level prefilters may skip work (the default). Each prefilter is a
/// necessary condition of the work it guards firing (every one argues this in its comment), so
/// turning them off changes only the time a check takes; the differential test
/// (`tests/fast_path.rs`) runs every check both ways over the training sets, the corpora and the
/// real sample and requires the same findings.
static PREFILTERS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turn the byte-level prefilters off (`false`) or back on, process-wide; for the differential
/// test, not part of the checking API. Findings never depend on it.
#[doc(hidden)]
pub fn set_prefilters(on: bool) {
    PREFILTERS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether the prefilters are on (see [`set_prefilters`]).
pub(crate) fn prefilters() -> bool {
    PREFILTERS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The map of every per-line memo: keys are lines of entry text, hashed with foldhash (seeded
/// per process from address-space randomisation, so a collision crafted for one run does not
/// carry over to the next) instead of SipHash, whose rounds were a visible share of a
/// 10k-entry lint in which most lines are looked up.
pub(crate) type Memo<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Longest line whose per-line answers are memoised: knowledge bases repeat short lines
/// (front-matter fields, stamps, table rules) across entries, while long body lines are
/// unique and would only cost a copy and a hash.
pub(crate) const MEMO_MAX_LINE: usize = 160;

/// Compile a built-in pattern. The patterns are constants, covered by the unit tests that
/// force every rule table, so this cannot fail on user input.
pub(crate) fn re(pattern: &str) -> regex::Regex {
    regex::RegexBuilder::new(pattern)
        .size_limit(64 << 20)
        .build()
        .unwrap_or_else(|e| panic!("built-in lint pattern does not compile: {e}\n{pattern}"))
}
