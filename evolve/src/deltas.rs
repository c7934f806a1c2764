//! The five deltas of the merge policy as store operations: add, update, consolidate, negate
//! and deprecate. Each runs in one transaction, enforces its rule, and appends a row to the
//! `stats.md` change log naming the task and who acted.
//!
//! Rules enforced here (spec §6, issue 6):
//! - entries are never deleted; negative entries (`negative: true`) can only be deprecated;
//! - `add` refuses an entry on the same topic as an existing one (see [`same_topic`]) and points
//!   to `update`;
//! - a data entry (kind trap or constant, or `measured: true`) needs the evidence triad:
//!   `origin_task`, a toolchain stamp and an existing repro; without it `add` refuses, or files
//!   a Tier 1 queue item marked `repro-missing` when asked to enqueue;
//! - entries with lint errors (injected instructions, hidden text, paths out of the repository,
//!   missing or invalid front-matter) are refused;
//! - `consolidate` keeps every fact of every source in the survivor and leaves the sources as
//!   deprecated pointers, so their ids still resolve.

use std::collections::{BTreeSet, HashMap};

use evokb_store::{CaseHash, Kind, Record, Store, WriteTxn};

use crate::rules::{has_stamp, is_negative, jaccard, repro_path, token_set};
use evokb_export::layout::{FileRole, Layout};
use evokb_export::mutate::{commit_file, ensure_trailing_newline};
use evokb_export::parse::parse_file;
use evokb_export::MutateError;

use crate::error::DeltaError;

pub use crate::changelog::Actor;
use crate::changelog::{log, ChangeKind};

/// The similarity at or above which two entries of one kind with a shared family are the same
/// topic. Measured on the real sample: the most similar distinct pair scores 0.36 (two
/// maxpool3d case pointers), while a lightly reworded copy of an entry scores above 0.7.
pub const SAME_TOPIC_SIMILARITY: f64 = 0.5;

fn invalid(reason: impl Into<String>) -> DeltaError {
    DeltaError::Refused { reason: reason.into() }
}

/// Two entries are on the same topic when they have the same kind, share at least one family
/// (or neither names one), and their title and body share at least half their tokens
/// (Jaccard of CJK-bigram and word tokens ≥ [`SAME_TOPIC_SIMILARITY`]).
pub fn same_topic(a: &Record, b: &Record) -> Option<f64> {
    let kind = |r: &Record| r.field("kind").map(|k| k.trim().to_string());
    if kind(a) != kind(b) {
        return None;
    }
    let fam = |r: &Record| -> BTreeSet<String> {
        r.field("family")
            .map(evokb_export::index::parse_list)
            .unwrap_or_default()
            .into_iter()
            .map(|f| f.to_lowercase())
            .collect()
    };
    let (fa, fb) = (fam(a), fam(b));
    if !(fa.is_empty() && fb.is_empty()) && fa.is_disjoint(&fb) {
        return None;
    }
    let s = jaccard(&token_set(a.body().unwrap_or("")), &token_set(b.body().unwrap_or("")));
    (s >= SAME_TOPIC_SIMILARITY).then_some(s)
}

/// The stored entry on `e`'s topic that [`same_topic`] finds most similar (of equals, the
/// least id), with its similarity. First through the search index ([`indexed_closest`]); when
/// it cannot answer, among the entries of the facet index with the same `kind` and a shared
/// `family` value; and when `e` names no kind or family, which the facet index cannot list,
/// among every entry, read once per `add`.
fn closest_same_topic(
    w: &WriteTxn,
    e: &Record,
    all: &mut Option<Vec<Record>>,
) -> Result<Option<(String, f64)>, DeltaError> {
    if let Some(found) = indexed_closest(w, e)? {
        return Ok(found);
    }
    let existing = facet_candidates(w, e, all)?;
    Ok(existing
        .iter()
        .filter_map(|x| same_topic(x, e).map(|s| (x, s)))
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.id.cmp(&a.0.id)))
        .map(|(x, s)| (x.id.clone(), s)))
}

