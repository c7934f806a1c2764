//! The published JSON Schemas (`schemas/<command>.schema.json`, issue 11): every command with
//! `--json` has one, and the real output of each command (each of its shapes) on the bundled
//! sample validates against it. Each document is also broken (a required key removed) and
//! must then be refused, so no schema passes by accepting anything.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::*;

/// Owned command-line words, for the table of commands below.
fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// The validator of `schemas/NAME.schema.json`; building it checks the schema against the
/// draft 2020-12 meta-schema.
fn validator(name: &str) -> jsonschema::Validator {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{name}: draft 2020-12"
    );
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{name}: invalid schema: {e}"))
}

/// The sample with a store, the model-iteration fixture and the timelines imported; returns
/// the `import --json` document too.
fn loaded() -> (tempfile::TempDir, Value) {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    let import = evokb(kb.path(), &["import", "--json"]);
    assert!(import.status.success(), "{}", stderr(&import));
    let import: Value = serde_json::from_slice(&import.stdout).expect("import --json");
    import_analytics_inputs(kb.path());
    (kb, import)
}

/// `doc` with one required key gone: the first key of an object, or of an array's first row
/// (an empty array gets a row with no keys). Every shape's first key is a required one.
fn broken(doc: &Value) -> Value {
    let mut doc = doc.clone();
    let target = match &mut doc {
        Value::Array(rows) if rows.is_empty() => {
            rows.push(serde_json::json!({}));
            return doc;
        }
        Value::Array(rows) => &mut rows[0],
        other => other,
    };
    let map = target.as_object_mut().expect("an object or an array of objects");
    let first = map.keys().next().cloned().expect("a key to remove");
    map.remove(&first);
    doc
}

/// The subcommand paths whose help lists `--json`, found by walking `evokb --help`.
fn commands_with_json(dir: &Path) -> BTreeSet<String> {
    fn subcommands(help: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut inside = false;
        for line in help.lines() {
            if line.starts_with("Commands:") {
                inside = true;
            } else if inside && line.trim().is_empty() {
                break;
            } else if inside {
                if let Some(word) = line.split_whitespace().next() {
                    if word != "help" {
                        out.push(word.to_string());
                    }
                }
            }
        }
        out
    }
    let mut found = BTreeSet::new();
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = stdout(&evokb(dir, &args));
        let takes_json = help.lines().any(|l| l.trim_start().starts_with("--json"));
        if takes_json && !path.is_empty() {
            found.insert(path.join(" "));
        }
        for sub in subcommands(&help) {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
    }
    found
}

