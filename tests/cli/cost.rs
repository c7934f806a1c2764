//! Cost proportional to the work (issue #15), checked by what a command touches rather than by
//! timing: a search appends one line to the log and never rewrites it; an import after a
//! one-file edit reads that file only; a hand edit hidden by size and times is still caught.

use std::os::unix::fs::MetadataExt;
use std::time::Duration;

use evokb_export::ImportOptions;
use evokb_store::Kind;

use crate::support::*;

const LOG: &str = ".agents/evolution/kb_search_log.jsonl";

/// Lets the file times of everything written so far fall out of the racy window, so stat
/// fingerprints taken from now on vouch for those files.
fn settle() {
    std::thread::sleep(Duration::from_millis(60));
}

/// Writes `text` over the file at `full` and puts its modification time back as it was: a hand
/// edit that size and mtime cannot reveal, only the change time.
fn write_hiding_mtime(full: &std::path::Path, text: &str) {
    let mtime = std::fs::metadata(full).expect("meta").modified().expect("mtime");
    std::fs::write(full, text).expect("write");
    std::fs::File::options()
        .write(true)
        .open(full)
        .and_then(|f| f.set_modified(mtime))
        .expect("set mtime back");
}

#[test]
fn a_search_appends_one_line_to_the_log_and_never_rewrites_it() {
    let (kb, store) = imported_sample();
    drop(store);
    let log = kb.path().join(LOG);
    let before = std::fs::read(&log).expect("log");
    let inode = std::fs::metadata(&log).expect("meta").ino();
    let mut lines = before.iter().filter(|&&b| b == b'\n').count();
    for q in ["attention", "transpose", "UB", "double buffer"] {
        let out = evokb(kb.path(), &["search", q, "--task", "T-cost"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(stderr(&out), "", "a search on a synced log says nothing on stderr");
        let now = std::fs::read(&log).expect("log");
        // The same file (a rewrite through a temporary and a rename gives a new inode), with
        // everything it held before as its prefix and one more line.
        assert_eq!(std::fs::metadata(&log).expect("meta").ino(), inode);
        assert!(now.starts_with(&before));
        lines += 1;
        assert_eq!(now.iter().filter(|&&b| b == b'\n').count(), lines);
        let last = String::from_utf8(now[before.len()..].to_vec()).expect("utf-8");
        assert!(last.contains(&format!("\"query\": \"{q}\"")) && last.contains("T-cost"), "{last}");
    }
    // The store holds every event, and the log proves it: only the stats.md hit table, which
    // render folds the new hits into, is behind; after a render nothing differs.
    let check = evokb(kb.path(), &["render", "--check"]);
    let listed = stdout(&check);
    assert!(!listed.contains("kb_search_log.jsonl"), "{listed}");
    assert!(listed.contains("1 file(s) differ"), "{listed}");
    assert!(evokb(kb.path(), &["render"]).status.success());
    let check = evokb(kb.path(), &["render", "--check"]);
    assert!(check.status.success(), "{}{}", stdout(&check), stderr(&check));
    let import = evokb(kb.path(), &["import", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&import.stdout).expect("json");
    assert_eq!((report["added"].as_u64(), report["updated"].as_u64()), (Some(0), Some(0)));
    let verify = evokb(kb.path(), &["verify"]);
    assert!(verify.status.success(), "{}", stderr(&verify));
}

#[test]
fn a_log_edited_by_hand_between_searches_is_left_alone_and_imported_whole() {
    let (kb, store) = imported_sample();
    drop(store);
    let log = kb.path().join(LOG);
    assert!(evokb(kb.path(), &["search", "attention"]).status.success());
    // A person appends a line of their own (the size changes) right after the search.
    let mut text = std::fs::read_to_string(&log).expect("log");
    text.push_str("{\"ts\": \"2026-11-30T00:00:00Z\", \"query\": \"by hand\", \"returned\": []}\n");
    std::fs::write(&log, &text).expect("write");
    let out = evokb(kb.path(), &["search", "transpose"]);
    assert!(out.status.success());
    assert!(stderr(&out).contains("edited since the last sync"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&log).expect("log"), text, "the edited log is not touched");
    // Import takes the person's line; render then writes the search the store alone held.
    let import = evokb(kb.path(), &["import"]);
    assert!(import.status.success(), "{}", stderr(&import));
    let render = evokb(kb.path(), &["render"]);
    assert!(render.status.success(), "{}", stderr(&render));
    let after = std::fs::read_to_string(&log).expect("log");
    assert!(after.contains("\"query\": \"by hand\"") && after.contains("\"query\": \"transpose\""));
    assert!(evokb(kb.path(), &["render", "--check"]).status.success());
}

#[test]
fn an_import_after_one_edit_reads_only_the_edited_file() {
    let (kb, store) = imported_sample();
    settle();
    // The first import after a settle takes fingerprints that vouch for every file.
    let first = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    settle();
    let again = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(again.skipped, again.files, "{first:?}\n{again:?}");
    let path = topic("layout.md");
    let full = kb.path().join(&path);
    let text = std::fs::read_to_string(&full).expect("read");
    std::fs::write(&full, text.replacen("status: verified", "status: obsolete", 1)).expect("write");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.files - report.skipped, 1, "only the edited file is read: {report:?}");
    assert_eq!((report.added, report.updated, report.removed), (0, 1, 0));
    let rec = store.read().expect("r").record_by_id(Kind::Entry, "PL-1.1-transpose-chain");
    assert_eq!(rec.expect("get").expect("entry").field("status"), Some("obsolete"));
}

#[test]
fn a_same_size_edit_with_its_mtime_set_back_is_still_imported() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    settle();
    let path = topic("layout.md");
    let full = kb.path().join(&path);
    let meta = std::fs::metadata(&full).expect("meta");
    let mtime = meta.modified().expect("mtime");
    let text = std::fs::read_to_string(&full).expect("read");
    // Same length, same second, and the modification time put back as it was: only the change
    // time, which no process can set, tells.
    let edited = text.replacen("status: verified", "status: verifieD", 1);
    assert_eq!(edited.len(), text.len());
    write_hiding_mtime(&full, &edited);
    assert_eq!(std::fs::metadata(&full).expect("meta").len(), meta.len());
    assert_eq!(std::fs::metadata(&full).expect("meta").modified().expect("mtime"), mtime);
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.updated, 1, "{report:?}");
    let rec = store.read().expect("r").record_by_id(Kind::Entry, "PL-1.1-transpose-chain");
    assert_eq!(rec.expect("get").expect("entry").field("status"), Some("verifieD"));
}

