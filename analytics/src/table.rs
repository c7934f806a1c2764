//! The registry in columns: what every figure reads, built from the stored cases one at a time.
//!
//! A decoded [`ErrorCase`] costs about 3 KB in memory (every round name in `evaluated` and
//! `failed_rounds` is its own `String`, and the original line is kept in `raw`), so a registry
//! of a million cases would need gigabytes. [`CaseTable`] keeps instead, per case, one status
//! byte per round (the figures' grid), its key and query, and dictionary numbers for its gold,
//! subset and pattern: about 200 bytes per case at 50 rounds. [`CaseTableBuilder`] takes the
//! cases one by one (the loader streams them out of the store), so the decoded registry never
//! exists as a whole.

use std::collections::BTreeSet;

use crate::figures::{merge_round_order, FastMap, Grid, FAIL, NOT_EVALUATED, PASS};
use crate::model::{CaseRow, ErrorCase, Round};

/// The error registry and the iteration log, ready for the figures.
#[derive(Debug, Clone, Default)]
pub struct CaseTable {
    pub(crate) grid: Grid,
    /// The iteration log, in log order.
    pub rounds: Vec<Round>,
    hash: Vec<String>,
    query: Vec<Option<String>>,
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
        self.hash.is_empty()
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
        &self.hash[c]
    }

    pub fn query(&self, c: usize) -> Option<&str> {
        self.query[c].as_deref()
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
            out.hash.push(self.hash[c].clone());
            out.query.push(self.query[c].clone());
            out.gold.push(self.gold[c]);
            out.subset.push(self.subset[c]);
            out.pattern.push(self.pattern[c]);
        }
        out.grid.status = status;
        out
    }
}

/// Builds a [`CaseTable`] from cases pushed one at a time.
#[derive(Debug, Default)]
pub struct CaseTableBuilder {
    names: FastMap<String, u32>,
    name_list: Vec<String>,
    /// Per case, its rounds as `name << 1 | failed`, cases one after another.
    marks: Vec<u32>,
    ends: Vec<usize>,
    hash: Vec<String>,
    query: Vec<Option<String>>,
    gold: Vec<Option<u32>>,
    subset: Vec<Option<u32>>,
    pattern: Vec<Option<u32>>,
    words: FastMap<String, u32>,
    dict: Vec<String>,
}

impl CaseTableBuilder {
    fn name(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.names.get(name) {
            return i;
        }
        let i = u32::try_from(self.name_list.len()).unwrap_or(u32::MAX >> 1);
        self.names.insert(name.to_owned(), i);
        self.name_list.push(name.to_owned());
        i
    }

    fn word(&mut self, w: Option<String>) -> Option<u32> {
        let w = w?;
        if let Some(&i) = self.words.get(&w) {
            return Some(i);
        }
        let i = u32::try_from(self.dict.len()).unwrap_or(u32::MAX);
        self.words.insert(w.clone(), i);
        self.dict.push(w);
        Some(i)
    }

    /// Adds one case.
    pub fn push(&mut self, case: ErrorCase) {
        for r in &case.evaluated {
            let i = self.name(r);
            self.marks.push(i << 1);
        }
        for r in &case.failed_rounds {
            let i = self.name(r);
            self.marks.push(i << 1 | 1);
        }
        self.push_fields(case.case_hash, case.query, case.gold, case.subset, case.pattern);
    }

    /// Adds one case in its stored compact form; `names` is the store's round-name list that
    /// its numbers point into (numbers past its end are ignored).
    pub fn push_row(&mut self, row: CaseRow, names: &[String]) {
        for (ids, failed) in [(&row.evaluated, 0), (&row.failed_rounds, 1)] {
            for &id in ids {
                if let Some(name) = names.get(id as usize) {
                    let i = self.name(name);
                    self.marks.push(i << 1 | failed);
                }
            }
        }
        self.push_fields(row.case_hash, row.query, row.gold, row.subset, row.pattern);
    }

    fn push_fields(
        &mut self,
        hash: String,
        query: Option<String>,
        gold: Option<String>,
        subset: Option<String>,
        pattern: Option<String>,
    ) {
        self.ends.push(self.marks.len());
        self.hash.push(hash);
        self.query.push(query);
        let gold = self.word(gold);
        let subset = self.word(subset);
        let pattern = self.word(pattern);
        self.gold.push(gold);
        self.subset.push(subset);
        self.pattern.push(pattern);
    }

    /// The table, with the iteration log `rounds` fixing the round order.
    pub fn finish(self, rounds: Vec<Round>) -> CaseTable {
        let order = merge_round_order(&rounds, self.name_list.iter().map(String::as_str));
        let mut grid = Grid::from_order(order);
        let col: Vec<usize> =
            self.name_list.iter().map(|n| grid.index.get(n).copied().unwrap_or(0)).collect();
        let width = grid.width;
        let mut status = vec![NOT_EVALUATED; self.ends.len() * width];
        let mut start = 0;
        for (c, &end) in self.ends.iter().enumerate() {
            let row = &mut status[c * width..(c + 1) * width];
            for &m in &self.marks[start..end] {
                let i = col[(m >> 1) as usize];
                if m & 1 == 1 {
                    row[i] = FAIL;
                } else if row[i] == NOT_EVALUATED {
                    row[i] = PASS;
                }
            }
            start = end;
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
