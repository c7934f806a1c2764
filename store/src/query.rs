//! The facet index: secondary tables that answer `evokb query` without scanning records.
//!
//! Every queryable record has a dense `u32` ordinal. Its [`QueryRow`] (what a query prints)
//! is stored under that ordinal, and each lowercased facet value keeps a posting list of the
//! ordinals that carry it (see [`crate::postings`]). A filter decodes a few posting lists,
//! intersects them in memory, and reads the selected rows in ordinal order as runs of range
//! reads, never one B-tree descent per row.
//!
//! Ordinals are handed out when a row first appears, sorted by the row's sorted families, then
//! file and line, so a fresh import lays the rows of one family in a few runs side by side
//! and the common `--family` query is a few sequential reads. A row keeps its ordinal while its record
//! lives (an edit rewrites its row and the posting lists of the values it changed, nothing
//! else); a removed row's ordinal is not reused.
//!
//! A row is stored as the compact JSON a query prints for it, cut around the file path (see
//! [`encode_row`]), so a `--json` query copies byte ranges in order and writes them out once:
//! at 100k entries a family's 12.7k rows are 6.5 MB of JSON, and decoding them into owned
//! strings and serialising them again was most of the query's time.
//!
//! Tables (all derived from the records, not part of the digest):
//! - `idx.q.rows`: last ordinal → a block of encoded [`StoredRow`]s of rising ordinals, up to
//!   8 KiB (each row's printed JSON without its path, the file as a number, the line and the
//!   id for sorting); see [`RowBlock`];
//! - `idx.q.postings`: `facet \0 value` → posting list;
//! - `idx.q.ids`: `(id, ordinal)` → nothing, for id prefixes and [`entry_ids`];
//! - `idx.q.files`: path → the file's number and its rows' case hashes and ordinals, in file
//!   order, so a file's reindex finds the rows it had;
//! - `idx.q.file_names`: file number → path;
//! - `idx.q.order`: each row's place in output order, its file number and line, eight bytes
//!   per ordinal in blocks of [`ORDER_BLOCK`] (see [`OrderSlot`]), so a `--json` query learns
//!   the order of its rows before reading them and streams them out as it reads;
//! - `idx.q.dir`: one value, the file directory: each file number's path as a JSON string and
//!   its rank among the paths (see [`Directory`]), rewritten when a file gains or loses its
//!   number, so a broad query neither reads the name table entry by entry nor sorts paths;
//! - `idx.q.meta`: the next ordinal and file number, and the mark that the index is built.
//!
//! The index is rebuilt for the files a write transaction touched, just before that
//! transaction commits, so it can never disagree with the records it describes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use redb::{ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::codec;
use crate::error::StoreError;
use crate::index::Indexer;
use crate::postings;
use crate::record::{CaseHash, FileLayout, LayoutItem, Record};

/// Query rows in blocks, by the last ordinal of each (see [`RowBlock`]).
pub(crate) const ROWS: TableDefinition<u32, &[u8]> = TableDefinition::new("idx.q.rows");
/// Posting lists: `facet \0 value` → the ordinals carrying it (see [`crate::postings`]).
pub(crate) const POSTINGS: TableDefinition<&[u8], &[u8]> = TableDefinition::new("idx.q.postings");
/// Entry ids: `(id, ordinal)` → nothing.
pub(crate) const IDS: TableDefinition<(&str, u32), ()> = TableDefinition::new("idx.q.ids");
/// What each file holds: path → encoded [`FileRows`].
pub(crate) const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("idx.q.files");
/// File numbers → paths.
pub(crate) const FILE_NAMES: TableDefinition<u32, &str> = TableDefinition::new("idx.q.file_names");
/// Each row's file number and line, by block of ordinals (see [`OrderSlot`]).
pub(crate) const ORDER: TableDefinition<u32, &[u8]> = TableDefinition::new("idx.q.order");
/// The file directory, under [`DIR_KEY`] (see [`Directory`]).
pub(crate) const DIR: TableDefinition<u32, &[u8]> = TableDefinition::new("idx.q.dir");
/// The one key of the file directory table.
const DIR_KEY: u32 = 0;
/// Counters and the ready mark.
pub(crate) const META: TableDefinition<&str, u32> = TableDefinition::new("idx.q.meta");

/// The table a query names in its `Corrupted` error when the index was never built in this
/// layout (a store written by an older evokb): the caller rebuilds it.
pub const INDEX_MARK_TABLE: &str = "idx.q.meta";

/// Present once the index has been built by this layout (an older store lacks it). Version 2
/// stores rows as JSON fragments ([`ROW_FORMAT`]); a store whose index was built with bincode
/// rows (`ready.v1`) has no `ready.v2` mark, so its index is rebuilt like one that is missing.
/// Version 3 adds the order table ([`ORDER`]): a version-2 index is rebuilt the same way.
/// Version 4 keys blocks of rows by their last ordinal ([`RowBlock`]); version 5 stores rows
/// without the keys around the path and without a second copy of the id ([`ROW_FORMAT`] 3).
pub(crate) const READY: &str = "ready.v5";
const NEXT_ORDINAL: &str = "next_ordinal";
const NEXT_FILE: &str = "next_file";

/// The tables of the facet index before ordinals (removed when a store is first written).
pub(crate) const OLD_ROWS: TableDefinition<[u8; 32], &[u8]> =
    TableDefinition::new("idx.query_rows");
/// See [`OLD_ROWS`].
pub(crate) const OLD_KEYS: [TableDefinition<&[u8], ()>; 2] =
    [TableDefinition::new("idx.facets"), TableDefinition::new("idx.by_file")];

/// Result ordinals closer than this to the key a range read is at are reached by reading
/// on, not by a new descent: a leaf holds about this many rows.
const READ_ON_GAP: u32 = 24;

/// The facets an entry can be filtered by, in output order.
pub const FACET_NAMES: [&str; 7] = ["family", "apis", "dtype", "device", "kind", "status", "id"];

/// The facets with posting lists (`id` is answered from `idx.q.ids`).
const POSTED: [&str; 6] = ["family", "apis", "dtype", "device", "kind", "status"];

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

/// A query row as stored: the file is the number of the layout the row belongs to, with the
/// path spelled out only when the row names another file (paths are a third of a row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredRow {
    id: String,
    kind: String,
    title: String,
    file_no: u32,
    file: Option<String>,
    line: u64,
    family: Vec<String>,
    apis: Vec<String>,
    dtype: Vec<String>,
    device: Vec<String>,
    status: String,
}

impl StoredRow {
    fn new(row: QueryRow, file_no: u32, layout_path: &str) -> StoredRow {
        StoredRow {
            file: (row.file != layout_path).then_some(row.file),
            id: row.id,
            kind: row.kind,
            title: row.title,
            file_no,
            line: row.line,
            family: row.family,
            apis: row.apis,
            dtype: row.dtype,
            device: row.device,
            status: row.status,
        }
    }

    fn into_row(self, path: &str) -> QueryRow {
        QueryRow {
            file: self.file.unwrap_or_else(|| path.to_string()),
            id: self.id,
            kind: self.kind,
            title: self.title,
            line: self.line,
            family: self.family,
            apis: self.apis,
            dtype: self.dtype,
            device: self.device,
            status: self.status,
        }
    }