#[test]
fn a_file_written_just_before_the_import_is_read_again_next_time() {
    // A fingerprint taken within the racy window of the file's last change never vouches for
    // it: an edit later in the same clock tick would leave size and times unchanged.
    let (kb, store) = imported_sample();
    let full = kb.path().join(topic("layout.md"));
    let text = std::fs::read_to_string(&full).expect("read");
    std::fs::write(&full, text.replacen("status: verified", "status: obsolete", 1)).expect("write");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.updated, 1);
    // Whether the fingerprint is racy depends on how fast this machine got from the write to
    // the import's stat; the next import must follow the rule either way.
    let path = topic("layout.md");
    let st = store.read().expect("r").file_stat(&path).expect("stat").expect("a fingerprint");
    let racy = st.taken_ns - st.ctime_ns.max(st.mtime_ns) <= evokb_store::filestate::RACY_WINDOW_NS;
    std::thread::sleep(Duration::from_millis(30));
    let again = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((again.added, again.updated, again.removed), (0, 0, 0));
    // A file that is read gets a fresh fingerprint; a skipped one keeps its old one.
    let now = store.read().expect("r").file_stat(&path).expect("stat").expect("a fingerprint");
    if racy {
        assert!(now.taken_ns > st.taken_ns, "the racily clean file is read again");
    } else {
        assert_eq!(now, st, "a settled fingerprint vouches for the file, which is not read");
    }
}

#[test]
fn an_id_moved_into_an_edited_file_while_its_old_file_is_unchanged_is_a_duplicate() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    settle();
    let src = std::fs::read_to_string(kb.path().join(topic("layout.md"))).expect("read");
    let start = src.find("---\nid: PL-1.1-transpose-chain").expect("entry");
    let end = src[start + 4..].find("\n---\nid:").map_or(src.len(), |e| start + 4 + e + 1);
    let entry = &src[start..end];
    let other = kb.path().join(topic("traps-runtime.md"));
    let mut text = std::fs::read_to_string(&other).expect("read");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(entry);
    std::fs::write(&other, text).expect("write");
    let err = evokb_export::import(kb.path(), &store, ImportOptions::default())
        .expect_err("the id is defined twice");
    let msg = err.to_string() + &format!("{err:?}");
    assert!(msg.contains("PL-1.1-transpose-chain") && msg.contains("duplicate"), "{msg}");
}

