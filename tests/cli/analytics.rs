//! The analyst's commands end to end: the figures of the bundled model-iteration fixture must
//! match its hand-computed `expected-figures.json`, re-imports add nothing, and bad lines are
//! reported with file:line and skipped.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::*;

fn json_of(kb: &Path, args: &[&str]) -> Value {
    let out = evokb(kb, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("json")
}

fn loaded() -> tempfile::TempDir {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    import_analytics_inputs(kb.path());
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

#[test]
fn transitions_list_their_cases_and_break_down_by_subset_and_pattern() {
    let kb = loaded();
    let cases = json_of(
        kb.path(),
        &[
            "stats",
            "transitions",
            "--cases",
            "--class",
            "new_fail",
            "--from",
            "R1",
            "--to",
            "R2",
            "--json",
        ],
    );
    let cases = cases.as_array().expect("array");
    assert_eq!(cases.len(), 5, "R1->R2 new_fail in expected-figures.json");
    for c in cases {
        assert_eq!(c["class"], "new_fail");
        for field in ["case_hash", "query", "gold", "subset", "pattern"] {
            assert!(c[field].is_string(), "{field} in {c}");
        }
    }
    let all = json_of(kb.path(), &["stats", "transitions", "--cases", "--json"]);
    assert_eq!(
        all.as_array().expect("array").len(),
        3 + 9 + 15 + 6 + 5 + 6 + 4 + 10 + 8 + 3 + 6 + 11
    );
    let csv = stdout(&evokb(kb.path(), &["stats", "transitions", "--cases", "--csv"]));
    assert_eq!(csv.lines().next(), Some("from,to,class,case_hash,subset,pattern,gold,query"));

    let flat = json_of(kb.path(), &["stats", "transitions", "--json"]);
    for by in ["subset", "pattern"] {
        let rows = json_of(kb.path(), &["stats", "transitions", "--by", by, "--json"]);
        for t in flat.as_array().expect("array") {
            for field in ["persistent", "new_fail", "new_fix"] {
                let sum: u64 = rows
                    .as_array()
                    .expect("array")
                    .iter()
                    .filter(|r| r["from"] == t["from"])
                    .map(|r| r[field].as_u64().expect("count"))
                    .sum();
                assert_eq!(Some(sum), t[field].as_u64(), "--by {by} {} {field}", t["from"]);
            }
        }
        let rec = json_of(kb.path(), &["stats", "recurrence", "--by", by, "--json"]);
        let sum: u64 = rec
            .as_array()
            .expect("array")
            .iter()
            .map(|r| r["failing_cases"].as_u64().expect("n"))
            .sum();
        assert_eq!(sum, 39);
        assert!(rec[0][by].is_string(), "the group is named after --by");
        let fix =
            json_of(kb.path(), &["stats", "recurrence", "--after", "fix", "--by", by, "--json"]);
        let sum: u64 =
            fix.as_array().expect("array").iter().map(|r| r["fixed"].as_u64().expect("n")).sum();
        assert_eq!(sum, 28);
        let inj = json_of(
            kb.path(),
            &["stats", "recurrence", "--after", "injection", "--by", by, "--json"],
        );
        let travel: u64 = inj
            .as_array()
            .expect("array")
            .iter()
            .filter(|r| r["pattern"] == "travel_agent_vs_ct")
            .map(|r| r["recurred"].as_u64().expect("n"))
            .sum();
        assert_eq!(travel, 4);
    }
    let out = evokb(kb.path(), &["stats", "transitions", "--cases", "--by", "subset"]);
    assert_eq!(out.status.code(), Some(2), "--cases and --by conflict");
}

#[test]
fn the_round_report_of_r2() {
    let kb = loaded();
    let out = evokb(kb.path(), &["report", "round", "R2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    insta::assert_snapshot!("round_report_r2", md);
    assert_eq!(stdout(&evokb(kb.path(), &["report", "round", "R2", "--md"])), md, "same bytes");
    let json = json_of(kb.path(), &["report", "round", "R2", "--json"]);
    assert_eq!(
        json["delta_total"],
        serde_json::json!({"persistent": 6, "new_fail": 5, "new_fix": 6})
    );
    let out = evokb(kb.path(), &["report", "round", "R0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no previous round"), "{}", stderr(&out));
    // The Evolution Result block is still `report --task T`.
    let out = evokb(kb.path(), &["report", "--task", "t-none"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(evokb(kb.path(), &["report"]).status.code() == Some(2), "--task is still required");
}

#[test]
fn export_writes_one_table_per_collection() {
    let kb = loaded();
    assert!(evokb(kb.path(), &["import"]).status.success());
    for format in ["parquet", "csv"] {
        let dir = kb.path().join(format!("out-{format}"));
        let v = json_of(
            kb.path(),
            &["export", "--format", format, dir.to_str().expect("utf-8"), "--json"],
        );
        let tables = v["tables"].as_array().expect("tables");
        let names: Vec<&str> = tables.iter().map(|t| t["table"].as_str().expect("name")).collect();
        assert_eq!(names, ["cases", "rounds", "timeline_events", "search_events", "entries"]);
        for t in tables {
            assert!(t["rows"].as_u64().expect("rows") > 0, "{t}");
            let path = PathBuf::from(t["path"].as_str().expect("path"));
            assert!(path.is_file() && path.extension().is_some_and(|e| e == format));
        }
    }
}

fn copy_case(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    let file = from.join(".task_timeline.jsonl");
    if file.is_file() {
        std::fs::copy(&file, to.join(".task_timeline.jsonl")).expect("copy");
    }
}

#[test]
fn timeline_summary_is_statectl_s() {
    // statectl's outputs, recorded in tests/data/statectl (see its README): each timeline at
    // tasks/<name>/ below a folder with an AGENTS.md, the root statectl finds.
    let work = tempfile::tempdir().expect("tempdir");
    std::fs::write(work.path().join("AGENTS.md"), "").expect("write");
    let mut checked = Vec::new();
    let cases_dir = data("statectl/cases");
    let mut names: Vec<String> = std::fs::read_dir(&cases_dir)
        .expect("read")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in &names {
        let src = cases_dir.join(name);
        let task = work.path().join("tasks").join(name);
        copy_case(&src, &task);
        let mut want = std::fs::read_to_string(src.join("expected.json")).expect("expected");
        let rc: i32 = std::fs::read_to_string(src.join("expected.rc"))
            .expect("rc")
            .trim()
            .parse()
            .expect("number");
        let file = task.join(".task_timeline.jsonl");
        want = want.replace("{path}", file.to_str().expect("utf-8"));
        let rel = format!("tasks/{name}");
        let out = evokb(work.path(), &["timeline", "summary", "--dir", &rel, "--json"]);
        assert_eq!(stdout(&out), want, "{name}");
        assert_eq!(out.status.code(), Some(rc), "{name}");
        checked.push((name.clone(), want, rc));
    }
    for task in std::fs::read_dir(data("timelines")).expect("read").map(|e| e.expect("entry")) {
        if !task.path().is_dir() {
            continue;
        }
        let name = task.file_name().to_string_lossy().into_owned();
        copy_case(&task.path(), &work.path().join("tasks").join(&name));
        let want =
            std::fs::read_to_string(data(&format!("statectl/fixture-timelines/{name}.json")))
                .expect("expected");
        let out = evokb(
            work.path(),
            &["timeline", "summary", "--dir", &format!("tasks/{name}"), "--json"],
        );
        assert_eq!(stdout(&out), want, "{name}");
        checked.push((name, want, 0));
    }
    assert_eq!(checked.len(), names.len() + 6);
    // The same bytes from the store, after `timeline import` (an empty file is a task too).
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    let tasks = work.path().join("tasks");
    let out = evokb(kb.path(), &["timeline", "import", tasks.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", stderr(&out));
    for (name, want, rc) in &checked {
        let out = evokb(kb.path(), &["timeline", "summary", "--task", name, "--json"]);
        if *rc == 0 {
            assert_eq!(&stdout(&out), want, "{name} from the store");
            assert_eq!(out.status.code(), Some(0));
        } else {
            let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
            assert_eq!(
                (v["ok"].clone(), v["errors"][0]["code"].clone()),
                (Value::Bool(false), Value::from("E-MISSING"))
            );
            assert_eq!(out.status.code(), Some(1));
        }
    }
}

#[test]
fn appended_registries_add_the_rest_and_a_non_utf8_line_writes_nothing() {
    let kb = loaded();
    let full = json_of(kb.path(), &["stats", "transitions", "--json"]);
    let fresh = sample();
    assert!(evokb(fresh.path(), &["init"]).status.success());
    let text = std::fs::read_to_string(data("model-iteration/results/error_registry.jsonl"))
        .expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let part = fresh.path().join("part.jsonl");
    std::fs::write(&part, lines[..10].join("\n") + "\n").expect("write");
    let out = evokb(fresh.path(), &["errors", "import", part.to_str().expect("utf-8")]);
    assert!(stdout(&out).starts_with("error cases: 10 added or changed, 0 unchanged"));
    let reg = data("model-iteration/results/error_registry.jsonl");
    let log = data("model-iteration/results/iteration_log.jsonl");
    let out = evokb(fresh.path(), &["errors", "import", reg.to_str().expect("utf-8")]);
    assert!(
        stdout(&out).starts_with("error cases: 29 added or changed, 10 unchanged"),
        "{}",
        stdout(&out)
    );
    assert!(evokb(fresh.path(), &["rounds", "import", log.to_str().expect("utf-8")])
        .status
        .success());
    assert_eq!(json_of(fresh.path(), &["stats", "transitions", "--json"]), full);

    let bad = kb.path().join("bad.jsonl");
    let mut bytes =
        b"{\"case_hash\": \"zz\", \"evaluated\": [\"R0\"], \"failed_rounds\": [\"R0\"]}\n".to_vec();
    bytes.extend_from_slice(b"{\"case_hash\": \"y\xff\"}\n");
    std::fs::write(&bad, bytes).expect("write");
    let out = evokb(kb.path(), &["errors", "import", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("bad.jsonl:2: the line is not UTF-8 text"), "{}", stderr(&out));
    assert_eq!(json_of(kb.path(), &["stats", "transitions", "--json"]), full);
}
