//! Integrity checks over a whole store: every value decodes, every layout reference resolves,
//! every record sits in exactly one file, and every file parses back to exactly the records and
//! layout the store holds (the round-trip invariant that keeps render and import inverse), and
//! the facet index holds exactly the rows the records give.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

use evokb_store::{
    CaseHash, ExpectedRows, FileLayout, Kind, LayoutItem, Progress, Record, Silent, Store,
    StoreError,
};

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
/// it is stored under the key of its kind and id); every check works from those records in
/// memory. The per-file work is shared out over the cores in small batches, in two passes:
/// first the facet rows each file's records give (while this thread hashes the digest), then
/// each file's placement check and round trip (while this thread holds the facet index to
/// those rows). This thread then takes batches too, so no core waits while another has work.
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
    let (keys, records) = match txn.keyed_records_in_parallel(cores()) {
        Ok(r) => r,
        Err(err @ StoreError::Corrupted { .. }) => {
            problems.push(err.to_string());
            return Ok(VerifyReport { counts: BTreeMap::new(), digest: [0; 32], problems });
        }
        Err(err) => return Err(err),
    };
    let layouts = txn.files()?;
    let mut counts = BTreeMap::new();
    for rec in &records {
        *counts.entry(rec.kind).or_insert(0) += 1;
    }
    let held =
        Held { at: keys.iter().enumerate().map(|(i, k)| (*k, i)).collect(), records: &records };
    let get = |key: &CaseHash| held.get(key);

    // The facet rows of every file; the digest needs no file's work, so it is hashed meanwhile.
    let maker = txn.facet_row_maker();
    let make_rows = |run: &[FileLayout]| -> Vec<ExpectedRows> {
        run.iter().map(|l| maker.rows_of(l, &get)).collect()
    };
    let (rows, digest) =
        share_out(&layouts, &make_rows, None, || txn.digest_of(&records, &layouts));
    let digest = digest?;
    let expected: Option<Vec<ExpectedRows>> = rows
        .into_iter()
        .collect::<Option<Vec<Vec<ExpectedRows>>>>()
        .map(|r| r.into_iter().flatten().collect());

    // Each file's placement and round trip, counting where each record is placed; the facet
    // index is held to the rows meanwhile.
    progress.phase("verifying files", layouts.len() as u64);
    let placed: Vec<AtomicU32> = records.iter().map(|_| AtomicU32::new(0)).collect();
    let check_files = |run: &[FileLayout]| {
        let (mut misplaced, mut differ, mut crashed) = (Vec::new(), Vec::new(), false);
        // One buffer for the text of every file of the batch.
        let mut text = String::new();
        for layout in run {
            placement(layout, &held, &placed, &mut misplaced);
            // A round trip that panics (a bug in render or parse) costs its own file only:
            // the placement of the rest of the batch is still counted.
            let file = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                round_trip(&lay, layout, &get, &mut text)
            }));
            match file {
                Ok(found) => differ.extend(found),
                Err(_) => crashed = true,
            }
        }
        (misplaced, differ, crashed)
    };
    let (checked, facets) = share_out(&layouts, &check_files, Some(progress), || {
        expected.map(|rows| txn.check_facet_index_with(&layouts, rows))
    });
    let mut differ = Vec::new();
    let mut crashed = false;
    for batch in checked {
        match batch {
            Some((misplaced, d, c)) => {
                problems.extend(misplaced);
                differ.extend(d);
                crashed |= c;
            }
            None => crashed = true,
        }
    }
    problems.extend(differ);
    // A thread that panicked is a bug in render or parse; say so rather than lose it.
    if crashed {
        problems.push("a round-trip worker crashed (a bug in render or parse)".to_string());
    }
    for (rec, n) in records.iter().zip(&placed) {
        let n = n.load(Ordering::Relaxed);
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
    let facets = match facets {
        Some(found) => found?,
        None => vec!["making the facet rows of the records crashed (a bug in the indexer)".into()],
    };
    // The facet index is derived data; a disagreement is reported with the command that
    // rebuilds it rather than as damage to the records.
    for p in facets {
        problems.push(format!("{p} (run 'evokb rebuild' to rebuild the index)"));
    }
    let Held { at, .. } = held;
    crate::render::drop_elsewhere((records, at, layouts));
    Ok(VerifyReport { counts, digest, problems })
}

/// The records in memory, found by key.
struct Held<'a> {
    records: &'a [Record],
    /// Each key's position in `records`.
    at: HashMap<CaseHash, usize>,
}

impl Held<'_> {
    fn get(&self, key: &CaseHash) -> Option<&Record> {
        self.at.get(key).map(|&i| &self.records[i])
    }
}

/// The number of threads a whole-store check uses: one per core, at most eight.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8)
}

