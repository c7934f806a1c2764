//! The cases behind the transition counts, and every registry figure broken down by `subset`
//! or by root-cause `pattern`.
//!
//! - [`transition_cases`] lists, for each pair of consecutive rounds, the cases counted in
//!   `persistent`, `new_fail` and `new_fix` (same definitions as
//!   [`crate::figures::transitions`]), so a round's analysis can name them.
//! - [`transitions_by`], [`recurrence_by`], [`after_fix_by`] and [`after_injection_by`] compute
//!   the figures of [`crate::figures`] over the cases of each group. Every case is in exactly one
//!   group (a case without the field is in the group `None`), so for each figure the groups' counts
//!   add up to the ungrouped counts.
//!
//! Groups are sorted by name, with `None` last. Case lists are sorted by pair, then class
//! (`persistent`, `new_fail`, `new_fix`), then case key.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::figures::{
    cases_by_pattern, injection_points, AfterFix, AfterInjection, FigureError, Recurrence,
    Transition, FAIL, NOT_EVALUATED, PASS,
};
use crate::model::{ErrorCase, Round};
use crate::table::CaseTable;
use crate::util::rate4;

/// What a breakdown groups cases by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupBy {
    /// The case's `subset` (requirement set, the broad in-car set, a specific test, …).
    Subset,
    /// The case's root-cause `pattern`.
    Pattern,
}

impl GroupBy {
    /// The field name, used as the group column's name in output.
    pub fn field(self) -> &'static str {
        match self {
            GroupBy::Subset => "subset",
            GroupBy::Pattern => "pattern",
        }
    }

    /// Case `c`'s value of the field.
    pub fn of(self, t: &CaseTable, c: usize) -> Option<&str> {
        match self {
            GroupBy::Subset => t.subset(c),
            GroupBy::Pattern => t.pattern(c),
        }
    }
}

/// The three transition classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransitionClass {
    /// fail → fail.
    Persistent,
    /// pass → fail.
    NewFail,
    /// fail → pass.
    NewFix,
}

impl TransitionClass {
    /// All three, in output order.
    pub const ALL: [TransitionClass; 3] =
        [TransitionClass::Persistent, TransitionClass::NewFail, TransitionClass::NewFix];

    /// The name used in output (`persistent`, `new_fail`, `new_fix`).
    pub fn name(self) -> &'static str {
        match self {
            TransitionClass::Persistent => "persistent",
            TransitionClass::NewFail => "new_fail",
            TransitionClass::NewFix => "new_fix",
        }
    }

    /// The class of a (before, after) status pair, if it is one.
    pub(crate) fn of(before: u8, after: u8) -> Option<TransitionClass> {
        match (before, after) {
            (FAIL, FAIL) => Some(TransitionClass::Persistent),
            (PASS, FAIL) => Some(TransitionClass::NewFail),
            (FAIL, PASS) => Some(TransitionClass::NewFix),
            _ => None,
        }
    }
}

/// One case counted in a transition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TransitionCase {
    pub from: String,
    pub to: String,
    pub class: TransitionClass,
    pub case_hash: String,
    pub query: Option<String>,
    pub gold: Option<String>,
    pub subset: Option<String>,
    pub pattern: Option<String>,
}

impl TransitionCase {
    fn new(
        from: &str,
        to: &str,
        class: TransitionClass,
        t: &CaseTable,
        c: usize,
    ) -> TransitionCase {
        TransitionCase {
            from: from.to_owned(),
            to: to.to_owned(),
            class,
            case_hash: t.case_hash(c).to_owned(),
            query: t.query(c).map(String::from),
            gold: t.gold(c).map(String::from),
            subset: t.subset(c).map(String::from),
            pattern: t.pattern(c).map(String::from),
        }
    }
}

/// The cases of each transition between consecutive rounds in `from..=to`, optionally only
/// those of one class.
pub fn transition_cases(
    cases: &[ErrorCase],
    rounds: &[Round],
    from: Option<&str>,
    to: Option<&str>,
    only: Option<TransitionClass>,
) -> Result<Vec<TransitionCase>, FigureError> {
    transition_cases_in(&CaseTable::new(cases, rounds), from, to, only)
}