#[test]
fn render_check_skips_nothing_that_changed_on_either_side() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    settle();
    let check = |store: &evokb_store::Store| -> Vec<String> {
        evokb_export::check(kb.path(), store, &evokb_export::NoDerivedRows)
            .expect("check")
            .into_iter()
            .map(|d| d.path)
            .collect()
    };
    assert_eq!(check(&store), Vec::<String>::new());
    // A store-side change marks its file: the check renders and compares it.
    evokb_export::mutate::set_field(&store, "PL-1.1-transpose-chain", None, "status", "stale")
        .expect("set");
    let mut differ = check(&store);
    differ.sort();
    assert_eq!(differ, [topic("INDEX.md"), topic("layout.md")]);
    evokb_export::render_in_place(kb.path(), &store, &evokb_export::NoDerivedRows, false)
        .expect("render");
    assert_eq!(check(&store), Vec::<String>::new());
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    settle();
    // A disk-side edit hidden by size and mtime: the ctime tells.
    let full = kb.path().join(topic("traps-runtime.md"));
    let text = std::fs::read_to_string(&full).expect("read");
    let i = text.find("status: ").expect("a status");
    let mut edited = text.clone();
    edited.replace_range(i..i + 8, "STATUS: ");
    write_hiding_mtime(&full, &edited);
    assert_eq!(check(&store), [topic("traps-runtime.md")]);
}

/// How many searchable records a write left for the next reader of the search index.
fn pending_search_docs(kb: &std::path::Path) -> usize {
    let store = evokb_store::Store::open_read_only(
        &kb.join(".evokb"),
        evokb_export::index::default_indexer(),
    )
    .expect("open");
    store.read().expect("read").search_pending().expect("pending").0.len()
}

#[test]
fn a_set_leaves_the_search_index_alone_and_the_next_search_sees_the_change() {
    let (kb, store) = imported_sample();
    drop(store);
    let kb = kb.path();
    let id = "PL-1.6-copy-floor";
    let ids = |out: &std::process::Output| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("search json");
        v["results"].as_array().expect("results").iter().map(|r| r["id"].to_string()).collect()
    };
    let stale = ["search", "copy-floor", "--status", "stale", "--json"];
    assert!(!ids(&evokb(kb, &stale)).contains(&format!("\"{id}\"")));
    let set = evokb(kb, &["set", id, "status", "stale"]);
    assert!(set.status.success(), "{}", stderr(&set));
    assert_eq!(pending_search_docs(kb), 1, "the set changed one search document and left it");
    let found = evokb(kb, &stale);
    assert!(found.status.success(), "{}", stderr(&found));
    assert!(ids(&found).contains(&format!("\"{id}\"")), "the search sees the new status");
    assert!(!stderr(&found).contains("search index"), "no rebuild: {}", stderr(&found));
    assert_eq!(pending_search_docs(kb), 0, "the search brought the index up to date");
    let verified = ["search", "copy-floor", "--status", "verified", "--json"];
    assert!(!ids(&evokb(kb, &verified)).contains(&format!("\"{id}\"")));
}

#[test]
fn add_finds_a_same_topic_entry_whose_change_the_search_index_does_not_hold_yet() {
    let (kb, store) = imported_sample();
    let id = "PL-1.6-copy-floor";
    let text = store
        .read()
        .expect("read")
        .record_by_id(Kind::Entry, id)
        .expect("read")
        .expect("the sample's entry")
        .text();
    drop(store);
    let kb = kb.path();
    // The family is a filter of the search index: after this, only the pending document says
    // that the entry is in `zfamily`.
    let update = evokb(kb, &["update", id, "--set", "family=[zfamily]"]);
    assert!(update.status.success(), "{}", stderr(&update));
    assert_eq!(pending_search_docs(kb), 1);
    let twin = text.replacen(&format!("id: {id}"), "id: PL-1.6-twin", 1).replacen(
        "family: [elementwise]",
        "family: [zfamily]",
        1,
    );
    assert!(twin.contains("family: [zfamily]"), "{twin}");
    let src = kb.join(".evokb/twin.md");
    std::fs::write(&src, twin).expect("write");
    let add = evokb(
        kb,
        &["add", "--file", &topic("elementwise.md"), src.to_str().expect("utf-8"), "--task", "T"],
    );
    assert!(!add.status.success(), "the twin was added: {}", stdout(&add));
    assert!(stderr(&add).contains(&format!("covers the same topic as '{id}'")), "{}", stderr(&add));
}

/// A copy of `kb`'s files without its store, imported into a new store: what a whole parse of
/// every file gives, to compare an import that took appended lines alone with.
fn imported_afresh(kb: &std::path::Path) -> (tempfile::TempDir, evokb_store::Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(kb, dir.path());
    std::fs::remove_dir_all(dir.path().join(".evokb")).expect("drop the copied store");
    let store = evokb_store::Store::create(
        &dir.path().join(".evokb"),
        evokb_export::index::default_indexer(),
    )
    .expect("create store");
    evokb_export::import(dir.path(), &store, ImportOptions::default()).expect("import afresh");
    (dir, store)
}

