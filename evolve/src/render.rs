//! Rendering a knowledge base with its derived rows: one call for each way `evokb render`
//! runs, so a library caller writes exactly what the CLI writes.

use std::path::Path;

use evokb_export::{FileDiff, RenderError, RenderReport};
use evokb_store::Store;

use crate::derived::StatsRows;

/// The derived rows of this store: the metrics computed from its timelines and its pending
/// hits.
pub fn stats_rows(store: &Store) -> Result<StatsRows, RenderError> {
    Ok(StatsRows { metrics: crate::metrics::metric_row_values(&store.read()?)? })
}

/// `evokb render`: every managed file in place, derived rows included; refuses files edited
/// since the last sync unless `force`.
pub fn render_in_place(
    root: &Path,
    store: &Store,
    force: bool,
) -> Result<RenderReport, RenderError> {
    evokb_export::render_in_place(root, store, &stats_rows(store)?, force)
}

/// `evokb render --out DIR`.
pub fn render_to(out: &Path, store: &Store) -> Result<Vec<String>, RenderError> {
    evokb_export::render_to(out, store, &stats_rows(store)?)
}

/// `evokb render --check`: the files whose rendering differs from the disk.
pub fn check(root: &Path, store: &Store) -> Result<Vec<FileDiff>, RenderError> {
    evokb_export::check(root, store, &stats_rows(store)?)
}
