//! Keeping the store and the markdown in sync without losing anyone's work.
//!
//! The store remembers, per record and per file, the hash of the text as last imported or
//! rendered in place (a *sync mark*). Comparing the file's text and the store's text against
//! that mark tells who changed what:
//!
//! | file vs mark | store vs mark | import does            |
//! |--------------|---------------|------------------------|
//! | same         | any           | keeps the store        |
//! | changed      | same          | takes the file         |
//! | changed      | changed       | conflict (or --prefer) |
//!
//! A record missing from its file was deleted by a person when the store still matches the
//! mark, and is a conflict when the store changed it too. A record the store added and never
//! rendered (no mark) is kept and stays where the store put it. Import writes everything in one
//! transaction, or nothing.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use evokb_store::{
    CaseHash, FileLayout, FileStat, Kind, LayoutItem, Progress, Record, Segment, Silent, Store,
    SyncMark, WriteTxn,
};

use crate::derive::{self, DeriveRows};
use crate::diag::Diagnostic;
use crate::error::{Conflict, ImportError, RenderError};
use crate::fsread::read_managed;
use crate::layout::{Layout, ManagedFile};
use crate::parse::{parse_file, ParsedFile};
use crate::render::{
    render_all_with_progress, write_atomic, Held, Overlay, RecordSource, RenderedFile,
};
use crate::text::decode_utf8;

/// Which side wins a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    /// The markdown file's version.
    File,
    /// The store's version.
    Store,
}

/// Options of [`import`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// How to settle conflicts; `None` refuses them.
    pub prefer: Option<Prefer>,
    /// Refuse (as invalid input) files whose structure turns would-be records into prose,
    /// instead of warning about them (see [`crate::loss`]).
    pub strict: bool,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// Records per kind in the store after the import.
    pub counts: BTreeMap<Kind, u64>,
    /// Records that were new.
    pub added: usize,
    /// The keys of the records this import wrote (new ones and ones taken from an edited
    /// file), in the order it wrote them: what later checks of imported content must judge.
    pub changed: Vec<CaseHash>,
    /// Records taken from an edited file.
    pub updated: usize,
    /// Records deleted because their file no longer has them.
    pub removed: usize,
    /// Records whose store version was kept over an unchanged file.
    pub kept_store: usize,
    /// Managed files found (read or skipped).
    pub files: usize,
    /// Managed files not read: their stat fingerprints prove them unchanged since the last
    /// sync.
    pub skipped: usize,
    /// Append-only files (the search log) that had only gained lines since the last sync:
    /// their earlier lines were checked against the store's content mark, and only the new
    /// ones were parsed and written (see [`AppendBase`]).
    pub appended: usize,
    /// Warnings found while parsing.
    pub warnings: Vec<Diagnostic>,
    /// Entries new in their topic file that were given their INDEX row (see
    /// [`crate::coverage`]).
    pub indexed: Vec<String>,
}

/// A managed file read and parsed from disk.
pub struct ReadFile {
    /// Which file.
    pub file: ManagedFile,
    /// Its content mark ([`crate::layout::FileRole::content_mark`] of its bytes).
    pub bytes_hash: [u8; 32],
    /// Its stat fingerprint, when the file did not change while it was read.
    pub stat: Option<FileStat>,
    /// Its parse: of the whole file, or of the lines after the first `n` when
    /// `appended_after` is `Some(n)`.
    pub parsed: ParsedFile,
    /// `Some(n)` when the file is an append-only file that only gained lines since the last
    /// sync: its first `n` lines are the ones the store holds (their content mark matched),
    /// and `parsed` holds the lines after them, numbered as lines of the whole file.
    pub appended_after: Option<usize>,
}

/// What the store knows of an append-only file (the search log) whose content it holds exactly
/// as last synced: its length and content mark then. An import that finds the file longer,
/// with its first `len` bytes still giving `mark` and ending a line, parses and writes only the
/// lines after them: a hand-appended line costs a read and a hash of the log, not a parse,
/// comparison and layout rewrite of every event in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendBase {
    /// The file's length at the last sync.
    pub len: u64,
    /// Its content mark at the last sync (a line chain, [`evokb_store::filestate::line_mark`]).
    pub mark: [u8; 32],
}

/// Everything the importer read from a knowledge base.
pub struct ReadKb {
    /// The managed markdown and jsonl files that were read.
    pub files: Vec<ReadFile>,
    /// Managed files not read because their stat fingerprint proves them unchanged since the
    /// last sync (see [`read_kb_since`]).
    pub skipped: Vec<ManagedFile>,
    /// One record per repro script.
    pub repros: Vec<Record>,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
}

/// Reads and parses every managed file under `root`. Fails with every error found, so a user
/// fixes them all in one go.
pub fn read_kb(root: &Path, layout: &Layout) -> Result<ReadKb, ImportError> {
    read_kb_since(root, layout, &|_| None)
}

/// [`read_kb`], except that a file whose stat fingerprint `known(path)` vouches for (same
/// size, inode and times, taken well after its last change: [`FileStat::vouches_for`]) is
/// not read but listed in [`ReadKb::skipped`]. This is what keeps an import after a one-file
/// edit from reading the other files, as git's index does.
pub fn read_kb_since(
    root: &Path,
    layout: &Layout,
    known: &dyn Fn(&str) -> Option<FileStat>,
) -> Result<ReadKb, ImportError> {
    read_kb_since_with_progress(root, layout, known, &Silent)
}

/// [`read_kb_since`], reporting each managed file it reads or skips to `progress` (phase
/// `reading files`).
pub fn read_kb_since_with_progress(
    root: &Path,
    layout: &Layout,
    known: &dyn Fn(&str) -> Option<FileStat>,
    progress: &dyn Progress,
) -> Result<ReadKb, ImportError> {
    read_kb_appending(root, layout, known, &|_| None, progress)
}

