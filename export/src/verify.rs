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
/// Every record is read and decoded once, on all the machine's cores (its decode checks that
/// it is stored under the key of its kind and id); the round trip, the facet index check and
/// the digest all work from those records in memory. The round trip of the files is shared
/// out over the cores in small batches, and the facet check and the digest run on the calling
/// thread meanwhile, which then takes batches too, so no core waits while another has work.
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
    let records = match txn.records_in_parallel(cores()) {
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

/// The number of threads a whole-store check uses: one per core, at most eight.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8)
}

/// Files per batch of the round trip: small enough that the threads finish together, large
/// enough that taking a batch costs nothing beside checking it.
const BATCH: usize = 16;

/// The round-trip problems of every file, in path order: each layout is rendered from the
/// records in memory and parsed back. Render and parse are pure, so the files are checked in
/// batches of [`BATCH`] by whichever thread takes the next one: one worker per core but one,
/// and this thread once it has run `meanwhile` (the whole-store checks that need no worker).
/// Each batch's findings are kept under its number and joined in batch order, so the report
/// does not depend on the number of threads or on who checked what. This thread passes the
/// workers' count of finished files on to `progress` (which need not be shareable across
/// threads) between its own batches and while it waits for the last ones.
fn round_trip_all(
    lay: &crate::layout::Layout,
    layouts: &[FileLayout],
    by_key: &HashMap<CaseHash, &evokb_store::Record>,
    progress: &dyn Progress,
    meanwhile: impl FnOnce(),
) -> Vec<String> {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    let batches = layouts.len().div_ceil(BATCH);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    // Takes batches until none is left: the findings of each, by batch number.
    let work = || {
        let mut found: Vec<(usize, Vec<String>)> = Vec::new();
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= batches {
                break;
            }
            let run = &layouts[b * BATCH..((b + 1) * BATCH).min(layouts.len())];
            let mut problems = Vec::new();
            for l in run {
                problems.extend(round_trip(lay, l, by_key));
            }
            done.fetch_add(run.len() as u64, Ordering::Relaxed);
            found.push((b, problems));
        }
        found
    };
    // A thread that panicked is a bug in render or parse; say so rather than lose it.
    let crashed = || vec!["a round-trip worker crashed (a bug in render or parse)".to_string()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (1..cores()).map(|_| scope.spawn(work)).collect();
        meanwhile();
        let mut reported = 0;
        let mut report = || {
            let now = done.load(Ordering::Relaxed);
            progress.advance(now - reported);
            reported = now;
        };
        let mut found: Vec<(usize, Vec<String>)> = Vec::new();
        let mut failures = Vec::new();
        // This thread's own batches, one at a time so the bar moves between them.
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= batches {
                break;
            }
            let run = &layouts[b * BATCH..((b + 1) * BATCH).min(layouts.len())];
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run.iter().filter_map(|l| round_trip(lay, l, by_key)).collect::<Vec<_>>()
            }));
            match checked {
                Ok(problems) => found.push((b, problems)),
                Err(_) => failures = crashed(),
            }
            done.fetch_add(run.len() as u64, Ordering::Relaxed);
            report();
        }
        while !workers.iter().all(|h| h.is_finished()) {
            report();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        report();
        for h in workers {
            match h.join() {
                Ok(theirs) => found.extend(theirs),
                Err(_) => failures = crashed(),
            }
        }
        found.sort_unstable_by_key(|(b, _)| *b);
        let mut out: Vec<String> = found.into_iter().flat_map(|(_, p)| p).collect();
        out.extend(failures);
        out
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
