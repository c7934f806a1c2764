//! Where the analytics data lives in an evokb store: collections (typed tables that are
//! never rendered to markdown), the registry import that writes them, and the loader that
//! gives the figures their input.
//!
//! # The error registry in the store
//! - `coll.case_chunks`: every case in columns, [`CHUNK_CASES`] cases per item, in case-key
//!   order ([`CaseChunk`]).
//! - `coll.case_lines`: the cases' original lines, concatenated into segments of about
//!   [`SEGMENT_BYTES`] (key: big-endian segment number), in the order they were imported.
//! - `coll.round_names`: the round names that the chunks' status columns follow.
//! - `coll.registry_meta`: the next segment number and the bytes the segments hold.
//!
//! A figure reads the chunks only: a few dozen items of plain columns for a million cases. An
//! import ([`Registry`]) loads the chunks, streams the files into them (a case whose line
//! hash is unchanged is left alone; a new or changed case appends its line to a new segment),
//! and, when anything changed, writes the chunks again, all in the caller's one write
//! transaction, so an import is all or nothing. Lines of replaced cases stay in their
//! segments until they are more than half of the bytes; then the live lines are copied into
//! fresh segments and the old ones removed.
//!
//! Stores written before chunks hold `coll.error_cases` (the full records) and
//! `coll.case_rows`; they are read as they are, and the next `errors import` moves them into
//! chunks.

use std::collections::BTreeMap;

use evokb_store::{Collection, ReadTxn, StoreError, WriteTxn};
use thiserror::Error;

use crate::export::EntryFacets;
use crate::figures::{FastMap, Fnv, FAIL, NOT_EVALUATED, PASS};
use crate::model::{
    CaseChunk, CaseRow, ErrorCase, KeySource, Round, TimelineEvent, TimelineFile,
    KEY_FROM_CASE_HASH, KEY_FROM_QUERY,
};
use crate::parse::{self, CaseLine, Diagnostic, LineIssue, ReadError};
use crate::table::{CaseTable, CaseTableBuilder};

/// Error cases in columns, by big-endian chunk number (see the module docs).
pub const CASE_CHUNKS: Collection = Collection::new("coll.case_chunks");
/// The original registry lines, by big-endian segment number.
pub const CASE_LINES: Collection = Collection::new("coll.case_lines");
/// One item, key `lines`: [`LineStats`].
pub const REGISTRY_META: Collection = Collection::new("coll.registry_meta");
const LINES_KEY: &[u8] = b"lines";
/// Error cases by case key, in stores written before case chunks (read and migrated only).
pub const ERROR_CASES: Collection = Collection::new("coll.error_cases");
/// The compact [`CaseRow`] of every error case, in stores written before case chunks.
pub const CASE_ROWS: Collection = Collection::new("coll.case_rows");
/// The round names that case chunks number, in numbering order: one item, key `names`.
pub const ROUND_NAMES: Collection = Collection::new("coll.round_names");
const ROUND_NAMES_KEY: &[u8] = b"names";

/// Cases per [`CaseChunk`]: about 8 MB per chunk at 50 rounds, 16 chunks for a million cases.
pub const CHUNK_CASES: usize = 65_536;
/// A line segment is written before it would grow past this many bytes (a line longer than
/// that gets a segment of its own). Just under a power of two, because redb gives a large
/// value the next power-of-two run of pages: 8 MiB and a line would take 16 MiB.
pub const SEGMENT_BYTES: usize = (4 << 20) - (16 << 10);

/// The line segments' bookkeeping.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineStats {
    /// The number the next segment gets.
    pub next_segment: u32,
    /// Bytes held by all segments, live lines and replaced ones.
    pub stored_bytes: u64,
}

/// Numbers round names: the store's list, extended as new names appear.
#[derive(Debug, Clone, Default)]
pub struct RoundNames {
    pub names: Vec<String>,
    index: FastMap<String, u32>,
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

    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i as usize;
        }
        let i = self.names.len();
        self.index.insert(name.to_owned(), u32::try_from(i).unwrap_or(u32::MAX));
        self.names.push(name.to_owned());
        self.changed = true;
        i
    }
}

