//! `evokb lint` without a store, on given files, and KB-REPRO-COMPILE (issue 9), against the
//! reference `kb_lint.py`'s verdicts on the real sample (`tests/data/reference/kb_lint.json`,
//! recorded by running the reference tool on the same files; the tool is not part of the
//! project). The broken scripts of `tests/data/repro-syntax/` were checked by the reference
//! tool through a topic file naming each of them, which these tests rebuild.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::*;

fn reference() -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/kb_lint.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("reference")).expect("json")
}

fn findings(out: &std::process::Output) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("lint --json");
    v["findings"].as_array().expect("findings").clone()
}

/// (rule, file name) of the reference findings of the rules both tools implement alike.
fn reference_keys(list: &serde_json::Value) -> BTreeSet<(String, String)> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|f| {
            let file = f["file"].as_str().expect("file");
            (
                f["rule_id"].as_str().expect("rule").to_string(),
                file.rsplit('/').next().expect("name").to_string(),
            )
        })
        .collect()
}

fn keys(found: &[serde_json::Value], codes: &[&str]) -> BTreeSet<(String, String)> {
    found
        .iter()
        .filter(|f| codes.contains(&f["code"].as_str().expect("code")))
        .map(|f| {
            let file = f["file"].as_str().expect("file");
            (
                f["code"].as_str().expect("code").to_string(),
                file.rsplit('/').next().expect("name").to_string(),
            )
        })
        .collect()
}

/// The sample with every script of `tests/data/repro-syntax/` in its repro folder and a topic
/// file `zz-syntax.md` whose entries name them, as the reference run had.
fn sample_with_syntax_scripts() -> (tempfile::TempDir, String) {
    let kb = sample();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/repro-syntax");
    let pl = evokb_export::layout::defaults::PL_DIR;
    let mut names: Vec<String> = std::fs::read_dir(&src)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut text = String::from("# syntax check samples\n\n");
    for name in &names {
        std::fs::copy(src.join(name), kb.path().join(pl).join("repro").join(name)).expect("copy");
        let id = name.trim_end_matches(".py");
        text.push_str(&format!("---\nid: {id}\nkind: pattern\nstatus: verified\norigin_task: evokb-test-20261201T000000Z\ntoolchain: tilelang 0.1.2+3a214cde / CANN 8.5.0\nrepro: repro/{name}\n---\n\n### {id}\n\n- 语法检查样例。\n\n"));
    }
    let topic = topic("zz-syntax.md");
    std::fs::write(kb.path().join(&topic), text).expect("write");
    (kb, topic)
}

