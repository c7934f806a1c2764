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
