//! Integrity checks over a whole store: every value decodes, every layout reference resolves,
//! every record sits in exactly one file, and every file parses back to exactly the records and
//! layout the store holds (the round-trip invariant that keeps render and import inverse), and
//! the facet index holds exactly the rows the records give.

use std::collections::{BTreeMap, HashMap};

use evokb_store::{CaseHash, Kind, LayoutItem, Progress, Silent, Store, StoreError};

use crate::parse::parse_file;
use crate::render::render_layout;

/// The result of [`verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Records per kind.
    pub counts: BTreeMap<Kind, u64>,
    /// The store's content digest (all zeros when the store could not be read).
    pub digest: [u8; 32],
    /// What is wrong, as sentences; empty when the store is sound.
    pub problems: Vec<String>,
}

/// Checks the store's integrity.
pub fn verify(store: &Store) -> Result<VerifyReport, StoreError> {
    verify_with_progress(store, &Silent)
}

/// [`verify`], reporting to `progress` the steps over the whole store (`reading records`,
/// `checking the facet index`, `computing the digest`) and each file whose layout is checked
/// and re-parsed (`verifying files`).
pub fn verify_with_progress(
    store: &Store,
    progress: &dyn Progress,
) -> Result<VerifyReport, StoreError> {
    let txn = store.read()?;
    progress.phase("reading records", 0);
    let lay = crate::layout::Layout::of(&txn)?;
    let mut problems = Vec::new();
    let records = match txn.records() {
        Ok(r) => r,
        Err(err @ StoreError::Corrupted { .. }) => {
            problems.push(err.to_string());
            return Ok(VerifyReport { counts: BTreeMap::new(), digest: [0; 32], problems });
        }
        Err(err) => return Err(err),
    };
    let mut counts = BTreeMap::new();
    let mut placed: HashMap<CaseHash, usize> = HashMap::new();
    for rec in &records {
        *counts.entry(rec.kind).or_insert(0) += 1;
    }
    let by_key: HashMap<CaseHash, &evokb_store::Record> =
        records.iter().map(|r| (r.case_hash(), r)).collect();
    let layouts = txn.files()?;
    progress.phase("verifying files", layouts.len() as u64);
    for layout in layouts {
        progress.advance(1);
        for item in &layout.items {
            let LayoutItem::Record(key) = item else {
                continue;
            };
            *placed.entry(*key).or_insert(0) += 1;
            match by_key.get(key) {
                None => problems.push(format!(
                    "the layout of '{}' names record {} which the store does not hold",
                    layout.path,
                    key.to_hex()
                )),
                Some(rec) if rec.file != layout.path => problems.push(format!(
                    "{} '{}' belongs to '{}' but is placed in '{}'",
                    rec.kind, rec.id, rec.file, layout.path
                )),
                Some(_) => {}
            }
        }
        let Some(role) = lay.role_of(&layout.path) else {
            problems.push(format!("'{}' is not a managed file path", layout.path));
            continue;
        };
        let Ok(text) = render_layout(&txn, &layout) else {
            continue;
        };
        let (parsed, diags) = parse_file(role, &layout.path, &text);
        if let Some(d) = diags.iter().find(|d| d.is_error()) {
            problems.push(format!("'{}' renders to text that does not parse: {d}", layout.path));
        } else if parsed.layout != layout
            || parsed
                .records
                .iter()
                .any(|pr| by_key.get(&pr.record.case_hash()) != Some(&&pr.record))
        {
            problems.push(format!(
                "'{}' renders to text that imports as different records (render and import disagree)",
                layout.path
            ));
        }
    }
    for rec in &records {
        let n = placed.get(&rec.case_hash()).copied().unwrap_or(0);
        if rec.kind != Kind::Repro && n != 1 {
            problems.push(format!(
                "{} '{}' is placed {n} times in file layouts, expected once",
                rec.kind, rec.id
            ));
        }
    }
    // The facet index is derived data; a disagreement is reported with the command that
    // rebuilds it rather than as damage to the records.
    progress.phase("checking the facet index", 0);
    for p in txn.check_facet_index()? {
        problems.push(format!("{p} (run 'evokb rebuild' to rebuild the index)"));
    }
    progress.phase("computing the digest", 0);
    let digest = txn.digest()?;
    Ok(VerifyReport { counts, digest, problems })
}
