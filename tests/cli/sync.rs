//! Sync without losing anyone's work: reviewer edits, two-sided conflicts, refused renders.

use evokb_export::{mutate, render_in_place, ImportError, ImportOptions, Prefer, RenderError};
use evokb_store::Kind;

use crate::support::*;

fn edit(kb: &std::path::Path, path: &str, from: &str, to: &str) {
    let full = kb.join(path);
    let text = std::fs::read_to_string(&full).expect("read");
    assert!(text.contains(from), "{from} not in {path}");
    std::fs::write(&full, text.replacen(from, to, 1)).expect("write");
}

fn field(store: &evokb_store::Store, kind: Kind, id: &str, key: &str) -> Option<String> {
    let rec = store.read().expect("r").record_by_id(kind, id).expect("get")?;
    rec.field(key).map(str::to_string)
}

#[test]
fn a_reviewers_edit_followed_by_import_updates_only_that_record() {
    let (kb, store) = imported_sample();
    let before = store.read().expect("r").records().expect("records");
    edit(kb.path(), &topic("layout.md"), "status: verified", "status: stale");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((report.added, report.updated, report.removed), (0, 1, 0));
    let after = store.read().expect("r").records().expect("records");
    let changed: Vec<&str> =
        after.iter().zip(&before).filter(|(a, b)| a != b).map(|(a, _)| a.id.as_str()).collect();
    assert_eq!(changed, ["PL-1.1-transpose-chain"]);
}

#[test]
fn a_record_changed_on_both_sides_is_a_conflict_and_nothing_is_written() {
    let (kb, store) = imported_sample();
    mutate::set_field(&store, "PL-1.1-transpose-chain", None, "status", "overturned").expect("set");
    edit(kb.path(), &topic("layout.md"), "status: verified", "status: stale");
    let before = digest(&store);
    let err =
        evokb_export::import(kb.path(), &store, ImportOptions::default()).expect_err("conflict");
    let ImportError::Conflicts { conflicts } = err else {
        panic!("expected a conflict, got {err}")
    };
    assert_eq!(conflicts.len(), 1);
    assert_eq!(
        (conflicts[0].id.as_str(), conflicts[0].file.as_str(), conflicts[0].line),
        ("PL-1.1-transpose-chain", topic("layout.md").as_str(), 7)
    );
    assert_eq!(before, digest(&store), "a refused import writes nothing");

    evokb_export::import(
        kb.path(),
        &store,
        ImportOptions { prefer: Some(Prefer::Store), strict: false },
    )
    .expect("prefer store");
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.1-transpose-chain", "status").as_deref(),
        Some("overturned")
    );
    // The file still says stale and the store overturned: a further edit conflicts again.
    edit(kb.path(), &topic("layout.md"), "status: stale", "status: verified");
    assert!(evokb_export::import(kb.path(), &store, ImportOptions::default()).is_err());
    evokb_export::import(
        kb.path(),
        &store,
        ImportOptions { prefer: Some(Prefer::File), strict: false },
    )
    .expect("prefer file");
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.1-transpose-chain", "status").as_deref(),
        Some("verified")
    );
}

#[test]
fn render_refuses_to_overwrite_a_file_edited_and_not_imported() {
    let (kb, store) = imported_sample();
    mutate::set_field(&store, "VP-2026-0004", None, "status", "expired").expect("set");
    edit(kb.path(), ".agents/evolution/queue.md", "- confirmations: 1/2", "- confirmations: 1/2 ");
    let edited = std::fs::read(kb.path().join(".agents/evolution/queue.md")).expect("read");
    let err = render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false)
        .expect_err("refused");
    let RenderError::EditedOnDisk { files } = &err else { panic!("unexpected {err}") };
    assert_eq!(files, &[".agents/evolution/queue.md".to_string()]);
    assert!(err.to_string().contains(".agents/evolution/queue.md"));
    assert_eq!(std::fs::read(kb.path().join(".agents/evolution/queue.md")).expect("read"), edited);
    // Importing first settles it: both edits touch different records.
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let text = std::fs::read_to_string(kb.path().join(".agents/evolution/queue.md")).expect("read");
    assert!(text.contains("- status: expired") && text.contains("- confirmations: 1/2 \n"));
}

