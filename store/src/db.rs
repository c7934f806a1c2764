//! The redb database: table definitions, opening, and read and write transactions.
//!
//! The database is opened in redb's multi-writer mode so that any number of `evokb` processes
//! can hold it at once. Only one write transaction runs at a time across processes; a writer
//! that finds the lock taken retries with backoff for a bounded wait instead of failing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};

use crate::codec;
use crate::error::{BusyError, OpenError, StoreError};
use crate::record::{CaseHash, FileLayout, Kind, LayoutItem, Record, Segment, SyncMark};

/// Records by case hash.
const RECORDS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("records");
/// The text hash of each record as last imported or rendered in place.
const RECORD_SYNC: TableDefinition<[u8; 32], [u8; 32]> = TableDefinition::new("record_sync");
/// File layouts by repository-relative path.
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("files");
/// The byte hash of each managed file as last imported or rendered in place.
const FILE_SYNC: TableDefinition<&str, [u8; 32]> = TableDefinition::new("file_sync");
/// Store-wide settings, such as the format version.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

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

/// The database format this build writes and reads.
pub const STORE_FORMAT: u32 = 1;
const FORMAT_KEY: &str = "format";

/// The database file name inside the store directory.
pub const DB_FILE: &str = "evokb.redb";

/// How long a writer waits for another process's write transaction by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(30);

/// An open store.
pub struct Store {
    db: Handle,
    lock_wait: Duration,
    dir: PathBuf,
}

/// A read-write handle, or a read-only one that never writes to the file (not even on close,
/// which a read-write handle in multi-writer mode does).
enum Handle {
    ReadWrite(redb::Database),
    ReadOnly(redb::ReadOnlyDatabase),
}

/// What a search returned, and whether the index had to be rebuilt first.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    /// The results, best first.
    pub hits: Vec<crate::search::SearchHit>,
    /// Why the index was rebuilt, when it was (missing, out of date, corrupt).
    pub rebuilt: Option<String>,
}

const SEARCH_GEN_KEY: &str = "search_gen";
const SEARCH_DIR: &str = "search";

impl Store {
    /// Creates a new, empty store in directory `dir` (created if missing).
    pub fn create(dir: &Path) -> Result<Store, OpenError> {
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
        let db = builder()
            .create(&path)
            .map_err(|source| OpenError::Database { path: path.clone(), source })?;
        let store =
            Store { db: Handle::ReadWrite(db), lock_wait: DEFAULT_LOCK_WAIT, dir: dir.into() };
        let mut txn = store.write()?;
        txn.init_tables()?;
        txn.commit()?;
        Ok(store)
    }

    /// Opens the store in directory `dir`.
    pub fn open(dir: &Path) -> Result<Store, OpenError> {
        let path = dir.join(DB_FILE);
        if !path.is_file() {
            return Err(OpenError::NotFound { path: dir.into() });
        }
        let db = builder()
            .open(&path)
            .map_err(|source| OpenError::Database { path: path.clone(), source })?;
        let store =
            Store { db: Handle::ReadWrite(db), lock_wait: DEFAULT_LOCK_WAIT, dir: dir.into() };
        let found = store.read()?.format_version()?;
        if found > STORE_FORMAT {
            return Err(OpenError::UnsupportedFormat { path, found, supported: STORE_FORMAT });
        }
        Ok(store)
    }

    /// Opens the store in directory `dir` for reading only. Such a handle shares the file with
    /// writers in other processes and never writes to it; [`Store::write`] fails. A store that
    /// needs recovery after a crash cannot be opened this way: use [`Store::open`].
    pub fn open_read_only(dir: &Path) -> Result<Store, OpenError> {
        let path = dir.join(DB_FILE);
        if !path.is_file() {
            return Err(OpenError::NotFound { path: dir.into() });
        }
        let db = builder()
            .open_read_only(&path)
            .map_err(|source| OpenError::Database { path: path.clone(), source })?;
        let store =
            Store { db: Handle::ReadOnly(db), lock_wait: DEFAULT_LOCK_WAIT, dir: dir.into() };
        let found = store.read()?.format_version()?;
        if found > STORE_FORMAT {
            return Err(OpenError::UnsupportedFormat { path, found, supported: STORE_FORMAT });
        }
        Ok(store)
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
        };
        Ok(ReadTxn { txn })
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
                    return Ok(WriteTxn {
                        txn,
                        dirty: Default::default(),
                        dirty_search: Default::default(),
                        search_dir: self.dir.join(SEARCH_DIR),
                    })
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
    /// Runs a full-text search. When the index is missing, behind the records, or cannot be
    /// opened, it is rebuilt first (under the write lock) and the outcome says why.
    pub fn search(&self, q: &crate::search::SearchQuery) -> Result<SearchOutcome, StoreError> {
        use crate::search::SearchIndex;
        let dir = self.dir.join(SEARCH_DIR);
        let gen = self.read()?.search_generation()?;
        let reason = match SearchIndex::open(&dir) {
            Ok(idx) if idx.generation() == Some(gen) => match idx.search(q) {
                Ok(hits) => return Ok(SearchOutcome { hits, rebuilt: None }),
                Err(e) => format!("it could not be read ({e})"),
            },
            Ok(_) => "it is behind the records".to_string(),
            Err(_) if !dir.exists() => "it is missing".to_string(),
            Err(e) => format!("it cannot be opened ({e})"),
        };
        let w = self.write()?;
        let gen = w.search_generation()?;
        let idx = match SearchIndex::open(&dir) {
            // Another process rebuilt it while this one waited for the lock.
            Ok(idx) if idx.generation() == Some(gen) => idx,
            _ => SearchIndex::rebuild(&dir, &w.search_docs()?, gen)?,
        };
        drop(w);
        Ok(SearchOutcome { hits: idx.search(q)?, rebuilt: Some(reason) })
    }
}

