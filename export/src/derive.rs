//! The hook through which rows derived from other data reach a render.
//!
//! Some rows are not edited but computed: the layer that owns the evolution rules keeps the
//! `stats.md` hit table and metrics up to date. It hands this crate a [`Plan`] of changed
//! records and layouts through [`DeriveRows`]; rendering in place, rendering to a directory
//! and `render --check` all ask for the plan from the view they render, so the check compares
//! exactly what a render writes. This crate only stores or overlays a plan; it never decides
//! what one holds.

use std::collections::{BTreeMap, HashMap};

use evokb_store::{CaseHash, FileLayout, Record, WriteTxn};

use crate::error::MutateError;
use crate::render::RecordSource;

/// Record and layout changes a render makes before it renders, each checked by the planner to
/// parse back into exactly those records (see [`crate::mutate::checked_parse`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Records as they will be stored, by key.
    pub records: HashMap<CaseHash, Record>,
    /// Layouts as they will be stored, by path.
    pub files: BTreeMap<String, FileLayout>,
    /// Whether the store's pending tallies are folded into the plan, and so cleared with it.
    pub clears_tallies: bool,
}

/// Computes the derived rows from a view of the store.
pub trait DeriveRows {
    /// The changes rendering `src` makes, writing nothing.
    fn plan(&self, src: &dyn RecordSource) -> Result<Plan, MutateError>;
}

/// No derived rows: render exactly what the store holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDerivedRows;

impl DeriveRows for NoDerivedRows {
    fn plan(&self, _: &dyn RecordSource) -> Result<Plan, MutateError> {
        Ok(Plan::default())
    }
}

/// Stores a plan made from the same transaction's view.
pub fn apply(w: &mut WriteTxn, plan: &Plan) -> Result<(), MutateError> {
    for rec in plan.records.values() {
        w.put_record(rec)?;
    }
    for layout in plan.files.values() {
        w.put_file(layout)?;
    }
    if plan.clears_tallies {
        w.clear_tallies()?;
    }
    Ok(())
}
