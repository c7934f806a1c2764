//! # evokb-store
//!
//! The canonical record store of an evokb knowledge base: the record model ([`Record`],
//! [`Segment`], [`FileLayout`]), the value codec, and the redb tables that hold them.
//!
//! This crate knows nothing of markdown, git or the terminal. A record is a template of
//! literal text and named fields; the `evokb-export` crate decides how files map onto records.
//!
//! ```
//! use evokb_store::{Kind, Record, Segment, Store};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = Store::create(dir.path(), std::sync::Arc::new(evokb_store::NoIndex))?;
//! let rec = Record {
//!     kind: Kind::Entry,
//!     id: "TRAP-x".into(),
//!     file: "pattern-library/traps.md".into(),
//!     segments: vec![
//!         Segment::Lit("status: ".into()),
//!         Segment::Field { key: "status".into(), value: "verified".into() },
//!         Segment::Lit("\n".into()),
//!     ],
//! };
//! let mut txn = store.write()?;
//! txn.put_record(&rec)?;
//! txn.commit()?;
//! let back = store.read()?.record_by_id(Kind::Entry, "TRAP-x")?;
//! assert_eq!(back.and_then(|r| r.field("status").map(str::to_owned)), Some("verified".into()));
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs)]

pub mod codec;
mod db;
mod error;
pub mod events;
pub mod filestate;
pub mod index;
mod layouts;
mod postings;
pub mod progress;
pub mod query;
pub mod record;
pub mod search;
mod tally;

pub use db::{
    store_dir, CheckOutcome, Collection, IndexRebuild, ReadTxn, SearchOutcome, Store, WriteTxn,
    DB_FILE, DEFAULT_CACHE_BYTES, DEFAULT_LOCK_WAIT, STORE_FORMAT,
};
pub use error::{BusyError, Error, OpenError, StoreError};
pub use filestate::FileStat;
pub use index::{Indexer, NoIndex};
pub use layouts::{ItemPos, ItemRef};
pub use progress::{Progress, Silent};
pub use query::{ExpectedRows, Filter, JsonRow, JsonRows, QueryRow, RowMaker};
pub use record::{
    field_key, hex, CaseHash, FieldKey, FileLayout, Kind, LayoutItem, Record, Segment, SegmentText,
    SyncMark,
};
pub use tally::Tally;