#[test]
fn an_entry_deleted_from_its_file_is_deleted_from_the_store() {
    let (kb, store) = imported_sample();
    let path = kb.path().join(topic("constants.md"));
    let text = std::fs::read_to_string(&path).expect("read");
    let start = text.find("---\nid: CONST-L1-port-bw").expect("entry");
    let end = start + 4 + text[start + 4..].find("\n---\nid:").expect("next") + 1;
    std::fs::write(&path, format!("{}{}", &text[..start], &text[end..])).expect("write");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.removed, 1);
    assert!(field(&store, Kind::Entry, "CONST-L1-port-bw", "id").is_none());
}

#[test]
fn an_entry_added_in_the_store_survives_an_import_of_an_edit_to_the_same_file() {
    let (kb, store) = imported_sample();
    let entry = "---\nid: PL-9.9-new\nkind: pattern\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### new\n";
    mutate::add_entries(&store, &topic("layout.md"), entry).expect("add");
    edit(kb.path(), &topic("layout.md"), "status: verified", "status: stale");
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert!(field(&store, Kind::Entry, "PL-9.9-new", "id").is_some());
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let text = std::fs::read_to_string(kb.path().join(topic("layout.md"))).expect("read");
    assert!(text.ends_with(entry) && text.contains("status: stale"));
    let report = evokb_export::verify(&store).expect("verify");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

/// An import passes over a record whose text is the one last synced only while the store holds
/// its file as it was synced: after a store-side change to one record of a file (not yet
/// rendered), an import of a hand edit to another record of that file takes the edit and keeps
/// the store's change; once rendered, a later edit is taken record by record again.
#[test]
fn a_store_side_change_survives_an_import_of_a_hand_edit_to_another_record_of_its_file() {
    let (kb, store) = imported_sample();
    let layout_md = topic("layout.md");
    mutate::set_field(&store, "PL-1.2-caxis-accum", None, "status", "stale").expect("set");
    edit(
        kb.path(),
        &layout_md,
        "id: PL-1.1-transpose-chain\nkind: pattern",
        "id: PL-1.1-transpose-chain\nkind: trap",
    );
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((report.added, report.updated, report.removed), (0, 1, 0));
    assert_eq!(report.kept_store, 1, "the set status is the store's change");
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.2-caxis-accum", "status").as_deref(),
        Some("stale")
    );
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.1-transpose-chain", "kind").as_deref(),
        Some("trap")
    );
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    let text = std::fs::read_to_string(kb.path().join(&layout_md)).expect("read");
    assert!(text
        .contains("id: PL-1.2-caxis-accum\nkind: pattern\nfamily: [pooling, window, elementwise]"));
    edit(
        kb.path(),
        &layout_md,
        "id: PL-1.1-transpose-chain\nkind: trap",
        "id: PL-1.1-transpose-chain\nkind: pattern",
    );
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((report.added, report.updated, report.removed, report.kept_store), (0, 1, 0, 0));
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.2-caxis-accum", "status").as_deref(),
        Some("stale")
    );
    assert_eq!(
        field(&store, Kind::Entry, "PL-1.1-transpose-chain", "kind").as_deref(),
        Some("pattern")
    );
    let report = evokb_export::verify(&store).expect("verify");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}

#[test]
fn the_cli_reports_a_conflict_with_id_file_and_line_and_exits_4() {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    assert!(evokb(kb.path(), &["set", "TRAP-C12-copy-dtype-cast", "status", "stale"])
        .status
        .success());
    edit(
        kb.path(),
        &topic("traps-compiler.md"),
        "id: TRAP-C12-copy-dtype-cast\nkind: trap",
        "id: TRAP-C12-copy-dtype-cast\nkind: pattern",
    );
    let out = evokb(kb.path(), &["import"]);
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert!(
        err.contains("traps-compiler.md:") && err.contains("TRAP-C12-copy-dtype-cast"),
        "{err}"
    );
    assert!(err.contains("--prefer"), "{err}");
    let out = evokb(kb.path(), &["render"]);
    assert_eq!(out.status.code(), Some(4), "render refuses the unimported edit");
    assert!(stderr(&out).contains("traps-compiler.md"));
}

