//! Git end to end: snapshots commit exactly the changed managed files, and two clones that each
//! add entries, confirm queue items and log hits merge through `evokb merge-driver` with zero
//! conflicts. Repositories are temporary, with a fixed author and time.

use std::path::Path;
use std::process::Output;

use crate::support::*;

fn git(dir: &Path, args: &[&str]) -> Output {
    let path = path_without_evokb();
    let out = git_command(dir, args)
        .env("PATH", path)
        .env("GIT_AUTHOR_DATE", "2026-11-29T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-11-29T00:00:00Z")
        .output()
        .expect("run git");
    assert!(
        out.status.success() || args[0] == "merge",
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?}: {}", stderr(&out));
    out
}

fn entries(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!("---\nid: {prefix}-{i}-merge\nkind: pattern\nfamily: [attention]\nstatus: verified\norigin_task: task-{prefix}\ntoolchain: tilelang 2026 build / CANN 8.5.0\nrepro: none\n---\n\n### {prefix} 条目 {i}\n\nbody {i}\n")
        })
        .collect()
}

/// A repository holding the sample, with one commit.
fn origin() -> tempfile::TempDir {
    let dir = sample();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "sample"]);
    dir
}

fn clone(origin: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["clone", "-q", origin.to_str().expect("utf-8"), "."]);
    run(dir.path(), &["init"]);
    run(dir.path(), &["import"]);
    dir
}

fn side(dir: &Path, prefix: &str, vp: &str, task: &str) {
    let src = dir.join("new.md");
    std::fs::write(&src, entries(prefix, 50)).expect("write");
    run(dir, &["add", "--file", "attention.md", src.to_str().expect("utf-8")]);
    std::fs::remove_file(&src).expect("rm");
    run(dir, &["set", vp, "confirmations", "2/2"]);
    run(dir, &["set", vp, "confirmed_by", &format!("task {task} 2026-11-29")]);
    run(dir, &["render"]);
    let log = dir.join(".agents/evolution/kb_search_log.jsonl");
    let mut text = std::fs::read_to_string(&log).expect("read");
    text.push_str(&format!("{{\"ts\": \"2026-11-29T10:00:00Z\", \"query\": \"{prefix} hit\", \"returned\": [\"{prefix}-0-merge\"]}}\n"));
    std::fs::write(&log, text).expect("write");
    run(dir, &["import"]);
}

#[test]
fn two_clones_merge_record_by_record_without_conflicts() {
    let origin = origin();
    let a = clone(origin.path());
    let b = clone(origin.path());
    side(a.path(), "OURS", "VP-2026-0003", "task-a");
    side(b.path(), "THEIRS", "VP-2026-0004", "task-b");
    let out = evokb(a.path(), &["snapshot", "--task", "task-a", "-m", "add 50 entries"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("evolution: add 50 entries (task: task-a)"), "{}", stdout(&out));
    git(b.path(), &["add", "-A", ".agents"]);
    git(b.path(), &["commit", "-qm", "theirs"]);
    let log = git(a.path(), &["log", "-1", "--format=%s"]);
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim(),
        "evolution: add 50 entries (task: task-a)"
    );
    git(a.path(), &["fetch", "-q", b.path().to_str().expect("utf-8"), "main"]);
    let merge = git(a.path(), &["merge", "--no-edit", "FETCH_HEAD"]);
    assert!(
        merge.status.success(),
        "merge failed:\n{}\n{}",
        String::from_utf8_lossy(&merge.stdout),
        String::from_utf8_lossy(&merge.stderr)
    );
    run(a.path(), &["import"]);
    let out = evokb(a.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let list = stdout(&run(a.path(), &["list", "--kind", "entry"]));
    assert_eq!(list.lines().filter(|l| l.contains("-merge")).count(), 100);
    let index = stdout(&run(a.path(), &["list", "--kind", "index_row"]));
    assert_eq!(index.lines().filter(|l| l.contains("-merge")).count(), 100);
    for (vp, task) in [("VP-2026-0003", "task-a"), ("VP-2026-0004", "task-b")] {
        let item = stdout(&run(a.path(), &["get", vp]));
        assert!(
            item.contains("confirmations: 2/2")
                && item.contains(&format!("confirmed_by: task {task}")),
            "{item}"
        );
    }
    let events = stdout(&run(a.path(), &["list", "--kind", "search_event"]));
    assert_eq!(events.lines().count(), 35, "33 sample events and one hit from each side");
}

#[test]
fn the_same_field_changed_on_both_sides_conflicts_only_in_that_record() {
    let origin = origin();
    let a = clone(origin.path());
    let b = clone(origin.path());
    run(a.path(), &["set", "VP-2026-0005", "status", "merged"]);
    run(a.path(), &["set", "VP-2026-0006", "confirmations", "2/2"]);
    run(a.path(), &["render"]);
    run(b.path(), &["set", "VP-2026-0005", "status", "rejected"]);
    run(b.path(), &["render"]);
    git(a.path(), &["commit", "-qam", "ours"]);
    git(b.path(), &["commit", "-qam", "theirs"]);
    git(a.path(), &["fetch", "-q", b.path().to_str().expect("utf-8"), "main"]);
    let merge = git(a.path(), &["merge", "--no-edit", "FETCH_HEAD"]);
    assert!(!merge.status.success(), "a real conflict must stop the merge");
    let queue = std::fs::read_to_string(a.path().join(".agents/evolution/queue.md")).expect("read");
    assert_eq!(queue.matches("<<<<<<< ours").count(), 1);
    let start = queue.find("<<<<<<< ours").expect("marker");
    let end = queue.find(">>>>>>> theirs").expect("marker");
    let region = &queue[start..end];
    assert!(region.contains("## VP-2026-0005") && !region.contains("## VP-2026-0006"));
    assert!(queue.contains("- confirmations: 2/2"), "our other change is kept");
}

#[test]
fn hooks_install_writes_an_executable_pre_commit_hook() {
    let origin = origin();
    let a = clone(origin.path());
    let out = run(a.path(), &["hooks", "install"]);
    assert!(stdout(&out).contains("pre-commit"));
    let hook = std::fs::read_to_string(a.path().join(".git/hooks/pre-commit")).expect("hook");
    assert!(hook.contains("render --check") && hook.contains("lint --errors-only"));
    let attributes = std::fs::read_to_string(a.path().join(".gitattributes")).expect("attributes");
    assert!(attributes.contains(".agents/evolution/queue.md merge=evokb"));
}