/// The store's round-name list (empty in a store without cases).
pub fn round_names(txn: &ReadTxn) -> Result<RoundNames, StoreError> {
    Ok(round_names_from(txn.items(ROUND_NAMES)?))
}

/// The round-name list from the items of [`ROUND_NAMES`] (as a write transaction reads them).
pub fn round_names_from(items: Vec<(Vec<u8>, Vec<String>)>) -> RoundNames {
    let names =
        items.into_iter().find(|(k, _)| k == ROUND_NAMES_KEY).map(|(_, v)| v).unwrap_or_default();
    RoundNames::from_names(names)
}

/// Why an import of registry files stopped (nothing of it is committed).
#[derive(Debug, Error)]
pub enum ImportError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What one file of an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileImport {
    /// Cases new to the store or with a changed line.
    pub added: usize,
    /// Cases whose line the store already held.
    pub unchanged: usize,
    /// Skipped or flagged lines.
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a case's original line is: segment, byte offset, length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineRef {
    segment: u32,
    start: u64,
    len: u64,
}

/// Strings that can be replaced: each value is a span of one buffer (a replaced value's old
/// bytes stay behind until the import ends).
#[derive(Debug, Default)]
struct Spans {
    text: String,
    /// (start, end); `None` for an absent value.
    spans: Vec<Option<(usize, usize)>>,
}

impl Spans {
    fn span(&mut self, value: Option<&str>) -> Option<(usize, usize)> {
        value.map(|v| {
            let start = self.text.len();
            self.text.push_str(v);
            (start, self.text.len())
        })
    }

    fn push(&mut self, value: Option<&str>) {
        let s = self.span(value);
        self.spans.push(s);
    }

    fn set(&mut self, i: usize, value: Option<&str>) {
        let s = self.span(value);
        self.spans[i] = s;
    }

    fn get(&self, i: usize) -> Option<&str> {
        self.spans[i].and_then(|(a, b)| self.text.get(a..b))
    }
}

/// Case keys and their case numbers: every key once, one after another in one buffer, and a
/// hash table of case numbers over it. (A map from boxed keys held each key in an allocation of
/// its own, in table entries six times as wide: about 80 MB at a million cases, against
/// 34 MB.)
#[derive(Debug, Default)]
struct KeyIndex {
    text: String,
    /// End of case `i`'s key in `text`; it starts where key `i - 1` ends.
    ends: Vec<u64>,
    table: hashbrown::HashTable<u32>,
}

fn key_hash(key: &str) -> u64 {
    use std::hash::Hasher as _;
    let mut h = Fnv::default();
    h.write(key.as_bytes());
    h.finish()
}

fn key_at<'a>(text: &'a str, ends: &[u64], i: usize) -> &'a str {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    text.get(start..ends[i] as usize).unwrap_or_default()
}

impl KeyIndex {
    fn key(&self, i: usize) -> &str {
        key_at(&self.text, &self.ends, i)
    }

    /// The number of the case with `key`.
    fn get(&self, key: &str) -> Option<usize> {
        self.table.find(key_hash(key), |&i| self.key(i as usize) == key).map(|&i| i as usize)
    }

    /// Adds `key`, which must be new, as the next case number, and returns that number.
    fn push(&mut self, key: &str) -> usize {
        let i = self.ends.len();
        self.text.push_str(key);
        self.ends.push(self.text.len() as u64);
        let (text, ends) = (&self.text, &self.ends);
        self.table.insert_unique(key_hash(key), u32::try_from(i).unwrap_or(u32::MAX), |&j| {
            key_hash(key_at(text, ends, j as usize))
        });
        i
    }
}

