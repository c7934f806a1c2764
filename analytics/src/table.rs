//! The registry in columns: what every figure reads, built from the stored cases one at a time.
//!
//! A decoded [`ErrorCase`] costs about 3 KB in memory (every round name in `evaluated` and
//! `failed_rounds` is its own `String`, and the original line is kept in `raw`), so a registry
//! of a million cases would need gigabytes. [`CaseTable`] keeps instead, per case, one status
//! byte per round (the figures' grid), its key and query in two shared text buffers, and
//! dictionary numbers for its gold, subset and pattern: about 120 bytes per case at 50 rounds,
//! and a handful of allocations for the whole table instead of several per case.
//! [`CaseTableBuilder`] takes the cases one by one, or a stored chunk of them at a time (the
//! loader streams them out of the store), so the decoded registry never exists as a whole.

use std::collections::BTreeSet;

use crate::figures::{merge_round_order, FastMap, Grid, FAIL, NOT_EVALUATED, PASS};
use crate::model::{CaseChunk, CaseRow, ErrorCase, Round};

/// Strings one after another in one buffer, each possibly absent: one allocation for a million
/// values instead of a million.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrColumn {
    text: String,
    /// End of value `i` in `text`; value `i` starts where value `i - 1` ends.
    ends: Vec<usize>,
    present: Vec<bool>,
}

impl StrColumn {
    pub(crate) fn push(&mut self, value: Option<&str>) {
        if let Some(v) = value {
            self.text.push_str(v);
        }
        self.ends.push(self.text.len());
        self.present.push(value.is_some());
    }

    pub(crate) fn get(&self, i: usize) -> Option<&str> {
        if !self.present.get(i).copied().unwrap_or(false) {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..self.ends[i])
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }
}

/// The error registry and the iteration log, ready for the figures.
#[derive(Debug, Clone, Default)]
pub struct CaseTable {
    pub(crate) grid: Grid,
    /// The iteration log, in log order.
    pub rounds: Vec<Round>,
    hash: StrColumn,
    query: StrColumn,
    gold: Vec<Option<u32>>,
    subset: Vec<Option<u32>>,
    pattern: Vec<Option<u32>>,
    dict: Vec<String>,
}

impl CaseTable {
    /// The table of `cases` with the log `rounds`.
    pub fn new(cases: &[ErrorCase], rounds: &[Round]) -> CaseTable {
        let mut b = CaseTableBuilder::default();
        for c in cases {
            b.push(c.clone());
        }
        b.finish(rounds.to_vec())
    }

    /// How many cases.
    pub fn len(&self) -> usize {
        self.hash.len()
    }

    /// Whether there are no cases.
    pub fn is_empty(&self) -> bool {
        self.hash.len() == 0
    }

    /// The round order (see [`crate::figures::round_order`]).
    pub fn order(&self) -> &[String] {
        &self.grid.order
    }

    fn word(&self, id: Option<u32>) -> Option<&str> {
        id.and_then(|i| self.dict.get(i as usize)).map(String::as_str)
    }

    /// Case `c`'s key.
    pub fn case_hash(&self, c: usize) -> &str {
        self.hash.get(c).unwrap_or_default()
    }

    pub fn query(&self, c: usize) -> Option<&str> {
        self.query.get(c)
    }

    pub fn gold(&self, c: usize) -> Option<&str> {
        self.word(self.gold[c])
    }

    pub fn subset(&self, c: usize) -> Option<&str> {
        self.word(self.subset[c])
    }

    pub fn pattern(&self, c: usize) -> Option<&str> {
        self.word(self.pattern[c])
    }

    /// Case `c`'s subset as a dictionary number (equal numbers, equal subsets).
    pub(crate) fn subset_id(&self, c: usize) -> Option<u32> {
        self.subset[c]
    }

    /// Case `c`'s pattern as a dictionary number.
    pub(crate) fn pattern_id(&self, c: usize) -> Option<u32> {
        self.pattern[c]
    }

    /// Case `c`'s gold label as a dictionary number.
    pub(crate) fn gold_id(&self, c: usize) -> Option<u32> {
        self.gold[c]
    }

    /// The text of a dictionary number.
    pub(crate) fn word_text(&self, id: u32) -> Option<&str> {
        self.word(Some(id))
    }

    /// How many dictionary numbers there are.
    pub(crate) fn words(&self) -> usize {
        self.dict.len()
    }

    /// Case `c`'s status per round of the order: not evaluated, pass or fail.
    pub(crate) fn row(&self, c: usize) -> &[u8] {
        self.grid.row(c)
    }

