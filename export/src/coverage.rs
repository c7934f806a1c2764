//! INDEX coverage at import: an entry a person wrote into a topic file by hand gets the
//! INDEX.md row `add` would have given it, so agents, who route through INDEX, can find it.
//!
//! Only entries that are new since the last import are covered, and only when the store
//! already held INDEX.md before this import: an entry that lacked a row at the first import
//! is left as it is (lint reports it as KB-INDEX-COVERED), so importing and rendering an
//! unchanged knowledge base still gives its files back byte for byte. An entry whose row the
//! person wrote too, and algorithm candidates (which INDEX.md does not route), get none.

use std::collections::BTreeMap;

use evokb_store::{Kind, Record, WriteTxn};

use crate::error::ImportError;
use crate::layout::Layout;
use crate::sync::ReadKb;
use crate::text::dominant_eol;

/// The entries of changed files that the store does not hold yet, by topic file, when the
/// store already holds INDEX.md; read before the import writes anything.
pub fn new_entries(
    txn: &WriteTxn,
    kb: &ReadKb,
    layout: &Layout,
) -> Result<BTreeMap<String, Vec<Record>>, ImportError> {
    let mut out: BTreeMap<String, Vec<Record>> = BTreeMap::new();
    // Into a store without records (a first import) every entry is new, and INDEX.md's
    // layout, if any, holds no reference yet: asking for it first is cheap.
    if !txn.has_records()? && txn.file(&layout.index)?.is_none() {
        return Ok(out);
    }
    // Otherwise candidates are gathered by reference first, and INDEX.md's layout is asked
    // for only when there is one: it holds a reference per entry (100k at 100k entries), and
    // decoding it cost an import after a one-file edit more than reading that file.
    let mut found: Vec<(&String, &Record)> = Vec::new();
    for f in &kb.files {
        let path = &f.file.path;
        if path == &layout.algorithm_candidates
            || txn.file_sync(path)?.is_some_and(|m| m.text_hash == f.bytes_hash)
        {
            continue;
        }
        for pr in &f.parsed.records {
            let rec = &pr.record;
            if rec.kind == Kind::Entry && txn.record(&rec.case_hash())?.is_none() {
                found.push((path, rec));
            }
        }
    }
    if found.is_empty() || txn.file(&layout.index)?.is_none() {
        return Ok(out);
    }
    for (path, rec) in found {
        out.entry(path.clone()).or_default().push(rec.clone());
    }
    Ok(out)
}

/// Gives each entry of `new` that still has no INDEX row the row `add` would have given it
/// (see [`crate::mutate::index_entries_in`]); returns their ids, in file order.
pub fn index_new_entries(
    txn: &mut WriteTxn,
    new: &BTreeMap<String, Vec<Record>>,
) -> Result<Vec<String>, ImportError> {
    let mut indexed = Vec::new();
    for (path, entries) in new {
        let mut missing = Vec::new();
        for rec in entries {
            if txn.record_by_id(Kind::IndexRow, &rec.id)?.is_none() {
                missing.push(rec.clone());
            }
        }
        if missing.is_empty() {
            continue;
        }
        let eol = dominant_eol(&missing[0].text());
        crate::mutate::index_entries_in(txn, path, &missing, eol).map_err(|e| {
            ImportError::IndexRow { id: missing[0].id.clone(), reason: e.to_string() }
        })?;
        indexed.extend(missing.into_iter().map(|r| r.id));
    }
    Ok(indexed)
}