/// The stored entries that can be on `e`'s topic by the facet index (see
/// [`closest_same_topic`]).
fn facet_candidates(
    w: &WriteTxn,
    e: &Record,
    all: &mut Option<Vec<Record>>,
) -> Result<Vec<Record>, DeltaError> {
    let kind = e.field("kind").map(str::trim).filter(|k| !k.is_empty());
    let families: Vec<String> = e
        .field("family")
        .map(evokb_export::index::parse_list)
        .unwrap_or_default()
        .into_iter()
        .map(|f| f.to_lowercase())
        .collect();
    if let (Some(kind), false) = (kind, families.is_empty()) {
        let mut filter = evokb_store::Filter::default();
        filter.facets.insert("family".into(), families);
        filter.facets.insert("kind".into(), vec![kind.to_string()]);
        if let Ok(rows) = w.query(&filter) {
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                if let Some(r) = w.record_by_id(Kind::Entry, &row.id)? {
                    out.push(r);
                }
            }
            return Ok(out);
        }
    }
    if all.is_none() {
        *all = Some(w.records_of_kind(Kind::Entry)?);
    }
    Ok(all.clone().unwrap_or_default())
}

/// The fewest of `n` body tokens an entry must share with another for their Jaccard
/// similarity to reach [`SAME_TOPIC_SIMILARITY`]: the union holds at least the `n` tokens, so
/// `|A∩B| ≥ t·|A∪B| ≥ t·n`. The small slack only lowers the bound (more candidates, never
/// fewer) where `t·n` is an integer that rounding put a hair above itself.
fn min_shared_tokens(n: usize) -> usize {
    ((SAME_TOPIC_SIMILARITY * n as f64 - 1e-9).ceil().max(1.0)) as usize
}

/// The closest stored entry on `e`'s topic (as [`closest_same_topic`] defines it) found
/// through the search index, or `None` when the index cannot vouch for the store's records
/// (then the caller reads them).
///
/// Why no entry above the threshold is missed: [`same_topic`] needs the same `kind`, a shared
/// family (unless neither names one) and a body Jaccard of at least [`SAME_TOPIC_SIMILARITY`],
/// so such an entry holds at least [`min_shared_tokens`] of `e`'s body tokens. The index holds
/// each entry's "id title body" tokenized by the same tokenizer as [`token_set`]; words and CJK
/// runs never span the separating spaces, so an entry's indexed terms include every token of
/// its body. Its `kind` and `family` filter terms are the front-matter values through the same
/// list parsing and lowercasing as the rule's. The index is asked for every entry meeting all
/// three necessary conditions: a bound, not a BM25 top-k, so the exact rule then runs on a
/// superset of what it accepts. Tokens longer than the index keeps are left out of the
/// question and taken off the bound.
///
/// Why stopping early cannot change the answer: an entry holding `k` of the `n` tokens (`u`
/// of them not indexed, so not counted) has a Jaccard of at most `(k + u) / n`, since the
/// intersection is at most `k + u` and the union at least `n`. Entries come most-shared
/// first, so once that bound falls below the best similarity found, no later entry can reach
/// it, or tie it.
fn indexed_closest(w: &WriteTxn, e: &Record) -> Result<Option<Option<(String, f64)>>, DeltaError> {
    if !evokb_export::kinds::info(Kind::Entry).searchable {
        return Ok(None);
    }
    let tokens = token_set(e.body().unwrap_or(""));
    if tokens.is_empty() {
        // Jaccard with an empty set is 0: nothing can be on this entry's topic.
        return Ok(Some(None));
    }
    let need = min_shared_tokens(tokens.len());
    let n = tokens.len();
    let terms: Vec<String> = tokens
        .into_iter()
        .filter(|t| t.len() <= evokb_store::search::MAX_INDEXED_TOKEN_BYTES)
        .collect();
    let unindexed = n - terms.len();
    if need <= unindexed {
        return Ok(None);
    }
    let mut facets = std::collections::BTreeMap::new();
    let list = |k: &str| -> Vec<String> {
        e.field(k)
            .map(evokb_export::index::parse_list)
            .unwrap_or_default()
            .into_iter()
            .map(|v| v.to_lowercase())
            .collect()
    };
    let kinds = list("kind");
    if !kinds.is_empty() {
        facets.insert("kind".to_string(), kinds);
    }
    let families = list("family");
    if !families.is_empty() {
        facets.insert("family".to_string(), families);
    }
    let mut best: Option<(String, f64)> = None;
    let mut failed: Option<evokb_store::StoreError> = None;
    let mut visit = |shared: usize, key: CaseHash| -> bool {
        if let Some((_, s)) = &best {
            if ((shared + unindexed) as f64 / n as f64) < *s {
                return false;
            }
        }
        let rec = match w.record(&key) {
            Ok(rec) => rec,
            Err(err) => {
                failed = Some(err);
                return false;
            }
        };
        let Some(rec) = rec.filter(|r| r.kind == Kind::Entry) else { return true };
        if let Some(s) = same_topic(&rec, e) {
            let better = match &best {
                Some((id, b)) => s > *b || (s == *b && rec.id < *id),
                None => true,
            };
            if better {
                best = Some((rec.id, s));
            }
        }
        true
    };
    let answered = w.search_sharing(&terms, need - unindexed, &facets, &mut visit)?;
    if let Some(err) = failed {
        return Err(err.into());
    }
    Ok(answered.then_some(best))
}