    /// The same table over the first `rounds` rounds of the order only (for figures "as of"
    /// a round); cases never evaluated in them are dropped, and so are later log rounds.
    pub fn truncated(&self, rounds: usize) -> CaseTable {
        let width = rounds.min(self.grid.width);
        let order: Vec<String> = self.grid.order[..width].to_vec();
        let keep: BTreeSet<&str> = order.iter().map(String::as_str).collect();
        let mut out = CaseTable {
            grid: Grid::from_order(order.clone()),
            rounds: self
                .rounds
                .iter()
                .filter(|r| keep.contains(r.round.as_str()))
                .cloned()
                .collect(),
            dict: self.dict.clone(),
            ..CaseTable::default()
        };
        let mut status = Vec::new();
        for c in 0..self.len() {
            let row = &self.row(c)[..width];
            if row.iter().all(|&s| s == NOT_EVALUATED) {
                continue;
            }
            status.extend_from_slice(row);
            out.hash.push(self.hash.get(c));
            out.query.push(self.query.get(c));
            out.gold.push(self.gold[c]);
            out.subset.push(self.subset[c]);
            out.pattern.push(self.pattern[c]);
        }
        out.grid.status = status;
        out
    }
}

/// Builds a [`CaseTable`] from cases pushed one at a time or a stored chunk at a time.
///
/// Each case's statuses are kept in a row over the round names in the order they were first
/// seen (a row is `stride` bytes, widened when more names turn up than it holds); `finish`
/// lays the rows out in the figures' round order once that order is known.
#[derive(Debug)]
pub struct CaseTableBuilder {
    names: FastMap<String, u32>,
    name_list: Vec<String>,
    stride: usize,
    status: Vec<u8>,
    hash: StrColumn,
    query: StrColumn,
    gold: Vec<Option<u32>>,
    subset: Vec<Option<u32>>,
    pattern: Vec<Option<u32>>,
    words: FastMap<String, u32>,
    dict: Vec<String>,
}

impl Default for CaseTableBuilder {
    fn default() -> CaseTableBuilder {
        CaseTableBuilder {
            names: FastMap::default(),
            name_list: Vec::new(),
            stride: 64,
            status: Vec::new(),
            hash: StrColumn::default(),
            query: StrColumn::default(),
            gold: Vec::new(),
            subset: Vec::new(),
            pattern: Vec::new(),
            words: FastMap::default(),
            dict: Vec::new(),
        }
    }
}

impl CaseTableBuilder {
    fn name(&mut self, name: &str) -> usize {
        if let Some(&i) = self.names.get(name) {
            return i as usize;
        }
        let i = self.name_list.len();
        self.names.insert(name.to_owned(), u32::try_from(i).unwrap_or(u32::MAX));
        self.name_list.push(name.to_owned());
        if i >= self.stride {
            self.widen(i + 1);
        }
        i
    }

    /// Re-lays the rows out with room for at least `names` names.
    fn widen(&mut self, names: usize) {
        let stride = names.next_power_of_two().max(self.stride * 2);
        let cases = self.hash.len();
        let mut status = vec![NOT_EVALUATED; cases * stride];
        for c in 0..cases {
            status[c * stride..c * stride + self.stride]
                .copy_from_slice(&self.status[c * self.stride..(c + 1) * self.stride]);
        }
        self.status = status;
        self.stride = stride;
    }

    fn word(&mut self, w: Option<&str>) -> Option<u32> {
        let w = w?;
        if let Some(&i) = self.words.get(w) {
            return Some(i);
        }
        let i = u32::try_from(self.dict.len()).unwrap_or(u32::MAX);
        self.words.insert(w.to_owned(), i);
        self.dict.push(w.to_owned());
        Some(i)
    }

    /// Starts a new case's row (all rounds not evaluated) and returns its offset.
    fn new_row(&mut self) -> usize {
        let at = self.status.len();
        self.status.resize(at + self.stride, NOT_EVALUATED);
        at
    }

    fn mark(&mut self, at: usize, name: usize, failed: bool) {
        let cell = &mut self.status[at + name];
        if failed {
            *cell = FAIL;
        } else if *cell == NOT_EVALUATED {
            *cell = PASS;
        }
    }

    /// Adds one case.
    pub fn push(&mut self, case: ErrorCase) {
        let ids: Vec<(usize, bool)> = case
            .evaluated
            .iter()
            .map(|r| (r, false))
            .chain(case.failed_rounds.iter().map(|r| (r, true)))
            .map(|(r, failed)| (self.name(r), failed))
            .collect();
        let at = self.new_row();
        for (id, failed) in ids {
            self.mark(at, id, failed);
        }
        self.push_fields(
            &case.case_hash,
            case.query.as_deref(),
            [case.gold.as_deref(), case.subset.as_deref(), case.pattern.as_deref()],
        );
    }

