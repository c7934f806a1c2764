//! The redb database: table definitions, opening, and read and write transactions.
//!
//! The database is opened in redb's multi-writer mode so that any number of `evokb` processes
//! can hold it at once. Only one write transaction runs at a time across processes; a writer
//! that finds the lock taken retries with backoff for a bounded wait instead of failing.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

use crate::codec;
use crate::error::{BusyError, OpenError, StoreError};
use crate::filestate::FileStat;
use crate::index::Indexer;
use crate::record::{CaseHash, FileLayout, Kind, LayoutItem, Record, Segment, SyncMark};

/// Records by case hash.
const RECORDS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("records");
/// The text hash of each record as last imported or rendered in place.
const RECORD_SYNC: TableDefinition<[u8; 32], [u8; 32]> = TableDefinition::new("record_sync");
/// File layouts by repository-relative path.
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
/// The byte hash of each managed file as last imported or rendered in place.
const FILE_SYNC: TableDefinition<&str, [u8; 32]> = TableDefinition::new("file_sync");
/// Records appended to a file after its stored layout, in order: `(path, sequence)` → case
/// hash. A search appends its event here, so recording a hit never rewrites the search log's
/// layout; [`WriteTxn::put_file`] folds the tail back into the layout.
const FILE_TAIL: TableDefinition<(&str, u64), [u8; 32]> = TableDefinition::new("file_tail");
/// The stat fingerprint of each managed file as last imported, rendered or appended to (see
/// [`crate::filestate`]); machine-local, like the sync marks, and not part of the digest.
const FILE_STAT: TableDefinition<&str, [u8; crate::filestate::FILE_STAT_LEN]> =
    TableDefinition::new("file_stat");
/// The records of each kind: `(kind tag, case hash)` → nothing. Derived from the records table
/// (maintained by [`WriteTxn::put_record`] and [`WriteTxn::delete_record`]), so a command that
/// needs the repro scripts or the search events reads those, not every record.
const BY_KIND: TableDefinition<(&str, [u8; 32]), ()> = TableDefinition::new("idx.by_kind");
/// The META key present once [`BY_KIND`] holds every record (stores written before it existed
/// get it built by their next write transaction).
const BY_KIND_READY: &str = "by_kind.v1";
/// Files whose store content may differ from what is on disk: a record, the layout or the tail
/// changed since evokb last wrote the file or took all of it (`render`, a full import of the
/// file, an append). `render --check` skips a file that is not here and whose stat
/// fingerprint vouches that the disk is unchanged too.
const FILE_DIRTY: TableDefinition<&str, ()> = TableDefinition::new("file_dirty");
/// The META key present once [`FILE_DIRTY`] is kept (older stores get every file marked by
/// their next write transaction).
const DIRTY_READY: &str = "file_dirty.v1";
/// Store-wide settings, such as the format version.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Answers a higher layer derived from records and keeps to save computing them again (the
/// lint verdicts of `evolve`), keyed by (namespace, record key). Each value must say itself
/// what it was derived from, as the store does not keep them in step with the records: they
/// are not part of the digest, not checked by `verify`, never rendered, and a missing or
/// stale one only costs the recomputation.
const DERIVED: TableDefinition<(&str, [u8; 32]), &[u8]> = TableDefinition::new("derived.cache");
/// The META key holding the number of [`BY_KIND`] keys of each kind (codec-encoded
/// `Vec<(kind tag, count)>`, kinds without keys left out), kept by every write that adds or
/// removes one, so [`ReadTxn::counts`] reads one value instead of counting every key (230k at
/// 100k entries: a fifth of an import after a one-file edit). Absent until the first commit
/// that finds the kind index ready, and removed whenever the kind index is rebuilt.
const KIND_COUNTS: &str = "kind_counts.v1";
/// The META key of the dictionary records are packed with ([`codec::RecordDict`]): written
/// once, by the first import large enough to train it, and never replaced or removed, since
/// every packed record needs it.
const RECORD_DICT_KEY: &str = "records.dict.v1";
/// How many records an import must bring before a dictionary is trained from them: fewer give
/// zstd too little to find what records share, and a small store gains little from packing.
pub const RECORD_DICT_MIN_RECORDS: usize = 1000;
/// How many sample bytes a dictionary is trained from (training time grows with them).
const RECORD_DICT_SAMPLE_BYTES: usize = 2 << 20;

/// The record dictionary of one store, once a handle has seen it committed (it never changes
/// afterwards, so a handle keeps it for its life).
type DictSlot = Arc<std::sync::OnceLock<Arc<codec::RecordDict>>>;

/// A named table of typed values keyed by bytes, for data that is never rendered to markdown:
/// error registries, iteration logs, task timelines. The store encodes values with the same
/// versioned codec as records and includes every collection in the digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collection {
    table: &'static str,
}

impl Collection {
    /// A collection stored in the redb table `coll.<name>`; `table` must be that full name.
    pub const fn new(table: &'static str) -> Collection {
        Collection { table }
    }

    /// The redb table name.
    pub fn table(&self) -> &'static str {
        self.table
    }

    fn def(&self) -> TableDefinition<'static, &'static [u8], &'static [u8]> {
        TableDefinition::new(self.table)
    }
}

const COLLECTION_PREFIX: &str = "coll.";

/// The database format this build writes and reads. Format 2 may hold packed records
/// ([`codec::PACKED_FORMAT`]), which a format-1 build cannot read; this build reads format-1
/// stores and raises them to 2 with its first write. Format 3 keeps the event counters
/// ([`crate::events`]) in step with the search events: a format-2 build would append events
/// without raising the events generation and leave counters that look current but are not,
/// so it refuses a format-3 store; a format-2 store has no counters, which this build counts
/// afresh. Format 4 stores file layouts in chunks (`crate::layouts`): a format-3 build would
/// read a chunked layout's marker as a damaged value, so it refuses a format-4 store; this
/// build still reads the whole layouts of a format-3 store and chunks each as it is written.
pub const STORE_FORMAT: u32 = 4;
const FORMAT_KEY: &str = "format";

/// The database file name inside the store directory.
pub const DB_FILE: &str = "evokb.redb";

/// How long a writer waits for another process's write transaction by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(30);

/// The most memory redb's page cache of one handle holds unless the opener asks for another
/// size ([`Store::open_with_cache`]). redb's own default (1 GiB, half of it for a write
/// transaction's pages) made every whole-store pass pay for fresh memory: a `verify` at 100k
/// entries filled 1 GB of cache with pages it read once, and the kernel's page zeroing was a
/// third of its time; a facet query spent as much zeroing cache pages as reading them. With
/// 64 MiB the branch pages of every table and the pages a one-record write touches still fit,
/// and memory is reused (measured at 100k entries, release build: verify 7.9 → 5.1 s CPU and
/// 1.05 GB → 0.70 GB; a fresh import 1.27 GB → 0.84 GB peak for about 10% more CPU).
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// An open store.
pub struct Store {
    db: Handle,
    /// The record dictionary, once seen committed.
    dict: DictSlot,
    /// Builds facet rows and search documents: the layer that knows the file formats.
    indexer: Arc<dyn Indexer>,
    lock_wait: Duration,
    dir: PathBuf,
    /// Whether this handle found the file sound (a full check passed, or the file is unchanged
    /// since a checked handle last closed it); such a handle records the file's stamp when it
    /// closes.
    trusted: bool,
    /// The database file's stamp just before this handle opened it (opening a read-write
    /// handle writes to the file, so the stamp is taken first).
    opened_stamp: Option<String>,
    /// The first bytes of the database file as this read-write handle found them, and whether
    /// the handle refused the file as damaged: redb's open marks the header (its recovery
    /// flag), so a refused file gets these bytes back when the handle closes, and a refused
    /// command leaves the damaged file exactly as it found it.
    found_header: Option<Vec<u8>>,
    refused: bool,
}

/// How much of the start of the database file a read-write handle keeps to put back when it
/// refuses the file: redb's header region (the super-header and its two commit slots).
const HEADER_KEEP: usize = 8192;

fn read_prefix(path: &Path, n: usize) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match f.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(_) => return None,
        }
    }
    buf.truncate(got);
    Some(buf)
}

/// Writes `saved` back over the start of the file at `path` if it differs (best effort: the
/// file is damaged either way, and the command has already failed with that message).
fn restore_prefix(path: &Path, saved: &[u8]) {
    use std::io::{Seek, SeekFrom, Write};
    if read_prefix(path, saved.len()).as_deref() == Some(saved) {
        return;
    }
    if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(path) {
        if f.seek(SeekFrom::Start(0)).is_ok() && f.write_all(saved).is_ok() {
            let _ = f.sync_all();
        }
    }
}

/// A read-write handle, or a read-only one that never writes to the file (not even on close,
/// which a read-write handle in multi-writer mode does).
enum Handle {
    ReadWrite(redb::Database),
    ReadOnly(redb::ReadOnlyDatabase),
    /// Only while the store is being dropped.
    Closed,
}

/// Records per batch that [`WriteTxn::put_records`] encodes ahead of inserting them.
const PUT_BATCH: usize = 1024;

/// The file next to the database that holds its stamp as a checked handle last left it.
const CHECKED_FILE: &str = "checked";

/// What identifies one state of the database file: device, inode, length and change time. A
/// change made by anything but redb through a checked handle (a copy, `dd`, a restore, an
/// editor) gives the file a new change time, which the process cannot set back.
fn file_stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!(
            "evokb.checked.v1 {} {} {} {}.{:09}\n",
            meta.dev(),
            meta.ino(),
            meta.len(),
            meta.ctime(),
            meta.ctime_nsec()
        ))
    }
    #[cfg(not(unix))]
    {
        let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
        Some(format!("evokb.checked.v1 {} {}\n", meta.len(), modified.as_nanos()))
    }
}

/// How many bytes the checked file holds: a stamp padded with spaces, so that writing one over
/// another leaves nothing of the longer one behind.
const CHECKED_LEN: usize = 128;

/// Writes the stamp of the database file in `dir` to the checked file. Only a handle that found
/// the file sound calls this, after its own writes (its open, each commit, its close), so other
/// processes can skip the full check while the file holds nothing but what checked handles
/// wrote.
///
/// The stamp is written over the old one in place, one `write` of [`CHECKED_LEN`] bytes, not
/// through a temporary file and a rename: a search writes three stamps, and the renames cost it
/// 0.2 to 0.3 ms each on this machine's disk. A reader that catches a write half done reads a
/// stamp that matches no state of the file, and runs the full check: the stamp only ever lets
/// a check be skipped, so a torn one costs time, never a check that should have run.
fn record_stamp(dir: &Path) {
    use std::io::Write;
    let Some(stamp) = file_stamp(&dir.join(DB_FILE)) else { return };
    let padded = format!("{:<width$}", stamp.trim_end(), width = CHECKED_LEN - 1) + "\n";
    let path = dir.join(CHECKED_FILE);
    // A stamp that does not fit, or a failed write, leaves no stamp: the next handle checks.
    let written = padded.len() == CHECKED_LEN
        && std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .and_then(|mut f| f.write_all(padded.as_bytes()))
            .is_ok();
    if !written {
        let _ = std::fs::remove_file(&path);
    }
}

/// The stamp the checked file records, without its padding.
fn recorded_stamp(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(CHECKED_FILE)).ok()?;
    Some(text.trim_end().to_string())
}

/// What [`Store::ensure_checked`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutcome {
    /// The file is unchanged since a checked handle last closed it; no pages were read.
    Unchanged,
    /// The full integrity check ran and passed.
    Verified,
}

impl Drop for Store {
    fn drop(&mut self) {
        let db = std::mem::replace(&mut self.db, Handle::Closed);
        let writable = matches!(db, Handle::ReadWrite(_));
        // Closing a read-write handle writes to the file, so the stamp is taken after it.
        drop(db);
        if self.refused {
            if let Some(saved) = &self.found_header {
                restore_prefix(&self.dir.join(DB_FILE), saved);
            }
            return;
        }
        if writable && self.trusted {
            self.record_stamp();
        }
    }
}

/// What a search returned, and whether the index had to be rebuilt first.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// The results, best first.
    pub hits: Vec<crate::search::SearchHit>,
    /// How many records matched in all (`hits` holds at most the query's `top` of them).
    pub total: usize,
    /// Why the index was rebuilt, when it was (missing, out of date, damaged).
    pub rebuilt: Option<IndexRebuild>,
}

/// A derived index that was found missing, behind or damaged and rebuilt from the records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRebuild {
    /// Which index: `search index` or `facet index`.
    pub index: &'static str,
    /// What was wrong, completing "the index …": `was missing`, `was damaged (…)`.
    pub reason: String,
    /// How many records it was rebuilt from.
    pub records: usize,
}

impl std::fmt::Display for IndexRebuild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = if self.records == 1 { "" } else { "s" };
        write!(f, "the {} {}; rebuilt it from {} record{s}", self.index, self.reason, self.records)
    }
}

/// The META key of the search generation: the generation the search index must carry (as
/// its commit payload) to answer for the records. A fresh, never reused number is taken by
/// every commit that changes a searchable record ([`fresh_generation`]).
const SEARCH_GEN_KEY: &str = "search_gen";
/// The META key of the *base* search generation: while [`SEARCH_PENDING`] holds keys, the
/// generation the index was at when the first of them was left for later.
const SEARCH_BASE_KEY: &str = "search_base";
/// Searchable records changed since the search index was at the base generation
/// ([`SEARCH_BASE_KEY`]) and not yet replaced in it: a write that changes a few searchable
/// records puts their keys here, in its own transaction, instead of committing them to
/// tantivy (a one-document tantivy commit was most of a `set` or a `queue confirm`). The index
/// at the base generation with these documents replaced is the records' index; the next reader
/// of the index replaces them first ([`Store::search`], [`WriteTxn::search_sharing`]).
const SEARCH_PENDING: TableDefinition<[u8; 32], ()> = TableDefinition::new("search_pending");
/// The most pending keys a write leaves to the next reader of the search index: past them, the
/// write replaces all of them (and its own) in the index itself, so what a search may have to
/// catch up on stays bounded.
const SEARCH_DEFER_MAX: u64 = 256;
/// The most changed search documents a commit replaces one by one (see `WriteTxn::sync_search`).
const SEARCH_APPLY_MAX: usize = 5000;
const SEARCH_DIR: &str = "search";

/// A search generation that no commit has used: a random number (never 0, the generation of
/// no index, and never `old`). Generations are not counted up, because a write whose
/// transaction is dropped after it brought the index to its generation (an import that fails
/// after [`WriteTxn::update_indexes`], a commit that fails) leaves the index at a number the
/// records never reach: counted up, the next commit would reach it and take that index, which
/// holds the dropped write's documents, for its own.
fn fresh_generation(old: u64) -> u64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let gen =
        std::collections::hash_map::RandomState::new().hash_one((old, nanos, std::process::id()));
    if gen == 0 || gen == old {
        old.wrapping_add(1).max(1)
    } else {
        gen
    }
}

