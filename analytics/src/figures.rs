//! Recurrence figures over the error registry and the iteration log, plus the
//! generic "recurrence after a knowledge-base entry was injected" figure.
//!
//! # Definitions
//! A case's status at a round is *fail* if the round is in its
//! `failed_rounds`, else *pass* if it is in `evaluated`, else *not
//! evaluated*. (A failed round missing from `evaluated` still counts as
//! evaluated; the parser flags it.)
//!
//! **Round order** ([`round_order`]): the iteration log's order. Rounds that
//! only cases mention are merged in by the numeric order of `R<n>`: each goes
//! before the first log round with a larger number, and names that are not
//! `R<n>` go last, sorted. Without a log this is plain numeric order.
//!
//! - **transitions**: for each pair of consecutive rounds (a, b), over cases
//!   evaluated in both: `persistent` fail→fail, `new_fail` pass→fail,
//!   `new_fix` fail→pass. Cases evaluated in only one of the two are left out.
//! - **recurrence**: `failing_cases` = cases with at least one failed round;
//!   `recurring_cases` = those with two or more distinct failed rounds;
//!   `rate` = recurring / failing.
//! - **after fix**: a case is fixed at the first round k (k ≥ 1 in round
//!   order) where it failed at round k−1 and passed at k. It recurred if it
//!   failed at any round after k. A fixed case evaluated at no round after k is
//!   `unexercised`. `fixed` counts the fixed cases that *were* evaluated after
//!   k, i.e. the rate's denominator, and `rate` = recurred / fixed. (This is
//!   how the hand-computed fixture counts it: 33 fixed, 5 unexercised,
//!   reported as fixed 28.)
//! - **after injection**: for each pattern named by some round's
//!   intervention, k = the first such round (log order). Over the pattern's
//!   cases evaluated at any round ≥ k: `cases`, and `recurred` = those that
//!   failed at some round ≥ k; `rate` = recurred / cases.
//! - **after entry** ([`recurrence_after_entries`]): see its docs.
//!
//! Rates are rounded to 4 decimals, and are `null` when the denominator is 0.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::model::{ErrorCase, Round, TimelineEvent};
use crate::table::CaseTable;
use crate::util::{parse_utc_seconds, rate4, round_sort_key};

/// Errors from figure arguments (never from the data itself).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FigureError {
    #[error("unknown round '{0}'")]
    UnknownRound(String),
    #[error("round '{0}' is the first round, so it has no previous round to compare with")]
    NoPreviousRound(String),
    #[error("round '{from}' comes after round '{to}'")]
    ReversedRange { from: String, to: String },
    #[error("entry '{0}' has no injection point")]
    MissingInjectionPoint(String),
    #[error("entry '{entry}' links {class_kind} '{class}' but its injection point is {point}; patterns need a round and verdicts a timestamp")]
    IncompatibleInjection {
        entry: String,
        class_kind: &'static str,
        class: String,
        point: &'static str,
    },
    #[error("entry '{entry}' has an unparseable injection timestamp '{ts}'")]
    InvalidTimestamp { entry: String, ts: String },
}

/// One row of `stats transitions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transition {
    pub from: String,
    pub to: String,
    pub persistent: u64,
    pub new_fail: u64,
    pub new_fix: u64,
}

/// `stats recurrence`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recurrence {
    pub failing_cases: u64,
    pub recurring_cases: u64,
    pub rate: Option<f64>,
}

/// `stats recurrence --after fix`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AfterFix {
    /// Fixed cases evaluated again after the fix (the rate's denominator).
    pub fixed: u64,
    pub recurred: u64,
    /// Fixed cases never evaluated after the fix; left out of the rate.
    pub unexercised: u64,
    pub rate: Option<f64>,
}

/// One row of `stats recurrence --after injection`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AfterInjection {
    pub pattern: String,
    pub injected_at: String,
    pub cases: u64,
    pub recurred: u64,
    pub rate: Option<f64>,
}

/// FNV-1a: round names are a handful of short strings looked up millions of
/// times, where std's DoS-resistant SipHash is the bottleneck. Lookup order
/// never reaches the output, so determinism is unaffected.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;
type FastSet<K> = HashSet<K, BuildHasherDefault<Fnv>>;

pub(crate) const NOT_EVALUATED: u8 = 0;
pub(crate) const PASS: u8 = 1;
pub(crate) const FAIL: u8 = 2;

