//! Bad input: each malformed case gives file, line and what was expected, a non-zero exit, and
//! leaves the store untouched.

use std::path::Path;

use crate::support::*;

/// An imported copy of the sample and the digest printed by `verify --json`.
fn ready() -> (tempfile::TempDir, String) {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    let d = cli_digest(kb.path());
    (kb, d)
}

fn cli_digest(kb: &Path) -> String {
    let out = evokb(kb, &["verify", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("verify json");
    json["digest"].as_str().expect("digest").to_string()
}

/// Applies `corrupt`, runs `import`, and checks the exit code, the message and that nothing
/// was written.
fn check(corrupt: impl FnOnce(&Path), code: i32, expect: &[&str]) {
    let (kb, before) = ready();
    corrupt(kb.path());
    let out = evokb(kb.path(), &["import"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    for e in expect {
        assert!(err.contains(e), "expected {e:?} in:\n{err}");
    }
    assert_eq!(before, cli_digest(kb.path()), "a failed import writes nothing");
}

fn rewrite(kb: &Path, path: &str, f: impl FnOnce(String) -> String) {
    let full = kb.join(path);
    let text = std::fs::read_to_string(&full).expect("read");
    std::fs::write(&full, f(text)).expect("write");
}

#[test]
fn malformed_front_matter() {
    check(
        |kb| {
            rewrite(kb, &topic("layout.md"), |t| t.replacen("kind: pattern\n", "kind pattern\n", 1))
        },
        3,
        &[
            "layout.md:9: error: malformed front-matter line 'kind pattern'",
            "expected 'key: value'",
        ],
    );
}

#[test]
fn unterminated_front_matter_block() {
    check(
        |kb| rewrite(kb, &topic("elementwise.md"), |t| format!("{t}\n---\nid: PL-x\nkind: trap\n")),
        3,
        &["elementwise.md:", "no '---' line closes", "expected a closing '---'"],
    );
}

#[test]
fn duplicate_id_names_both_places() {
    check(
        |kb| {
            rewrite(kb, &topic("constants.md"), |t| {
                t.replacen("id: CONST-L1-port-bw", "id: CONST-capacity-910B2C", 1)
            })
        },
        3,
        &[
            "duplicate entry id 'CONST-capacity-910B2C'",
            "constants.md:27",
            "first defined at",
            "constants.md:7",
        ],
    );
}

#[test]
fn invalid_utf8() {
    check(
        |kb| {
            let p = kb.join(".agents/evolution/stats.md");
            let mut bytes = std::fs::read(&p).expect("read");
            bytes.extend_from_slice(b"\n| 2026 | x | \xff\xfe |\n");
            std::fs::write(&p, bytes).expect("write");
        },
        3,
        &["stats.md:", "invalid UTF-8", "expected UTF-8 text"],
    );
}

#[test]
fn unreadable_file() {
    check(
        |kb| {
            let p = kb.join(".agents/evolution/queue.md");
            std::fs::remove_file(&p).expect("rm");
            std::fs::create_dir(&p).expect("a directory where the file should be");
        },
        3,
        &["queue.md: error: the path is a directory; expected a regular file"],
    );
}

#[test]
fn invalid_json_in_the_search_log() {
    check(
        |kb| {
            rewrite(kb, ".agents/evolution/kb_search_log.jsonl", |t| {
                format!("{t}{{\"ts\": \"2026\", \"query\": \n")
            })
        },
        3,
        &["kb_search_log.jsonl:34: error: invalid JSON", "expected one JSON object per line"],
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    check(
        |kb| {
            rewrite(kb, &topic("layout.md"), |t| {
                t.replacen("kind: pattern\n", "kind pattern\n", 1)
            });
            rewrite(kb, ".agents/evolution/kb_search_log.jsonl", |t| format!("{t}oops\n"));
        },
        3,
        &["2 problem(s)", "layout.md:9", "kb_search_log.jsonl:34"],
    );
}

#[test]
fn a_value_that_would_break_the_file_is_refused() {
    let (kb, before) = ready();
    let out = evokb(kb.path(), &["set", "PL-1.6-copy-floor", "status", "a\n---\nid: injected"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("invalid value"), "{}", stderr(&out));
    let out =
        evokb(kb.path(), &["set", "PL-1.6-copy-floor", "--kind", "index_row", "summary", "a | b"]);
    assert_eq!(out.status.code(), Some(2), "an unescaped pipe would split the cell");
    let out = evokb(kb.path(), &["set", "no-such-id", "status", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no record has the id 'no-such-id'"));
    let out = evokb(
        kb.path(),
        &["set", "2026-09-01 初始化（conductor-self-evolution-design 落地）", "nope", "x"],
    );
    assert!(
        stderr(&out).contains("has no field 'nope' (fields: date, by, change)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(before, cli_digest(kb.path()));
}

#[test]
fn a_missing_store_is_a_clear_error() {
    let kb = sample();
    let out = evokb(kb.path(), &["import"]);
    assert_eq!(out.status.code(), Some(5));
    assert!(stderr(&out).contains("no evokb store in"), "{}", stderr(&out));
    assert!(stderr(&out).contains("evokb init"));
}
