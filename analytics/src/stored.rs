//! Where the analytics data lives in an evokb store: four collections (typed tables that are
//! never rendered to markdown) and the loader that gives the figures their input.
//!
//! The binary writes these collections when it imports a registry, an iteration log or task
//! timelines; the evolution layer reads them to publish the `stats.md` metrics.

use std::collections::BTreeMap;

use evokb_store::{Collection, ReadTxn, StoreError};

use crate::export::EntryFacets;
use crate::model::{ErrorCase, Round, TimelineEvent, TimelineFile};
use crate::table::{CaseTable, CaseTableBuilder};

/// Error cases by case key.
pub const ERROR_CASES: Collection = Collection::new("coll.error_cases");
/// Rounds by name, with their position in the iteration log.
pub const ROUNDS: Collection = Collection::new("coll.rounds");
/// Timeline events by task id, a NUL, and the big-endian line number.
pub const TIMELINE_EVENTS: Collection = Collection::new("coll.timeline_events");

/// Each task's timeline file text by task id (see [`TimelineFile`]).
pub const TIMELINE_FILES: Collection = Collection::new("coll.timeline_files");

/// The key of a timeline event: its task id, a NUL, and its line number (big-endian), so a
/// task's events are adjacent and in file order.
pub fn event_key(task: &str, line: u32) -> Vec<u8> {
    let mut key = task.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&line.to_be_bytes());
    key
}

/// Everything the figures read from the store.
#[derive(Debug, Clone, Default)]
pub struct StoredData {
    /// The error registry's cases with the iteration log (`table.rounds`, in log order).
    pub table: CaseTable,
    /// Each task's timeline events, by task id.
    pub tasks: Vec<(String, Vec<TimelineEvent>)>,
}

/// Reads the analytics collections of the store. The cases are decoded one at a time into
/// the [`CaseTable`], never all at once.
pub fn load(txn: &ReadTxn) -> Result<StoredData, StoreError> {
    Ok(StoredData { table: load_table(txn)?, tasks: load_tasks(txn)? })
}

/// The registry and the log only.
pub fn load_table(txn: &ReadTxn) -> Result<CaseTable, StoreError> {
    let mut rounds: Vec<(u32, Round)> = txn.items(ROUNDS)?.into_iter().map(|(_, r)| r).collect();
    rounds.sort_by_key(|(seq, _)| *seq);
    let mut builder = CaseTableBuilder::default();
    txn.for_each_item::<ErrorCase>(ERROR_CASES, |_, case| builder.push(case))?;
    Ok(builder.finish(rounds.into_iter().map(|(_, r)| r).collect()))
}

/// The timelines only.
pub fn load_tasks(txn: &ReadTxn) -> Result<Vec<(String, Vec<TimelineEvent>)>, StoreError> {
    let mut tasks: BTreeMap<String, Vec<TimelineEvent>> = BTreeMap::new();
    for (_, e) in txn.items::<TimelineEvent>(TIMELINE_EVENTS)? {
        tasks.entry(e.task_id.clone()).or_default().push(e);
    }
    Ok(tasks.into_iter().collect())
}

/// The imported timeline file of `task`, if there is one.
pub fn timeline_file(txn: &ReadTxn, task: &str) -> Result<Option<TimelineFile>, StoreError> {
    Ok(txn
        .items::<TimelineFile>(TIMELINE_FILES)?
        .into_iter()
        .map(|(_, f)| f)
        .find(|f| f.task_id == task))
}

/// Every entry of the facet index with its facet values (`family`, `apis`, `dtype`,
/// `device`), sorted by file, line and id.
pub fn load_entries(txn: &ReadTxn) -> Result<Vec<EntryFacets>, StoreError> {
    Ok(txn
        .query(&evokb_store::Filter::default())?
        .into_iter()
        .map(|r| EntryFacets {
            facets: vec![
                ("family".to_owned(), r.family),
                ("apis".to_owned(), r.apis),
                ("dtype".to_owned(), r.dtype),
                ("device".to_owned(), r.device),
            ],
            id: r.id,
            kind: r.kind,
            status: r.status,
            file: r.file,
            line: r.line,
        })
        .collect())
}