/// The error registry as an import holds it: every case of the store in columns, indexed by
/// key, plus the lines read since loading that are not yet in a segment. Built by
/// [`Registry::load`], fed by [`Registry::import_file`], written by [`Registry::save`].
#[derive(Debug)]
pub struct Registry {
    names: RoundNames,
    index: KeyIndex,
    /// Cases so far.
    cases: usize,
    key_source: Vec<u8>,
    key_algo_version: Vec<u16>,
    query: Spans,
    /// gold, subset, pattern: 0 absent, i + 1 for `words[i]`.
    fields: Vec<[u32; 3]>,
    words: Vec<String>,
    word_index: FastMap<String, u32>,
    /// `stride` status bytes per case, over the round-name list.
    stride: usize,
    status: Vec<u8>,
    line_hash: Vec<[u8; 16]>,
    lines: Vec<LineRef>,
    /// Lines not yet written, with the number of the segment they will be.
    pending: String,
    stats: LineStats,
    /// Per case, the line of the current file it came from (0: not from this file).
    seen: Vec<u32>,
    /// Whether the chunks must be written again.
    changed: bool,
    /// Whether the store still holds the layout from before chunks, to be removed.
    legacy: bool,
    /// A row to mark lines that are not stored again.
    scratch: Vec<u8>,
}

/// A status byte meaning "failed, and not listed in `evaluated`" while a line is applied.
const FAIL_UNLISTED: u8 = 3;

fn hash16(line: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    out.copy_from_slice(&blake3::hash(line.as_bytes()).as_bytes()[..16]);
    out
}

/// Sets `row` (one byte per round name) from a line's round numbers, `evaluated` first, and
/// flags each failed round the line's `evaluated` lacks (once per listing, as it is listed).
fn mark_row(
    row: &mut [u8],
    evaluated: &[usize],
    failed: &[usize],
    line: &CaseLine<'_>,
    n: u32,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) {
    row.fill(NOT_EVALUATED);
    for &id in evaluated {
        row[id] = PASS;
    }
    for (&id, name) in failed.iter().zip(&line.failed_rounds) {
        if row[id] == NOT_EVALUATED || row[id] == FAIL_UNLISTED {
            // Flag, but keep: the figures treat a failed round as evaluated.
            diags.push(Diagnostic {
                path: path.to_owned(),
                line: n,
                message: LineIssue::FailedNotEvaluated {
                    key: line.key.clone().into_owned(),
                    round: name.clone().into_owned(),
                }
                .to_string(),
            });
            row[id] = FAIL_UNLISTED;
        } else {
            row[id] = FAIL;
        }
    }
    for s in row.iter_mut() {
        if *s == FAIL_UNLISTED {
            *s = FAIL;
        }
    }
}

fn key_source_code(k: KeySource) -> u8 {
    match k {
        KeySource::CaseHashField => KEY_FROM_CASE_HASH,
        KeySource::NormalisedQuery => KEY_FROM_QUERY,
    }
}

impl Registry {
    /// The store's registry, ready to import into (inside the import's write transaction).
    pub fn load(w: &mut WriteTxn) -> Result<Registry, StoreError> {
        let names = round_names_from(w.items(ROUND_NAMES)?);
        let stats = w
            .items::<LineStats>(REGISTRY_META)?
            .into_iter()
            .find(|(k, _)| k == LINES_KEY)
            .map(|(_, s)| s)
            .unwrap_or_default();
        let mut reg = Registry {
            stride: names.names.len().div_ceil(8).max(1) * 8,
            names,
            index: KeyIndex::default(),
            cases: 0,
            key_source: Vec::new(),
            key_algo_version: Vec::new(),
            query: Spans::default(),
            fields: Vec::new(),
            words: Vec::new(),
            word_index: FastMap::default(),
            status: Vec::new(),
            line_hash: Vec::new(),
            lines: Vec::new(),
            pending: String::new(),
            stats,
            seen: Vec::new(),
            changed: false,
            legacy: false,
            scratch: Vec::new(),
        };
        w.for_each_item::<CaseChunk>(CASE_CHUNKS, |_, chunk| reg.push_chunk(&chunk))?;
        if reg.cases == 0 && w.item_count(ERROR_CASES)? > 0 {
            reg.migrate(w)?;
        }
        Ok(reg)
    }

