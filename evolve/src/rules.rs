//! Policy checks over the store: lint (the old kb_lint rules with their defects fixed, plus the
//! security checks of `evokb-lint`), byte budgets with consolidation candidates, and toolchain
//! staleness against a given stamp.
//!
//! Everything here reads records and layouts; nothing writes. Findings carry the file and the
//! line in that file, computed from the layout the same way the renderer lays the file out.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use evokb_lint::Severity as LintSeverity;
use evokb_store::search::tokenize::CjkBigramTokenizer;
use evokb_store::{CaseHash, FileLayout, Kind, LayoutItem, ReadTxn, Record, Segment, StoreError};
use serde::{Deserialize, Serialize};

use evokb_export::layout::{FileRole, Layout};
use evokb_export::memory::MemoryKb;
use evokb_export::render::RecordSource;

use crate::verdicts::{TextChecks, Verdicts};

/// A lint finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, PartialOrd, Ord)]
pub struct Finding {
    /// The file.
    pub file: String,
    /// The line in the file (0 for the whole file).
    pub line: usize,
    /// The column in the line, 1-based, where the rule knows one (a syntax error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The rule, e.g. `KB-FM-ENUM` or `KB-SEC-INJECTION`.
    pub code: String,
    /// `error` or `warning`.
    pub severity: String,
    /// The record's id, when the finding is about one.
    pub id: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Finding {
    /// Whether the finding blocks (lint exits 1; add and merge refuse).
    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

/// Byte and line budgets, from the spec's defaults or `evokb.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budgets {
    /// `INDEX.md`.
    pub index: u64,
    /// Each pattern-library topic file.
    pub topic: u64,
    /// `bottleneck-patterns.md`.
    pub bottleneck: u64,
    /// `algorithm-candidates.md`.
    pub algorithm_candidates: u64,
    /// Each repro script, bytes.
    pub repro_bytes: u64,
    /// Each repro script, lines.
    pub repro_lines: u64,
    /// Per-file overrides by repository path.
    pub files: BTreeMap<String, u64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            index: 12_288,
            topic: 16_384,
            bottleneck: 24_576,
            algorithm_candidates: 16_384,
            repro_bytes: 8_192,
            repro_lines: 100,
            files: BTreeMap::new(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    budget: Budgets,
    /// Read by `evokb_export::layout::Layout::load`.
    #[serde(default)]
    #[allow(dead_code)]
    layout: Option<toml::Value>,
    /// The current toolchain stamp, read by `stale`.
    #[serde(default)]
    #[allow(dead_code)]
    toolchain: Option<toml::Value>,
}

/// Reads `evokb.toml` at the root, if there is one.
pub fn load_budgets(root: &Path) -> Result<Budgets, String> {
    let path = root.join("evokb.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Budgets::default()),
        Err(e) => return Err(format!("cannot read '{}': {e}", path.display())),
    };
    toml::from_str::<ConfigFile>(&text)
        .map(|c| c.budget)
        .map_err(|e| format!("'{}' is not a valid evokb.toml: {e}", path.display()))
}

impl Budgets {
    /// The byte budget of a managed file, if it has one.
    pub fn for_file(&self, path: &str, lay: &Layout) -> Option<u64> {
        if let Some(b) = self.files.get(path) {
            return Some(*b);
        }
        if path == lay.index {
            Some(self.index)
        } else if path == lay.bottlenecks {
            Some(self.bottleneck)
        } else if path == lay.algorithm_candidates {
            Some(self.algorithm_candidates)
        } else if lay.role_of(path) == Some(FileRole::Topic) {
            Some(self.topic)
        } else {
            None
        }
    }
}

/// The first line of every record in every file, from the layouts.
pub fn record_lines(txn: &dyn RecordSource) -> Result<HashMap<CaseHash, usize>, StoreError> {
    let mut out = HashMap::new();
    for layout in txn.layouts()? {
        let mut line = 1;
        for item in &layout.items {
            match item {
                LayoutItem::Prose(p) => line += p.matches('\n').count(),
                LayoutItem::Record(h) => {
                    out.insert(*h, line);
                    if let Some(r) = txn.get(h)? {
                        line += newlines(&r);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The number of newlines in a record's text, counted over its segments (no copy of the text).
fn newlines(rec: &Record) -> usize {
    rec.segments
        .iter()
        .map(|seg| match seg {
            Segment::Lit(s) | Segment::Body(s) | Segment::Field { value: s, .. } => {
                bytecount_newlines(s)
            }
        })
        .sum()
}

/// The newlines of `s`, counted 255 bytes at a time into a byte-wide tally: a `usize` tally
/// per byte kept the compiler to two bytes per step, and this count ran over every record's
/// text and every prose block of a lint (a twentieth of a 10k-entry lint's CPU); a byte-wide
/// tally cannot overflow within 255 bytes and compiles to sixteen or more bytes per step.
fn bytecount_newlines(s: &str) -> usize {
    s.as_bytes()
        .chunks(255)
        .map(|c| usize::from(c.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n'))))
        .sum()
}

/// The length in bytes of a record's text (what `render_layout` writes for it).
fn text_len(rec: &Record) -> usize {
    rec.segments
        .iter()
        .map(|seg| match seg {
            Segment::Lit(s) | Segment::Body(s) | Segment::Field { value: s, .. } => s.len(),
        })
        .sum()
}

/// What lint needs of each file's layout, computed from records already in memory instead of
/// reading each record back from the source (three decodes of every record before): the
/// first line of every record, and each file's rendered size in bytes (`None` when the layout
/// names a record the source lacks, where `render_layout` fails).
struct FileGeometry {
    lines: HashMap<CaseHash, usize>,
    bytes: Vec<(FileLayout, Option<u64>)>,
}

fn file_geometry(layouts: Vec<FileLayout>, by_key: &HashMap<CaseHash, &Record>) -> FileGeometry {
    let mut lines = HashMap::with_capacity(by_key.len());
    let mut bytes = Vec::with_capacity(layouts.len());
    for layout in layouts {
        let mut line = 1;
        let mut size = Some(0u64);
        for item in &layout.items {
            match item {
                LayoutItem::Prose(p) => {
                    line += bytecount_newlines(p);
                    size = size.map(|n| n + p.len() as u64);
                }
                LayoutItem::Record(h) => {
                    lines.insert(*h, line);
                    match by_key.get(h) {
                        Some(r) => {
                            line += newlines(r);
                            size = size.map(|n| n + text_len(r) as u64);
                        }
                        None => size = None,
                    }
                }
            }
        }
        bytes.push((layout, size));
    }
    FileGeometry { lines, bytes }
}

/// The line offset of a record's body within its text.
fn body_offset(rec: &Record) -> usize {
    let mut n = 0;
    for seg in &rec.segments {
        match seg {
            Segment::Body(_) => return n,
            Segment::Lit(s) | Segment::Field { value: s, .. } => n += s.matches('\n').count(),
        }
    }
    n
}

/// Whether an entry is a negative one (a dead end): `negative: true` in its front-matter.
pub fn is_negative(rec: &Record) -> bool {
    rec.field("negative").is_some_and(|v| v.trim() == "true")
}

/// Whether a toolchain value carries a stamp (the old KB-FM-STAMP test).
pub fn has_stamp(toolchain: &str) -> bool {
    let has_year = toolchain.as_bytes().windows(4).any(|w| w.iter().all(u8::is_ascii_digit));
    toolchain.contains("工具链")
        || toolchain.contains("版本戳缺失")
        || has_year
        || toolchain.contains("build")
        || toolchain.contains("commit")
        || toolchain.contains("CANN")
}

/// The repro path a `repro` value names, if it names one (`repro-missing…`, `none` and empty
/// name none; the old lint took `repro-missing（…）` for a path).
pub fn repro_path(value: &str, repro_dir: &str) -> Option<String> {
    let v = value.trim();
    if v.is_empty() || v == "none" || v.starts_with("repro-missing") {
        return None;
    }
    let name = v.strip_prefix("repro/").unwrap_or(v);
    Some(format!("{repro_dir}/{name}"))
}

/// What lint needs besides the store.
pub struct LintInput<'a> {
    /// The knowledge-base root.
    pub root: &'a Path,
    /// Files tracked by git under `examples/` and their ancestor directories; `None` skips the
    /// KB-PROC-REF checks, as the old tool did without git.
    pub tracked_examples: Option<&'a HashSet<String>>,
    /// Budgets.
    pub budgets: &'a Budgets,
}

/// Runs every lint rule over the store.
pub fn lint(txn: &ReadTxn, input: &LintInput<'_>) -> Result<Vec<Finding>, StoreError> {
    Ok(lint_remembering(txn, input, false)?.0)
}

/// [`lint`], using (when `recall`) the text-check verdicts the store remembers (see
/// [`crate::verdicts`]) for records whose text, file and probes are as they were; returns the
/// findings, which are the same as [`lint`]'s without remembered verdicts, the verdicts to
/// keep, and the keys of the records linted (for [`Verdicts::orphans`]).
pub fn lint_remembering(
    txn: &ReadTxn,
    input: &LintInput<'_>,
    recall: bool,
) -> Result<(Vec<Finding>, Verdicts, Vec<CaseHash>), StoreError> {
    let lay = Layout::of(txn)?;
    let mut verdicts = if recall {
        Verdicts::remembered(
            txn.derived(crate::verdicts::NAMESPACE)?,
            &txn.derived(crate::verdicts::PROBES_NAMESPACE)?,
            input.root,
        )
        .with_syntax(txn.derived(crate::verdicts::SYNTAX_NAMESPACE)?)
    } else {
        Verdicts::none()
    };
    // With no verdict to recall (a first lint, or --fresh), every record is checked: the
    // checks' tables are built on a second thread while this one reads the records (not
    // joined; a check that needs a table still being built waits for it). With verdicts, the
    // few records that changed build the tables they need when they need them; building all
    // of them ahead was a fifth of such a lint's time.
    if verdicts.remembered_count() == 0 {
        std::thread::spawn(warm_up_checks);
    }
    // Decoding is most of reading every record; with the text checks remembered it is most of
    // a lint, so in a large store it is spread over the cores as verify spreads it. A small
    // one (the real sample's 1,500 records) is decoded in place on this thread: copying the
    // values out and starting a decompressor per thread cost more than they saved.
    let threads = if txn.record_count()? >= PARALLEL_DECODE_FROM {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(4)
    } else {
        1
    };
    // The keys come with the records (checked against them as they decode), so the list of
    // records linted costs no second hash of each.
    let (keys, records) = txn.keyed_records_in_parallel(threads)?;
    let findings = lint_source(txn, &records, &lay, None, input, &mut verdicts)?;
    Ok((findings, verdicts, keys))
}

/// How many records a store must hold before lint decodes them on several threads.
const PARALLEL_DECODE_FROM: u64 = 8_192;

/// The code of a finding that reports a file that does not parse (lint without a store).
pub const KB_PARSE: &str = "KB-PARSE";

/// Runs every lint rule over a knowledge base parsed in memory, without a store: its parse
/// errors and warnings become [`KB_PARSE`] findings at their file and line, and the records
/// the parser could make of the rest are linted as the store's would be. With `only` (the
/// files `--files` names, as read by [`MemoryKb::read`]), the rules that need the whole
/// knowledge base are skipped, as the old `kb_lint.py --files` skipped them: INDEX coverage,
/// orphan repro scripts and the presence of INDEX.md.
pub fn lint_memory(
    kb: &MemoryKb,
    lay: &Layout,
    only: Option<&[String]>,
    input: &LintInput<'_>,
) -> Result<Vec<Finding>, StoreError> {
    let scope: Option<HashSet<String>> = only.map(|o| o.iter().cloned().collect());
    let mut out = lint_source(kb, &kb.records, lay, scope.as_ref(), input, &mut Verdicts::none())?;
    for d in &kb.diagnostics {
        // A problem with a whole file (not found, unreadable, not managed) is the old tool's
        // KB-FILE; one at a line is a parse error.
        let code = if d.line == 0 && d.is_error() { "KB-FILE" } else { KB_PARSE };
        out.push(Finding {
            file: d.file.clone(),
            line: d.line,
            column: None,
            code: code.into(),
            severity: if d.is_error() { "error" } else { "warning" }.into(),
            id: None,
            message: d.message.clone(),
        });
    }
    out.sort();
    Ok(out)
}

/// The lint rules over any record source: the store, or files parsed in memory. `scope`
/// limits the findings to those files (and the repro scripts their entries name).
fn lint_source(
    src: &dyn RecordSource,
    records: &[Record],
    lay: &Layout,
    scope: Option<&HashSet<String>>,
    input: &LintInput<'_>,
    verdicts: &mut Verdicts,
) -> Result<Vec<Finding>, StoreError> {
    // The source's records by key, the first of a repeated key winning as in `MemoryKb::get`
    // (a store has no repeated keys).
    let mut by_key: HashMap<CaseHash, &Record> = HashMap::with_capacity(records.len());
    for r in records {
        by_key.entry(r.case_hash()).or_insert(r);
    }
    let FileGeometry { lines, bytes: file_bytes } = file_geometry(src.layouts()?, &by_key);
    let mut out = Vec::new();
    let mut push =
        |rec: Option<&Record>, file: &str, line: usize, code: &str, sev: &str, msg: String| {
            out.push(Finding {
                file: file.into(),
                line,
                column: None,
                code: code.into(),
                severity: sev.into(),
                id: rec.map(|r| r.id.clone()),
                message: msg,
            });
        };
    let whole = scope.is_none();
    let in_scope = |file: &str| scope.is_none_or(|s| s.contains(file));
    // Without INDEX.md, one KB-FILE error says so; every entry lacking its row would only
    // repeat it. Linting only some files says nothing of INDEX.md.
    let index_present = src.layout(&lay.index)?.is_some();
    if !index_present && whole {
        push(
            None,
            &lay.index,
            0,
            "KB-FILE",
            "error",
            "INDEX.md is missing; expected the pattern-library router".into(),
        );
    }
    let index_ids: HashSet<&str> =
        records.iter().filter(|r| r.kind == Kind::IndexRow).map(|r| r.id.as_str()).collect();
    let repro_named: HashSet<String> = records
        .iter()
        .filter(|r| r.kind == Kind::Entry)
        .filter_map(|r| r.field("repro").and_then(|v| repro_path(v, &lay.repro)))
        .collect();
    let repro_in_scope: HashSet<String> = records
        .iter()
        .filter(|r| r.kind == Kind::Entry && in_scope(&r.file))
        .filter_map(|r| r.field("repro").and_then(|v| repro_path(v, &lay.repro)))
        .chain(scope.into_iter().flatten().cloned())
        .collect();
    let repro_files: BTreeMap<&str, &Record> =
        records.iter().filter(|r| r.kind == Kind::Repro).map(|r| (r.id.as_str(), r)).collect();
    // The text checks of every record agents read, run first and in parallel: they are pure
    // functions of the record (and the file system, taken as fixed for the run), and most of
    // lint's time. Their findings are pushed in the loop below, record by record; the order of
    // pushes does not matter, as the findings are sorted at the end.
    let checked = text_checks(records, input.root, verdicts, &|r: &Record| {
        r.kind != Kind::Repro && in_scope(&r.file) && evokb_export::kinds::info(r.kind).agent_read
    });
    let mut scripts = Vec::new();
    for (rec, checks) in records.iter().zip(checked) {
        if rec.kind == Kind::Repro {
            if whole || repro_in_scope.contains(&rec.id) {
                scripts.extend(lint_repro_script(rec, input.root, input.budgets, verdicts));
                if whole && !repro_named.contains(&rec.id) {
                    push(
                        Some(rec),
                        &rec.file,
                        0,
                        "KB-REPRO-ORPHAN",
                        "warning",
                        "no entry's 'repro' names this script".into(),
                    );
                }
            }
            continue;
        }
        if !in_scope(&rec.file) {
            continue;
        }
        let start = lines.get(&rec.case_hash()).copied().unwrap_or(0);
        // Kind-specific rules first; every kind the table marks as read by agents then gets
        // the security and wording checks.
        if rec.kind == Kind::Entry {
            let is_alg = rec.id.starts_with("ALG-") || *rec.file == *lay.algorithm_candidates;
            if !is_alg {
                lint_entry(
                    rec,
                    start,
                    input.root,
                    (index_present && whole).then_some(&index_ids),
                    &repro_files,
                    &lay.repro,
                    &mut push,
                );
            }
        }
        if rec.kind == Kind::QueueItem {
            lint_queue_item(rec, start, &mut push);
        }
        if rec.kind == Kind::IndexRow {
            // A repeated id was kept as `ID #n` (see `KindInfo::repeats_kept`).
            let listed = rec.field("id").map(str::trim).unwrap_or("");
            if listed != rec.id {
                let first = records
                    .iter()
                    .find(|r| r.kind == Kind::IndexRow && r.id == listed)
                    .and_then(|r| lines.get(&r.case_hash()));
                push(
                    Some(rec),
                    &rec.file,
                    start,
                    "KB-INDEX-DUP",
                    "warning",
                    format!(
                        "'{listed}' is listed in more than one INDEX table{}; agents route by the first row, and 'set' updates only that one",
                        first.map(|l| format!(" (first at line {l})")).unwrap_or_default()
                    ),
                );
            }
        }
        if !evokb_export::kinds::info(rec.kind).agent_read {
            continue;
        }
        let text = rec.text();
        let TextChecks { security, imperative } = checks.unwrap_or_default();
        for f in security {
            let sev = if f.severity == LintSeverity::Error { "error" } else { "warning" };
            push(Some(rec), &rec.file, start + f.line - 1, f.code, sev, f.message);
        }
        if rec.body().is_some() {
            let offset = body_offset(rec);
            for f in imperative {
                push(
                    Some(rec),
                    &rec.file,
                    start + offset + f.line - 1,
                    f.code,
                    "warning",
                    f.message,
                );
            }
        }
        // A queue item is a proposal, and its evidence, repro command and delta are provenance
        // by the queue schema: they record where a finding came from and may name files that
        // no longer exist. Only knowledge that future tasks follow is held to KB-PROC-REF.
        let provenance = rec.kind == Kind::QueueItem;
        if let Some(tracked) = input.tracked_examples.filter(|_| !provenance) {
            for (i, line) in text.lines().enumerate() {
                for path in example_refs(line) {
                    let marked = evokb_lint::PROVENANCE_MARKERS
                        .iter()
                        .any(|m| line.to_lowercase().contains(m));
                    if !tracked.contains(path.trim_end_matches('/')) && !marked {
                        push(Some(rec), &rec.file, start + i, "KB-PROC-REF", "warning", format!("'{path}' is not tracked in the repository and the line has no provenance marker"));
                    }
                }
            }
        }
    }
    for (layout, size) in file_bytes.iter().filter(|(l, _)| in_scope(&l.path)) {
        if let Some(budget) = input.budgets.for_file(&layout.path, lay) {
            // A layout that names a missing record does not render; it counts as empty, as
            // it did when this rendered the file.
            let bytes = size.unwrap_or(0);
            if bytes > budget {
                push(None, &layout.path, 0, "KB-BUDGET", "warning", format!("{bytes} bytes against a budget of {budget}; see 'evokb budget' for consolidation candidates"));
            }
        }
    }
    out.extend(scripts);
    out.sort();
    Ok(out)
}

/// Builds the security checks' tables now ([`evokb_lint::warm_up`]): a caller that is about
/// to lint calls this on a spare thread first, so the tables are built while it reads the
/// records instead of after. Findings never depend on it.
pub fn warm_up_checks() {
    evokb_lint::warm_up();
}

/// The text checks of every record `wanted` selects (`None` for the others), in record order:
/// remembered in `verdicts` when they still hold, else computed, spread over the available
/// cores (at most four threads, each over one contiguous slice; records come in key order, a
/// hash, so the slices cost about the same). Verdicts computed now are noted in `verdicts`.
fn text_checks(
    records: &[Record],
    root: &Path,
    verdicts: &mut Verdicts,
    wanted: &(dyn Fn(&Record) -> bool + Sync),
) -> Vec<Option<TextChecks>> {
    let known: &Verdicts = verdicts;
    let one = |r: &Record| wanted(r).then(|| crate::verdicts::checks_of(r, root, known));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
    let results: Vec<Option<(TextChecks, Option<crate::verdicts::Learnt>)>> =
        if threads < 2 || records.len() < 64 {
            records.iter().map(one).collect()
        } else {
            let chunk = records.len().div_ceil(threads);
            std::thread::scope(|s| {
                let handles: Vec<_> = records
                    .chunks(chunk)
                    .map(|part| s.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| match h.join() {
                        Ok(v) => v,
                        // A check that panics is a bug; re-raise it on the calling thread.
                        Err(e) => std::panic::resume_unwind(e),
                    })
                    .collect()
            })
        };
    records
        .iter()
        .zip(results)
        .map(|(rec, result)| {
            let (checks, learnt) = result?;
            match learnt {
                Some(learnt) => verdicts.learn(rec, learnt),
                None => verdicts.recalled(rec),
            }
            Some(checks)
        })
        .collect()
}

/// The checks of one repro script on its own: its budget, and KB-REPRO-COMPILE, a syntax
/// check by a Python parser (no interpreter), one finding per syntax error at its line and
/// column. The script is read from the disk, as the header checks read it.
fn lint_repro_script(
    rec: &Record,
    root: &Path,
    budgets: &Budgets,
    verdicts: &mut Verdicts,
) -> Vec<Finding> {
    let finding =
        |line: usize, column: Option<usize>, code: &str, sev: &str, message: String| Finding {
            file: rec.file.to_string(),
            line,
            column,
            code: code.into(),
            severity: sev.into(),
            id: Some(rec.id.clone()),
            message,
        };
    let mut out = Vec::new();
    let bytes: u64 = rec.field("bytes").and_then(|v| v.parse().ok()).unwrap_or(0);
    let n_lines: u64 = rec.field("lines").and_then(|v| v.parse().ok()).unwrap_or(0);
    if bytes > budgets.repro_bytes || n_lines > budgets.repro_lines {
        out.push(finding(
            0,
            None,
            "KB-BUDGET",
            "warning",
            format!(
                "repro is {bytes} bytes / {n_lines} lines; the budget is {} bytes / {} lines",
                budgets.repro_bytes, budgets.repro_lines
            ),
        ));
    }
    let Ok(raw) = std::fs::read(root.join(&*rec.file)) else { return out };
    match evokb_export::text::decode_utf8(&raw) {
        Err((line, msg)) => out.push(finding(
            line,
            None,
            evokb_lint::KB_REPRO_COMPILE,
            "error",
            format!("the script is not UTF-8 source: {msg}"),
        )),
        Ok(src) => {
            for e in verdicts.syntax_of(&rec.case_hash(), src) {
                out.push(finding(
                    e.line,
                    Some(e.column),
                    evokb_lint::KB_REPRO_COMPILE,
                    "error",
                    format!("syntax error: {}", e.message),
                ));
            }
        }
    }
    out
}

type Push<'a> = dyn FnMut(Option<&Record>, &str, usize, &str, &str, String) + 'a;

fn lint_entry(
    rec: &Record,
    start: usize,
    root: &Path,
    index_ids: Option<&HashSet<&str>>,
    repro_files: &BTreeMap<&str, &Record>,
    repro_dir: &str,
    push: &mut Push<'_>,
) {
    let missing: Vec<&str> = ["id", "kind", "status", "origin_task", "toolchain", "repro"]
        .into_iter()
        .filter(|k| rec.field(k).is_none_or(|v| v.trim().is_empty() && *k != "repro"))
        .collect();
    // `None` without INDEX.md, whose KB-FILE error covers every entry.
    if index_ids.is_some_and(|ids| !ids.contains(rec.id.as_str())) {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-INDEX-COVERED",
            "warning",
            "the entry has no row in INDEX.md".into(),
        );
    }
    if !missing.is_empty() {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-FM-REQUIRED",
            "error",
            format!("missing front-matter: {}", missing.join(", ")),
        );
        return;
    }
    let kind = rec.field("kind").unwrap_or("").trim();
    if !["pattern", "trap", "case", "constant"].contains(&kind) {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-FM-ENUM",
            "error",
            format!("kind '{kind}' is not one of pattern, trap, case, constant"),
        );
    }
    let status = rec.field("status").unwrap_or("").trim();
    if !["verified", "stale", "overturned"].contains(&status) {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-FM-ENUM",
            "error",
            format!("status '{status}' is not one of verified, stale, overturned"),
        );
    }
    if !has_stamp(rec.field("toolchain").unwrap_or("")) {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-FM-STAMP",
            "warning",
            "the toolchain has no stamp (a year, build, commit or CANN version)".into(),
        );
    }
    if let Some(path) = rec.field("repro").and_then(|v| repro_path(v, repro_dir)) {
        if repro_files.contains_key(path.as_str()) {
            lint_repro(
                rec,
                start,
                &path,
                &std::fs::read_to_string(root.join(&path)).unwrap_or_default(),
                push,
            );
        } else {
            push(
                Some(rec),
                &rec.file,
                start,
                "KB-REPRO-EXISTS",
                "error",
                format!("repro '{path}' does not exist (write 'repro-missing' until it does)"),
            );
        }
    }
}

/// The repro's header docstring must name the entry and say when it was first verified; the
/// code after it must not read task workspaces (`examples/<op>/`).
fn lint_repro(rec: &Record, start: usize, path: &str, text: &str, push: &mut Push<'_>) {
    let (header, code) = match text
        .find("\"\"\"")
        .and_then(|a| text[a + 3..].find("\"\"\"").map(|b| (a, a + 3 + b)))
    {
        Some((a, b)) => (&text[a + 3..b], &text[b + 3..]),
        None => (text.get(..800).unwrap_or(text), ""),
    };
    if !header.contains(rec.id.as_str()) {
        push(
            Some(rec),
            path,
            1,
            "KB-REPRO-HEADER",
            "error",
            format!("the header docstring does not name the entry '{}'", rec.id),
        );
    }
    if !(header.contains("First verified")
        || header.contains("首次验证")
        || header.contains("verified:"))
    {
        push(
            Some(rec),
            path,
            1,
            "KB-REPRO-HEADER",
            "error",
            "the header has no 'First verified' / '首次验证' line".into(),
        );
    }
    for (i, line) in code.lines().enumerate() {
        if let Some(p) = line.find("examples/") {
            let rest = &line[p + 9..];
            let seg: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "_{}[]".contains(*c))
                .collect();
            if !seg.is_empty() && rest[seg.len()..].starts_with('/') {
                let line_no = text[..text.len() - code.len()].matches('\n').count() + i + 1;
                push(Some(rec), path, line_no, "KB-REPRO-DECOUPLE", "error", "the script reads a task workspace ('examples/<op>/'); a repro must be self-contained".into());
            }
        }
    }
    let _ = start;
}

/// The count of a `confirmations` value written `n/…`, and whether it is out of 2 (`n/2`);
/// `None` for `-/-` or anything else.
fn confirmation_count(conf: &str) -> Option<(u32, bool)> {
    conf.split_once('/').and_then(|(n, d)| Some((n.parse().ok()?, d == "2")))
}

/// The states a queue item can be in (the lifecycle of the process description).
const QUEUE_STATES: &[&str] =
    &["pending", "verified", "approved", "merged", "rejected", "expired", "conflict"];

/// `KB-QUEUE-STATE`: the fields of a queue item must agree on what was decided. The process
/// records a decision only when it was made: a Tier 1 item is verified and merged at 2/2, a
/// Tier 2 (R) item counts no confirmations and is approved and merged by a person, an item
/// still pending carries no human decision, and a rejection gives its reason. A forged record
/// ("status: merged" on an R item the evolver decided, "confirmations: 2/2" on an R item, a
/// Tier 1 item merged at 1/2, "decided_by: human" on a pending item) is well-formed data to the
/// text checks, whatever its wording; its fields contradict each other here. Each value is read
/// as its leading word (letters, digits, `/`, `-`, `_`), so an annotation after it ("merged
/// (pre-validation after the snapshot)", "human（conductor 转达）") changes nothing. Returns
/// each finding's severity and message; `import` quarantines a queue item with an error here
/// as it does one with a `KB-SEC-*` error (`crate::quarantine`).
pub fn queue_state(rec: &Record) -> Vec<(&'static str, String)> {
    let word = |key: &str| {
        let value = rec.field(key).unwrap_or("").trim();
        value
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || "/-_".contains(*c))
            .collect::<String>()
    };
    let tier2 = crate::queue::is_tier2(rec);
    let (status, conf, decided_by) = (word("status"), word("confirmations"), word("decided_by"));
    let approved_by_human = word("approved_by") == "human";
    let counted = confirmation_count(&conf);
    let mut out = Vec::new();
    if tier2 && counted.is_some() {
        out.push(("error", format!(
            "a Tier 2 (R) item counts no confirmations ('confirmations: {conf}'); it is decided by a person (expected '-/-')"
        )));
    }
    if tier2
        && matches!(status.as_str(), "approved" | "merged")
        && decided_by != "human"
        && !approved_by_human
    {
        out.push(("error", format!(
            "a Tier 2 (R) item is {status} without a human decision ('decided_by: {decided_by}'); only the user approves Tier 2"
        )));
    }
    if !tier2 && matches!(status.as_str(), "verified" | "merged") {
        if let Some((n, true)) = counted.filter(|&(n, _)| n < 2) {
            out.push(("error", format!(
                "a Tier 1 item is {status} at {n}/2; it is verified and merged at 2/2 (independent evidence from different tasks)"
            )));
        }
    }
    if matches!(status.as_str(), "pending" | "verified") && decided_by == "human" {
        out.push(("error", format!(
            "the item is still {status} but records a human decision ('decided_by: human'); a decision is recorded when it ends the item"
        )));
    }
    if status == "rejected" && matches!(word("decided_note").as_str(), "" | "-") {
        out.push((
            "error",
            "a rejected item gives no reason ('decided_note'); a rejection needs one".into(),
        ));
    }
    if !status.is_empty() && !QUEUE_STATES.contains(&status.as_str()) {
        out.push((
            "warning",
            format!("status '{status}' is not a state of the queue ({})", QUEUE_STATES.join(", ")),
        ));
    }
    out
}

fn lint_queue_state(rec: &Record, start: usize, push: &mut Push<'_>) {
    for (severity, message) in queue_state(rec) {
        push(Some(rec), &rec.file, start, "KB-QUEUE-STATE", severity, message);
    }
}

fn lint_queue_item(rec: &Record, start: usize, push: &mut Push<'_>) {
    lint_queue_state(rec, start, push);
    let ty = rec.field("type").unwrap_or("").trim();
    if !ty.starts_with(['D', 'P', 'R', 'C']) {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-QUEUE-SCHEMA",
            "error",
            format!("type '{ty}' does not start with D, P, R or C"),
        );
    }
    let status = rec.field("status").unwrap_or("").trim();
    if status.is_empty() {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-QUEUE-SCHEMA",
            "error",
            "the item has no '- status:' line".into(),
        );
    }
    let conf = rec.field("confirmations").unwrap_or("").trim();
    let conf_ok = conf == "-/-" || matches!(confirmation_count(conf), Some((_, true)));
    if !conf_ok {
        push(
            Some(rec),
            &rec.file,
            start,
            "KB-QUEUE-SCHEMA",
            "warning",
            format!("confirmations '{conf}' is not 'n/2' or '-/-'"),
        );
    }
    if status == "pending" {
        let repro = rec.field("repro").unwrap_or("");
        let first = repro.lines().next().unwrap_or("").trim();
        let inline_python = first.starts_with("python -c") || first.starts_with("python3 -c");
        let workspace = first.contains("examples/")
            || first.contains("/tmp/")
            || first.starts_with("./")
            || first.contains("cd examples");
        if workspace && !inline_python {
            push(Some(rec), &rec.file, start, "KB-QUEUE-REPRO", "error", format!("the repro is a workspace command ('{}'); expected a knowledge-domain script, repro-missing or none", first.chars().take(80).collect::<String>()));
        }
    }
}

