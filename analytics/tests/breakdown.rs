//! Cases and breakdowns on the model-iteration fixture: listed cases agree with the counts,
//! and every breakdown's groups add up to the ungrouped figure (which `fixture_figures.rs` pins
//! to the hand-computed `expected-figures.json`).

mod common;

use std::collections::BTreeMap;

use evokb_analytics::breakdown::{
    after_fix_by, after_injection_by, recurrence_by, transition_cases, transitions_by, GroupBy,
    TransitionClass,
};
use evokb_analytics::figures::{
    recurrence, recurrence_after_fix, recurrence_after_injection, transitions,
};
use evokb_analytics::report::{round_report, round_report_markdown};

const BY: [GroupBy; 2] = [GroupBy::Subset, GroupBy::Pattern];

#[test]
fn listed_cases_agree_with_the_transition_counts() {
    let (cases, rounds) = common::model_iteration();
    let counts = transitions(&cases, &rounds, None, None).expect("transitions");
    let listed = transition_cases(&cases, &rounds, None, None, None).expect("cases");
    let mut tally: BTreeMap<(String, TransitionClass), u64> = BTreeMap::new();
    for t in &listed {
        *tally.entry((t.from.clone(), t.class)).or_default() += 1;
        let case = cases.iter().find(|c| c.case_hash == t.case_hash).expect("a registry case");
        assert_eq!(
            (&t.query, &t.gold, &t.subset, &t.pattern),
            (&case.query, &case.gold, &case.subset, &case.pattern)
        );
    }
    for row in &counts {
        for (class, n) in [
            (TransitionClass::Persistent, row.persistent),
            (TransitionClass::NewFail, row.new_fail),
            (TransitionClass::NewFix, row.new_fix),
        ] {
            assert_eq!(
                tally.get(&(row.from.clone(), class)).copied().unwrap_or(0),
                n,
                "{} {class:?}",
                row.from
            );
        }
    }
    // R1→R2 new_fail is 5 in expected-figures.json; --class and the range narrow the list.
    let only =
        transition_cases(&cases, &rounds, Some("R1"), Some("R2"), Some(TransitionClass::NewFail))
            .expect("cases");
    assert_eq!(only.len(), 5);
    assert!(only
        .iter()
        .all(|t| t.class == TransitionClass::NewFail && t.from == "R1" && t.to == "R2"));
    let mut sorted = only.clone();
    sorted.sort_by(|a, b| a.case_hash.cmp(&b.case_hash));
    assert_eq!(sorted, only, "cases are sorted by key within a class");
}

#[test]
fn breakdown_totals_equal_the_ungrouped_figures() {
    let (cases, rounds) = common::model_iteration();
    let flat = transitions(&cases, &rounds, None, None).expect("transitions");
    let rec = recurrence(&cases);
    let fix = recurrence_after_fix(&cases, &rounds);
    let inj = recurrence_after_injection(&cases, &rounds);
    for by in BY {
        let grouped = transitions_by(&cases, &rounds, None, None, by).expect("by");
        for t in &flat {
            let rows: Vec<_> = grouped.iter().filter(|g| g.figure.from == t.from).collect();
            let sum = |f: fn(&evokb_analytics::figures::Transition) -> u64| -> u64 {
                rows.iter().map(|g| f(&g.figure)).sum()
            };
            assert_eq!(
                (sum(|x| x.persistent), sum(|x| x.new_fail), sum(|x| x.new_fix)),
                (t.persistent, t.new_fail, t.new_fix),
                "{by:?} {}",
                t.from
            );
        }
        let r = recurrence_by(&cases, by);
        assert_eq!(r.iter().map(|g| g.figure.failing_cases).sum::<u64>(), rec.failing_cases);
        assert_eq!(r.iter().map(|g| g.figure.recurring_cases).sum::<u64>(), rec.recurring_cases);
        let f = after_fix_by(&cases, &rounds, by);
        assert_eq!(f.iter().map(|g| g.figure.fixed).sum::<u64>(), fix.fixed, "{by:?}");
        assert_eq!(f.iter().map(|g| g.figure.recurred).sum::<u64>(), fix.recurred, "{by:?}");
        assert_eq!(f.iter().map(|g| g.figure.unexercised).sum::<u64>(), fix.unexercised, "{by:?}");
        let i = after_injection_by(&cases, &rounds, by);
        for a in &inj {
            let rows: Vec<_> = i.iter().filter(|g| g.figure.pattern == a.pattern).collect();
            assert!(rows.iter().all(|g| g.figure.injected_at == a.injected_at));
            assert_eq!(
                rows.iter().map(|g| g.figure.cases).sum::<u64>(),
                a.cases,
                "{by:?} {}",
                a.pattern
            );
            assert_eq!(
                rows.iter().map(|g| g.figure.recurred).sum::<u64>(),
                a.recurred,
                "{by:?} {}",
                a.pattern
            );
        }
    }
    // By pattern, after injection is exactly the ungrouped figure, one row per pattern.
    let by_pattern = after_injection_by(&cases, &rounds, GroupBy::Pattern);
    let figures: Vec<_> = by_pattern.iter().map(|g| g.figure.clone()).collect();
    assert_eq!(figures, inj);
    assert!(by_pattern.iter().all(|g| g.group.as_deref() == Some(g.figure.pattern.as_str())));
    // A group's own figure: travel_agent_vs_ct has 5 cases, 2 of them recurring.
    let rec_p = recurrence_by(&cases, GroupBy::Pattern);
    let travel =
        rec_p.iter().find(|g| g.group.as_deref() == Some("travel_agent_vs_ct")).expect("row");
    assert_eq!((travel.figure.failing_cases, travel.figure.recurring_cases), (5, 2));
}

#[test]
fn the_round_report_agrees_with_the_figures() {
    let (cases, rounds) = common::model_iteration();
    let r = round_report(&cases, &rounds, "R2").expect("report");
    assert_eq!(
        (r.previous.as_str(), r.targeted.as_slice()),
        ("R1", &["weather_city_slot".to_string()][..])
    );
    let t = r.delta_total;
    assert_eq!(
        (t.persistent, t.new_fail, t.new_fix),
        (6, 5, 6),
        "the R1->R2 row of expected-figures.json"
    );
    let sum: u64 = r.delta.iter().map(|d| d.new_fail).sum();
    assert_eq!(sum, 5);
    assert_eq!(r.new_fail.iter().map(|g| g.cases.len()).sum::<usize>(), 5);
    assert_eq!(r.new_fix.iter().map(|g| g.cases.len()).sum::<usize>(), 6);
    // The last round's report covers every round, so its by-pattern figures add up to the
    // ungrouped ones.
    let last = round_report(&cases, &rounds, "R4").expect("report");
    let rec = recurrence(&cases);
    assert_eq!(last.by_pattern.iter().map(|p| p.failing_cases).sum::<u64>(), rec.failing_cases);
    assert_eq!(last.by_pattern.iter().map(|p| p.recurring_cases).sum::<u64>(), rec.recurring_cases);
    let fix = recurrence_after_fix(&cases, &rounds);
    assert_eq!(last.by_pattern.iter().map(|p| p.fixed).sum::<u64>(), fix.fixed);
    // Deterministic: the same input gives the same bytes.
    assert_eq!(
        round_report_markdown(&r),
        round_report_markdown(&round_report(&cases, &rounds, "R2").expect("again"))
    );
    assert!(
        round_report(&cases, &rounds, "R0").is_err_and(|e| e.to_string().contains("first round"))
    );
    assert!(
        round_report(&cases, &rounds, "R9").is_err_and(|e| e.to_string().contains("unknown round"))
    );
}