    /// Moves the cases of a store from before chunks (full records in `coll.error_cases`) in:
    /// their original lines become segments, and `save` removes the old collections. The
    /// records are read one key at a time, so they are never all decoded at once.
    fn migrate(&mut self, w: &mut WriteTxn) -> Result<(), StoreError> {
        let mut keys = Vec::new();
        w.for_each_item::<ErrorCase>(ERROR_CASES, |k, _| keys.push(k.to_vec()))?;
        let mut ignored = Vec::new();
        for key in keys {
            let found = w.items_with_prefix::<ErrorCase>(ERROR_CASES, &key)?;
            let Some((_, case)) = found.into_iter().find(|(k, _)| *k == key) else { continue };
            if self.pending.len() + case.raw.len() > SEGMENT_BYTES {
                self.flush_lines(w)?;
            }
            let raw = case.raw.clone();
            self.apply(&raw, CaseLine::from(case), 0, "", &mut ignored);
        }
        self.legacy = true;
        self.changed = true;
        Ok(())
    }

    /// How many cases.
    pub fn len(&self) -> usize {
        self.cases
    }

    /// Whether there are no cases.
    pub fn is_empty(&self) -> bool {
        self.cases == 0
    }

    fn push_chunk(&mut self, chunk: &CaseChunk) {
        let width = chunk.width as usize;
        let words: Vec<u32> = chunk.words.iter().map(|w| self.word(Some(w))).collect();
        let word =
            |id: u32| id.checked_sub(1).and_then(|i| words.get(i as usize)).map_or(0, |&w| w);
        for c in 0..chunk.len() {
            let i = self.new_case(chunk.key(c));
            self.key_source[i] = chunk.key_source.0.get(c).copied().unwrap_or(KEY_FROM_CASE_HASH);
            self.key_algo_version[i] = chunk.key_algo_version.get(c).copied().unwrap_or(0);
            self.query.set(i, chunk.query(c));
            let f = |col: &[u32]| col.get(c).copied().map_or(0, word);
            self.fields[i] = [f(&chunk.gold), f(&chunk.subset), f(&chunk.pattern)];
            if let Some(row) = chunk.status.0.get(c * width..(c + 1) * width) {
                let n = row.len().min(self.stride);
                self.status[i * self.stride..i * self.stride + n].copy_from_slice(&row[..n]);
            }
            if let Some(h) = chunk.line_hash.0.get(c * 16..(c + 1) * 16) {
                self.line_hash[i].copy_from_slice(h);
            }
            self.lines[i] = LineRef {
                segment: chunk.line_segment.get(c).copied().unwrap_or(0),
                start: chunk.line_start.get(c).copied().unwrap_or(0),
                len: chunk.line_len.get(c).copied().unwrap_or(0),
            };
        }
    }

    fn word(&mut self, w: Option<&str>) -> u32 {
        let Some(w) = w else { return 0 };
        if let Some(&i) = self.word_index.get(w) {
            return i + 1;
        }
        let i = u32::try_from(self.words.len()).unwrap_or(u32::MAX - 1);
        self.word_index.insert(w.to_owned(), i);
        self.words.push(w.to_owned());
        i + 1
    }

    /// Appends an empty case with `key` and returns its number.
    fn new_case(&mut self, key: &str) -> usize {
        let i = self.cases;
        self.cases += 1;
        self.index.push(key);
        self.key_source.push(KEY_FROM_CASE_HASH);
        self.key_algo_version.push(0);
        self.query.push(None);
        self.fields.push([0; 3]);
        self.status.resize(self.status.len() + self.stride, NOT_EVALUATED);
        self.line_hash.push([0; 16]);
        self.lines.push(LineRef { segment: 0, start: 0, len: 0 });
        self.seen.push(0);
        i
    }

    /// Makes room in every row for at least `names` round names.
    fn widen(&mut self, names: usize) {
        // Rows a multiple of 8 bytes wide: 56 for 50 rounds, a few widenings while the first
        // lines name the rounds (when there are few rows to copy).
        let stride = names.div_ceil(8) * 8;
        let mut status = vec![NOT_EVALUATED; self.cases * stride];
        for c in 0..self.cases {
            status[c * stride..c * stride + self.stride]
                .copy_from_slice(&self.status[c * self.stride..(c + 1) * self.stride]);
        }
        self.status = status;
        self.stride = stride;
    }