impl Store {
    /// Creates a new, empty store in directory `dir` (created if missing).
    pub fn create(dir: &Path, indexer: Arc<dyn Indexer>) -> Result<Store, OpenError> {
        let path = dir.join(DB_FILE);
        if path.exists() {
            return Err(OpenError::AlreadyExists { path });
        }
        std::fs::create_dir_all(dir)
            .map_err(|source| OpenError::Io { path: dir.into(), source })?;
        // The store is a local index of the markdown, which is what git tracks and merges; a
        // committed binary database would conflict on every merge.
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, "*\n")
                .map_err(|source| OpenError::Io { path: ignore.clone(), source })?;
        }
        let db = builder(DEFAULT_CACHE_BYTES)
            .create(&path)
            .map_err(|source| OpenError::Database { path: path.clone(), source })?;
        let store = Store {
            indexer,
            dict: DictSlot::default(),
            db: Handle::ReadWrite(db),
            lock_wait: DEFAULT_LOCK_WAIT,
            dir: dir.into(),
            trusted: true,
            opened_stamp: None,
            found_header: None,
            refused: false,
        };
        let mut txn = store.write()?;
        txn.init_tables()?;
        txn.commit()?;
        Ok(store)
    }

    /// Opens the store in directory `dir`.
    ///
    /// redb trusts the file on open and may panic on a page damaged outside redb; such a
    /// panic is caught here and reported as [`StoreError::Damaged`].
    pub fn open(dir: &Path, indexer: Arc<dyn Indexer>) -> Result<Store, OpenError> {
        Store::open_with_cache(dir, indexer, DEFAULT_CACHE_BYTES)
    }

    /// [`Store::open`] with a page cache of at most `cache_bytes` (see
    /// [`DEFAULT_CACHE_BYTES`]), for a command that reads or writes each page once and would
    /// only fill a larger cache with copies it never reads again.
    pub fn open_with_cache(
        dir: &Path,
        indexer: Arc<dyn Indexer>,
        cache_bytes: usize,
    ) -> Result<Store, OpenError> {
        let path = dir.join(DB_FILE);
        if !path.is_file() {
            return Err(OpenError::NotFound { path: dir.into() });
        }
        let opened_stamp = file_stamp(&path);
        let found_header = read_prefix(&path, HEADER_KEEP);
        let opened = catch_damage(&path, || {
            let db =
                builder(cache_bytes).open(&path).map_err(|source| open_error(&path, source))?;
            let store = Store {
                indexer: indexer.clone(),
                dict: DictSlot::default(),
                db: Handle::ReadWrite(db),
                lock_wait: DEFAULT_LOCK_WAIT,
                dir: dir.into(),
                trusted: false,
                opened_stamp,
                found_header: found_header.clone(),
                refused: false,
            };
            store.check_format()?;
            Ok(store)
        });
        if let (Err(_), Some(saved)) = (&opened, &found_header) {
            restore_prefix(&path, saved);
        }
        opened
    }

    /// Opens the store in directory `dir` for reading only. Such a handle shares the file with
    /// writers in other processes and never writes to it; [`Store::write`] fails. A store that
    /// needs recovery after a crash cannot be opened this way: use [`Store::open`].
    pub fn open_read_only(dir: &Path, indexer: Arc<dyn Indexer>) -> Result<Store, OpenError> {
        Store::open_read_only_with_cache(dir, indexer, DEFAULT_CACHE_BYTES)
    }

    /// [`Store::open_read_only`] with a page cache of at most `cache_bytes` (see
    /// [`Store::open_with_cache`]).
    pub fn open_read_only_with_cache(
        dir: &Path,
        indexer: Arc<dyn Indexer>,
        cache_bytes: usize,
    ) -> Result<Store, OpenError> {
        let path = dir.join(DB_FILE);
        if !path.is_file() {
            return Err(OpenError::NotFound { path: dir.into() });
        }
        catch_damage(&path, || {
            let db = builder(cache_bytes)
                .open_read_only(&path)
                .map_err(|source| open_error(&path, source))?;
            let store = Store {
                indexer: indexer.clone(),
                dict: DictSlot::default(),
                db: Handle::ReadOnly(db),
                lock_wait: DEFAULT_LOCK_WAIT,
                dir: dir.into(),
                trusted: false,
                opened_stamp: None,
                found_header: None,
                refused: false,
            };
            store.check_format()?;
            Ok(store)
        })
    }

    fn check_format(&self) -> Result<(), OpenError> {
        let found = self.read()?.format_version()?;
        if found > STORE_FORMAT {
            let path = self.dir.join(DB_FILE);
            return Err(OpenError::UnsupportedFormat { path, found, supported: STORE_FORMAT });
        }
        Ok(())
    }

    /// Checks the database file with redb's integrity check: the checksum of every page of the
    /// committed trees is verified (this reads the whole file once, under the write lock) and
    /// the allocator state is compared with the one rebuilt from the trees.
    ///
    /// Returns `Ok(true)` when the file is sound, `Ok(false)` when only redb's allocator state
    /// was stale and redb rebuilt it (the trees verified, so no data was touched), and
    /// [`StoreError::Damaged`] when a page fails its checksum. Because the store commits in two
    /// phases (multi-writer mode), redb never falls back to an older commit here: a damaged
    /// file is reported, not rolled back, and nothing is written to it.
    pub fn check_integrity(&mut self) -> Result<bool, StoreError> {
        let path = self.dir.join(DB_FILE);
        let Handle::ReadWrite(db) = &mut self.db else { return Err(StoreError::ReadOnly) };
        let checked =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| db.check_integrity()));
        let checked = match checked {
            Ok(c) => c,
            Err(panic) => {
                self.refused = true;
                return Err(StoreError::Damaged {
                    path: path.clone(),
                    detail: format!("redb's integrity check crashed ({})", panic_text(&*panic)),
                });
            }
        };
        let clean = match checked {
            Ok(clean) => clean,
            Err(redb::DatabaseError::Storage(redb::StorageError::Corrupted(finding))) => {
                let finding = format!("a page fails its checksum (redb: {finding})");
                let detail = describe_damage(&path, &finding);
                self.refused = true;
                return Err(StoreError::Damaged { path, detail });
            }
            Err(source) => return Err(StoreError::Check { path, source: Box::new(source) }),
        };
        self.read()?.format_version()?;
        self.trusted = true;
        Ok(clean)
    }

    /// The check a write handle gets before anything is written: when the file, as this
    /// handle found it just before opening it, is unchanged since a checked handle last closed
    /// it (same device, inode, length and change time as the stamp in `.evokb/checked`),
    /// nothing more; otherwise the full [`Store::check_integrity`] and a decode of every record
    /// and layout (a value that does not decode is [`StoreError::Corrupted`]). This keeps the cost of a
    /// write (a search records a hit) independent of the store's size while any outside change
    /// to the file is still checked.
    pub fn ensure_checked(&mut self) -> Result<CheckOutcome, StoreError> {
        let stamp = self.opened_stamp.as_deref().map(str::trim_end);
        let recorded = recorded_stamp(&self.dir);
        if stamp.is_some() && stamp == recorded.as_deref() {
            self.trusted = true;
            // The open itself wrote to the file.
            self.record_stamp();
            return Ok(CheckOutcome::Unchanged);
        }
        self.check_integrity()?;
        // The pages are what redb wrote; the values must also be what evokb wrote.
        self.trusted = false;
        let decoded = self.read().and_then(|txn| {
            txn.records()?;
            txn.files()?;
            Ok(())
        });
        if let Err(err) = decoded {
            self.refused = true;
            return Err(err);
        }
        self.trusted = true;
        self.record_stamp();
        Ok(CheckOutcome::Verified)
    }

    /// Writes the database file's current stamp (best effort: without it the next write
    /// handle runs the full check).
    fn record_stamp(&self) {
        record_stamp(&self.dir);
    }

    /// Gives the database file's free pages back to the file system, when no other process
    /// has a transaction open: redb moves pages toward the start of the file and truncates it,
    /// through ordinary two-phase commits, so a crash meanwhile leaves the last commit intact.
    /// A large import leaves much of the file free (pages its one transaction wrote and
    /// replaced: about 180 MB of 570 MB at 100k entries before values were packed), which only
    /// this gives back. Returns whether anything was moved; `false` too when another process
    /// holds a transaction (the space stays reusable, and a later compaction can take it).
    pub fn compact(&mut self) -> Result<bool, StoreError> {
        let path = self.dir.join(DB_FILE);
        let Handle::ReadWrite(db) = &mut self.db else { return Err(StoreError::ReadOnly) };
        match db.compact() {
            Ok(done) => {
                if self.trusted {
                    self.record_stamp();
                }
                Ok(done)
            }
            Err(redb::CompactionError::TransactionInProgress) => Ok(false),
            Err(err) => Err(StoreError::Compact { path, source: Box::new(err.into()) }),
        }
    }

    /// Sets how long a write waits for another process's write transaction.
    pub fn set_lock_wait(&mut self, wait: Duration) {
        self.lock_wait = wait;
    }

    /// Begins a read transaction. Reads never wait for writers.
    pub fn read(&self) -> Result<ReadTxn, StoreError> {
        let txn = match &self.db {
            Handle::ReadWrite(db) => db.begin_read()?,
            Handle::ReadOnly(db) => db.begin_read()?,
            Handle::Closed => return Err(StoreError::ReadOnly),
        };
        Ok(ReadTxn { txn, indexer: self.indexer.clone(), dict: self.dict.clone() })
    }

    /// Begins a write transaction, waiting with backoff while another process writes.
    ///
    /// The wait polls with a short, jittered, exponentially growing pause capped at a few
    /// milliseconds: long pauses leave the lock idle after its holder commits, which with many
    /// writers costs more than the polling does.
    pub fn write(&self) -> Result<WriteTxn, StoreError> {
        let Handle::ReadWrite(db) = &self.db else { return Err(StoreError::ReadOnly) };
        let start = Instant::now();
        let mut pause = Duration::from_micros(100);
        let mut jitter = u64::from(std::process::id()) | 1;
        loop {
            match db.try_begin_write() {
                Ok(txn) => {
                    let mut w = WriteTxn {
                        txn,
                        indexer: self.indexer.clone(),
                        dict: self.dict.clone(),
                        new_dict: None,
                        dirty: Default::default(),
                        dirty_search: Default::default(),
                        search_dir: self.dir.join(SEARCH_DIR),
                        stamp_dir: self.trusted.then(|| self.dir.clone()),
                        marked_dirty: Default::default(),
                        kind_delta: Vec::new(),
                        events_changed: false,
                    };
                    w.ensure_format()?;
                    w.ensure_by_kind()?;
                    w.ensure_dirty_tracking()?;
                    w.ensure_query_index()?;
                    return Ok(w);
                }
                Err(redb::TransactionError::WouldBlock) => {
                    let waited = start.elapsed();
                    if waited >= self.lock_wait {
                        let waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
                        return Err(BusyError { waited_ms }.into());
                    }
                    jitter ^= jitter << 13;
                    jitter ^= jitter >> 7;
                    jitter ^= jitter << 17;
                    let sleep = pause + Duration::from_micros(jitter % 200);
                    std::thread::sleep(sleep.min(self.lock_wait - waited));
                    pause = (pause * 2).min(Duration::from_millis(4));
                }
                Err(err) => return Err(err.into()),
            }
        }
    }
}

impl Store {
    /// Runs a full-text search. When the index is missing, behind the records, or damaged (a
    /// segment file missing or truncated, `meta.json` unreadable, a search that fails or
    /// crashes inside tantivy), it is rebuilt from the records first, under the write lock,
    /// and the outcome says why.
    pub fn search(&self, q: &crate::search::SearchQuery) -> Result<SearchOutcome, StoreError> {
        let dir = self.dir.join(SEARCH_DIR);
        let r = self.read()?;
        let gen = r.search_generation()?;
        let reason = match try_search(&dir, gen, q, &|key| r.search_doc(key)) {
            Ok(found) => {
                return Ok(SearchOutcome { hits: found.hits, total: found.total, rebuilt: None })
            }
            Err(reason) => reason,
        };
        drop(r);
        let mut w = self.write()?;
        let gen = w.search_generation()?;
        // Another process may have rebuilt it, or caught it up, while this one waited for the
        // lock.
        if let Ok(found) = try_search(&dir, gen, q, &|key| w.search_doc(key)) {
            return Ok(SearchOutcome { hits: found.hits, total: found.total, rebuilt: None });
        }
        // Documents left pending by recent writes: replaced now, which is no damage, and
        // nothing to say.
        if w.catch_up_search()? {
            let gen = w.search_generation()?;
            if let Ok(found) = try_search(&dir, gen, q, &|key| w.search_doc(key)) {
                w.commit()?;
                return Ok(SearchOutcome { hits: found.hits, total: found.total, rebuilt: None });
            }
        }
        // The rebuilt index takes in every pending document: it gets a generation of its own,
        // committed with the pending keys gone.
        let gen = w.restart_search_generation()?;
        let (idx, n) = w.rebuild_search(&dir, gen)?;
        let found = idx.search(q, &|key| w.search_doc(key))?;
        drop(idx);
        w.commit()?;
        let rebuilt = IndexRebuild { index: "search index", reason, records: n };
        Ok(SearchOutcome { hits: found.hits, total: found.total, rebuilt: Some(rebuilt) })
    }
}

impl Store {
    /// Rebuilds the facet index from the records in one write transaction, because it was
    /// found damaged for `reason` (completing "the facet index …").
    pub fn rebuild_facet_index(&self, reason: String) -> Result<IndexRebuild, StoreError> {
        let mut w = self.write()?;
        w.rebuild_index()?;
        let records = w.records()?.iter().filter(|r| r.kind == Kind::Entry).count();
        w.commit()?;
        Ok(IndexRebuild { index: "facet index", reason, records })
    }

    /// Rebuilds both derived indexes from the records, in one write transaction: the facet
    /// tables and the search index. Returns what was rebuilt (the facet index first).
    pub fn rebuild_indexes(&self) -> Result<[IndexRebuild; 2], StoreError> {
        let mut w = self.write()?;
        w.rebuild_index()?;
        let entries = w.records()?.iter().filter(|r| r.kind == Kind::Entry).count();
        let gen = w.restart_search_generation()?;
        let (_, docs) = w.rebuild_search(&self.dir.join(SEARCH_DIR), gen)?;
        w.commit()?;
        let reason = "was rebuilt on request".to_string();
        Ok([
            IndexRebuild { index: "facet index", reason: reason.clone(), records: entries },
            IndexRebuild { index: "search index", reason, records: docs },
        ])
    }
}

/// Searches the index in `dir` if it is at generation `gen` and sound; else says what is wrong
/// with it, completing "the search index …".
fn try_search(
    dir: &Path,
    gen: u64,
    q: &crate::search::SearchQuery,
    resolve: &dyn Fn(&CaseHash) -> Result<Option<crate::search::SearchDoc>, String>,
) -> Result<crate::search::SearchResults, String> {
    with_sound_index(dir, gen, |idx| idx.search(q, resolve)).map_err(|trouble| match trouble {
        IndexTrouble::Unusable(reason) => reason,
        IndexTrouble::Failed(e) => format!("was damaged (a search failed: {e})"),
        IndexTrouble::Crashed(panic) => {
            format!("was damaged (reading it crashed inside tantivy: {panic})")
        }
    })
}

/// Why the search index could not answer (see [`with_sound_index`]).
enum IndexTrouble {
    /// It could not be used at all: why, completing "the search index …".
    Unusable(String),
    /// It opened at the right generation, and then the read failed.
    Failed(crate::search::SearchError),
    /// Reading it panicked inside tantivy (which a damaged index can cause): the panic's text.
    Crashed(String),
}

/// Runs `read` on the search index in `dir` if it opens and is at generation `gen`, the one
/// way every reader of the index opens it: a panic inside tantivy counts as damage.
fn with_sound_index<T>(
    dir: &Path,
    gen: u64,
    read: impl FnOnce(&crate::search::SearchIndex) -> Result<T, crate::search::SearchError>,
) -> Result<T, IndexTrouble> {
    use crate::search::SearchIndex;
    let attempt =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match SearchIndex::open(dir) {
            Ok(idx) if idx.generation() == Some(gen) => read(&idx).map_err(IndexTrouble::Failed),
            Ok(_) => Err(IndexTrouble::Unusable("was behind the records".to_string())),
            Err(_) if !dir.join("meta.json").exists() => {
                Err(IndexTrouble::Unusable("was missing".to_string()))
            }
            Err(e) => Err(IndexTrouble::Unusable(format!("was damaged ({e})"))),
        }));
    attempt.unwrap_or_else(|panic| Err(IndexTrouble::Crashed(panic_text(&*panic))))
}

/// The error of a refused open: [`StoreError::Damaged`] when redb's refusal means the file is
/// damaged, else [`OpenError::Database`].
fn open_error(path: &Path, source: redb::DatabaseError) -> OpenError {
    match crate::error::damage_on_open(&source) {
        Some(detail) => StoreError::Damaged { path: path.into(), detail }.into(),
        None => OpenError::Database { path: path.into(), source },
    }
}

/// Runs `open`, turning a panic inside redb (which a damaged file can cause) into
/// [`StoreError::Damaged`].
fn catch_damage(
    path: &Path,
    open: impl FnOnce() -> Result<Store, OpenError>,
) -> Result<Store, OpenError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(open)) {
        Ok(res) => res,
        Err(panic) => {
            let finding = format!("reading it crashed inside redb: {}", panic_text(&*panic));
            let detail = describe_damage(path, &finding);
            Err(StoreError::Damaged { path: path.into(), detail }.into())
        }
    }
}

/// The message of a caught panic.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string())
}