/// The round order used by every figure (see the module docs).
pub fn round_order(cases: &[ErrorCase], rounds: &[Round]) -> Vec<String> {
    merge_round_order(
        rounds,
        cases.iter().flat_map(|c| c.evaluated.iter().chain(&c.failed_rounds)).map(String::as_str),
    )
}

/// The log's rounds in log order, with the other `names` merged in by `R<n>` number.
pub(crate) fn merge_round_order<'a>(
    rounds: &[Round],
    names: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    let mut order: Vec<String> = Vec::with_capacity(rounds.len());
    let mut seen: FastSet<&str> = FastSet::default();
    for r in rounds {
        if seen.insert(r.round.as_str()) {
            order.push(r.round.clone());
        }
    }
    let mut extra: FastSet<&str> = FastSet::default();
    for name in names {
        if !seen.contains(name) {
            extra.insert(name);
        }
    }
    let extra: BTreeSet<(u8, u64, &str)> = extra.into_iter().map(round_sort_key).collect();
    for key in extra {
        let pos = order.iter().position(|name| round_sort_key(name) > key).unwrap_or(order.len());
        order.insert(pos, key.2.to_owned());
    }
    order
}

/// Each case's status per round, row-major, so every figure is one linear pass.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grid {
    pub(crate) order: Vec<String>,
    pub(crate) index: FastMap<String, usize>,
    pub(crate) width: usize,
    pub(crate) status: Vec<u8>,
}

impl Grid {
    /// An empty grid over `order` (rows are appended to `status`).
    pub(crate) fn from_order(order: Vec<String>) -> Grid {
        let index = order.iter().enumerate().map(|(i, r)| (r.clone(), i)).collect();
        Grid { width: order.len(), order, index, status: Vec::new() }
    }

    pub(crate) fn row(&self, case: usize) -> &[u8] {
        &self.status[case * self.width..(case + 1) * self.width]
    }

    pub(crate) fn rows(&self) -> impl Iterator<Item = &[u8]> {
        // chunks_exact(0) would panic; with no rounds there is nothing to yield.
        self.status.chunks_exact(self.width.max(1))
    }

    pub(crate) fn position(&self, name: &str) -> Result<usize, FigureError> {
        self.index.get(name).copied().ok_or_else(|| FigureError::UnknownRound(name.to_owned()))
    }

    /// The first round index and the number of consecutive pairs in the range `from..=to`.
    pub(crate) fn pair_range(
        &self,
        from: Option<&str>,
        to: Option<&str>,
    ) -> Result<(usize, usize), FigureError> {
        let lo = from.map(|r| self.position(r)).transpose()?.unwrap_or(0);
        let hi = match to {
            Some(r) => self.position(r)?,
            None => self.width.saturating_sub(1),
        };
        if let (Some(f), Some(t)) = (from, to) {
            if lo > hi {
                return Err(FigureError::ReversedRange { from: f.to_owned(), to: t.to_owned() });
            }
        }
        Ok((lo, hi.saturating_sub(lo)))
    }
}

