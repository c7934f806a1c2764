//! One-record edits in a file whose layout spans many chunks (issue #15): `set` and `add`
//! change the chunk they touch, and the store they leave is the one a fresh import of the
//! rendered files gives, byte for byte and digest for digest.

use evokb_export::{mutate, render_in_place, ImportOptions};
use evokb_store::{Kind, Store};

use crate::support::*;

const PL: &str = ".agents/skills/tilelang-op-optimize/references/pattern-library";
/// Enough rows that INDEX.md's layout spans several chunks.
const ROWS: usize = 700;

fn entry(n: usize) -> String {
    format!(
        "---\nid: BIG-{n}\nkind: pattern\nfamily: [big]\nstatus: verified\n---\n\n### big entry {n}\n\nbody {n}\n\n"
    )
}

/// The sample with a topic file `big.md` of [`ROWS`] entries and their INDEX section, imported.
fn sample_with_big_topic() -> (tempfile::TempDir, Store) {
    let kb = sample();
    let pl = kb.path().join(PL);
    let text: String = (0..ROWS).map(entry).collect();
    std::fs::write(pl.join("big.md"), format!("# Big\n\n{text}")).expect("write topic");
    let mut index = std::fs::read_to_string(pl.join("INDEX.md")).expect("index");
    index.push_str("\n### big.md — many rows\n\n| ID | 一句话 | 状态 |\n|----|--------|------|\n");
    for n in 0..ROWS {
        index.push_str(&format!("| BIG-{n} | big entry {n} | verified |\n"));
    }
    index.push_str("\nA closing note after the table.\n");
    std::fs::write(pl.join("INDEX.md"), index).expect("write index");
    let store = Store::create(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("create store");
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    (kb, store)
}

fn reimported_digest(kb: &std::path::Path) -> [u8; 32] {
    std::fs::remove_dir_all(kb.join(".evokb")).expect("rm");
    let fresh =
        Store::create(&kb.join(".evokb"), evokb_export::index::default_indexer()).expect("store");
    evokb_export::import(kb, &fresh, ImportOptions::default()).expect("import");
    digest(&fresh)
}

#[test]
fn set_in_a_many_chunk_index_changes_one_row_and_reimports_to_the_same_digest() {
    let (kb, store) = sample_with_big_topic();
    // The first row, rows around the chunk boundaries and the last row before the note.
    for n in [0, 1, 200, 255, 256, 511, 512, ROWS - 1] {
        let report =
            mutate::set_field(&store, &format!("BIG-{n}"), Some(Kind::Entry), "status", "stale")
                .expect("set");
        assert_eq!(report.changed.len(), 2, "the entry and its INDEX row: {report:?}");
    }
    let row = store.read().expect("r").record_by_id(Kind::IndexRow, "BIG-256").expect("get");
    assert_eq!(row.and_then(|r| r.field("status").map(str::to_owned)).as_deref(), Some("stale"));
    // A value that would break the table is refused, whichever chunk the row is in.
    let err = mutate::set_field(&store, "BIG-300", Some(Kind::IndexRow), "status", "a | b");
    assert!(err.is_err(), "an unescaped '|' is refused");
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let index = std::fs::read_to_string(kb.path().join(PL).join("INDEX.md")).expect("index");
    assert!(index.contains("| BIG-511 | big entry 511 | stale |\n| BIG-512 | big entry 512 | stale |\n| BIG-513 | big entry 513 | verified |\n"));
    assert!(index.ends_with(&format!(
        "| BIG-{} | big entry {} | stale |\n\nA closing note after the table.\n",
        ROWS - 1,
        ROWS - 1
    )));
    let before = digest(&store);
    drop(store);
    assert_eq!(reimported_digest(kb.path()), before);
}

#[test]
fn adds_to_a_many_chunk_index_split_its_chunk_and_reimport_to_the_same_digest() {
    let (kb, store) = sample_with_big_topic();
    // attention.md's section is in INDEX.md's first chunk: more rows than that chunk may grow
    // by before it splits, each after the section's last row.
    const ADDS: usize = 270;
    for n in 0..ADDS {
        let text = entry(10_000 + n).replace("BIG-", "ATT-");
        mutate::add_entries(&store, &format!("{PL}/attention.md"), &text).expect("add");
    }
    // And one after the last row of the file's last section.
    mutate::add_entries(&store, &format!("{PL}/big.md"), &entry(ROWS)).expect("add");
    let r = store.read().expect("r");
    let layout = r.file(&format!("{PL}/INDEX.md")).expect("f").expect("index");
    let ids: Vec<String> = layout
        .items
        .iter()
        .filter_map(|i| match i {
            evokb_store::LayoutItem::Record(k) => r.record(k).expect("get"),
            evokb_store::LayoutItem::Prose(_) => None,
        })
        .map(|r| r.id)
        .filter(|id| id.starts_with("BIG-") || id.starts_with("ATT-"))
        .collect();
    let want: Vec<String> = (0..ADDS)
        .map(|n| format!("ATT-{}", 10_000 + n))
        .chain((0..=ROWS).map(|n| format!("BIG-{n}")))
        .collect();
    assert_eq!(ids, want, "each row lands after its topic's last row, in order");
    drop(r);
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let index = std::fs::read_to_string(kb.path().join(PL).join("INDEX.md")).expect("index");
    let at = |s: &str| index.find(s).expect(s);
    assert!(at("### attention.md") < at("| ATT-10269 |"));
    assert!(at("| ATT-10269 |") < at("### traps-compiler.md"));
    assert!(index.contains(&format!("| BIG-{ROWS} | big entry {ROWS} | verified |\n\nA closing")));
    let before = digest(&store);
    drop(store);
    assert_eq!(reimported_digest(kb.path()), before);
}