/// [`read_kb_since_with_progress`], except that an append-only file for which `appendable`
/// gives what the store holds of it, and which has grown since, is read as its appended lines
/// when its earlier bytes are still those (see [`AppendBase`]; [`ReadFile::appended_after`]).
fn read_kb_appending(
    root: &Path,
    layout: &Layout,
    known: &dyn Fn(&str) -> Option<FileStat>,
    appendable: &dyn Fn(&str) -> Option<AppendBase>,
    progress: &dyn Progress,
) -> Result<ReadKb, ImportError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ImportError::Io { path, source }
    };
    let managed = layout.discover(root).map_err(io(root))?;
    let mut diags = Vec::new();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    // Which files need reading: every one whose fingerprint does not vouch for it. The stat
    // taken here, before the read, is the one kept if the file is unchanged after it: if the
    // file changes meanwhile, the two differ and no fingerprint is kept, so the next import
    // reads it again.
    let mut to_read = Vec::new();
    for mf in managed {
        let before = std::fs::symlink_metadata(root.join(&mf.path))
            .ok()
            .filter(|m| m.file_type().is_file())
            .map(|m| FileStat::from_metadata(&m));
        match (&before, known(&mf.path)) {
            (Some(now), Some(old)) if old.vouches_for(now) => skipped.push(mf),
            _ => {
                let grown = |b: &AppendBase| before.is_some_and(|now| now.len > b.len);
                let base =
                    if mf.role.append_only() { appendable(&mf.path).filter(grown) } else { None };
                to_read.push((mf, before, base));
            }
        }
    }
    // Reading, decoding, parsing and hashing one file needs nothing of the others: they are
    // spread over the cores, and taken back in file order.
    progress.phase("reading files", (skipped.len() + to_read.len()) as u64);
    progress.advance(skipped.len() as u64);
    let read_one = |(mf, before, base): &(ManagedFile, Option<FileStat>, Option<AppendBase>)| {
        read_file(root, mf, *before, *base)
    };
    for (file, d) in crate::parallel::map_in_order(&to_read, 8, &read_one, progress) {
        diags.extend(d);
        files.extend(file);
    }
    let mut repros = Vec::new();
    for path in layout.discover_repros(root).map_err(io(root))? {
        match read_managed(root, &path) {
            Ok(bytes) => repros.push(repro_record(&path, &bytes)),
            Err(msg) => diags.push(Diagnostic::error(&path, 0, format!("repro script: {msg}"))),
        }
    }
    check_unique_ids(&files, &mut diags);
    let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(Diagnostic::is_error);
    if !errors.is_empty() {
        return Err(ImportError::Invalid { diagnostics: errors });
    }
    Ok(ReadKb { files, skipped, repros, warnings })
}

/// Reads, decodes, parses and hashes one managed file whose stat, taken before this read, was
/// `before`: the file read (with that stat as its fingerprint when the file is unchanged after
/// the read), or none when it cannot be read or decoded, and the diagnostics either way. With
/// `base`, the file is taken as its appended lines when it only gained lines since then
/// ([`read_appended`]).
fn read_file(
    root: &Path,
    mf: &ManagedFile,
    before: Option<FileStat>,
    base: Option<AppendBase>,
) -> (Option<ReadFile>, Vec<Diagnostic>) {
    let bytes = match read_managed(root, &mf.path) {
        Ok(b) => b,
        Err(msg) => return (None, vec![Diagnostic::error(&mf.path, 0, msg)]),
    };
    let after =
        std::fs::symlink_metadata(root.join(&mf.path)).ok().map(|m| FileStat::from_metadata(&m));
    let stat = match (before, after) {
        (Some(b), Some(a)) if b.same_as(&a) => Some(b),
        _ => None,
    };
    if let Some(file) = base.and_then(|b| read_appended(mf, &bytes, b, stat)) {
        return (Some(file), Vec::new());
    }
    let text = match decode_utf8(&bytes) {
        Ok(t) => t,
        Err((line, msg)) => return (None, vec![Diagnostic::error(&mf.path, line, msg)]),
    };
    let (parsed, diags) = parse_file(mf.role, &mf.path, text);
    let bytes_hash = mf.role.content_mark(&bytes);
    (Some(ReadFile { file: mf.clone(), bytes_hash, stat, parsed, appended_after: None }), diags)
}

/// The lines appended to an append-only file since the store last held it as `base`, parsed,
/// or `None` when the file must be read whole: its first `base.len` bytes no longer give the
/// mark or do not end a line, or the appended text is not plain records (a blank line, a byte
/// order mark, a problem to report: the whole file's parse reports it with the whole file's
/// line and byte numbers).
fn read_appended(
    mf: &ManagedFile,
    bytes: &[u8],
    base: AppendBase,
    stat: Option<FileStat>,
) -> Option<ReadFile> {
    use evokb_store::filestate::{extend_line_mark, line_mark};
    let len = usize::try_from(base.len).ok().filter(|&l| l > 0 && l < bytes.len())?;
    let (prefix, tail) = bytes.split_at(len);
    if prefix.last() != Some(&b'\n') || tail.starts_with(crate::text::BOM.as_bytes()) {
        return None;
    }
    let prefix_mark = line_mark(prefix);
    if prefix_mark != base.mark {
        return None;
    }
    let text = decode_utf8(tail).ok()?;
    let (mut parsed, diags) = parse_file(mf.role, &mf.path, text);
    let records_only = parsed.layout.items.iter().all(|i| matches!(i, LayoutItem::Record(_)));
    if !diags.is_empty()
        || !records_only
        || !crate::parse::structure::problems(mf.role, text).is_empty()
    {
        return None;
    }
    let lines_before = evokb_store::filestate::count_newlines(prefix);
    for pr in &mut parsed.records {
        pr.line += lines_before;
    }
    Some(ReadFile {
        file: mf.clone(),
        bytes_hash: extend_line_mark(prefix_mark, tail),
        stat,
        parsed,
        appended_after: Some(lines_before),
    })
}