/// Transitions between consecutive rounds, optionally limited to the rounds
/// from `from` to `to` (inclusive, in round order).
pub fn transitions(
    cases: &[ErrorCase],
    rounds: &[Round],
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Vec<Transition>, FigureError> {
    transitions_in(&CaseTable::new(cases, rounds), from, to)
}

/// [`transitions`] over a [`CaseTable`].
pub fn transitions_in(
    t: &CaseTable,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Vec<Transition>, FigureError> {
    let grid = &t.grid;
    let (lo, pairs) = grid.pair_range(from, to)?;
    // counts[p] = [persistent, new_fail, new_fix] for the pair (lo+p, lo+p+1).
    let mut counts = vec![[0u64; 3]; pairs];
    for row in grid.rows() {
        for (p, slot) in counts.iter_mut().enumerate() {
            match (row[lo + p], row[lo + p + 1]) {
                (FAIL, FAIL) => slot[0] += 1,
                (PASS, FAIL) => slot[1] += 1,
                (FAIL, PASS) => slot[2] += 1,
                _ => {}
            }
        }
    }
    Ok(counts
        .iter()
        .enumerate()
        .map(|(p, c)| Transition {
            from: grid.order[lo + p].clone(),
            to: grid.order[lo + p + 1].clone(),
            persistent: c[0],
            new_fail: c[1],
            new_fix: c[2],
        })
        .collect())
}

/// Cases that failed in two or more distinct rounds, among failing cases.
pub fn recurrence(cases: &[ErrorCase]) -> Recurrence {
    recurrence_in(&CaseTable::new(cases, &[]))
}

/// [`recurrence`] over a [`CaseTable`]: a case's failed rounds are the fail cells of its row.
pub fn recurrence_in(t: &CaseTable) -> Recurrence {
    let mut failing = 0u64;
    let mut recurring = 0u64;
    for row in t.grid.rows() {
        let fails = row.iter().filter(|&&s| s == FAIL).count();
        failing += u64::from(fails >= 1);
        recurring += u64::from(fails >= 2);
    }
    Recurrence {
        failing_cases: failing,
        recurring_cases: recurring,
        rate: rate4(recurring, failing),
    }
}

/// Recurrence after the first fix of each case (see the module docs).
pub fn recurrence_after_fix(cases: &[ErrorCase], rounds: &[Round]) -> AfterFix {
    recurrence_after_fix_in(&CaseTable::new(cases, rounds))
}

/// [`recurrence_after_fix`] over a [`CaseTable`].
pub fn recurrence_after_fix_in(t: &CaseTable) -> AfterFix {
    let grid = &t.grid;
    let (mut fixed, mut recurred, mut unexercised) = (0u64, 0u64, 0u64);
    for row in grid.rows() {
        let Some(k) = (1..row.len()).find(|&k| row[k - 1] == FAIL && row[k] == PASS) else {
            continue;
        };
        let after = &row[k + 1..];
        if after.iter().all(|&s| s == NOT_EVALUATED) {
            unexercised += 1;
            continue;
        }
        fixed += 1;
        if after.contains(&FAIL) {
            recurred += 1;
        }
    }
    AfterFix { fixed, recurred, unexercised, rate: rate4(recurred, fixed) }
}

/// Fails and fixes of one round, for the recurrence chart and its CSV.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundBreakdown {
    pub round: String,
    /// Cases failing at this round: persistent + new_fail + first_seen.
    pub fails: u64,
    /// Failed here and at the round before.
    pub persistent: u64,
    /// Failed here, passed at the round before.
    pub new_fail: u64,
    /// Failed here and not evaluated at the round before (every fail of the
    /// first round).
    pub first_seen: u64,
    /// Passed here, failed at the round before.
    pub new_fix: u64,
    /// The round's intervention type, if it has one.
    pub intervention: Option<String>,
    /// The patterns its intervention targeted (the knowledge injected).
    pub injected: Vec<String>,
}

/// Per round, in round order: the fails split by what the case did at the
/// round before, and the fixes. Sums match [`transitions`] pair by pair.
pub fn round_breakdown(cases: &[ErrorCase], rounds: &[Round]) -> Vec<RoundBreakdown> {
    round_breakdown_in(&CaseTable::new(cases, rounds))
}

/// [`round_breakdown`] over a [`CaseTable`].
pub fn round_breakdown_in(t: &CaseTable) -> Vec<RoundBreakdown> {
    let grid = &t.grid;
    let rounds = &t.rounds;
    let mut counts = vec![[0u64; 4]; grid.width];
    for row in grid.rows() {
        for (i, slot) in counts.iter_mut().enumerate() {
            let before = if i == 0 { NOT_EVALUATED } else { row[i - 1] };
            match (before, row[i]) {
                (FAIL, FAIL) => slot[0] += 1,
                (PASS, FAIL) => slot[1] += 1,
                (NOT_EVALUATED, FAIL) => slot[2] += 1,
                (FAIL, PASS) => slot[3] += 1,
                _ => {}
            }
        }
    }
    let interventions: HashMap<&str, &crate::model::Intervention> = rounds
        .iter()
        .rev() // so the first line of a repeated round wins
        .filter_map(|r| r.intervention.as_ref().map(|iv| (r.round.as_str(), iv)))
        .collect();
    grid.order
        .iter()
        .zip(counts)
        .map(|(name, c)| {
            let iv = interventions.get(name.as_str());
            RoundBreakdown {
                round: name.clone(),
                fails: c[0] + c[1] + c[2],
                persistent: c[0],
                new_fail: c[1],
                first_seen: c[2],
                new_fix: c[3],
                intervention: iv.and_then(|iv| iv.kind.clone()),
                injected: iv.map(|iv| iv.patterns.clone()).unwrap_or_default(),
            }
        })
        .collect()
}

/// Each targeted pattern with the first round whose intervention names it.
pub fn injection_points(rounds: &[Round]) -> BTreeMap<String, String> {
    let mut points = BTreeMap::new();
    for r in rounds {
        if let Some(iv) = &r.intervention {
            for p in &iv.patterns {
                points.entry(p.clone()).or_insert_with(|| r.round.clone());
            }
        }
    }
    points
}

/// `(cases, recurred)` over `members` from round index `k` on.
pub(crate) fn count_from_round(grid: &Grid, members: &[usize], k: usize) -> (u64, u64) {
    let (mut exposed, mut recurred) = (0u64, 0u64);
    for &c in members {
        let tail = &grid.row(c)[k..];
        if tail.iter().any(|&s| s != NOT_EVALUATED) {
            exposed += 1;
            if tail.contains(&FAIL) {
                recurred += 1;
            }
        }
    }
    (exposed, recurred)
}

/// The case indices of each pattern.
pub(crate) fn cases_by_pattern(t: &CaseTable) -> BTreeMap<&str, Vec<usize>> {
    // By dictionary number first: an array index per case instead of a string comparison.
    let mut by_id: Vec<Vec<usize>> = vec![Vec::new(); t.words()];
    for c in 0..t.len() {
        if let Some(list) = t.pattern_id(c).and_then(|p| by_id.get_mut(p as usize)) {
            list.push(c);
        }
    }
    by_id
        .into_iter()
        .enumerate()
        .filter(|(_, cases)| !cases.is_empty())
        .filter_map(|(i, cases)| t.word_text(u32::try_from(i).ok()?).map(|w| (w, cases)))
        .collect()
}

/// Recurrence after each pattern's first injection, sorted by pattern.
pub fn recurrence_after_injection(cases: &[ErrorCase], rounds: &[Round]) -> Vec<AfterInjection> {
    recurrence_after_injection_in(&CaseTable::new(cases, rounds))
}

/// [`recurrence_after_injection`] over a [`CaseTable`].
pub fn recurrence_after_injection_in(t: &CaseTable) -> Vec<AfterInjection> {
    let grid = &t.grid;
    let by_pattern = cases_by_pattern(t);
    injection_points(&t.rounds)
        .into_iter()
        .map(|(pattern, round)| {
            // Log rounds are always in the order, so the lookup cannot miss;
            // fall back to "nothing exposed" rather than panic.
            let k = grid.position(&round).unwrap_or(grid.width);
            let members = by_pattern.get(pattern.as_str()).map_or(&[][..], Vec::as_slice);
            let (n, r) = count_from_round(grid, members, k);
            AfterInjection { pattern, injected_at: round, cases: n, recurred: r, rate: rate4(r, n) }
        })
        .collect()
}

/// The error class a knowledge-base entry is linked to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ErrorClass {
    /// A registry `pattern` (model-iteration loop).
    Pattern(String),
    /// A timeline fail event's class: its `verdict`, else its `reason`.
    Verdict(String),
}