fn builder() -> redb::Builder {
    let mut builder = redb::Builder::new();
    builder.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    builder
}

/// A consistent snapshot of the store.
pub struct ReadTxn {
    pub(crate) txn: redb::ReadTransaction,
}

/// A write transaction: nothing is visible to others, or on disk, until [`WriteTxn::commit`].
pub struct WriteTxn {
    pub(crate) txn: redb::WriteTransaction,
    /// Files whose records or layout changed: their index rows are rebuilt at commit.
    dirty: std::collections::BTreeSet<String>,
    /// Searchable records written or deleted: their search documents are replaced at commit.
    dirty_search: std::collections::BTreeSet<CaseHash>,
    search_dir: PathBuf,
}

fn corrupted(table: &'static str, key: impl Into<String>, detail: String) -> StoreError {
    StoreError::Corrupted { table, key: key.into(), detail }
}

fn decode_record(key: &[u8; 32], bytes: &[u8]) -> Result<Record, StoreError> {
    let rec: Record =
        codec::decode(bytes).map_err(|d| corrupted("records", crate::record::hex(key), d))?;
    if rec.case_hash().0 != *key {
        return Err(corrupted(
            "records",
            crate::record::hex(key),
            format!("the record '{}' of kind '{}' is stored under another key", rec.id, rec.kind),
        ));
    }
    Ok(rec)
}

fn decode_layout(path: &str, bytes: &[u8]) -> Result<FileLayout, StoreError> {
    codec::decode(bytes).map_err(|d| corrupted("files", path, d))
}

