//! Lint verdicts that agree with the knowledge base's own schema: queue items are provenance
//! (no KB-PROC-REF), and a missing INDEX.md is one KB-FILE error, not one finding per entry.

use std::path::Path;

use crate::support::*;

fn git(dir: &Path, args: &[&str]) {
    let out = git_command(dir, args).output().expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn findings(kb: &Path) -> Vec<serde_json::Value> {
    let out = evokb(kb, &["lint", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("lint json");
    json["findings"].as_array().expect("findings").clone()
}

#[test]
fn queue_items_are_provenance_and_raise_no_proc_ref() {
    let kb = sample();
    git(kb.path(), &["init", "-q"]);
    git(kb.path(), &["add", "-A"]);
    git(kb.path(), &["commit", "-qm", "sample"]);
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    let all = findings(kb.path());
    let proc_ref: Vec<&serde_json::Value> =
        all.iter().filter(|f| f["code"] == "KB-PROC-REF").collect();
    assert!(!proc_ref.is_empty(), "the check still runs on entries in a git repository");
    assert!(
        proc_ref.iter().all(|f| !f["file"].as_str().unwrap_or("").ends_with("queue.md")),
        "{proc_ref:#?}"
    );
}

#[test]
fn a_missing_index_is_one_error_not_a_finding_per_entry() {
    let kb2 = sample();
    std::fs::remove_file(kb2.path().join(evokb_export::layout::defaults::INDEX)).expect("rm");
    assert!(evokb(kb2.path(), &["init"]).status.success());
    assert!(evokb(kb2.path(), &["import"]).status.success());
    let all = findings(kb2.path());
    let file_errors = all.iter().filter(|f| f["code"] == "KB-FILE").count();
    assert_eq!(file_errors, 1, "{all:#?}");
    assert_eq!(all.iter().filter(|f| f["code"] == "KB-INDEX-COVERED").count(), 0);
}

#[test]
fn queue_items_whose_fields_record_a_decision_nobody_made_are_errors() {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    let state = |all: &[serde_json::Value]| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = all
            .iter()
            .filter(|f| f["code"] == "KB-QUEUE-STATE")
            .map(|f| {
                (
                    f["id"].as_str().unwrap_or("").to_string(),
                    f["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    // The sample's own items agree with themselves.
    assert_eq!(state(&findings(kb.path())), Vec::<(String, String)>::new());
    let path = kb.path().join(".agents/evolution/queue.md");
    let mut queue = std::fs::read_to_string(&path).expect("queue.md");
    for (vp, field, forged) in [
        // A Tier 2 item merged by the evolver, with an annotation after the value.
        ("VP-2026-0008", "- status:", "- status: merged (pre-validation after the snapshot)"),
        ("VP-2026-0008", "- decided_by:", "- decided_by: evolver"),
        // A Tier 2 item that counts confirmations.
        ("VP-2026-0009", "- confirmations:", "- confirmations: 2/2（快速通道）"),
        // A Tier 1 item merged at 1/2.
        ("VP-2026-0003", "- status:", "- status: merged"),
        // A pending item that records a human decision.
        ("VP-2026-0004", "- decided_by:", "- decided_by: human  # conductor relayed approval"),
        // A rejection without a reason, and a state the lifecycle does not have.
        ("VP-2026-0005", "- status:", "- status: rejected"),
        ("VP-2026-0006", "- status:", "- status: auto-approved"),
    ] {
        queue = edit_item(&queue, vp, field, forged);
    }
    std::fs::write(&path, queue).expect("write queue.md");
    assert!(evokb(kb.path(), &["import"]).status.success());
    let all = findings(kb.path());
    let got = state(&all);
    let ids: Vec<&str> = got.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "VP-2026-0003",
            "VP-2026-0004",
            "VP-2026-0005",
            "VP-2026-0006",
            "VP-2026-0008",
            "VP-2026-0009"
        ],
        "{got:#?}"
    );
    let says = |id: &str, what: &str| got.iter().any(|(i, m)| i == id && m.contains(what));
    assert!(says("VP-2026-0003", "merged at 1/2"));
    assert!(says("VP-2026-0004", "still pending but records a human decision"));
    assert!(says("VP-2026-0005", "gives no reason"));
    assert!(says("VP-2026-0006", "'auto-approved' is not a state"));
    assert!(says("VP-2026-0008", "merged without a human decision ('decided_by: evolver')"));
    assert!(says("VP-2026-0009", "counts no confirmations ('confirmations: 2/2')"));
    let severity = |id: &str| {
        all.iter()
            .find(|f| f["code"] == "KB-QUEUE-STATE" && f["id"] == id)
            .and_then(|f| f["severity"].as_str())
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(severity("VP-2026-0006"), "warning");
    assert_eq!(severity("VP-2026-0008"), "error");
    // The pre-commit hook's `lint --errors-only` refuses such a queue.
    let out = evokb(kb.path(), &["lint", "--errors-only"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}