/// Appends `text` to the search log of `kb`.
fn append_to_log(kb: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(kb.join(LOG)).expect("open log");
    f.write_all(text.as_bytes()).expect("append");
}

#[test]
fn lines_appended_to_the_log_by_hand_are_imported_alone_as_a_whole_parse_would_take_them() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    let log = std::fs::read_to_string(kb.path().join(LOG)).expect("log");
    let first = log.lines().next().expect("a first line").to_string();
    // A repeat of a line already in the log (the whole parse numbers it `#2`), a new line, and
    // a repeat of that new line (`#2` as well, counted among the appended lines).
    let new = "{\"ts\": \"2026-12-01T08:00:00Z\", \"query\": \"by hand\", \"returned\": [\"PL-1.9-blockwidth\"]}";
    append_to_log(kb.path(), &format!("{first}\n{new}\n{new}\n"));
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.appended, 1, "the log is taken as its appended lines: {report:?}");
    assert_eq!((report.added, report.updated, report.removed), (3, 0, 0), "{report:?}");
    // The same store as a whole parse of the same files gives: same records, same bytes.
    let (_fresh_dir, fresh) = imported_afresh(kb.path());
    assert_eq!(digest(&store), digest(&fresh));
    let ids = |s: &evokb_store::Store| -> Vec<String> {
        let r = s.read().expect("read");
        let mut v: Vec<String> = r
            .records_of_kind(Kind::SearchEvent)
            .expect("events")
            .into_iter()
            .map(|e| e.id)
            .collect();
        v.sort();
        v
    };
    let ours = ids(&store);
    assert_eq!(ours, ids(&fresh));
    assert_eq!(ours.iter().filter(|id| id.ends_with(" #2")).count(), 2, "{ours:?}");
    drop(store);
    let check = evokb(kb.path(), &["render", "--check"]);
    assert!(check.status.success(), "{}{}", stdout(&check), stderr(&check));
    // The next append builds on the one before.
    append_to_log(kb.path(), &format!("{new}\n"));
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((report.appended, report.added), (1, 1), "{report:?}");
    let third = format!("{} #3", evokb_export::parse::jsonl::event_id("2026-12-01T08:00:00Z", new));
    let r = store.read().expect("read");
    assert!(r.record_by_id(Kind::SearchEvent, &third).expect("get").is_some(), "{third}");
}

#[test]
fn a_log_edited_before_its_end_and_appended_to_is_read_whole() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    let full = kb.path().join(LOG);
    let log = std::fs::read_to_string(&full).expect("log");
    // One character of the first query changed (same length), and a line appended: the
    // earlier bytes no longer give the store's mark, so the file is parsed whole.
    let edited = log.replacen("attention", "attentioN", 1);
    assert_eq!(edited.len(), log.len());
    let new = "{\"ts\": \"2026-12-01T08:00:00Z\", \"query\": \"by hand\", \"returned\": []}\n";
    std::fs::write(&full, format!("{edited}{new}")).expect("write");
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!(report.appended, 0, "{report:?}");
    // The edited line is another event (its id hashes the line): one removed, two added.
    assert_eq!((report.added, report.removed), (2, 1), "{report:?}");
    let (_fresh_dir, fresh) = imported_afresh(kb.path());
    assert_eq!(digest(&store), digest(&fresh));
}

#[test]
fn an_appended_blank_line_or_bad_line_is_read_with_the_whole_log() {
    let (kb, store) = imported_sample();
    settle();
    evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    let lines = std::fs::read_to_string(kb.path().join(LOG)).expect("log").lines().count();
    // A blank line is prose of the layout, which an append of records cannot carry.
    let new = "{\"ts\": \"2026-12-01T08:00:00Z\", \"query\": \"after a gap\", \"returned\": []}";
    append_to_log(kb.path(), &format!("\n{new}\n"));
    let report = evokb_export::import(kb.path(), &store, ImportOptions::default()).expect("import");
    assert_eq!((report.appended, report.added), (0, 1), "{report:?}");
    let (_fresh_dir, fresh) = imported_afresh(kb.path());
    assert_eq!(digest(&store), digest(&fresh));
    // A line that is not JSON is reported at its line in the whole file, and nothing is taken.
    append_to_log(kb.path(), "not json\n");
    let err = evokb_export::import(kb.path(), &store, ImportOptions::default())
        .expect_err("the bad line is refused");
    let msg = format!("{err:?}");
    assert!(msg.contains("invalid JSON"), "{msg}");
    assert!(msg.contains(&format!("line: {}", lines + 3)), "line {} expected: {msg}", lines + 3);
}