/// A read of one table that fails when the table cannot be read back.
type Probe<'a> = dyn Fn() -> Result<(), StoreError> + 'a;

/// Names what a failed integrity check found: redb's finding and the tables whose rows cannot
/// all be read back and decoded (probed through a fresh read-only handle, with a panic inside
/// redb counted as a failed read).
fn describe_damage(path: &Path, finding: &str) -> String {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let opened = catch_unwind(|| {
        builder(DEFAULT_CACHE_BYTES).open_read_only(path).map_err(|e| e.to_string())
    });
    let tables = match opened {
        Ok(Ok(db)) => match db.begin_read() {
            Ok(txn) => {
                let txn = ReadTxn {
                    txn,
                    indexer: Arc::new(crate::index::NoIndex),
                    dict: DictSlot::default(),
                };
                let probes: [(&str, &Probe<'_>); 4] = [
                    ("records", &|| txn.records().map(drop)),
                    ("files", &|| txn.files().map(drop)),
                    ("meta", &|| txn.format_version().map(drop)),
                    ("idx.q.rows", &|| txn.query(&crate::query::Filter::default()).map(drop)),
                ];
                let bad: Vec<&str> = probes
                    .iter()
                    .filter(|(_, probe)| {
                        !matches!(catch_unwind(AssertUnwindSafe(probe)), Ok(Ok(())))
                    })
                    .map(|(name, _)| *name)
                    .collect();
                if bad.is_empty() {
                    "the records and layouts still read back, but other pages (sync marks, \
                     indexes or redb's own tables) do not"
                        .to_string()
                } else {
                    format!("tables that cannot be read back: {}", bad.join(", "))
                }
            }
            Err(e) => format!("no read transaction can begin ({e})"),
        },
        Ok(Err(e)) => format!("the file cannot be opened for reading ({e})"),
        Err(_) => "opening the file for reading crashes inside redb".to_string(),
    };
    format!("{finding}; {tables}")
}

fn builder(cache_bytes: usize) -> redb::Builder {
    let mut builder = redb::Builder::new();
    builder.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    builder.set_cache_size(cache_bytes);
    builder
}

/// A consistent snapshot of the store.
pub struct ReadTxn {
    pub(crate) txn: redb::ReadTransaction,
    indexer: Arc<dyn Indexer>,
    dict: DictSlot,
}

/// A write transaction: nothing is visible to others, or on disk, until [`WriteTxn::commit`].
pub struct WriteTxn {
    pub(crate) txn: redb::WriteTransaction,
    indexer: Arc<dyn Indexer>,
    dict: DictSlot,
    /// The record dictionary this transaction trained: its own until the commit publishes it
    /// to the handle (an aborted transaction's dictionary must never decode anything).
    new_dict: Option<Arc<codec::RecordDict>>,
    /// Files whose records or layout changed: their index rows are rebuilt at commit.
    dirty: std::collections::BTreeSet<String>,
    /// Searchable records written or deleted: their search documents are replaced at commit.
    dirty_search: std::collections::BTreeSet<CaseHash>,
    search_dir: PathBuf,
    /// The store directory, when the handle is trusted: the commit records the file's stamp.
    stamp_dir: Option<PathBuf>,
    /// Files already in [`FILE_DIRTY`] through this transaction (saves one insert per record).
    marked_dirty: std::collections::HashSet<String>,
    /// Kind-index keys added (+) and removed (-) per kind by this transaction (see
    /// [`KIND_COUNTS`]).
    kind_delta: Vec<(Kind, i64)>,
    /// Whether a search event was put or deleted: the commit raises the events generation
    /// ([`crate::events`]).
    events_changed: bool,
}

fn corrupted(table: &'static str, key: impl Into<String>, detail: String) -> StoreError {
    StoreError::Corrupted { table, key: key.into(), detail }
}

/// Where [`decode_record`] gets the record dictionary from, when a value is packed.
type DictSource<'a> = &'a dyn Fn() -> Result<Arc<codec::RecordDict>, String>;

fn decode_record(key: &[u8; 32], bytes: &[u8], dict: DictSource<'_>) -> Result<Record, StoreError> {
    stored_under(key, codec::decode_record(bytes, dict))
}

/// The decoded record found under `key`, if it decoded and is the record that key names.
fn stored_under(key: &[u8; 32], decoded: Result<Record, String>) -> Result<Record, StoreError> {
    let rec = decoded.map_err(|d| corrupted("records", crate::record::hex(key), d))?;
    if rec.case_hash().0 != *key {
        return Err(corrupted(
            "records",
            crate::record::hex(key),
            format!("the record '{}' of kind '{}' is stored under another key", rec.id, rec.kind),
        ));
    }
    Ok(rec)
}

/// [`decode_record`] with a decompressor of the calling thread's own (see
/// [`ReadTxn::records_in_parallel`]); the same checks and the same errors.
fn decode_record_with(
    key: &[u8; 32],
    bytes: &[u8],
    unpacker: &mut Option<codec::Unpacker>,
    dict: DictSource<'_>,
) -> Result<Record, StoreError> {
    stored_under(key, codec::decode_record_with(bytes, unpacker, dict))
}

fn decode_layout(path: &str, bytes: &[u8]) -> Result<FileLayout, StoreError> {
    codec::decode(bytes).map_err(|d| corrupted("files", path, d))
}

/// Opens a table of a transaction, or returns `Ok($missing)` from the calling function when
/// the table does not exist yet (a store created before the table was introduced, or one no
/// write has touched): a reader treats a missing table as an empty one.
macro_rules! open_or_return {
    ($txn:expr, $def:expr, $missing:expr) => {
        match $txn.open_table($def) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok($missing),
            Err(err) => return Err(err.into()),
        }
    };
}