    /// The posting keys of the row's lowercased facet values, sorted and without repeats.
    fn posting_keys(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let lists = facet_lists(
            [&self.family, &self.apis, &self.dtype, &self.device],
            [&self.kind, &self.status],
        );
        for (facet, values) in lists {
            for v in values {
                let mut key = Vec::with_capacity(facet.len() + v.len() + 1);
                push_posting_key(&mut key, facet, v);
                out.push(key);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The key ordinals are allocated by: the row's families, lowercased and sorted. Rows
    /// sorted so hold each family in few runs: those where it is the first name are one run,
    /// those where it is the second one run per smaller first name, and so on, so with ten
    /// families and up to three per entry a family is at most 46 runs, the first one one.
    fn cluster_key(&self) -> Vec<String> {
        let mut names: Vec<String> = self.family.iter().map(|f| f.to_lowercase()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// The rows a file holds, in file order, and the number its rows name it by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct FileRows {
    no: u32,
    members: Vec<([u8; 32], u32)>,
}

/// The facets a row is indexed under, each with its values: the list facets (family, apis,
/// dtype, device) and the one-value ones (kind, status). Both the index and its check read it.
fn facet_lists<'a>(
    [family, apis, dtype, device]: [&'a [String]; 4],
    [kind, status]: [&'a String; 2],
) -> [(&'static str, &'a [String]); 6] {
    [
        ("family", family),
        ("apis", apis),
        ("dtype", dtype),
        ("device", device),
        ("kind", std::slice::from_ref(kind)),
        ("status", std::slice::from_ref(status)),
    ]
}

/// Appends to `key` the posting key of `value` (lowercased) under `facet`.
fn push_posting_key(key: &mut Vec<u8>, facet: &str, value: &str) {
    key.extend_from_slice(facet.as_bytes());
    key.push(0);
    if value.is_ascii() {
        key.extend(value.bytes().map(|b| b.to_ascii_lowercase()));
    } else {
        key.extend_from_slice(value.to_lowercase().as_bytes());
    }
}

fn posting_key(facet: &str, value: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(facet.len() + value.len() + 1);
    k.extend_from_slice(facet.as_bytes());
    k.push(0);
    k.extend_from_slice(value.as_bytes());
    k
}

fn corrupted(table: &'static str, key: impl std::fmt::Display, detail: String) -> StoreError {
    StoreError::Corrupted { table, key: key.to_string(), detail }
}

/// The first byte of a stored row: rows as JSON fragments. Bincode values start with
/// [`codec::VALUE_FORMAT`] (1), so a row of the older layout reads as damage, never as garbage;
/// format 2 kept the id twice and the keys around the path in every row.
const ROW_FORMAT: u8 = 3;

/// The id-length word of a row whose id is its JSON string without the quotes (an id with
/// nothing to escape, which is every id the spec allows), so it is not stored twice.
const ID_IN_JSON: u32 = u32::MAX;

/// No path of its own: the row's file is the layout it belongs to.
const NO_OWN_FILE: u32 = u32::MAX;

/// Each name's rank among the distinct names in byte order (equal names share one), and each
/// distinct name as a JSON string, by rank: rows then sort by a number and print a path they
/// share without escaping it again.
fn ranked_json(names: &[&str]) -> (Vec<usize>, Vec<Vec<u8>>) {
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_unstable_by_key(|&s| names[s]);
    let mut rank = vec![0usize; names.len()];
    let mut json: Vec<Vec<u8>> = Vec::new();
    let mut prev: Option<&str> = None;
    for &s in &by_name {
        if prev != Some(names[s]) {
            let mut string = Vec::with_capacity(names[s].len() + 2);
            if let Err(err) = serde_json::to_writer(&mut string, names[s]) {
                unreachable!("a path does not serialise: {err}");
            }
            json.push(string);
            prev = Some(names[s]);
        }
        rank[s] = json.len() - 1;
    }
    (rank, json)
}

/// The first byte of the file directory.
const DIR_FORMAT: u8 = 1;
/// The rank of a file number no file has.
const NO_FILE_RANK: u32 = u32::MAX;

/// The file directory read in place: for file numbers `0..n`, the rank of each one's path among
/// the paths (byte order, [`NO_FILE_RANK`] for a number no file has) and the path as a JSON
/// string. Stored as [`DIR_FORMAT`], `n` (u32), `n` entries of rank, start and end (u32s, the
/// range of the JSON string in the value), then the strings; integers little-endian.
struct Directory<'a> {
    bytes: &'a [u8],
    n: u32,
}

impl<'a> Directory<'a> {
    /// The directory of the name table's files (files sharing a path share its rank).
    fn build(names: &impl ReadableTable<u32, &'static str>) -> Result<Vec<u8>, StoreError> {
        let mut files: Vec<(u32, String)> = Vec::new();
        for r in names.iter()? {
            let (k, v) = r?;
            files.push((k.value(), v.value().to_string()));
        }
        let n = files.last().map_or(0, |(no, _)| no + 1);
        let names: Vec<&str> = files.iter().map(|(_, path)| path.as_str()).collect();
        let (ranks, json) = ranked_json(&names);
        // The strings in rank order, each once; each file's entry points at its rank's.
        let head = 5 + 12 * n as usize;
        let to_u32 = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        let mut strings: Vec<u8> = Vec::new();
        let mut span_of_rank = Vec::with_capacity(json.len());
        for string in &json {
            let start = head + strings.len();
            strings.extend_from_slice(string);
            span_of_rank.push((to_u32(start), to_u32(head + strings.len())));
        }
        let mut entries = vec![(NO_FILE_RANK, 0u32, 0u32); n as usize];
        for ((no, _), &r) in files.iter().zip(&ranks) {
            let (start, end) = span_of_rank[r];
            entries[*no as usize] = (to_u32(r), start, end);
        }
        let mut out = Vec::with_capacity(head + strings.len());
        out.push(DIR_FORMAT);
        out.extend_from_slice(&n.to_le_bytes());
        for (r, start, end) in &entries {
            out.extend_from_slice(&r.to_le_bytes());
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
        out.extend_from_slice(&strings);
        Ok(out)
    }

    /// The directory in `bytes`, when they hold one of this format.
    fn parse(bytes: &'a [u8]) -> Option<Directory<'a>> {
        let (&format, rest) = bytes.split_first()?;
        let n = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        let head = (n as usize).checked_mul(12)?.checked_add(5)?;
        (format == DIR_FORMAT && bytes.len() >= head).then_some(Directory { bytes, n })
    }

    /// The rank and JSON path of file number `no`, when the directory has a file there.
    fn entry(&self, no: u32) -> Option<(u32, &'a [u8])> {
        if no >= self.n {
            return None;
        }
        let at = 5 + 12 * no as usize;
        let word = |k: usize| {
            let b = &self.bytes[at + 4 * k..at + 4 * k + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        let (rank, start, end) = (word(0), word(1), word(2));
        if rank == NO_FILE_RANK {
            return None;
        }
        Some((rank, self.bytes.get(start as usize..end as usize)?))
    }
}

/// The most bytes a block of rows takes (unit tests: a kilobyte, so their rows span many).
/// Rows are stored in blocks, each keyed by its last ordinal and filled up to this size in
/// ordinal order, so a block fills an 8 KiB redb page: one value per row cost a family query a
/// cursor step per row and a page read per eight rows, and blocks of a fixed number of rows
/// left a third of their pages empty.
///
/// Why 8 KiB: a broad query reads its blocks one after the next, and a narrow one reads a
/// whole block for each of its scattered rows. At 100k entries (medians of 31 alternated
/// runs, one binary, stores imported with each size) the four-facet query of `scripts/cost.py`
/// (166 rows) took 4.89 / 4.47 / 4.27 ms with 16 / 8 / 4 KiB blocks and the family query
/// (12.7k rows) 10.90 / 10.95 / 11.83 ms.
const ROW_BLOCK_BYTES: usize = if cfg!(test) { 1024 } else { 8 * 1024 - 64 };
/// The first byte of a block of rows.
const ROW_BLOCK_FORMAT: u8 = 4;

/// Where the rows of a block lie in its bytes. A block is stored as [`ROW_BLOCK_FORMAT`], the
/// number of rows (u32), per row its ordinal and length (u32s), in ascending ordinals, the
/// last being the block's key, then the rows' bytes one after the other; integers
/// little-endian. A block holds the rows of the ordinals past the previous block's key up to
/// its own; rows past every key join the last block. Keyed by its last ordinal, the block
/// that holds an ordinal is the first at or after it, and redb finds that in one leaf: its
/// branch pages separate their children by last keys, so a search for the greatest key at or
/// below an ordinal lands on the leaf after that key's and steps back, two leaves read.
pub(crate) struct RowBlock {
    /// Each row's ordinal and the range of its bytes.
    rows: Vec<(u32, u32, u32)>,
}

impl RowBlock {
    fn parse(key: u32, bytes: &[u8]) -> Result<RowBlock, String> {
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        if bytes.first() != Some(&ROW_BLOCK_FORMAT) {
            return Err(format!(
                "the block of rows is not in format {ROW_BLOCK_FORMAT}, the one this evokb writes"
            ));
        }
        let n = word(1).ok_or("the block ends before its row count")? as usize;
        let mut at = n
            .checked_mul(8)
            .and_then(|h| h.checked_add(5))
            .filter(|&h| h <= bytes.len())
            .ok_or("the block ends inside its table of rows")?;
        let mut rows = Vec::with_capacity(n);
        for i in 0..n {
            let (ord, len) = (word(5 + 8 * i), word(9 + 8 * i));
            let (Some(ord), Some(len)) = (ord, len) else { unreachable!("the table was measured") };
            if rows.last().is_some_and(|&(l, _, _)| l >= ord) {
                return Err(format!("the block keyed {key} lists ordinal {ord} out of order"));
            }
            let end = at
                .checked_add(len as usize)
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| format!("the block ends inside the row of ordinal {ord}"))?;
            // A redb value is well under 4 GiB.
            rows.push((ord, at as u32, end as u32));
            at = end;
        }
        match rows.last() {
            None => return Err("the block holds no row".to_string()),
            Some(&(last, _, _)) if last != key => {
                return Err(format!("the block keyed {key} ends at ordinal {last}"));
            }
            Some(_) => {}
        }
        if at != bytes.len() {
            return Err(format!("the block has {} bytes past its last row", bytes.len() - at));
        }
        Ok(RowBlock { rows })
    }

    /// The bytes of the row of `ord` in the block's `bytes`, when the block holds it.
    fn row<'b>(&self, bytes: &'b [u8], ord: u32) -> Option<&'b [u8]> {
        let i = self.rows.binary_search_by_key(&ord, |&(o, _, _)| o).ok()?;
        let (_, start, end) = self.rows[i];
        bytes.get(start as usize..end as usize)
    }

    /// The bytes of the row of `ord`, searched for from the row at `*at` on, for a reader
    /// whose ordinals rise (a lane of a streamed query): a step or two instead of a binary
    /// search. `*at` is left at the row after it; an ordinal below `*at` is searched for
    /// from the start.
    fn row_after<'b>(&self, bytes: &'b [u8], ord: u32, at: &mut usize) -> Option<&'b [u8]> {
        let mut i = *at;
        if i > self.rows.len() || (i > 0 && self.rows[i - 1].0 >= ord) {
            i = self.rows.partition_point(|&(o, _, _)| o < ord);
        }
        while self.rows.get(i).is_some_and(|&(o, _, _)| o < ord) {
            i += 1;
        }
        let &(o, start, end) = self.rows.get(i)?;
        *at = i + 1;
        (o == ord).then(|| bytes.get(start as usize..end as usize)).flatten()
    }

    /// The first ordinal the block holds.
    fn first(&self) -> u32 {
        self.rows.first().map_or(0, |&(o, _, _)| o)
    }

    /// The last ordinal the block holds: its key.
    fn last(&self) -> u32 {
        self.rows.last().map_or(0, |&(o, _, _)| o)
    }

    /// The rows with their ordinals, ascending.
    fn rows<'b>(&'b self, bytes: &'b [u8]) -> impl Iterator<Item = (u32, &'b [u8])> + 'b {
        self.rows.iter().map(move |&(o, start, end)| (o, &bytes[start as usize..end as usize]))
    }

    /// Encodes rows, ascending by ordinal, as one block.
    fn encode(rows: &[(u32, Box<[u8]>)]) -> Vec<u8> {
        let len: usize = rows.iter().map(|(_, r)| r.len()).sum();
        let mut out = Vec::with_capacity(5 + 8 * rows.len() + len);
        out.push(ROW_BLOCK_FORMAT);
        out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
        for (ord, row) in rows {
            out.extend_from_slice(&ord.to_le_bytes());
            out.extend_from_slice(&u32::try_from(row.len()).unwrap_or(u32::MAX).to_le_bytes());
        }
        for (_, row) in rows {
            out.extend_from_slice(row);
        }
        out
    }
}

/// Reads a block of rows, naming it in the error.
fn parse_block(key: u32, bytes: &[u8]) -> Result<RowBlock, StoreError> {
    RowBlock::parse(key, bytes)
        .map_err(|detail| corrupted("idx.q.rows", format!("block {key}"), detail))
}

/// The rows of a block being changed: each row's ordinal and bytes, ascending.
type BlockRows = Vec<(u32, Box<[u8]>)>;

/// The blocks of rows a write changes, each read once; at the end each is written again,
/// split into blocks of at most [`ROW_BLOCK_BYTES`].
struct RowBlocks {
    open: BTreeMap<u32, BlockRows>,
    /// The stored blocks read into `open`, removed before it is written.
    read: Vec<u32>,
}

impl RowBlocks {
    fn new() -> RowBlocks {
        RowBlocks { open: BTreeMap::new(), read: Vec::new() }
    }

    /// The rows of the block that holds `ord`, read on first use; a new block when there is
    /// none. A stored block that does not decode is taken as empty: the rows
    /// this write keeps are written again, and verify reports the others.
    fn block(
        &mut self,
        table: &redb::Table<'_, u32, &'static [u8]>,
        ord: u32,
    ) -> Result<&mut BlockRows, StoreError> {
        let key = self.key_for(table, ord)?.unwrap_or(ord);
        if !self.open.contains_key(&key) {
            let mut rows = Vec::new();
            if let Some(v) = table.get(key)? {
                self.read.push(key);
                if let Ok(block) = RowBlock::parse(key, v.value()) {
                    rows.extend(block.rows(v.value()).map(|(o, r)| (o, Box::from(r))));
                }
            }
            self.open.insert(key, rows);
        }
        Ok(self.open.get_mut(&key).unwrap_or_else(|| unreachable!("the block was just opened")))
    }

    /// The key of the block, stored or open, that holds `ord`'s row or would: the least key
    /// not below it, else the greatest. An open block keeps the key it was read or made
    /// under until it is written.
    fn key_for(
        &self,
        table: &redb::Table<'_, u32, &'static [u8]>,
        ord: u32,
    ) -> Result<Option<u32>, StoreError> {
        let stored = table.range(ord..)?.next().transpose()?.map(|(k, _)| k.value());
        let open = self.open.range(ord..).next().map(|(k, _)| *k);
        Ok(Some(match (stored, open) {
            (Some(s), Some(o)) => s.min(o),
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => {
                let stored = table.last()?.map(|(k, _)| k.value());
                match (stored, self.open.keys().next_back()) {
                    (Some(s), Some(&o)) => s.max(o),
                    (Some(k), None) | (None, Some(&k)) => k,
                    (None, None) => return Ok(None),
                }
            }
        }))
    }

    /// The row of `ord`, from its open block or read in place: a block is opened (copied
    /// out row by row) only when a row of it changes, so comparing the rows of an edited file
    /// with their new bytes copies one row each, not a block each.
    fn get(
        &mut self,
        table: &redb::Table<'_, u32, &'static [u8]>,
        ord: u32,
    ) -> Result<Option<std::borrow::Cow<'_, [u8]>>, StoreError> {
        use std::borrow::Cow;
        let Some(key) = self.key_for(table, ord)? else { return Ok(None) };
        if let Some(rows) = self.open.get(&key) {
            let found = rows.binary_search_by_key(&ord, |(o, _)| *o).ok();
            return Ok(found.map(|i| Cow::Borrowed(&*rows[i].1)));
        }
        let Some(v) = table.get(key)? else { return Ok(None) };
        // A block that does not decode has no row to compare with: the row is written anew.
        Ok(RowBlock::parse(key, v.value())
            .ok()
            .and_then(|block| block.row(v.value(), ord).map(|r| Cow::Owned(r.to_vec()))))
    }

    /// Sets the row of `ord`; returns the row it had.
    fn set(
        &mut self,
        table: &redb::Table<'_, u32, &'static [u8]>,
        ord: u32,
        row: Option<Box<[u8]>>,
    ) -> Result<Option<Box<[u8]>>, StoreError> {
        let rows = self.block(table, ord)?;
        Ok(match (rows.binary_search_by_key(&ord, |(o, _)| *o), row) {
            (Ok(i), Some(row)) => Some(std::mem::replace(&mut rows[i].1, row)),
            (Ok(i), None) => Some(rows.remove(i).1),
            (Err(i), Some(row)) => {
                rows.insert(i, (ord, row));
                None
            }
            (Err(_), None) => None,
        })
    }

    /// Writes every open block, split to size and keyed by its last ordinal, in place of the
    /// blocks read.
    fn write(self, table: &mut redb::Table<'_, u32, &'static [u8]>) -> Result<(), StoreError> {
        for key in self.read {
            table.remove(key)?;
        }
        for rows in self.open.into_values() {
            let mut start = 0;
            let mut bytes = 5;
            for (i, (_, row)) in rows.iter().enumerate() {
                if i > start && bytes + 8 + row.len() > ROW_BLOCK_BYTES {
                    table.insert(rows[i - 1].0, RowBlock::encode(&rows[start..i]).as_slice())?;
                    (start, bytes) = (i, 5);
                }
                bytes += 8 + row.len();
            }
            if let Some((last, _)) = rows.last() {
                table.insert(*last, RowBlock::encode(&rows[start..]).as_slice())?;
            }
        }
        Ok(())
    }
}

/// Ordinals per block of the order table: a block is 3,840 bytes, one to a 4 KiB page (blocks
/// of 2 KiB left half of their pages' space unused), so a family's clustered ordinals are a
/// few dozen blocks to read and a one-row edit rewrites one block. Unit tests use
/// blocks of 16, so their few hundred rows span many.
pub(crate) const ORDER_BLOCK: u32 = if cfg!(test) { 16 } else { 480 };
/// The bytes of one slot: the file number and the line, little-endian u32s.
const SLOT_BYTES: usize = 8;
/// The bytes of one block of the order table.
const ORDER_BLOCK_BYTES: usize = ORDER_BLOCK as usize * SLOT_BYTES;
/// The file number of a slot with no row.
const SLOT_EMPTY: u32 = u32::MAX;
/// The file number of a slot whose row names a file other than its layout's, which the file
/// number cannot place.
const SLOT_OWN_FILE: u32 = u32::MAX - 1;

/// An ordinal's slot in the order table: where its row goes in output order, the number of its
/// file and its line. A query that can place each row it selects by its slot knows the output
/// order before it reads a row (see [`Reader::stream_json`]); a slot that cannot place its row
/// (no row, a path of its own, a line past `u32::MAX - 1`) sends the query the way that reads
/// every row first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OrderSlot {
    file_no: u32,
    line: u32,
}

impl OrderSlot {
    const EMPTY: OrderSlot = OrderSlot { file_no: SLOT_EMPTY, line: u32::MAX };

    /// The slot of a row of file number `file_no` at `line`, naming a path of its own or not.
    fn new(file_no: u32, own_file: bool, line: u64) -> OrderSlot {
        OrderSlot {
            file_no: if own_file { SLOT_OWN_FILE } else { file_no },
            line: u32::try_from(line).unwrap_or(u32::MAX),
        }
    }

    fn of(row: &StoredRow) -> OrderSlot {
        OrderSlot::new(row.file_no, row.file.is_some(), row.line)
    }

    /// The slot of a row read in place.
    fn of_view(row: &RowView<'_>) -> OrderSlot {
        OrderSlot::new(row.file_no, row.file.is_some(), row.line)
    }

    /// Whether the slot places a row by its file number and line.
    fn places(self) -> bool {
        self.file_no < SLOT_OWN_FILE && self.line < u32::MAX
    }

    /// The slot of `ord` in a block read from the table (a block of the wrong size places
    /// nothing).
    fn read(block: &[u8], ord: u32) -> OrderSlot {
        let at = (ord % ORDER_BLOCK) as usize * SLOT_BYTES;
        match block.get(at..at + SLOT_BYTES) {
            Some(b) if block.len() == ORDER_BLOCK_BYTES => OrderSlot {
                file_no: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                line: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            },
            _ => OrderSlot::EMPTY,
        }
    }

    fn write(self, block: &mut [u8], ord: u32) {
        let at = (ord % ORDER_BLOCK) as usize * SLOT_BYTES;
        block[at..at + 4].copy_from_slice(&self.file_no.to_le_bytes());
        block[at + 4..at + SLOT_BYTES].copy_from_slice(&self.line.to_le_bytes());
    }
}

/// Pending slot changes of a write; the last change to an ordinal wins.
#[derive(Default)]
struct OrderChanges(Vec<(u32, OrderSlot)>);

impl OrderChanges {
    fn set(&mut self, ord: u32, slot: OrderSlot) {
        self.0.push((ord, slot));
    }

    /// Writes the changes, each block read and written once. A block of the wrong size is
    /// written anew from empty slots: a query finds the rows it lost unplaced and reads them
    /// the slow way, and verify reports them.
    fn apply(mut self, table: &mut redb::Table<'_, u32, &'static [u8]>) -> Result<(), StoreError> {
        // Stable, so an ordinal changed twice keeps its later change.
        self.0.sort_by_key(|&(ord, _)| ord / ORDER_BLOCK);
        let mut i = 0;
        while i < self.0.len() {
            let block_no = self.0[i].0 / ORDER_BLOCK;
            let mut block = match table.get(block_no)? {
                Some(v) if v.value().len() == ORDER_BLOCK_BYTES => v.value().to_vec(),
                _ => empty_order_block(),
            };
            while let Some(&(ord, slot)) =
                self.0.get(i).filter(|(o, _)| o / ORDER_BLOCK == block_no)
            {
                slot.write(&mut block, ord);
                i += 1;
            }
            if block == empty_order_block() {
                table.remove(block_no)?;
            } else {
                table.insert(block_no, block.as_slice())?;
            }
        }
        Ok(())
    }
}

fn empty_order_block() -> Vec<u8> {
    vec![0xff; ORDER_BLOCK_BYTES]
}

/// Encodes a row. Layout, integers little-endian:
///
/// `ROW_FORMAT`, file number (u32), line (u64), own file (u32 length or [`NO_OWN_FILE`], bytes),
/// id (u32 length, bytes; or [`ID_IN_JSON`] and no bytes), head (u32 length, bytes), tail (the
/// rest).
///
/// `head` is the row's compact JSON from the id's value to the title's, `"…","kind":…,
/// "title":…`, and `tail` from the line's value to the end without the closing brace,
/// `…,"family":…,…,"status":…`. A query prints `{"id":`, `head`, `,"file":`, the path as a JSON
/// string, `,"line":`, `tail`, then `}` (or `,"quarantined":true}`) ([`write_json_row`]): the
/// same bytes serde_json writes for a [`QueryRow`], field by field, because each value is
/// written by serde_json itself.
fn encode_row(row: &StoredRow) -> Vec<u8> {
    encode_fields(&RowFields {
        id: &row.id,
        kind: &row.kind,
        title: &row.title,
        file_no: row.file_no,
        file: row.file.as_deref(),
        line: row.line,
        family: &row.family,
        apis: &row.apis,
        dtype: &row.dtype,
        device: &row.device,
        status: &row.status,
    })
}

/// The fields of a row to encode, borrowed: the facet check encodes the row each record gives
/// to compare it with the stored one, and copying every row into a [`StoredRow`] first was a
/// tenth of its time.
struct RowFields<'a> {
    id: &'a str,
    kind: &'a str,
    title: &'a str,
    file_no: u32,
    file: Option<&'a str>,
    line: u64,
    family: &'a [String],
    apis: &'a [String],
    dtype: &'a [String],
    device: &'a [String],
    status: &'a str,
}

impl<'a> RowFields<'a> {
    /// The fields of `row` stored in the layout numbered `file_no` at `layout_path`, as
    /// [`StoredRow::new`] gives them.
    fn of(row: &'a QueryRow, file_no: u32, layout_path: &str) -> RowFields<'a> {
        RowFields {
            id: &row.id,
            kind: &row.kind,
            title: &row.title,
            file_no,
            file: (row.file != layout_path).then_some(row.file.as_str()),
            line: row.line,
            family: &row.family,
            apis: &row.apis,
            dtype: &row.dtype,
            device: &row.device,
            status: &row.status,
        }
    }
}

/// Encodes a row's fields as [`encode_row`] describes.
fn encode_fields(row: &RowFields<'_>) -> Vec<u8> {
    fn json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
        // Strings, lists of strings and integers always serialise.
        if let Err(err) = serde_json::to_writer(&mut *out, value) {
            unreachable!("a query row value does not serialise: {err}");
        }
    }
    fn len(n: usize) -> [u8; 4] {
        u32::try_from(n).unwrap_or(u32::MAX - 1).to_le_bytes()
    }
    let mut out = Vec::with_capacity(64 + 2 * (row.id.len() + row.title.len()) + 128);
    out.push(ROW_FORMAT);
    out.extend_from_slice(&row.file_no.to_le_bytes());
    out.extend_from_slice(&row.line.to_le_bytes());
    match row.file {
        Some(f) => {
            out.extend_from_slice(&len(f.len()));
            out.extend_from_slice(f.as_bytes());
        }
        None => out.extend_from_slice(&NO_OWN_FILE.to_le_bytes()),
    }
    let mut id_json = Vec::with_capacity(row.id.len() + 2);
    json(&mut id_json, row.id);
    if id_json.len() == row.id.len() + 2 {
        // Nothing escaped (escaping only lengthens): the id is its JSON string's inside.
        out.extend_from_slice(&ID_IN_JSON.to_le_bytes());
    } else {
        out.extend_from_slice(&len(row.id.len()));
        out.extend_from_slice(row.id.as_bytes());
    }
    let head_at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&id_json);
    out.extend_from_slice(b",\"kind\":");
    json(&mut out, row.kind);
    out.extend_from_slice(b",\"title\":");
    json(&mut out, row.title);
    let head_len = out.len() - head_at - 4;
    out[head_at..head_at + 4].copy_from_slice(&len(head_len));
    json(&mut out, &row.line);
    out.extend_from_slice(b",\"family\":");
    json(&mut out, row.family);
    out.extend_from_slice(b",\"apis\":");
    json(&mut out, row.apis);
    out.extend_from_slice(b",\"dtype\":");
    json(&mut out, row.dtype);
    out.extend_from_slice(b",\"device\":");
    json(&mut out, row.device);
    out.extend_from_slice(b",\"status\":");
    json(&mut out, row.status);
    out
}