/// The record of a repro script: its path, content hash, size and line count.
pub fn repro_record(path: &str, bytes: &[u8]) -> Record {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    let field = |key: &str, value: String| Segment::Field { key: key.into(), value: value.into() };
    Record {
        kind: Kind::Repro,
        id: path.into(),
        file: path.into(),
        segments: vec![
            field("blake3", blake3::hash(bytes).to_hex().to_string()),
            Segment::Lit(" ".into()),
            field("bytes", bytes.len().to_string()),
            Segment::Lit(" ".into()),
            field("lines", lines.to_string()),
        ],
    }
}

/// Reports every id that occurs twice within a kind, naming both places.
fn check_unique_ids(files: &[ReadFile], diags: &mut Vec<Diagnostic>) {
    let mut first: HashMap<CaseHash, (&str, usize)> = HashMap::new();
    for f in files {
        for pr in &f.parsed.records {
            let rec = &pr.record;
            if let Some(&(file, line)) = first.get(&rec.case_hash()) {
                diags.push(Diagnostic::error(
                    &rec.file,
                    pr.line,
                    format!(
                        "duplicate {} id '{}': first defined at {file}:{line}",
                        rec.kind, rec.id
                    ),
                ));
            } else {
                first.insert(rec.case_hash(), (&rec.file, pr.line));
            }
        }
    }
}

/// Imports every managed file under `root` into `store`, in one transaction.
///
/// The write lock is taken before the first file is read, so the files, the records they are
/// compared with and the sync marks that decide who changed what all describe one moment: an
/// evokb process that renders or records a hit meanwhile waits, and no write it acknowledged
/// can be mistaken for an old file version.
pub fn import(
    root: &Path,
    store: &Store,
    opts: ImportOptions,
) -> Result<ImportReport, ImportError> {
    let mut txn = store.write()?;
    let report = import_in(&mut txn, root, opts)?;
    txn.commit()?;
    Ok(report)
}

/// [`import`] inside an open write transaction; nothing is committed.
pub fn import_in(
    txn: &mut WriteTxn,
    root: &Path,
    opts: ImportOptions,
) -> Result<ImportReport, ImportError> {
    import_in_with_progress(txn, root, opts, &Silent)
}

/// [`import_in`], reporting to `progress` the managed files as they are read (`reading
/// files`) and then as their records are compared and written (`importing files`).
pub fn import_in_with_progress(
    txn: &mut WriteTxn,
    root: &Path,
    opts: ImportOptions,
    progress: &dyn Progress,
) -> Result<ImportReport, ImportError> {
    Ok(import_kb(txn, root, opts, progress, &|_, _| ())?.0)
}

/// [`import_in_with_progress`], also returning the records this import wrote (new ones and
/// ones taken from an edited file), as parsed, in the order of [`ImportReport::changed`].
///
/// A later check of imported content in the same transaction (the quarantine judging) reads
/// them here rather than back from the store: at a first import that is every record, and
/// decoding each one again from its packed value cost more than parsing it did. Each is the
/// value the import stored under its key (a record is stored exactly as parsed, and nothing
/// later in the import rewrites one it took from a file).
pub fn import_in_with_records(
    txn: &mut WriteTxn,
    root: &Path,
    opts: ImportOptions,
    progress: &dyn Progress,
) -> Result<(ImportReport, Vec<Record>), ImportError> {
    let (report, records, ()) = import_in_beside(txn, root, opts, progress, &|_, _| ())?;
    Ok((report, records))
}

/// Work that [`import_in_beside`] runs on a second thread while it writes what it read. It is
/// given the records of every file the import brings in (each file whose bytes differ from
/// those of its last sync), in file order: a superset of the records the import writes, as
/// parsed. The flag is raised once the import is done with them; the work should then return
/// soon (within a few milliseconds), since the import waits for it before going on.
pub type Beside<'a, B> = &'a (dyn Fn(&[&Record], &AtomicBool) -> B + Sync);

/// [`import_in_with_records`], running `beside` on a second thread while the import writes:
/// returns what it returned too.
///
/// The writing of a first import is mostly one thread's work (some 2 s at 100k entries), so a
/// check of the incoming records can use the other core meanwhile instead of waiting for the
/// import to finish. It stops when the import does, so the parsed files are freed no later
/// than without it.
pub fn import_in_beside<B: Send>(
    txn: &mut WriteTxn,
    root: &Path,
    opts: ImportOptions,
    progress: &dyn Progress,
    beside: Beside<'_, B>,
) -> Result<(ImportReport, Vec<Record>, B), ImportError> {
    let (report, kb, made) = import_kb(txn, root, opts, progress, beside)?;
    let wrote: HashSet<CaseHash> = report.changed.iter().copied().collect();
    // Files in read order, records in file order: the order `report.changed` was pushed in,
    // each key once (ids are unique). Moved out of the files read, so that their layouts,
    // prose and unchanged records are freed when this returns.
    let records: Vec<Record> = kb
        .files
        .into_iter()
        .flat_map(|f| f.parsed.records.into_iter().map(|r| r.record))
        .filter(|r| wrote.contains(&r.case_hash()))
        .collect();
    Ok((report, records, made))
}