/// Read access shared by both transaction kinds.
macro_rules! read_methods {
    ($t:lifetime, $u32_table:ty) => {
        /// Every record, in key order, as `records` returns them, decoded on up to
        /// `threads` threads: this thread copies the stored values out in key order, and each
        /// thread decodes one contiguous run of them with a decompressor of its own. Decoding
        /// (unpacking, bincode, the key check) is most of the cost of reading every record, so a
        /// whole-store check gets it done in a fraction of the time. The error is that of the
        /// first value in key order that does not decode, as with [`ReadTxn::records`].
        pub fn records_in_parallel(&self, threads: usize) -> Result<Vec<Record>, StoreError> {
            Ok(self.keyed_records_in_parallel(threads)?.1)
        }

        /// `records_in_parallel` with the key each record is stored under, at the same
        /// position: the decode has checked that it is the key of the record's kind and id, so a
        /// caller that needs the keys need not hash every record again.
        pub fn keyed_records_in_parallel(
            &self,
            threads: usize,
        ) -> Result<(Vec<CaseHash>, Vec<Record>), StoreError> {
            let threads = threads.clamp(1, 16);
            if threads == 1 {
                let records = self.records()?;
                return Ok((records.iter().map(Record::case_hash).collect(), records));
            }
            let table = self.txn.open_table(RECORDS)?;
            let mut keys: Vec<[u8; 32]> = Vec::new();
            let mut ends: Vec<usize> = Vec::new();
            let mut bytes: Vec<u8> = Vec::new();
            let mut packed = false;
            for row in table.iter()? {
                let (k, v) = row?;
                keys.push(k.value());
                packed |= codec::is_packed(v.value());
                bytes.extend_from_slice(v.value());
                ends.push(bytes.len());
            }
            // The dictionary is loaded here, once, so the threads need nothing of the transaction;
            // a failure to load is reported by the first packed value, as a sequential read does.
            let dict = if packed { Some(self.record_dict()) } else { None };
            let dict = &dict;
            let source = move || match dict {
                Some(d) => d.clone(),
                None => Err(NO_DICT.to_string()),
            };
            let per = keys.len().div_ceil(threads).max(1);
            let (keys, ends, bytes) = (&keys, &ends, &bytes);
            let runs: Vec<Result<Vec<Record>, StoreError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..keys.len())
                    .step_by(per)
                    .map(|from| {
                        let to = (from + per).min(keys.len());
                        scope.spawn(move || {
                            let mut unpacker = None;
                            let mut out = Vec::with_capacity(to - from);
                            for i in from..to {
                                let start = if i == 0 { 0 } else { ends[i - 1] };
                                let value = &bytes[start..ends[i]];
                                out.push(decode_record_with(
                                    &keys[i],
                                    value,
                                    &mut unpacker,
                                    &source,
                                )?);
                            }
                            Ok(out)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(corrupted(
                                "records",
                                "",
                                "decoding a record crashed (a damaged value)".to_string(),
                            ))
                        })
                    })
                    .collect()
            });
            let mut out = Vec::with_capacity(keys.len());
            for run in runs {
                out.extend(run?);
            }
            Ok((keys.iter().map(|k| CaseHash(*k)).collect(), out))
        }

        /// The record stored under `key`.
        pub fn record(&self, key: &CaseHash) -> Result<Option<Record>, StoreError> {
            let table = self.txn.open_table(RECORDS)?;
            let res = match table.get(key.0)? {
                Some(v) => Some(decode_record(&key.0, v.value(), &|| self.record_dict())?),
                None => None,
            };
            Ok(res)
        }

        /// The record of `kind` with natural id `id`.
        pub fn record_by_id(&self, kind: Kind, id: &str) -> Result<Option<Record>, StoreError> {
            self.record(&CaseHash::of(kind, id))
        }

        /// Whether the store holds any record.
        pub fn has_records(&self) -> Result<bool, StoreError> {
            let table = self.txn.open_table(RECORDS)?;
            let first = table.first()?.is_some();
            Ok(first)
        }

        /// Every record, in key order.
        pub fn records(&self) -> Result<Vec<Record>, StoreError> {
            let table = self.txn.open_table(RECORDS)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                out.push(decode_record(&k.value(), v.value(), &|| self.record_dict())?);
            }
            Ok(out)
        }

        /// Every record of `kind`, in key order.
        pub fn records_of_kind(&self, kind: Kind) -> Result<Vec<Record>, StoreError> {
            if !self.by_kind_ready()? {
                return Ok(self.records()?.into_iter().filter(|r| r.kind == kind).collect());
            }
            let keys = self.txn.open_table(BY_KIND)?;
            let records = self.txn.open_table(RECORDS)?;
            let mut out = Vec::new();
            for row in keys.range((kind.tag(), [0u8; 32])..=(kind.tag(), [0xffu8; 32]))? {
                let key = row?.0.value().1;
                if let Some(v) = records.get(key)? {
                    out.push(decode_record(&key, v.value(), &|| self.record_dict())?);
                }
            }
            Ok(out)
        }

        /// Calls `f` with every record of `kind`, in the key order of [`Self::records_of_kind`],
        /// decoding one at a time, so a kind with many records (the search events) is never
        /// held decoded all at once.
        pub fn for_each_record_of_kind(
            &self,
            kind: Kind,
            mut f: impl FnMut(&Record),
        ) -> Result<(), StoreError> {
            if !self.by_kind_ready()? {
                self.records()?.iter().filter(|r| r.kind == kind).for_each(f);
                return Ok(());
            }
            let keys = self.txn.open_table(BY_KIND)?;
            let records = self.txn.open_table(RECORDS)?;
            for row in keys.range((kind.tag(), [0u8; 32])..=(kind.tag(), [0xffu8; 32]))? {
                let key = row?.0.value().1;
                if let Some(v) = records.get(key)? {
                    f(&decode_record(&key, v.value(), &|| self.record_dict())?);
                }
            }
            Ok(())
        }

        fn by_kind_ready(&self) -> Result<bool, StoreError> {
            let meta = self.txn.open_table(META)?;
            let ready = meta.get(BY_KIND_READY)?.is_some();
            Ok(ready)
        }

        /// The sync mark of the record under `key`.
        pub fn record_sync(&self, key: &CaseHash) -> Result<Option<SyncMark>, StoreError> {
            let table = self.txn.open_table(RECORD_SYNC)?;
            let res = table.get(key.0)?.map(|v| SyncMark { text_hash: v.value() });
            Ok(res)
        }

        /// The layout of the managed file at `path`, records appended since included.
        pub fn file(&self, path: &str) -> Result<Option<FileLayout>, StoreError> {
            let table = self.txn.open_table(FILES)?;
            let mut res = match table.get(path)? {
                Some(v) => Some(self.stored_layout(path, v.value())?),
                None => None,
            };
            if let Some(layout) = &mut res {
                layout.items.extend(self.file_tail(path)?.into_iter().map(LayoutItem::Record));
            }
            Ok(res)
        }

        /// Every file layout, in path order, records appended since included.
        pub fn files(&self) -> Result<Vec<FileLayout>, StoreError> {
            let table = self.txn.open_table(FILES)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                let mut layout = self.stored_layout(k.value(), v.value())?;
                layout.items.extend(self.file_tail(k.value())?.into_iter().map(LayoutItem::Record));
                out.push(layout);
            }
            Ok(out)
        }

        /// The stored layout of `path` from its `files` value: the items of its chunks, or
        /// (a store written before chunks) the layout encoded whole.
        fn stored_layout(&self, path: &str, value: &[u8]) -> Result<FileLayout, StoreError> {
            if value != crate::layouts::CHUNKED {
                return decode_layout(path, value);
            }
            let chunks = open_or_return!(
                self.txn,
                crate::layouts::FILE_CHUNKS,
                FileLayout { path: path.into(), items: Vec::new() }
            );
            Ok(FileLayout { path: path.into(), items: crate::layouts::read_items(&chunks, path)? })
        }

        /// Whether the layout of `path` is stored in chunks (a store written before chunks
        /// holds each layout whole).
        pub fn has_chunked_layout(&self, path: &str) -> Result<bool, StoreError> {
            let files = self.txn.open_table(FILES)?;
            let chunked = files.get(path)?.is_some_and(|v| v.value() == crate::layouts::CHUNKED);
            Ok(chunked)
        }

        /// Where the record `key` is in the stored layout of `path` (records appended since
        /// are not looked at); `None` when the file has no chunked layout or the record is not
        /// in it. In a layout of many chunks this reads the one chunk its place is kept for;
        /// else (or when that place is out of date) it walks every chunk's bytes, decoding
        /// none.
        pub fn locate_in_file(
            &self,
            path: &str,
            key: &CaseHash,
        ) -> Result<Option<crate::ItemPos>, StoreError> {
            if !self.has_chunked_layout(path)? {
                return Ok(None);
            }
            let chunks = open_or_return!(self.txn, crate::layouts::FILE_CHUNKS, None);
            let at = match self.txn.open_table(crate::layouts::FILE_ITEM_AT) {
                Ok(t) => Some(t),
                Err(redb::TableError::TableDoesNotExist(_)) => None,
                Err(err) => return Err(err.into()),
            };
            crate::layouts::locate(&chunks, at.as_ref(), path, key)
        }

        /// Calls `f` with every item of the stored layout of `path` and where it is, in order,
        /// borrowed from the stored bytes (records appended since are not included). Returns
        /// `false`, calling nothing, when the file has no chunked layout.
        pub fn scan_file(
            &self,
            path: &str,
            f: &mut dyn FnMut(crate::ItemPos, crate::ItemRef<'_>),
        ) -> Result<bool, StoreError> {
            if !self.has_chunked_layout(path)? {
                return Ok(false);
            }
            let chunks = open_or_return!(self.txn, crate::layouts::FILE_CHUNKS, true);
            crate::layouts::scan(&chunks, path, f)?;
            Ok(true)
        }

        /// The items of chunk `number` of the layout of `path` (see [`Self::locate_in_file`]).
        pub fn file_chunk(
            &self,
            path: &str,
            number: u64,
        ) -> Result<Option<Vec<LayoutItem>>, StoreError> {
            let chunks = open_or_return!(self.txn, crate::layouts::FILE_CHUNKS, None);
            let res = match chunks.get((path, number))? {
                Some(v) => Some(crate::layouts::decode_chunk(path, v.value())?),
                None => None,
            };
            Ok(res)
        }

        /// The chunk of the layout of `path` right after (`forward`) or before chunk
        /// `number`, with its number; `None` at either end.
        pub fn file_chunk_beside(
            &self,
            path: &str,
            number: u64,
            forward: bool,
        ) -> Result<Option<(u64, Vec<LayoutItem>)>, StoreError> {
            let chunks = open_or_return!(self.txn, crate::layouts::FILE_CHUNKS, None);
            crate::layouts::neighbour(&chunks, path, number, forward)
        }

        /// The records appended to the file at `path` since its layout was last stored, in
        /// order (see [`WriteTxn::append_to_file`]).
        pub fn file_tail(&self, path: &str) -> Result<Vec<CaseHash>, StoreError> {
            let table = open_or_return!(self.txn, FILE_TAIL, Vec::new());
            let mut out = Vec::new();
            for row in table.range((path, 0)..=(path, u64::MAX))? {
                out.push(CaseHash(row?.1.value()));
            }
            Ok(out)
        }

        /// Whether records were appended to the file at `path` since its layout was stored:
        /// then its last item is the last record appended, which ends with a newline.
        pub fn has_file_tail(&self, path: &str) -> Result<bool, StoreError> {
            let table = open_or_return!(self.txn, FILE_TAIL, false);
            let first = table.range((path, 0)..=(path, u64::MAX))?.next().transpose()?;
            Ok(first.is_some())
        }

        /// Whether the store's content of the file at `path` is what evokb last wrote to it or
        /// took from it whole (see [`WriteTxn::mark_file_clean`]).
        pub fn file_is_clean(&self, path: &str) -> Result<bool, StoreError> {
            let meta = self.txn.open_table(META)?;
            if meta.get(DIRTY_READY)?.is_none() {
                return Ok(false);
            }
            let dirty = open_or_return!(self.txn, FILE_DIRTY, false);
            let clean = dirty.get(path)?.is_none();
            Ok(clean)
        }

        /// The stat fingerprint of the managed file at `path` as last synced.
        pub fn file_stat(&self, path: &str) -> Result<Option<FileStat>, StoreError> {
            let table = open_or_return!(self.txn, FILE_STAT, None);
            let res = table.get(path)?.map(|v| FileStat::decode(&v.value()));
            Ok(res)
        }

        /// Every value kept under `namespace` in the derived-answer cache (see
        /// [`WriteTxn::put_derived`]), by record key, in one walk.
        pub fn derived(&self, namespace: &str) -> Result<HashMap<CaseHash, Vec<u8>>, StoreError> {
            let table = open_or_return!(self.txn, DERIVED, HashMap::new());
            let mut out = HashMap::new();
            for row in table.range((namespace, [0u8; 32])..=(namespace, [0xffu8; 32]))? {
                let (k, v) = row?;
                out.insert(CaseHash(k.value().1), v.value().to_vec());
            }
            Ok(out)
        }

        /// Every stored stat fingerprint, by path, in one walk of the table: what an import
        /// compares each file on disk against. One lookup per file would open the table each
        /// time, and at 5,000 files that was a fifth of an import that reads nothing.
        pub fn file_stats(&self) -> Result<HashMap<String, FileStat>, StoreError> {
            let table = open_or_return!(self.txn, FILE_STAT, HashMap::new());
            let mut out = HashMap::with_capacity(table.len()? as usize);
            for row in table.iter()? {
                let (k, v) = row?;
                out.insert(k.value().to_owned(), FileStat::decode(&v.value()));
            }
            Ok(out)
        }

        /// The sync mark of the managed file at `path`.
        pub fn file_sync(&self, path: &str) -> Result<Option<SyncMark>, StoreError> {
            let table = self.txn.open_table(FILE_SYNC)?;
            let res = table.get(path)?.map(|v| SyncMark { text_hash: v.value() });
            Ok(res)
        }

        /// The store's format version (0 for a store without one).
        pub fn format_version(&self) -> Result<u32, StoreError> {
            let table = self.txn.open_table(META)?;
            let Some(v) = table.get(FORMAT_KEY)? else {
                return Ok(0);
            };
            let bytes: [u8; 4] = v.value().try_into().map_err(|_| {
                corrupted(
                    "meta",
                    FORMAT_KEY,
                    format!("expected 4 bytes, found {}", v.value().len()),
                )
            })?;
            Ok(u32::from_be_bytes(bytes))
        }

        /// The entries that pass `filter`, answered from the facet index, sorted by file,
        /// line and id.
        pub fn query(
            &self,
            filter: &crate::query::Filter,
        ) -> Result<Vec<crate::query::QueryRow>, StoreError> {
            let meta = open_or_return!(self.txn, crate::query::META, Vec::new());
            if !crate::query::is_ready(&meta)? {
                return Err(crate::query::not_built());
            }
            self.query_reader()?.run(filter)
        }

        /// The ids of the entries that pass `filter`, in [`query`](Self::query)'s order, read
        /// from the stored rows without decoding them (a caller that needs only ids, such as a
        /// rule that then reads the records, skips the rows' JSON).
        pub fn query_ids(&self, filter: &crate::query::Filter) -> Result<Vec<String>, StoreError> {
            self.query_json(filter, |rows| {
                (0..rows.len()).map(|i| rows.id(i).to_string()).collect()
            })
        }

        /// [`query`](Self::query) as the compact JSON of each row, ready to print, lent to
        /// `with`: the stored bytes in order, no row decoded. A store without the index
        /// answers as [`query`](Self::query) does.
        pub fn query_json<T>(
            &self,
            filter: &crate::query::Filter,
            with: impl FnOnce(&crate::query::JsonRows<'_>) -> T,
        ) -> Result<T, StoreError> {
            let meta = match self.txn.open_table(crate::query::META) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => {
                    return Ok(with(&crate::query::JsonRows::empty()))
                }
                Err(err) => return Err(err.into()),
            };
            if !crate::query::is_ready(&meta)? {
                return Err(crate::query::not_built());
            }
            self.query_reader()?.run_json(filter, with)
        }

        /// [`query_json`](Self::query_json) streamed: tells `window` how many rows `filter`
        /// selects and hands each row of the indices it gives to `emit`, in output order, as
        /// it is read. `Ok(None)`, before either closure is called, when the store cannot
        /// give the order before reading the rows: the caller uses
        /// [`query_json`](Self::query_json). A damaged row is an error even after rows were
        /// handed over.
        pub fn query_json_stream<E>(
            &self,
            filter: &crate::query::Filter,
            window: impl FnOnce(usize) -> std::ops::Range<usize>,
            emit: impl FnMut(usize, crate::query::JsonRow<'_>) -> Result<(), E>,
        ) -> Result<Option<Result<(), E>>, StoreError> {
            let meta = open_or_return!(self.txn, crate::query::META, None);
            if !crate::query::is_ready(&meta)? {
                return Err(crate::query::not_built());
            }
            self.query_reader()?.stream_json(filter, window, emit)
        }

        /// How many rows [`query_json`](Self::query_json) lends for `filter`, counted where
        /// they are stored: each is read and checked as it checks them, none copied.
        pub fn query_count(&self, filter: &crate::query::Filter) -> Result<usize, StoreError> {
            let meta = open_or_return!(self.txn, crate::query::META, 0);
            if !crate::query::is_ready(&meta)? {
                return Err(crate::query::not_built());
            }
            self.query_reader()?.count(filter)
        }

        pub(crate) fn query_reader<$t>(
            &$t self,
        ) -> Result<
            crate::query::Reader<
                $u32_table,
                impl ReadableTable<&'static [u8], &'static [u8]> + $t,
                impl ReadableTable<(&'static str, u32), ()> + $t,
                impl ReadableTable<u32, &'static str> + $t,
                impl Fn() -> Result<$u32_table, StoreError> + $t,
            >,
            StoreError,
        > {
            // A table of the index missing is damage: the caller rebuilds the index, as for
            // a bad row.
            let missing = |table: &'static str, what: &'static str| {
                move |e: redb::TableError| match e {
                    redb::TableError::TableDoesNotExist(_) => StoreError::Corrupted {
                        table,
                        key: String::new(),
                        detail: format!("the {what} is missing"),
                    },
                    e => e.into(),
                }
            };
            Ok(crate::query::Reader {
                rows: self.txn.open_table(crate::query::ROWS)?,
                order: self
                    .txn
                    .open_table(crate::query::ORDER)
                    .map_err(missing("idx.q.order", "order table"))?,
                open_dir: move || {
                    self.txn
                        .open_table(crate::query::DIR)
                        .map_err(missing("idx.q.dir", "file directory"))
                },
                postings: self.txn.open_table(crate::query::POSTINGS)?,
                ids: self.txn.open_table(crate::query::IDS)?,
                names: self.txn.open_table(crate::query::FILE_NAMES)?,
            })
        }

        /// A store-wide setting stored by a higher layer (`setting.<key>` in the meta table).
        pub fn meta_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
            let table = self.txn.open_table(META)?;
            let res = table.get(format!("setting.{key}").as_str())?.map(|v| v.value().to_vec());
            Ok(res)
        }

        /// Whether the named flag is set (flags are store-wide booleans in the meta table).
        pub fn flag(&self, name: &str) -> Result<bool, StoreError> {
            let table = self.txn.open_table(META)?;
            let res = table.get(format!("flag.{name}").as_str())?.is_some();
            Ok(res)
        }

        /// The generation of the last commit that changed searchable records.
        pub fn search_generation(&self) -> Result<u64, StoreError> {
            Ok(self.meta_u64(SEARCH_GEN_KEY)?.unwrap_or(0))
        }

        /// A number stored under `key` in the meta table.
        fn meta_u64(&self, key: &'static str) -> Result<Option<u64>, StoreError> {
            let table = self.txn.open_table(META)?;
            let Some(v) = table.get(key)? else { return Ok(None) };
            let bytes: [u8; 8] = v.value().try_into().map_err(|_| {
                corrupted("meta", key, format!("expected 8 bytes, found {}", v.value().len()))
            })?;
            Ok(Some(u64::from_be_bytes(bytes)))
        }

        /// The searchable records changed since the search index was at the base generation
        /// and not yet replaced in it ([`SEARCH_PENDING`]), in key order, with that base
        /// generation (`None` when nothing is pending).
        pub fn search_pending(&self) -> Result<(Vec<CaseHash>, Option<u64>), StoreError> {
            let table = open_or_return!(self.txn, SEARCH_PENDING, (Vec::new(), None));
            let keys = table
                .iter()?
                .map(|row| row.map(|(k, _)| CaseHash(k.value())))
                .collect::<Result<Vec<_>, _>>()?;
            if keys.is_empty() {
                return Ok((keys, None));
            }
            Ok((keys, self.meta_u64(SEARCH_BASE_KEY)?))
        }

        /// The search document of the record under `key`, if it is a searchable record.
        pub fn search_doc(
            &self,
            key: &CaseHash,
        ) -> Result<Option<crate::search::SearchDoc>, String> {
            let rec = self.record(key).map_err(|e| e.to_string())?;
            Ok(rec
                .filter(|r| self.indexer.searchable(r.kind))
                .and_then(|r| self.indexer.search_doc(&r)))
        }

        /// The search documents of every searchable record, with their kind tags.
        pub fn search_docs(&self) -> Result<Vec<crate::search::SearchDoc>, StoreError> {
            Ok(self
                .records()?
                .iter()
                .filter(|r| self.indexer.searchable(r.kind))
                .filter_map(|r| self.indexer.search_doc(r))
                .collect())
        }

        /// The number of records, all kinds together (kept by redb, read in constant time).
        pub fn record_count(&self) -> Result<u64, StoreError> {
            let table = open_or_return!(self.txn, RECORDS, 0);
            Ok(table.len()?)
        }

        /// The number of records of each kind (kinds without records are left out).
        pub fn counts(&self) -> Result<BTreeMap<Kind, u64>, StoreError> {
            let mut counts = BTreeMap::new();
            if !self.by_kind_ready()? {
                for rec in self.records()? {
                    *counts.entry(rec.kind).or_insert(0) += 1;
                }
                return Ok(counts);
            }
            if let Some(mut cached) = self.cached_kind_counts()? {
                for (kind, d) in self.pending_kind_counts() {
                    let n = cached.entry(*kind).or_insert(0);
                    *n = n.saturating_add_signed(*d);
                }
                cached.retain(|_, n| *n > 0);
                // The kept counts must add up to the index's length (kept by redb, read in
                // constant time): a write by a build that does not keep them (an older evokb)
                // is noticed, and the keys are counted instead.
                let total: u64 = cached.values().sum();
                if total == self.txn.open_table(BY_KIND)?.len()? {
                    return Ok(cached);
                }
            }
            self.counted_kind_keys()
        }

        /// [`Self::counts`] by counting the keys of the kind index, without the kept counts.
        pub fn counted_kind_keys(&self) -> Result<BTreeMap<Kind, u64>, StoreError> {
            let mut counts = BTreeMap::new();
            // Keys only: no record is read or decoded.
            let keys = self.txn.open_table(BY_KIND)?;
            for &kind in Kind::ALL {
                let n = keys.range((kind.tag(), [0u8; 32])..=(kind.tag(), [0xffu8; 32]))?.count();
                if n > 0 {
                    counts.insert(kind, n as u64);
                }
            }
            Ok(counts)
        }

        /// The counts kept under [`KIND_COUNTS`] as last committed, if any.
        fn cached_kind_counts(&self) -> Result<Option<BTreeMap<Kind, u64>>, StoreError> {
            let meta = self.txn.open_table(META)?;
            let Some(v) = meta.get(KIND_COUNTS)? else { return Ok(None) };
            let pairs: Vec<(String, u64)> =
                codec::decode(v.value()).map_err(|d| corrupted("meta", KIND_COUNTS, d))?;
            let mut out = BTreeMap::new();
            for (tag, n) in pairs {
                let kind = Kind::from_tag(&tag).ok_or_else(|| {
                    corrupted("meta", KIND_COUNTS, format!("'{tag}' is not a record kind"))
                })?;
                out.insert(kind, n);
            }
            Ok(Some(out))
        }

        /// The ids of every entry in the facet index, in id order, without decoding a record
        /// or a row.
        pub fn entry_ids(&self) -> Result<Vec<String>, StoreError> {
            let meta = open_or_return!(self.txn, crate::query::META, Vec::new());
            if !crate::query::is_ready(&meta)? {
                // A store an older evokb wrote, read before its first write builds the index:
                // the records give the same ids, more slowly.
                let mut ids: Vec<String> = self
                    .records()?
                    .into_iter()
                    .filter(|r| self.indexer.queryable(r.kind))
                    .map(|r| r.id)
                    .collect();
                ids.sort_unstable();
                return Ok(ids);
            }
            self.query_reader()?.entry_ids()
        }

        /// The paths of every file layout, in path order (no layout is decoded).
        pub fn file_paths(&self) -> Result<Vec<String>, StoreError> {
            let table = self.txn.open_table(FILES)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                out.push(row?.0.value().to_string());
            }
            Ok(out)
        }

        /// A digest of the store's content: records, file layouts and collections, not sync
        /// marks. Equal record sets give equal digests, whatever order they were written in.
        pub fn digest(&self) -> Result<[u8; 32], StoreError> {
            self.digest_of(&self.records()?, &self.files()?)
        }

        /// [`Self::digest`] from the store's records (in key order, as [`Self::records`]
        /// returns them) and layouts (as [`Self::files`] returns them) already read, so a
        /// whole-store check reads and decodes each record once.
        pub fn digest_of(
            &self,
            records: &[Record],
            layouts: &[FileLayout],
        ) -> Result<[u8; 32], StoreError> {
            let mut input = DigestInput::new();
            input.update(b"evokb.digest.v1\0");
            for rec in records {
                digest_record(&mut input, rec);
            }
            for layout in layouts {
                digest_layout(&mut input, layout);
            }
            crate::tally::digest(input.hasher(), &self.tallies()?)?;
            for name in self.collection_tables()? {
                input.update(b"C");
                digest_str(&mut input, &name);
                let def: TableDefinition<&[u8], &[u8]> = TableDefinition::new(&name);
                let table = self.txn.open_table(def)?;
                for row in table.iter()? {
                    let (k, v) = row?;
                    input.update(&(k.value().len() as u64).to_be_bytes());
                    input.update(k.value());
                    input.update(&(v.value().len() as u64).to_be_bytes());
                    input.update(v.value());
                }
            }
            Ok(*input.hasher().finalize().as_bytes())
        }

        /// The names of the collection tables that exist, sorted.
        pub fn collection_tables(&self) -> Result<Vec<String>, StoreError> {
            use redb::TableHandle;
            let mut names: Vec<String> = self
                .txn
                .list_tables()?
                .map(|h| h.name().to_string())
                .filter(|n| n.starts_with(COLLECTION_PREFIX))
                .collect();
            names.sort();
            Ok(names)
        }

        /// Calls `f` with every item of a collection, in key order, decoding one item at a time,
        /// so a large collection is never held decoded all at once.
        pub fn for_each_item<T: serde::de::DeserializeOwned>(
            &self,
            c: Collection,
            mut f: impl FnMut(&[u8], T),
        ) -> Result<(), StoreError> {
            let table = open_or_return!(self.txn, c.def(), ());
            for row in table.iter()? {
                let (k, v) = row?;
                let value = codec::decode(v.value())
                    .map_err(|d| corrupted(c.table, crate::record::hex(k.value()), d))?;
                f(k.value(), value);
            }
            Ok(())
        }

        /// The items of a collection whose key starts with `prefix`, in key order.
        pub fn items_with_prefix<T: serde::de::DeserializeOwned>(
            &self,
            c: Collection,
            prefix: &[u8],
        ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
            let table = open_or_return!(self.txn, c.def(), Vec::new());
            let mut out = Vec::new();
            for row in table.range(prefix..)? {
                let (k, v) = row?;
                if !k.value().starts_with(prefix) {
                    break;
                }
                let value = codec::decode(v.value())
                    .map_err(|d| corrupted(c.table, crate::record::hex(k.value()), d))?;
                out.push((k.value().to_vec(), value));
            }
            Ok(out)
        }

        /// Every item of a collection, in key order.
        pub fn items<T: serde::de::DeserializeOwned>(
            &self,
            c: Collection,
        ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
            let table = open_or_return!(self.txn, c.def(), Vec::new());
            let mut out = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                let value = codec::decode(v.value())
                    .map_err(|d| corrupted(c.table, crate::record::hex(k.value()), d))?;
                out.push((k.value().to_vec(), value));
            }
            Ok(out)
        }

        /// The number of items in a collection.
        pub fn item_count(&self, c: Collection) -> Result<u64, StoreError> {
            match self.txn.open_table(c.def()) {
                Ok(t) => Ok(t.len()?),
                Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
                Err(err) => Err(err.into()),
            }
        }
    };
}