impl ErrorClass {
    fn kind(&self) -> &'static str {
        match self {
            ErrorClass::Pattern(_) => "pattern",
            ErrorClass::Verdict(_) => "verdict",
        }
    }

    fn name(&self) -> &str {
        match self {
            ErrorClass::Pattern(s) | ErrorClass::Verdict(s) => s,
        }
    }
}

/// One row of the explicit entry ↔ error class mapping.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EntryLink {
    pub entry_id: String,
    pub class: ErrorClass,
}

/// When an entry's knowledge became available.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum InjectionPoint {
    /// The round whose training data carried it (pattern links).
    Round(String),
    /// Its merge time, a UTC timestamp (verdict links); applies to all tasks.
    MergedAt(String),
    /// Its first hit per task, task id → UTC timestamp (verdict links). A task
    /// without a hit never saw the entry and is left out.
    FirstHit(BTreeMap<String, String>),
}

/// One row of the after-entry figure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntryRecurrence {
    pub entry_id: String,
    /// `pattern` or `verdict`.
    pub class_kind: String,
    pub class: String,
    /// The round, the merge timestamp, or `first_hit`.
    pub injected_at: String,
    /// Cases (pattern links) or tasks (verdict links) exercised after injection.
    pub cases: u64,
    pub recurred: u64,
    pub rate: Option<f64>,
}

