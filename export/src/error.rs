//! Error types of the markdown side, one per operation.

use std::path::PathBuf;

use evokb_store::{Kind, StoreError};

use crate::diag::Diagnostic;

/// A record changed in both the file and the store since they were last in sync.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Conflict {
    /// The record's kind.
    pub kind: Kind,
    /// The record's id.
    pub id: String,
    /// The file holding (or that held) the record.
    pub file: String,
    /// The record's first line in the file, 0 when the file no longer has it.
    pub line: usize,
    /// What happened on each side.
    pub reason: String,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {} '{}': {}", self.file, self.line, self.kind, self.id, self.reason)
    }
}

/// Why an import wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A managed file could not be read.
    #[error("cannot read '{}': {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Some files are malformed; every problem is listed.
    #[error("{} problem(s) in the input files, nothing was imported", diagnostics.len())]
    Invalid {
        /// The errors (warnings are not included).
        diagnostics: Vec<Diagnostic>,
    },
    /// Strict mode: structural problems turn would-be records into prose; nothing was imported.
    #[error("{} structural problem(s) would turn records into prose, nothing was imported", diagnostics.len())]
    Structural {
        /// The problems, as errors, with the records each costs.
        diagnostics: Vec<Diagnostic>,
    },
    /// Records changed on both sides; nothing was imported.
    #[error("{} record(s) changed both in the files and in the store since the last sync, nothing was imported", conflicts.len())]
    Conflicts {
        /// The conflicting records.
        conflicts: Vec<Conflict>,
    },
    /// After `--prefer` settled a conflict on an entry, its INDEX row could not follow it.
    #[error("the INDEX row of '{id}' could not take the status of the entry the conflict was settled for: {reason}")]
    Follow {
        /// The entry.
        id: String,
        /// Why the row could not change.
        reason: String,
    },
    /// An entry new in its topic file could not be given its INDEX row.
    #[error(
        "the INDEX row of '{id}', an entry new in its topic file, could not be added: {reason}"
    )]
    IndexRow {
        /// The entry.
        id: String,
        /// Why the row could not be added.
        reason: String,
    },
    /// The declared layout cannot be used.
    #[error(transparent)]
    Layout(#[from] crate::layout::LayoutError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a render wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A file could not be read or written.
    #[error("cannot write '{}': {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A managed path holds something that is not a regular file inside the root.
    #[error("{path}: {reason}")]
    NotRegular {
        /// The repository-relative path.
        path: String,
        /// What was found and what was expected.
        reason: String,
    },
    /// Managed files were edited after the last import or render.
    #[error("refusing to overwrite {} file(s) edited since the last import or render: {}", files.len(), files.join(", "))]
    EditedOnDisk {
        /// The edited files.
        files: Vec<String>,
    },
    /// A layout names a record the store does not have.
    #[error("the layout of '{path}' names record {key} which the store does not hold")]
    Dangling {
        /// The file.
        path: String,
        /// The missing record's key, in hex.
        key: String,
    },
    /// The derived rows of `stats.md` (hit table, metrics) could not be brought up to date.
    #[error("cannot update the derived rows of stats.md: {0}")]
    Derived(Box<MutateError>),
    /// The store's layout cannot be read.
    #[error(transparent)]
    Layout(#[from] crate::layout::LayoutError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<MutateError> for RenderError {
    fn from(err: MutateError) -> RenderError {
        match err {
            MutateError::Render(r) => r,
            MutateError::Store(s) => RenderError::Store(s),
            other => RenderError::Derived(Box::new(other)),
        }
    }
}

/// Why a mutation was refused; nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MutateError {
    /// No record has this id.
    #[error("no record has the id '{id}'")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// The record has no such field and none can be added to it.
    #[error("{kind} '{id}' has no field '{field}' (fields: {available})")]
    UnknownField {
        /// The record's kind.
        kind: Kind,
        /// The record's id.
        id: String,
        /// The field asked for.
        field: String,
        /// The fields it does have, comma-separated.
        available: String,
    },
    /// The value cannot be written.
    #[error("invalid value for '{field}': {reason}")]
    InvalidValue {
        /// The field.
        field: String,
        /// Why.
        reason: String,
    },
    /// The id is taken.
    #[error("{kind} '{id}' already exists in '{file}'")]
    AlreadyExists {
        /// The kind.
        kind: Kind,
        /// The id.
        id: String,
        /// Where the existing record lives.
        file: String,
    },
    /// The input text is malformed.
    #[error("{} problem(s) in the input: {}", diagnostics.len(), diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The problems.
        diagnostics: Vec<Diagnostic>,
    },
    /// The target file is not managed by the store.
    #[error("'{path}' is not a managed file of this store")]
    UnknownFile {
        /// The path asked for.
        path: String,
    },
    /// A layout names a missing record.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The store's layout cannot be read.
    #[error(transparent)]
    Layout(#[from] crate::layout::LayoutError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}