/// A stored row read in place: what sorting and printing need, without decoding the JSON.
#[derive(Debug, Clone, Copy)]
struct RowView<'a> {
    file_no: u32,
    line: u64,
    file: Option<&'a str>,
    /// The id's bytes, written from a `String`; not checked as UTF-8 here, since a streamed
    /// query prints the id from the row's JSON and reads these only to mark quarantine.
    id: &'a [u8],
    head: &'a [u8],
    tail: &'a [u8],
}

impl<'a> RowView<'a> {
    fn parse(bytes: &'a [u8]) -> Result<RowView<'a>, String> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&'a [u8], String> {
            let end = at.checked_add(n).filter(|&e| e <= bytes.len()).ok_or_else(|| {
                format!("the row ends after {} bytes, inside a field", bytes.len())
            })?;
            let part = &bytes[at..end];
            at = end;
            Ok(part)
        };
        let u32_of = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let format = take(1)?[0];
        if format != ROW_FORMAT {
            return Err(format!(
                "the row is in format {format}, where this evokb writes {ROW_FORMAT}"
            ));
        }
        let file_no = u32_of(take(4)?);
        let line_bytes = take(8)?;
        let mut line = [0u8; 8];
        line.copy_from_slice(line_bytes);
        let line = u64::from_le_bytes(line);
        let own = u32_of(take(4)?);
        let file = if own == NO_OWN_FILE { None } else { Some(text(take(own as usize)?)?) };
        let id_len = u32_of(take(4)?);
        let raw_id = if id_len == ID_IN_JSON { None } else { Some(take(id_len as usize)?) };
        let head_len = u32_of(take(4)?) as usize;
        let head = take(head_len)?;
        let tail = &bytes[at..];
        if !head.starts_with(b"\"") || !tail.first().is_some_and(u8::is_ascii_digit) {
            return Err("the row's JSON does not start with an id and a line".to_string());
        }
        let id = match raw_id {
            Some(id) => id,
            // The inside of the id's JSON string, which has no quote: nothing was escaped.
            None => match head[1..].iter().position(|&b| b == b'"') {
                Some(end) => &head[1..1 + end],
                None => return Err("the row's id has no closing quote".to_string()),
            },
        };
        Ok(RowView { file_no, line, file, id, head, tail })
    }

    /// The row as a [`StoredRow`]: its JSON, with an empty file, parsed back.
    fn decode(&self) -> Result<StoredRow, String> {
        let mut json = Vec::with_capacity(self.head.len() + self.tail.len() + 32);
        write_json_row(self.head, b"\"\"", self.tail, false, &mut json);
        let row: QueryRow = serde_json::from_slice(&json)
            .map_err(|e| format!("the row's JSON does not parse ({e})"))?;
        Ok(StoredRow {
            id: row.id,
            kind: row.kind,
            title: row.title,
            file_no: self.file_no,
            file: self.file.map(str::to_string),
            line: row.line,
            family: row.family,
            apis: row.apis,
            dtype: row.dtype,
            device: row.device,
            status: row.status,
        })
    }
}

fn text(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| format!("a text field of the row is not UTF-8 ({e})"))
}

fn view_row(ord: u32, bytes: &[u8]) -> Result<RowView<'_>, StoreError> {
    RowView::parse(bytes).map_err(|detail| corrupted("idx.q.rows", ord, detail))
}

fn decode_row(ord: u32, bytes: &[u8]) -> Result<StoredRow, StoreError> {
    RowView::parse(bytes)
        .and_then(|v| v.decode())
        .map_err(|detail| corrupted("idx.q.rows", ord, detail))
}

fn decode_file(path: &str, bytes: &[u8]) -> Result<FileRows, StoreError> {
    codec::decode(bytes).map_err(|detail| corrupted("idx.q.files", path, detail))
}

fn decode_postings(key: &[u8], bytes: &[u8]) -> Result<Vec<u32>, StoreError> {
    postings::decode(bytes).map_err(|e| posting_damage(key, e))
}

fn posting_damage(key: &[u8], e: postings::PostingError) -> StoreError {
    corrupted("idx.q.postings", String::from_utf8_lossy(key), e.to_string())
}

/// One facet's part of a filter: a list decoded (id prefixes, or the union of several
/// values), or the one value's posting list as redb read it, with its key, to be walked
/// against the narrower parts rather than decoded.
enum Part<'g> {
    Decoded(Vec<u32>),
    Stored(Vec<u8>, redb::AccessGuard<'g, &'static [u8]>),
}

impl Part<'_> {
    /// At least the number of ordinals the part holds; a stored list's byte length, since
    /// each ordinal takes a byte or more (and most take one).
    fn size(&self) -> usize {
        match self {
            Part::Decoded(list) => list.len(),
            Part::Stored(_, list) => list.value().len(),
        }
    }
}

/// Pending changes to posting lists: ordinals to remove and to add, by key.
#[derive(Default)]
struct PostingChanges(BTreeMap<Vec<u8>, (Vec<u32>, Vec<u32>)>);

impl PostingChanges {
    fn remove(&mut self, keys: Vec<Vec<u8>>, ord: u32) {
        for k in keys {
            self.0.entry(k).or_default().0.push(ord);
        }
    }
    fn add(&mut self, keys: Vec<Vec<u8>>, ord: u32) {
        for k in keys {
            self.0.entry(k).or_default().1.push(ord);
        }
    }
    /// Moves `ord` from the lists of `old` to those of `new`, leaving shared values alone.
    fn change(&mut self, old: &StoredRow, new: &StoredRow, ord: u32) {
        let (old, new) = (old.posting_keys(), new.posting_keys());
        let gone = old.iter().filter(|k| new.binary_search(k).is_err()).cloned().collect();
        let came = new.iter().filter(|k| old.binary_search(k).is_err()).cloned().collect();
        self.remove(gone, ord);
        self.add(came, ord);
    }
}

/// A row that needs an ordinal, held until every new row is known and they are numbered in
/// cluster order. It is held encoded, with only what the ordering needs beside it: at a first
/// import of 100k entries the decoded rows took ~1 KB each, over 100 MB at the import's peak.
struct NewRow {
    cluster: Vec<String>,
    /// The row's file, by its place in the files being reindexed.
    file: usize,
    line: u64,
    id: Box<str>,
    hash: [u8; 32],
    /// The row's place among the new rows before they are sorted: the number its posting keys
    /// are gathered under until it has an ordinal.
    arrival: u32,
    slot: OrderSlot,
    encoded: Box<[u8]>,
}

/// Brings the index up to date with the given files (`None`: the file is gone and its rows are
/// removed), all at once so rows moving between them keep their ordinals and new rows are
/// numbered in cluster order.
pub(crate) fn reindex_files(
    txn: &redb::WriteTransaction,
    files: &[(String, Option<FileLayout>)],
    get: &dyn Fn(&CaseHash) -> Result<Option<Record>, StoreError>,
    indexer: &dyn Indexer,
) -> Result<(), StoreError> {
    if files.is_empty() {
        return Ok(());
    }
    let mut rows = txn.open_table(ROWS)?;
    let mut file_table = txn.open_table(FILES)?;
    let mut names = txn.open_table(FILE_NAMES)?;
    let mut ids = txn.open_table(IDS)?;
    let mut meta = txn.open_table(META)?;
    let mut next_ord = meta.get(NEXT_ORDINAL)?.map_or(0, |v| v.value());
    let mut next_file = meta.get(NEXT_FILE)?.map_or(0, |v| v.value());
    let mut changes = PostingChanges::default();
    let mut slots = OrderChanges::default();
    // Whether a file gained or lost its number, which the directory must then show.
    let mut renumbered = false;

    // The rows the files had, by case hash, and each file's number.
    let mut old: HashMap<[u8; 32], u32> = HashMap::new();
    let mut numbers: HashMap<&str, u32> = HashMap::new();
    for (path, _) in files {
        let Some(bytes) = file_table.remove(path.as_str())? else { continue };
        let was = decode_file(path, bytes.value())?;
        drop(bytes);
        numbers.insert(path, was.no);
        old.extend(was.members);
    }

    let mut new_rows: Vec<NewRow> = Vec::new();
    // The posting keys of the new rows, each with the arrivals of the rows it lists.
    let mut new_keys: BTreeMap<Vec<u8>, Vec<u32>> = BTreeMap::new();
    let mut members_of: HashMap<&str, Vec<([u8; 32], u32)>> = HashMap::new();
    let mut kept: Vec<([u8; 32], u32, StoredRow)> = Vec::new();
    for (file, (path, layout)) in files.iter().enumerate() {
        let Some(layout) = layout else { continue };
        let mut entries = entry_rows(layout, get, indexer)?;
        // A hash listed twice in one layout has one row, the later one (as a map insert).
        let mut last: HashMap<CaseHash, usize> = HashMap::new();
        for (i, (h, _)) in entries.iter().enumerate() {
            last.insert(*h, i);
        }
        let mut i = 0;
        entries.retain(|(h, _)| {
            i += 1;
            last.get(h) == Some(&(i - 1))
        });
        if entries.is_empty() {
            continue;
        }
        let no = match numbers.get(path.as_str()) {
            Some(&no) => no,
            None => {
                let no = next_file;
                next_file += 1;
                numbers.insert(path, no);
                renumbered = true;
                no
            }
        };
        for (h, row) in entries {
            let stored = StoredRow::new(row, no, path);
            match old.remove(&h.0) {
                Some(ord) => kept.push((h.0, ord, stored)),
                None => {
                    let arrival = u32::try_from(new_rows.len()).map_err(|_| {
                        corrupted("idx.q.rows", path, "more new rows than ordinals".to_string())
                    })?;
                    for key in stored.posting_keys() {
                        new_keys.entry(key).or_default().push(arrival);
                    }
                    new_rows.push(NewRow {
                        cluster: stored.cluster_key(),
                        file,
                        line: stored.line,
                        id: stored.id.as_str().into(),
                        hash: h.0,
                        arrival,
                        slot: OrderSlot::of(&stored),
                        encoded: encode_row(&stored).into_boxed_slice(),
                    });
                }
            }
        }
        members_of.insert(path, Vec::new());
    }

    let mut blocks = RowBlocks::new();
    // Rows that stay: rewritten only when they changed.
    for (_, ord, new) in &kept {
        let encoded = encode_row(new);
        let prev = match blocks.get(&rows, *ord)? {
            // The same bytes are the same row: nothing to decode.
            Some(v) if *v == *encoded.as_slice() => continue,
            Some(v) => Some(decode_row(*ord, &v)),
            None => None,
        };
        match prev {
            Some(Ok(prev)) if prev == *new => {}
            Some(Ok(prev)) => {
                changes.change(&prev, new, *ord);
                if prev.id != new.id {
                    ids.remove((prev.id.as_str(), *ord))?;
                }
            }
            // A damaged row: its old values cannot be taken out, so the row is written as if
            // new (verify reports lists that still hold it).
            Some(Err(_)) | None => changes.add(new.posting_keys(), *ord),
        }
        ids.insert((new.id.as_str(), *ord), ())?;
        blocks.set(&rows, *ord, Some(encoded.into_boxed_slice()))?;
        slots.set(*ord, OrderSlot::of(new));
    }
    // Rows that are gone.
    for (_, ord) in old {
        slots.set(ord, OrderSlot::EMPTY);
        if let Some(bytes) = blocks.set(&rows, ord, None)? {
            if let Ok(prev) = decode_row(ord, &bytes) {
                changes.remove(prev.posting_keys(), ord);
                ids.remove((prev.id.as_str(), ord))?;
            }
        }
    }
    // New rows, numbered in cluster order.
    new_rows.sort_by(|a, b| {
        (&a.cluster, files[a.file].0.as_str(), a.line, &a.id).cmp(&(
            &b.cluster,
            files[b.file].0.as_str(),
            b.line,
            &b.id,
        ))
    });
    let mut placed: HashMap<[u8; 32], u32> = HashMap::with_capacity(new_rows.len());
    let mut ord_of_arrival = vec![0u32; new_rows.len()];
    for n in &new_rows {
        let ord = next_ord;
        next_ord = next_ord.checked_add(1).ok_or_else(|| {
            corrupted("idx.q.meta", NEXT_ORDINAL, "every row ordinal is used".to_string())
        })?;
        ord_of_arrival[n.arrival as usize] = ord;
        ids.insert((&*n.id, ord), ())?;
        slots.set(ord, n.slot);
        placed.insert(n.hash, ord);
    }
    // New ordinals rise past every stored one, so they all join the last block, which the
    // write then splits to size.
    for n in new_rows.drain(..) {
        blocks.set(&rows, ord_of_arrival[n.arrival as usize], Some(n.encoded))?;
    }
    blocks.write(&mut rows)?;
    drop(new_rows);
    for (key, arrivals) in new_keys {
        let ords = arrivals.into_iter().map(|a| ord_of_arrival[a as usize]);
        changes.0.entry(key).or_default().1.extend(ords);
    }
    drop(ord_of_arrival);

    // Each file's members, in file order.
    let kept_ords: HashMap<[u8; 32], u32> = kept.iter().map(|(h, o, _)| (*h, *o)).collect();
    drop(kept);
    for (path, layout) in files {
        let members = members_of.get_mut(path.as_str());
        let (Some(layout), Some(members)) = (layout, members) else {
            if let Some(no) = numbers.get(path.as_str()) {
                renumbered |= names.remove(*no)?.is_some();
            }
            continue;
        };
        let mut seen = HashSet::new();
        for item in &layout.items {
            let LayoutItem::Record(h) = item else { continue };
            if let Some(&o) = kept_ords.get(&h.0).or_else(|| placed.get(&h.0)) {
                if seen.insert(h.0) {
                    members.push((h.0, o));
                }
            }
        }
        let no = numbers[path.as_str()];
        file_table.insert(
            path.as_str(),
            codec::encode(&FileRows { no, members: members.clone() }).as_slice(),
        )?;
        names.insert(no, path.as_str())?;
    }

    let mut table = txn.open_table(POSTINGS)?;
    for (key, (remove, add)) in changes.0 {
        let mut list = match table.get(key.as_slice())? {
            Some(v) => decode_postings(&key, v.value())?,
            None => Vec::new(),
        };
        postings::apply(&mut list, &remove, &add);
        if list.is_empty() {
            table.remove(key.as_slice())?;
        } else {
            table.insert(key.as_slice(), postings::encode(&list).as_slice())?;
        }
    }
    slots.apply(&mut txn.open_table(ORDER)?)?;
    let mut dir = txn.open_table(DIR)?;
    // Whether the directory is there is asked of the table's length: a `get` would read the
    // whole value (half a megabyte at 5,000 files) on every write.
    if renumbered || redb::ReadableTableMetadata::is_empty(&dir)? {
        dir.insert(DIR_KEY, Directory::build(&names)?.as_slice())?;
    }
    meta.insert(NEXT_ORDINAL, next_ord)?;
    meta.insert(NEXT_FILE, next_file)?;
    meta.insert(READY, 1)?;
    Ok(())
}

/// Empties every table of the index (and removes those of the layout before ordinals), so
/// the next [`reindex_files`] of every file builds it anew.
pub(crate) fn clear(txn: &redb::WriteTransaction) -> Result<(), StoreError> {
    txn.delete_table(OLD_ROWS)?;
    for def in OLD_KEYS {
        txn.delete_table(def)?;
    }
    txn.delete_table(ROWS)?;
    txn.delete_table(ORDER)?;
    txn.delete_table(DIR)?;
    txn.delete_table(POSTINGS)?;
    txn.delete_table(IDS)?;
    txn.delete_table(FILES)?;
    txn.delete_table(FILE_NAMES)?;
    txn.delete_table(META)?;
    create(txn)?;
    Ok(())
}