/// Files per batch: small enough that the threads finish together, large enough that taking
/// a batch costs nothing beside checking it.
const BATCH: usize = 16;

/// Runs `work` over `layouts` in batches of [`BATCH`], taken by whichever thread is free: one
/// worker per core but one, and this thread once it has run `meanwhile` (whole-store work that
/// needs no batch). Returns each batch's result in batch order, so nothing depends on the
/// number of threads or on who did what (`None` for a batch whose work panicked, or whose
/// worker never reported), and what `meanwhile` returned. This thread passes the count of
/// finished files on to `progress` (which need not be shareable across threads) between its
/// own batches and while it waits for the last ones.
fn share_out<T: Send, M>(
    layouts: &[FileLayout],
    work: &(dyn Fn(&[FileLayout]) -> T + Sync),
    progress: Option<&dyn Progress>,
    meanwhile: impl FnOnce() -> M,
) -> (Vec<Option<T>>, M) {
    let batches = layouts.len().div_ceil(BATCH);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    // Takes batches until none is left, calling `between` after each: the result of each
    // batch, by batch number.
    let take = |between: &mut dyn FnMut()| {
        let mut found: Vec<(usize, Option<T>)> = Vec::new();
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= batches {
                break;
            }
            let run = &layouts[b * BATCH..((b + 1) * BATCH).min(layouts.len())];
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(run)));
            done.fetch_add(run.len() as u64, Ordering::Relaxed);
            found.push((b, result.ok()));
            between();
        }
        found
    };
    std::thread::scope(|scope| {
        // Each worker sends what it found when no batch is left, so this thread wakes the
        // moment the last one is done rather than at its next progress tick.
        let (send, finished) = std::sync::mpsc::channel();
        let workers = cores() - 1;
        for _ in 0..workers {
            let (send, take) = (send.clone(), &take);
            // The receiver outlives every worker (they are joined when this scope ends).
            scope.spawn(move || drop(send.send(take(&mut || {}))));
        }
        drop(send);
        let m = meanwhile();
        let mut reported = 0;
        let mut report = || {
            if let Some(p) = progress {
                let now = done.load(Ordering::Relaxed);
                p.advance(now - reported);
                reported = now;
            }
        };
        // This thread's own batches, one at a time so the bar moves between them.
        let mut found = take(&mut report);
        let mut waiting = workers;
        while waiting > 0 {
            report();
            match finished.recv_timeout(std::time::Duration::from_millis(20)) {
                Ok(theirs) => {
                    found.extend(theirs);
                    waiting -= 1;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                // Every batch's panic is caught, so a worker always sends; were one to end
                // without sending, its batches count as failed below.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        report();
        let mut by_batch: Vec<Option<T>> = (0..batches).map(|_| None).collect();
        for (b, result) in found {
            by_batch[b] = result;
        }
        (by_batch, m)
    })
}

/// Checks where `layout` places each record: that the store holds it and that it belongs to
/// this file; counts the placement in `placed` (by the record's position) and reports
/// problems into `out`.
fn placement(layout: &FileLayout, held: &Held<'_>, placed: &[AtomicU32], out: &mut Vec<String>) {
    for item in &layout.items {
        let LayoutItem::Record(key) = item else {
            continue;
        };
        let Some(&i) = held.at.get(key) else {
            out.push(format!(
                "the layout of '{}' names record {} which the store does not hold",
                layout.path,
                key.to_hex()
            ));
            continue;
        };
        placed[i].fetch_add(1, Ordering::Relaxed);
        let rec = &held.records[i];
        if *rec.file != *layout.path {
            out.push(format!(
                "{} '{}' belongs to '{}' but is placed in '{}'",
                rec.kind, rec.id, rec.file, layout.path
            ));
        }
    }
}

/// What is wrong with one file's round trip, if anything; `text` is a buffer to render into.
fn round_trip<'r>(
    lay: &crate::layout::Layout,
    layout: &FileLayout,
    get: &dyn Fn(&CaseHash) -> Option<&'r Record>,
    text: &mut String,
) -> Option<String> {
    let Some(role) = lay.role_of(&layout.path) else {
        return Some(format!("'{}' is not a managed file path", layout.path));
    };
    text.clear();
    for item in &layout.items {
        match item {
            LayoutItem::Prose(p) => text.push_str(p),
            // A dangling reference is reported by the placement check.
            LayoutItem::Record(key) => get(key)?.write_text(text),
        }
    }
    let (parsed, diags) = parse_file(role, &layout.path, text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Some(format!("'{}' renders to text that does not parse: {d}", layout.path));
    }
    let differs = parsed.layout != *layout
        || parsed.records.iter().any(|pr| get(&pr.record.case_hash()) != Some(&pr.record));
    differs.then(|| {
        format!(
            "'{}' renders to text that imports as different records (render and import disagree)",
            layout.path
        )
    })
}