/// Loads the record dictionary stored in `meta`, if there is one.
fn load_dict(
    meta: &impl ReadableTable<&'static str, &'static [u8]>,
) -> Result<Option<Arc<codec::RecordDict>>, String> {
    let stored = meta.get(RECORD_DICT_KEY).map_err(|e| format!("the meta table: {e}"))?;
    match stored {
        Some(v) => Ok(Some(Arc::new(codec::RecordDict::load(v.value())?))),
        None => Ok(None),
    }
}

/// About how many bytes a record encodes to (its strings).
fn approx_len(rec: &Record) -> usize {
    rec.id.len()
        + rec.file.len()
        + rec
            .segments
            .iter()
            .map(|seg| match seg {
                Segment::Lit(s) | Segment::Body(s) => s.len() + 2,
                Segment::Field { key, value } => key.len() + value.len() + 3,
            })
            .sum::<usize>()
}

const NO_DICT: &str = "the record is packed, but the store holds no record dictionary";

impl ReadTxn {
    read_methods!('t, redb::ReadOnlyTable<u32, &'static [u8]>);

    /// A read transaction has no uncommitted changes to the kind counts.
    fn pending_kind_counts(&self) -> &'static [(Kind, i64)] {
        &[]
    }

    /// The store's record dictionary, loaded once per handle (it never changes once written).
    fn record_dict(&self) -> Result<Arc<codec::RecordDict>, String> {
        if let Some(d) = self.dict.get() {
            return Ok(d.clone());
        }
        let meta = self.txn.open_table(META).map_err(|e| format!("the meta table: {e}"))?;
        let dict = load_dict(&meta)?.ok_or(NO_DICT)?;
        // A read transaction sees only committed data, so the handle may keep it.
        Ok(self.dict.get_or_init(|| dict).clone())
    }

    /// Compares the facet index tables (`idx.*`) with what the records and layouts say they
    /// must hold; one sentence per disagreement, empty when the index is exact. This reads
    /// every record, so it belongs in `verify`, not in every query.
    pub fn check_facet_index(&self) -> Result<Vec<String>, StoreError> {
        let layouts = self.files()?;
        let records = self.records()?;
        let by_key: HashMap<CaseHash, &Record> =
            records.iter().map(|r| (r.case_hash(), r)).collect();
        self.check_facet_index_of(&layouts, &by_key)
    }

    /// What makes each file's expected facet rows for [`Self::check_facet_index_with`]: it
    /// may be shared with other threads, so the rows of many files are made at once.
    pub fn facet_row_maker(&self) -> crate::query::RowMaker {
        crate::query::RowMaker(self.indexer.clone())
    }

    /// [`Self::check_facet_index`] against `layouts` and the rows their records give, one
    /// [`crate::query::ExpectedRows`] per layout in the same order (see
    /// [`Self::facet_row_maker`]).
    pub fn check_facet_index_with(
        &self,
        layouts: &[FileLayout],
        expected: Vec<crate::query::ExpectedRows>,
    ) -> Result<Vec<String>, StoreError> {
        crate::query::check_expected(&self.txn, layouts, expected)
    }

    /// [`Self::check_facet_index`] against layouts and records already read.
    pub fn check_facet_index_of(
        &self,
        layouts: &[FileLayout],
        records: &HashMap<CaseHash, &Record>,
    ) -> Result<Vec<String>, StoreError> {
        crate::query::check(
            &self.txn,
            layouts,
            &|h| Ok(records.get(h).copied()),
            self.indexer.as_ref(),
        )
    }
}

impl WriteTxn {
    read_methods!('t, redb::Table<'t, u32, &'static [u8]>);

    /// Visits the searchable records whose search text holds at least `min` of `terms` and
    /// that match `facets`, most terms held first, until `visit` returns false
    /// ([`crate::search::SearchIndex::sharing`]), reading the search index. The documents the
    /// index holds out of date (those pending, [`SEARCH_PENDING`], and those this transaction
    /// changed) are not taken from it: their records are read and their terms counted here,
    /// and they are visited in their place in the order. Returns false, having visited
    /// nothing, when the index cannot vouch for the other records (it is missing, damaged, or
    /// at another generation): then the caller reads the records instead. Never writes the
    /// index.
    pub fn search_sharing(
        &self,
        terms: &[String],
        min: usize,
        facets: &std::collections::BTreeMap<String, Vec<String>>,
        visit: &mut dyn FnMut(usize, CaseHash) -> bool,
    ) -> Result<bool, StoreError> {
        let (pending, base) = self.search_pending()?;
        let at = if pending.is_empty() { Some(self.search_generation()?) } else { base };
        let Some(at) = at else { return Ok(false) };
        let mut stale: std::collections::BTreeSet<CaseHash> = pending.into_iter().collect();
        stale.extend(self.dirty_search.iter().copied());
        // The out-of-date documents that qualify, as the index would count them, most held
        // first.
        let mut fresh = Vec::new();
        for key in &stale {
            let doc = self.search_doc(key).map_err(|detail| {
                StoreError::Search(crate::search::SearchError::Resolve { detail })
            })?;
            if let Some(doc) = doc.filter(|d| d.matches_facets(facets)) {
                let held = doc.terms_held(terms);
                if held >= min.max(1) {
                    fresh.push((held, *key));
                }
            }
        }
        fresh.sort_by_key(|f| std::cmp::Reverse(f.0));
        let mut fresh = fresh.into_iter().peekable();
        let dir = &self.search_dir;
        // Whether the index failed before the first visit: after one, a failure cannot be
        // undone by reading the records instead, so it is an error.
        let mut visited = false;
        let mut stopped = false;
        let mut merged = |n: usize, key: CaseHash| {
            if stale.contains(&key) {
                return true;
            }
            // The fresh documents holding at least as many terms go first.
            while let Some(&(m, k)) = fresh.peek() {
                if m < n {
                    break;
                }
                fresh.next();
                visited = true;
                if !visit(m, k) {
                    stopped = true;
                    return false;
                }
            }
            visited = true;
            if !visit(n, key) {
                stopped = true;
                return false;
            }
            true
        };
        match with_sound_index(dir, at, |idx| idx.sharing(terms, min, facets, &mut merged)) {
            Ok(()) => {}
            Err(_) if !visited => return Ok(false),
            Err(IndexTrouble::Failed(e)) => return Err(StoreError::Search(e)),
            Err(_) => {
                return Err(StoreError::Search(crate::search::SearchError::Index {
                    dir: dir.clone(),
                    source: tantivy::TantivyError::InternalError(
                        "reading it crashed while it listed same-topic candidates".into(),
                    ),
                }))
            }
        }
        if !stopped {
            for (m, k) in fresh {
                if !visit(m, k) {
                    break;
                }
            }
        }
        Ok(true)
    }

    /// Whether this transaction put or deleted a search event.
    pub(crate) fn events_changed(&self) -> bool {
        self.events_changed
    }

    /// The changes this transaction made to the number of kind-index keys of each kind.
    fn pending_kind_counts(&self) -> &[(Kind, i64)] {
        &self.kind_delta
    }

    fn count_kind(&mut self, kind: Kind, d: i64) {
        match self.kind_delta.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += d,
            None => self.kind_delta.push((kind, d)),
        }
    }

    /// Writes the kind counts for the commit: the committed ones with this transaction's
    /// changes, or all of them counted once when none are kept yet.
    fn store_kind_counts(&mut self) -> Result<(), StoreError> {
        let kept = self.cached_kind_counts()?;
        if kept.is_some() && self.kind_delta.is_empty() {
            return Ok(());
        }
        if !self.by_kind_ready()? {
            return Ok(());
        }
        let counts = self.counts()?;
        let pairs: Vec<(String, u64)> =
            counts.into_iter().map(|(k, n)| (k.tag().to_string(), n)).collect();
        self.txn.open_table(META)?.insert(KIND_COUNTS, codec::encode(&pairs).as_slice())?;
        self.kind_delta.clear();
        Ok(())
    }

    /// The record dictionary: this transaction's own, or the committed one.
    fn record_dict(&self) -> Result<Arc<codec::RecordDict>, String> {
        self.known_dict()?.ok_or_else(|| NO_DICT.to_string())
    }

    fn known_dict(&self) -> Result<Option<Arc<codec::RecordDict>>, String> {
        if let Some(d) = &self.new_dict {
            return Ok(Some(d.clone()));
        }
        if let Some(d) = self.dict.get() {
            return Ok(Some(d.clone()));
        }
        let meta = self.txn.open_table(META).map_err(|e| format!("the meta table: {e}"))?;
        // Not this transaction's (that one is `new_dict`), so committed: the handle keeps it.
        Ok(load_dict(&meta)?.map(|dict| self.dict.get_or_init(|| dict).clone()))
    }

    /// A record's value: packed with the store's dictionary when it has one.
    fn encode_record(&self, rec: &Record) -> Vec<u8> {
        // A dictionary that cannot be read leaves the record plain (still a valid value); the
        // integrity check reports the damaged meta table.
        codec::encode_record(rec, self.known_dict().ok().flatten().as_deref())
    }

    /// Trains the store's record dictionary from `records` (a sample of them), unless the store
    /// has one or they are fewer than [`RECORD_DICT_MIN_RECORDS`]; records put afterwards are
    /// packed with it. An import calls this with the records it is about to write, so the
    /// first import of a knowledge base packs all of them. Returns whether it trained one.
    pub fn train_record_dict(&mut self, records: &[&Record]) -> Result<bool, StoreError> {
        if records.len() < RECORD_DICT_MIN_RECORDS
            || self.txn.open_table(META)?.get(RECORD_DICT_KEY)?.is_some()
        {
            return Ok(false);
        }
        let total: usize = records.iter().map(|r| approx_len(r)).sum::<usize>().max(1);
        // Every k-th record, spread over the whole import rather than its first files.
        let step = total.div_ceil(RECORD_DICT_SAMPLE_BYTES).max(1);
        let samples: Vec<Vec<u8>> =
            records.iter().step_by(step).map(|r| codec::encode_plain(*r)).collect();
        let Some(dict) = codec::RecordDict::train(&samples) else { return Ok(false) };
        self.txn.open_table(META)?.insert(RECORD_DICT_KEY, dict.bytes())?;
        self.new_dict = Some(Arc::new(dict));
        Ok(true)
    }

    /// Raises a store of an older format to [`STORE_FORMAT`] (every older format is a subset
    /// of it), so a build that cannot read what this one writes refuses the store by name.
    fn ensure_format(&mut self) -> Result<(), StoreError> {
        if self.format_version()? < STORE_FORMAT {
            self.txn.open_table(META)?.insert(FORMAT_KEY, STORE_FORMAT.to_be_bytes().as_slice())?;
        }
        Ok(())
    }

    fn init_tables(&mut self) -> Result<(), StoreError> {
        self.txn.open_table(RECORDS)?;
        self.txn.open_table(RECORD_SYNC)?;
        self.txn.open_table(FILES)?;
        self.txn.open_table(FILE_SYNC)?;
        self.txn.open_table(FILE_TAIL)?;
        self.txn.open_table(crate::layouts::FILE_CHUNKS)?;
        self.txn.open_table(crate::layouts::FILE_ITEM_AT)?;
        self.txn.open_table(FILE_STAT)?;
        crate::query::create(&self.txn)?;
        self.txn.open_table(BY_KIND)?;
        let mut meta = self.txn.open_table(META)?;
        meta.insert(FORMAT_KEY, STORE_FORMAT.to_be_bytes().as_slice())?;
        meta.insert(BY_KIND_READY, [1u8].as_slice())?;
        meta.insert(DIRTY_READY, [1u8].as_slice())?;
        drop(meta);
        self.txn.open_table(FILE_DIRTY)?;
        Ok(())
    }

    /// Builds the facet index of a store written before its ordinal layout (once, at this
    /// transaction's commit): the old tables are dropped and every file is reindexed.
    fn ensure_query_index(&mut self) -> Result<(), StoreError> {
        let ready = match self.txn.open_table(crate::query::META) {
            Ok(meta) => crate::query::is_ready(&meta)?,
            Err(redb::TableError::TableDoesNotExist(_)) => false,
            Err(e) => return Err(e.into()),
        };
        if !ready {
            crate::query::clear(&self.txn)?;
            for path in self.file_paths()? {
                self.dirty.insert(path);
            }
        }
        Ok(())
    }

    /// Starts dirty tracking on a store written before it existed: every file is marked.
    fn ensure_dirty_tracking(&mut self) -> Result<(), StoreError> {
        if self.txn.open_table(META)?.get(DIRTY_READY)?.is_some() {
            return Ok(());
        }
        for path in self.file_paths()? {
            self.txn.open_table(FILE_DIRTY)?.insert(path.as_str(), ())?;
        }
        self.txn.open_table(META)?.insert(DIRTY_READY, [1u8].as_slice())?;
        Ok(())
    }

    /// Has the commit rebuild the index rows of `path`. Asked once per record written (230k
    /// times by a first import of 100k entries), of a few thousand files: the path is copied
    /// only the first time.
    fn reindex_file(&mut self, path: &str) {
        if !self.dirty.contains(path) {
            self.dirty.insert(path.to_string());
        }
    }

    fn mark_dirty(&mut self, path: &str) -> Result<(), StoreError> {
        if !self.marked_dirty.contains(path) {
            self.txn.open_table(FILE_DIRTY)?.insert(path, ())?;
            self.marked_dirty.insert(path.to_string());
        }
        Ok(())
    }

    /// Records that the file at `path` on disk is exactly what the store renders for it (it
    /// was just written from the store, or its whole content was just taken into it).
    pub fn mark_file_clean(&mut self, path: &str) -> Result<(), StoreError> {
        self.txn.open_table(FILE_DIRTY)?.remove(path)?;
        self.marked_dirty.remove(path);
        Ok(())
    }

