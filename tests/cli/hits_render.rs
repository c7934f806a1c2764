//! Hits stay safe to render, and `--prefer` settles a conflict everywhere it shows.
//!
//! - any task id or query text survives into the search log and the stats.md hit table;
//! - `render --check` compares exactly what `render` writes, pending hits included;
//! - a count a person wrote in the hit table is a baseline that later hits add to;
//! - the stored hit counters stay equal to a recount of the events: recorded hits and imports
//!   that only add events keep them current, any other change to the events leaves them to be
//!   counted again;
//! - after `import --prefer`, an entry and its INDEX row agree.

use evokb_evolve::hits;
use evokb_export::{layout, mutate, ImportOptions, Prefer};
use evokb_store::Kind;

use crate::support::*;

const STATS: &str = layout::defaults::STATS;

fn hit_row_line(kb: &std::path::Path, entry: &str) -> String {
    let text = std::fs::read_to_string(kb.join(STATS)).expect("stats");
    text.lines()
        .find(|l| l.starts_with('|') && l.contains(entry) && !l.contains("EVOLVE"))
        .unwrap_or_else(|| panic!("no hit row for {entry}"))
        .to_string()
}

fn cells(line: &str) -> Vec<String> {
    let row = evokb_export::parse::table::split_row(line).expect("a table row");
    row.cells.iter().map(|c| c.value.to_string()).collect()
}