    /// Adds one case in the compact form of stores written before case chunks; `names` is the
    /// store's round-name list that its numbers point into (numbers past its end are ignored).
    pub fn push_row(&mut self, row: CaseRow, names: &[String]) {
        let mut ids = Vec::with_capacity(row.evaluated.len() + row.failed_rounds.len());
        for (list, failed) in [(&row.evaluated, false), (&row.failed_rounds, true)] {
            for &id in list {
                if let Some(name) = names.get(id as usize) {
                    ids.push((self.name(name), failed));
                }
            }
        }
        let at = self.new_row();
        for (id, failed) in ids {
            self.mark(at, id, failed);
        }
        self.push_fields(
            &row.case_hash,
            row.query.as_deref(),
            [row.gold.as_deref(), row.subset.as_deref(), row.pattern.as_deref()],
        );
    }

    /// Adds the cases of one stored chunk; `names` is the store's round-name list that the
    /// chunk's status columns follow (columns past its end are ignored).
    pub fn push_chunk(&mut self, chunk: &CaseChunk, names: &[String]) {
        let width = chunk.width as usize;
        let cols: Vec<Option<usize>> =
            (0..width).map(|j| names.get(j).map(|n| self.name(n))).collect();
        let words: Vec<Option<u32>> = chunk.words.iter().map(|w| self.word(Some(w))).collect();
        let word =
            |id: u32| id.checked_sub(1).and_then(|i| words.get(i as usize).copied().flatten());
        let status = chunk.status.0.chunks_exact(width.max(1));
        for (c, row) in (0..chunk.len()).zip(status.chain(std::iter::repeat(&[][..]))) {
            let at = self.new_row();
            for (j, &s) in row.iter().enumerate().take(width) {
                if let (Some(Some(col)), true) = (cols.get(j), s == PASS || s == FAIL) {
                    self.status[at + col] = s;
                }
            }
            self.hash.push(Some(chunk.key(c)));
            self.query.push(chunk.query(c));
            self.gold.push(chunk.gold.get(c).copied().and_then(word));
            self.subset.push(chunk.subset.get(c).copied().and_then(word));
            self.pattern.push(chunk.pattern.get(c).copied().and_then(word));
        }
    }

    fn push_fields(&mut self, hash: &str, query: Option<&str>, words: [Option<&str>; 3]) {
        self.hash.push(Some(hash));
        self.query.push(query);
        let [gold, subset, pattern] = words;
        let gold = self.word(gold);
        let subset = self.word(subset);
        let pattern = self.word(pattern);
        self.gold.push(gold);
        self.subset.push(subset);
        self.pattern.push(pattern);
    }

    /// The table, with the iteration log `rounds` fixing the round order. Only round names
    /// that some case was evaluated in take part (a name whose cases were all replaced is gone).
    pub fn finish(self, rounds: Vec<Round>) -> CaseTable {
        let cases = self.hash.len();
        let mut used = vec![false; self.name_list.len()];
        for c in 0..cases {
            let row = &self.status[c * self.stride..c * self.stride + used.len()];
            for (u, &s) in used.iter_mut().zip(row) {
                *u |= s != NOT_EVALUATED;
            }
        }
        let order = merge_round_order(
            &rounds,
            self.name_list.iter().zip(&used).filter(|(_, &u)| u).map(|(n, _)| n.as_str()),
        );
        let mut grid = Grid::from_order(order);
        // Each used name's column in the order; unused names have none.
        let cols: Vec<(usize, usize)> = self
            .name_list
            .iter()
            .enumerate()
            .filter(|(i, _)| used[*i])
            .filter_map(|(i, n)| grid.index.get(n).map(|&col| (i, col)))
            .collect();
        let width = grid.width;
        let mut status = vec![NOT_EVALUATED; cases * width];
        for c in 0..cases {
            let from = &self.status[c * self.stride..(c + 1) * self.stride];
            let to = &mut status[c * width..(c + 1) * width];
            for &(i, col) in &cols {
                to[col] = from[i];
            }
        }
        grid.status = status;
        CaseTable {
            grid,
            rounds,
            hash: self.hash,
            query: self.query,
            gold: self.gold,
            subset: self.subset,
            pattern: self.pattern,
            dict: self.dict,
        }
    }
}