/// Whether an entry needs the evidence triad.
pub fn is_data_entry(rec: &Record) -> bool {
    matches!(rec.field("kind").map(str::trim), Some("trap" | "constant"))
        || rec.field("measured").is_some_and(|v| v.trim() == "true")
}

/// What is missing from an entry's evidence triad.
pub fn triad_gaps(w: &WriteTxn, rec: &Record) -> Result<Vec<String>, DeltaError> {
    let mut gaps = Vec::new();
    if rec.field("origin_task").is_none_or(|v| v.trim().is_empty()) {
        gaps.push("origin_task".to_string());
    }
    if !rec.field("toolchain").is_some_and(has_stamp) {
        gaps.push("a toolchain stamp".to_string());
    }
    let repro_dir = Layout::of(w)?.repro;
    match rec.field("repro").and_then(|v| repro_path(v, &repro_dir)) {
        Some(p) if w.record_by_id(Kind::Repro, &p)?.is_some() => {}
        Some(p) => gaps.push(format!("the repro '{p}' (it does not exist)")),
        None => gaps.push("a repro script".to_string()),
    }
    Ok(gaps)
}

/// Lint errors in one entry's text (security checks and front-matter rules).
fn entry_errors(rec: &Record, root: &std::path::Path) -> Vec<String> {
    // Paths are resolved from the directory of the file the entry goes into, as lint and
    // import resolve them: a relative link right from there is not an escape.
    let file_dir = crate::verdicts::file_dir(rec);
    let mut out: Vec<String> = evokb_lint::check_security(&rec.text(), Some(root), Some(&file_dir))
        .into_iter()
        .filter(|f| f.severity == evokb_lint::Severity::Error)
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect();
    for k in ["kind", "status", "origin_task", "toolchain", "repro"] {
        if rec.field(k).is_none() {
            out.push(format!("KB-FM-REQUIRED: missing '{k}'"));
        }
    }
    let kind = rec.field("kind").unwrap_or("").trim();
    if !kind.is_empty() && !["pattern", "trap", "case", "constant"].contains(&kind) {
        out.push(format!("KB-FM-ENUM: kind '{kind}'"));
    }
    let status = rec.field("status").unwrap_or("").trim();
    if !status.is_empty() && !["verified", "stale", "overturned"].contains(&status) {
        out.push(format!("KB-FM-ENUM: status '{status}'"));
    }
    out
}

/// How `add` handles a data entry without its evidence triad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingTriad {
    /// Refuse the add.
    Refuse,
    /// File a Tier 1 queue item marked `repro-missing` instead.
    Enqueue,
}

/// What an add did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddOutcome {
    /// The entries were added (ids).
    Added(Vec<String>),
    /// A data entry lacked its triad and was queued as this item.
    Enqueued(String),
}

