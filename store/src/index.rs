//! The hook through which the layer that knows the file formats builds the derived indexes.
//!
//! The store keeps two indexes in step with its records (the facet tables behind `query` and
//! the tantivy index behind `search`), but it does not know what a record's text means: which
//! kinds are queried or searched, how a front-matter list or a title is read. An [`Indexer`],
//! given when the store is opened, answers that; the store calls it for every record a write
//! transaction touches, just before the commit.

use crate::query::QueryRow;
use crate::record::{Kind, Record};
use crate::search::SearchDoc;

/// Builds the facet rows and search documents of records.
pub trait Indexer: Send + Sync {
    /// Whether records of `kind` have facet rows (so a change to one reindexes its file).
    fn queryable(&self, kind: Kind) -> bool;
    /// Whether records of `kind` have search documents.
    fn searchable(&self, kind: Kind) -> bool;
    /// The facet row of a queryable record whose text starts at `line` of its file.
    fn query_row(&self, rec: &Record, line: u64) -> Option<QueryRow>;
    /// The search document of a searchable record.
    fn search_doc(&self, rec: &Record) -> Option<SearchDoc>;
}

/// Indexes nothing: a store opened with it answers no query and finds nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoIndex;

impl Indexer for NoIndex {
    fn queryable(&self, _: Kind) -> bool {
        false
    }
    fn searchable(&self, _: Kind) -> bool {
        false
    }
    fn query_row(&self, _: &Record, _: u64) -> Option<QueryRow> {
        None
    }
    fn search_doc(&self, _: &Record) -> Option<SearchDoc> {
        None
    }
}