/// Creates the index's tables (empty) and marks the index built.
pub(crate) fn create(txn: &redb::WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(ROWS)?;
    txn.open_table(ORDER)?;
    txn.open_table(DIR)?;
    txn.open_table(POSTINGS)?;
    txn.open_table(IDS)?;
    txn.open_table(FILES)?;
    txn.open_table(FILE_NAMES)?;
    txn.open_table(META)?.insert(READY, 1)?;
    Ok(())
}

/// Whether the index has been built in this layout (a store written by an older evokb has
/// only the old tables until its first write).
pub(crate) fn is_ready(meta: &impl ReadableTable<&'static str, u32>) -> Result<bool, StoreError> {
    Ok(meta.get(READY)?.is_some())
}

/// The error a query on a store without this index answers, so the caller rebuilds it.
pub(crate) fn not_built() -> StoreError {
    corrupted(
        INDEX_MARK_TABLE,
        READY,
        "the store was written by an older evokb, whose facet index this one does not read"
            .to_string(),
    )
}

/// Whether the index holds rows of the file at `path`.
pub(crate) fn has_rows(
    files: &impl ReadableTable<&'static str, &'static [u8]>,
    path: &str,
) -> Result<bool, StoreError> {
    Ok(files.get(path)?.is_some())
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
                line += newlines(rec);
            }
        }
    }
    Ok(out)
}

/// The line endings in a record's text, counted segment by segment: the text itself is never
/// built (for every entry of every file, verify's facet check built and dropped 80 MB of it).
fn newlines(rec: &Record) -> u64 {
    use crate::record::Segment;
    let count = |s: &str| s.bytes().filter(|&b| b == b'\n').count() as u64;
    rec.segments
        .iter()
        .map(|seg| match seg {
            Segment::Lit(s) | Segment::Body(s) => count(s),
            Segment::Field { value, .. } => count(value),
        })
        .sum()
}

/// A query's answer as the compact JSON of its rows, in output order (file, line, id): each
/// row's stored bytes, copied out of the pages redb read into a few large buffers, and each
/// distinct path once as a JSON string. Lent to a closure by [`crate::ReadTxn::query_json`],
/// since it borrows those buffers.
pub struct JsonRows<'v> {
    /// The rows' bytes (see [`Copied`]).
    chunks: &'v [Vec<u8>],
    /// In output order: where each row's bytes are, and the index into `paths` of its path.
    rows: Vec<(Span, usize)>,
    paths: Vec<Vec<u8>>,
}

/// Where a row's id, head and tail (see [`encode_row`]) lie, one after the other, in
/// [`Copied`]'s buffers.
#[derive(Debug, Clone, Copy)]
struct Span {
    chunk: u32,
    at: u32,
    id_len: u32,
    head_len: u32,
    tail_len: u32,
}

impl JsonRows<'_> {
    /// No rows.
    pub(crate) fn empty() -> JsonRows<'static> {
        JsonRows { chunks: &[], rows: Vec::new(), paths: Vec::new() }
    }

    /// How many rows the query selected.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether it selected none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The id, head and tail of row `i`.
    fn parts(&self, i: usize) -> (&[u8], &[u8], &[u8]) {
        let (span, _) = self.rows[i];
        Copied::parts(self.chunks, span)
    }

    /// Row `i` as a streamed query hands it over.
    fn row(&self, i: usize) -> JsonRow<'_> {
        let (id, head, tail) = self.parts(i);
        JsonRow { id, head, path: &self.paths[self.rows[i].1], tail }
    }

    /// The id of row `i` (see [`JsonRow::id`]).
    pub fn id(&self, i: usize) -> &str {
        self.row(i).id()
    }

    /// Appends row `i` as compact JSON (see [`JsonRow::write`]).
    pub fn write_row(&self, i: usize, quarantined: bool, out: &mut Vec<u8>) {
        self.row(i).write(quarantined, out);
    }
}

/// The block of rows a lane of a streamed query is in: the value redb read and where its
/// rows lie.
struct Lane<'g> {
    guard: redb::AccessGuard<'g, &'static [u8]>,
    block: RowBlock,
    /// The index of the row after the last one read.
    at: usize,
}

impl Lane<'_> {
    fn holds(&self, ord: u32) -> bool {
        self.block.first() <= ord && ord <= self.block.last()
    }
}

/// The index of the row an output-order key packs in its low 32 bits ([`output_order`],
/// `Reader::json_order`).
fn row_of_key(key: u128) -> usize {
    (key & u128::from(u32::MAX)) as usize
}

/// The index of the file an [`output_order`] key packs in its bits 32 to 63.
fn file_of_key(key: u128) -> usize {
    ((key >> 32) & u128::from(u32::MAX)) as usize
}

/// Whether numbers up to `greatest` are dense enough among `rows` rows to be looked up in a
/// table as long as the greatest: file numbers and ranks are given out from 0, and only a
/// damaged index makes them sparser.
fn dense_enough(greatest: usize, rows: usize) -> bool {
    greatest <= 4 * rows + 4096
}

/// The distinct file numbers the slots of `placed` name, ascending, and for each row the
/// index of its file among them. Numbers are given out from 0, so a table as long as the
/// greatest finds them in one pass; numbers far sparser than the rows (which a damaged order
/// table could hold) are sorted instead.
fn files_of(placed: &[(u32, OrderSlot)]) -> (Vec<u32>, Vec<u32>) {
    let greatest = placed.iter().map(|(_, s)| s.file_no).max().unwrap_or(0) as usize;
    if dense_enough(greatest, placed.len()) {
        let mut index = vec![u32::MAX; greatest + 1];
        for (_, slot) in placed {
            index[slot.file_no as usize] = 0;
        }
        let mut nos = Vec::new();
        for (no, at) in index.iter_mut().enumerate() {
            if *at == 0 {
                *at = nos.len() as u32;
                nos.push(no as u32);
            }
        }
        let file_of = placed.iter().map(|(_, s)| index[s.file_no as usize]).collect();
        return (nos, file_of);
    }
    let mut nos: Vec<u32> = placed.iter().map(|(_, s)| s.file_no).collect();
    nos.sort_unstable();
    nos.dedup();
    let file_of =
        placed.iter().map(|(_, s)| nos.binary_search(&s.file_no).unwrap_or(0) as u32).collect();
    (nos, file_of)
}

/// The rows of `placed` in output order, by their path's rank and their line, each as a key
/// that packs the rank, the line, the index of its file (`file_of`) and its own index, so that
/// two keys compare as their rows do. The rows are counted out by rank, a pass over the rows
/// and one over the ranks, and each path's few rows sorted by line; ranks far sparser than the
/// rows (a damaged directory could give them) are sorted as keys instead.
fn output_order(placed: &[(u32, OrderSlot)], file_of: &[u32], rank: &[usize]) -> Vec<u128> {
    let key = |i: usize| {
        let file = file_of[i] as usize;
        (rank[file] as u128) << 96
            | u128::from(placed[i].1.line) << 64
            | (file as u128) << 32
            | i as u128
    };
    let ranks = rank.iter().max().map_or(0, |&r| r + 1);
    if !dense_enough(ranks, placed.len()) {
        let mut keys: Vec<u128> = (0..placed.len()).map(key).collect();
        keys.sort_unstable();
        return keys;
    }
    // Where each rank's rows start in the output, then each row put in its place.
    let mut start = vec![0u32; ranks + 1];
    for &file in file_of {
        start[rank[file as usize] + 1] += 1;
    }
    for r in 1..start.len() {
        start[r] += start[r - 1];
    }
    let mut keys = vec![0u128; placed.len()];
    let mut next = start.clone();
    for i in 0..placed.len() {
        let r = rank[file_of[i] as usize];
        keys[next[r] as usize] = key(i);
        next[r] += 1;
    }
    for r in 0..ranks {
        let rows = &mut keys[start[r] as usize..start[r + 1] as usize];
        if rows.len() > 1 {
            rows.sort_unstable();
        }
    }
    keys
}

/// The lanes of the rows `keys` lists in output order (each key's low 32 bits index
/// `placed`, which is in ordinal order): the runs of `placed` whose rows come out in the
/// order of their ordinals. Rows are numbered in cluster order, so a run is a cluster's rows,
/// and a lane reads its blocks one after the next, each once. None when there are more runs
/// than [`MAX_LANES`].
fn clustered_lanes(keys: &[u128], placed: &[(u32, OrderSlot)]) -> Option<Vec<u8>> {
    let mut out_at = vec![u32::MAX; placed.len()];
    for (n, &key) in keys.iter().enumerate() {
        out_at[row_of_key(key)] = n as u32;
    }
    let mut run_of = vec![0u8; placed.len()];
    let (mut run, mut last) = (0usize, None);
    for (i, &at) in out_at.iter().enumerate() {
        if at == u32::MAX {
            continue;
        }
        if last.is_some_and(|last| at < last) {
            run += 1;
            if run >= MAX_LANES {
                return None;
            }
        }
        run_of[i] = run as u8;
        last = Some(at);
    }
    Some(keys.iter().map(|&key| run_of[row_of_key(key)]).collect())
}

/// The lanes of the rows `keys` lists in output order, as few as there can be: each row goes
/// to the lane whose last ordinal is the greatest below its own. The lanes' last ordinals,
/// ascending, stay ascending when that one is replaced (the next one up is above the new
/// ordinal), so a binary search finds it. None when more than [`MAX_LANES`] are needed.
fn fewest_lanes(keys: &[u128], placed: &[(u32, OrderSlot)]) -> Option<Vec<u8>> {
    let mut tails: Vec<(u32, u8)> = Vec::new();
    let mut lane_of: Vec<u8> = Vec::with_capacity(keys.len());
    for &key in keys {
        let ord = placed[row_of_key(key)].0;
        let lane = match tails.partition_point(|&(last, _)| last < ord) {
            0 if tails.len() < MAX_LANES => {
                let lane = tails.len() as u8;
                tails.insert(0, (ord, lane));
                lane
            }
            0 => return None,
            below => {
                tails[below - 1].0 = ord;
                tails[below - 1].1
            }
        };
        lane_of.push(lane);
    }
    Some(lane_of)
}

/// One row of a streamed JSON query ([`crate::ReadTxn::query_json_stream`]), as it lies in
/// the page redb read.
pub struct JsonRow<'a> {
    id: &'a [u8],
    head: &'a [u8],
    path: &'a [u8],
    tail: &'a [u8],
}

impl<'a> JsonRow<'a> {
    /// The entry id (empty if its stored bytes are damaged: the printed row carries its own
    /// copy of the id, in its JSON).
    pub fn id(&self) -> &'a str {
        std::str::from_utf8(self.id).unwrap_or_default()
    }

    /// Appends the row as compact JSON, byte for byte what serde_json writes for its
    /// [`QueryRow`], with `"quarantined":true` as a last key when `quarantined`.
    pub fn write(&self, quarantined: bool, out: &mut Vec<u8>) {
        write_json_row(self.head, self.path, self.tail, quarantined, out);
    }
}

/// Appends a stored row's JSON (see [`encode_row`]): the keys around its head, its path as a
/// JSON string and its tail, and the closing brace (after `"quarantined":true` when it is).
fn write_json_row(head: &[u8], path: &[u8], tail: &[u8], quarantined: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"id\":");
    out.extend_from_slice(head);
    out.extend_from_slice(b",\"file\":");
    out.extend_from_slice(path);
    out.extend_from_slice(b",\"line\":");
    out.extend_from_slice(tail);
    out.extend_from_slice(if quarantined { b",\"quarantined\":true}" } else { b"}" });
}

/// The fewest rows a query selects for [`Reader::stream_json`] to read the order table and
/// stream them. Fewer are copied, sorted and handed over from the copies: the order table
/// keeps 480 rows' places to a 4 KiB page, so a few hundred rows scattered over 100k entries
/// (a query on four facets) cost a page read of it for almost every row, more than sorting
/// them costs.
const STREAM_FROM_ROWS: usize = if cfg!(test) { 4 } else { 2048 };

/// The most cursors a streamed query reads its rows through; a query whose rows need more
/// (a store grown by many single adds, whose new rows sit past the clustered ones) copies its
/// rows and sorts them instead.
const MAX_LANES: usize = 64;

/// What is wrong with the file directory: it must be what the name table gives.
fn check_directory(
    txn: &redb::ReadTransaction,
    names: &impl ReadableTable<u32, &'static str>,
) -> Result<Option<String>, StoreError> {
    let want = Directory::build(names)?;
    let have = match txn.open_table(DIR) {
        Ok(t) => t.get(DIR_KEY)?.map(|v| v.value().to_vec()),
        Err(redb::TableError::TableDoesNotExist(_)) => None,
        Err(e) => return Err(e.into()),
    };
    Ok(match have {
        Some(have) if have == want => None,
        Some(_) => Some("the facet index's file directory disagrees with its name table".into()),
        None if names.is_empty()? => None,
        None => Some("the facet index has no file directory".into()),
    })
}

/// What is wrong with the order table, given each row's slot as its bytes give it: one line
/// for the blocks of the wrong size and one for the slots that disagree with their rows.
fn check_order(
    txn: &redb::ReadTransaction,
    want: &BTreeMap<u32, OrderSlot>,
) -> Result<Vec<String>, StoreError> {
    let mut found = Vec::new();
    let table = match txn.open_table(ORDER) {
        Ok(t) => t,
        Err(redb::TableError::TableDoesNotExist(_)) => {
            if !want.is_empty() {
                found.push("the facet index has no order table".to_string());
            }
            return Ok(found);
        }
        Err(e) => return Err(e.into()),
    };
    let (mut bad_blocks, mut differ) = (0usize, 0usize);
    let mut blocks_seen: BTreeSet<u32> = BTreeSet::new();
    for r in table.iter()? {
        let (k, v) = r?;
        let no = k.value();
        blocks_seen.insert(no);
        if v.value().len() != ORDER_BLOCK_BYTES {
            bad_blocks += 1;
            continue;
        }
        for i in 0..ORDER_BLOCK {
            let Some(ord) = no.checked_mul(ORDER_BLOCK).and_then(|o| o.checked_add(i)) else {
                break;
            };
            let want = want.get(&ord).copied().unwrap_or(OrderSlot::EMPTY);
            if OrderSlot::read(v.value(), ord) != want {
                differ += 1;
            }
        }
    }
    // Rows in blocks the table lacks.
    differ += want.keys().filter(|&&ord| !blocks_seen.contains(&(ord / ORDER_BLOCK))).count();
    if bad_blocks > 0 {
        found.push(format!(
            "the facet index's order table has {bad_blocks} block(s) of the wrong size (each should be {ORDER_BLOCK_BYTES} bytes)"
        ));
    }
    if differ > 0 {
        found.push(format!(
            "the facet index's order table places {differ} row(s) other than their rows say"
        ));
    }
    Ok(found)
}

/// The rows a JSON query read, copied out of redb's pages as they are read, so each page is
/// let go at once: kept until the rows were sorted, the pages of a family at 100k entries
/// were 8 MB of fresh memory (a 4 KiB page and its count take a 5 KiB block), two thirds of
/// the query's page faults, where the copies take 6 MB in buffers of [`Copied::CHUNK`].
#[derive(Default)]
struct Copied {
    chunks: Vec<Vec<u8>>,
}

impl Copied {
    /// The size of a buffer: large enough that few are allocated, small enough that the last
    /// one wastes little.
    const CHUNK: usize = 1 << 20;

    /// Copies a row's id, head and tail, one after the other; returns where they are.
    fn push(&mut self, id: &[u8], head: &[u8], tail: &[u8]) -> Span {
        let len = id.len() + head.len() + tail.len();
        let fits = self.chunks.last().is_some_and(|c| c.capacity() - c.len() >= len);
        if !fits {
            self.chunks.push(Vec::with_capacity(len.max(Self::CHUNK)));
        }
        let chunk = self.chunks.len() - 1;
        let buf = &mut self.chunks[chunk];
        let at = buf.len();
        buf.extend_from_slice(id);
        buf.extend_from_slice(head);
        buf.extend_from_slice(tail);
        // A row is a redb value, so its parts are well under 4 GiB, and so is a buffer.
        let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
        Span {
            chunk: n(chunk),
            at: n(at),
            id_len: n(id.len()),
            head_len: n(head.len()),
            tail_len: n(tail.len()),
        }
    }

