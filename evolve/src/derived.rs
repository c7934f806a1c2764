//! The rows of `stats.md` that render computes: the hit table, from the hits recorded since it
//! was last rendered (pending tallies), and the `当前值` column of the metrics table, from the
//! task timelines in the store.
//!
//! [`StatsRows`] is the [`DeriveRows`] the evolution layer hands to every render, so rendering
//! in place, rendering to a directory, `render --check` and `snapshot` all write the same rows.

use std::collections::HashMap;

use evokb_export::layout::Layout;
use evokb_export::mutate::{checked_parse, with_field};
use evokb_export::render::RecordSource;
use evokb_export::{DeriveRows, MutateError, Plan};
use evokb_store::{CaseHash, Kind, Record};

/// The derived rows of `stats.md`, given the metric values to publish.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatsRows {
    /// `(metric key, value)` for the `当前值` column of the metrics table. Keys the table has no
    /// row for are ignored.
    pub metrics: Vec<(String, String)>,
}

impl DeriveRows for StatsRows {
    fn plan(&self, src: &dyn RecordSource) -> Result<Plan, MutateError> {
        let mut plan =
            Plan { clears_tallies: !src.pending_tallies()?.is_empty(), ..Plan::default() };
        let Some(mut stats) = src.layout(&Layout::of(src)?.stats)? else { return Ok(plan) };
        let mut overrides: HashMap<CaseHash, Record> = HashMap::new();
        for (key, value) in &self.metrics {
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
}
