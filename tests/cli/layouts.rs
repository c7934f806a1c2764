//! A knowledge base kept under other paths: `evokb.toml` declares where each file role lives,
//! and import, byte-identical render, query, search and lint work on it exactly as on the
//! default layout. A declared path that leaves the root is refused.

use std::path::Path;

use evokb_export::layout::defaults;

use crate::support::*;

/// Where each default-layout file of the sample goes in the other layout.
const MOVES: [(&str, &str); 7] = [
    (defaults::INDEX, "kb/INDEX.md"),
    (defaults::QUEUE, "kb/queue.md"),
    (defaults::STATS, "kb/stats.md"),
    (defaults::GAPS, "kb/gaps.md"),
    (defaults::SEARCH_LOG, "kb/log.jsonl"),
    (defaults::BOTTLENECKS, "kb/bottlenecks.md"),
    (defaults::ALG_CANDIDATES, "kb/alg.md"),
];

const CONFIG: &str = r#"[layout]
topics = ["kb/patterns/*.md"]
index = "kb/INDEX.md"
queue = "kb/queue.md"
stats = "kb/stats.md"
gaps = "kb/gaps.md"
search_log = "kb/log.jsonl"
bottlenecks = "kb/bottlenecks.md"
algorithm_candidates = "kb/alg.md"
repro = "kb/patterns/repro"
"#;

/// The sample rearranged into the other layout, with its `evokb.toml`.
fn relaid() -> tempfile::TempDir {
    let src = sample_src();
    let dir = tempfile::tempdir().expect("tempdir");
    let to = dir.path();
    std::fs::create_dir_all(to.join("kb/patterns")).expect("mkdir");
    for entry in std::fs::read_dir(src.join(defaults::PL_DIR)).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name().into_string().expect("utf-8");
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &to.join("kb/patterns").join(&name));
        } else if name != "INDEX.md" {
            std::fs::copy(entry.path(), to.join("kb/patterns").join(&name)).expect("copy");
        }
    }
    for (from, dest) in MOVES {
        if src.join(from).exists() {
            std::fs::copy(src.join(from), to.join(dest)).expect("copy");
        }
    }
    std::fs::write(to.join("evokb.toml"), CONFIG).expect("config");
    dir
}

fn ok(kb: &Path, args: &[&str]) -> String {
    let out = evokb(kb, args);
    assert_eq!(out.status.code(), Some(0), "evokb {args:?}: {}", stderr(&out));
    stdout(&out)
}

fn json(kb: &Path, args: &[&str]) -> serde_json::Value {
    let out = evokb(kb, args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&out)))
}

#[test]
fn a_declared_layout_imports_renders_queries_searches_and_lints_like_the_default() {
    let other = relaid();
    let default = sample();
    for kb in [other.path(), default.path()] {
        ok(kb, &["init"]);
    }
    let a = json(other.path(), &["import", "--json"]);
    let b = json(default.path(), &["import", "--json"]);
    assert_eq!(a["records"], b["records"], "the same records in either layout");
    assert_eq!(a["files"], b["files"]);

    // Byte-identical render, in place and to a directory.
    let check = evokb(other.path(), &["render", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let out = tempfile::tempdir().expect("tempdir");
    ok(other.path(), &["render", "--out", out.path().to_str().expect("utf-8")]);
    let written = files_under(out.path());
    assert!(written.iter().any(|p| p == Path::new("kb/queue.md")), "{written:?}");
    assert!(!written.iter().any(|p| p.starts_with(".agents")), "nothing under the default paths");
    for rel in &written {
        let got = std::fs::read(out.path().join(rel)).expect("rendered");
        let want = std::fs::read(other.path().join(rel)).expect("source");
        assert!(got == want, "{} differs from its source", rel.display());
    }

    // Query and search give the same entries.
    let qa = json(other.path(), &["query", "--family", "attention", "--json"]);
    let qb = json(default.path(), &["query", "--family", "attention", "--json"]);
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .expect("rows")
            .iter()
            .map(|r| r["id"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(!ids(&qa).is_empty());
    assert_eq!(ids(&qa), ids(&qb));
    let row = &qa[0];
    assert!(row["file"].as_str().is_some_and(|f| f.starts_with("kb/patterns/")), "{row}");
    let sa = json(other.path(), &["search", "fp16 golden opmath 精度", "--json"]);
    let sb = json(default.path(), &["search", "fp16 golden opmath 精度", "--json"]);
    let hit_ids = |v: &serde_json::Value| -> Vec<String> {
        v["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["id"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert!(!hit_ids(&sa).is_empty());
    assert_eq!(hit_ids(&sa), hit_ids(&sb));
    let log = std::fs::read_to_string(other.path().join("kb/log.jsonl")).expect("log");
    assert!(
        log.lines().last().is_some_and(|l| l.contains("fp16 golden opmath")),
        "the hit went to kb/log.jsonl"
    );

    // Lint finds the same problems, at the declared paths.
    let la = json(other.path(), &["lint", "--json"]);
    let lb = json(default.path(), &["lint", "--json"]);
    let codes = |v: &serde_json::Value| -> Vec<(String, String)> {
        let mut c: Vec<(String, String)> = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                // A repro script's id is its path: compare its file name.
                let id = f["id"].as_str().unwrap_or("");
                (
                    f["code"].as_str().unwrap_or("").to_string(),
                    id.rsplit('/').next().unwrap_or(id).to_string(),
                )
            })
            .collect();
        c.sort();
        c
    };
    assert_eq!(codes(&la), codes(&lb));
    assert!(!la.to_string().contains(".agents/"), "no finding names a default path");

    // A change lands in the declared files.
    ok(other.path(), &["set", "PL-1.9-blockwidth", "status", "stale"]);
    ok(other.path(), &["render"]);
    let index = std::fs::read_to_string(other.path().join("kb/INDEX.md")).expect("index");
    assert!(index
        .lines()
        .any(|l| l.starts_with("| PL-1.9-blockwidth ") && l.trim_end().ends_with("| stale |")));
}

#[test]
fn a_declared_path_that_leaves_the_root_is_refused() {
    // `init` reads the layout already; a store made before the bad edit refuses at import.
    let refused = |config: String, expect: &str| {
        let fresh = relaid();
        std::fs::write(fresh.path().join("evokb.toml"), &config).expect("config");
        let older = relaid();
        ok(older.path(), &["init"]);
        std::fs::write(older.path().join("evokb.toml"), &config).expect("config");
        for (kb, args) in [(fresh.path(), "init"), (older.path(), "import")] {
            let out = evokb(kb, &[args]);
            assert_eq!(out.status.code(), Some(3), "{args}: {}", stderr(&out));
            assert!(stderr(&out).contains(expect), "{args}: {}", stderr(&out));
        }
    };
    for bad in ["../queue.md", "/tmp/queue.md", "kb/../../queue.md"] {
        refused(CONFIG.replace("\"kb/queue.md\"", &format!("\"{bad}\"")), "queue = '");
        refused(
            CONFIG.replace("\"kb/queue.md\"", &format!("\"{bad}\"")),
            "leaves the knowledge-base root",
        );
    }
    refused(format!("{CONFIG}typo = \"x\"\n"), "unknown field");
}
