//! Where the analytics data lives in an evokb store: collections (typed tables that are
//! never rendered to markdown) and the loader that gives the figures their input.
//!
//! The binary writes these collections when it imports a registry, an iteration log or task
//! timelines; the evolution layer reads them to publish the `stats.md` metrics.

use std::collections::BTreeMap;

use evokb_store::{Collection, ReadTxn, StoreError, WriteTxn};

use crate::export::EntryFacets;
use crate::model::{CaseRow, ErrorCase, Round, TimelineEvent, TimelineFile};
use crate::table::{CaseTable, CaseTableBuilder};

/// Error cases by case key.
pub const ERROR_CASES: Collection = Collection::new("coll.error_cases");
/// The compact [`CaseRow`] of every error case, by case key (derived; written with the case).
pub const CASE_ROWS: Collection = Collection::new("coll.case_rows");
/// The round names that case rows number, in numbering order: one item, key `names`.
pub const ROUND_NAMES: Collection = Collection::new("coll.round_names");
const ROUND_NAMES_KEY: &[u8] = b"names";

/// Numbers round names for [`CaseRow`]s: the store's list, extended as new names appear.
#[derive(Debug, Clone, Default)]
pub struct RoundNames {
    pub names: Vec<String>,
    index: BTreeMap<String, u32>,
    /// Whether names were added since loading.
    pub changed: bool,
}

impl RoundNames {
    fn from_names(names: Vec<String>) -> RoundNames {
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect();
        RoundNames { names, index, changed: false }
    }

    fn id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.index.insert(name.to_owned(), i);
        self.names.push(name.to_owned());
        self.changed = true;
        i
    }

    /// The compact row of `case`, numbering new round names.
    pub fn row(&mut self, case: &ErrorCase) -> CaseRow {
        CaseRow {
            case_hash: case.case_hash.clone(),
            query: case.query.clone(),
            gold: case.gold.clone(),
            subset: case.subset.clone(),
            pattern: case.pattern.clone(),
            evaluated: case.evaluated.iter().map(|r| self.id(r)).collect(),
            failed_rounds: case.failed_rounds.iter().map(|r| self.id(r)).collect(),
        }
    }
}

/// The store's round-name list (empty in a store without case rows).
pub fn round_names(txn: &ReadTxn) -> Result<RoundNames, StoreError> {
    Ok(round_names_from(txn.items(ROUND_NAMES)?))
}

/// The round-name list from the items of [`ROUND_NAMES`] (as a write transaction reads them).
pub fn round_names_from(items: Vec<(Vec<u8>, Vec<String>)>) -> RoundNames {
    let names =
        items.into_iter().find(|(k, _)| k == ROUND_NAMES_KEY).map(|(_, v)| v).unwrap_or_default();
    RoundNames::from_names(names)
}

/// Writes the round-name list back if it grew.
pub fn save_round_names(w: &mut WriteTxn, names: &RoundNames) -> Result<(), StoreError> {
    if names.changed {
        w.put_item(ROUND_NAMES, ROUND_NAMES_KEY, &names.names)?;
    }
    Ok(())
}

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
    // The compact rows when every case has one (stores written before them have none).
    if txn.item_count(CASE_ROWS)? == txn.item_count(ERROR_CASES)? {
        let names = round_names(txn)?;
        txn.for_each_item::<CaseRow>(CASE_ROWS, |_, row| builder.push_row(row, &names.names))?;
    } else {
        txn.for_each_item::<ErrorCase>(ERROR_CASES, |_, case| builder.push(case))?;
    }
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
