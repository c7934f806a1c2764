//! The facet index: secondary tables that answer `evokb query` without scanning records.
//!
//! For every queryable record the index keeps a [`QueryRow`] (what a query prints), built by
//! the store's [`Indexer`], and one key per lowercased facet value, `facet \0 value \0
//! case_hash`, so a filter is a few prefix range scans and set operations.
//!
//! The index is derived data: it is rebuilt for every file a write transaction touched, just
//! before that transaction commits, so it can never disagree with the records it describes.
//! It is not part of the digest.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use redb::{ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::codec;
use crate::error::StoreError;
use crate::index::Indexer;
use crate::record::{CaseHash, FileLayout, LayoutItem, Record};

/// Query rows by case hash.
pub(crate) const ROWS: TableDefinition<[u8; 32], &[u8]> = TableDefinition::new("idx.query_rows");
/// Facet keys: `facet \0 value \0 case_hash` → nothing.
pub(crate) const FACETS: TableDefinition<&[u8], ()> = TableDefinition::new("idx.facets");
/// Which rows each file holds: `path \0 case_hash` → nothing.
pub(crate) const BY_FILE: TableDefinition<&[u8], ()> = TableDefinition::new("idx.by_file");

/// The facets an entry can be filtered by, in output order.
pub const FACET_NAMES: [&str; 7] = ["family", "apis", "dtype", "device", "kind", "status", "id"];

/// What a query returns for one entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRow {
    /// The entry id.
    pub id: String,
    /// The front-matter `kind` (pattern, trap, case, constant).
    pub kind: String,
    /// The first line of the body, without leading `#`.
    pub title: String,
    /// The file holding the entry.
    pub file: String,
    /// The entry's first line in that file.
    pub line: u64,
    /// Parsed `family` values.
    pub family: Vec<String>,
    /// Parsed `apis` values.
    pub apis: Vec<String>,
    /// Parsed `dtype` values.
    pub dtype: Vec<String>,
    /// Parsed `device` values.
    pub device: Vec<String>,
    /// The `status` value.
    pub status: String,
}

/// A facet filter: values within a facet are ORed, facets are ANDed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Facet name → accepted values. Empty means no filter on that facet.
    pub facets: BTreeMap<String, Vec<String>>,
    /// Id prefixes, ORed.
    pub id_prefixes: Vec<String>,
}

impl Filter {
    /// Whether the filter accepts every entry.
    pub fn is_empty(&self) -> bool {
        self.facets.values().all(Vec::is_empty) && self.id_prefixes.is_empty()
    }
}

fn facet_values(row: &QueryRow) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut push = |facet: &'static str, values: &[String]| {
        for v in values {
            out.push((facet, v.to_lowercase()));
        }
    };
    push("family", &row.family);
    push("apis", &row.apis);
    push("dtype", &row.dtype);
    push("device", &row.device);
    push("kind", std::slice::from_ref(&row.kind));
    push("status", std::slice::from_ref(&row.status));
    out.push(("id", row.id.clone()));
    out
}

fn facet_key(facet: &str, value: &str, hash: Option<&CaseHash>) -> Vec<u8> {
    let mut k = Vec::with_capacity(facet.len() + value.len() + 34);
    k.extend_from_slice(facet.as_bytes());
    k.push(0);
    k.extend_from_slice(value.as_bytes());
    if let Some(h) = hash {
        k.push(0);
        k.extend_from_slice(&h.0);
    }
    k
}

fn file_key(path: &str, hash: &CaseHash) -> Vec<u8> {
    let mut k = path.as_bytes().to_vec();
    k.push(0);
    k.extend_from_slice(&hash.0);
    k
}

