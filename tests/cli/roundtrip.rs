//! The lossless round trip on the real sample: import, render, compare bytes.

use evokb_export::{layout, mutate, render_in_place, render_to, ImportOptions};
use evokb_store::Store;

use crate::support::*;

/// The managed files of the bundled sample, by path.
const MANAGED: [&str; 13] = [
    ".agents/evolution/capability-gaps.md",
    ".agents/evolution/kb_search_log.jsonl",
    ".agents/evolution/queue.md",
    ".agents/evolution/stats.md",
    ".agents/skills/tilelang-op-optimize/references/bottleneck-patterns.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/INDEX.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/attention.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/cases.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/constants.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/elementwise.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/layout.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/traps-compiler.md",
    ".agents/skills/tilelang-op-optimize/references/pattern-library/traps-runtime.md",
];

#[test]
fn every_managed_file_of_the_sample_renders_back_byte_for_byte() {
    let (kb, store) = imported_sample();
    let out = tempfile::tempdir().expect("tempdir");
    let written = render_to(out.path(), &store, &evokb_export::NoDerivedRows).expect("render");
    // The managed files, then the repro scripts the store keeps.
    let repros = [
        "PL-1.12-bn-clamp-bm-guard.py",
        "PL-1.13-aiv-dup-subid-split.py",
        "PL-1.18-floor2-wins.py",
        "TRAP-DEVMODE-PERSIST-GEMM.py",
    ]
    .map(|name| format!("{}/repro/{name}", layout::defaults::PL_DIR));
    let want: Vec<String> =
        MANAGED.iter().map(|p| p.to_string()).chain(repros.iter().cloned()).collect();
    assert_eq!(written, want);
    for path in &want {
        let original = std::fs::read(kb.path().join(path)).expect("original");
        let rendered = std::fs::read(out.path().join(path)).expect("rendered");
        assert!(original == rendered, "{path} does not round-trip");
    }
    let counts = store.read().expect("read").counts().expect("counts");
    let tags: Vec<(&str, u64)> = counts.iter().map(|(k, n)| (k.tag(), *n)).collect();
    assert_eq!(
        tags,
        [
            ("entry", 66),
            ("index_row", 67),
            ("bottleneck", 13),
            ("queue_item", 118),
            ("gap", 13),
            ("distill_row", 15),
            ("hit_row", 72),
            ("metric_row", 5),
            ("change_row", 15),
            ("search_event", 33),
            ("repro", 4),
        ]
    );
    let report = evokb_export::verify(&store).expect("verify");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn rendering_is_the_same_whatever_order_the_files_were_imported_in() {
    let (_full_kb, full) = imported_sample();
    let piecewise_kb = tempfile::tempdir().expect("tempdir");
    let store =
        Store::create(&piecewise_kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("store");
    // Bring the files in one at a time, in reverse order, importing after each.
    for path in MANAGED.iter().rev() {
        let target = piecewise_kb.path().join(path);
        std::fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        std::fs::copy(sample_src().join(path), &target).expect("copy");
        evokb_export::import(piecewise_kb.path(), &store, ImportOptions::default())
            .expect("import");
    }
    copy_tree(
        &sample_src().join(layout::defaults::REPRO_DIR),
        &piecewise_kb.path().join(layout::defaults::REPRO_DIR),
    );
    evokb_export::import(piecewise_kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(digest(&full), digest(&store));
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    render_to(a.path(), &full, &evokb_export::NoDerivedRows).expect("render");
    render_to(b.path(), &store, &evokb_export::NoDerivedRows).expect("render");
    render_to(b.path(), &store, &evokb_export::NoDerivedRows).expect("render twice");
    for path in MANAGED {
        assert_eq!(
            std::fs::read(a.path().join(path)).ok(),
            std::fs::read(b.path().join(path)).ok(),
            "{path}"
        );
    }
}

/// The lines of `a` and `b` that differ, as (line number, old, new), for files of equal length.
fn changed_lines(a: &str, b: &str) -> Vec<(usize, String, String)> {
    assert_eq!(a.lines().count(), b.lines().count(), "line counts differ");
    a.lines()
        .zip(b.lines())
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i + 1, x.to_string(), y.to_string()))
        .collect()
}

#[test]
fn a_one_field_change_touches_only_that_records_line_and_its_index_row() {
    let (kb, store) = imported_sample();
    mutate::set_field(&store, "PL-1.6-copy-floor", None, "status", "stale").expect("set");
    let report =
        render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    assert_eq!(report.written, [layout::defaults::INDEX.to_string(), topic("elementwise.md")]);
    for path in MANAGED {
        let before = std::fs::read_to_string(sample_src().join(path)).expect("before");
        let after = std::fs::read_to_string(kb.path().join(path)).expect("after");
        let diff = changed_lines(&before, &after);
        match path {
            p if p == topic("elementwise.md") => {
                assert_eq!(diff, [(12, "status: verified".into(), "status: stale".into())]);
            }
            layout::defaults::INDEX => {
                assert_eq!(diff.len(), 1);
                assert!(
                    diff[0].1.starts_with("| PL-1.6-copy-floor |")
                        && diff[0].2.ends_with("| stale |")
                );
            }
            _ => assert!(diff.is_empty(), "{path} changed: {diff:?}"),
        }
    }
}

#[test]
fn a_new_entry_appears_in_its_topic_file_and_its_index_table() {
    let (kb, store) = imported_sample();
    let entry = "---\nid: TRAP-new-thing\nkind: trap\nfamily: [attention]\nstatus: verified\norigin_task: t-1\ntoolchain: tilelang 0.1.2 / CANN 8.5.0\nrepro: repro-missing\n---\n\n### 新陷阱：something new\n\nbody\n";
    mutate::add_entries(&store, &topic("attention.md"), entry).expect("add");
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let topic_text = std::fs::read_to_string(kb.path().join(topic("attention.md"))).expect("read");
    assert!(topic_text.ends_with(entry), "the entry is appended verbatim");
    let index = std::fs::read_to_string(kb.path().join(layout::defaults::INDEX)).expect("read");
    let row = "| TRAP-new-thing | 新陷阱：something new | verified |";
    let lines: Vec<&str> = index.lines().collect();
    let at = lines.iter().position(|l| *l == row).expect("index row present");
    assert!(
        lines[at - 1].starts_with("| PL-1.16-expert-dualscope-bypass |"),
        "after the last attention row"
    );
    // And the files import back to the same store.
    let again = Store::create(
        &tempfile::tempdir().expect("t").keep().join(".evokb"),
        evokb_export::index::default_indexer(),
    )
    .expect("store");
    evokb_export::import(kb.path(), &again, ImportOptions::default()).expect("import");
    assert_eq!(digest(&store), digest(&again));
}

#[test]
fn deleting_the_store_and_importing_the_rendered_files_gives_the_same_digest() {
    let (kb, store) = imported_sample();
    mutate::set_field(&store, "VP-2026-0003", None, "confirmations", "2/2").expect("set");
    mutate::set_field(&store, "VP-2026-0003", None, "confirmed_by", "task t-2 2026-11-29")
        .expect("add field");
    mutate::set_field(&store, "BP_ub_pressure", None, "title", "UB 压力（更新）")
        .expect("set title");
    mutate::set_field(&store, "CG-2026-0004", None, "occurrences", "2").expect("set gap");
    mutate::set_field(&store, "TRAP-C10-strided-gather", None, "id", "TRAP-C10-strided-gather-v2")
        .expect("rename");
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    std::fs::remove_dir_all(kb.path().join(".evokb")).expect("rm");
    let fresh = Store::create(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("store");
    evokb_export::import(kb.path(), &fresh, ImportOptions::default()).expect("import");
    assert_eq!(digest(&store), digest(&fresh));
    let renamed = fresh
        .read()
        .expect("r")
        .record_by_id(evokb_store::Kind::IndexRow, "TRAP-C10-strided-gather-v2")
        .expect("get");
    assert!(renamed.is_some(), "renaming an entry renames its INDEX row");
}

#[test]
fn the_cli_imports_renders_and_verifies_the_sample() {
    let kb = sample();
    let out = evokb(kb.path(), &["init"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = evokb(kb.path(), &["import", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["records"]["entry"], 66);
    assert_eq!(json["records"]["queue_item"], 118);
    let out = evokb(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let sub = kb.path().join(layout::defaults::PL_DIR);
    let out = evokb(&sub, &["verify", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the store is found from a subdirectory: {}",
        stderr(&out)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["digest"].as_str().map(str::len), Some(64));
    let out = evokb(kb.path(), &["get", "PL-1.6-copy-floor", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["fields"]["kind"], "constant");
    assert_eq!(json["kind"], "entry");
}