#[test]
fn a_task_with_a_pipe_or_a_newline_survives_into_the_log_and_the_hit_table() {
    let (kb, store) = imported_sample();
    drop(store);
    for task in ["evil | extra", "line one\nline two"] {
        let out =
            evokb(kb.path(), &["search", "fp16 golden opmath 精度", "--task", task, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let out = evokb(kb.path(), &["render"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "render after a search with task {task:?}: {}",
            stderr(&out)
        );
        let out = evokb(kb.path(), &["render", "--check"]);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        // The log line is JSON, so the task comes back exactly.
        let log =
            std::fs::read_to_string(kb.path().join(layout::defaults::SEARCH_LOG)).expect("log");
        let last: serde_json::Value =
            serde_json::from_str(log.lines().last().expect("a line")).expect("json line");
        assert_eq!(last["task"].as_str(), Some(task));
        // The table cell holds the task escaped, as one cell.
        let line = hit_row_line(kb.path(), "TRAP-fp16-opmath-golden");
        let row = cells(&line);
        assert_eq!(row.len(), 4, "{line}");
        assert_eq!(evokb_export::parse::table::unescape_cell(&row[2]), task);
        // A fresh import of the rendered files changes nothing.
        let out = evokb(kb.path(), &["import", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(
            (json["added"].as_u64(), json["updated"].as_u64()),
            (Some(0), Some(0)),
            "{task:?}"
        );
    }
}

#[test]
fn render_check_compares_exactly_what_render_writes() {
    let (kb, store) = imported_sample();
    hits::record_hit(
        kb.path(),
        &store,
        "2026-11-30T10:00:00Z",
        "q",
        &["PL-1.9-blockwidth".into(), "TRAP-fp16-opmath-golden".into()],
        Some("task-check"),
    )
    .expect("hit");
    let diffs = evokb_evolve::render::check(kb.path(), &store).expect("check");
    let paths: Vec<&str> = diffs.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, [STATS], "the pending hits are a difference the check reports");
    let out = tempfile::tempdir().expect("tempdir");
    evokb_evolve::render::render_to(out.path(), &store).expect("render --out");
    let written = std::fs::read_to_string(out.path().join(STATS)).expect("rendered stats");
    assert_eq!(diffs[0].rendered, written, "check shows the bytes render writes");
    let report = evokb_evolve::render::render_in_place(kb.path(), &store, false).expect("render");
    assert_eq!(report.written, [STATS]);
    assert_eq!(std::fs::read_to_string(kb.path().join(STATS)).expect("stats"), written);
    assert!(evokb_evolve::render::check(kb.path(), &store).expect("check").is_empty());
}

#[test]
fn a_hand_kept_count_is_a_baseline_that_later_hits_add_to() {
    let (kb, store) = imported_sample();
    // A person counted 5 hits where the log holds 4 events: the 5 stands.
    let id = "CONST-capacity-910B2C";
    assert_eq!(cells(&hit_row_line(kb.path(), id))[1], "5");
    let log = std::fs::read_to_string(kb.path().join(layout::defaults::SEARCH_LOG)).expect("log");
    assert_eq!(log.matches(id).count(), 4);
    evokb_evolve::render::render_in_place(kb.path(), &store, false).expect("render");
    assert_eq!(
        cells(&hit_row_line(kb.path(), id))[1],
        "5",
        "a render without hits changes nothing"
    );
    hits::record_hit(kb.path(), &store, "2026-11-30T10:00:00Z", "q", &[id.into()], Some("t1"))
        .expect("hit");
    evokb_evolve::render::render_in_place(kb.path(), &store, false).expect("render");
    let row = cells(&hit_row_line(kb.path(), id));
    assert_eq!((row[1].as_str(), row[2].as_str()), ("6", "t1"));
    // A person corrects the count; later hits add to the correction.
    let full = kb.path().join(STATS);
    let text = std::fs::read_to_string(&full).expect("stats");
    let line = hit_row_line(kb.path(), id);
    std::fs::write(&full, text.replacen(&line, &line.replacen("| 6 |", "| 10 |", 1), 1))
        .expect("edit");
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    hits::record_hit(kb.path(), &store, "2026-11-30T10:00:01Z", "q", &[id.into()], None)
        .expect("hit");
    hits::record_hit(kb.path(), &store, "2026-11-30T10:00:02Z", "q", &[id.into()], None)
        .expect("hit");
    evokb_evolve::render::render_in_place(kb.path(), &store, false).expect("render");
    let row = cells(&hit_row_line(kb.path(), id));
    assert_eq!(
        (row[1].as_str(), row[2].as_str()),
        ("12", "t1"),
        "searches without a task keep the last task"
    );
}

#[test]
fn prefer_file_and_prefer_store_leave_the_entry_and_its_index_row_agreeing() {
    for (prefer, want) in [(Prefer::File, "stale"), (Prefer::Store, "overturned")] {
        let (kb, store) = imported_sample();
        let id = "PL-1.1-transpose-chain";
        mutate::set_field(&store, id, Some(Kind::Entry), "status", "overturned").expect("set");
        let path = kb.path().join(topic("layout.md"));
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replacen("status: verified", "status: stale", 1)).expect("edit");
        assert!(evokb_export::import(kb.path(), &store, ImportOptions::default()).is_err());
        evokb_export::import(
            kb.path(),
            &store,
            ImportOptions { prefer: Some(prefer), strict: false },
        )
        .expect("prefer settles it");
        let status = |kind| {
            store
                .read()
                .expect("r")
                .record_by_id(kind, id)
                .expect("get")
                .expect("exists")
                .field("status")
                .map(|s| s.trim().to_string())
        };
        assert_eq!(status(Kind::Entry).as_deref(), Some(want), "{prefer:?}");
        assert_eq!(
            status(Kind::IndexRow).as_deref(),
            Some(want),
            "{prefer:?}: the INDEX row follows"
        );
        evokb_evolve::render::render_in_place(kb.path(), &store, false).expect("render");
        assert!(evokb_evolve::render::check(kb.path(), &store).expect("check").is_empty());
        let index =
            std::fs::read_to_string(kb.path().join(layout::defaults::INDEX)).expect("index");
        let row = index.lines().find(|l| l.starts_with(&format!("| {id} "))).expect("row");
        assert!(row.trim_end().ends_with(&format!("| {want} |")), "{prefer:?}: {row}");
    }
}

/// The hit table `stats hits --json` prints: its counts from the stored counters when they
/// are current, else counted from the events (and stored).
fn stats_hits(kb: &std::path::Path) -> serde_json::Value {
    let out = evokb(kb, &["stats", "hits", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("json")
}

/// The stored event counters stay equal to a recount of the events through every way events
/// change: hits recorded one by one keep them current; an import of a hand-edited log leaves
/// them behind, and the next `stats hits` counts the events again, giving what replaying every
/// event gives.
#[test]
fn the_event_counters_agree_with_a_recount_of_the_events() {
    let (kb, store) = imported_sample();
    let recount = |store: &evokb_store::Store| {
        let txn = store.read().expect("r");
        let mut counter = hits::HitCounter::new(None);
        txn.for_each_record_of_kind(Kind::SearchEvent, |r| counter.add(r)).expect("events");
        counter.finish()
    };
    let stored = |store: &evokb_store::Store| {
        let txn = store.read().expect("r");
        assert!(txn.event_counters_current().expect("current"), "the counters are current");
        hits::hits_from_counters(txn.event_counters().expect("counters"))
    };
    assert!(!store.read().expect("r").event_counters_current().expect("current"));
    drop(store);
    let before = stats_hits(kb.path());
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    assert_eq!(stored(&store), recount(&store), "the first report stores what it counted");
    assert!(!before["entries"].as_array().expect("entries").is_empty());
    // Equal times, tasks and none, one id twice in one search: ties go to the later key.
    let id = "PL-1.6-copy-floor";
    for (ts, task) in [
        ("2026-11-30T10:00:00Z", Some("t1")),
        ("2026-11-30T10:00:00Z", None),
        ("2026-11-30T10:00:00Z", Some("t2")),
    ] {
        hits::record_hit(
            kb.path(),
            &store,
            ts,
            "q",
            &[id.into(), id.into(), "BP_x：cut".into()],
            task,
        )
        .expect("hit");
        assert_eq!(stored(&store), recount(&store));
    }
    drop(store);
    assert_eq!(
        stats_hits(kb.path())["entries"],
        serde_json::to_value(recount_of(kb.path())).expect("json")
    );
    // A person appends a line to the log and imports it: the import counts the event it
    // added, so the counters stay current and equal to a recount.
    let log = kb.path().join(layout::defaults::SEARCH_LOG);
    let mut text = std::fs::read_to_string(&log).expect("log");
    let appended = format!("{{\"ts\": \"2026-12-01T00:00:00Z\", \"query\": \"hand\", \"returned\": [\"{id}\"], \"task\": \"by-hand\"}}\n");
    text.push_str(&appended);
    std::fs::write(&log, &text).expect("write");
    let out = evokb(kb.path(), &["import"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    assert_eq!(stored(&store), recount(&store), "an appended event is counted by the import");
    drop(store);
    let after = stats_hits(kb.path());
    let row = hit_row(&after, id);
    assert_eq!(row["last_hit_task"], "by-hand", "{row}");
    // Then the person changes that line (an event gone, another new): a count cannot take an
    // event away, so the counters are behind until the next report counts again.
    let edited = appended.replace("by-hand", "by-hand-again");
    std::fs::write(&log, text.replace(&appended, &edited)).expect("write");
    let out = evokb(kb.path(), &["import"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    assert!(!store.read().expect("r").event_counters_current().expect("current"));
    drop(store);
    let after = stats_hits(kb.path());
    let row = hit_row(&after, id);
    assert_eq!(row["last_hit_task"], "by-hand-again", "{row}");
    assert_eq!(after["entries"], serde_json::to_value(recount_of(kb.path())).expect("json"));
}

/// A first import through the CLI counts the events it brings into a store that had none, so
/// the first `stats hits` reads the counters instead of counting every event.
#[test]
fn a_first_import_leaves_the_event_counters_current() {
    let kb = sample();
    for args in [&["init"][..], &["import"]] {
        let out = evokb(kb.path(), args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    let txn = store.read().expect("r");
    assert!(txn.event_counters_current().expect("current"));
    let counted = hits::hits_from_counters(txn.event_counters().expect("counters"));
    drop((txn, store));
    assert!(!counted.is_empty(), "the sample's log names entries");
    assert_eq!(counted, recount_of(kb.path()));
}

/// The row of `id` in a `stats hits --json` answer.
fn hit_row(answer: &serde_json::Value, id: &str) -> serde_json::Value {
    let rows = answer["entries"].as_array().expect("rows");
    rows.iter().find(|r| r["id"] == id).expect("row").clone()
}

/// [`hits::HitCounter`] over the store's events at `kb`, in key order.
fn recount_of(kb: &std::path::Path) -> Vec<hits::EntryHits> {
    let store =
        evokb_store::Store::open(&kb.join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    let txn = store.read().expect("r");
    let mut counter = hits::HitCounter::new(None);
    txn.for_each_record_of_kind(Kind::SearchEvent, |r| counter.add(r)).expect("events");
    counter.finish()
}