/// Recurrence after knowledge-base entries were injected: the after-injection
/// figure, generalised to entries through an explicit mapping.
///
/// For each link (entry, class), with the entry's injection point from
/// `points`:
/// - **pattern + `Round(k)`**: exactly the after-injection figure for that
///   pattern with k given: of the pattern's registry cases evaluated at any
///   round ≥ k, those that failed at a round ≥ k.
/// - **verdict + `MergedAt(t)`**: over timelines, a task is exercised if it
///   has an event at or after t; it recurred if it has a fail event of that
///   class (verdict, else reason) at or after t.
/// - **verdict + `FirstHit`**: the same, with t = the entry's first hit in
///   that task; tasks with no hit are left out.
///
/// Events whose `ts` cannot be parsed cannot be placed in time and are
/// ignored. An entry without a point, an unparseable point, or a point of the
/// wrong kind for the class is an error. Rows are sorted by entry, then class.
pub fn recurrence_after_entries(
    links: &[EntryLink],
    points: &BTreeMap<String, InjectionPoint>,
    cases: &[ErrorCase],
    rounds: &[Round],
    tasks: &[(String, Vec<TimelineEvent>)],
) -> Result<Vec<EntryRecurrence>, FigureError> {
    let needs_grid = links.iter().any(|l| matches!(l.class, ErrorClass::Pattern(_)));
    // Verdict-only mappings need no registry grid; skip building it.
    let table =
        if needs_grid { CaseTable::new(cases, rounds) } else { CaseTable::new(&[], rounds) };
    recurrence_after_entries_in(links, points, &table, tasks)
}