/// The import itself, with `beside` run while it writes (see [`import_in_beside`]); returns the
/// files it read too, for [`import_in_beside`].
fn import_kb<B: Send>(
    txn: &mut WriteTxn,
    root: &Path,
    opts: ImportOptions,
    progress: &dyn Progress,
    beside: Beside<'_, B>,
) -> Result<(ImportReport, ReadKb, B), ImportError> {
    let layout = Layout::load(root)?;
    let layout_changed = Layout::of(&*txn).ok().as_ref() != Some(&layout);
    layout.store_in(txn)?;
    // A changed layout may give a path another role (and its content mark another function):
    // then every file is read.
    let stored_stats = txn.file_stats()?;
    let known = |path: &str| if layout_changed { None } else { stored_stats.get(path).copied() };
    let bases = append_bases(txn, &layout, &stored_stats, layout_changed)?;
    let appendable = |path: &str| bases.get(path).copied();
    let mut kb = read_kb_appending(root, &layout, &known, &appendable, progress)?;
    for f in kb.files.iter_mut().filter(|f| f.appended_after.is_some()) {
        crate::parse::jsonl::renumber_appended(&mut f.parsed, &mut |key| {
            txn.record(key).map(|r| r.is_some())
        })?;
    }
    let mut incoming: Vec<&Record> = Vec::new();
    for f in &kb.files {
        if txn.file_sync(&f.file.path)?.is_none_or(|m| m.text_hash != f.bytes_hash) {
            incoming.extend(f.parsed.records.iter().map(|r| &r.record));
        }
    }
    let done = AtomicBool::new(false);
    let (written, made) = std::thread::scope(|s| {
        let helper = s.spawn(|| beside(&incoming, &done));
        let written = write_read_kb(txn, root, &layout, &stored_stats, &kb, opts, progress);
        done.store(true, Ordering::Relaxed);
        match helper.join() {
            Ok(made) => (written, made),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    drop(incoming);
    Ok((written?, kb, made))
}

/// What the store holds of each append-only file it holds exactly as last synced (its layout
/// clean, its length and content mark known): the files an import may read as appended lines.
/// None after a layout change (a path may have another role now) or into a store without
/// records (a first import writes every record at once).
fn append_bases(
    txn: &WriteTxn,
    layout: &Layout,
    stored_stats: &HashMap<String, FileStat>,
    layout_changed: bool,
) -> Result<HashMap<String, AppendBase>, ImportError> {
    let mut out = HashMap::new();
    if layout_changed || !txn.has_records()? {
        return Ok(out);
    }
    let path = layout.search_log.as_str();
    if let (Some(stat), Some(mark)) = (stored_stats.get(path), txn.file_sync(path)?) {
        if txn.file_is_clean(path)? {
            out.insert(path.to_string(), AppendBase { len: stat.len, mark: mark.text_hash });
        }
    }
    Ok(out)
}

/// Brings what an import read (`kb`, read under `layout` against the stats `stored_stats` the
/// store held) into the store.
fn write_read_kb(
    txn: &mut WriteTxn,
    root: &Path,
    layout: &Layout,
    stored_stats: &HashMap<String, FileStat>,
    kb: &ReadKb,
    opts: ImportOptions,
    progress: &dyn Progress,
) -> Result<ImportReport, ImportError> {
    check_ids_against_skipped(kb, &*txn)?;
    // Counted against the store as it was before this import, in the same transaction.
    let structural = crate::loss::structural_warnings_of(kb, &*txn)?;
    if opts.strict && !structural.is_empty() {
        return Err(ImportError::Structural { diagnostics: crate::loss::as_errors(structural) });
    }
    let mut warnings = structural;
    warnings.extend(kb.warnings.iter().cloned());
    let mut report = ImportReport {
        files: kb.files.len() + kb.skipped.len(),
        skipped: kb.skipped.len(),
        warnings,
        ..Default::default()
    };
    let mut conflicts = Vec::new();
    let mut resolved = Vec::new();
    let new_entries = crate::coverage::new_entries(txn, kb, layout)?;
    // Sorted rather than hashed: a tenth of the memory at the import's peak (at 100k entries,
    // ~230k keys), and it is asked only about records a file no longer holds.
    let mut parsed_keys: Vec<CaseHash> = kb
        .files
        .iter()
        .flat_map(|f| f.parsed.records.iter().map(|r| r.record.case_hash()))
        .collect();
    parsed_keys.sort_unstable();
    parsed_keys.dedup();
    let all_prewritten = write_fresh_records(txn, kb)?;
    progress.phase("importing files", kb.files.len() as u64);
    for f in &kb.files {
        progress.advance(1);
        let path = f.file.path.as_str();
        if txn.file_sync(path)?.is_some_and(|m| m.text_hash == f.bytes_hash) {
            // Unchanged since the last sync: the store's version of this file stands. Its
            // fingerprint is refreshed, so the next import need not read it.
            remember_stat(txn, path, f.stat.as_ref(), stored_stats.get(path))?;
            continue;
        }
        if f.appended_after.is_some() {
            import_appended(txn, f, &mut report)?;
        } else {
            let seen = Seen { parsed: &parsed_keys, all_prewritten };
            import_file(txn, f, seen, opts, &mut report, &mut conflicts, &mut resolved)?;
        }
        txn.set_file_sync(path, SyncMark { text_hash: f.bytes_hash })?;
        remember_stat(txn, path, f.stat.as_ref(), stored_stats.get(path))?;
    }
    crate::repro::sync_contents(txn, root, &kb.repros)?;
    sync_repros(txn, &kb.repros)?;
    // A managed file the store holds but the disk lacks is kept, not taken for a deletion of
    // every record in it: the next render writes it again.
    let on_disk: HashSet<&str> = kb
        .files
        .iter()
        .map(|f| f.file.path.as_str())
        .chain(kb.skipped.iter().map(|m| m.path.as_str()))
        .collect();
    for path in txn.file_paths()? {
        if !on_disk.contains(path.as_str()) {
            report.warnings.push(Diagnostic::warning(
                &path,
                0,
                "the file is missing on disk; the store keeps its records and 'evokb render' writes it again",
            ));
        }
    }
    if !conflicts.is_empty() {
        return Err(ImportError::Conflicts { conflicts });
    }
    follow_resolved_entries(txn, &resolved)?;
    report.indexed = crate::coverage::index_new_entries(txn, &new_entries)?;
    report.counts = txn.counts()?;
    Ok(report)
}

/// Prepares the records table for what this import brings: trains the store's record
/// dictionary from the parsed records when it has none (see
/// [`WriteTxn::train_record_dict`]), and, when the store holds no record yet (a first import),
/// writes every parsed record with its sync mark now, in key order ([`WriteTxn::put_records`]:
/// in file order the blake3 keys land in random leaves, which redb leaves half full). Returns
/// whether it wrote them all, which [`import_file`] then counts as added without comparing
/// them again.
///
/// This changes nothing of what a first import decides: with no stored record there is no
/// record to compare with, to keep or to delete, and every id is unique ([`read_kb`] checked),
/// so each parsed record is new exactly as the file-by-file pass would have found it.
fn write_fresh_records(txn: &mut WriteTxn, kb: &ReadKb) -> Result<bool, ImportError> {
    let all: Vec<&Record> =
        kb.files.iter().flat_map(|f| f.parsed.records.iter().map(|r| &r.record)).collect();
    txn.train_record_dict(&all)?;
    if txn.has_records()? {
        return Ok(false);
    }
    let marked: Vec<(&Record, SyncMark)> =
        all.into_iter().map(|r| (r, SyncMark { text_hash: r.text_hash() })).collect();
    txn.put_records(&marked)?;
    Ok(true)
}

/// The records an import knows of besides the file at hand.
#[derive(Clone, Copy)]
struct Seen<'a> {
    /// Every record parsed from the files read, sorted.
    parsed: &'a [CaseHash],
    /// Whether [`write_fresh_records`] wrote every record parsed already (a first import).
    all_prewritten: bool,
}

/// How many records an import must add before [`worth_compacting`] says yes.
pub const COMPACT_AFTER_ADDED: usize = 10_000;

/// Whether the store is worth compacting ([`evokb_store::Store::compact`]) after the commit of
/// this import: one that added many records wrote most of the file in one transaction and
/// left free pages behind; an import of a few edits leaves next to none.
pub fn worth_compacting(report: &ImportReport) -> bool {
    report.added >= COMPACT_AFTER_ADDED
}

/// Keeps a file's stat fingerprint (or forgets a stale one, when the file changed while it was
/// read), writing only when it differs from `stored`, the one the store held when the import
/// began (each path is remembered once per import).
fn remember_stat(
    txn: &mut WriteTxn,
    path: &str,
    stat: Option<&FileStat>,
    stored: Option<&FileStat>,
) -> Result<(), ImportError> {
    match stat {
        Some(st) if stored != Some(st) => txn.set_file_stat(path, st)?,
        None if stored.is_some() => txn.clear_file_stat(path)?,
        _ => {}
    }
    Ok(())
}

/// A record of a file that was read which the store places in a file that was skipped (so
/// still holds it, unchanged) is an id defined twice: the error [`read_kb`] gives when it reads
/// both files.
fn check_ids_against_skipped(kb: &ReadKb, txn: &WriteTxn) -> Result<(), ImportError> {
    if kb.skipped.is_empty() {
        return Ok(());
    }
    let skipped: HashSet<&str> = kb.skipped.iter().map(|m| m.path.as_str()).collect();
    let mut diags = Vec::new();
    for f in &kb.files {
        // The lines appended to a file the store held exactly were given ids no stored
        // record has (`renumber_appended`): none is defined anywhere else.
        if f.appended_after.is_some() {
            continue;
        }
        // A record the store places in this same file (which was read, so is not skipped) is
        // not defined twice; only the others are looked up. Looking up every record made an
        // import of a 100k-line log after a one-line append read all 100k of them here.
        let placed: HashSet<CaseHash> = txn
            .file(&f.file.path)?
            .map(|layout| layout.record_keys().collect())
            .unwrap_or_default();
        for pr in &f.parsed.records {
            let rec = &pr.record;
            let key = rec.case_hash();
            if placed.contains(&key) {
                continue;
            }
            let Some(stored) = txn.record(&key)? else { continue };
            if stored.file != rec.file && skipped.contains(&*stored.file) {
                diags.push(Diagnostic::error(
                    &rec.file,
                    pr.line,
                    format!(
                        "duplicate {} id '{}': also defined in {}, which is unchanged since the last import",
                        rec.kind, rec.id, stored.file
                    ),
                ));
            }
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(ImportError::Invalid { diagnostics: diags })
    }
}

/// After `--prefer` settled a conflict on an entry, its INDEX row must say what the entry now
/// says. The row may not have conflicted itself (the person edited only the entry, the store
/// changed both), so it would otherwise keep the losing side's status.
fn follow_resolved_entries(txn: &mut WriteTxn, resolved: &[CaseHash]) -> Result<(), ImportError> {
    for key in resolved {
        let Some(entry) = txn.record(key)? else { continue };
        if entry.kind != Kind::Entry {
            continue;
        }
        let Some(status) = entry.field("status").map(str::trim) else { continue };
        let Some(row) = txn.record_by_id(Kind::IndexRow, &entry.id)? else { continue };
        if row.field("status").is_some_and(|s| s.trim() != status) {
            crate::mutate::set_field_in(txn, &entry.id, Some(Kind::IndexRow), "status", status)
                .map_err(|e| ImportError::Follow { id: entry.id.clone(), reason: e.to_string() })?;
        }
    }
    Ok(())
}

fn import_file(
    txn: &mut WriteTxn,
    f: &ReadFile,
    seen: Seen<'_>,
    opts: ImportOptions,
    report: &mut ImportReport,
    conflicts: &mut Vec<Conflict>,
    resolved: &mut Vec<CaseHash>,
) -> Result<(), ImportError> {
    let path = f.file.path.as_str();
    // Whether the store ends up holding exactly this file: no record kept from the store's side.
    let kept_before = report.kept_store;
    let conflicts_before = conflicts.len();
    let in_file: HashSet<CaseHash> =
        f.parsed.records.iter().map(|r| r.record.case_hash()).collect();
    // The store holds this file as evokb last wrote or took it whole, so each stored record's
    // text is the one its sync mark names: a record whose text in the file is that one is
    // passed over without reading it. Reading, decoding and comparing every record made an
    // import of a 100k-line search log with one line appended take seconds.
    let clean = txn.file_is_clean(path)?;
    for pr in &f.parsed.records {
        let rec = &pr.record;
        let key = rec.case_hash();
        if seen.all_prewritten {
            report.added += 1;
            report.changed.push(key);
            continue;
        }
        let file_hash = rec.text_hash();
        let mark = SyncMark { text_hash: file_hash };
        let synced = txn.record_sync(&key)?.map(|m| m.text_hash);
        if clean && synced == Some(file_hash) {
            continue;
        }
        let Some(stored) = txn.record(&key)? else {
            txn.put_record(rec)?;
            txn.set_record_sync(&key, mark)?;
            report.added += 1;
            report.changed.push(key);
            continue;
        };
        if stored == *rec {
            // Rewritten only when it differs: an insert copies the mark's page even so.
            if synced != Some(file_hash) {
                txn.set_record_sync(&key, mark)?;
            }
            continue;
        }
        let file_changed = synced != Some(file_hash);
        let store_changed = synced != Some(stored.text_hash());
        if !file_changed {
            report.kept_store += 1;
        } else if !store_changed {
            txn.put_record(rec)?;
            report.updated += 1;
            report.changed.push(key);
        } else if opts.prefer == Some(Prefer::File) {
            txn.put_record(rec)?;
            report.updated += 1;
            report.changed.push(key);
            resolved.push(key);
        } else if opts.prefer == Some(Prefer::Store) {
            report.kept_store += 1;
            resolved.push(key);
        } else {
            conflicts.push(Conflict {
                kind: rec.kind,
                id: rec.id.clone(),
                file: path.into(),
                line: pr.line,
                reason: "edited in the file and changed in the store since the last sync".into(),
            });
        }
        txn.set_record_sync(&key, mark)?;
    }
    // Records the store placed in this file that the file no longer has.
    let old_layout = txn.file(path)?;
    let mut kept: HashSet<CaseHash> = HashSet::new();
    if let Some(old) = &old_layout {
        for item in &old.items {
            let LayoutItem::Record(key) = item else {
                continue;
            };
            if in_file.contains(key) || seen.parsed.binary_search(key).is_ok() {
                continue; // still here, or moved to another file
            }
            let Some(stored) = txn.record(key)? else {
                continue;
            };
            let synced = txn.record_sync(key)?.map(|m| m.text_hash);
            let store_changed = synced != Some(stored.text_hash());
            if synced.is_none() || opts.prefer == Some(Prefer::Store) {
                kept.insert(*key);
            } else if !store_changed || opts.prefer == Some(Prefer::File) {
                txn.delete_record(key)?;
                report.removed += 1;
            } else {
                conflicts.push(Conflict {
                    kind: stored.kind,
                    id: stored.id.clone(),
                    file: path.into(),
                    line: 0,
                    reason: "deleted from the file but changed in the store since the last sync"
                        .into(),
                });
            }
        }
    }
    let mut layout = f.parsed.layout.clone();
    if let Some(old) = &old_layout {
        merge_kept(&mut layout, old, &kept);
    }
    txn.put_file(&layout)?;
    if kept.is_empty() && report.kept_store == kept_before && conflicts.len() == conflicts_before {
        txn.mark_file_clean(path)?;
    }
    Ok(())
}

/// Takes the lines appended to a file the store held exactly ([`ReadFile::appended_after`]):
/// each new event is written with its sync mark and appended to the file's layout with one
/// table insert, as `search` appends the events it records. The events before them are the
/// store's already (their content mark matched), so none is read, compared or rewritten.
fn import_appended(
    txn: &mut WriteTxn,
    f: &ReadFile,
    report: &mut ImportReport,
) -> Result<(), ImportError> {
    let path = f.file.path.as_str();
    for pr in &f.parsed.records {
        let key = pr.record.case_hash();
        txn.put_record(&pr.record)?;
        txn.set_record_sync(&key, SyncMark { text_hash: pr.record.text_hash() })?;
        txn.append_to_file(path, &key)?;
        report.added += 1;
        report.changed.push(key);
    }
    // The store holds the file as it is on disk again: the earlier lines were, and the new
    // ones are exactly the records just appended.
    txn.mark_file_clean(path)?;
    report.appended += 1;
    Ok(())
}

/// Puts records the store keeps back into a file's new layout, each after the record that
/// preceded it before, so a store-side addition keeps its place across a reviewer's import.
///
/// Linear in the file's records when nothing is kept (every import of an edited file), and
/// one scan of the new layout per kept record otherwise: asking the new layout whether it held
/// each old record, a scan each, made an import of a 100k-line search log after one appended
/// line take 8.9 s.
fn merge_kept(new: &mut FileLayout, old: &FileLayout, kept: &HashSet<CaseHash>) {
    if kept.is_empty() {
        return;
    }
    let in_new: HashSet<CaseHash> = new.record_keys().collect();
    let mut anchor: Option<CaseHash> = None;
    for item in &old.items {
        let LayoutItem::Record(key) = item else {
            continue;
        };
        if kept.contains(key) {
            let pos = match anchor {
                Some(a) => new
                    .items
                    .iter()
                    .position(|it| *it == LayoutItem::Record(a))
                    .map_or(new.items.len(), |p| p + 1),
                None => new
                    .items
                    .iter()
                    .position(|it| matches!(it, LayoutItem::Record(_)))
                    .unwrap_or(new.items.len()),
            };
            new.items.insert(pos, LayoutItem::Record(*key));
            anchor = Some(*key);
        } else if in_new.contains(key) {
            anchor = Some(*key);
        }
    }
}

fn sync_repros(txn: &mut WriteTxn, repros: &[Record]) -> Result<(), ImportError> {
    let current: HashSet<CaseHash> = repros.iter().map(Record::case_hash).collect();
    for rec in txn.records_of_kind(Kind::Repro)? {
        if !current.contains(&rec.case_hash()) {
            txn.delete_record(&rec.case_hash())?;
        }
    }
    for rec in repros {
        if txn.record(&rec.case_hash())?.as_ref() != Some(rec) {
            txn.put_record(rec)?;
        }
    }
    Ok(())
}

/// A managed file whose rendering differs from the disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// Repository-relative path.
    pub path: String,
    /// What is on disk, `None` when the file is missing (or not UTF-8, shown lossily).
    pub disk: Option<String>,
    /// What the store renders.
    pub rendered: String,
}

/// Compares every file `render` would write with the disk, writing nothing. The derived rows
/// come from `derive`, planned from the same kind of view [`render_in_place`] plans from.
pub fn check(
    root: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
) -> Result<Vec<FileDiff>, RenderError> {
    check_with_progress(root, store, derive, &Silent)
}

/// [`check`], reporting each managed file compared to `progress` (phase `checking files`).
pub fn check_with_progress(
    root: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
    progress: &dyn Progress,
) -> Result<Vec<FileDiff>, RenderError> {
    let txn = store.read()?;
    let plan = derive.plan(&txn)?;
    let view = Overlay::new(&txn, &plan.records, &plan.files);
    // Files the derived rows change are always rendered and compared.
    let mut planned: HashSet<&str> = plan.files.keys().map(String::as_str).collect();
    planned.extend(plan.records.values().map(|r| &*r.file));
    let mut paths = txn.file_paths()?;
    paths.extend(plan.files.keys().filter(|p| !paths.contains(p)).cloned().collect::<Vec<_>>());
    paths.sort();
    let mut out = Vec::new();
    progress.phase("checking files", paths.len() as u64);
    for path in paths {
        progress.advance(1);
        // A file the store has not changed since evokb last wrote or took it whole, and whose
        // stat fingerprint vouches that the disk has not changed either, matches: it is not
        // rendered or read. Everything else is compared byte for byte.
        if !planned.contains(path.as_str()) && txn.file_is_clean(&path)? {
            let now = std::fs::symlink_metadata(root.join(&path))
                .ok()
                .filter(|m| m.file_type().is_file())
                .map(|m| FileStat::from_metadata(&m));
            if let (Some(now), Some(old)) = (now, txn.file_stat(&path)?) {
                if old.vouches_for(&now) {
                    continue;
                }
            }
        }
        let Some(layout) = view.layout(&path)? else { continue };
        let text = crate::render::render_layout(&view, &layout)?;
        let disk = read_optional(root, &path)?;
        if disk.as_deref() != Some(text.as_bytes()) {
            out.push(FileDiff {
                path,
                disk: disk.map(|d| String::from_utf8_lossy(&d).into_owned()),
                rendered: text,
            });
        }
    }
    Ok(out)
}

/// The bytes of the managed file at `rel`, `None` when nothing is there. Anything that is not
/// a regular file inside the root (a FIFO, a directory, a symlink out of the tree) is refused
/// without blocking, as import refuses it.
fn read_optional(root: &Path, rel: &str) -> Result<Option<Vec<u8>>, RenderError> {
    match std::fs::symlink_metadata(root.join(rel)) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(RenderError::Io { path: root.join(rel), source }),
        Ok(_) => {}
    }
    crate::fsread::read_managed(root, rel)
        .map(Some)
        .map_err(|reason| RenderError::NotRegular { path: rel.to_string(), reason })
}

/// What a render wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderReport {
    /// Files written, by path.
    pub written: Vec<String>,
    /// Files that already matched.
    pub unchanged: usize,
}