    fn round_id(&mut self, name: &str) -> usize {
        let id = self.names.id(name);
        if id >= self.stride {
            self.widen(id + 1);
        }
        id
    }

    /// Stores one parsed line as case `line.key` (new or replaced); `n` and `path` name the
    /// line in flags about failed rounds missing from `evaluated`.
    fn apply(
        &mut self,
        raw: &str,
        line: CaseLine<'_>,
        n: u32,
        path: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> usize {
        let ids: Vec<usize> = line.evaluated.iter().map(|r| self.round_id(r)).collect();
        let failed: Vec<usize> = line.failed_rounds.iter().map(|r| self.round_id(r)).collect();
        let i = match self.index.get(&line.key) {
            Some(i) => i,
            None => self.new_case(&line.key),
        };
        let row = &mut self.status[i * self.stride..(i + 1) * self.stride];
        mark_row(row, &ids, &failed, &line, n, path, diags);
        self.key_source[i] = key_source_code(line.key_source);
        self.key_algo_version[i] = line.key_algo_version;
        self.query.set(i, line.query.as_deref());
        self.fields[i] = [
            self.word(line.gold.as_deref()),
            self.word(line.subset.as_deref()),
            self.word(line.pattern.as_deref()),
        ];
        self.line_hash[i] = hash16(raw);
        self.lines[i] = LineRef {
            segment: self.stats.next_segment,
            start: self.pending.len() as u64,
            len: raw.len() as u64,
        };
        self.pending.push_str(raw);
        self.changed = true;
        i
    }

    /// Writes the pending lines as the next segment.
    fn flush_lines(&mut self, w: &mut WriteTxn) -> Result<(), StoreError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        w.put_item(CASE_LINES, &self.stats.next_segment.to_be_bytes(), &self.pending)?;
        self.stats.stored_bytes += self.pending.len() as u64;
        self.stats.next_segment += 1;
        self.pending.clear();
        Ok(())
    }