#[test]
fn every_json_output_validates_against_its_published_schema_and_a_broken_one_does_not() {
    let (kb, import) = loaded();
    let d = kb.path();
    let s = |p: &Path| p.to_str().expect("utf-8").to_string();
    let map = d.join("map.json");
    std::fs::write(
        &map,
        r#"[{"entry": "TRAP-fp16-opmath-golden", "pattern": "travel_agent_vs_ct", "round": "R1"},
            {"entry": "PL-1.17-subfp32-fp32-transit", "verdict": "precision", "merged_at": "2026-09-01T00:00:00Z"}]"#,
    )
    .expect("write the mapping");
    let task_dir = data("timelines/rmsnorm-_rms_fwd_kernel-20260905T101420Z");
    let export_dir = d.join("exported");
    let stamp = "tilelang 0.1.2+4515de8 + CANN 8.5.0";

    // (schema, the command's path, its arguments). `render --check` runs before and after a
    // render, so both the differing and the matching shape are checked.
    let cases: Vec<(&str, &str, Vec<String>)> = vec![
        ("import-check", "import", argv(&["import", "--check"])),
        ("render-check", "render", argv(&["render", "--check"])),
        ("verify", "verify", argv(&["verify"])),
        ("get", "get", argv(&["get", "PL-1.6-copy-floor"])),
        ("get", "get", argv(&["get", "VP-2026-0003"])),
        ("list", "list", argv(&["list"])),
        ("list", "list", argv(&["list", "--kind", "repro"])),
        ("query", "query", argv(&["query", "--family", "attention"])),
        ("query", "query", argv(&["query", "--family", "nothing-at-all"])),
        ("search", "search", argv(&["search", "attention", "块宽"])),
        ("search", "search", argv(&["search", "attention", "--offset", "3"])),
        ("search-index", "search", argv(&["search", "--index"])),
        ("similar", "similar", argv(&["similar", "copy", "floor"])),
        ("lint", "lint", argv(&["lint"])),
        ("budget", "budget", argv(&["budget"])),
        ("stale", "stale", argv(&["stale", "--stamp", stamp])),
        ("stale", "stale", argv(&["stale", "--stamp", stamp, "--include-unknown"])),
        ("doctor", "doctor", argv(&["doctor"])),
        ("queue-show", "queue show", argv(&["queue", "show", "VP-2026-0003"])),
        ("queue-due", "queue due", argv(&["queue", "due", "--today", "2027-01-01"])),
        ("report", "report", argv(&["report", "--task", "manual"])),
        ("report-round", "report round", argv(&["report", "round", "R2"])),
        ("stats-hits", "stats hits", argv(&["stats", "hits"])),
        ("stats-metrics", "stats metrics", argv(&["stats", "metrics"])),
        ("stats-transitions", "stats transitions", argv(&["stats", "transitions"])),
        ("stats-transitions", "stats transitions", argv(&["stats", "transitions", "--cases"])),
        (
            "stats-transitions",
            "stats transitions",
            argv(&["stats", "transitions", "--by", "subset"]),
        ),
        (
            "stats-transitions",
            "stats transitions",
            argv(&["stats", "transitions", "--by", "pattern"]),
        ),
        ("stats-recurrence", "stats recurrence", argv(&["stats", "recurrence"])),
        ("stats-recurrence", "stats recurrence", argv(&["stats", "recurrence", "--after", "fix"])),
        (
            "stats-recurrence",
            "stats recurrence",
            argv(&["stats", "recurrence", "--after", "injection"]),
        ),
        (
            "stats-recurrence",
            "stats recurrence",
            argv(&["stats", "recurrence", "--after", "injection", "--map", &s(&map)]),
        ),
        ("stats-recurrence", "stats recurrence", argv(&["stats", "recurrence", "--by", "subset"])),
        ("stats-recurrence", "stats recurrence", argv(&["stats", "recurrence", "--by", "pattern"])),
        (
            "stats-recurrence",
            "stats recurrence",
            argv(&["stats", "recurrence", "--after", "fix", "--by", "pattern"]),
        ),
        (
            "stats-recurrence",
            "stats recurrence",
            argv(&["stats", "recurrence", "--after", "injection", "--by", "subset"]),
        ),
        (
            "stats-recurrence",
            "stats recurrence",
            argv(&["stats", "recurrence", "--after", "injection", "--by", "pattern"]),
        ),
        (
            "timeline-summary",
            "timeline summary",
            argv(&["timeline", "summary", "--task", "rmsnorm-_rms_fwd_kernel-20260905T101420Z"]),
        ),
        (
            "timeline-summary",
            "timeline summary",
            argv(&["timeline", "summary", "--dir", &s(&task_dir)]),
        ),
        (
            "timeline-summary",
            "timeline summary",
            argv(&["timeline", "summary", "--task", "no-such-task"]),
        ),
        ("export", "export", argv(&["export", "--format", "csv", &s(&export_dir)])),
        ("render-check", "render", argv(&["render", "--check"])),
    ];

    let mut checked: Vec<(&str, Value)> = vec![("import", import)];
    for (i, (name, _, args)) in cases.iter().enumerate() {
        if i == cases.len() - 1 {
            // The last check is of a knowledge base that matches its store.
            let out = evokb(d, &["render"]);
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.push("--json");
        let out = evokb(d, &args);
        // `lint`, `doctor` and `render --check` exit 1 on what they find; the JSON is printed.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {}", stderr(&out));
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?} prints JSON: {e}: {}", stdout(&out)));
        checked.push((name, doc));
    }
    // Both render --check shapes were seen.
    let render_ok: Vec<bool> = checked
        .iter()
        .filter(|(n, _)| *n == "render-check")
        .map(|(_, d)| d["ok"].as_bool().expect("ok"))
        .collect();
    assert_eq!(render_ok, [false, true], "the stats.md rows differ until rendered");

    for (name, doc) in &checked {
        let v = validator(name);
        let errors: Vec<String> =
            v.iter_errors(doc).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{name}: the real output does not validate: {errors:?}\n{doc}");
        let bad = broken(doc);
        assert!(!v.is_valid(&bad), "{name}: a document without a required key passes: {bad}");
    }

    // Every schema file is used, and every command that takes --json has its schema.
    let used: BTreeSet<String> = checked.iter().map(|(n, _)| n.to_string()).collect();
    let files: BTreeSet<String> = std::fs::read_dir(schema_dir())
        .expect("schemas/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .map(|f| f.strip_suffix(".schema.json").map(str::to_string).unwrap_or(f))
        .collect();
    assert_eq!(used, files, "schemas/ holds exactly the schemas this test validates");
    let mut covered: BTreeSet<String> = cases.iter().map(|(_, c, _)| c.to_string()).collect();
    covered.insert("import".into());
    assert_eq!(commands_with_json(d), covered, "every command with --json is validated");
}