/// Renders every managed file in place, derived rows included. Refuses, writing nothing, when a
/// file was edited since the last import or render, unless `force` is set.
///
/// The whole render is one write transaction: the derived rows are stored, the files are
/// rendered from that transaction's view, compared with the disk, written, and their sync
/// marks set, all before the commit. Other evokb writers wait meanwhile, so the marks describe
/// exactly the record versions rendered and the bytes written, and a file another render
/// wrote is never taken for a person's edit. A crash after some files are written and before
/// the commit leaves files that match the store; the next import takes them as unchanged
/// records.
pub fn render_in_place(
    root: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
    force: bool,
) -> Result<RenderReport, RenderError> {
    render_in_place_with_progress(root, store, derive, force, &Silent)
}

/// [`render_in_place`], reporting to `progress` each file as it is rendered (`rendering
/// files`), compared with the disk (`comparing files`) and written (`writing files`).
pub fn render_in_place_with_progress(
    root: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
    force: bool,
    progress: &dyn Progress,
) -> Result<RenderReport, RenderError> {
    let mut w = store.write()?;
    let plan = derive.plan(&w)?;
    derive::apply(&mut w, &plan)?;
    let files = render_all_with_progress(&w, progress)?;
    let layout = Layout::of(&w)?;
    let content_mark = |path: &str, bytes: &[u8]| layout.content_mark(path, bytes);
    let mut report = RenderReport::default();
    let mut to_write: Vec<(&RenderedFile, Option<[u8; 32]>)> = Vec::new();
    let mut to_mark: Vec<&RenderedFile> = Vec::new();
    let mut refused = Vec::new();
    progress.phase("comparing files", files.len() as u64);
    for f in &files {
        progress.advance(1);
        let disk = read_optional(root, &f.path)?;
        let disk_hash = disk.as_deref().map(|d| content_mark(&f.path, d));
        let rendered_hash = content_mark(&f.path, f.text.as_bytes());
        let mark = w.file_sync(&f.path)?.map(|m| m.text_hash);
        match disk {
            Some(d) if d == f.text.as_bytes() => {
                report.unchanged += 1;
                if mark != Some(rendered_hash) {
                    to_mark.push(f);
                }
            }
            Some(_) if !force && mark != disk_hash => {
                refused.push(f.path.clone());
            }
            _ => to_write.push((f, disk_hash)),
        }
    }
    if !refused.is_empty() {
        return Err(RenderError::EditedOnDisk { files: refused });
    }
    let mut record_marks: Vec<(CaseHash, SyncMark)> = Vec::new();
    for f in to_write.iter().map(|(f, _)| f).chain(&to_mark) {
        for item in &f.layout.items {
            if let LayoutItem::Record(key) = item {
                if let Some(rec) = w.record(key)? {
                    record_marks.push((*key, SyncMark { text_hash: rec.text_hash() }));
                }
            }
        }
    }
    let tmp_dir = evokb_store::store_dir(root).join("tmp");
    crate::render::clean_stale_temporaries(&tmp_dir);
    progress.phase("writing files", to_write.len() as u64);
    for (f, seen) in &to_write {
        progress.advance(1);
        // A person may save the file between the comparison above and this write: look again
        // right before replacing it, and refuse rather than overwrite their edit. Files
        // written so far match the store, so the next import takes them as unchanged.
        let now = read_optional(root, &f.path)?.map(|d| content_mark(&f.path, &d));
        if now != *seen && !force {
            return Err(RenderError::EditedOnDisk { files: vec![f.path.clone()] });
        }
        write_atomic(&root.join(&f.path), f.text.as_bytes(), Some(&tmp_dir))?;
        report.written.push(f.path.clone());
    }
    for f in to_write.iter().map(|(f, _)| f).chain(&to_mark) {
        w.set_file_sync(&f.path, SyncMark { text_hash: content_mark(&f.path, f.text.as_bytes()) })?;
        // Taken after the write, so racy until the clock moves on: the next import reads the
        // file once more and then trusts the fingerprint it takes.
        match FileStat::of(&root.join(&f.path)) {
            Some(st) => w.set_file_stat(&f.path, &st)?,
            None => w.clear_file_stat(&f.path)?,
        }
    }
    for (key, mark) in record_marks {
        w.set_record_sync(&key, mark)?;
    }
    // Every file now holds exactly what the store renders (written, re-marked or already equal).
    for f in &files {
        w.mark_file_clean(&f.path)?;
    }
    w.commit()?;
    Ok(report)
}

