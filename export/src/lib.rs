//! # evokb-export
//!
//! The markdown side of evokb: the importer (files → records) and the renderer (records →
//! files), and the sync rules between them.
//!
//! Parsing never reformats: every byte of a managed file ends up either in a record's segments
//! or in the file's prose, so rendering an unchanged store gives the files back byte for byte.
//! This crate uses only the public API of `evokb-store` and knows nothing of git or the
//! terminal.
#![warn(missing_docs)]

pub mod coverage;
pub mod derive;
pub mod diag;
pub mod error;
pub mod fsread;
pub mod index;
pub mod kinds;
pub mod layout;
pub mod loss;
pub mod memory;
pub mod merge;
pub mod mutate;
pub mod parallel;
pub mod parse;
pub mod render;
pub mod repro;
pub mod sync;
pub mod text;
pub mod verify;

pub use derive::{DeriveRows, NoDerivedRows, Plan};
pub use diag::{Diagnostic, Severity};
pub use error::{Conflict, ImportError, MutateError, RenderError};
pub use sync::{
    check, check_with_progress, import, import_in, import_in_with_progress, import_in_with_records,
    render_in_place, render_in_place_with_progress, render_to, render_to_with_progress, FileDiff,
    ImportOptions, ImportReport, Prefer, RenderReport,
};
pub use verify::{verify, verify_with_progress, VerifyReport};
