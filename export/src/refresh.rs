//! Derived rows: the rows of `stats.md` whose values `render` computes from other data.
//!
//! Two tables are derived: the hit table, from the hits recorded since it was last rendered
//! (pending tallies), and the `当前值` column of the metrics table, from figures the caller
//! computed (the binary computes them from the task timelines). [`plan`] works out the changed
//! records and layouts without writing anything; [`apply`] stores a plan inside a write
//! transaction. Rendering in place, rendering to a directory and `render --check` all go
//! through the same plan, so the check compares exactly what a render would write.

use std::collections::{BTreeMap, HashMap};

use evokb_store::{CaseHash, FileLayout, Kind, Record, WriteTxn};

use crate::error::MutateError;
use crate::layout;
use crate::mutate::{checked_parse, with_field};
use crate::render::RecordSource;

/// Values computed outside the markdown layer that render publishes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DerivedValues {
    /// `(metric key, value)` for the `当前值` column of the metrics table. Keys the table has no
    /// row for are ignored.
    pub metrics: Vec<(String, String)>,
}

/// The changes a render makes to the store before it renders: changed records and the new
/// layouts of their files, each checked to parse back into exactly those records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Records as they will be stored, by key.
    pub records: HashMap<CaseHash, Record>,
    /// Layouts as they will be stored, by path.
    pub files: BTreeMap<String, FileLayout>,
    /// Whether pending tallies are folded in (and so cleared by [`apply`]).
    pub clears_tallies: bool,
}

/// Works out what rendering changes in the derived tables, writing nothing.
pub fn plan(src: &dyn RecordSource, derived: &DerivedValues) -> Result<Plan, MutateError> {
    let mut plan = Plan { clears_tallies: !src.pending_tallies()?.is_empty(), ..Plan::default() };
    let Some(mut stats) = src.layout(layout::STATS)? else { return Ok(plan) };
    let mut overrides: HashMap<CaseHash, Record> = HashMap::new();
    for (key, value) in &derived.metrics {
        let Some(row) = src.get(&CaseHash::of(Kind::MetricRow, key))? else { continue };
        if row.field("当前值").is_some_and(|v| v != value) {
            let changed = with_field(&row, "当前值", value)?;
            overrides.insert(row.case_hash(), changed);
        }
    }
    crate::hits::fold_tallies_into_hit_table(src, &mut stats, &mut overrides)?;
    if overrides.is_empty() {
        return Ok(plan);
    }
    let checked = checked_parse(src, &stats, &overrides)?;
    for (_, rec) in checked.records {
        if overrides.contains_key(&rec.case_hash()) {
            plan.records.insert(rec.case_hash(), rec);
        }
    }
    plan.files.insert(checked.layout.path.clone(), checked.layout);
    Ok(plan)
}

/// Stores a plan made by [`plan`] from the same transaction's view.
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