/// [`transition_cases`] over a [`CaseTable`].
pub fn transition_cases_in(
    t: &CaseTable,
    from: Option<&str>,
    to: Option<&str>,
    only: Option<TransitionClass>,
) -> Result<Vec<TransitionCase>, FigureError> {
    let grid = &t.grid;
    let (lo, pairs) = grid.pair_range(from, to)?;
    // (pair, class, case index), sorted afterwards.
    let mut hits: Vec<(usize, TransitionClass, usize)> = Vec::new();
    for (c, row) in grid.rows().enumerate() {
        for p in 0..pairs {
            if let Some(class) = TransitionClass::of(row[lo + p], row[lo + p + 1]) {
                if only.is_none_or(|o| o == class) {
                    hits.push((p, class, c));
                }
            }
        }
    }
    hits.sort_by(|a, b| {
        (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| t.case_hash(a.2).cmp(t.case_hash(b.2)))
    });
    Ok(hits
        .into_iter()
        .map(|(p, class, c)| {
            TransitionCase::new(&grid.order[lo + p], &grid.order[lo + p + 1], class, t, c)
        })
        .collect())
}

/// The groups of the cases: sorted group names (`None` last) and each case's group index.
/// Cases never evaluated are in no figure; they make no group of their own. Groups are found
/// by dictionary number, so a million cases cost a million array lookups, not string
/// comparisons.
fn groups(t: &CaseTable, by: GroupBy) -> (Vec<Option<String>>, Vec<usize>) {
    let words = t.words();
    // Slot `words` stands for "no value".
    let slot_of = |c: usize| {
        let id = match by {
            GroupBy::Subset => t.subset_id(c),
            GroupBy::Pattern => t.pattern_id(c),
        };
        id.map_or(words, |i| i as usize)
    };
    let mut present = vec![false; words + 1];
    for c in 0..t.len() {
        if t.row(c).iter().any(|&s| s != NOT_EVALUATED) {
            present[slot_of(c)] = true;
        }
    }
    let mut named: Vec<(&str, usize)> = (0..words)
        .filter(|&i| present[i])
        .map(|i| (t.word_text(u32::try_from(i).unwrap_or(u32::MAX)).unwrap_or_default(), i))
        .collect();
    named.sort_unstable();
    let mut group = vec![usize::MAX; words + 1];
    let mut list = Vec::with_capacity(named.len() + 1);
    for (name, i) in named {
        group[i] = list.len();
        list.push(Some(name.to_owned()));
    }
    if present[words] {
        group[words] = list.len();
        list.push(None);
    }
    let index = (0..t.len()).map(|c| group[slot_of(c)]).collect();
    (list, index)
}

/// A figure of one group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grouped<T> {
    /// The group's `subset` or `pattern`; `None` for cases without one.
    pub group: Option<String>,
    pub figure: T,
}

/// [`crate::figures::transitions`] per group: for each group, one row per pair of rounds.
/// Groups without any case evaluated in a pair still get a row of zeros, so every group has
/// the same pairs.
pub fn transitions_by(
    cases: &[ErrorCase],
    rounds: &[Round],
    from: Option<&str>,
    to: Option<&str>,
    by: GroupBy,
) -> Result<Vec<Grouped<Transition>>, FigureError> {
    transitions_by_in(&CaseTable::new(cases, rounds), from, to, by)
}

