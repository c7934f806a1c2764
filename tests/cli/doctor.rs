//! `evokb doctor` and `evokb hooks install`: a clone set up by `init` and `hooks install` passes
//! every check; each broken setup in turn is named, with a fix that, run as printed, makes
//! doctor pass again.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::*;

fn git(dir: &Path, args: &[&str]) -> Output {
    let out = git_command(dir, args).output().expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?}: {}{}", stdout(&out), stderr(&out));
    out
}

/// A repository holding the sample with its store, driver and hook set up.
fn clone() -> tempfile::TempDir {
    let dir = sample();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    run(dir.path(), &["init"]);
    run(dir.path(), &["import"]);
    git(dir.path(), &["add", "-A"]);
    // Committed before the hook exists: the sample has lint errors the hook would refuse.
    git(dir.path(), &["commit", "-qm", "sample"]);
    run(dir.path(), &["hooks", "install"]);
    dir
}

/// `doctor --json`, its exit code checked against its `ok`.
fn doctor(dir: &Path) -> Value {
    let out = evokb(dir, &["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("doctor --json is JSON");
    let ok = report["ok"].as_bool().expect("ok");
    assert_eq!(out.status.code(), Some(if ok { 0 } else { 1 }), "{report}");
    report
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"].as_array().expect("checks").iter().find(|c| c["name"] == name).expect(name)
}

/// Doctor names `name` with a problem containing `needle`; every failing check's fix is run as
/// printed, in a shell, and then doctor passes.
fn names_and_fixes(dir: &Path, name: &str, needle: &str) {
    let report = doctor(dir);
    let c = check(&report, name);
    assert_eq!(c["ok"], false, "{name} should fail: {report}");
    let problem = c["problem"].as_str().expect("problem");
    assert!(problem.contains(needle), "{name}: '{problem}' lacks '{needle}'");
    for failed in report["checks"].as_array().expect("checks").iter().filter(|c| c["ok"] == false) {
        let fix = failed["fix"].as_str().expect("a fix");
        let out = Command::new("sh")
            .args(["-c", fix])
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("EVOKB_NOW", "1795910400")
            .output()
            .expect("run the fix");
        assert!(out.status.success(), "fix '{fix}' failed: {}", stderr(&out));
    }
    let after = doctor(dir);
    assert_eq!(after["ok"], true, "after the fix for {name}: {after}");
}

#[test]
fn a_set_up_clone_passes_and_hooks_install_is_idempotent() {
    let dir = clone();
    let report = doctor(dir.path());
    assert_eq!(report["ok"], true, "{report}");
    let names: Vec<&str> = report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "store",
            "store_sync",
            "merge_driver",
            "pre_commit_hook",
            "gitattributes",
            "store_ignored"
        ]
    );
    let attributes = std::fs::read_to_string(dir.path().join(".gitattributes")).expect("read");
    let hook = std::fs::read_to_string(dir.path().join(".git/hooks/pre-commit")).expect("read");
    run(dir.path(), &["hooks", "install"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".gitattributes")).expect("read"),
        attributes
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".git/hooks/pre-commit")).expect("read"),
        hook
    );
    let driver = git(dir.path(), &["config", "merge.evokb.driver"]);
    let exe = Path::new(env!("CARGO_BIN_EXE_evokb")).canonicalize().expect("canonical");
    assert_eq!(
        String::from_utf8_lossy(&driver.stdout).trim(),
        format!("'{}' merge-driver %O %A %B %P", exe.display())
    );
    assert!(hook.contains(&format!("EVOKB='{}'", exe.display())), "{hook}");
    let text = stdout(&evokb(dir.path(), &["doctor"]));
    assert!(text.contains("[  ok] merge_driver") && text.contains("everything"), "{text}");
}

#[test]
fn each_broken_setup_is_named_and_its_fix_works() {
    let dir = clone();
    let root = dir.path();

    git(root, &["config", "--unset", "merge.evokb.driver"]);
    names_and_fixes(root, "merge_driver", "merge.evokb.driver is not set");

    git(root, &["config", "merge.evokb.driver", "'/nonexistent/evokb' merge-driver %O %A %B %P"]);
    names_and_fixes(root, "merge_driver", "'/nonexistent/evokb' does not run");

    std::fs::remove_file(root.join(".git/hooks/pre-commit")).expect("rm");
    names_and_fixes(root, "pre_commit_hook", "there is no pre-commit hook");

    let hook = root.join(".git/hooks/pre-commit");
    let text = std::fs::read_to_string(&hook).expect("read");
    let broken: String = text
        .lines()
        .map(|l| {
            if l.starts_with("EVOKB=") {
                "EVOKB='/nonexistent/evokb'".to_string()
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    std::fs::write(&hook, broken).expect("write");
    names_and_fixes(root, "pre_commit_hook", "'/nonexistent/evokb' does not run");

    let attributes = root.join(".gitattributes");
    let text = std::fs::read_to_string(&attributes).expect("read");
    let without: String =
        text.lines().filter(|l| !l.contains("queue.md")).map(|l| format!("{l}\n")).collect();
    assert_ne!(without, text);
    std::fs::write(&attributes, without).expect("write");
    names_and_fixes(root, "gitattributes", ".agents/evolution/queue.md");

    std::fs::remove_file(root.join(".evokb/.gitignore")).expect("rm");
    names_and_fixes(root, "store_ignored", "'.evokb/' is not ignored");

    // The store changed and the files were not rendered.
    run(root, &["set", "VP-2026-0005", "status", "merged"]);
    names_and_fixes(root, "store_sync", "queue.md (the store changed since the last render)");

    // A file was edited (as a pull or a person does) and not imported.
    let queue = root.join(".agents/evolution/queue.md");
    let text = std::fs::read_to_string(&queue).expect("read");
    std::fs::write(&queue, text.replacen("- status: merged", "- status: rejected", 1))
        .expect("write");
    names_and_fixes(root, "store_sync", "queue.md (edited since the last import or render)");
    let item = stdout(&run(root, &["get", "VP-2026-0005"]));
    assert!(item.contains("status: rejected"), "the import took the edit: {item}");

    // A missing store: init and import.
    std::fs::remove_dir_all(root.join(".evokb")).expect("rm");
    let report = doctor(root);
    assert_eq!(check(&report, "store_sync")["skipped"], true, "{report}");
    names_and_fixes(root, "store", "there is no store");
}

#[test]
fn outside_a_repository_the_git_checks_are_skipped() {
    let dir = sample();
    run(dir.path(), &["init"]);
    run(dir.path(), &["import"]);
    let report = doctor(dir.path());
    assert_eq!(report["ok"], true, "{report}");
    for name in ["merge_driver", "pre_commit_hook", "gitattributes", "store_ignored"] {
        let c = check(&report, name);
        assert_eq!(c["skipped"], true, "{name}");
        assert!(c["problem"].as_str().is_some_and(|p| p.contains("not inside a git repository")));
    }
}
