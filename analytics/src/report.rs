//! The round report of a model-iteration loop: what one round changed against the round before,
//! as markdown to paste into the round's analysis file, or as JSON.
//!
//! For round R and the round P before it (round order of [`crate::figures::round_order`]):
//! - **delta by subset**: `persistent`, `new_fail` and `new_fix` from P to R over the cases of
//!   each subset, and their total (which equals the `P → R` row of `stats transitions`);
//! - **new_fail and new_fix cases**, grouped by pattern;
//! - **recurrence and recurrence after fix by pattern**, and the **patterns R's intervention
//!   targeted** with their after-injection figures. These are computed *as of R*: over rounds up
//!   to and including R only, so a round's report does not change when later rounds are added.
//!
//! Subsets are laid out requirement set → the broad in-car set → specific test → the others:
//! names starting with `需求集合` (or containing `requirement`) first, then names containing
//! `大盘`, then names containing `specific`, then the rest by name, and cases without a subset
//! last. Patterns are sorted by name, cases by subset order and then case key. Nothing depends on
//! time or hash order, so the same store gives the same bytes.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;

use crate::breakdown::{
    after_fix_by_in, recurrence_by_in, transition_cases_in, GroupBy, TransitionClass,
};
use crate::figures::{recurrence_after_injection_in, FigureError};
use crate::model::{ErrorCase, Round};
use crate::table::CaseTable;
use crate::util::rate4;

/// The report of one round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundReport {
    pub round: String,
    pub previous: String,
    /// The rounds the as-of-R figures cover, in order (the first to R).
    pub rounds_covered: Vec<String>,
    pub run_dic: Option<i64>,
    pub hypothesis: Option<String>,
    pub verdict: Option<String>,
    /// The intervention's `type`.
    pub intervention: Option<String>,
    /// The patterns R's intervention targeted.
    pub targeted: Vec<String>,
    pub delta: Vec<SubsetDelta>,
    pub delta_total: Counts,
    pub new_fail: Vec<PatternCases>,
    pub new_fix: Vec<PatternCases>,
    pub by_pattern: Vec<PatternFigures>,
    pub after_injection: Vec<TargetedFigure>,
}

/// persistent / new_fail / new_fix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub persistent: u64,
    pub new_fail: u64,
    pub new_fix: u64,
}

/// One row of the delta table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubsetDelta {
    pub subset: Option<String>,
    pub persistent: u64,
    pub new_fail: u64,
    pub new_fix: u64,
}

/// The cases of one pattern in one class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatternCases {
    pub pattern: Option<String>,
    pub cases: Vec<ReportCase>,
}

/// One case in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReportCase {
    pub case_hash: String,
    pub subset: Option<String>,
    pub gold: Option<String>,
    pub query: Option<String>,
}

/// Recurrence and recurrence after fix of one pattern, as of R.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatternFigures {
    pub pattern: Option<String>,
    pub failing_cases: u64,
    pub recurring_cases: u64,
    pub rate: Option<f64>,
    pub fixed: u64,
    pub recurred_after_fix: u64,
    pub unexercised: u64,
    pub after_fix_rate: Option<f64>,
}

/// A pattern R's intervention targeted, with its after-injection figure as of R.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetedFigure {
    pub pattern: String,
    /// The first round that targeted it (R or earlier).
    pub injected_at: String,
    pub cases: u64,
    pub recurred: u64,
    pub rate: Option<f64>,
}

/// The layout rank of a subset name (see the module docs).
pub fn subset_rank(subset: Option<&str>) -> (u8, &str) {
    match subset {
        None => (4, ""),
        Some(s) if s.starts_with("需求集合") || s.to_lowercase().contains("requirement") => {
            (0, s)
        }
        Some(s) if s.contains("大盘") => (1, s),
        Some(s) if s.to_lowercase().contains("specific") => (2, s),
        Some(s) => (3, s),
    }
}

/// One class's cases by pattern, each with its subset's rank.
type CasesByPattern = BTreeMap<Option<String>, Vec<(u8, ReportCase)>>;

/// Builds the report of `round`.
pub fn round_report(
    cases: &[ErrorCase],
    rounds: &[Round],
    round: &str,
) -> Result<RoundReport, FigureError> {
    round_report_in(&CaseTable::new(cases, rounds), round)
}