    /// The id, head and tail at `span`.
    fn parts(chunks: &[Vec<u8>], span: Span) -> (&[u8], &[u8], &[u8]) {
        let at = span.at as usize;
        let (id_end, head_end) =
            (at + span.id_len as usize, at + (span.id_len + span.head_len) as usize);
        let bytes = &chunks[span.chunk as usize];
        (
            &bytes[at..id_end],
            &bytes[id_end..head_end],
            &bytes[head_end..head_end + span.tail_len as usize],
        )
    }
}

/// What a JSON query keeps of a row besides its bytes: what it sorts by and where its path is.
struct Kept {
    ord: u32,
    span: Span,
    line: u64,
    file_no: u32,
    /// The index of the row's own path among those kept, when it names another file.
    own: Option<usize>,
}

/// The read side of the index: the tables a query opens.
pub(crate) struct Reader<R, P, I, N, D> {
    pub(crate) rows: R,
    /// The order table ([`ORDER`]), keyed and valued as the rows are.
    pub(crate) order: R,
    /// Opens the file directory ([`DIR`]) for the queries that need it: opening a table reads
    /// its root, which for the directory's one value is the whole of it (472 KB at 100k
    /// entries), and most queries name too few files to want it.
    pub(crate) open_dir: D,
    pub(crate) postings: P,
    pub(crate) ids: I,
    pub(crate) names: N,
}

impl<R, P, I, N, D> Reader<R, P, I, N, D>
where
    R: ReadableTable<u32, &'static [u8]>,
    D: Fn() -> Result<R, StoreError>,
    P: ReadableTable<&'static [u8], &'static [u8]>,
    I: ReadableTable<(&'static str, u32), ()>,
    N: ReadableTable<u32, &'static str>,
{
    /// The ordinals of ids starting with `prefix` (all ids when it is empty).
    fn ids_with_prefix(&self, prefix: &str) -> Result<Vec<u32>, StoreError> {
        let mut out = Vec::new();
        for r in self.ids.range((prefix, 0u32)..)? {
            let (k, _) = r?;
            let (id, ord) = k.value();
            if !id.starts_with(prefix) {
                break;
            }
            out.push(ord);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The ordinals of the id `id` exactly.
    fn ids_equal(&self, id: &str) -> Result<Vec<u32>, StoreError> {
        let mut out = Vec::new();
        for r in self.ids.range((id, 0u32)..=(id, u32::MAX))? {
            out.push(r?.0.value().1);
        }
        Ok(out)
    }

    fn posting(&self, facet: &str, value: &str) -> Result<Vec<u32>, StoreError> {
        let key = posting_key(facet, value);
        match self.postings.get(key.as_slice())? {
            Some(v) => decode_postings(&key, v.value()),
            None => Ok(Vec::new()),
        }
    }

    /// The ordinals a filter selects, ascending; `None` when it selects every row.
    fn select(&self, filter: &Filter) -> Result<Option<Vec<u32>>, StoreError> {
        let mut parts: Vec<Part<'_>> = Vec::new();
        if !filter.id_prefixes.is_empty() {
            let lists = filter
                .id_prefixes
                .iter()
                .map(|p| self.ids_with_prefix(p))
                .collect::<Result<Vec<_>, _>>()?;
            parts.push(Part::Decoded(postings::union(lists)));
        }
        for (facet, values) in &filter.facets {
            match values.as_slice() {
                [] => {}
                [value] if POSTED.contains(&facet.as_str()) => {
                    let key = posting_key(facet, &value.to_lowercase());
                    parts.push(match self.postings.get(key.as_slice())? {
                        Some(list) => Part::Stored(key, list),
                        None => Part::Decoded(Vec::new()),
                    });
                }
                values => {
                    let mut lists = Vec::with_capacity(values.len());
                    for v in values {
                        let v = v.to_lowercase();
                        lists.push(match facet.as_str() {
                            "id" => self.ids_equal(&v)?,
                            f if POSTED.contains(&f) => self.posting(f, &v)?,
                            // A facet no row has selects nothing.
                            _ => Vec::new(),
                        });
                    }
                    parts.push(Part::Decoded(postings::union(lists)));
                }
            }
        }
        // Narrowest first: each intersection then keeps at most what is left. Every part is
        // still read to its end, so a damaged list is found even when the answer is empty.
        parts.sort_by_key(Part::size);
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else { return Ok(None) };
        let mut acc = match first {
            Part::Decoded(list) => list,
            Part::Stored(key, list) => decode_postings(&key, list.value())?,
        };
        for part in parts {
            acc = match part {
                Part::Decoded(list) => postings::intersect(&acc, &list),
                Part::Stored(key, list) => postings::intersect_encoded(&acc, list.value())
                    .map_err(|e| posting_damage(&key, e))?,
            };
        }
        Ok(Some(acc))
    }

    /// Hands each stored row of the ascending ordinals `ords` (every row when `None`) to
    /// `each`, in ordinal order. Blocks are read as runs of range reads: a range is read on
    /// while the next wanted ordinal is near, and a new one starts past a gap.
    fn for_rows(
        &self,
        ords: Option<&[u32]>,
        mut each: impl FnMut(u32, &[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let Some(ords) = ords else {
            for r in self.rows.iter()? {
                let (k, v) = r?;
                let block = parse_block(k.value(), v.value())?;
                for (ord, row) in block.rows(v.value()) {
                    each(ord, row)?;
                }
            }
            return Ok(());
        };
        let mut i = 0;
        'runs: while i < ords.len() {
            let mut range = self.rows.range(ords[i]..)?;
            loop {
                let Some(r) = range.next() else { break 'runs };
                let (k, v) = r?;
                let block = parse_block(k.value(), v.value())?;
                // An ordinal with no row is damage verify reports; the query skips it.
                while ords.get(i).is_some_and(|&o| o < block.first()) {
                    i += 1;
                }
                while let Some(&ord) = ords.get(i).filter(|&&o| o <= block.last()) {
                    if let Some(row) = block.row(v.value(), ord) {
                        each(ord, row)?;
                    }
                    i += 1;
                }
                match ords.get(i) {
                    Some(&next) if next - block.last() <= READ_ON_GAP => {}
                    _ => continue 'runs,
                }
            }
        }
        Ok(())
    }

    /// The paths of the given file numbers.
    fn paths(&self, nos: &BTreeSet<u32>) -> Result<HashMap<u32, String>, StoreError> {
        let mut out = HashMap::with_capacity(nos.len());
        // Files making up a good part of the name table: one pass over it beats a descent per
        // file. A few hundred of 5,000 files are cheaper one descent each (the branch pages are
        // read once): a pass made and dropped a string per path of every file.
        if nos.len() as u64 * 8 > self.names.len()? {
            for r in self.names.iter()? {
                let (k, v) = r?;
                if nos.contains(&k.value()) {
                    out.insert(k.value(), v.value().to_string());
                }
            }
        } else {
            for &no in nos {
                if let Some(v) = self.names.get(no)? {
                    out.insert(no, v.value().to_string());
                }
            }
        }
        Ok(out)
    }

    /// The order of rows by file, line and id: the indices of `keys` sorted, with each path
    /// replaced by its rank among the paths (a number compares faster than a 70-byte path).
    fn order(keys: &[(&str, u64, &str)]) -> Vec<usize> {
        let mut by_path: Vec<&str> = keys.iter().map(|k| k.0).collect();
        by_path.sort_unstable();
        by_path.dedup();
        let rank: HashMap<&str, usize> = by_path.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let ranks: Vec<usize> = keys.iter().map(|k| rank[k.0]).collect();
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            (ranks[a], keys[a].1, keys[a].2).cmp(&(ranks[b], keys[b].1, keys[b].2))
        });
        order
    }

    /// The path of a row: its own, or its file number's.
    fn path_of<'p>(
        ord: u32,
        own: Option<&'p str>,
        file_no: u32,
        paths: &'p HashMap<u32, String>,
    ) -> Result<&'p str, StoreError> {
        match (own, paths.get(&file_no)) {
            (Some(file), _) => Ok(file),
            (None, Some(p)) => Ok(p.as_str()),
            (None, None) => Err(corrupted(
                "idx.q.rows",
                ord,
                format!("the row names file number {file_no}, which has no path"),
            )),
        }
    }

    /// Answers a filter, sorted by file, line and id.
    pub(crate) fn run(&self, filter: &Filter) -> Result<Vec<QueryRow>, StoreError> {
        let ords = self.select(filter)?;
        let mut stored: Vec<(u32, StoredRow)> =
            Vec::with_capacity(ords.as_ref().map_or(0, Vec::len));
        self.for_rows(ords.as_deref(), |ord, value| {
            stored.push((ord, decode_row(ord, value)?));
            Ok(())
        })?;
        let nos: BTreeSet<u32> =
            stored.iter().filter(|(_, r)| r.file.is_none()).map(|(_, r)| r.file_no).collect();
        let paths = self.paths(&nos)?;
        let order = {
            let mut keys: Vec<(&str, u64, &str)> = Vec::with_capacity(stored.len());
            for (ord, row) in &stored {
                let path = Self::path_of(*ord, row.file.as_deref(), row.file_no, &paths)?;
                keys.push((path, row.line, row.id.as_str()));
            }
            Self::order(&keys)
        };
        let mut slots: Vec<Option<StoredRow>> = stored.into_iter().map(|(_, r)| Some(r)).collect();
        // Sized up front: grown by doubling, a result of 12k rows was reallocated into fresh
        // pages a dozen times, half the time of a broad query.
        let mut out = Vec::with_capacity(order.len());
        for row in order.into_iter().filter_map(|i| slots[i].take()) {
            let path = paths.get(&row.file_no).map_or("", String::as_str);
            out.push(row.into_row(path));
        }
        Ok(out)
    }

    /// How many rows `filter` selects: the rows [`Self::run_json`] lends, none copied or
    /// sorted. Each is checked as [`Self::run_json`] checks it (its bytes parse, the file
    /// number it names has a path), so a damaged index fails here as it fails there.
    pub(crate) fn count(&self, filter: &Filter) -> Result<usize, StoreError> {
        let ords = self.select(filter)?;
        let mut n = 0;
        // The file numbers the rows name, each with the first row naming it (for the error).
        let mut named: Vec<(u32, u32)> = Vec::new();
        self.for_rows(ords.as_deref(), |ord, value| {
            let v = view_row(ord, value)?;
            if v.file.is_none() && named.last().is_none_or(|&(no, _)| no != v.file_no) {
                named.push((v.file_no, ord));
            }
            n += 1;
            Ok(())
        })?;
        named.sort_unstable();
        named.dedup_by_key(|(no, _)| *no);
        let nos: Vec<u32> = named.iter().map(|&(no, _)| no).collect();
        let paths = self.paths_of(&nos)?;
        if let Some(&(no, ord)) =
            named.iter().zip(&paths).find(|(_, p)| p.is_none()).map(|(n, _)| n)
        {
            return Err(corrupted(
                "idx.q.rows",
                ord,
                format!("the row names file number {no}, which has no path"),
            ));
        }
        Ok(n)
    }

    /// Answers a filter as the compact JSON of its rows, sorted by file, line and id: each
    /// row's stored bytes, copied as read (see [`Copied`]), no row decoded.
    pub(crate) fn run_json<T>(
        &self,
        filter: &Filter,
        with: impl FnOnce(&JsonRows<'_>) -> T,
    ) -> Result<T, StoreError> {
        let ords = self.select(filter)?;
        self.json_of(ords, with)
    }

    /// [`Self::run_json`] for the rows of the ascending ordinals `ords` (every row when
    /// `None`).
    fn json_of<T>(
        &self,
        ords: Option<Vec<u32>>,
        with: impl FnOnce(&JsonRows<'_>) -> T,
    ) -> Result<T, StoreError> {
        let mut copied = Copied::default();
        let mut kept: Vec<Kept> = Vec::with_capacity(ords.as_ref().map_or(0, Vec::len));
        let mut owns: Vec<String> = Vec::new();
        self.for_rows(ords.as_deref(), |ord, value| {
            let v = view_row(ord, value)?;
            let own = v.file.map(|f| {
                owns.push(f.to_string());
                owns.len() - 1
            });
            let span = copied.push(v.id, v.head, v.tail);
            kept.push(Kept { ord, span, line: v.line, file_no: v.file_no, own });
            Ok(())
        })?;
        // The numbered files the rows name, ascending and each once, with their paths as redb
        // read them (a family at 100k entries names almost every file: no path is copied).
        let mut nos: Vec<u32> =
            kept.iter().filter(|k| k.own.is_none()).map(|k| k.file_no).collect();
        nos.sort_unstable();
        nos.dedup();
        let numbered = self.paths_of(&nos)?;
        // Each row's path as a slot in `names`: the numbered files' paths (where found), then
        // the own paths. Rows of one file sit together in ordinal order, so the last file
        // number's slot is kept rather than searched for again.
        let mut names: Vec<&str> =
            numbered.iter().map(|p| p.as_ref().map_or("", |g| g.value())).collect();
        names.extend(owns.iter().map(String::as_str));
        let mut slot_of_row: Vec<usize> = Vec::with_capacity(kept.len());
        let mut last: Option<(u32, usize)> = None;
        for k in &kept {
            let slot = match (k.own, last) {
                (Some(own), _) => numbered.len() + own,
                (None, Some((no, slot))) if no == k.file_no => slot,
                (None, _) => {
                    let slot = nos.binary_search(&k.file_no).unwrap_or(usize::MAX);
                    if numbered.get(slot).is_none_or(Option::is_none) {
                        return Err(corrupted(
                            "idx.q.rows",
                            k.ord,
                            format!("the row names file number {}, which has no path", k.file_no),
                        ));
                    }
                    last = Some((k.file_no, slot));
                    slot
                }
            };
            slot_of_row.push(slot);
        }
        // Each distinct path's rank among the paths, and its JSON string, written once.
        let (rank, paths) = ranked_json(&names);
        let order = Self::json_order(&copied.chunks, &kept, &slot_of_row, &rank);
        let rows = order.into_iter().map(|i| (kept[i].span, rank[slot_of_row[i]])).collect();
        drop((kept, slot_of_row, rank));
        Ok(with(&JsonRows { chunks: &copied.chunks, rows, paths }))
    }

    /// Answers a filter as [`Self::run_json`] does, but hands each row of the window to
    /// `emit` as it is read, none copied: the order comes from the order table ([`ORDER`])
    /// before any row is read, and the rows are read through one cursor per lane, a lane
    /// being a run of rows whose ordinals rise in output order (a fresh import gives a family
    /// about one lane per combination of families it shares entries with). So the output of
    /// a broad query goes out while the rest is still being read, and its memory is a few
    /// pages, not a copy of every row.
    ///
    /// `window` is told how many rows the filter selects and gives the indices, in output
    /// order, of those to hand over. Returns `Ok(None)`, before calling either closure, when
    /// the order table cannot place a selected row (a row naming a path of its own, two rows
    /// at one line of one file, a slot without a row) or the rows would need more than
    /// [`MAX_LANES`] cursors: the caller answers with [`Self::run_json`]. A row that is damaged
    /// or missing is an error even after rows were handed over.
    pub(crate) fn stream_json<E>(
        &self,
        filter: &Filter,
        window: impl FnOnce(usize) -> std::ops::Range<usize>,
        mut emit: impl FnMut(usize, JsonRow<'_>) -> Result<(), E>,
    ) -> Result<Option<Result<(), E>>, StoreError> {
        let Some(ords) = self.select(filter)? else { return Ok(None) };
        if ords.len() < STREAM_FROM_ROWS {
            let emitted = self.json_of(Some(ords), |rows| {
                let wanted = window(rows.len());
                (wanted.start.min(rows.len())..wanted.end.min(rows.len()))
                    .try_for_each(|i| emit(i, rows.row(i)))
            })?;
            return Ok(Some(emitted));
        }
        // Each selected row's slot, read block by block.
        let mut placed: Vec<(u32, OrderSlot)> = Vec::with_capacity(ords.len());
        let mut block: Option<(u32, redb::AccessGuard<'_, &'static [u8]>)> = None;
        for &ord in &ords {
            let no = ord / ORDER_BLOCK;
            if block.as_ref().is_none_or(|(b, _)| *b != no) {
                let Some(guard) = self.order.get(no)? else { return Ok(None) };
                block = Some((no, guard));
            }
            let slot =
                block.as_ref().map_or(OrderSlot::EMPTY, |(_, g)| OrderSlot::read(g.value(), ord));
            if !slot.places() {
                return Ok(None);
            }
            placed.push((ord, slot));
        }
        drop(block);
        // The files' ranks and paths as JSON strings: from the directory when the rows name
        // a good part of the files (a family names almost all), else from the name table.
        let (nos, file_of) = files_of(&placed);
        let dir_table;
        let dir_value = if nos.len() as u64 * 8 > self.names.len()? {
            dir_table = (self.open_dir)()?;
            dir_table.get(DIR_KEY)?
        } else {
            None
        };
        let from_dir: Option<Vec<(usize, &[u8])>> =
            dir_value.as_ref().and_then(|v| Directory::parse(v.value())).and_then(|dir| {
                nos.iter().map(|&no| dir.entry(no).map(|(r, json)| (r as usize, json))).collect()
            });
        let named;
        let owned: Vec<Vec<u8>>;
        let (rank, paths): (Vec<usize>, Vec<&[u8]>) = match from_dir {
            Some(entries) => entries.into_iter().unzip(),
            None => {
                named = self.paths_of(&nos)?;
                if let Some(i) = named.iter().position(Option::is_none) {
                    let ord =
                        placed.iter().find(|(_, s)| s.file_no == nos[i]).map_or(0, |(o, _)| *o);
                    return Err(corrupted(
                        "idx.q.rows",
                        ord,
                        format!("the row names file number {}, which has no path", nos[i]),
                    ));
                }
                let names: Vec<&str> =
                    named.iter().map(|g| g.as_ref().map_or("", |g| g.value())).collect();
                let rank;
                (rank, owned) = ranked_json(&names);
                let paths = rank.iter().map(|&r| owned[r].as_slice()).collect();
                (rank, paths)
            }
        };
        let keys = output_order(&placed, &file_of, &rank);
        // Two rows at one line of one path (of one file, or of two numbers naming one path, which
        // verify reports) are ordered by id, which only their rows hold.
        if keys.windows(2).any(|w| w[0] >> 64 == w[1] >> 64) {
            return Ok(None);
        }
        let wanted = window(keys.len());
        let wanted = wanted.start.min(keys.len())..wanted.end.min(keys.len());
        // Lanes: the runs of the clusters the rows were numbered in, or the fewest lanes
        // that will do when there are too many runs.
        let Some(lane_of) = clustered_lanes(&keys[wanted.clone()], &placed)
            .or_else(|| fewest_lanes(&keys[wanted.clone()], &placed))
        else {
            return Ok(None);
        };
        // Each lane holds the block it is in until it wants a row past it.
        let mut lanes: Vec<Option<Lane<'_>>> = Vec::new();
        for (n, &key) in keys[wanted.clone()].iter().enumerate() {
            let i = wanted.start + n;
            let (ord, slot) = placed[row_of_key(key)];
            let file = file_of_key(key);
            let lane = usize::from(lane_of[n]);
            if lanes.len() <= lane {
                lanes.resize_with(lane + 1, || None);
            }
            let cursor = &mut lanes[lane];
            if !cursor.as_ref().is_some_and(|lane| lane.holds(ord)) {
                // The block left is let go first, so its page's memory can serve the read.
                *cursor = None;
                *cursor = self.lane_block(ord)?;
            }
            let value = cursor
                .as_mut()
                .and_then(|lane| lane.block.row_after(lane.guard.value(), ord, &mut lane.at));
            let Some(value) = value else {
                return Err(corrupted(
                    "idx.q.order",
                    ord / ORDER_BLOCK,
                    format!("the order table places ordinal {ord}, which has no row"),
                ));
            };
            let row = view_row(ord, value)?;
            if OrderSlot::of_view(&row) != slot {
                return Err(corrupted(
                    "idx.q.order",
                    ord / ORDER_BLOCK,
                    format!("the order table places ordinal {ord} elsewhere than its row"),
                ));
            }
            let parts = JsonRow { id: row.id, head: row.head, path: paths[file], tail: row.tail };
            if let Err(e) = emit(i, parts) {
                return Ok(Some(Err(e)));
            }
        }
        Ok(Some(Ok(())))
    }

    /// The block that holds `ord`, when there is one: the first keyed at or after it.
    fn lane_block(&self, ord: u32) -> Result<Option<Lane<'_>>, StoreError> {
        Ok(match self.rows.range(ord..)?.next() {
            Some(r) => {
                let (k, guard) = r?;
                let block = parse_block(k.value(), guard.value())?;
                Some(Lane { guard, block, at: 0 })
            }
            None => None,
        })
    }

    /// The output order of rows: by path rank, line, then id (and ordinal, which no two rows
    /// of a sound index need). Rank and line are packed into one integer with the row's index,
    /// so the sort compares numbers; only rows sharing a path and a line compare their ids.
    /// Comparing through three lookups per side was a sixth of a family query's instructions.
    fn json_order(
        chunks: &[Vec<u8>],
        kept: &[Kept],
        slot_of_row: &[usize],
        rank: &[usize],
    ) -> Vec<usize> {
        let mut keys: Vec<u128> = kept
            .iter()
            .enumerate()
            .map(|(i, k)| {
                (rank[slot_of_row[i]] as u128) << 96 | u128::from(k.line) << 32 | i as u128
            })
            .collect();
        keys.sort_unstable();
        let mut order: Vec<usize> = keys.iter().map(|&k| row_of_key(k)).collect();
        let mut start = 0;
        while start < keys.len() {
            let end =
                start + keys[start..].iter().take_while(|&&k| k >> 32 == keys[start] >> 32).count();
            if end - start > 1 {
                // Stable: rows with the same id too keep their ordinal order.
                order[start..end].sort_by_key(|&i| Copied::parts(chunks, kept[i].span).0);
            }
            start = end;
        }
        order
    }

    /// The paths of the ascending file numbers `nos`, each where the name table holds it, as
    /// redb read it.
    fn paths_of(
        &self,
        nos: &[u32],
    ) -> Result<Vec<Option<redb::AccessGuard<'_, &'static str>>>, StoreError> {
        let mut out: Vec<Option<redb::AccessGuard<'_, &'static str>>> =
            Vec::with_capacity(nos.len());
        let (Some(&lo), Some(&hi)) = (nos.first(), nos.last()) else { return Ok(out) };
        // Files making up a good part of the name table: one walk over their range beats a
        // descent per file (see `paths`).
        if nos.len() as u64 * 8 > self.names.len()? {
            let mut want = nos.iter().peekable();
            for r in self.names.range(lo..=hi)? {
                let (k, v) = r?;
                let no = k.value();
                while want.next_if(|&&w| w < no).is_some() {
                    out.push(None);
                }
                if want.next_if_eq(&&no).is_some() {
                    out.push(Some(v));
                }
            }
            out.resize_with(nos.len(), || None);
        } else {
            for &no in nos {
                out.push(self.names.get(no)?);
            }
        }
        Ok(out)
    }

    /// The ids of every indexed entry, in id order (no row is decoded).
    pub(crate) fn entry_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut out = Vec::new();
        for r in self.ids.iter()? {
            out.push(r?.0.value().0.to_string());
        }
        Ok(out)
    }
}

/// Compares the facet index tables with what the records and layouts say they must hold.
/// Returns one sentence per disagreement (at most a few per kind, then a count); empty when
/// the index is exact.
///
/// Ordinals are the index's own numbering, so the check takes them from the stored file
/// table and asks that every part agrees with them and with the records: each file lists
/// exactly its entries, each listed ordinal has the row the record gives, each posting list
/// and id key is what those rows imply, and nothing else is stored. One pass over each table.
pub(crate) fn check<'r>(
    txn: &redb::ReadTransaction,
    layouts: &[FileLayout],
    get: &dyn Fn(&CaseHash) -> Result<Option<&'r Record>, StoreError>,
    indexer: &dyn Indexer,
) -> Result<Vec<String>, StoreError> {
    let mut expected = Vec::with_capacity(layouts.len());
    for layout in layouts {
        expected.push(ExpectedRows::of(layout, entry_rows(layout, get, indexer)?));
    }
    check_expected(txn, layouts, expected)
}

/// One row the records give, made ready to compare with the index by whichever thread made
/// it: its id, its encoding with file number 0 (the number is the index's to give, so the
/// check reads it from the index and compares the rest), and its posting keys, each after its
/// length (u32, little-endian), in the order the index adds them.
pub(crate) struct WantRow {
    id: String,
    bytes: Vec<u8>,
    keys: Vec<u8>,
}

impl WantRow {
    fn of(row: QueryRow, layout_path: &str) -> WantRow {
        let bytes = encode_fields(&RowFields::of(&row, 0, layout_path));
        let mut keys = Vec::new();
        let mut key = Vec::new();
        let lists = facet_lists(
            [&row.family, &row.apis, &row.dtype, &row.device],
            [&row.kind, &row.status],
        );
        for (facet, values) in lists {
            for v in values {
                key.clear();
                push_posting_key(&mut key, facet, v);
                keys.extend_from_slice(&u32::try_from(key.len()).unwrap_or(u32::MAX).to_le_bytes());
                keys.extend_from_slice(&key);
            }
        }
        WantRow { id: row.id, bytes, keys }
    }

    /// Whether `stored` is exactly this row stored as a row of the file numbered `no`.
    fn is_stored_as(&self, stored: &[u8], no: u32) -> bool {
        // The file number is bytes 1..5 of an encoded row (see `encode_row`).
        stored.len() == self.bytes.len()
            && stored.len() >= 5
            && stored[0] == self.bytes[0]
            && stored[1..5] == no.to_le_bytes()
            && stored[5..] == self.bytes[5..]
    }

    /// The posting keys of the row, in the order the index adds them.
    fn keys(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest = self.keys.as_slice();
        std::iter::from_fn(move || {
            let (len, after) = rest.split_first_chunk::<4>()?;
            let (key, after) = after.split_at(u32::from_le_bytes(*len) as usize);
            rest = after;
            Some(key)
        })
    }
}

/// The facet rows the records give for one file, in file order: what the facet check holds
/// the index to. Made by [`RowMaker::rows_of`] on any thread, one per layout, and handed to
/// [`crate::ReadTxn::check_facet_index_with`] in the order of the layouts.
pub struct ExpectedRows(Vec<(CaseHash, WantRow)>);

impl ExpectedRows {
    fn of(layout: &FileLayout, rows: Vec<(CaseHash, QueryRow)>) -> ExpectedRows {
        ExpectedRows(rows.into_iter().map(|(h, r)| (h, WantRow::of(r, &layout.path))).collect())
    }
}

/// Makes each file's [`ExpectedRows`] from records already in memory; it holds nothing of the
/// transaction, so a whole-store check shares the files out over its threads.
#[derive(Clone)]
pub struct RowMaker(pub(crate) std::sync::Arc<dyn Indexer>);

impl RowMaker {
    /// The facet rows of `layout`'s records, each looked up through `get`; a record `get`
    /// does not have is skipped, as the facet index does (the placement check reports it).
    pub fn rows_of<'r>(
        &self,
        layout: &FileLayout,
        get: &dyn Fn(&CaseHash) -> Option<&'r Record>,
    ) -> ExpectedRows {
        let rows = entry_rows::<&Record>(layout, &|h| Ok(get(h)), self.0.as_ref());
        // The lookup cannot fail, so neither can the rows.
        ExpectedRows::of(layout, rows.unwrap_or_default())
    }
}