#[test]
fn repro_compile_gives_the_reference_verdicts_with_line_and_column() {
    let want = reference();
    let (kb, topic) = sample_with_syntax_scripts();
    let out = evokb(kb.path(), &["lint", "--files", &topic, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = findings(&out);
    let compile: Vec<&serde_json::Value> =
        found.iter().filter(|f| f["code"] == "KB-REPRO-COMPILE").collect();
    // The same scripts fail, each first at the line the reference's ast.parse named.
    let mut got = BTreeSet::new();
    for f in &compile {
        let name = f["file"].as_str().expect("file").rsplit('/').next().expect("name");
        if got.insert(name.to_string()) {
            assert!(f["column"].as_u64().is_some_and(|c| c >= 1), "{f}");
            assert!(f["message"].as_str().expect("msg").starts_with("syntax error: "), "{f}");
            let line = f["line"].as_u64().expect("line");
            let reference = want["syntax"]
                .as_array()
                .expect("list")
                .iter()
                .find(|r| r["file"].as_str().expect("file").ends_with(name))
                .expect("the reference fails it too");
            let msg = reference["message"].as_str().expect("message");
            assert!(msg.ends_with(&format!("line {line})")), "{name}: line {line} vs {msg}");
        }
    }
    let want_names: BTreeSet<String> =
        reference_keys(&want["syntax"]).into_iter().map(|k| k.1).collect();
    assert_eq!(got, want_names);
    assert!(!got.contains("SYN-valid.py"));
    // The sample's own scripts parse, as the reference found.
    assert_eq!(want["sample_compile"].as_array().map(Vec::len), Some(0));
    let out = evokb(kb.path(), &["lint", "--json"]);
    let whole = findings(&out);
    let sample_scripts: Vec<_> = whole
        .iter()
        .filter(|f| f["code"] == "KB-REPRO-COMPILE")
        .filter(|f| !f["file"].as_str().unwrap_or("").contains("/SYN-"))
        .collect();
    assert!(sample_scripts.is_empty(), "{sample_scripts:?}");
    // Text output carries file:line:column.
    let out = evokb(kb.path(), &["lint", "--files", &topic]);
    assert!(stdout(&out).contains("repro/SYN-dollar.py:6:5: "), "{}", stdout(&out));
}

#[test]
fn lint_files_checks_only_those_files_as_the_reference_does() {
    let want = reference();
    let kb = sample();
    let (attention, traps) = (topic("attention.md"), topic("traps-compiler.md"));
    let out = evokb(kb.path(), &["lint", "--files", &attention, &traps, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let found = findings(&out);
    let shared =
        ["KB-REPRO-EXISTS", "KB-BUDGET", "KB-FM-REQUIRED", "KB-FM-ENUM", "KB-REPRO-HEADER"];
    assert_eq!(keys(&found, &shared), reference_keys(&want["files_attention_traps"]));
    // Every finding is in a named file or a repro script one of its entries names.
    for f in &found {
        let file = f["file"].as_str().expect("file");
        assert!(file == attention || file == traps || file.contains("/repro/"), "{f}");
    }
    let out = evokb(kb.path(), &["lint", "--files", &topic("layout.md"), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(keys(&findings(&out), &shared), reference_keys(&want["files_layout"]));
    // A path that is not there is a KB-FILE error, as in the reference.
    let out = evokb(kb.path(), &["lint", "--files", "nope.md", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let found = findings(&out);
    assert!(found.iter().any(|f| f["code"] == "KB-FILE" && f["message"] == "file not found"));
}

#[test]
fn lint_works_without_a_store_and_reports_what_no_longer_imports() {
    let (kb, store) = imported_sample();
    drop(store);
    let with_store = evokb(kb.path(), &["lint", "--json"]);
    let bare = sample();
    let without = evokb(bare.path(), &["lint", "--json"]);
    assert_eq!(without.status.code(), with_store.status.code());
    assert_eq!(findings(&without), findings(&with_store), "the same findings without a store");
    // A hand edit that breaks the file: import refuses it; lint reports it at its line.
    let layout = kb.path().join(topic("layout.md"));
    let mut text = std::fs::read_to_string(&layout).expect("read");
    let line = text.lines().count() + 1;
    text.push_str("---\nid: PL-broken\nkind: pattern\n");
    std::fs::write(&layout, text).expect("write");
    assert_eq!(evokb(kb.path(), &["import"]).status.code(), Some(3));
    let out = evokb(kb.path(), &["lint", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let found = findings(&out);
    let parse: Vec<_> = found.iter().filter(|f| f["code"] == "KB-PARSE").collect();
    assert_eq!(parse.len(), 1, "{parse:?}");
    assert_eq!(parse[0]["file"], topic("layout.md"));
    assert_eq!(parse[0]["line"].as_u64(), Some(line as u64));
    assert!(!found
        .iter()
        .any(|f| f["message"].as_str().unwrap_or("").contains("INDEX.md is missing")));
    // A store that was created but never imported is linted from the files too.
    let fresh = sample();
    assert_eq!(evokb(fresh.path(), &["init"]).status.code(), Some(0));
    let out = evokb(fresh.path(), &["lint", "--json"]);
    assert_eq!(findings(&out), findings(&with_store));
}

#[test]
fn an_id_in_two_index_tables_imports_renders_unchanged_and_lint_warns() {
    let kb = sample();
    let index = kb.path().join(evokb_export::layout::defaults::PL_DIR).join("INDEX.md");
    let text = std::fs::read_to_string(&index).expect("read");
    // PL-1.6-copy-floor is routed under elementwise.md; list it under attention.md too.
    let row = text.lines().find(|l| l.starts_with("| PL-1.6-copy-floor |")).expect("its row");
    let anchor = text.lines().find(|l| l.starts_with("| PL-1.9-blockwidth |")).expect("a row");
    let edited = text.replacen(anchor, &format!("{anchor}\n{row}"), 1);
    std::fs::write(&index, &edited).expect("write");
    assert_eq!(evokb(kb.path(), &["init"]).status.code(), Some(0));
    let out = evokb(kb.path(), &["import"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = evokb(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "byte-identical: {}", stdout(&out));
    let out = evokb(kb.path(), &["lint", "--json"]);
    let found = findings(&out);
    let dup: Vec<_> = found.iter().filter(|f| f["code"] == "KB-INDEX-DUP").collect();
    assert_eq!(dup.len(), 1, "{dup:?}");
    let line = edited.lines().position(|l| l == row).expect("first row") + 1;
    let lines: Vec<&str> = edited.lines().collect();
    let second = lines.iter().rposition(|l| *l == row).expect("second row") + 1;
    assert_eq!(dup[0]["line"].as_u64(), Some(second as u64));
    assert_eq!(dup[0]["severity"], "warning");
    let msg = dup[0]["message"].as_str().expect("message");
    assert!(msg.contains("PL-1.6-copy-floor") && msg.contains(&format!("line {line}")), "{msg}");
    // The entry's status still reaches the first row, which agents route by.
    let out = evokb(kb.path(), &["set", "PL-1.6-copy-floor", "status", "stale"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(evokb(kb.path(), &["render"]).status.code(), Some(0));
    let after = std::fs::read_to_string(&index).expect("read");
    assert!(after.lines().nth(line - 1).expect("row").ends_with("| stale |"));
}

#[test]
fn lint_trusts_the_store_only_while_its_fingerprints_vouch_for_the_files() {
    // When the import's stat fingerprints vouch for the files (taken more than the racy window
    // after the files' last change), lint does not parse them to learn that they still import.
    // Whichever way it decides, its findings are those of a lint from the files.
    let (kb, store) = imported_sample();
    drop(store);
    let with_store = evokb(kb.path(), &["lint", "--json"]);
    let without = evokb(sample().path(), &["lint", "--json"]);
    assert_eq!(findings(&with_store), findings(&without));
    // A hand edit that breaks a file and sets its modification time back is still seen: the
    // change time moved, so the fingerprint no longer vouches and the files are parsed.
    let layout = kb.path().join(topic("layout.md"));
    let mtime = std::fs::metadata(&layout).and_then(|m| m.modified()).expect("mtime");
    let mut text = std::fs::read_to_string(&layout).expect("read");
    text.push_str("---\nid: PL-broken\nkind: pattern\n");
    std::fs::write(&layout, text).expect("write");
    std::fs::File::options()
        .write(true)
        .open(&layout)
        .and_then(|f| f.set_modified(mtime))
        .expect("set the mtime back");
    let out = evokb(kb.path(), &["lint", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let found = findings(&out);
    assert!(
        found.iter().any(|f| f["code"] == "KB-PARSE" && f["file"] == topic("layout.md")),
        "{found:?}"
    );
}