/// Read access shared by both transaction kinds.
macro_rules! read_methods {
    () => {
        /// The record stored under `key`.
        pub fn record(&self, key: &CaseHash) -> Result<Option<Record>, StoreError> {
            let table = self.txn.open_table(RECORDS)?;
            let res = match table.get(key.0)? {
                Some(v) => Some(decode_record(&key.0, v.value())?),
                None => None,
            };
            Ok(res)
        }

        /// The record of `kind` with natural id `id`.
        pub fn record_by_id(&self, kind: Kind, id: &str) -> Result<Option<Record>, StoreError> {
            self.record(&CaseHash::of(kind, id))
        }

        /// Every record, in key order.
        pub fn records(&self) -> Result<Vec<Record>, StoreError> {
            let table = self.txn.open_table(RECORDS)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                out.push(decode_record(&k.value(), v.value())?);
            }
            Ok(out)
        }

        /// The sync mark of the record under `key`.
        pub fn record_sync(&self, key: &CaseHash) -> Result<Option<SyncMark>, StoreError> {
            let table = self.txn.open_table(RECORD_SYNC)?;
            let res = table.get(key.0)?.map(|v| SyncMark { text_hash: v.value() });
            Ok(res)
        }

        /// The layout of the managed file at `path`.
        pub fn file(&self, path: &str) -> Result<Option<FileLayout>, StoreError> {
            let table = self.txn.open_table(FILES)?;
            let res = match table.get(path)? {
                Some(v) => Some(decode_layout(path, v.value())?),
                None => None,
            };
            Ok(res)
        }

        /// Every file layout, in path order.
        pub fn files(&self) -> Result<Vec<FileLayout>, StoreError> {
            let table = self.txn.open_table(FILES)?;
            let mut out = Vec::new();
            for row in table.iter()? {
                let (k, v) = row?;
                out.push(decode_layout(k.value(), v.value())?);
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
            let rows = match self.txn.open_table(crate::query::ROWS) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(err) => return Err(err.into()),
            };
            let facets = self.txn.open_table(crate::query::FACETS)?;
            crate::query::run(&rows, &facets, filter)
        }

        /// Whether the named flag is set (flags are store-wide booleans in the meta table).
        pub fn flag(&self, name: &str) -> Result<bool, StoreError> {
            let table = self.txn.open_table(META)?;
            let res = table.get(format!("flag.{name}").as_str())?.is_some();
            Ok(res)
        }

        /// The generation of the last commit that changed searchable records.
        pub fn search_generation(&self) -> Result<u64, StoreError> {
            let table = self.txn.open_table(META)?;
            let Some(v) = table.get(SEARCH_GEN_KEY)? else { return Ok(0) };
            let bytes: [u8; 8] = v.value().try_into().map_err(|_| {
                corrupted(
                    "meta",
                    SEARCH_GEN_KEY,
                    format!("expected 8 bytes, found {}", v.value().len()),
                )
            })?;
            Ok(u64::from_be_bytes(bytes))
        }

        /// The search documents of every searchable record, with their kind tags.
        pub fn search_docs(
            &self,
        ) -> Result<Vec<(crate::search::SearchDoc, &'static str)>, StoreError> {
            Ok(self
                .records()?
                .iter()
                .filter_map(|r| crate::search::doc_for(r).map(|d| (d, r.kind.tag())))
                .collect())
        }

        /// The number of records of each kind (kinds without records are left out).
        pub fn counts(&self) -> Result<BTreeMap<Kind, u64>, StoreError> {
            let mut counts = BTreeMap::new();
            for rec in self.records()? {
                *counts.entry(rec.kind).or_insert(0) += 1;
            }
            Ok(counts)
        }

        /// A digest of the store's content: records, file layouts and collections, not sync
        /// marks. Equal record sets give equal digests, whatever order they were written in.
        pub fn digest(&self) -> Result<[u8; 32], StoreError> {
            let mut hasher = blake3::Hasher::new();
            hasher.update(b"evokb.digest.v1\0");
            for rec in self.records()? {
                digest_record(&mut hasher, &rec);
            }
            for layout in self.files()? {
                digest_layout(&mut hasher, &layout);
            }
            crate::tally::digest(&mut hasher, &self.tallies()?)?;
            for name in self.collection_tables()? {
                hasher.update(b"C");
                digest_str(&mut hasher, &name);
                let def: TableDefinition<&[u8], &[u8]> = TableDefinition::new(&name);
                let table = self.txn.open_table(def)?;
                for row in table.iter()? {
                    let (k, v) = row?;
                    hasher.update(&(k.value().len() as u64).to_be_bytes());
                    hasher.update(k.value());
                    hasher.update(&(v.value().len() as u64).to_be_bytes());
                    hasher.update(v.value());
                }
            }
            Ok(*hasher.finalize().as_bytes())
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
            let table = match self.txn.open_table(c.def()) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(()),
                Err(err) => return Err(err.into()),
            };
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
            let table = match self.txn.open_table(c.def()) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(err) => return Err(err.into()),
            };
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
            let table = match self.txn.open_table(c.def()) {
                Ok(t) => t,
                Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
                Err(err) => return Err(err.into()),
            };
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

impl ReadTxn {
    read_methods!();
}

impl WriteTxn {
    read_methods!();

    fn init_tables(&mut self) -> Result<(), StoreError> {
        self.txn.open_table(RECORDS)?;
        self.txn.open_table(RECORD_SYNC)?;
        self.txn.open_table(FILES)?;
        self.txn.open_table(FILE_SYNC)?;
        self.txn.open_table(crate::query::ROWS)?;
        self.txn.open_table(crate::query::FACETS)?;
        self.txn.open_table(crate::query::BY_FILE)?;
        let mut meta = self.txn.open_table(META)?;
        meta.insert(FORMAT_KEY, STORE_FORMAT.to_be_bytes().as_slice())?;
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

    /// Rebuilds the facet index of every file, for example after an upgrade.
    pub fn rebuild_index(&mut self) -> Result<(), StoreError> {
        for layout in self.files()? {
            self.dirty.insert(layout.path);
        }
        Ok(())
    }

    /// Inserts or replaces a record under its case hash.
    pub fn put_record(&mut self, rec: &Record) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(RECORDS)?;
        // Only entries are in the facet index: other records never make a file dirty, which
        // keeps a hit (one search event) from re-reading the whole search log at commit.
        if let Some(old) = table.insert(rec.case_hash().0, codec::encode(rec).as_slice())? {
            if let Ok(old) = codec::decode::<Record>(old.value()) {
                if old.kind == Kind::Entry {
                    self.dirty.insert(old.file);
                }
            }
        }
        if rec.kind == Kind::Entry {
            self.dirty.insert(rec.file.clone());
        }
        if crate::search::is_searchable(rec.kind) {
            self.dirty_search.insert(rec.case_hash());
        }
        Ok(())
    }