/// The `examples/…` paths a line references.
fn example_refs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("examples/") {
        let before_ok = i == 0
            || !rest[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '/');
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
            .unwrap_or(tail.len());
        let path = tail[..end].trim_end_matches(['.', ',', ';', ':', '!', '?']);
        if before_ok && path.len() > "examples/".len() {
            out.push(path.to_string());
        }
        rest = &tail[end.max(1)..];
    }
    out
}

/// Tokens of a text for similarity: the search tokenizer's, as a set.
pub fn token_set(text: &str) -> BTreeSet<String> {
    CjkBigramTokenizer::default().tokens(text).into_iter().map(|t| t.text).collect()
}

/// Jaccard similarity of two token sets.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count() as f64;
    inter / ((a.len() + b.len()) as f64 - inter)
}

/// One file's budget report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetRow {
    /// The file.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// Its budget, if any.
    pub budget_bytes: Option<u64>,
    /// Its line count.
    pub lines: u64,
    /// Whether it exceeds its budget (bytes, or lines for repros).
    pub over: bool,
    /// For a file over budget: entry pairs ranked by similarity, negative entries excluded.
    pub candidates: Vec<(String, String, f64)>,
}

/// Checks every managed file and repro against its budget.
pub fn budget(txn: &ReadTxn, budgets: &Budgets) -> Result<Vec<BudgetRow>, StoreError> {
    let records = txn.records()?;
    let lay = Layout::of(txn)?;
    let mut out = Vec::new();
    for layout in txn.files()? {
        let text = evokb_export::render::render_layout(txn, &layout).unwrap_or_default();
        let budget = budgets.for_file(&layout.path, &lay);
        let bytes = text.len() as u64;
        let over = budget.is_some_and(|b| bytes > b);
        let mut candidates = Vec::new();
        if over {
            let entries: Vec<(&Record, BTreeSet<String>)> = layout
                .items
                .iter()
                .filter_map(|i| match i {
                    LayoutItem::Record(h) => records.iter().find(|r| r.case_hash() == *h),
                    LayoutItem::Prose(_) => None,
                })
                .filter(|r| evokb_export::kinds::info(r.kind).hit_target && !is_negative(r))
                .map(|r| (r, token_set(r.body().unwrap_or(""))))
                .collect();
            for (i, (a, ta)) in entries.iter().enumerate() {
                for (b, tb) in &entries[i + 1..] {
                    let s = jaccard(ta, tb);
                    candidates.push((
                        a.id.clone(),
                        b.id.clone(),
                        (s * 10_000.0).round() / 10_000.0,
                    ));
                }
            }
            candidates
                .sort_by(|x, y| y.2.total_cmp(&x.2).then_with(|| (&x.0, &x.1).cmp(&(&y.0, &y.1))));
            candidates.truncate(10);
        }
        out.push(BudgetRow {
            path: layout.path.clone(),
            bytes,
            budget_bytes: budget,
            lines: text.lines().count() as u64,
            over,
            candidates,
        });
    }
    for r in records.iter().filter(|r| r.kind == Kind::Repro) {
        let bytes: u64 = r.field("bytes").and_then(|v| v.parse().ok()).unwrap_or(0);
        let lines: u64 = r.field("lines").and_then(|v| v.parse().ok()).unwrap_or(0);
        out.push(BudgetRow {
            path: r.id.clone(),
            bytes,
            budget_bytes: Some(budgets.repro_bytes),
            lines,
            over: bytes > budgets.repro_bytes || lines > budgets.repro_lines,
            candidates: Vec::new(),
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The comparable parts of a toolchain stamp.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stamp {
    /// Every tilelang commit the stamp names: hex words of 7–40 characters, except all-digit
    /// dates such as `20260907` (an all-digit hash such as `6797758` is a commit). A stamp that records a
    /// later re-verification ("… 2026-09-20 4515de8 重验存活") names several.
    pub commits: Vec<String>,
    /// A `YYYY-MM-DD` build date. Shown, never compared: a date alone says nothing about
    /// which toolchain built the entry.
    pub build_date: Option<String>,
    /// The CANN version, up to the first character that is not a letter, digit or `.`
    /// (`CANN 8.5.0（L1）` is 8.5.0).
    pub cann: Option<String>,
}

impl Stamp {
    /// Whether the stamp names anything a staleness check can compare.
    pub fn is_empty(&self) -> bool {
        self.commits.is_empty() && self.cann.is_none()
    }
}

/// Whether an all-digit word is a `YYYYMMDD` date (as in a task id's run stamp), which is not
/// a commit although it is a hex word. Other all-digit words (`6797758`) are commits.
fn is_compact_date(w: &str) -> bool {
    w.len() == 8
        && w.bytes().all(|b| b.is_ascii_digit())
        && evokb_analytics::util::parse_date_days(&format!("{}-{}-{}", &w[..4], &w[4..6], &w[6..]))
            .is_some()
}

/// Parses the comparable parts of a stamp.
pub fn parse_stamp(s: &str) -> Stamp {
    let mut commits: Vec<String> = Vec::new();
    for w in s.split(|c: char| !c.is_ascii_hexdigit()) {
        if (7..=40).contains(&w.len())
            && w.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            && !is_compact_date(w)
            && !commits.iter().any(|c| c == w)
        {
            commits.push(w.to_string());
        }
    }
    let words: Vec<&str> =
        s.split(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '.').collect();
    let build_date = words.iter().find_map(|w| {
        let w = w.get(..10)?;
        let b = w.as_bytes();
        (b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && w.replace('-', "").bytes().all(|c| c.is_ascii_digit()))
        .then(|| w.to_string())
    });
    let cann = s
        .find("CANN")
        .map(|i| {
            let rest = s[i + 4..].trim_start_matches([' ', '\t', ':', '=']);
            let v: String =
                rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
            v.trim_end_matches('.').to_string()
        })
        .filter(|v| v.chars().any(|c| c.is_ascii_digit()));
    Stamp { commits, build_date, cann }
}

/// One entry's or queue item's staleness verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StaleEntry {
    /// The entry or queue item.
    pub id: String,
    /// Its toolchain stamp as written (`toolchain:`, or a queue item's `toolchain_stamp`).
    pub toolchain: String,
    /// Its file.
    pub path: String,
    /// `stale` or `unknown`.
    pub verdict: String,
    /// What differs from the current stamp (`commit`; `cann` is reported but does not decide).
    pub differs: Vec<String>,
}

/// What `stale` checked and found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StaleReport {
    /// Entries and queue items with a stamp.
    pub checked: usize,
    /// Those whose commits all differ from the current one.
    pub stale: Vec<StaleEntry>,
    /// Those whose stamp names no commit (manual check).
    pub unknown: Vec<StaleEntry>,
}

/// Compares every entry's `toolchain` and every queue item's `toolchain_stamp` with `current`,
/// as the reference `kb_stale_check.py` does: stale when the stamp names commits and none of
/// them matches the current commit (a prefix either way matches); unknown when it names no
/// commit; fresh otherwise, and also when the current stamp names no commit. A differing CANN
/// version is listed in `differs` but, as in the reference, does not make a stamp stale.
pub fn stale(records: &[Record], current: &Stamp) -> StaleReport {
    let mut report = StaleReport::default();
    for rec in records {
        let tc = evokb_export::kinds::info(rec.kind).stamp_field.and_then(|f| rec.field(f));
        let Some(tc) = tc else { continue };
        report.checked += 1;
        let s = parse_stamp(tc);
        let matches = |a: &str, b: &str| a.starts_with(b) || b.starts_with(a);
        let mut differs = Vec::new();
        let verdict = if s.commits.is_empty() {
            "unknown"
        } else if current.commits.is_empty()
            || s.commits.iter().any(|c| current.commits.iter().any(|k| matches(c, k)))
        {
            "fresh"
        } else {
            differs.push("commit".to_string());
            "stale"
        };
        if let (Some(a), Some(b)) = (&s.cann, &current.cann) {
            if a != b {
                differs.push("cann".to_string());
            }
        }
        let entry = StaleEntry {
            id: rec.id.clone(),
            toolchain: tc.trim().to_string(),
            path: rec.file.to_string(),
            verdict: verdict.into(),
            differs,
        };
        match verdict {
            "stale" => report.stale.push(entry),
            "unknown" => report.unknown.push(entry),
            _ => {}
        }
    }
    report
}

/// The current toolchain stamp when none is given: `[toolchain] stamp` in `evokb.toml`, else
/// `EVOKB_TOOLCHAIN_STAMP`. `None` when neither names one.
pub fn configured_stamp(root: &Path) -> Result<Option<String>, String> {
    let path = root.join("evokb.toml");
    let from_file = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let table: toml::Table = toml::from_str(&text)
                .map_err(|e| format!("'{}' is not a valid evokb.toml: {e}", path.display()))?;
            table
                .get("toolchain")
                .and_then(|t| t.get("stamp"))
                .and_then(|s| s.as_str())
                .map(str::to_string)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read '{}': {e}", path.display())),
    };
    Ok(from_file
        .or_else(|| std::env::var("EVOKB_TOOLCHAIN_STAMP").ok())
        .filter(|s| !s.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked count agrees with a plain count on texts made only of newlines (every
    /// chunk's tally at its 255 maximum), around the chunk edges, and on mixed text.
    #[test]
    fn newline_count_is_exact_across_chunks() {
        for n in [0usize, 1, 254, 255, 256, 510, 511, 1000] {
            assert_eq!(bytecount_newlines(&"\n".repeat(n)), n);
            let mixed: String = (0..n).map(|i| if i % 3 == 0 { "\n" } else { "ab中" }).collect();
            assert_eq!(bytecount_newlines(&mixed), mixed.matches('\n').count());
        }
    }

    #[test]
    fn stamps_parse_commit_date_and_cann_but_not_dates_as_commits() {
        let s =
            parse_stamp("tilelang 0.1.2+ed787bb（2026-09-07 build）/ Ascend910B2C / CANN 8.5.0");
        assert_eq!(s.commits, ["ed787bb"]);
        assert_eq!(s.build_date.as_deref(), Some("2026-09-07"));
        assert_eq!(s.cann.as_deref(), Some("8.5.0"));
        assert!(parse_stamp("build 20260907").commits.is_empty());
        assert_eq!(
            parse_stamp("tilelang 0.1.2+6797758（2026-09-15 07:45 HEAD）").commits,
            ["6797758"]
        );
        let s =
            parse_stamp("tilelang 0.1.2+3a214cde / CANN 8.5.0（L1）；2026-09-20 4515de8 重验存活");
        assert_eq!(s.commits, ["3a214cde", "4515de8"]);
        assert_eq!(s.cann.as_deref(), Some("8.5.0"));
        assert_eq!(parse_stamp("CANN 8.5.0；其余").cann.as_deref(), Some("8.5.0"));
        assert_eq!(parse_stamp("CANN 8.3.RC1.").cann.as_deref(), Some("8.3.RC1"));
    }

    #[test]
    fn repro_missing_with_a_note_is_not_a_path() {
        let dir = Layout::default().repro;
        assert_eq!(repro_path("repro-missing（知识域最小 repro 待回填）", &dir), None);
        assert_eq!(repro_path("none", &dir), None);
        assert!(
            repro_path("repro/TRAP-x.py", &dir).is_some_and(|p| p.ends_with("/repro/TRAP-x.py"))
        );
    }

    #[test]
    fn example_refs_strip_punctuation() {
        assert_eq!(example_refs("见 `examples/a/b.md`。"), ["examples/a/b.md"]);
        assert!(example_refs("no refs/examples/x").is_empty());
    }

    #[test]
    fn jaccard_is_bounded() {
        let a = token_set("UB 膨胀 multi-buffer");
        assert!((jaccard(&a, &a) - 1.0).abs() < 1e-9);
        assert_eq!(jaccard(&a, &token_set("completely different")), 0.0);
    }
}