    /// Builds the kind index of a store written before it existed (once: afterwards every
    /// write keeps it), or after [`WriteTxn::rebuild_index`] emptied it.
    fn ensure_by_kind(&mut self) -> Result<(), StoreError> {
        if self.by_kind_ready()? {
            return Ok(());
        }
        self.txn.delete_table(BY_KIND)?;
        // The kept counts described the old index; the commit counts the new one.
        self.txn.open_table(META)?.remove(KIND_COUNTS)?;
        self.kind_delta.clear();
        let mut keys = self.txn.open_table(BY_KIND)?;
        let records = self.txn.open_table(RECORDS)?;
        for row in records.iter()? {
            let (k, v) = row?;
            let key = k.value();
            let rec = decode_record(&key, v.value(), &|| self.record_dict())?;
            keys.insert((rec.kind.tag(), key), ())?;
        }
        drop((keys, records));
        self.txn.open_table(META)?.insert(BY_KIND_READY, [1u8].as_slice())?;
        Ok(())
    }

    /// Sets a store-wide setting (see [`ReadTxn::meta_value`]).
    pub fn set_meta_value(&mut self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(META)?;
        table.insert(format!("setting.{key}").as_str(), value)?;
        Ok(())
    }

    /// Sets or clears a store-wide flag.
    pub fn set_flag(&mut self, name: &str, on: bool) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(META)?;
        let key = format!("flag.{name}");
        if on {
            table.insert(key.as_str(), [1u8].as_slice())?;
        } else {
            table.remove(key.as_str())?;
        }
        Ok(())
    }

    /// Rebuilds the facet index from scratch at commit: its tables are emptied now and every
    /// file's rows are written again from the records, so rows that disagree with the records
    /// or belong to no file are gone. Returns the number of files that will be indexed.
    pub fn rebuild_index(&mut self) -> Result<usize, StoreError> {
        crate::query::clear(&self.txn)?;
        self.txn.open_table(META)?.remove(BY_KIND_READY)?;
        self.ensure_by_kind()?;
        let files = self.files()?;
        let n = files.len();
        for layout in files {
            self.dirty.insert(layout.path);
        }
        Ok(n)
    }

    /// Inserts or replaces a record under its case hash.
    pub fn put_record(&mut self, rec: &Record) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(RECORDS)?;
        // Only entries are in the facet index: other records never make a file dirty, which
        // keeps a hit (one search event) from re-reading the whole search log at commit.
        let key = rec.case_hash();
        let replaced =
            table.insert(key.0, self.encode_record(rec).as_slice())?.map(|v| v.value().to_vec());
        drop(table);
        let is_new = replaced.is_none();
        self.after_put(rec, replaced)?;
        if is_new && self.txn.open_table(BY_KIND)?.insert((rec.kind.tag(), key.0), ())?.is_none() {
            self.count_kind(rec.kind, 1);
        }
        Ok(())
    }

    /// Inserts or replaces many records, each with its sync mark: what [`Self::put_record`]
    /// and [`Self::set_record_sync`] do one record at a time, done table by table in key
    /// order. Keys are blake3 hashes, so records written in any other order land in random
    /// leaves, and redb splits a leaf it inserts into the middle of in two halves: a first
    /// import written file by file left the records, sync mark and kind tables about half
    /// full (measured at 100k entries: 67 MB of the records table's 198 MB was slack). Written
    /// in key order, each insert goes to the end of the last leaf, and the leaves are full.
    pub fn put_records(&mut self, records: &[(&Record, SyncMark)]) -> Result<(), StoreError> {
        // Each record's key and place in `records` (at 100k entries, ~230k of them: the record
        // and its mark are looked up by place rather than copied beside the key).
        let mut keyed: Vec<(CaseHash, usize)> =
            records.iter().enumerate().map(|(at, (rec, _))| (rec.case_hash(), at)).collect();
        keyed.sort_unstable_by_key(|&(key, _)| key);
        let mut replaced = Vec::with_capacity(keyed.len());
        // The values are encoded (and packed) on a second thread, a batch ahead of their
        // insertion here: at a first import of 100k entries each side costs about a second.
        // A dictionary that cannot be read leaves the records plain, as `encode_record` does.
        let dict = self.known_dict().ok().flatten();
        let mut table = self.txn.open_table(RECORDS)?;
        std::thread::scope(|s| -> Result<(), StoreError> {
            let (send, encoded) = std::sync::mpsc::sync_channel::<Vec<Vec<u8>>>(2);
            let (keyed, dict) = (&keyed, dict.as_deref());
            let encoder = s.spawn(move || {
                for batch in keyed.chunks(PUT_BATCH) {
                    let values = batch
                        .iter()
                        .map(|&(_, at)| codec::encode_record(records[at].0, dict))
                        .collect();
                    // The receiver is gone only when an insert failed.
                    if send.send(values).is_err() {
                        return;
                    }
                }
            });
            for (batch, values) in keyed.chunks(PUT_BATCH).zip(encoded.iter()) {
                for ((key, _), value) in batch.iter().zip(values) {
                    replaced
                        .push(table.insert(key.0, value.as_slice())?.map(|v| v.value().to_vec()));
                }
            }
            drop(encoded);
            if let Err(panic) = encoder.join() {
                std::panic::resume_unwind(panic);
            }
            Ok(())
        })?;
        drop(table);
        debug_assert_eq!(replaced.len(), keyed.len(), "every record is encoded and inserted");
        {
            let mut table = self.txn.open_table(RECORD_SYNC)?;
            for &(key, at) in &keyed {
                table.insert(key.0, records[at].1.text_hash)?;
            }
        }
        // The new rows' places in `keyed` (so in key order), by kind: the kind index is ordered
        // by kind tag, then key, and is filled kind by kind in that order, without a sorted copy
        // of every new row.
        let mut new_by_kind: Vec<Vec<usize>> = vec![Vec::new(); Kind::ALL.len()];
        for (i, (&(_, at), old)) in keyed.iter().zip(replaced).enumerate() {
            let rec = records[at].0;
            if old.is_none() {
                new_by_kind[rec.kind as usize].push(i);
            }
            self.after_put(rec, old)?;
        }
        let mut kinds = Kind::ALL.to_vec();
        kinds.sort_unstable_by_key(|k| k.tag());
        let mut added: Vec<(Kind, i64)> = Vec::new();
        {
            let mut by_kind = self.txn.open_table(BY_KIND)?;
            for kind in kinds {
                let mut n = 0;
                for &i in &new_by_kind[kind as usize] {
                    if by_kind.insert((kind.tag(), keyed[i].0 .0), ())?.is_none() {
                        n += 1;
                    }
                }
                if n > 0 {
                    added.push((kind, n));
                }
            }
        }
        for (kind, n) in added {
            self.count_kind(kind, n);
        }
        Ok(())
    }

    /// What a put of `rec` changes besides its row: the files marked dirty, the index work for
    /// the commit. `replaced` is the value the put replaced.
    fn after_put(&mut self, rec: &Record, replaced: Option<Vec<u8>>) -> Result<(), StoreError> {
        self.events_changed |= rec.kind == Kind::SearchEvent;
        // Whether the record's search document may differ from the one the index holds.
        let mut search_changed = true;
        if let Some(old) = replaced {
            if let Ok(old) = codec::decode_record::<Record>(&old, || self.record_dict()) {
                if old.file != rec.file {
                    self.mark_dirty(&old.file)?;
                }
                // A change the search document does not show (`update --set origin_task=…`)
                // leaves the index as it is: updating it is a tantivy commit, the largest cost
                // of a one-field write.
                search_changed = !self.indexer.searchable(old.kind)
                    || self.indexer.search_doc(&old) != self.indexer.search_doc(rec);
                if self.indexer.queryable(old.kind) {
                    self.reindex_file(&old.file);
                }
            }
        }
        self.mark_dirty(&rec.file)?;
        if self.indexer.queryable(rec.kind) {
            self.reindex_file(&rec.file);
        }
        if self.indexer.searchable(rec.kind) && search_changed {
            self.dirty_search.insert(rec.case_hash());
        }
        Ok(())
    }

    /// Removes a record and its sync mark. Returns whether it existed.
    pub fn delete_record(&mut self, key: &CaseHash) -> Result<bool, StoreError> {
        let old = self.txn.open_table(RECORDS)?.remove(key.0)?.map(|v| v.value().to_vec());
        let existed = old.is_some();
        let old = old.and_then(|b| codec::decode_record::<Record>(&b, || self.record_dict()).ok());
        if let Some(rec) = old {
            self.events_changed |= rec.kind == Kind::SearchEvent;
            if self.txn.open_table(BY_KIND)?.remove((rec.kind.tag(), key.0))?.is_some() {
                self.count_kind(rec.kind, -1);
            }
            self.mark_dirty(&rec.file)?;
            if self.indexer.searchable(rec.kind) {
                self.dirty_search.insert(*key);
            }
            if self.indexer.queryable(rec.kind) {
                self.reindex_file(&rec.file);
            }
        }
        self.txn.open_table(RECORD_SYNC)?.remove(key.0)?;
        Ok(existed)
    }

    /// Records that the record under `key` matched its markdown with this text hash.
    pub fn set_record_sync(&mut self, key: &CaseHash, mark: SyncMark) -> Result<(), StoreError> {
        self.txn.open_table(RECORD_SYNC)?.insert(key.0, mark.text_hash)?;
        Ok(())
    }

    /// Inserts or replaces a file layout (records appended to the file since are part of the
    /// old layout: `layout` replaces them too).
    pub fn put_file(&mut self, layout: &FileLayout) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(FILES)?;
        table.insert(layout.path.as_str(), crate::layouts::CHUNKED)?;
        drop(table);
        let mut chunks = self.txn.open_table(crate::layouts::FILE_CHUNKS)?;
        let mut at = self.txn.open_table(crate::layouts::FILE_ITEM_AT)?;
        crate::layouts::clear(&mut chunks, &mut at, &layout.path)?;
        crate::layouts::write_items(&mut chunks, &mut at, &layout.path, &layout.items)?;
        drop((chunks, at));
        self.clear_file_tail(&layout.path)?;
        self.mark_dirty(&layout.path)?;
        // A new layout moves the lines of the entries the file already holds.
        if self.has_indexed_entries(&layout.path)? {
            self.reindex_file(&layout.path);
        }
        Ok(())
    }

    /// Replaces the items of chunk `number` of the stored layout of `path` (a number
    /// [`ReadTxn::locate_in_file`] or [`ReadTxn::file_chunk_beside`] gave) by `items`: the
    /// cost of a one-item change is one chunk, whatever the file's size. Records appended to
    /// the file since stay after the layout. A chunk left empty is removed; one grown long is
    /// split (or, when its neighbours leave no room, the whole layout is written again).
    pub fn put_file_chunk(
        &mut self,
        path: &str,
        number: u64,
        items: &[LayoutItem],
    ) -> Result<(), StoreError> {
        if !self.has_chunked_layout(path)? {
            return Err(StoreError::Corrupted {
                table: "file_chunks",
                key: path.into(),
                detail: format!("chunk {number} was changed, but the file has no chunked layout"),
            });
        }
        let mut chunks = self.txn.open_table(crate::layouts::FILE_CHUNKS)?;
        let mut at = self.txn.open_table(crate::layouts::FILE_ITEM_AT)?;
        if !crate::layouts::replace_chunk(&mut chunks, &mut at, path, number, items)? {
            // No room to split between the neighbours: renumber the whole layout.
            let mut all = Vec::new();
            for row in chunks.range((path, 0)..=(path, u64::MAX))? {
                let (k, v) = row?;
                if k.value().1 == number {
                    all.extend_from_slice(items);
                } else {
                    all.extend(crate::layouts::decode_chunk(path, v.value())?);
                }
            }
            crate::layouts::clear(&mut chunks, &mut at, path)?;
            crate::layouts::write_items(&mut chunks, &mut at, path, &all)?;
        }
        drop((chunks, at));
        self.mark_dirty(path)?;
        if self.has_indexed_entries(path)? {
            self.reindex_file(path);
        }
        Ok(())
    }

    /// Removes a file layout and its sync mark.
    pub fn delete_file(&mut self, path: &str) -> Result<(), StoreError> {
        self.txn.open_table(FILES)?.remove(path)?;
        crate::layouts::clear(
            &mut self.txn.open_table(crate::layouts::FILE_CHUNKS)?,
            &mut self.txn.open_table(crate::layouts::FILE_ITEM_AT)?,
            path,
        )?;
        self.txn.open_table(FILE_SYNC)?.remove(path)?;
        self.txn.open_table(FILE_STAT)?.remove(path)?;
        self.clear_file_tail(path)?;
        self.txn.open_table(FILE_DIRTY)?.remove(path)?;
        self.marked_dirty.remove(path);
        if self.has_indexed_entries(path)? {
            self.reindex_file(path);
        }
        Ok(())
    }

    fn has_indexed_entries(&self, path: &str) -> Result<bool, StoreError> {
        let table = self.txn.open_table(crate::query::FILES)?;
        crate::query::has_rows(&table, path)
    }

    /// Records that the file at `path` matched its markdown with this byte hash.
    pub fn set_file_sync(&mut self, path: &str, mark: SyncMark) -> Result<(), StoreError> {
        self.txn.open_table(FILE_SYNC)?.insert(path, mark.text_hash)?;
        Ok(())
    }

    /// Records the stat fingerprint of the file at `path` as it matched the store.
    pub fn set_file_stat(&mut self, path: &str, stat: &FileStat) -> Result<(), StoreError> {
        self.txn.open_table(FILE_STAT)?.insert(path, stat.encode())?;
        Ok(())
    }

    /// Keeps `value`, an answer derived from the record under `key`, in the derived-answer
    /// cache under `namespace`, replacing any earlier one. The value must carry what it was
    /// derived from (a hash of the record's text, the deriving code's version): the store
    /// keeps it through later changes of the record, outside the digest.
    pub fn put_derived(
        &mut self,
        namespace: &str,
        key: &CaseHash,
        value: &[u8],
    ) -> Result<(), StoreError> {
        self.txn.open_table(DERIVED)?.insert((namespace, key.0), value)?;
        Ok(())
    }

    /// The derived answer kept for `key` under `namespace`, as this transaction sees it.
    pub fn derived_value(
        &self,
        namespace: &str,
        key: &CaseHash,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let table = self.txn.open_table(DERIVED)?;
        let value = table.get((namespace, key.0))?.map(|v| v.value().to_vec());
        Ok(value)
    }

    /// Drops the derived answer kept for `key` under `namespace`, if any.
    pub fn remove_derived(&mut self, namespace: &str, key: &CaseHash) -> Result<(), StoreError> {
        self.txn.open_table(DERIVED)?.remove((namespace, key.0))?;
        Ok(())
    }

    /// Forgets the stat fingerprint of the file at `path`, so the next import reads it.
    pub fn clear_file_stat(&mut self, path: &str) -> Result<(), StoreError> {
        self.txn.open_table(FILE_STAT)?.remove(path)?;
        Ok(())
    }

    /// Appends the record under `key` to the end of the file at `path`, which must have a
    /// layout: the cost is one table insert, whatever the file's size.
    pub fn append_to_file(&mut self, path: &str, key: &CaseHash) -> Result<(), StoreError> {
        if self.txn.open_table(FILES)?.get(path)?.is_none() {
            self.put_file(&FileLayout { path: path.into(), items: Vec::new() })?;
        }
        let mut tail = self.txn.open_table(FILE_TAIL)?;
        let next = match tail.range((path, 0)..=(path, u64::MAX))?.next_back().transpose()? {
            Some((k, _)) => k.value().1 + 1,
            None => 0,
        };
        tail.insert((path, next), key.0)?;
        drop(tail);
        self.mark_dirty(path)?;
        Ok(())
    }

    fn clear_file_tail(&mut self, path: &str) -> Result<(), StoreError> {
        let mut tail = self.txn.open_table(FILE_TAIL)?;
        tail.retain_in((path, 0)..=(path, u64::MAX), |_, _| false)?;
        Ok(())
    }

    /// Inserts or replaces an item of a collection. Returns whether anything changed, so a
    /// re-import of the same data can report that it added nothing.
    pub fn put_item<T: serde::Serialize>(
        &mut self,
        c: Collection,
        key: &[u8],
        value: &T,
    ) -> Result<bool, StoreError> {
        let bytes = codec::encode(value);
        let mut table = self.txn.open_table(c.def())?;
        let same = table.get(key)?.is_some_and(|old| old.value() == bytes.as_slice());
        if !same {
            table.insert(key, bytes.as_slice())?;
        }
        Ok(!same)
    }

    /// Removes every item whose key starts with `prefix`. Returns how many were removed.
    pub fn remove_items_with_prefix(
        &mut self,
        c: Collection,
        prefix: &[u8],
    ) -> Result<u64, StoreError> {
        let mut table = self.txn.open_table(c.def())?;
        let keys: Vec<Vec<u8>> = table
            .range(prefix..)?
            .map_while(|row| match row {
                Ok((k, _)) if k.value().starts_with(prefix) => Some(Ok(k.value().to_vec())),
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<_, _>>()?;
        for k in &keys {
            table.remove(k.as_slice())?;
        }
        Ok(keys.len() as u64)
    }

    /// Brings the derived indexes up to date with what this transaction wrote so far: the
    /// facet rows of every file whose records or layout changed, and the search documents of
    /// the searchable records written or deleted. [`Self::commit`] does this for whatever is
    /// still pending, so calling it first only moves the work earlier: `evokb import` calls it
    /// while another thread judges the imported records, so that building the indexes and
    /// judging, the two largest costs of a first import, run on both cores.
    ///
    /// The facet rows are written into this transaction and land with its commit, or not at
    /// all. The search documents of a few changed records (with those already pending, at
    /// most [`SEARCH_DEFER_MAX`]) are left to the next reader of the index: their keys go
    /// into [`SEARCH_PENDING`] in this transaction, so they land with the records or not at
    /// all. More than that are replaced in the index now, pending ones included, as the commit
    /// would just before committing; a transaction that is dropped afterwards leaves the index
    /// at a generation no commit of the records has, which the next search notices and
    /// answers by rebuilding it, as after any failed commit.
    pub fn update_indexes(&mut self) -> Result<(), StoreError> {
        let files = std::mem::take(&mut self.dirty)
            .into_iter()
            .map(|path| Ok((path.clone(), self.file(&path)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        crate::query::reindex_files(&self.txn, &files, &|h| self.record(h), self.indexer.as_ref())?;
        if self.dirty_search.is_empty() {
            return Ok(());
        }
        let old = self.search_generation()?;
        let gen = fresh_generation(old);
        let mut pending = self.txn.open_table(SEARCH_PENDING)?;
        let held = pending.len()?;
        // Without an index there is nothing to catch up: it is built now, as the first import
        // builds it, rather than by the next search (which would say it was missing).
        let exists = self.search_dir.join("meta.json").exists();
        if exists && held + self.dirty_search.len() as u64 <= SEARCH_DEFER_MAX {
            for key in &self.dirty_search {
                pending.insert(key.0, ())?;
            }
            drop(pending);
            let mut meta = self.txn.open_table(META)?;
            if held == 0 {
                // The index answered for the records at `old` (if it is there at all).
                meta.insert(SEARCH_BASE_KEY, old.to_be_bytes().as_slice())?;
            }
            meta.insert(SEARCH_GEN_KEY, gen.to_be_bytes().as_slice())?;
            drop(meta);
            self.dirty_search.clear();
            return Ok(());
        }
        drop(pending);
        let (pending, base) = self.search_pending()?;
        // The generation the index must be at for replacing the changed documents to be
        // enough: the base while keys are pending, else the last commit's.
        let from = if pending.is_empty() { Some(old) } else { base };
        let mut keys = std::mem::take(&mut self.dirty_search);
        keys.extend(pending);
        self.clear_search_pending()?;
        self.txn.open_table(META)?.insert(SEARCH_GEN_KEY, gen.to_be_bytes().as_slice())?;
        // A failure (or a panic inside tantivy) here leaves the index behind the records;
        // the next search notices the generation mismatch and rebuilds it, so the records'
        // commit goes ahead.
        let this = &*self;
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            this.sync_search(from, gen, &keys)
        }));
        Ok(())
    }

    /// Empties [`SEARCH_PENDING`] and forgets its base generation: the index is being brought
    /// to (or rebuilt at) a new generation that includes every pending document.
    fn clear_search_pending(&mut self) -> Result<(), StoreError> {
        if self.txn.open_table(SEARCH_PENDING)?.is_empty()? {
            return Ok(());
        }
        self.txn.delete_table(SEARCH_PENDING)?;
        self.txn.open_table(META)?.remove(SEARCH_BASE_KEY)?;
        Ok(())
    }

    /// Brings the search index up to the records by replacing the pending documents
    /// ([`SEARCH_PENDING`]) at a fresh generation, which this transaction records, with the
    /// pending keys gone. Returns false, having changed nothing, when nothing is pending or the
    /// index is not at the base generation (missing, damaged, or left elsewhere by a write
    /// that did not commit): then only a rebuild helps.
    ///
    /// The index commit comes first: if this transaction is then dropped, the index is at a
    /// generation the records never reach, and the next reader rebuilds it.
    fn catch_up_search(&mut self) -> Result<bool, StoreError> {
        let (pending, Some(base)) = self.search_pending()? else { return Ok(false) };
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for key in &pending {
            match self.search_doc(key).map_err(|detail| {
                StoreError::Search(crate::search::SearchError::Resolve { detail })
            })? {
                Some(doc) => added.push(doc),
                None => removed.push(*key),
            }
        }
        let gen = fresh_generation(self.search_generation()?);
        let applied =
            with_sound_index(&self.search_dir, base, |idx| idx.apply(&removed, added, gen));
        if applied.is_err() {
            return Ok(false);
        }
        self.clear_search_pending()?;
        self.txn.open_table(META)?.insert(SEARCH_GEN_KEY, gen.to_be_bytes().as_slice())?;
        Ok(true)
    }

    /// Gives the search index a fresh generation with nothing pending, for a rebuild of it
    /// from the records that this transaction will commit. Returns the generation.
    fn restart_search_generation(&mut self) -> Result<u64, StoreError> {
        let gen = fresh_generation(self.search_generation()?);
        self.clear_search_pending()?;
        self.txn.open_table(META)?.insert(SEARCH_GEN_KEY, gen.to_be_bytes().as_slice())?;
        Ok(gen)
    }

    /// Makes every change of the transaction durable, or none of them.
    pub fn commit(mut self) -> Result<(), StoreError> {
        self.store_kind_counts()?;
        if self.events_changed {
            crate::events::raise_events_generation(&self.txn)?;
        }
        self.update_indexes()?;
        self.txn.commit()?;
        if let Some(dict) = self.new_dict.take() {
            // Committed now: the handle may decode with it.
            let _ = self.dict.set(dict);
        }
        if let Some(dir) = &self.stamp_dir {
            record_stamp(dir);
        }
        Ok(())
    }

    /// Brings the search index to generation `gen`: the documents of `keys` replaced when the
    /// index is at generation `from`, else a full rebuild.
    fn sync_search(
        &self,
        from: Option<u64>,
        gen: u64,
        keys: &std::collections::BTreeSet<CaseHash>,
    ) -> Result<(), StoreError> {
        use crate::search::SearchIndex;
        match SearchIndex::open(&self.search_dir) {
            // Past a few thousand changed documents a rebuild, which reads the records in key
            // order and holds one at a time, is cheaper than replacing each document.
            Ok(idx)
                if from.is_some() && idx.generation() == from && keys.len() <= SEARCH_APPLY_MAX =>
            {
                let mut removed = Vec::new();
                let mut added = Vec::new();
                for key in keys {
                    let doc = self
                        .record(key)?
                        .filter(|r| self.indexer.searchable(r.kind))
                        .and_then(|r| self.indexer.search_doc(&r));
                    match doc {
                        Some(doc) => added.push(doc),
                        None => removed.push(*key),
                    }
                }
                idx.apply(&removed, added, gen)?;
            }
            _ => {
                self.rebuild_search(&self.search_dir, gen)?;
            }
        }
        Ok(())
    }

    /// Rebuilds the search index in `dir` at generation `gen` from the records, making each
    /// document as tantivy takes it: one record decoded at a time, not every record and
    /// document held at once. Returns the index and how many documents it holds.
    fn rebuild_search(
        &self,
        dir: &Path,
        gen: u64,
    ) -> Result<(crate::search::SearchIndex, usize), StoreError> {
        let table = self.txn.open_table(RECORDS)?;
        let mut failed: Option<StoreError> = None;
        let dict = || self.record_dict();
        let docs = table
            .iter()?
            .map_while(|row| {
                let rec = row
                    .map_err(StoreError::from)
                    .and_then(|(k, v)| decode_record(&k.value(), v.value(), &dict));
                match rec {
                    Ok(rec) => Some(rec),
                    Err(e) => {
                        failed = Some(e);
                        None
                    }
                }
            })
            .filter(|r| self.indexer.searchable(r.kind))
            .filter_map(|r| self.indexer.search_doc(&r));
        let built = crate::search::SearchIndex::rebuild(dir, docs, gen);
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(built?)
    }
}

/// The digest's input, gathered in a buffer that goes to the hasher in large pieces: fed one
/// field at a time (most of them a few bytes), blake3 spent more time on the calls than on
/// hashing, and a large piece lets it hash many chunks at once. The bytes hashed, and so the
/// digest, are the same.
struct DigestInput {
    hasher: blake3::Hasher,
    buf: Vec<u8>,
}

impl DigestInput {
    const FLUSH_AT: usize = 256 << 10;

    fn new() -> DigestInput {
        DigestInput {
            hasher: blake3::Hasher::new(),
            buf: Vec::with_capacity(Self::FLUSH_AT + 4096),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= Self::FLUSH_AT {
            self.flush();
        }
    }

    /// The hasher, with everything gathered so far fed to it.
    fn hasher(&mut self) -> &mut blake3::Hasher {
        self.flush();
        &mut self.hasher
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buf);
        self.buf.clear();
    }
}

fn digest_str(hasher: &mut DigestInput, s: &str) {
    hasher.update(&(s.len() as u64).to_be_bytes());
    hasher.update(s.as_bytes());
}

fn digest_record(hasher: &mut DigestInput, rec: &Record) {
    hasher.update(b"R");
    digest_str(hasher, rec.kind.tag());
    digest_str(hasher, &rec.id);
    digest_str(hasher, &rec.file);
    hasher.update(&(rec.segments.len() as u64).to_be_bytes());
    for seg in &rec.segments {
        match seg {
            Segment::Lit(s) => {
                hasher.update(b"l");
                digest_str(hasher, s);
            }
            Segment::Field { key, value } => {
                hasher.update(b"f");
                digest_str(hasher, key);
                digest_str(hasher, value);
            }
            Segment::Body(s) => {
                hasher.update(b"b");
                digest_str(hasher, s);
            }
        }
    }
}

fn digest_layout(hasher: &mut DigestInput, layout: &FileLayout) {
    hasher.update(b"F");
    digest_str(hasher, &layout.path);
    hasher.update(&(layout.items.len() as u64).to_be_bytes());
    for item in &layout.items {
        match item {
            LayoutItem::Prose(s) => {
                hasher.update(b"p");
                digest_str(hasher, s);
            }
            LayoutItem::Record(h) => {
                hasher.update(b"r");
                hasher.update(&h.0);
            }
        }
    }
}

/// The default location of a store inside a knowledge base: `<root>/.evokb`.
pub fn store_dir(kb_root: &Path) -> PathBuf {
    kb_root.join(".evokb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, text: &str) -> Record {
        Record {
            kind: Kind::Entry,
            id: id.into(),
            file: "t.md".into(),
            segments: vec![Segment::Lit(text.into())],
        }
    }

    /// Searches entries by their text; `status: X` in the text is the `status` facet.
    struct TextIndexer;

    impl Indexer for TextIndexer {
        fn queryable(&self, _: Kind) -> bool {
            false
        }
        fn searchable(&self, kind: Kind) -> bool {
            kind == Kind::Entry
        }
        fn query_row(&self, _: &Record, _: u64) -> Option<crate::query::QueryRow> {
            None
        }
        fn search_doc(&self, rec: &Record) -> Option<crate::search::SearchDoc> {
            let text = rec.text();
            let status = text.split("status: ").nth(1).map(|s| s.split_whitespace().next());
            let filters = status.flatten().map(|s| ("status".to_string(), s.to_lowercase()));
            Some(crate::search::SearchDoc {
                key: rec.case_hash(),
                id: rec.id.clone(),
                source: "test".into(),
                title: rec.id.clone(),
                path: rec.file.to_string(),
                body: text,
                facets: BTreeMap::new(),
                filters: filters.into_iter().collect(),
            })
        }
    }

    fn search_store(dir: &Path) -> Store {
        Store::create(dir, Arc::new(TextIndexer)).expect("create")
    }

    fn put(store: &Store, records: &[Record]) {
        let mut w = store.write().expect("write");
        for r in records {
            w.put_record(r).expect("put");
        }
        w.commit().expect("commit");
    }

    fn found(store: &Store, text: &str, status: Option<&str>) -> (Vec<String>, bool) {
        let mut q =
            crate::search::SearchQuery { text: text.into(), top: 1000, ..Default::default() };
        if let Some(s) = status {
            q.facets.insert("status".into(), vec![s.into()]);
        }
        let out = store.search(&q).expect("search");
        let mut ids: Vec<String> = out.hits.into_iter().map(|h| h.id).collect();
        ids.sort();
        (ids, out.rebuilt.is_some())
    }

    fn pending(store: &Store) -> usize {
        store.read().expect("read").search_pending().expect("pending").0.len()
    }

    /// Ten entries, searched once so that the index exists and is current.
    fn indexed_store(dir: &Path) -> Store {
        let store = search_store(dir);
        let recs: Vec<Record> = (0..10)
            .map(|i| rec(&format!("e{i}"), &format!("alpha word{i} status: verified")))
            .collect();
        put(&store, &recs);
        assert_eq!(found(&store, "alpha", None).0.len(), 10);
        store
    }

    #[test]
    fn a_search_after_writes_left_pending_sees_every_change_and_says_nothing(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = indexed_store(dir.path());
        assert_eq!(pending(&store), 0);
        put(&store, &[rec("e1", "alpha beta status: stale")]);
        put(&store, &[rec("e2", "gamma status: stale")]);
        put(&store, &[rec("n1", "beta status: verified")]);
        let mut w = store.write()?;
        w.delete_record(&rec("e3", "").case_hash())?;
        w.commit()?;
        assert_eq!(pending(&store), 4, "each write left its document to the next reader");
        assert_eq!(found(&store, "beta", None), (vec!["e1".into(), "n1".into()], false));
        assert_eq!(pending(&store), 0, "the search caught the index up and said nothing");
        assert_eq!(found(&store, "alpha", Some("stale")), (vec!["e1".into()], false));
        assert_eq!(found(&store, "gamma", None).0, ["e2"]);
        assert_eq!(found(&store, "word3", None).0, Vec::<String>::new(), "deleted");
        assert_eq!(found(&store, "word2", None).0, Vec::<String>::new(), "replaced");
        Ok(())
    }

    #[test]
    fn a_catch_up_whose_commit_is_lost_is_repaired_by_the_next_search(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = indexed_store(dir.path());
        put(&store, &[rec("e1", "alpha beta status: stale")]);
        // A crash after the catch-up committed tantivy and before redb committed the cleared
        // keys: the index holds the change at a generation the records never reach.
        let mut w = store.write()?;
        assert!(w.catch_up_search()?);
        drop(w);
        assert_eq!(pending(&store), 1);
        put(&store, &[rec("e2", "delta status: stale")]);
        let (ids, rebuilt) = found(&store, "beta delta", None);
        assert_eq!(ids, ["e1", "e2"]);
        assert!(rebuilt, "the index was not at the base generation: rebuilt");
        assert_eq!(pending(&store), 0);
        assert_eq!(found(&store, "delta", None), (vec!["e2".into()], false), "then quiet");
        Ok(())
    }

    #[test]
    fn an_index_written_by_a_dropped_write_is_never_taken_for_a_later_commits(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = indexed_store(dir.path());
        // Enough documents to be written to the index before the commit, which never comes.
        let mut w = store.write()?;
        for i in 0..=SEARCH_DEFER_MAX {
            w.put_record(&rec(&format!("x{i}"), "ghost status: verified"))?;
        }
        w.update_indexes()?;
        drop(w);
        put(&store, &[rec("e1", "alpha ghost status: stale")]);
        let (ids, rebuilt) = found(&store, "ghost", None);
        assert_eq!(ids, ["e1"], "only the committed record");
        assert!(rebuilt);
        Ok(())
    }

    #[test]
    fn many_pending_changes_are_written_by_the_write_that_passes_the_bound(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = indexed_store(dir.path());
        for i in 0..SEARCH_DEFER_MAX {
            put(&store, &[rec(&format!("p{i}"), "many status: verified")]);
        }
        assert_eq!(pending(&store), SEARCH_DEFER_MAX as usize);
        put(&store, &[rec("last", "many status: stale")]);
        assert_eq!(pending(&store), 0, "the write past the bound replaced them all");
        let (ids, rebuilt) = found(&store, "many", None);
        assert_eq!(ids.len(), SEARCH_DEFER_MAX as usize + 1);
        assert!(!rebuilt);
        Ok(())
    }

    #[test]
    fn same_topic_candidates_come_from_the_records_for_documents_the_index_holds_stale(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = indexed_store(dir.path());
        put(&store, &[rec("e1", "omega kappa status: stale")]);
        let mut w = store.write()?;
        // One change of this transaction's own, not yet anywhere.
        w.put_record(&rec("e2", "omega sigma status: verified"))?;
        let ask = |terms: &[&str], min: usize, status: Option<&str>| {
            let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
            let mut facets = BTreeMap::new();
            if let Some(s) = status {
                facets.insert("status".to_string(), vec![s.to_string()]);
            }
            let mut seen = Vec::new();
            let answered = w
                .search_sharing(&terms, min, &facets, &mut |n, key| {
                    seen.push((n, key));
                    true
                })
                .expect("sharing");
            assert!(answered);
            let mut ids: Vec<(usize, String)> = seen
                .into_iter()
                .map(|(n, k)| (n, w.record(&k).expect("read").expect("held").id))
                .collect();
            // Most held first.
            assert!(ids.windows(2).all(|p| p[0].0 >= p[1].0), "{ids:?}");
            ids.sort();
            ids
        };
        assert_eq!(ask(&["omega"], 1, None), [(1, "e1".into()), (1, "e2".into())]);
        assert_eq!(ask(&["omega", "kappa"], 1, None), [(1, "e2".into()), (2, "e1".into())]);
        assert_eq!(ask(&["omega", "kappa"], 1, Some("verified")), [(1, "e2".into())]);
        assert_eq!(ask(&["word1", "word2"], 1, None), Vec::<(usize, String)>::new(), "old text");
        assert_eq!(ask(&["alpha", "word5"], 2, None), [(2, "e5".into())]);
        let mut first = None;
        w.search_sharing(&["omega".into(), "kappa".into()], 1, &BTreeMap::new(), &mut |n, k| {
            first = Some((n, k));
            false
        })?;
        assert_eq!(first, Some((2, rec("e1", "").case_hash())), "a stop is honoured");
        Ok(())
    }

    #[test]
    fn a_chunked_layout_reads_back_whole_after_chunk_edits_and_splits(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        let key = |n: usize| CaseHash::of(Kind::IndexRow, &format!("R-{n}"));
        let mut items = vec![LayoutItem::Prose("# head\n".into())];
        items.extend((0..1000).map(|n| LayoutItem::Record(key(n))));
        items.push(LayoutItem::Prose("tail\n".into()));
        let mut w = store.write()?;
        w.put_file(&FileLayout { path: "big.md".into(), items: items.clone() })?;
        let tailed = CaseHash::of(Kind::IndexRow, "appended");
        w.append_to_file("big.md", &tailed)?;
        w.commit()?;
        let r = store.read()?;
        let pos = r.locate_in_file("big.md", &key(600))?.ok_or("located")?;
        let third = (601 / crate::layouts::CHUNK_ITEMS) as u64 * crate::layouts::CHUNK_STEP;
        assert_eq!(pos.chunk, third, "item 601 is where chunks of CHUNK_ITEMS put it");
        assert_eq!(r.locate_in_file("big.md", &tailed)?, None, "the tail is not in a chunk");
        let mut chunk = r.file_chunk("big.md", pos.chunk)?.ok_or("chunk")?;
        assert_eq!(chunk[pos.index], LayoutItem::Record(key(600)));
        // Grow the chunk past its limit: it splits, and every reader sees the same items.
        let extra: Vec<LayoutItem> = (5000..5600).map(|n| LayoutItem::Record(key(n))).collect();
        chunk.splice(pos.index + 1..pos.index + 1, extra.clone());
        let at = items.iter().position(|i| *i == LayoutItem::Record(key(600))).ok_or("at")?;
        items.splice(at + 1..at + 1, extra);
        drop(r);
        let mut w = store.write()?;
        w.put_file_chunk("big.md", pos.chunk, &chunk)?;
        w.commit()?;
        let r = store.read()?;
        let mut want = items.clone();
        want.push(LayoutItem::Record(tailed));
        assert_eq!(r.file("big.md")?.ok_or("file")?.items, want);
        // The grown chunk was split: the last of the new rows is in a chunk of its own,
        // and the rows after it are still found where they moved.
        let last = r.locate_in_file("big.md", &key(5599))?.ok_or("split chunk located")?;
        assert!(last.chunk > pos.chunk && last.chunk < pos.chunk + crate::layouts::CHUNK_STEP);
        let moved = r.locate_in_file("big.md", &key(700))?.ok_or("moved row located")?;
        assert_eq!(
            r.file_chunk("big.md", moved.chunk)?.ok_or("c")?[moved.index],
            LayoutItem::Record(key(700))
        );
        let mut seen = Vec::new();
        assert!(r.scan_file("big.md", &mut |_, item| seen.push(item.to_item()))?);
        assert_eq!(seen, items);
        // The same items written whole give the same digest, however they are chunked.
        let other = tempfile::tempdir()?;
        let again = Store::create(other.path(), Arc::new(crate::NoIndex))?;
        let mut w = again.write()?;
        w.put_file(&FileLayout { path: "big.md".into(), items })?;
        w.append_to_file("big.md", &tailed)?;
        w.commit()?;
        assert_eq!(store.read()?.digest()?, again.read()?.digest()?);
        Ok(())
    }

    #[test]
    fn digest_ignores_write_order_and_sync_marks() -> Result<(), Box<dyn std::error::Error>> {
        let a = tempfile::tempdir()?;
        let b = tempfile::tempdir()?;
        let sa = Store::create(a.path(), Arc::new(crate::NoIndex))?;
        let sb = Store::create(b.path(), Arc::new(crate::NoIndex))?;
        let mut wa = sa.write()?;
        wa.put_record(&rec("x", "1"))?;
        wa.put_record(&rec("y", "2"))?;
        wa.commit()?;
        let mut wb = sb.write()?;
        wb.put_record(&rec("y", "2"))?;
        wb.put_record(&rec("x", "1"))?;
        wb.set_record_sync(&CaseHash::of(Kind::Entry, "x"), SyncMark { text_hash: [7; 32] })?;
        wb.commit()?;
        assert_eq!(sa.read()?.digest()?, sb.read()?.digest()?);
        let mut wb = sb.write()?;
        wb.put_record(&rec("x", "changed"))?;
        wb.commit()?;
        assert_ne!(sa.read()?.digest()?, sb.read()?.digest()?);
        Ok(())
    }

    #[test]
    fn kept_kind_counts_follow_every_write_and_agree_with_counting_the_keys(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        let gap = |id: &str| Record { kind: Kind::Gap, ..rec(id, "g") };
        let mut w = store.write()?;
        for id in ["a", "b", "c"] {
            w.put_record(&rec(id, "1"))?;
        }
        w.put_record(&gap("g"))?;
        // Inside the transaction the counts include its own changes.
        assert_eq!(w.counts()?, w.counted_kind_keys()?);
        w.commit()?;
        let want = BTreeMap::from([(Kind::Entry, 3), (Kind::Gap, 1)]);
        let r = store.read()?;
        assert_eq!((r.counts()?, r.counted_kind_keys()?), (want.clone(), want));
        assert!(r.cached_kind_counts()?.is_some(), "the commit keeps the counts");
        drop(r);
        let mut w = store.write()?;
        w.put_record(&rec("a", "replaced, not added"))?;
        w.delete_record(&CaseHash::of(Kind::Gap, "g"))?;
        w.delete_record(&CaseHash::of(Kind::Gap, "never there"))?;
        w.commit()?;
        let want = BTreeMap::from([(Kind::Entry, 3)]);
        assert_eq!(store.read()?.counts()?, want);
        // A rebuilt kind index is counted again.
        let mut w = store.write()?;
        w.rebuild_index()?;
        w.put_record(&gap("h"))?;
        w.commit()?;
        let r = store.read()?;
        assert_eq!(r.counts()?, BTreeMap::from([(Kind::Entry, 3), (Kind::Gap, 1)]));
        assert_eq!(r.counts()?, r.counted_kind_keys()?);
        drop(r);
        // Counts that no longer add up (a write by a build that does not keep them) are not
        // believed.
        let w = store.write()?;
        let stale: Vec<(String, u64)> = vec![("entry".into(), 7)];
        w.txn.open_table(META)?.insert(KIND_COUNTS, codec::encode(&stale).as_slice())?;
        w.txn.commit()?;
        assert_eq!(store.read()?.counts()?, BTreeMap::from([(Kind::Entry, 3), (Kind::Gap, 1)]));
        Ok(())
    }

    #[test]
    fn an_uncommitted_write_leaves_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        {
            let mut w = store.write()?;
            w.put_record(&rec("x", "1"))?;
            // dropped without commit
        }
        assert!(store.read()?.records()?.is_empty());
        Ok(())
    }

    #[test]
    fn a_writer_that_waits_too_long_gets_a_clear_busy_error(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let holder = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        let mut waiter = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        waiter.set_lock_wait(Duration::from_millis(50));
        let held = holder.write()?;
        let start = Instant::now();
        let err = waiter.write().err().ok_or("the second writer must wait")?;
        assert!(start.elapsed() >= Duration::from_millis(50));
        assert!(err.to_string().contains("the store is busy"), "{err}");
        assert!(err.to_string().contains("EVOKB_LOCK_TIMEOUT_MS"), "{err}");
        // Reads do not wait for the writer.
        assert!(waiter.read()?.records()?.is_empty());
        drop(held);
        assert!(waiter.write().is_ok(), "the lock is free again");
        Ok(())
    }

    #[test]
    fn a_write_handle_checks_the_file_unless_it_is_unchanged_since_a_checked_close(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        let mut w = store.write()?;
        w.put_record(&rec("x", "1"))?;
        w.commit()?;
        drop(store);
        let mut s = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        assert_eq!(s.ensure_checked()?, CheckOutcome::Unchanged);
        drop(s);
        // Any outside write, even of the same bytes, gives the file a new change time.
        let path = dir.path().join(DB_FILE);
        let bytes = std::fs::read(&path)?;
        std::fs::write(&path, &bytes)?;
        let mut s = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        assert_eq!(s.ensure_checked()?, CheckOutcome::Verified);
        drop(s);
        let mut s = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        assert_eq!(s.ensure_checked()?, CheckOutcome::Unchanged);
        drop(s);
        // The stamp is written in place: one caught half written matches no state of the file.
        let checked = dir.path().join(CHECKED_FILE);
        let stamp = std::fs::read(&checked)?;
        assert_eq!(stamp.len(), CHECKED_LEN);
        std::fs::write(&checked, &stamp[..stamp.len() / 3])?;
        let mut s = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        assert_eq!(s.ensure_checked()?, CheckOutcome::Verified);
        drop(s);
        // A stamp without padding (as evokb wrote it before stamps were written in place) counts.
        let stamp = std::fs::read_to_string(&checked)?;
        std::fs::write(&checked, format!("{}\n", stamp.trim_end()))?;
        let mut s = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        assert_eq!(s.ensure_checked()?, CheckOutcome::Unchanged);
        Ok(())
    }

    #[test]
    fn a_page_cache_smaller_than_the_values_still_writes_and_reads_them_whole(
    ) -> Result<(), Box<dyn std::error::Error>> {
        const BIG: Collection = Collection::new("coll.cache_test");
        let dir = tempfile::tempdir()?;
        drop(Store::create(dir.path(), Arc::new(crate::NoIndex))?);
        // Four values of 1 MiB through a 256 KiB cache: the write buffer holds none of them
        // whole, and a read cannot keep what it read.
        let values: Vec<String> = (0..4).map(|i| format!("{i}").repeat(1 << 20)).collect();
        let store = Store::open_with_cache(dir.path(), Arc::new(crate::NoIndex), 256 << 10)?;
        let mut w = store.write()?;
        for (i, v) in values.iter().enumerate() {
            w.put_item(BIG, &[u8::try_from(i)?], v)?;
        }
        w.commit()?;
        drop(store);
        let ro = Store::open_read_only_with_cache(dir.path(), Arc::new(crate::NoIndex), 256 << 10)?;
        let back: Vec<String> =
            ro.read()?.items::<String>(BIG)?.into_iter().map(|(_, v)| v).collect();
        assert_eq!(back, values);
        Ok(())
    }

    fn entry(i: usize) -> Record {
        Record {
            kind: Kind::Entry,
            id: format!("PL-{i}-synthetic"),
            file: format!("topic-{}.md", i % 7).into(),
            segments: vec![
                Segment::Lit("---\nid: ".into()),
                Segment::Field { key: "id".into(), value: format!("PL-{i}-synthetic").into() },
                Segment::Lit("\ntoolchain: ".into()),
                Segment::Field {
                    key: "toolchain".into(),
                    value: "tilelang 0.1.2 / CANN 8.5.0".into(),
                },
                Segment::Body(
                    format!("\n### tiling case {i}\n- measured {}µs\n", i * 13 % 997).into(),
                ),
            ],
        }
    }

    #[test]
    fn records_are_packed_once_a_dictionary_is_trained_and_read_back_by_any_handle(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        let recs: Vec<Record> = (0..RECORD_DICT_MIN_RECORDS + 500).map(entry).collect();
        let refs: Vec<&Record> = recs.iter().collect();
        // Too few records train nothing.
        let mut w = store.write()?;
        assert!(!w.train_record_dict(&refs[..10])?);
        // A dictionary trained by a transaction that is dropped is gone with it.
        assert!(w.train_record_dict(&refs)?);
        w.put_record(&recs[0])?;
        drop(w);
        assert!(store.dict.get().is_none());
        assert!(store.read()?.txn.open_table(META)?.get(RECORD_DICT_KEY)?.is_none());
        let mut w = store.write()?;
        assert!(w.train_record_dict(&refs)?);
        for rec in &recs {
            w.put_record(rec)?;
        }
        // Once a store has a dictionary it is never trained again.
        assert!(!w.train_record_dict(&refs)?);
        w.commit()?;
        let r = store.read()?;
        let table = r.txn.open_table(RECORDS)?;
        let packed = table
            .iter()?
            .filter(|row| row.as_ref().is_ok_and(|(_, v)| codec::is_packed(v.value())));
        assert_eq!(packed.count(), recs.len());
        drop((table, r));
        let digest = store.read()?.digest()?;
        drop(store);
        // A new handle loads the dictionary from the file.
        let again = Store::open(dir.path(), Arc::new(crate::NoIndex))?;
        let back = again.read()?.records()?;
        assert_eq!(back.len(), recs.len());
        assert_eq!(again.read()?.record(&recs[7].case_hash())?, Some(recs[7].clone()));
        assert_eq!(again.read()?.digest()?, digest);
        Ok(())
    }

    #[test]
    fn a_format_1_store_reads_and_is_raised_to_the_current_format_by_a_write(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(crate::NoIndex))?;
        // What a format-1 build left: plain values and format 1 in the meta table.
        let w = store.write()?;
        w.txn
            .open_table(RECORDS)?
            .insert(entry(1).case_hash().0, codec::encode(&entry(1)).as_slice())?;
        w.txn.open_table(META)?.insert(FORMAT_KEY, 1u32.to_be_bytes().as_slice())?;
        w.commit()?;
        assert_eq!(store.read()?.format_version()?, 1);
        assert_eq!(store.read()?.record(&entry(1).case_hash())?, Some(entry(1)));
        let mut w = store.write()?;
        w.put_record(&entry(2))?;
        w.commit()?;
        assert_eq!(store.read()?.format_version()?, STORE_FORMAT);
        assert_eq!(store.read()?.records()?.len(), 2);
        Ok(())
    }

    #[test]
    fn open_reports_a_missing_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = Store::open(dir.path(), Arc::new(crate::NoIndex)).err().expect("must fail");
        assert!(err.to_string().contains("no evokb store"), "{err}");
    }
}