    /// Removes a record and its sync mark. Returns whether it existed.
    pub fn delete_record(&mut self, key: &CaseHash) -> Result<bool, StoreError> {
        let old = self.txn.open_table(RECORDS)?.remove(key.0)?.map(|v| v.value().to_vec());
        let existed = old.is_some();
        if let Some(rec) = old.and_then(|b| codec::decode::<Record>(&b).ok()) {
            if crate::search::is_searchable(rec.kind) {
                self.dirty_search.insert(*key);
            }
            if rec.kind == Kind::Entry {
                self.dirty.insert(rec.file);
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

    /// Inserts or replaces a file layout.
    pub fn put_file(&mut self, layout: &FileLayout) -> Result<(), StoreError> {
        let mut table = self.txn.open_table(FILES)?;
        table.insert(layout.path.as_str(), codec::encode(layout).as_slice())?;
        drop(table);
        // A new layout moves the lines of the entries the file already holds.
        if self.has_indexed_entries(&layout.path)? {
            self.dirty.insert(layout.path.clone());
        }
        Ok(())
    }

    /// Removes a file layout and its sync mark.
    pub fn delete_file(&mut self, path: &str) -> Result<(), StoreError> {
        self.txn.open_table(FILES)?.remove(path)?;
        self.txn.open_table(FILE_SYNC)?.remove(path)?;
        if self.has_indexed_entries(path)? {
            self.dirty.insert(path.to_string());
        }
        Ok(())
    }

    fn has_indexed_entries(&self, path: &str) -> Result<bool, StoreError> {
        let table = self.txn.open_table(crate::query::BY_FILE)?;
        let mut prefix = path.as_bytes().to_vec();
        prefix.push(0);
        let first = table.range(prefix.as_slice()..)?.next().transpose()?;
        Ok(first.is_some_and(|(k, _)| k.value().starts_with(&prefix)))
    }

    /// Records that the file at `path` matched its markdown with this byte hash.
    pub fn set_file_sync(&mut self, path: &str, mark: SyncMark) -> Result<(), StoreError> {
        self.txn.open_table(FILE_SYNC)?.insert(path, mark.text_hash)?;
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

    /// Makes every change of the transaction durable, or none of them.
    pub fn commit(mut self) -> Result<(), StoreError> {
        for path in std::mem::take(&mut self.dirty) {
            let layout = self.file(&path)?;
            crate::query::reindex_file(&self.txn, &path, layout.as_ref(), &|h| self.record(h))?;
        }
        if !self.dirty_search.is_empty() {
            let gen = self.search_generation()? + 1;
            self.txn.open_table(META)?.insert(SEARCH_GEN_KEY, gen.to_be_bytes().as_slice())?;
            // A failure here leaves the index behind the records; the next search notices the
            // generation mismatch and rebuilds it, so the records' commit goes ahead.
            let _ = self.sync_search(gen);
        }
        self.txn.commit()?;
        Ok(())
    }

    /// Brings the search index to generation `gen`: the changed documents when the index is at
    /// `gen - 1`, else a full rebuild.
    fn sync_search(&self, gen: u64) -> Result<(), StoreError> {
        use crate::search::{doc_for, SearchIndex};
        match SearchIndex::open(&self.search_dir) {
            Ok(idx) if idx.generation() == Some(gen - 1) => {
                let mut removed = Vec::new();
                let mut added = Vec::new();
                for key in &self.dirty_search {
                    match self.record(key)?.and_then(|r| doc_for(&r).map(|d| (d, r.kind.tag()))) {
                        Some(doc) => added.push(doc),
                        None => removed.push(*key),
                    }
                }
                idx.apply(&removed, &added, gen)?;
            }
            _ => {
                SearchIndex::rebuild(&self.search_dir, &self.search_docs()?, gen)?;
            }
        }
        Ok(())
    }
}

fn digest_str(hasher: &mut blake3::Hasher, s: &str) {
    hasher.update(&(s.len() as u64).to_be_bytes());
    hasher.update(s.as_bytes());
}

fn digest_record(hasher: &mut blake3::Hasher, rec: &Record) {
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

fn digest_layout(hasher: &mut blake3::Hasher, layout: &FileLayout) {
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

    #[test]
    fn digest_ignores_write_order_and_sync_marks() -> Result<(), Box<dyn std::error::Error>> {
        let a = tempfile::tempdir()?;
        let b = tempfile::tempdir()?;
        let sa = Store::create(a.path())?;
        let sb = Store::create(b.path())?;
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
    fn an_uncommitted_write_leaves_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path())?;
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
        let holder = Store::create(dir.path())?;
        let mut waiter = Store::open(dir.path())?;
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
    fn open_reports_a_missing_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = Store::open(dir.path()).err().expect("must fail");
        assert!(err.to_string().contains("no evokb store"), "{err}");
    }
}
