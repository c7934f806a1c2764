//! The analyst's commands end to end: the figures of the bundled model-iteration fixture must
//! match its hand-computed `expected-figures.json`, re-imports add nothing, and bad lines are
//! reported with file:line and skipped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::*;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(rel)
}

fn json_of(kb: &Path, args: &[&str]) -> Value {
    let out = evokb(kb, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("json")
}

fn loaded() -> tempfile::TempDir {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    let reg = data("model-iteration/results/error_registry.jsonl");
    let log = data("model-iteration/results/iteration_log.jsonl");
    let tl = data("timelines");
    for args in [
        vec!["errors", "import", reg.to_str().expect("utf-8")],
        vec!["rounds", "import", log.to_str().expect("utf-8")],
        vec!["timeline", "import", tl.to_str().expect("utf-8")],
    ] {
        let out = evokb(kb.path(), &args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    kb
}

#[test]
fn the_figures_match_the_hand_computed_fixture() {
    let kb = loaded();
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(data("model-iteration/expected-figures.json")).expect("read"),
    )
    .expect("json");
    let transitions = json_of(kb.path(), &["stats", "transitions", "--json"]);
    let rows = transitions.as_array().expect("array");
    assert_eq!(rows.len(), expected["transitions"].as_object().expect("object").len());
    for row in rows {
        let key =
            format!("{}->{}", row["from"].as_str().expect("from"), row["to"].as_str().expect("to"));
        for field in ["persistent", "new_fail", "new_fix"] {
            assert_eq!(row[field], expected["transitions"][&key][field], "{key}.{field}");
        }
    }
    assert_eq!(json_of(kb.path(), &["stats", "recurrence", "--json"]), expected["recurrence"]);
    let after_fix = json_of(kb.path(), &["stats", "recurrence", "--after", "fix", "--json"]);
    for field in ["fixed", "recurred", "unexercised", "rate"] {
        assert_eq!(after_fix[field], expected["after_fix"][field], "after_fix.{field}");
    }
    let inj = json_of(kb.path(), &["stats", "recurrence", "--after", "injection", "--json"]);
    let rows = inj.as_array().expect("array");
    assert_eq!(rows.len(), expected["after_injection"].as_object().expect("object").len());
    for row in rows {
        let want = &expected["after_injection"][row["pattern"].as_str().expect("pattern")];
        for field in ["injected_at", "cases", "recurred", "rate"] {
            assert_eq!(row[field], want[field], "{}.{field}", row["pattern"]);
        }
    }
    let csv = stdout(&evokb(kb.path(), &["stats", "transitions", "--csv"]));
    assert_eq!(csv.lines().next(), Some("from,to,persistent,new_fail,new_fix"));
    assert_eq!(csv.lines().nth(1), Some("R0,R1,3,9,15"));
}

#[test]
fn reimporting_adds_nothing_and_bad_lines_are_reported() {
    let kb = loaded();
    let reg = data("model-iteration/results/error_registry.jsonl");
    let out = evokb(kb.path(), &["errors", "import", reg.to_str().expect("utf-8")]);
    assert!(
        stdout(&out).starts_with("error cases: 0 added or changed, 39 unchanged"),
        "{}",
        stdout(&out)
    );
    let out = evokb(kb.path(), &["timeline", "import", data("timelines").to_str().expect("utf-8")]);
    assert!(stdout(&out).starts_with("task timelines: 0 added or changed, 6 unchanged"));
    let bad = kb.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"case_hash\": \"abc\", \"evaluated\": [\"R0\"], \"failed_rounds\": [\"R0\"]}\nnot json\n").expect("write");
    let out = evokb(kb.path(), &["errors", "import", bad.to_str().expect("utf-8")]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("bad.jsonl:2:"), "{}", stdout(&out));
}

#[test]
fn timeline_summary_and_metrics() {
    let kb = loaded();
    let s = json_of(
        kb.path(),
        &["timeline", "summary", "--task", "rmsnorm-_rms_fwd_kernel-20260905T101420Z", "--json"],
    );
    assert_eq!(s["events_total"], 7);
    assert_eq!(s["dispatches"], 3);
    assert_eq!(s["mode"], "harness");
    let m = json_of(kb.path(), &["stats", "metrics", "--json"]);
    assert_eq!(m["tasks"], 6);
    assert_eq!(m["first_pass_rate"]["rate"], 0.6667);
    assert_eq!(m["registry_recurrence"]["rate"], 0.5128);
    // Render publishes them in the stats.md metrics table.
    assert!(evokb(kb.path(), &["import"]).status.success());
    assert!(evokb(kb.path(), &["render"]).status.success());
    let stats =
        std::fs::read_to_string(kb.path().join(".agents/evolution/stats.md")).expect("read");
    assert!(stats.contains("| 0.6667（4/6，evokb 由 6 条 timeline 计算） |"), "metrics row filled");
    let out = evokb(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn charts_are_written() {
    let kb = loaded();
    assert!(evokb(kb.path(), &["import"]).status.success());
    let svg = kb.path().join("rec.svg");
    assert!(evokb(kb.path(), &["chart", "recurrence", "--svg", svg.to_str().expect("utf-8")])
        .status
        .success());
    let text = std::fs::read_to_string(&svg).expect("svg");
    assert!(text.starts_with("<svg") && text.contains("new_fail") && text.contains("injected"));
    let hits = kb.path().join("hits.svg");
    assert!(evokb(kb.path(), &["chart", "hits", "--svg", hits.to_str().expect("utf-8")])
        .status
        .success());
    assert!(std::fs::read_to_string(&hits).expect("svg").contains("TRAP-fp16-opmath-golden"));
}

#[test]
fn recurrence_after_injection_through_an_entry_mapping() {
    let kb = loaded();
    let map = kb.path().join("map.json");
    std::fs::write(&map, r#"[{"entry": "TRAP-fp16-opmath-golden", "pattern": "travel_agent_vs_ct", "round": "R1"},
        {"entry": "PL-1.17-subfp32-fp32-transit", "verdict": "precision", "merged_at": "2026-09-01T00:00:00Z"}]"#).expect("write");
    let rows = json_of(
        kb.path(),
        &[
            "stats",
            "recurrence",
            "--after",
            "injection",
            "--map",
            map.to_str().expect("utf-8"),
            "--json",
        ],
    );
    let rows = rows.as_array().expect("rows");
    let trap = rows.iter().find(|r| r["entry_id"] == "TRAP-fp16-opmath-golden").expect("row");
    // The pattern link reproduces the after-injection figure of its pattern.
    assert_eq!((trap["cases"].as_u64(), trap["recurred"].as_u64()), (Some(5), Some(4)));
    let transit =
        rows.iter().find(|r| r["entry_id"] == "PL-1.17-subfp32-fp32-transit").expect("row");
    assert_eq!(transit["class_kind"], "verdict");
    let bad = kb.path().join("bad.json");
    std::fs::write(&bad, r#"[{"entry": "X", "pattern": "p", "verdict": "v", "round": "R1"}]"#)
        .expect("write");
    let out = evokb(
        kb.path(),
        &["stats", "recurrence", "--after", "injection", "--map", bad.to_str().expect("utf-8")],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("exactly one of \"pattern\" and \"verdict\""),
        "{}",
        stderr(&out)
    );
}
