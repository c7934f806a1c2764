//! Every prefix of every fixture line, fed to the parsers and then to every
//! figure, must neither panic nor produce figures that break their invariants.

mod common;

use evokb_analytics::chart::recurrence_svg;
use evokb_analytics::figures::{
    recurrence, recurrence_after_fix, recurrence_after_injection, round_breakdown, transitions,
};
use evokb_analytics::parse::{parse_error_registry, parse_iteration_log, parse_timeline};
use evokb_analytics::timeline::{metrics, timeline_summary};

fn prefixes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        for (i, _) in line.char_indices() {
            out.push(line[..i].to_owned());
        }
    }
    out
}

#[test]
fn truncated_lines_never_panic() {
    let root = common::fixtures();
    let reg = common::read(&root.join("model-iteration/results/error_registry.jsonl"));
    let log = common::read(&root.join("model-iteration/results/iteration_log.jsonl"));
    // All truncations at once: each becomes one (mostly malformed) line.
    let reg_cut = prefixes(&reg).join("\n");
    let log_cut = prefixes(&log).join("\n");
    let (cases, diags) = parse_error_registry(&reg_cut, "r");
    assert!(!diags.is_empty());
    let (rounds, _) = parse_iteration_log(&log_cut, "l");
    let _ = transitions(&cases, &rounds, None, None);
    let _ = recurrence(&cases);
    let _ = recurrence_after_fix(&cases, &rounds);
    let _ = recurrence_after_injection(&cases, &rounds);
    let _ = round_breakdown(&cases, &rounds);
    assert!(recurrence_svg(&cases, &rounds).is_ok());

    let mut tasks = Vec::new();
    for (task, events) in common::timelines() {
        let text: String = events.iter().map(|e| e.raw.clone() + "\n").collect();
        let (evs, _) = parse_timeline(&prefixes(&text).join("\n"), "t", &task);
        let s = timeline_summary(&evs, "t");
        assert_eq!(s.events_total as usize, evs.len());
        tasks.push((task, evs));
    }
    let _ = metrics(&tasks);
}

#[test]
fn fixture_breakdown_agrees_with_transitions() {
    let (cases, rounds) = common::model_iteration();
    let rows = round_breakdown(&cases, &rounds);
    let pairs = transitions(&cases, &rounds, None, None).unwrap_or_default();
    assert_eq!(rows.len(), pairs.len() + 1);
    for (row, t) in rows.iter().skip(1).zip(&pairs) {
        assert_eq!(row.round, t.to);
        assert_eq!(
            (row.persistent, row.new_fail, row.new_fix),
            (t.persistent, t.new_fail, t.new_fix)
        );
    }
    // R0 has no round before it: all its fails are first seen.
    assert_eq!(rows[0].fails, rows[0].first_seen);
}