/// Adds entries (topic-file format) to topic file `path` under every add rule. `negative`
/// marks them as dead ends (`negate`).
pub fn add(
    store: &Store,
    root: &std::path::Path,
    path: &str,
    text: &str,
    actor: &Actor<'_>,
    negative: bool,
    missing_triad: MissingTriad,
) -> Result<AddOutcome, DeltaError> {
    if Layout::of(&store.read()?)?.role_of(path) != Some(FileRole::Topic) {
        return Err(MutateError::UnknownFile { path: path.into() }.into());
    }
    let (parsed, diags) = parse_file(FileRole::Topic, path, text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(MutateError::Invalid { diagnostics: vec![d.clone()] }.into());
    }
    let mut entries: Vec<Record> = parsed.records.into_iter().map(|p| p.record).collect();
    if entries.is_empty() {
        return Err(DeltaError::NoEntries);
    }
    if negative {
        for e in &mut entries {
            if e.field("negative").is_none() {
                let mut t = e.text();
                t = t.replacen("\n---", "\nnegative: true\n---", 1);
                let (pf, _) = parse_file(FileRole::Topic, path, &t);
                if let Some(p) = pf.records.into_iter().next() {
                    *e = p.record;
                }
            }
        }
    }
    let w = store.write()?;
    let mut all_entries: Option<Vec<Record>> = None;
    for e in &entries {
        let errors = entry_errors(e, root);
        if !errors.is_empty() {
            return Err(DeltaError::LintErrors { id: e.id.clone(), errors });
        }
        if let Some(old) = w.record_by_id(Kind::Entry, &e.id)? {
            return Err(DeltaError::Markdown(MutateError::AlreadyExists {
                kind: Kind::Entry,
                id: e.id.clone(),
                file: old.file.to_string(),
            }));
        }
        if let Some((existing, similarity)) = closest_same_topic(&w, e, &mut all_entries)? {
            return Err(DeltaError::SameTopic { id: e.id.clone(), existing, similarity });
        }
        if is_data_entry(e) || negative {
            let gaps = triad_gaps(&w, e)?;
            if !gaps.is_empty() {
                drop(w);
                return match missing_triad {
                    MissingTriad::Refuse => {
                        Err(DeltaError::MissingEvidence { id: e.id.clone(), missing: gaps })
                    }
                    MissingTriad::Enqueue => {
                        let vp = crate::queue::enqueue_entry(store, path, e, &gaps, actor)?;
                        Ok(AddOutcome::Enqueued(vp))
                    }
                };
            }
        }
    }
    let mut w = w;
    evokb_export::mutate::add_entries_in(&mut w, path, text_of(&entries).as_str())?;
    let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    let kind = if negative { ChangeKind::Negate } else { ChangeKind::Add };
    log(
        &mut w,
        actor,
        kind,
        &format!("{} → {}", ids.join(", "), path.rsplit('/').next().unwrap_or(path)),
    )?;
    w.commit()?;
    Ok(AddOutcome::Added(ids))
}

fn text_of(entries: &[Record]) -> String {
    entries.iter().map(Record::text).collect()
}

/// Updates fields of an entry in place (the id is kept), in one transaction with its log row.
pub fn update(
    store: &Store,
    id: &str,
    changes: &[(String, String)],
    actor: &Actor<'_>,
) -> Result<(), DeltaError> {
    if changes.iter().any(|(k, _)| k == "id") {
        return Err(invalid("update keeps the id; consolidate or deprecate instead of renaming"));
    }
    let mut w = store.write()?;
    for (k, v) in changes {
        evokb_export::mutate::set_field_in(&mut w, id, Some(Kind::Entry), k, v)?;
    }
    let keys: Vec<&str> = changes.iter().map(|(k, _)| k.as_str()).collect();
    log(&mut w, actor, ChangeKind::Update, &format!("{id}: {}", keys.join(", ")))?;
    w.commit()?;
    Ok(())
}

/// Inserts a head marker line after the body's title line.
fn with_head_marker(rec: &Record, marker: &str) -> Record {
    let mut out = rec.clone();
    let body = rec.body().unwrap_or("").to_string();
    let mut lines: Vec<&str> = body.split_inclusive('\n').collect();
    let title_at = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
    let insert = format!("\n{marker}\n");
    let at = (title_at + 1).min(lines.len());
    lines.insert(at, &insert);
    out.set_body(&lines.concat());
    out
}

fn store_changed_entry(w: &mut WriteTxn, rec: Record) -> Result<(), DeltaError> {
    let layout = w
        .file(&rec.file)?
        .ok_or_else(|| MutateError::UnknownFile { path: rec.file.to_string() })?;
    let mut overrides = HashMap::new();
    overrides.insert(rec.case_hash(), rec);
    commit_file(w, layout, &overrides)?;
    Ok(())
}

fn set_index_status(w: &mut WriteTxn, id: &str, status: &str) -> Result<(), DeltaError> {
    if let Some(mut row) = w.record_by_id(Kind::IndexRow, id)? {
        if row.field("status").is_some() {
            row.set_field("status", status);
            store_changed_entry(w, row)?;
        }
    }
    Ok(())
}

fn entry(w: &WriteTxn, id: &str) -> Result<Record, DeltaError> {
    w.record_by_id(Kind::Entry, id)?.ok_or_else(|| MutateError::NotFound { id: id.into() }.into())
}

