//! Error types of the store, one per operation, with an umbrella [`Error`].

use std::path::PathBuf;

/// Why a store could not be opened or created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// No store exists at the path.
    #[error("no evokb store at '{}'", path.display())]
    NotFound {
        /// Where the store was looked for.
        path: PathBuf,
    },
    /// `create` found a store already there.
    #[error("an evokb store already exists at '{}'", path.display())]
    AlreadyExists {
        /// The existing store.
        path: PathBuf,
    },
    /// The store's directory could not be created or read.
    #[error("cannot access '{}': {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// redb refused the file.
    #[error("cannot open the database '{}': {source}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// What redb said.
        source: redb::DatabaseError,
    },
    /// The file was written by a newer evokb.
    #[error("the store '{}' has format version {found}, this evokb reads up to {supported}", path.display())]
    UnsupportedFormat {
        /// The database file.
        path: PathBuf,
        /// The version found in the file.
        found: u32,
        /// The newest version this build understands.
        supported: u32,
    },
    /// Another process held the write lock for longer than the configured wait.
    #[error(transparent)]
    Busy(#[from] BusyError),
    /// A table operation failed while opening.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl OpenError {
    /// Whether the error means the database file is damaged (rather than missing, busy or
    /// unreadable for an ordinary I/O reason).
    pub fn is_damage(&self) -> bool {
        match self {
            OpenError::Database { source, .. } => damage_on_open(source).is_some(),
            OpenError::Store(err) => err.is_damage(),
            _ => false,
        }
    }
}

/// What a refused open says about damage to the file, if the refusal means damage: redb
/// reports a header without redb's magic number as invalid data, and a bad commit slot or
/// tree as corrupted.
pub(crate) fn damage_on_open(source: &redb::DatabaseError) -> Option<String> {
    match source {
        redb::DatabaseError::Storage(redb::StorageError::Io(e))
            if e.kind() == std::io::ErrorKind::InvalidData =>
        {
            Some(format!("its header is not a valid redb header (redb: {e})"))
        }
        redb::DatabaseError::Storage(redb::StorageError::Corrupted(msg)) => {
            Some(format!("redb refuses to open it: {msg}"))
        }
        _ => None,
    }
}

/// The write lock stayed taken for the whole configured wait.
#[derive(Debug, thiserror::Error)]
#[error("the store is busy: another evokb process held the write lock for {waited_ms} ms (raise EVOKB_LOCK_TIMEOUT_MS to wait longer)")]
pub struct BusyError {
    /// How long this process waited.
    pub waited_ms: u64,
}

/// A failure inside a transaction: storage, table or commit errors, or corrupted data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The storage layer failed (I/O, or a redb invariant).
    #[error("storage error: {0}")]
    Storage(#[from] redb::StorageError),
    /// A transaction could not begin.
    #[error("transaction error: {0}")]
    Transaction(Box<redb::TransactionError>),
    /// A table could not be opened.
    #[error("table error: {0}")]
    Table(#[from] redb::TableError),
    /// The commit failed; nothing of the transaction was written.
    #[error("commit failed, nothing was written: {0}")]
    Commit(#[from] redb::CommitError),
    /// The write lock stayed taken for the whole configured wait.
    #[error(transparent)]
    Busy(#[from] BusyError),
    /// A write was attempted through a read-only handle.
    #[error("this store handle is read-only")]
    ReadOnly,
    /// The search index failed.
    #[error(transparent)]
    Search(#[from] crate::search::SearchError),
    /// The database file failed its integrity check: a page's checksum does not match, so some
    /// committed data can no longer be trusted.
    #[error("the store '{}' is damaged: {detail}", path.display())]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// What is damaged: redb's finding and the tables that could not be read.
        detail: String,
    },
    /// The integrity check could not run at all (for example an I/O error).
    #[error("the integrity check of '{}' could not run: {source}", path.display())]
    Check {
        /// The database file.
        path: PathBuf,
        /// What redb said.
        source: Box<redb::DatabaseError>,
    },
    /// Compacting the database file failed (the file holds what it held before: redb
    /// compacts through ordinary two-phase commits).
    #[error("compacting the store '{}' failed: {source}", path.display())]
    Compact {
        /// The database file.
        path: PathBuf,
        /// What redb said.
        source: Box<redb::Error>,
    },
    /// A stored value could not be decoded.
    #[error("corrupted value in table '{table}' at key '{key}': {detail}")]
    Corrupted {
        /// The table holding the value.
        table: &'static str,
        /// The key, printable.
        key: String,
        /// What was wrong.
        detail: String,
    },
}

impl StoreError {
    /// Whether the error means stored data is damaged: a value that does not decode, a page
    /// that fails its checksum, or a b-tree redb reports as corrupted.
    pub fn is_damage(&self) -> bool {
        fn storage(e: &redb::StorageError) -> bool {
            matches!(e, redb::StorageError::Corrupted(_))
        }
        match self {
            StoreError::Corrupted { .. } | StoreError::Damaged { .. } => true,
            StoreError::Storage(e) => storage(e),
            StoreError::Table(redb::TableError::Storage(e)) => storage(e),
            StoreError::Commit(redb::CommitError::Storage(e)) => storage(e),
            StoreError::Transaction(e) => {
                matches!(&**e, redb::TransactionError::Storage(s) if storage(s))
            }
            StoreError::Check { source, .. } => {
                matches!(&**source, redb::DatabaseError::Storage(s) if storage(s))
            }
            _ => false,
        }
    }
}

impl From<redb::TransactionError> for StoreError {
    fn from(err: redb::TransactionError) -> Self {
        StoreError::Transaction(Box::new(err))
    }
}

/// Any store error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Opening or creating failed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// A transaction failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}