/// [`recurrence_after_entries`] over a [`CaseTable`].
pub fn recurrence_after_entries_in(
    links: &[EntryLink],
    points: &BTreeMap<String, InjectionPoint>,
    t: &CaseTable,
    tasks: &[(String, Vec<TimelineEvent>)],
) -> Result<Vec<EntryRecurrence>, FigureError> {
    let mut sorted: Vec<&EntryLink> = links.iter().collect();
    sorted.sort();
    sorted.dedup();
    let grid = &t.grid;
    let by_pattern = cases_by_pattern(t);
    // Per task: (ts, fail class if a fail event) for events with a parseable ts.
    let timed: BTreeMap<&str, Vec<(f64, Option<&str>)>> = tasks
        .iter()
        .map(|(id, events)| {
            let list = events
                .iter()
                .filter_map(|e| {
                    let t = parse_utc_seconds(e.ts.as_deref()?)?;
                    let class = if e.is_action("fail") { e.failure_class() } else { None };
                    Some((t, class))
                })
                .collect();
            (id.as_str(), list)
        })
        .collect();
    let task_counts = |since: &dyn Fn(&str) -> Option<f64>, class: &str| {
        let (mut exposed, mut recurred) = (0u64, 0u64);
        for (id, list) in &timed {
            let Some(t0) = since(id) else { continue };
            let after = list.iter().filter(|(t, _)| *t >= t0);
            let mut any = false;
            let mut hit = false;
            for (_, c) in after {
                any = true;
                hit |= *c == Some(class);
            }
            if any {
                exposed += 1;
                recurred += u64::from(hit);
            }
        }
        (exposed, recurred)
    };
    let mut out = Vec::with_capacity(sorted.len());
    for link in sorted {
        let entry = &link.entry_id;
        let point =
            points.get(entry).ok_or_else(|| FigureError::MissingInjectionPoint(entry.clone()))?;
        let incompatible = |point: &'static str| FigureError::IncompatibleInjection {
            entry: entry.clone(),
            class_kind: link.class.kind(),
            class: link.class.name().to_owned(),
            point,
        };
        let bad_ts =
            |ts: &str| FigureError::InvalidTimestamp { entry: entry.clone(), ts: ts.to_owned() };
        let (injected_at, (n, r)) = match (&link.class, point) {
            (ErrorClass::Pattern(p), InjectionPoint::Round(k)) => {
                let k_idx = grid.position(k)?;
                let members = by_pattern.get(p.as_str()).map_or(&[][..], Vec::as_slice);
                (k.clone(), count_from_round(grid, members, k_idx))
            }
            (ErrorClass::Pattern(_), InjectionPoint::MergedAt(_)) => {
                return Err(incompatible("a merge timestamp"))
            }
            (ErrorClass::Pattern(_), InjectionPoint::FirstHit(_)) => {
                return Err(incompatible("a first-hit timestamp"))
            }
            (ErrorClass::Verdict(_), InjectionPoint::Round(_)) => {
                return Err(incompatible("a round"))
            }
            (ErrorClass::Verdict(v), InjectionPoint::MergedAt(ts)) => {
                let t0 = parse_utc_seconds(ts).ok_or_else(|| bad_ts(ts))?;
                (ts.clone(), task_counts(&|_| Some(t0), v))
            }
            (ErrorClass::Verdict(v), InjectionPoint::FirstHit(hits)) => {
                let mut parsed: BTreeMap<&str, f64> = BTreeMap::new();
                for (task, ts) in hits {
                    parsed.insert(task, parse_utc_seconds(ts).ok_or_else(|| bad_ts(ts))?);
                }
                ("first_hit".to_owned(), task_counts(&|id| parsed.get(id).copied(), v))
            }
        };
        out.push(EntryRecurrence {
            entry_id: entry.clone(),
            class_kind: link.class.kind().to_owned(),
            class: link.class.name().to_owned(),
            injected_at,
            cases: n,
            recurred: r,
            rate: rate4(r, n),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Intervention, KeySource};

    fn case(hash: &str, pattern: &str, evaluated: &[&str], failed: &[&str]) -> ErrorCase {
        ErrorCase {
            case_hash: hash.into(),
            key_source: KeySource::CaseHashField,
            key_algo_version: 0,
            query: None,
            gold: None,
            subset: None,
            pattern: Some(pattern.into()),
            evaluated: evaluated.iter().map(|s| s.to_string()).collect(),
            failed_rounds: failed.iter().map(|s| s.to_string()).collect(),
            raw: String::new(),
        }
    }

    fn round(name: &str, patterns: &[&str]) -> Round {
        Round {
            round: name.into(),
            run_dic: None,
            hypothesis: None,
            verdict: None,
            intervention: (!patterns.is_empty()).then(|| Intervention {
                kind: Some("augment".into()),
                patterns: patterns.iter().map(|s| s.to_string()).collect(),
            }),
            raw: String::new(),
        }
    }

    #[test]
    fn round_order_merges_unlogged_rounds_numerically() {
        let cases = [case("a", "p", &["R0", "R2", "R10", "extra"], &["R3"])];
        let rounds = [round("R1", &[]), round("R2", &[]), round("R5", &[])];
        assert_eq!(round_order(&cases, &rounds), ["R0", "R1", "R2", "R3", "R5", "R10", "extra"]);
        assert_eq!(round_order(&cases, &[]), ["R0", "R2", "R3", "R10", "extra"]);
    }

    #[test]
    fn transitions_skip_cases_missing_a_round_and_honour_range() {
        let cases = [
            case("a", "p", &["R0", "R1", "R2"], &["R0", "R1"]),
            case("b", "p", &["R1", "R2"], &["R2"]),
            case("c", "p", &["R0", "R2"], &["R0"]),
        ];
        let rounds = [round("R0", &[]), round("R1", &[]), round("R2", &[])];
        let all = transitions(&cases, &rounds, None, None).unwrap_or_default();
        assert_eq!(all.len(), 2);
        assert_eq!((all[0].persistent, all[0].new_fail, all[0].new_fix), (1, 0, 0));
        assert_eq!((all[1].persistent, all[1].new_fail, all[1].new_fix), (0, 1, 1));
        let one = transitions(&cases, &rounds, Some("R1"), None).unwrap_or_default();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].from, "R1");
        assert_eq!(
            transitions(&cases, &rounds, Some("R9"), None),
            Err(FigureError::UnknownRound("R9".into()))
        );
        let err = transitions(&cases, &rounds, Some("R2"), Some("R0"));
        assert_eq!(err.map_err(|e| e.to_string()), Err("round 'R2' comes after round 'R0'".into()));
        assert!(transitions(&[], &[], None, None).is_ok_and(|t| t.is_empty()));
    }

    #[test]
    fn after_fix_counts_unexercised_apart() {
        let cases = [
            case("a", "p", &["R0", "R1", "R2"], &["R0", "R2"]), // fixed R1, recurs R2
            case("b", "p", &["R0", "R1"], &["R0"]),             // fixed R1, unexercised
            case("c", "p", &["R0", "R1", "R2"], &["R0"]),       // fixed R1, holds
            case("d", "p", &["R0", "R2"], &["R0"]),             // gap: never "fixed"
        ];
        let rounds = [round("R0", &[]), round("R1", &[]), round("R2", &[])];
        let f = recurrence_after_fix(&cases, &rounds);
        assert_eq!((f.fixed, f.recurred, f.unexercised, f.rate), (2, 1, 1, Some(0.5)));
        let empty = recurrence_after_fix(&[], &[]);
        assert_eq!(empty.rate, None);
    }

    fn ev(task: &str, ts: &str, action: &str, verdict: Option<&str>) -> TimelineEvent {
        TimelineEvent {
            task_id: task.into(),
            line: 1,
            ts: Some(ts.into()),
            action: Some(action.into()),
            stage: Some(3),
            subagent: None,
            mode: None,
            verdict: verdict.map(String::from),
            reason: None,
            duration_s: None,
            phase_before: None,
            phase_after: None,
            raw: String::new(),
        }
    }

    #[test]
    fn entries_generalise_after_injection() {
        let cases = [
            case("a", "p", &["R0", "R1", "R2"], &["R0", "R2"]),
            case("b", "p", &["R0", "R1", "R2"], &["R0"]),
            case("c", "q", &["R0"], &["R0"]),
        ];
        let rounds = [round("R0", &[]), round("R1", &["p"]), round("R2", &[])];
        let tasks = vec![
            (
                "t1".to_string(),
                vec![
                    ev("t1", "2026-09-01T00:00:00Z", "start", None),
                    ev("t1", "2026-09-01T01:00:00Z", "fail", Some("precision")),
                ],
            ),
            (
                "t2".to_string(),
                vec![
                    ev("t2", "2026-09-03T00:00:00Z", "start", None),
                    ev("t2", "2026-09-03T01:00:00Z", "fail", Some("precision")),
                ],
            ),
            (
                "t3".to_string(),
                vec![
                    ev("t3", "2026-09-04T00:00:00Z", "start", None),
                    ev("t3", "2026-09-04T01:00:00Z", "complete", Some("pass")),
                ],
            ),
        ];
        let links = vec![
            EntryLink { entry_id: "TRAP-b".into(), class: ErrorClass::Verdict("precision".into()) },
            EntryLink { entry_id: "TRAP-a".into(), class: ErrorClass::Pattern("p".into()) },
            EntryLink { entry_id: "TRAP-c".into(), class: ErrorClass::Verdict("precision".into()) },
        ];
        let mut points = BTreeMap::new();
        points.insert("TRAP-a".to_string(), InjectionPoint::Round("R1".into()));
        points
            .insert("TRAP-b".to_string(), InjectionPoint::MergedAt("2026-09-02T00:00:00Z".into()));
        let mut hits = BTreeMap::new();
        hits.insert("t1".to_string(), "2026-09-01T00:30:00Z".to_string());
        hits.insert("t3".to_string(), "2026-09-04T00:00:00Z".to_string());
        points.insert("TRAP-c".to_string(), InjectionPoint::FirstHit(hits));
        let rows =
            recurrence_after_entries(&links, &points, &cases, &rounds, &tasks).unwrap_or_default();
        let got: Vec<(&str, u64, u64, Option<f64>)> =
            rows.iter().map(|r| (r.entry_id.as_str(), r.cases, r.recurred, r.rate)).collect();
        // a: same as after_injection for p from R1: 2 cases, a fails at R2.
        // b: t2 and t3 run after the merge; t2 fails with precision.
        // c: t1 fails after its hit; t3 passes; t2 never hit the entry.
        assert_eq!(
            got,
            [("TRAP-a", 2, 1, Some(0.5)), ("TRAP-b", 2, 1, Some(0.5)), ("TRAP-c", 2, 1, Some(0.5))]
        );
        let inj = recurrence_after_injection(&cases, &rounds);
        assert_eq!((inj[0].cases, inj[0].recurred), (rows[0].cases, rows[0].recurred));

        points
            .insert("TRAP-a".to_string(), InjectionPoint::MergedAt("2026-09-02T00:00:00Z".into()));
        let err = recurrence_after_entries(&links, &points, &cases, &rounds, &tasks);
        assert!(matches!(err, Err(FigureError::IncompatibleInjection { .. })));
        points.remove("TRAP-a");
        let err = recurrence_after_entries(&links, &points, &cases, &rounds, &tasks);
        assert_eq!(err, Err(FigureError::MissingInjectionPoint("TRAP-a".into())));
    }
}