/// Deprecates an entry: the head marker `> [已失效 {date}，被 {by} 取代]` and the status flipped
/// to `overturned` (replaced by an entry) or `stale` (a reason). Nothing is deleted.
pub fn deprecate(
    store: &Store,
    id: &str,
    by_entry: Option<&str>,
    reason: Option<&str>,
    actor: &Actor<'_>,
) -> Result<(), DeltaError> {
    let mut w = store.write()?;
    let rec = entry(&w, id)?;
    let (what, status) = match (by_entry, reason) {
        (Some(new), _) => {
            entry(&w, new)?;
            (new.to_string(), "overturned")
        }
        (None, Some(r)) => (r.to_string(), "stale"),
        (None, None) => return Err(DeltaError::DeprecateWithoutCause),
    };
    let mut new = with_head_marker(&rec, &format!("> [已失效 {}，被 {what} 取代]", actor.today));
    new.set_field("status", status);
    store_changed_entry(&mut w, new)?;
    set_index_status(&mut w, id, status)?;
    log(&mut w, actor, ChangeKind::Deprecate, &format!("{id}（被 {what} 取代）"))?;
    w.commit()?;
    Ok(())
}

/// Consolidates `sources` into `into`: every source's body and provenance are appended to the
/// survivor under a `> 合并自` line, and each source becomes a deprecated pointer
/// (`consolidated_into`, status stale) so its id still resolves. Negative entries refuse.
pub fn consolidate(
    store: &Store,
    sources: &[String],
    into: &str,
    actor: &Actor<'_>,
) -> Result<(), DeltaError> {
    let mut w = store.write()?;
    let mut survivor = entry(&w, into)?;
    if is_negative(&survivor) {
        return Err(invalid(format!("'{into}' is a negative entry: negative entries are only deprecated, never consolidated")));
    }
    for src_id in sources {
        if src_id == into {
            return Err(invalid("an entry cannot be consolidated into itself"));
        }
        let src = entry(&w, src_id)?;
        if is_negative(&src) {
            return Err(invalid(format!("'{src_id}' is a negative entry: negative entries are only deprecated, never consolidated")));
        }
        if src.field("consolidated_into").is_some() {
            return Err(invalid(format!("'{src_id}' was already consolidated")));
        }
        let eol = evokb_export::text::dominant_eol(&src.text());
        let mut body = survivor.body().unwrap_or("").to_string();
        if !body.ends_with('\n') {
            body.push_str(eol);
        }
        let src_body = src.body().unwrap_or("").trim_matches('\n').replace("\n---", "\n—");
        body.push_str(&format!(
            "{eol}> 合并自 {src_id}（{}，task {}；origin_task: {}；toolchain: {}）{eol}{eol}{src_body}{eol}",
            actor.today,
            actor.task,
            src.field("origin_task").unwrap_or("-").trim(),
            src.field("toolchain").unwrap_or("-").trim()
        ));
        survivor.set_body(&body);
        if let Some(o) = src.field("origin_task") {
            let mine = survivor.field("origin_task").unwrap_or("").to_string();
            if !mine.contains(o.trim()) {
                survivor.set_field("origin_task", &format!("{} / {}", mine.trim(), o.trim()));
            }
        }
        let mut pointer =
            with_head_marker(&src, &format!("> [已合并 {}，并入 {into}]", actor.today));
        pointer.set_field("status", "stale");
        evokb_export::mutate::insert_field(
            &mut pointer,
            "consolidated_into",
            into,
            "consolidated_into: ",
        );
        store_changed_entry(&mut w, pointer)?;
        set_index_status(&mut w, src_id, "stale")?;
    }
    store_changed_entry(&mut w, survivor)?;
    log(&mut w, actor, ChangeKind::Consolidate, &format!("{} → {into}", sources.join(", ")))?;
    w.commit()?;
    Ok(())
}

/// Follows `consolidated_into` pointers from an entry id to the surviving entry.
pub fn resolve(store: &Store, id: &str) -> Result<Option<Record>, DeltaError> {
    let txn = store.read()?;
    let mut current = id.to_string();
    for _ in 0..16 {
        let Some(rec) = txn.record_by_id(Kind::Entry, &current)? else { return Ok(None) };
        match rec.field("consolidated_into") {
            Some(next) if next.trim() != current => current = next.trim().to_string(),
            _ => return Ok(Some(rec)),
        }
    }
    Ok(None)
}

/// Ensures the layout's last record ends with a newline (shared helper for appending).
pub fn ensure_newline(w: &mut WriteTxn, path: &str) -> Result<(), DeltaError> {
    let Some(mut file) = w.file(path)? else { return Ok(()) };
    let mut overrides = HashMap::new();
    ensure_trailing_newline(w, &mut file, &mut overrides)?;
    if !overrides.is_empty() {
        commit_file(w, file, &overrides)?;
    }
    Ok(())
}

/// The key of an entry, for callers that hold an id.
pub fn entry_key(id: &str) -> CaseHash {
    CaseHash::of(Kind::Entry, id)
}