/// [`round_report`] over a [`CaseTable`].
pub fn round_report_in(table: &CaseTable, round: &str) -> Result<RoundReport, FigureError> {
    let idx = table
        .order()
        .iter()
        .position(|r| r == round)
        .ok_or_else(|| FigureError::UnknownRound(round.to_owned()))?;
    if idx == 0 {
        return Err(FigureError::NoPreviousRound(round.to_owned()));
    }
    let previous = table.order()[idx - 1].clone();
    let covered: Vec<String> = table.order()[..=idx].to_vec();
    let t = table.truncated(idx + 1);
    let rounds = &t.rounds;

    let listed = transition_cases_in(&t, Some(&previous), Some(round), None)?;
    // A subset's rank lowercases its name: once per subset, not once per case or comparison.
    let mut ranks: HashMap<Option<&str>, u8> = HashMap::new();
    let mut delta: BTreeMap<(u8, &str, Option<&str>), Counts> = BTreeMap::new();
    let mut total = Counts::default();
    let mut by_class: BTreeMap<TransitionClass, CasesByPattern> = BTreeMap::new();
    for t in &listed {
        let subset = t.subset.as_deref();
        let rank = *ranks.entry(subset).or_insert_with(|| subset_rank(subset).0);
        let slot = delta.entry((rank, subset.unwrap_or_default(), subset)).or_default();
        for counts in [slot, &mut total] {
            match t.class {
                TransitionClass::Persistent => counts.persistent += 1,
                TransitionClass::NewFail => counts.new_fail += 1,
                TransitionClass::NewFix => counts.new_fix += 1,
            }
        }
        if t.class != TransitionClass::Persistent {
            by_class.entry(t.class).or_default().entry(t.pattern.clone()).or_default().push((
                rank,
                ReportCase {
                    case_hash: t.case_hash.clone(),
                    subset: t.subset.clone(),
                    gold: t.gold.clone(),
                    query: t.query.clone(),
                },
            ));
        }
    }
    let mut grouped = |class: TransitionClass| -> Vec<PatternCases> {
        let mut by_pattern = by_class.remove(&class).unwrap_or_default();
        // Patterns by name, cases without a pattern last.
        let none = by_pattern.remove(&None);
        by_pattern
            .into_iter()
            .chain(none.map(|c| (None, c)))
            .map(|(pattern, mut cases)| {
                // The order of subset_rank, then case key.
                cases.sort_by(|(ra, a), (rb, b)| {
                    (ra, a.subset.as_deref().unwrap_or_default(), &a.case_hash).cmp(&(
                        rb,
                        b.subset.as_deref().unwrap_or_default(),
                        &b.case_hash,
                    ))
                });
                PatternCases { pattern, cases: cases.into_iter().map(|(_, c)| c).collect() }
            })
            .collect()
    };
    let new_fail = grouped(TransitionClass::NewFail);
    let new_fix = grouped(TransitionClass::NewFix);

    let recurrence = recurrence_by_in(&t, GroupBy::Pattern);
    let fixes: BTreeMap<Option<String>, _> =
        after_fix_by_in(&t, GroupBy::Pattern).into_iter().map(|g| (g.group, g.figure)).collect();
    let by_pattern = recurrence
        .into_iter()
        .map(|g| {
            let f = fixes.get(&g.group);
            PatternFigures {
                pattern: g.group.clone(),
                failing_cases: g.figure.failing_cases,
                recurring_cases: g.figure.recurring_cases,
                rate: g.figure.rate,
                fixed: f.map_or(0, |f| f.fixed),
                recurred_after_fix: f.map_or(0, |f| f.recurred),
                unexercised: f.map_or(0, |f| f.unexercised),
                after_fix_rate: f.and_then(|f| f.rate),
            }
        })
        .collect();

    let this = rounds.iter().find(|r| r.round == round);
    let iv = this.and_then(|r| r.intervention.as_ref());
    let targeted: Vec<String> = iv.map(|iv| iv.patterns.clone()).unwrap_or_default();
    let injections = recurrence_after_injection_in(&t);
    let mut after_injection: Vec<TargetedFigure> = targeted
        .iter()
        .map(|p| {
            injections.iter().find(|a| &a.pattern == p).map_or_else(
                || TargetedFigure {
                    pattern: p.clone(),
                    injected_at: round.to_owned(),
                    cases: 0,
                    recurred: 0,
                    rate: rate4(0, 0),
                },
                |a| TargetedFigure {
                    pattern: a.pattern.clone(),
                    injected_at: a.injected_at.clone(),
                    cases: a.cases,
                    recurred: a.recurred,
                    rate: a.rate,
                },
            )
        })
        .collect();
    after_injection.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    after_injection.dedup_by(|a, b| a.pattern == b.pattern);

    Ok(RoundReport {
        round: round.to_owned(),
        previous,
        rounds_covered: covered,
        run_dic: this.and_then(|r| r.run_dic),
        hypothesis: this.and_then(|r| r.hypothesis.clone()),
        verdict: this.and_then(|r| r.verdict.clone()),
        intervention: iv.and_then(|iv| iv.kind.clone()),
        targeted,
        delta: delta
            .into_iter()
            .map(|((_, _, subset), c)| SubsetDelta {
                subset: subset.map(str::to_owned),
                persistent: c.persistent,
                new_fail: c.new_fail,
                new_fix: c.new_fix,
            })
            .collect(),
        delta_total: total,
        new_fail,
        new_fix,
        by_pattern,
        after_injection,
    })
}

