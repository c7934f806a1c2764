//! Integrity checks over a whole store: every value decodes, every layout reference resolves,
//! every record sits in exactly one file, and every file parses back to exactly the records and
//! layout the store holds (the round-trip invariant that keeps render and import inverse), and
//! the facet index holds exactly the rows the records give.

use std::collections::{BTreeMap, HashMap};

use evokb_store::{CaseHash, FileLayout, Kind, LayoutItem, Progress, Silent, Store, StoreError};

use crate::parse::parse_file;

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
///
/// Every record is read and decoded once (its decode checks that it is stored under the key
/// of its kind and id); the round trip, the facet index check and the digest all work from those
/// records in memory; the round trip of the files is split over the machine's cores, and the
/// facet check and the digest run on the calling thread while it does.
pub fn verify(store: &Store) -> Result<VerifyReport, StoreError> {
    verify_with_progress(store, &Silent)
}

/// [`verify`], reporting to `progress` the steps over the whole store (`reading records`,
/// then `verifying files`, counting each file whose layout is checked and re-parsed; the facet
/// index check and the digest run on this thread meanwhile).
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
    let layouts = txn.files()?;
    let mut counts = BTreeMap::new();
    let mut placed: HashMap<CaseHash, usize> = HashMap::new();
    for rec in &records {
        *counts.entry(rec.kind).or_insert(0) += 1;
    }
    let by_key: HashMap<CaseHash, &evokb_store::Record> =
        records.iter().map(|r| (r.case_hash(), r)).collect();
    progress.phase("verifying files", layouts.len() as u64);
    for layout in &layouts {
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
    }
    // The facet check and the digest read only the transaction, the round trip only the
    // records in memory: they run while the round-trip workers do, not after them.
    let mut whole_store = None;
    let round_trip = round_trip_all(&lay, &layouts, &by_key, progress, || {
        whole_store = Some(
            txn.check_facet_index_of(&layouts, &by_key)
                .and_then(|facets| Ok((facets, txn.digest_of(&records, &layouts)?))),
        );
    });
    problems.extend(round_trip);
    for rec in &records {
        let n = placed.get(&rec.case_hash()).copied().unwrap_or(0);
        if rec.kind != Kind::Repro && n != 1 {
            problems.push(format!(
                "{} '{}' is placed {n} times in file layouts, expected once",
                rec.kind, rec.id
            ));
        }
    }
    // The per-kind counts commands print come from the kind index (and the counts kept with
    // it), derived data like the facet index.
    let indexed = txn.counts()?;
    for &kind in Kind::ALL {
        let (have, said) = (counts.get(&kind).copied().unwrap_or(0), indexed.get(&kind).copied());
        if said.unwrap_or(0) != have {
            problems.push(format!(
                "the kind index counts {} {kind} record(s) but the store holds {have} (run 'evokb rebuild' to rebuild the index)",
                said.unwrap_or(0)
            ));
        }
    }
    let (facets, digest) = match whole_store {
        Some(done) => done?,
        None => (txn.check_facet_index_of(&layouts, &by_key)?, txn.digest_of(&records, &layouts)?),
    };
    // The facet index is derived data; a disagreement is reported with the command that
    // rebuilds it rather than as damage to the records.
    for p in facets {
        problems.push(format!("{p} (run 'evokb rebuild' to rebuild the index)"));
    }
    Ok(VerifyReport { counts, digest, problems })
}

/// The round-trip problems of every file, in path order: each layout is rendered from the
/// records in memory and parsed back. Files are split into one contiguous run per core
/// (render and parse are pure), and the runs' findings are joined in order, so the report
/// does not depend on the number of threads. The workers count the files they finish; this
/// thread passes the count on to `progress` (which need not be shareable across threads),
/// after running `meanwhile` (the whole-store checks that need no worker).
fn round_trip_all(
    lay: &crate::layout::Layout,
    layouts: &[FileLayout],
    by_key: &HashMap<CaseHash, &evokb_store::Record>,
    progress: &dyn Progress,
    meanwhile: impl FnOnce(),
) -> Vec<String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
    let chunk = layouts.len().div_ceil(threads).max(1);
    let done = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let runs: Vec<_> = layouts
            .chunks(chunk)
            .map(|run| {
                let done = &done;
                scope.spawn(move || {
                    let mut found = Vec::new();
                    for l in run {
                        found.extend(round_trip(lay, l, by_key));
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    found
                })
            })
            .collect();
        meanwhile();
        let mut reported = 0;
        loop {
            let finished = runs.iter().all(|h| h.is_finished());
            let now = done.load(Ordering::Relaxed);
            progress.advance(now - reported);
            reported = now;
            if finished {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // A worker that panicked is a bug in render or parse; say so rather than lose it.
        runs.into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec!["a round-trip worker crashed (a bug in render or parse)".to_string()]
                })
            })
            .collect()
    })
}

/// What is wrong with one file's round trip, if anything.
fn round_trip(
    lay: &crate::layout::Layout,
    layout: &FileLayout,
    by_key: &HashMap<CaseHash, &evokb_store::Record>,
) -> Option<String> {
    let Some(role) = lay.role_of(&layout.path) else {
        return Some(format!("'{}' is not a managed file path", layout.path));
    };
    let mut text = String::new();
    for item in &layout.items {
        match item {
            LayoutItem::Prose(p) => text.push_str(p),
            // A dangling reference is reported by the placement check.
            LayoutItem::Record(key) => by_key.get(key)?.write_text(&mut text),
        }
    }
    let (parsed, diags) = parse_file(role, &layout.path, &text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Some(format!("'{}' renders to text that does not parse: {d}", layout.path));
    }
    let differs = parsed.layout != *layout
        || parsed.records.iter().any(|pr| by_key.get(&pr.record.case_hash()) != Some(&&pr.record));
    differs.then(|| {
        format!(
            "'{}' renders to text that imports as different records (render and import disagree)",
            layout.path
        )
    })
}