#[test]
fn a_deleted_managed_file_is_reported_and_written_again_by_render() {
    let (kb, store) = imported_sample();
    let path = kb.path().join(".agents/evolution/stats.md");
    let original = std::fs::read(&path).expect("read");
    std::fs::remove_file(&path).expect("rm");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert!(report
        .warnings
        .iter()
        .any(|w| w.file.ends_with("stats.md") && w.message.contains("missing on disk")));
    assert!(field(&store, Kind::MetricRow, "first_pass_rate", "指标").is_some(), "records kept");
    render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false).expect("render");
    assert_eq!(std::fs::read(&path).expect("read"), original);
}

/// The placement check runs inside the per-file work verify shares out over its threads; it
/// must still find every misplaced record and report the problems in the order of the files
/// and then of the records, whichever thread checked which file.
#[test]
fn verify_reports_records_placed_in_the_wrong_file_twice_or_not_at_all() {
    use evokb_store::{CaseHash, LayoutItem};
    let (_kb, store) = imported_sample();
    let mut w = store.write().expect("write");
    let layouts = w.files().expect("files");
    let keys = |l: &evokb_store::FileLayout| -> Vec<CaseHash> {
        l.items
            .iter()
            .filter_map(|i| match i {
                LayoutItem::Record(k) => Some(*k),
                LayoutItem::Prose(_) => None,
            })
            .collect()
    };
    let a = layouts.iter().rev().find(|l| keys(l).len() >= 3).expect("a file of three records");
    let b = layouts.iter().find(|l| l.path != a.path).expect("another file");
    let (k1, k2, k3) = (keys(a)[0], keys(a)[1], keys(a)[2]);
    // One record says it belongs elsewhere; another is dropped from the layout and a third is
    // placed twice; the layout also names a record the store does not hold.
    let mut moved = w.record(&k1).expect("get").expect("record");
    moved.file = b.path.clone().into();
    w.put_record(&moved).expect("put");
    let missing = CaseHash([7; 32]);
    let mut damaged = a.clone();
    damaged.items.retain(|i| *i != LayoutItem::Record(k2));
    damaged.items.push(LayoutItem::Record(k3));
    damaged.items.push(LayoutItem::Record(missing));
    w.put_file(&damaged).expect("put layout");
    w.commit().expect("commit");
    let dropped = store.read().expect("r").record(&k2).expect("get").expect("record");
    let twice = store.read().expect("r").record(&k3).expect("get").expect("record");

    let problems = evokb_export::verify(&store).expect("verify").problems;
    let at = |sentence: &str| {
        problems
            .iter()
            .position(|p| p == sentence)
            .unwrap_or_else(|| panic!("verify did not say {sentence:?}; it said {problems:#?}"))
    };
    let wrong_file = at(&format!(
        "{} '{}' belongs to '{}' but is placed in '{}'",
        moved.kind, moved.id, b.path, a.path
    ));
    let dangling = at(&format!(
        "the layout of '{}' names record {} which the store does not hold",
        a.path,
        missing.to_hex()
    ));
    let mut counts = [
        at(&format!(
            "{} '{}' is placed 0 times in file layouts, expected once",
            dropped.kind, dropped.id
        )),
        at(&format!(
            "{} '{}' is placed 2 times in file layouts, expected once",
            twice.kind, twice.id
        )),
    ];
    assert!(wrong_file < dangling, "{problems:#?}");
    // The placement counts come after every file's problems, in key order of the records.
    counts.sort_unstable();
    assert!(dangling < counts[0], "{problems:#?}");
    let by_key = if k2.0 < k3.0 { [k2, k3] } else { [k3, k2] };
    let first = if by_key[0] == k2 { &dropped } else { &twice };
    assert!(problems[counts[0]].contains(&format!("'{}'", first.id)), "{problems:#?}");
}