/// [`check`] against the rows each layout's records give, one [`ExpectedRows`] per layout in
/// the same order.
pub(crate) fn check_expected(
    txn: &redb::ReadTransaction,
    layouts: &[FileLayout],
    expected: Vec<ExpectedRows>,
) -> Result<Vec<String>, StoreError> {
    debug_assert_eq!(layouts.len(), expected.len(), "one set of expected rows per layout");
    // What the records say: each file's entries by hash, the later one of a repeat.
    let mut want: HashMap<&str, HashMap<[u8; 32], WantRow>> = HashMap::new();
    for (layout, rows) in layouts.iter().zip(expected) {
        if !rows.0.is_empty() {
            want.insert(&layout.path, rows.0.into_iter().map(|(h, r)| (h.0, r)).collect());
        }
    }
    let mut problems = Vec::new();
    let mut found = Vec::new();
    let open_err = |e: redb::TableError| -> Result<(), StoreError> {
        match e {
            redb::TableError::TableDoesNotExist(_) => Ok(()),
            e => Err(e.into()),
        }
    };
    let ready = match txn.open_table(META) {
        Ok(meta) => is_ready(&meta)?,
        Err(e) => {
            open_err(e)?;
            false
        }
    };
    if !ready {
        if !want.is_empty() {
            problems
                .push("the facet index has not been built by this version of evokb".to_string());
        }
        return Ok(problems);
    }
    let rows = txn.open_table(ROWS)?;
    let postings_t = txn.open_table(POSTINGS)?;
    let ids = txn.open_table(IDS)?;
    let files = txn.open_table(FILES)?;
    let names = txn.open_table(FILE_NAMES)?;
    let next_ord = txn.open_table(META)?.get(NEXT_ORDINAL)?.map_or(0, |v| v.value());

    // Ordinal → (path, the row the records give), from the stored file table.
    let mut by_ord: HashMap<u32, (&str, u32, &WantRow)> = HashMap::new();
    let mut nos: HashMap<u32, String> = HashMap::new();
    let mut seen_files: HashSet<&str> = HashSet::new();
    for r in files.iter()? {
        let (k, v) = r?;
        let path = k.value().to_string();
        let fr = match decode_file(&path, v.value()) {
            Ok(fr) => fr,
            Err(e) => {
                found.push(format!(
                    "the facet index's list of the rows of '{path}' does not decode ({e})"
                ));
                continue;
            }
        };
        let Some((&wpath, wrows)) = want.get_key_value(path.as_str()) else {
            found.push(format!("the facet index lists rows of '{path}', which holds no entry"));
            continue;
        };
        seen_files.insert(wpath);
        if nos.insert(fr.no, path.clone()).is_some() {
            found.push(format!("the facet index gives file number {} to two files", fr.no));
        }
        let listed: HashSet<[u8; 32]> = fr.members.iter().map(|(h, _)| *h).collect();
        for (h, row) in wrows {
            if !listed.contains(h) {
                found.push(format!("the facet index lacks entry '{}'", row.id));
            }
        }
        for (h, ord) in &fr.members {
            let Some(row) = wrows.get(h) else {
                found.push(format!(
                    "the facet index lists a row in '{path}' for {}, which is no entry of that file",
                    crate::record::hex(h)
                ));
                continue;
            };
            if *ord >= next_ord {
                found.push(format!(
                    "the facet index row of '{}' has ordinal {ord}, past the next one to give ({next_ord})",
                    row.id
                ));
            }
            if by_ord.insert(*ord, (wpath, fr.no, row)).is_some() {
                found.push(format!("the facet index gives ordinal {ord} to two rows"));
            }
        }
    }
    let mut lacking: Vec<&str> = want
        .iter()
        .filter(|(p, _)| !seen_files.contains(*p))
        .flat_map(|(_, rows)| rows.values().map(|r| r.id.as_str()))
        .collect();
    lacking.sort_unstable();
    for id in lacking {
        found.push(format!("the facet index lacks entry '{id}'"));
    }
    for r in names.iter()? {
        let (k, v) = r?;
        if nos.get(&k.value()).map(String::as_str) != Some(v.value()) {
            found.push(format!(
                "the facet index names file number {} '{}', which no file list agrees with",
                k.value(),
                v.value()
            ));
        }
        nos.remove(&k.value());
    }
    for (no, path) in nos {
        found.push(format!("the facet index has no name for file number {no} ('{path}')"));
    }

    // Rows, and what they imply for the posting lists and id keys.
    let mut want_postings: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
    let mut want_ids: Vec<(&str, u32)> = Vec::with_capacity(by_ord.len());
    let mut rows_seen: HashSet<u32> = HashSet::with_capacity(by_ord.len());
    // Each row's slot in the order table, as its bytes give it.
    let mut want_slots: BTreeMap<u32, OrderSlot> = BTreeMap::new();
    let mut block_end: Option<u32> = None;
    for r in rows.iter()? {
        let (k, v) = r?;
        let block = match RowBlock::parse(k.value(), v.value()) {
            Ok(block) => block,
            Err(e) => {
                found.push(format!(
                    "the facet index's block of rows at {} does not decode ({e})",
                    k.value()
                ));
                continue;
            }
        };
        if block_end.is_some_and(|end| end >= block.first()) {
            found.push(format!(
                "the facet index's block of rows at {} overlaps the one before",
                k.value()
            ));
        }
        block_end = Some(block.last());
        for (ord, bytes) in block.rows(v.value()) {
            rows_seen.insert(ord);
            if let Ok(view) = RowView::parse(bytes) {
                want_slots.insert(ord, OrderSlot::of_view(&view));
            }
            let Some(&(_, no, want_row)) = by_ord.get(&ord) else {
                found.push(format!(
                    "the facet index has a row at ordinal {ord}, which is no entry of any file"
                ));
                continue;
            };
            // The bytes the records give, compared whole: no row is decoded unless it differs.
            if want_row.is_stored_as(bytes, no) {
                continue;
            }
            match decode_row(ord, bytes) {
                Err(e) => found.push(format!(
                    "the facet index row of '{}' does not decode ({e})",
                    want_row.id
                )),
                Ok(_) => found.push(format!(
                    "the facet index row of entry '{}' disagrees with its record",
                    want_row.id
                )),
            }
        }
    }
    found.extend(check_order(txn, &want_slots)?);
    found.extend(check_directory(txn, &names)?);
    drop(want_slots);
    let mut missing_rows: Vec<&str> = by_ord
        .iter()
        .filter(|(o, _)| !rows_seen.contains(*o))
        .map(|(_, (_, _, r))| r.id.as_str())
        .collect();
    missing_rows.sort_unstable();
    for id in missing_rows {
        found.push(format!("the facet index has no row for entry '{id}'"));
    }
    // Each row's keys were made with the row; a key is allocated here once per distinct
    // value, not once per row and value.
    for (&ord, &(_, _, row)) in &by_ord {
        for key in row.keys() {
            match want_postings.get_mut(key) {
                // A value the row repeats (or repeats in another case) lists it once: the
                // row's keys are all added before the next row's.
                Some(list) if list.last() == Some(&ord) => {}
                Some(list) => list.push(ord),
                None => {
                    want_postings.insert(key.to_vec(), vec![ord]);
                }
            }
        }
        want_ids.push((row.id.as_str(), ord));
    }
    summarise(&mut problems, found);

    let (mut missing, mut extra, mut differ) = (0usize, 0usize, 0usize);
    let mut want_postings: Vec<(Vec<u8>, Vec<u32>)> = want_postings.into_iter().collect();
    want_postings.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut wanted = want_postings
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            (k, v)
        })
        .peekable();
    for r in postings_t.iter()? {
        let (k, v) = r?;
        let have = k.value();
        while wanted.next_if(|(w, _)| w.as_slice() < have).is_some() {
            missing += 1;
        }
        match wanted.next_if(|(w, _)| w.as_slice() == have) {
            None => extra += 1,
            Some((_, list)) => {
                if postings::decode(v.value()).ok().as_ref() != Some(&list) {
                    differ += 1;
                }
            }
        }
    }
    missing += wanted.count();
    if missing + extra + differ > 0 {
        problems.push(format!(
            "the facet index's posting lists disagree with the records: {missing} missing, \
             {extra} left over, {differ} with other rows"
        ));
    }

    want_ids.sort_unstable();
    let (mut missing, mut extra) = (0usize, 0usize);
    let mut wanted = want_ids.iter().peekable();
    for r in ids.iter()? {
        let (k, _) = r?;
        let (id, ord) = k.value();
        while wanted.next_if(|(w, o)| (*w, *o) < (id, ord)).is_some() {
            missing += 1;
        }
        if wanted.next_if(|(w, o)| (*w, *o) == (id, ord)).is_none() {
            extra += 1;
        }
    }
    missing += wanted.count();
    if missing + extra > 0 {
        problems.push(format!(
            "the facet index's id keys disagree with the records: {missing} missing, {extra} left over"
        ));
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

#[cfg(test)]
mod tests {
    //! The index against a naive filter over the records, through random writes, edits,
    //! moves and deletions committed in batches.

    use super::*;
    use crate::record::{Kind, Segment};
    use crate::Store;
    use proptest::prelude::*;
    use std::sync::Arc;

    /// Reads `family`, `dtype`, `kind` and `status` fields; the title is the id.
    struct Fields;

    fn list(rec: &Record, key: &str) -> Vec<String> {
        rec.field(key)
            .map(|v| v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
            .unwrap_or_default()
    }

    impl Indexer for Fields {
        fn queryable(&self, kind: Kind) -> bool {
            kind == Kind::Entry
        }
        fn searchable(&self, _: Kind) -> bool {
            false
        }
        fn query_row(&self, rec: &Record, line: u64) -> Option<QueryRow> {
            Some(QueryRow {
                id: rec.id.clone(),
                kind: rec.field("kind").unwrap_or_default().to_string(),
                title: rec.id.clone(),
                file: rec.file.to_string(),
                line,
                family: list(rec, "family"),
                apis: Vec::new(),
                dtype: list(rec, "dtype"),
                device: Vec::new(),
                status: rec.field("status").unwrap_or_default().to_string(),
            })
        }
        fn search_doc(&self, _: &Record) -> Option<crate::search::SearchDoc> {
            None
        }
    }

    const FAMILIES: [&str; 4] = ["attention", "Norm", "gemm", "reduce"];
    const DTYPES: [&str; 2] = ["bf16", "fp32"];
    const KINDS: [&str; 3] = ["trap", "pattern", "case"];
    const STATUSES: [&str; 2] = ["verified", "stale"];

    #[derive(Debug, Clone)]
    enum Op {
        /// Writes entry `id` into file `file` (moving it there if it lives elsewhere).
        Put { id: u8, file: u8, families: u8, dtypes: u8, kind: u8, status: u8 },
        /// Removes entry `id` from its file and the store.
        Delete { id: u8 },
        /// Drops file `file` and its entries.
        DropFile { file: u8 },
        /// Commits the ops so far.
        Commit,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..24, 0u8..4, 0u8..16, 0u8..4, 0u8..3, 0u8..2).prop_map(
                |(id, file, families, dtypes, kind, status)| Op::Put { id, file, families, dtypes, kind, status }
            ),
            2 => (0u8..24).prop_map(|id| Op::Delete { id }),
            1 => (0u8..4).prop_map(|file| Op::DropFile { file }),
            2 => Just(Op::Commit),
        ]
    }

    fn pick<'a>(names: &[&'a str], bits: u8) -> Vec<&'a str> {
        names.iter().enumerate().filter(|(i, _)| bits & (1 << i) != 0).map(|(_, n)| *n).collect()
    }

    /// File `file`: a heading, then entries `ids` in order.
    fn layout(file: u8, ids: &[u8]) -> FileLayout {
        FileLayout {
            path: format!("f{file}.md"),
            items: std::iter::once(LayoutItem::Prose(format!("# f{file}\n\n")))
                .chain(
                    ids.iter()
                        .map(|&i| LayoutItem::Record(CaseHash::of(Kind::Entry, &format!("E{i}")))),
                )
                .collect(),
        }
    }

    fn record(id: u8, file: u8, families: u8, dtypes: u8, kind: u8, status: u8) -> Record {
        let field =
            |key: &str, value: String| Segment::Field { key: key.into(), value: value.into() };
        Record {
            kind: Kind::Entry,
            id: format!("E{id}"),
            file: format!("f{file}.md").into(),
            segments: vec![
                Segment::Lit("---\n".into()),
                field("family", pick(&FAMILIES, families).join(",")),
                Segment::Lit("\n".into()),
                field("dtype", pick(&DTYPES, dtypes).join(",")),
                Segment::Lit("\n".into()),
                field("kind", KINDS[kind as usize].to_string()),
                Segment::Lit("\n".into()),
                field("status", STATUSES[status as usize].to_string()),
                Segment::Lit("\n---\n".repeat(usize::from(id % 3) + 1).into()),
            ],
        }
    }

    /// The rows a filter must give, computed from the records and layouts alone.
    fn naive(store: &Store, filter: &Filter) -> Vec<QueryRow> {
        let txn = store.read().expect("read");
        let records = txn.records().expect("records");
        let by_key: HashMap<CaseHash, &Record> =
            records.iter().map(|r| (r.case_hash(), r)).collect();
        let mut out = Vec::new();
        for layout in txn.files().expect("files") {
            let rows = entry_rows(&layout, &|h| Ok(by_key.get(h).copied()), &Fields).expect("rows");
            out.extend(rows.into_iter().map(|(_, r)| r));
        }
        let matches = |facet: &str, values: &[String], row: &QueryRow| {
            let have: Vec<String> = match facet {
                "family" => row.family.clone(),
                "dtype" => row.dtype.clone(),
                "kind" => vec![row.kind.clone()],
                "status" => vec![row.status.clone()],
                "id" => return values.iter().any(|v| v.to_lowercase() == row.id),
                _ => Vec::new(),
            };
            values.iter().any(|v| have.iter().any(|h| h.to_lowercase() == v.to_lowercase()))
        };
        out.retain(|row| {
            (filter.id_prefixes.is_empty()
                || filter.id_prefixes.iter().any(|p| row.id.starts_with(p.as_str())))
                && filter.facets.iter().all(|(f, vs)| vs.is_empty() || matches(f, vs, row))
        });
        out.sort_by(|a, b| (&a.file, a.line, &a.id).cmp(&(&b.file, b.line, &b.id)));
        out
    }

    /// Filters over every facet the toy indexer fills, alone and combined.
    fn filters() -> Vec<Filter> {
        let mut out = vec![Filter::default()];
        let one = |f: &str, vs: &[&str]| {
            let mut filter = Filter::default();
            filter.facets.insert(f.into(), vs.iter().map(|v| v.to_string()).collect());
            filter
        };
        for fam in FAMILIES {
            out.push(one("family", &[fam]));
            for d in DTYPES {
                for k in KINDS {
                    let mut f = one("family", &[fam, "gemm"]);
                    f.facets.insert("dtype".into(), vec![d.into()]);
                    f.facets.insert("kind".into(), vec![k.into()]);
                    out.push(f.clone());
                    f.facets.insert("status".into(), vec!["VERIFIED".into()]);
                    out.push(f);
                }
            }
        }
        out.push(one("family", &["norm"]));
        out.push(one("status", &["stale"]));
        out.push(one("id", &["e3", "e14"]));
        out.push(one("device", &["x"]));
        out.push(one("nonsense", &["x"]));
        for p in ["E1", "E", "", "F"] {
            let mut f = one("kind", &["trap", "case"]);
            f.id_prefixes = vec![p.into(), "E2".into()];
            out.push(f.clone());
            f.facets.clear();
            out.push(f);
        }
        out
    }

    /// The bytes `query --json` prints for `rows`: serde_json's compact array.
    fn serde_json_of(rows: &[QueryRow]) -> Vec<u8> {
        serde_json::to_vec(rows).expect("json")
    }

    /// The bytes the stored JSON fragments give for the same query.
    fn fragments_of(rows: &JsonRows<'_>) -> Vec<u8> {
        let mut out = vec![b'['];
        for i in 0..rows.len() {
            if i > 0 {
                out.push(b',');
            }
            rows.write_row(i, false, &mut out);
        }
        out.push(b']');
        out
    }

    /// The rows in `window` as a streamed query writes them (`[`, rows, `]`), or `None` when
    /// the store answers such a query by copying.
    fn streamed(
        txn: &crate::ReadTxn,
        filter: &Filter,
        window: std::ops::Range<usize>,
    ) -> Option<Vec<u8>> {
        let mut out = vec![b'['];
        let mut first = None;
        let done = txn
            .query_json_stream(
                filter,
                |_| window.clone(),
                |i, row| -> Result<(), std::convert::Infallible> {
                    if first.is_some() {
                        out.push(b',');
                    }
                    first.get_or_insert(i);
                    row.write(false, &mut out);
                    Ok(())
                },
            )
            .expect("stream")?;
        assert!(done.is_ok());
        if let Some(first) = first {
            assert_eq!(first, window.start, "the first row handed over is the window's first");
        }
        out.push(b']');
        Some(out)
    }

    /// serde_json's compact array of the rows in `window`.
    fn window_of(rows: &[QueryRow], window: std::ops::Range<usize>) -> Vec<u8> {
        let end = window.end.min(rows.len());
        serde_json_of(&rows[window.start.min(end)..end])
    }

    fn check_store(store: &Store) -> Result<(), TestCaseError> {
        let txn = store.read().expect("read");
        for filter in filters() {
            let rows = txn.query(&filter).expect("query");
            prop_assert_eq!(&rows, &naive(store, &filter), "{:?}", filter);
            let (len, json, ids) = txn
                .query_json(&filter, |json| {
                    let ids: Vec<String> =
                        (0..json.len()).map(|i| json.id(i).to_string()).collect();
                    (json.len(), fragments_of(json), ids)
                })
                .expect("query json");
            prop_assert_eq!(len, rows.len());
            prop_assert_eq!(txn.query_count(&filter).expect("count"), rows.len(), "{:?}", filter);
            let want = serde_json_of(&rows);
            prop_assert_eq!(
                String::from_utf8_lossy(&json),
                String::from_utf8_lossy(&want),
                "{:?}",
                filter
            );
            let want: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
            prop_assert_eq!(ids, want);
            // Streamed, whole and in windows, the answer is the same bytes.
            let n = rows.len();
            for window in [0..n, 0..n / 2, n / 3..n, n..n + 2] {
                if let Some(streamed) = streamed(&txn, &filter, window.clone()) {
                    let want = window_of(&rows, window.clone());
                    prop_assert_eq!(
                        String::from_utf8_lossy(&streamed),
                        String::from_utf8_lossy(&want),
                        "{:?} {:?}",
                        filter,
                        window
                    );
                }
            }
        }
        let problems = txn.check_facet_index().expect("check");
        prop_assert!(problems.is_empty(), "{:?}", problems);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn the_index_answers_like_a_naive_filter(ops in proptest::collection::vec(op(), 1..40)) {
            let dir = tempfile::tempdir().expect("tempdir");
            let store = Store::create(dir.path(), Arc::new(Fields)).expect("create");
            // The model: which file each entry lives in, and each file's entries in order.
            let mut files: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
            let mut txn = store.write().expect("write");
            for op in ops {
                match op {
                    Op::Put { id, file, families, dtypes, kind, status } => {
                        let from = files.iter().find(|(_, ids)| ids.contains(&id)).map(|(f, _)| *f);
                        if let Some(from) = from.filter(|f| *f != file) {
                            let ids = files.entry(from).or_default();
                            ids.retain(|i| *i != id);
                            txn.put_file(&layout(from, ids)).expect("put file");
                        }
                        let ids = files.entry(file).or_default();
                        if !ids.contains(&id) {
                            // New entries go first, so later entries' lines move.
                            ids.insert(0, id);
                        }
                        txn.put_record(&record(id, file, families, dtypes, kind, status)).expect("put");
                        txn.put_file(&layout(file, ids)).expect("put file");
                    }
                    Op::Delete { id } => {
                        if let Some((&file, ids)) = files.iter_mut().find(|(_, ids)| ids.contains(&id)) {
                            ids.retain(|i| *i != id);
                            txn.delete_record(&CaseHash::of(Kind::Entry, &format!("E{id}"))).expect("delete");
                            txn.put_file(&layout(file, ids)).expect("put file");
                        }
                    }
                    Op::DropFile { file } => {
                        for id in files.remove(&file).unwrap_or_default() {
                            txn.delete_record(&CaseHash::of(Kind::Entry, &format!("E{id}"))).expect("delete");
                        }
                        txn.delete_file(&format!("f{file}.md")).expect("delete file");
                    }
                    Op::Commit => {
                        txn.commit().expect("commit");
                        check_store(&store)?;
                        txn = store.write().expect("write");
                    }
                }
            }
            txn.commit().expect("commit");
            check_store(&store)?;
            // A rebuild numbers every row afresh and answers the same.
            let mut txn = store.write().expect("write");
            txn.rebuild_index().expect("rebuild");
            txn.commit().expect("commit");
            check_store(&store)?;
        }
    }

    proptest! {
        /// A row's stored fragments print what serde_json prints for the row, whatever its
        /// text holds (quotes, backslashes, control characters, non-ASCII), and decode back
        /// to the same row.
        #[test]
        fn a_stored_row_prints_as_serde_json_and_decodes_back(
            id in prop_oneof!["\\PC{0,12}", "[a-zA-Z0-9_\"\\\\\x01µ实-]{0,12}"],
            kind in ".{0,6}",
            title in "[\"\\\\\\x00-\\x1f a-z\u{7f}\u{2028}µ实测]{0,24}",
            file in "[a-z/\"\\\\.\u{1}]{0,20}",
            line in any::<u64>(),
            family in proptest::collection::vec("\\PC{0,8}", 0..3),
            status in "\\PC{0,8}",
            own in any::<bool>(),
        ) {
            let row = QueryRow {
                id, kind, title, file: file.clone(), line, family,
                apis: vec!["T.gemm".into()], dtype: Vec::new(), device: vec!["9\"1".into()], status,
            };
            let layout_path = if own { format!("{file}x") } else { file.clone() };
            let stored = StoredRow::new(row.clone(), 7, &layout_path);
            let bytes = encode_row(&stored);
            let view = RowView::parse(&bytes).expect("parse");
            prop_assert_eq!(view.id, row.id.as_bytes());
            prop_assert_eq!(view.line, line);
            prop_assert_eq!(view.file_no, 7);
            let mut printed = Vec::new();
            let path = serde_json::to_vec(&row.file).expect("path");
            write_json_row(view.head, &path, view.tail, false, &mut printed);
            let want = serde_json::to_vec(&row).expect("json");
            prop_assert_eq!(String::from_utf8_lossy(&printed), String::from_utf8_lossy(&want));
            prop_assert_eq!(view.decode().expect("decode"), stored);
        }
    }

    #[test]
    fn copied_rows_come_back_whole_across_buffers() {
        // Rows from empty to larger than a buffer, so some share a buffer, one does not fit
        // what is left of one and starts the next, and one gets a buffer of its own size.
        let mut copied = Copied::default();
        let mut want: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = Vec::new();
        let mut spans = Vec::new();
        let sizes = [0usize, 1, 7, 1000, Copied::CHUNK - 2007, 3, Copied::CHUNK + 5, 40, 0];
        for (n, size) in sizes.into_iter().enumerate() {
            let part = |k: usize| -> Vec<u8> {
                (0..size / 3 + k).map(|i| (i * 31 + n * 7 + k) as u8).collect()
            };
            let (id, head, tail) = (part(0), part(1), part(2));
            spans.push(copied.push(&id, &head, &tail));
            want.push((id, head, tail));
        }
        for (span, (id, head, tail)) in spans.into_iter().zip(&want) {
            let (i, h, t) = Copied::parts(&copied.chunks, span);
            assert_eq!((i, h, t), (id.as_slice(), head.as_slice(), tail.as_slice()));
        }
        assert!(copied.chunks.len() >= 2, "the rows spread over more than one buffer");
        assert!(
            copied.chunks.iter().all(|c| c.capacity() == Copied::CHUNK
                || (c.len() == c.capacity() && c.len() > Copied::CHUNK)),
            "each buffer kept the size it was made with: none grew by copying"
        );
    }

    /// A row naming a file number the name table lost is damage to `query --count` as to
    /// `query --json`: both fail, so the command rebuilds the index, rather than the count
    /// going on over it.
    #[test]
    fn a_count_over_a_lost_file_name_fails_as_the_rows_do() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(Fields))?;
        let mut txn = store.write()?;
        for id in 0..8u8 {
            txn.put_record(&record(id, id % 2, 1, 0, 0, 0))?;
        }
        for file in 0..2u8 {
            let ids: Vec<u8> = (0..8u8).filter(|id| id % 2 == file).collect();
            txn.put_file(&layout(file, &ids))?;
        }
        txn.commit()?;
        let filter = Filter::default();
        assert_eq!(store.read()?.query_count(&filter)?, 8);

        let txn = store.write()?;
        {
            let mut names = txn.txn.open_table(FILE_NAMES)?;
            let lost = names
                .iter()?
                .map(|r| r.map(|(k, v)| (k.value(), v.value().to_string())))
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .find(|(_, path)| path == "f1.md")
                .map(|(no, _)| no)
                .ok_or("f1.md has a number")?;
            names.remove(lost)?;
        }
        txn.commit()?;
        let read = store.read()?;
        let json = read.query_json(&filter, |rows| rows.len());
        let count = read.query_count(&filter);
        assert!(matches!(json, Err(StoreError::Corrupted { .. })), "{json:?}");
        assert!(matches!(count, Err(StoreError::Corrupted { .. })), "{count:?}");
        Ok(())
    }

    /// Enough rows for many blocks of the order table, then edits that move rows
    /// between files, add rows past the clustered ones and remove some: every filter's
    /// streamed answer is the copied one, and a fresh store streams a family query.
    #[test]
    fn a_streamed_answer_is_the_copied_one_across_blocks_and_edits(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let store = Store::create(dir.path(), Arc::new(Fields))?;
        let mut files: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
        let mut txn = store.write()?;
        for id in 0..=250u8 {
            let file = id % 9;
            txn.put_record(&record(id, file, 1 + id % 7, id % 3, id % 3, id % 2))?;
            files.entry(file).or_default().push(id);
        }
        for (file, ids) in &files {
            txn.put_file(&layout(*file, ids))?;
        }
        txn.commit()?;
        let mut family = Filter::default();
        family.facets.insert("family".into(), vec![FAMILIES[0].into()]);
        let read = store.read()?;
        let n = read.query(&family)?.len();
        assert!(n > 2 * ORDER_BLOCK as usize, "the family spans order blocks: {n} rows");
        assert!(streamed(&read, &family, 0..n).is_some(), "a fresh store streams a family");
        drop(read);
        check_all(&store)?;
        // Edits: entries move to other files (first in them, so lines shift), some go.
        let mut txn = store.write()?;
        for id in (0..=250u8).step_by(17) {
            let from = id % 9;
            files.entry(from).or_default().retain(|i| *i != id);
            txn.put_file(&layout(from, &files[&from]))?;
            let to = (from + 4) % 9;
            files.entry(to).or_default().insert(0, id);
            txn.put_record(&record(id, to, 1 + id % 5, 1, 2, 0))?;
            txn.put_file(&layout(to, &files[&to]))?;
        }
        for id in (3..=250u8).step_by(23) {
            let file = files.iter().find(|(_, ids)| ids.contains(&id)).map(|(f, _)| *f);
            if let Some(file) = file {
                files.entry(file).or_default().retain(|i| *i != id);
                txn.delete_record(&CaseHash::of(Kind::Entry, &format!("E{id}")))?;
                txn.put_file(&layout(file, &files[&file]))?;
            }
        }
        txn.commit()?;
        check_all(&store)?;
        Ok(())
    }

    /// Every filter of [`filters`], streamed whole, equals its copied answer.
    fn check_all(store: &Store) -> Result<(), Box<dyn std::error::Error>> {
        let txn = store.read()?;
        for filter in filters() {
            let rows = txn.query(&filter)?;
            if let Some(streamed) = streamed(&txn, &filter, 0..rows.len()) {
                assert_eq!(
                    String::from_utf8_lossy(&streamed),
                    String::from_utf8_lossy(&serde_json_of(&rows)),
                    "{filter:?}"
                );
            }
        }
        let problems = txn.check_facet_index()?;
        assert!(problems.is_empty(), "{problems:?}");
        Ok(())
    }

    #[test]
    fn a_block_of_rows_cut_short_misordered_or_keyed_elsewhere_is_damage() {
        let row = |o: u32, text: &[u8]| (o, Box::<[u8]>::from(text));
        let bytes = RowBlock::encode(&[row(5, b"abc"), row(9, b"de")]);
        let block = RowBlock::parse(9, &bytes).expect("parse");
        assert_eq!(block.row(&bytes, 5), Some(&b"abc"[..]));
        assert_eq!(block.row(&bytes, 9), Some(&b"de"[..]));
        assert_eq!(block.row(&bytes, 6), None);
        assert_eq!((block.first(), block.last()), (5, 9));
        // Searched for forward, as a lane reads, and from the start when asked for less.
        let mut at = 0;
        assert_eq!(block.row_after(&bytes, 5, &mut at), Some(&b"abc"[..]));
        assert_eq!(block.row_after(&bytes, 7, &mut at), None);
        assert_eq!(block.row_after(&bytes, 9, &mut at), Some(&b"de"[..]));
        assert_eq!(block.row_after(&bytes, 10, &mut at), None);
        assert_eq!(block.row_after(&bytes, 5, &mut at), Some(&b"abc"[..]));
        let mut past = 7;
        assert_eq!(block.row_after(&bytes, 9, &mut past), Some(&b"de"[..]));
        assert!(RowBlock::parse(5, &bytes).is_err(), "keyed elsewhere than its last row");
        assert!(RowBlock::parse(10, &bytes).is_err(), "keyed elsewhere than its last row");
        for cut in 0..bytes.len() {
            assert!(RowBlock::parse(9, &bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(RowBlock::parse(9, &longer).is_err(), "bytes past the last row");
        let misordered = RowBlock::encode(&[row(9, b"de"), row(5, b"abc")]);
        assert!(RowBlock::parse(5, &misordered).is_err());
        assert!(RowBlock::parse(0, &RowBlock::encode(&[])).is_err(), "a block holds a row");
    }

    #[test]
    fn a_row_in_another_format_or_cut_short_is_damage_not_garbage() {
        let row = StoredRow::new(
            QueryRow {
                id: "E1".into(),
                kind: "trap".into(),
                title: "t".into(),
                file: "f.md".into(),
                line: 3,
                family: vec!["attention".into()],
                apis: Vec::new(),
                dtype: Vec::new(),
                device: Vec::new(),
                status: "verified".into(),
            },
            0,
            "f.md",
        );
        let bytes = encode_row(&row);
        for cut in 0..30.min(bytes.len()) {
            assert!(RowView::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bincode = codec::encode(&row);
        assert!(decode_row(0, &bincode).is_err(), "a bincode row is not read as JSON");
        bincode[0] = ROW_FORMAT;
        assert!(decode_row(0, &bincode).is_err());
    }

    #[test]
    fn a_fresh_index_numbers_each_family_in_few_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::create(dir.path(), Arc::new(Fields)).expect("create");
        let mut txn = store.write().expect("write");
        let mut ids_of: BTreeMap<u8, Vec<u8>> = BTreeMap::new();
        for id in 0..20u8 {
            let file = id % 4;
            // Families alternate, so file order alone would interleave them, and every third
            // entry is also `gemm`.
            let families = (1 << (id % 2)) | if id % 3 == 0 { 4 } else { 0 };
            txn.put_record(&record(id, file, families, 0, 0, 0)).expect("put");
            ids_of.entry(file).or_default().push(id);
        }
        for (file, ids) in &ids_of {
            let items = ids
                .iter()
                .map(|i| LayoutItem::Record(CaseHash::of(Kind::Entry, &format!("E{i}"))))
                .collect();
            txn.put_file(&FileLayout { path: format!("f{file}.md"), items }).expect("file");
        }
        txn.commit().expect("commit");
        let txn = store.read().expect("read");
        let reader = txn.query_reader().expect("reader");
        let runs = |family: &str| {
            let mut filter = Filter::default();
            filter.facets.insert("family".into(), vec![family.into()]);
            let ords = reader.select(&filter).expect("select").expect("some");
            (ords.len(), 1 + ords.windows(2).filter(|w| w[1] != w[0] + 1).count())
        };
        // The clusters in order: [attention], [attention, gemm], [gemm, norm], [norm]. Each
        // family's rows are one run, where file order would scatter them over all four files.
        assert_eq!(runs("attention"), (10, 1));
        assert_eq!(runs("norm"), (10, 1));
        assert_eq!(runs("gemm"), (7, 1));
    }

    /// Whether `lanes` is a valid lane assignment for `keys`: each lane's ordinals rise in
    /// output order, so a lane only ever reads forward.
    fn lanes_rise(keys: &[u128], placed: &[(u32, OrderSlot)], lanes: &[u8]) -> bool {
        let mut last: HashMap<u8, u32> = HashMap::new();
        keys.iter().zip(lanes).all(|(&key, &lane)| {
            let ord = placed[row_of_key(key)].0;
            last.insert(lane, ord).is_none_or(|before| before < ord)
        })
    }

    /// Output keys for rows at the output positions `at` (placed in ordinal order).
    fn keys_at(at: &[u32]) -> Vec<u128> {
        let mut keys: Vec<u128> =
            at.iter().enumerate().map(|(i, &p)| u128::from(p) << 64 | i as u128).collect();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn each_cluster_of_ordinals_is_a_lane_of_its_own() {
        // Three clusters of ten rows, each in output order, interleaved in the output: the
        // fewest lanes would let a lane hop between clusters; the clustered ones do not.
        let placed: Vec<(u32, OrderSlot)> = (0..30).map(|o| (o * 3, OrderSlot::EMPTY)).collect();
        let at: Vec<u32> = (0..30u32).map(|i| i % 10 * 3 + (2 - i / 10)).collect();
        let keys = keys_at(&at);
        let lanes = clustered_lanes(&keys, &placed).expect("three runs");
        for (&key, &lane) in keys.iter().zip(&lanes) {
            assert_eq!(
                u32::from(lane),
                (key as u32) / 10,
                "row {} in its cluster's lane",
                key as u32
            );
        }
        assert!(lanes_rise(&keys, &placed, &lanes));
        // A window keeps each remaining row in its cluster's lane.
        let window = &keys[7..19];
        let lanes = clustered_lanes(window, &placed).expect("runs");
        assert!(lanes_rise(window, &placed, &lanes));
        assert!(lanes.iter().all(|&l| l < 3));
    }

    #[test]
    fn more_runs_than_lanes_fall_back_to_the_fewest_lanes() {
        // Rows in output order except that each pair is swapped: 100 runs, two lanes.
        let placed: Vec<(u32, OrderSlot)> = (0..200).map(|o| (o, OrderSlot::EMPTY)).collect();
        let at: Vec<u32> = (0..200u32).map(|i| i ^ 1).collect();
        let keys = keys_at(&at);
        assert_eq!(clustered_lanes(&keys, &placed), None);
        let lanes = fewest_lanes(&keys, &placed).expect("two lanes");
        assert!(lanes_rise(&keys, &placed, &lanes));
        assert_eq!(lanes.iter().max(), Some(&1));
        // Rows in falling order need a lane each: more than there are.
        let keys = keys_at(&(0..200u32).rev().collect::<Vec<_>>());
        assert_eq!(fewest_lanes(&keys, &placed), None);
    }

    proptest! {
        /// Whatever the output order, both assignments, where they give one, keep each lane's
        /// ordinals rising.
        #[test]
        fn lanes_only_read_forward(
            shuffled in Just((0..20u32).collect::<Vec<_>>()).prop_shuffle(),
            stretch in 0u32..6,
        ) {
            // Rows in output order but for one stretch of twenty, shuffled.
            let placed: Vec<(u32, OrderSlot)> = (0..120).map(|o| (o * 2, OrderSlot::EMPTY)).collect();
            let mut at: Vec<u32> = (0..120).collect();
            for (i, p) in shuffled.into_iter().enumerate() {
                at[(stretch * 20) as usize + i] = stretch * 20 + p;
            }
            let keys = keys_at(&at);
            if let Some(lanes) = clustered_lanes(&keys, &placed) {
                prop_assert!(lanes_rise(&keys, &placed, &lanes));
            }
            if let Some(lanes) = fewest_lanes(&keys, &placed) {
                prop_assert!(lanes_rise(&keys, &placed, &lanes));
            }
        }
    }

    #[test]
    fn file_numbers_dense_or_sparse_index_the_same_files() {
        let slot = |file_no, line| (0, OrderSlot { file_no, line });
        let dense = [slot(3, 1), slot(0, 2), slot(3, 9), slot(7, 4)];
        assert_eq!(files_of(&dense), (vec![0, 3, 7], vec![1, 0, 1, 2]));
        // Numbers past any table worth making (a damaged order table) are sorted instead.
        let sparse = [slot(3, 1), slot(4_000_000_000, 2), slot(3, 9)];
        assert_eq!(files_of(&sparse), (vec![3, 4_000_000_000], vec![0, 1, 0]));
    }

    #[test]
    fn rows_come_out_by_rank_then_line_whether_counted_or_sorted() {
        // Four files ranked 2, 0, 3, 1; rows of one file at several lines, in no order.
        let slot = |line| (0, OrderSlot { file_no: 0, line });
        let placed = [slot(9), slot(4), slot(1), slot(7), slot(2), slot(5), slot(3)];
        let file_of = [0, 1, 0, 2, 3, 1, 0];
        let order = |rank: &[usize]| -> Vec<usize> {
            output_order(&placed, &file_of, rank).iter().map(|&k| row_of_key(k)).collect()
        };
        // Rank 0 is file 1 (lines 4, 5), rank 1 file 3 (line 2), rank 2 file 0 (lines 1, 3,
        // 9), rank 3 file 2 (line 7).
        assert_eq!(order(&[2, 0, 3, 1]), vec![1, 5, 4, 2, 6, 0, 3]);
        // Ranks in the same order but far apart take the sorting path, to the same order.
        assert_eq!(order(&[2 << 30, 0, 3 << 30, 1 << 30]), vec![1, 5, 4, 2, 6, 0, 3]);
    }
}