/// Rebuilds the index rows of one file from its layout and records (`layout` None: the file
/// is gone and its rows are removed).
pub(crate) fn reindex_file(
    txn: &redb::WriteTransaction,
    path: &str,
    layout: Option<&FileLayout>,
    get: &dyn Fn(&CaseHash) -> Result<Option<Record>, StoreError>,
    indexer: &dyn Indexer,
) -> Result<(), StoreError> {
    let mut rows = txn.open_table(ROWS)?;
    let mut facets = txn.open_table(FACETS)?;
    let mut by_file = txn.open_table(BY_FILE)?;
    let mut prefix = path.as_bytes().to_vec();
    prefix.push(0);
    let old: Vec<Vec<u8>> = by_file
        .range(prefix.as_slice()..)?
        .map_while(|r| match r {
            Ok((k, _)) if k.value().starts_with(&prefix) => Some(Ok(k.value().to_vec())),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<Result<_, _>>()?;
    for key in old {
        let Ok(hash_bytes) = <[u8; 32]>::try_from(&key[prefix.len()..]) else { continue };
        if let Some(bytes) = rows.remove(hash_bytes)? {
            if let Ok(row) = codec::decode::<QueryRow>(bytes.value()) {
                let h = CaseHash(hash_bytes);
                for (f, v) in facet_values(&row) {
                    facets.remove(facet_key(f, &v, Some(&h)).as_slice())?;
                }
            }
        }
        by_file.remove(key.as_slice())?;
    }
    let Some(layout) = layout else { return Ok(()) };
    for (h, row) in entry_rows(layout, get, indexer)? {
        for (f, v) in facet_values(&row) {
            facets.insert(facet_key(f, &v, Some(&h)).as_slice(), ())?;
        }
        rows.insert(h.0, codec::encode(&row).as_slice())?;
        by_file.insert(file_key(path, &h).as_slice(), ())?;
    }
    Ok(())
}

/// The query rows of the entries a file holds, in file order, with their first lines.
/// `get` hands out records owned (read from a transaction) or borrowed (already in memory).
fn entry_rows<R: std::borrow::Borrow<Record>>(
    layout: &FileLayout,
    get: &dyn Fn(&CaseHash) -> Result<Option<R>, StoreError>,
    indexer: &dyn Indexer,
) -> Result<Vec<(CaseHash, QueryRow)>, StoreError> {
    let mut out = Vec::new();
    let mut line: u64 = 1;
    for item in &layout.items {
        match item {
            LayoutItem::Prose(p) => line += p.matches('\n').count() as u64,
            LayoutItem::Record(h) => {
                let Some(rec) = get(h)? else { continue };
                let rec: &Record = rec.borrow();
                if indexer.queryable(rec.kind) {
                    if let Some(row) = indexer.query_row(rec, line) {
                        out.push((*h, row));
                    }
                }
                line += rec.text().matches('\n').count() as u64;
            }
        }
    }
    Ok(out)
}

/// Compares the facet index tables with what the records and layouts say they must hold.
/// Returns one sentence per disagreement (at most a few per table, then a count); empty when
/// the index is exact.
///
/// The wanted keys are built once, sorted, and walked beside each table's own key order, so
/// the check costs one pass over each table and one sort (it held every key of both sides in
/// ordered sets before, 12 s of a 100k-entry `verify`).
pub(crate) fn check<'r>(
    txn: &redb::ReadTransaction,
    layouts: &[FileLayout],
    get: &dyn Fn(&CaseHash) -> Result<Option<&'r Record>, StoreError>,
    indexer: &dyn Indexer,
) -> Result<Vec<String>, StoreError> {
    let mut want_rows: HashMap<[u8; 32], QueryRow> = HashMap::new();
    let mut want_facets: Vec<Vec<u8>> = Vec::new();
    let mut want_by_file: Vec<Vec<u8>> = Vec::new();
    for layout in layouts {
        for (h, row) in entry_rows(layout, get, indexer)? {
            for (f, v) in facet_values(&row) {
                want_facets.push(facet_key(f, &v, Some(&h)));
            }
            want_by_file.push(file_key(&layout.path, &h));
            want_rows.insert(h.0, row);
        }
    }
    let mut problems = Vec::new();
    let mut rows_seen: HashSet<[u8; 32]> = HashSet::with_capacity(want_rows.len());
    let mut row_problems = Vec::new();
    match txn.open_table(ROWS) {
        Ok(rows) => {
            for r in rows.iter()? {
                let (k, v) = r?;
                let key = k.value();
                rows_seen.insert(key);
                let name =
                    want_rows.get(&key).map_or_else(|| crate::record::hex(&key), |w| w.id.clone());
                match (decode_row(&key, v.value()), want_rows.get(&key)) {
                    (Err(e), _) => row_problems
                        .push(format!("the facet index row of '{name}' does not decode ({e})")),
                    (Ok(_), None) => row_problems.push(format!(
                        "the facet index has a row for {name}, which is no entry of any file"
                    )),
                    (Ok(got), Some(want)) if got != *want => row_problems.push(format!(
                        "the facet index row of entry '{name}' disagrees with its record"
                    )),
                    _ => {}
                }
            }
        }
        Err(redb::TableError::TableDoesNotExist(_)) => {}
        Err(err) => return Err(err.into()),
    }
    let mut lacking: Vec<&str> = want_rows
        .iter()
        .filter(|(k, _)| !rows_seen.contains(*k))
        .map(|(_, row)| row.id.as_str())
        .collect();
    lacking.sort_unstable();
    for id in lacking {
        row_problems.push(format!("the facet index lacks entry '{id}'"));
    }
    summarise(&mut problems, row_problems);
    for (name, def, mut want) in
        [("facet keys", FACETS, want_facets), ("file keys", BY_FILE, want_by_file)]
    {
        want.sort_unstable();
        want.dedup();
        let (mut missing, mut extra) = (0usize, 0usize);
        let mut wanted = want.iter().peekable();
        match txn.open_table(def) {
            Ok(t) => {
                for r in t.iter()? {
                    let (k, _) = r?;
                    let have = k.value();
                    // Wanted keys below the table's next key are missing from it.
                    while wanted.next_if(|w| w.as_slice() < have).is_some() {
                        missing += 1;
                    }
                    if wanted.next_if(|w| w.as_slice() == have).is_none() {
                        extra += 1;
                    }
                }
            }
            Err(redb::TableError::TableDoesNotExist(_)) => {}
            Err(err) => return Err(err.into()),
        }
        missing += wanted.count();
        if extra + missing > 0 {
            problems.push(format!(
                "the facet index's {name} disagree with the records: {missing} missing, {extra} left over"
            ));
        }
    }
    Ok(problems)
}

/// Appends up to five of `found`, then how many more there are.
fn summarise(out: &mut Vec<String>, found: Vec<String>) {
    let more = found.len().saturating_sub(5);
    out.extend(found.into_iter().take(5));
    if more > 0 {
        out.push(format!("… and {more} more facet index rows that disagree with the records"));
    }
}

/// Scans keys under `prefix` and returns the case hashes at their end.
fn hashes_with_prefix(
    table: &impl ReadableTable<&'static [u8], ()>,
    prefix: &[u8],
) -> Result<BTreeSet<[u8; 32]>, StoreError> {
    let mut out = BTreeSet::new();
    for row in table.range(prefix..)? {
        let (k, _) = row?;
        let key = k.value();
        if !key.starts_with(prefix) {
            break;
        }
        if key.len() >= 32 {
            if let Ok(h) = <[u8; 32]>::try_from(&key[key.len() - 32..]) {
                out.insert(h);
            }
        }
    }
    Ok(out)
}

/// The ids of every indexed entry, read from the `id` facet keys (no row is decoded).
pub(crate) fn entry_ids(
    facets: &impl ReadableTable<&'static [u8], ()>,
) -> Result<Vec<String>, StoreError> {
    let prefix = facet_key("id", "", None);
    let mut out = Vec::new();
    for row in facets.range(prefix.as_slice()..)? {
        let (k, _) = row?;
        let key = k.value();
        if !key.starts_with(&prefix) {
            break;
        }
        // `id \0 value \0 hash`: the value is what lies between the prefix and the hash.
        if key.len() >= prefix.len() + 33 {
            let value = &key[prefix.len()..key.len() - 33];
            out.push(String::from_utf8_lossy(value).into_owned());
        }
    }
    Ok(out)
}

/// Answers a filter from the index tables, sorted by file, line and id.
pub(crate) fn run(
    rows: &impl ReadableTable<[u8; 32], &'static [u8]>,
    facets: &impl ReadableTable<&'static [u8], ()>,
    filter: &Filter,
) -> Result<Vec<QueryRow>, StoreError> {
    // Only the first (most selective by kind) facet is scanned; the others are checked per
    // candidate with point lookups, so a broad facet such as `status` never loads its whole
    // set of keys.
    let mut active: Vec<(&str, Vec<String>)> = filter
        .facets
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(f, v)| (f.as_str(), v.iter().map(|x| x.to_lowercase()).collect()))
        .collect();
    let rank = |f: &str| FACET_NAMES.iter().position(|n| *n == f).unwrap_or(FACET_NAMES.len());
    // apis and family name few entries each; kind and status name many.
    let selectivity = |f: &str| match f {
        "apis" => 0,
        "family" => 1,
        "dtype" => 2,
        "device" => 3,
        _ => 4 + rank(f),
    };
    active.sort_by_key(|(f, _)| selectivity(f));
    let mut selected: Option<BTreeSet<[u8; 32]>> = None;
    if !filter.id_prefixes.is_empty() {
        let mut union = BTreeSet::new();
        for p in &filter.id_prefixes {
            union.extend(hashes_with_prefix(facets, &facet_key("id", p, None))?);
        }
        selected = Some(union);
    } else if let Some((facet, values)) = active.first() {
        let mut union = BTreeSet::new();
        for v in values {
            let mut prefix = facet_key(facet, v, None);
            prefix.push(0);
            union.extend(hashes_with_prefix(facets, &prefix)?);
        }
        selected = Some(union);
        active.remove(0);
    }
    if let Some(candidates) = &mut selected {
        for (facet, values) in &active {
            let mut keep = BTreeSet::new();
            for h in candidates.iter() {
                let hash = CaseHash(*h);
                for v in values {
                    if facets.get(facet_key(facet, v, Some(&hash)).as_slice())?.is_some() {
                        keep.insert(*h);
                        break;
                    }
                }
            }
            *candidates = keep;
        }
    }
    let mut out = Vec::new();
    match selected {
        Some(keys) => {
            for k in keys {
                if let Some(v) = rows.get(k)? {
                    out.push(decode_row(&k, v.value())?);
                }
            }
        }
        None => {
            for r in rows.iter()? {
                let (k, v) = r?;
                out.push(decode_row(&k.value(), v.value())?);
            }
        }
    }
    out.sort_by(|a, b| (&a.file, a.line, &a.id).cmp(&(&b.file, b.line, &b.id)));
    Ok(out)
}

fn decode_row(key: &[u8; 32], bytes: &[u8]) -> Result<QueryRow, StoreError> {
    codec::decode(bytes).map_err(|detail| StoreError::Corrupted {
        table: "idx.query_rows",
        key: crate::record::hex(key),
        detail,
    })
}