/// Renders every managed file under `out`, at the same relative paths, derived rows included,
/// and writes the repro scripts the store keeps (see [`crate::repro`]).
/// The derived rows are stored (as an in-place render would store them); sync marks are not
/// touched, because the knowledge base itself was not written.
pub fn render_to(
    out: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
) -> Result<Vec<String>, RenderError> {
    render_to_with_progress(out, store, derive, &Silent)
}

/// [`render_to`], reporting to `progress` each file as it is rendered (`rendering files`) and
/// written (`writing files`).
pub fn render_to_with_progress(
    out: &Path,
    store: &Store,
    derive: &dyn DeriveRows,
    progress: &dyn Progress,
) -> Result<Vec<String>, RenderError> {
    let mut w = store.write()?;
    let plan = derive.plan(&w)?;
    derive::apply(&mut w, &plan)?;
    let layouts = w.files()?;
    progress.phase("reading records", 0);
    let records = Held::read(&w, &layouts)?;
    // Every file renders, or nothing is written: a dangling reference is found before the
    // first file is made.
    if let Some(err) = records.dangling(&layouts) {
        return Err(err);
    }
    let repros = crate::repro::contents_to_write(&w)?;
    progress.phase("writing files", layouts.len() as u64);
    // Written as one batch: each file still replaces its target atomically, with one flush of
    // the file system for all of them rather than two fsyncs per file (5,000 files at 100k).
    // Each file is rendered by the thread that writes it, just before it is written.
    let mut paths: Vec<&str> = layouts.iter().map(|l| l.path.as_str()).collect();
    paths.extend(repros.iter().map(|(p, _)| p.as_str()));
    let fill = |i: usize, buf: &mut Vec<u8>| match layouts.get(i) {
        Some(layout) => {
            // The buffer is empty, so it is text; it goes back with its capacity.
            let mut text = String::from_utf8(std::mem::take(buf)).unwrap_or_default();
            let rendered = records.render(layout, &mut text);
            *buf = text.into_bytes();
            rendered
        }
        None => {
            buf.extend_from_slice(&repros[i - layouts.len()].1);
            Ok(())
        }
    };
    crate::render::write_all_atomic_with(out, &paths, &fill, progress)?;
    let written = paths.iter().map(|p| p.to_string()).collect();
    w.commit()?;
    crate::render::drop_elsewhere((records, layouts));
    Ok(written)
}
