//! Rendering a knowledge base with its derived rows: one call for each way `evokb render`
//! runs, so a library caller writes exactly what the CLI writes. Each has a `_with_progress`
//! form that reports the files it renders, compares and writes.

use std::path::Path;

use evokb_export::{FileDiff, RenderError, RenderReport};
use evokb_store::{Progress, Silent, Store};

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
    render_in_place_with_progress(root, store, force, &Silent)
}

/// [`render_in_place`], reporting to `progress`.
pub fn render_in_place_with_progress(
    root: &Path,
    store: &Store,
    force: bool,
    progress: &dyn Progress,
) -> Result<RenderReport, RenderError> {
    progress.phase("computing derived rows", 0);
    let rows = stats_rows(store)?;
    evokb_export::render_in_place_with_progress(root, store, &rows, force, progress)
}

/// `evokb render --out DIR`.
pub fn render_to(out: &Path, store: &Store) -> Result<Vec<String>, RenderError> {
    render_to_with_progress(out, store, &Silent)
}

/// [`render_to`], reporting to `progress`.
pub fn render_to_with_progress(
    out: &Path,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Vec<String>, RenderError> {
    progress.phase("computing derived rows", 0);
    let rows = stats_rows(store)?;
    evokb_export::render_to_with_progress(out, store, &rows, progress)
}

/// `evokb render --check`: the files whose rendering differs from the disk.
pub fn check(root: &Path, store: &Store) -> Result<Vec<FileDiff>, RenderError> {
    check_with_progress(root, store, &Silent)
}

/// [`check`], reporting to `progress`.
pub fn check_with_progress(
    root: &Path,
    store: &Store,
    progress: &dyn Progress,
) -> Result<Vec<FileDiff>, RenderError> {
    progress.phase("computing derived rows", 0);
    let rows = stats_rows(store)?;
    evokb_export::check_with_progress(root, store, &rows, progress)
}