    /// Imports one registry file, read line by line. Bad lines are skipped with a
    /// diagnostic; a repeated key within the file keeps its first line. A case from an
    /// earlier file of the same import, or already in the store, is replaced when its line
    /// differs and counted unchanged when it is the same.
    pub fn import_file(
        &mut self,
        w: &mut WriteTxn,
        reader: impl std::io::BufRead,
        path: &str,
    ) -> Result<FileImport, ImportError> {
        self.seen.fill(0);
        let mut out = FileImport::default();
        let mut failed: Option<StoreError> = None;
        parse::read_lines(reader, path, |n, raw| {
            let line = match parse::parse_case_line(raw) {
                Ok(line) => line,
                Err(issue) => {
                    out.diagnostics.push(Diagnostic {
                        path: path.to_owned(),
                        line: n,
                        message: issue.to_string(),
                    });
                    return true;
                }
            };
            let known = self.index.get(&line.key);
            if let Some(i) = known {
                if self.seen[i] != 0 {
                    let issue = LineIssue::DuplicateCase {
                        key: line.key.into_owned(),
                        first_line: self.seen[i],
                    };
                    out.diagnostics.push(Diagnostic {
                        path: path.to_owned(),
                        line: n,
                        message: issue.to_string(),
                    });
                    return true;
                }
                if self.line_hash[i] == hash16(raw) && self.lines[i].len == raw.len() as u64 {
                    // The same line gives the same case; only its flags are repeated.
                    self.flag_unlisted(&line, n, path, &mut out.diagnostics);
                    self.seen[i] = n;
                    out.unchanged += 1;
                    return true;
                }
            }
            if self.pending.len() + raw.len() > SEGMENT_BYTES {
                if let Err(e) = self.flush_lines(w) {
                    failed = Some(e);
                    return false;
                }
            }
            let i = self.apply(raw, line, n, path, &mut out.diagnostics);
            self.seen[i] = n;
            out.added += 1;
            true
        })?;
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(out),
        }
    }

    /// The flags of failed rounds missing from `evaluated`, for a line not stored again.
    fn flag_unlisted(
        &mut self,
        line: &CaseLine<'_>,
        n: u32,
        path: &str,
        diags: &mut Vec<Diagnostic>,
    ) {
        let ids: Vec<usize> = line.evaluated.iter().map(|r| self.round_id(r)).collect();
        let failed: Vec<usize> = line.failed_rounds.iter().map(|r| self.round_id(r)).collect();
        let mut row = std::mem::take(&mut self.scratch);
        row.resize(self.stride, NOT_EVALUATED);
        mark_row(&mut row, &ids, &failed, line, n, path, diags);
        self.scratch = row;
    }

    /// Writes what changed: the pending lines, the chunks (all of them, in key order), the
    /// round names and the line bookkeeping; copies live lines into fresh segments when
    /// replaced lines are more than half of the stored bytes. Nothing is written when the
    /// import changed nothing.
    pub fn save(mut self, w: &mut WriteTxn) -> Result<(), StoreError> {
        if !self.changed {
            return Ok(());
        }
        self.flush_lines(w)?;
        let live: u64 = self.lines.iter().map(|l| l.len).sum();
        if self.stats.stored_bytes > live.saturating_mul(2) {
            self.compact_lines(w)?;
        }
        let mut order: Vec<u32> =
            (0..self.cases).map(|i| u32::try_from(i).unwrap_or(u32::MAX)).collect();
        order.sort_unstable_by(|&a, &b| self.index.key(a as usize).cmp(self.index.key(b as usize)));
        let before = w.item_count(CASE_CHUNKS)?;
        let mut written = 0u64;
        for (n, part) in order.chunks(CHUNK_CASES).enumerate() {
            let chunk = self.chunk(part);
            let key = u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes();
            w.put_item(CASE_CHUNKS, &key, &chunk)?;
            written += 1;
        }
        for n in written..before {
            let key = u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes();
            w.remove_items_with_prefix(CASE_CHUNKS, &key)?;
        }
        if self.names.changed {
            w.put_item(ROUND_NAMES, ROUND_NAMES_KEY, &self.names.names)?;
        }
        w.put_item(REGISTRY_META, LINES_KEY, &self.stats)?;
        if self.legacy {
            w.remove_items_with_prefix(ERROR_CASES, b"")?;
            w.remove_items_with_prefix(CASE_ROWS, b"")?;
        }
        Ok(())
    }

    /// Copies every live line, segment by segment, into new segments and removes the old ones.
    fn compact_lines(&mut self, w: &mut WriteTxn) -> Result<(), StoreError> {
        let mut by_segment: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, l) in self.lines.iter().enumerate() {
            by_segment.entry(l.segment).or_default().push(i);
        }
        let first_new = self.stats.next_segment;
        self.stats.stored_bytes = 0;
        for segment in 0..first_new {
            let key = segment.to_be_bytes();
            let text = w
                .items_with_prefix::<String>(CASE_LINES, &key)?
                .into_iter()
                .next()
                .map(|(_, t)| t)
                .unwrap_or_default();
            for &i in by_segment.get(&segment).map_or(&[][..], Vec::as_slice) {
                let l = self.lines[i];
                let (a, b) = (l.start as usize, (l.start + l.len) as usize);
                let line = text.get(a..b).unwrap_or_default();
                if self.pending.len() + line.len() > SEGMENT_BYTES {
                    self.flush_lines(w)?;
                }
                self.lines[i] = LineRef {
                    segment: self.stats.next_segment,
                    start: self.pending.len() as u64,
                    len: l.len,
                };
                self.pending.push_str(line);
            }
            w.remove_items_with_prefix(CASE_LINES, &key)?;
        }
        self.flush_lines(w)
    }

    /// The chunk of the cases `part` (in that order), with a dictionary of their words only.
    fn chunk(&self, part: &[u32]) -> CaseChunk {
        let width = self.names.names.len();
        let mut chunk =
            CaseChunk { width: u32::try_from(width).unwrap_or(u32::MAX), ..CaseChunk::default() };
        let mut local: FastMap<u32, u32> = FastMap::default();
        let mut ids = Vec::with_capacity(part.len() * 3);
        for &i in part {
            let i = i as usize;
            chunk.keys.push_str(self.index.key(i));
            chunk.key_ends.push(chunk.keys.len() as u64);
            chunk.key_source.0.push(self.key_source[i]);
            chunk.key_algo_version.push(self.key_algo_version[i]);
            let q = self.query.get(i);
            chunk.queries.push_str(q.unwrap_or_default());
            chunk.query_ends.push(chunk.queries.len() as u64);
            chunk.has_query.0.push(u8::from(q.is_some()));
            for &global in &self.fields[i] {
                let id = if global == 0 {
                    0
                } else {
                    *local.entry(global).or_insert_with(|| {
                        chunk.words.push(self.words[(global - 1) as usize].clone());
                        u32::try_from(chunk.words.len()).unwrap_or(u32::MAX)
                    })
                };
                ids.push(id);
            }
            chunk
                .status
                .0
                .extend_from_slice(&self.status[i * self.stride..i * self.stride + width]);
            chunk.line_hash.0.extend_from_slice(&self.line_hash[i]);
            let l = self.lines[i];
            chunk.line_segment.push(l.segment);
            chunk.line_start.push(l.start);
            chunk.line_len.push(l.len);
        }
        for f in ids.chunks_exact(3) {
            chunk.gold.push(f[0]);
            chunk.subset.push(f[1]);
            chunk.pattern.push(f[2]);
        }
        chunk
    }

    /// The original line of every case, in key order, read back from the segments (for tests
    /// and checks; a figure never needs them).
    pub fn stored_lines(txn: &ReadTxn) -> Result<Vec<(String, String)>, StoreError> {
        let mut segments: BTreeMap<u32, String> = BTreeMap::new();
        for (k, text) in txn.items::<String>(CASE_LINES)? {
            if let Ok(n) = <[u8; 4]>::try_from(k.as_slice()) {
                segments.insert(u32::from_be_bytes(n), text);
            }
        }
        let mut out = Vec::new();
        txn.for_each_item::<CaseChunk>(CASE_CHUNKS, |_, chunk| {
            for c in 0..chunk.len() {
                let seg = chunk.line_segment.get(c).copied().unwrap_or(0);
                let start = chunk.line_start.get(c).copied().unwrap_or(0) as usize;
                let len = chunk.line_len.get(c).copied().unwrap_or(0) as usize;
                let line = segments
                    .get(&seg)
                    .and_then(|t| t.get(start..start + len))
                    .unwrap_or_default()
                    .to_owned();
                out.push((chunk.key(c).to_owned(), line));
            }
        })?;
        Ok(out)
    }
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

/// Reads the analytics collections of the store. The cases are decoded a chunk at a time into
/// the [`CaseTable`], never all at once.
pub fn load(txn: &ReadTxn) -> Result<StoredData, StoreError> {
    Ok(StoredData { table: load_table(txn)?, tasks: load_tasks(txn)? })
}

/// The registry and the log only.
pub fn load_table(txn: &ReadTxn) -> Result<CaseTable, StoreError> {
    let mut rounds: Vec<(u32, Round)> = txn.items(ROUNDS)?.into_iter().map(|(_, r)| r).collect();
    rounds.sort_by_key(|(seq, _)| *seq);
    let mut builder = CaseTableBuilder::default();
    let names = round_names(txn)?;
    if txn.item_count(CASE_CHUNKS)? > 0 {
        txn.for_each_item::<CaseChunk>(CASE_CHUNKS, |_, chunk| {
            builder.push_chunk(&chunk, &names.names);
        })?;
    } else if txn.item_count(CASE_ROWS)? == txn.item_count(ERROR_CASES)? {
        // A store from before chunks, with compact rows for every case.
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