/// [`transitions_by`] over a [`CaseTable`].
pub fn transitions_by_in(
    t: &CaseTable,
    from: Option<&str>,
    to: Option<&str>,
    by: GroupBy,
) -> Result<Vec<Grouped<Transition>>, FigureError> {
    let grid = &t.grid;
    let (lo, pairs) = grid.pair_range(from, to)?;
    let (names, index) = groups(t, by);
    let mut counts = vec![[0u64; 3]; names.len() * pairs];
    for (c, row) in grid.rows().enumerate() {
        if index[c] == usize::MAX {
            continue;
        }
        let base = index[c] * pairs;
        for p in 0..pairs {
            if let Some(class) = TransitionClass::of(row[lo + p], row[lo + p + 1]) {
                counts[base + p][class as usize] += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(counts.len());
    for (g, name) in names.iter().enumerate() {
        for p in 0..pairs {
            let c = counts[g * pairs + p];
            out.push(Grouped {
                group: name.clone(),
                figure: Transition {
                    from: grid.order[lo + p].clone(),
                    to: grid.order[lo + p + 1].clone(),
                    persistent: c[0],
                    new_fail: c[1],
                    new_fix: c[2],
                },
            });
        }
    }
    Ok(out)
}

/// [`crate::figures::recurrence`] per group.
pub fn recurrence_by(cases: &[ErrorCase], by: GroupBy) -> Vec<Grouped<Recurrence>> {
    recurrence_by_in(&CaseTable::new(cases, &[]), by)
}

/// [`recurrence_by`] over a [`CaseTable`].
pub fn recurrence_by_in(t: &CaseTable, by: GroupBy) -> Vec<Grouped<Recurrence>> {
    let (names, index) = groups(t, by);
    let mut counts = vec![(0u64, 0u64); names.len()];
    for (c, row) in t.grid.rows().enumerate() {
        let Some(slot) = counts.get_mut(index[c]) else { continue };
        let fails = row.iter().filter(|&&s| s == FAIL).count();
        slot.0 += u64::from(fails >= 1);
        slot.1 += u64::from(fails >= 2);
    }
    names
        .into_iter()
        .zip(counts)
        .map(|(group, (failing, recurring))| Grouped {
            group,
            figure: Recurrence {
                failing_cases: failing,
                recurring_cases: recurring,
                rate: rate4(recurring, failing),
            },
        })
        .collect()
}

/// [`crate::figures::recurrence_after_fix`] per group.
pub fn after_fix_by(cases: &[ErrorCase], rounds: &[Round], by: GroupBy) -> Vec<Grouped<AfterFix>> {
    after_fix_by_in(&CaseTable::new(cases, rounds), by)
}

/// [`after_fix_by`] over a [`CaseTable`].
pub fn after_fix_by_in(t: &CaseTable, by: GroupBy) -> Vec<Grouped<AfterFix>> {
    let grid = &t.grid;
    let (names, index) = groups(t, by);
    // (fixed, recurred, unexercised)
    let mut counts = vec![(0u64, 0u64, 0u64); names.len()];
    for (c, row) in grid.rows().enumerate() {
        let Some(k) = (1..row.len()).find(|&k| row[k - 1] == FAIL && row[k] == PASS) else {
            continue;
        };
        let Some(slot) = counts.get_mut(index[c]) else { continue };
        let after = &row[k + 1..];
        if after.iter().all(|&s| s == NOT_EVALUATED) {
            slot.2 += 1;
            continue;
        }
        slot.0 += 1;
        slot.1 += u64::from(after.contains(&FAIL));
    }
    names
        .into_iter()
        .zip(counts)
        .map(|(group, (fixed, recurred, unexercised))| Grouped {
            group,
            figure: AfterFix { fixed, recurred, unexercised, rate: rate4(recurred, fixed) },
        })
        .collect()
}

/// [`crate::figures::recurrence_after_injection`] per group: for each targeted pattern (sorted),
/// one row per group among that pattern's cases. By `pattern` this is one row per targeted
/// pattern, equal to the ungrouped figure; by `subset` the rows of a pattern add up to it.
pub fn after_injection_by(
    cases: &[ErrorCase],
    rounds: &[Round],
    by: GroupBy,
) -> Vec<Grouped<AfterInjection>> {
    after_injection_by_in(&CaseTable::new(cases, rounds), by)
}

/// [`after_injection_by`] over a [`CaseTable`].
pub fn after_injection_by_in(t: &CaseTable, by: GroupBy) -> Vec<Grouped<AfterInjection>> {
    let grid = &t.grid;
    let (names, index) = groups(t, by);
    let members = cases_by_pattern(t);
    let mut out = Vec::new();
    for (pattern, round) in injection_points(&t.rounds) {
        let k = grid.position(&round).unwrap_or(grid.width);
        // group index → (cases, recurred); only groups that hold some of the pattern's cases.
        let mut per: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
        for &c in members.get(pattern.as_str()).map_or(&[][..], Vec::as_slice) {
            if index[c] == usize::MAX {
                continue;
            }
            let slot = per.entry(index[c]).or_insert((0, 0));
            let tail = grid.row(c).get(k..).unwrap_or(&[]);
            if tail.iter().any(|&s| s != NOT_EVALUATED) {
                slot.0 += 1;
                slot.1 += u64::from(tail.contains(&FAIL));
            }
        }
        if per.is_empty() {
            // A targeted pattern without cases still gets its (empty) row, as ungrouped.
            let group = match by {
                GroupBy::Pattern => Some(pattern.clone()),
                GroupBy::Subset => None,
            };
            out.push(Grouped {
                group,
                figure: AfterInjection {
                    pattern: pattern.clone(),
                    injected_at: round.clone(),
                    cases: 0,
                    recurred: 0,
                    rate: None,
                },
            });
            continue;
        }
        for (g, (n, r)) in per {
            out.push(Grouped {
                group: names.get(g).cloned().flatten(),
                figure: AfterInjection {
                    pattern: pattern.clone(),
                    injected_at: round.clone(),
                    cases: n,
                    recurred: r,
                    rate: rate4(r, n),
                },
            });
        }
    }
    out
}