/// Escapes a markdown table cell: `|` and line breaks would end the cell or the row.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|").replace(['\r', '\n'], " ")
}

fn opt(text: Option<&str>) -> String {
    text.map_or_else(|| "—".to_owned(), cell)
}

fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_owned(), |r| format!("{r:.4}"))
}

fn pattern_name(p: Option<&str>) -> String {
    p.map_or_else(|| "(no pattern)".to_owned(), |p| format!("`{}`", p.replace('`', "'")))
}

/// The report as markdown (ends with a newline).
pub fn round_report_markdown(r: &RoundReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Round {} vs {}\n", r.round, r.previous);
    let mut facts = Vec::new();
    if let Some(n) = r.run_dic {
        facts.push(format!("run {n}"));
    }
    if let Some(h) = &r.hypothesis {
        facts.push(format!("hypothesis {}", cell(h)));
    }
    if let Some(v) = &r.verdict {
        facts.push(format!("verdict {}", cell(v)));
    }
    if !facts.is_empty() {
        let _ = writeln!(out, "- {}", facts.join(" · "));
    }
    match &r.intervention {
        Some(kind) => {
            let pats: Vec<String> = r.targeted.iter().map(|p| pattern_name(Some(p))).collect();
            let _ = writeln!(
                out,
                "- intervention: {}{}",
                cell(kind),
                if pats.is_empty() {
                    String::new()
                } else {
                    format!(", targeting {}", pats.join(", "))
                }
            );
        }
        None => {
            let _ = writeln!(out, "- intervention: none");
        }
    }
    let _ = writeln!(out, "\n### Delta by subset ({} → {})\n", r.previous, r.round);
    let _ = writeln!(out, "| subset | persistent | new_fail | new_fix |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for d in &r.delta {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            opt(d.subset.as_deref()),
            d.persistent,
            d.new_fail,
            d.new_fix
        );
    }
    let t = r.delta_total;
    let _ = writeln!(out, "| **total** | {} | {} | {} |", t.persistent, t.new_fail, t.new_fix);
    for (title, groups, n) in
        [("new_fail", &r.new_fail, t.new_fail), ("new_fix", &r.new_fix, t.new_fix)]
    {
        let _ = writeln!(out, "\n### {title} ({n})\n");
        if groups.is_empty() {
            let _ = writeln!(out, "None.");
        }
        for g in groups {
            let _ =
                writeln!(out, "#### {} ({})\n", pattern_name(g.pattern.as_deref()), g.cases.len());
            let _ = writeln!(out, "| case_hash | subset | gold | query |");
            let _ = writeln!(out, "|---|---|---|---|");
            for c in &g.cases {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    c.case_hash.replace('`', "'"),
                    opt(c.subset.as_deref()),
                    opt(c.gold.as_deref()),
                    opt(c.query.as_deref())
                );
            }
            out.push('\n');
        }
        if out.ends_with("\n\n") {
            out.pop();
        }
    }
    let span = match (r.rounds_covered.first(), r.rounds_covered.last()) {
        (Some(a), Some(b)) => format!("{a}–{b}"),
        _ => String::new(),
    };
    let _ = writeln!(out, "\n### Recurrence by pattern (rounds {span})\n");
    let _ = writeln!(
        out,
        "| pattern | failing | recurring | rate | fixed | recurred after fix | unexercised | after-fix rate |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for p in &r.by_pattern {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            pattern_name(p.pattern.as_deref()),
            p.failing_cases,
            p.recurring_cases,
            rate(p.rate),
            p.fixed,
            p.recurred_after_fix,
            p.unexercised,
            rate(p.after_fix_rate)
        );
    }
    let _ =
        writeln!(out, "\n### Patterns targeted by {} (after injection, rounds {span})\n", r.round);
    if r.after_injection.is_empty() {
        let _ = writeln!(out, "None: {} has no intervention patterns.", r.round);
    } else {
        let _ = writeln!(out, "| pattern | injected_at | cases | recurred | rate |");
        let _ = writeln!(out, "|---|---|---:|---:|---:|");
        for a in &r.after_injection {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                pattern_name(Some(&a.pattern)),
                cell(&a.injected_at),
                a.cases,
                a.recurred,
                rate(a.rate)
            );
        }
    }
    out
}
