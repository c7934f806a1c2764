//! The typed change log end to end: whatever a task id, an actor or a reason holds, its row
//! stays one row of three cells, the files still render and import cleanly, and `report`
//! counts the change by its kind, not by the words in the cell.

use crate::support::*;

fn ok(kb: &std::path::Path, args: &[&str]) -> String {
    let out = evokb(kb, args);
    assert_eq!(out.status.code(), Some(0), "evokb {args:?}: {}", stderr(&out));
    stdout(&out)
}

fn round_trip_then_report(kb: &std::path::Path, task: &str) -> String {
    ok(kb, &["render"]);
    let check = evokb(kb, &["render", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let import = ok(kb, &["import", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&import).expect("json");
    assert_eq!((json["added"].as_u64(), json["updated"].as_u64()), (Some(0), Some(0)));
    let check = evokb(kb, &["render", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    ok(kb, &["report", "--task", task])
}

#[test]
fn a_task_with_a_pipe_survives_import_render_check_and_report() {
    let (kb, store) = imported_sample();
    drop(store);
    let task = "evil | extra";
    ok(kb.path(), &["update", "PL-1.9-blockwidth", "--set", "status=stale", "--task", task]);
    let report = round_trip_then_report(kb.path(), task);
    let stats = std::fs::read_to_string(kb.path().join(evokb_export::layout::defaults::STATS))
        .expect("stats");
    let row = stats.lines().rev().find(|l| l.contains("update PL-1.9-blockwidth")).expect("row");
    let cells = evokb_export::parse::table::split_row(row).expect("a row").cells.len();
    assert_eq!(cells, 3, "the row keeps its three cells: {row}");
    assert!(row.contains("evil \\| extra"), "{row}");
    assert!(report.contains("- verdict: EVOLVE_COMPLETED"), "{report}");
    assert!(report.contains("- updated: 1"), "{report}");
    assert!(report.contains("update PL-1.9-blockwidth: status"), "{report}");
}

#[test]
fn a_reason_with_a_newline_and_the_word_failed_is_one_deprecation_not_a_conflict() {
    let (kb, store) = imported_sample();
    drop(store);
    let task = "multi-line-task";
    let reason = "the measurement failed twice\nsee the rerun `r2`";
    ok(kb.path(), &["deprecate", "PL-1.2-caxis-accum", "--reason", reason, "--task", task]);
    let report = round_trip_then_report(kb.path(), task);
    assert!(report.contains("- deprecated: 1"), "{report}");
    assert!(report.contains("- conflicts: 0"), "{report}");
    assert!(report.contains("deprecate PL-1.2-caxis-accum"), "{report}");
}
