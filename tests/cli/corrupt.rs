//! A damaged store fails cleanly and damaged derived indexes heal.
//!
//! The database file is damaged the way a disk or a stray tool damages it (4 KiB of flipped
//! bytes at several offsets, and its header), then every command runs against it: none may
//! panic or exit 101; each either gives the same output as on the undamaged store (the damaged
//! page was unused) or exits 5 naming the damage and the rebuild; and a write command that
//! exits 5 leaves the file byte-identical. The search index and the facet tables are derived
//! data: damaged, they are rebuilt from the records.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{copy_tree, evokb, sample, stderr, stdout};

const NEW_ENTRY: &str = "---\nid: CORRUPT-new\nkind: pattern\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### zqxcorrupt newly added entry\n";

/// Every command of the test, and whether it writes to the store.
const COMMANDS: &[(&[&str], bool)] = &[
    (&["verify"], false),
    (&["list"], false),
    (&["get", "PL-1.6-copy-floor", "--json"], false),
    (&["query", "--json"], false),
    (&["search", "copy", "floor", "--json"], true),
    (&["import"], true),
    (&["render"], true),
    (&["render", "--check"], false),
    (&["set", "PL-1.6-copy-floor", "status", "stale"], true),
    (&["add", "--file", "attention.md", "NEW"], true),
    (&["queue", "show", "VP-2026-0003"], false),
    (&["stats", "hits"], false),
    (&["lint"], false),
];

/// A sample knowledge base with a store made by the binary, kept as the pristine original.
struct Pristine {
    _dir: tempfile::TempDir,
    kb: PathBuf,
}

fn pristine() -> Pristine {
    let dir = sample();
    let kb = dir.path().to_path_buf();
    assert_eq!(evokb(&kb, &["init"]).status.code(), Some(0));
    assert_eq!(evokb(&kb, &["import"]).status.code(), Some(0));
    std::fs::write(kb.join("new-entry.md"), NEW_ENTRY).expect("write the entry to add");
    Pristine { _dir: dir, kb }
}

/// A fresh copy of the knowledge base and store, with `db` as the database file's bytes.
fn copy_with_db(p: &Pristine, db: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&p.kb, dir.path());
    std::fs::write(db_path(dir.path()), db).expect("write the database");
    dir
}

fn db_path(kb: &Path) -> PathBuf {
    kb.join(".evokb/evokb.redb")
}

fn run(kb: &Path, args: &[&str]) -> Output {
    let new = kb.join("new-entry.md");
    let new = new.to_str().expect("utf-8 path");
    let args: Vec<&str> = args.iter().map(|a| if *a == "NEW" { new } else { a }).collect();
    evokb(kb, &args)
}

/// The bytes of `db` with 4 KiB flipped at the page holding `at` (a fraction of the length).
fn flipped(db: &[u8], at: f64) -> Vec<u8> {
    let mut out = db.to_vec();
    let start = ((db.len() as f64 * at) as usize) / 4096 * 4096;
    for b in out.iter_mut().skip(start).take(4096) {
        *b ^= 0xff;
    }
    out
}

#[test]
fn every_command_on_a_damaged_store_succeeds_unchanged_or_exits_5_without_writing() {
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    let expected: Vec<Output> = COMMANDS
        .iter()
        .map(|(args, _)| {
            let kb = copy_with_db(&p, &db);
            run(kb.path(), args)
        })
        .collect();
    let damages: [(&str, Vec<u8>); 6] = [
        ("header", flipped(&db, 0.0)),
        ("10%", flipped(&db, 0.10)),
        ("25%", flipped(&db, 0.25)),
        ("50%", flipped(&db, 0.50)),
        ("75%", flipped(&db, 0.75)),
        ("90%", flipped(&db, 0.90)),
    ];
    let mut refused = 0;
    for (where_, damaged) in &damages {
        for ((args, writes), want) in COMMANDS.iter().zip(&expected) {
            let kb = copy_with_db(&p, damaged);
            let out = run(kb.path(), args);
            let (so, se) = (stdout(&out), stderr(&out));
            let what = format!(
                "{args:?} with damage at {where_}: exit {:?}\n{so}\n{se}",
                out.status.code()
            );
            assert_ne!(out.status.code(), Some(101), "{what}");
            assert!(!so.contains("panicked") && !se.contains("panicked"), "{what}");
            if out.status.code() == Some(5) {
                refused += 1;
                assert!(se.contains("damaged"), "the message names the damage: {what}");
                assert!(se.contains("evokb rebuild"), "the message says how to rebuild: {what}");
                if *writes {
                    let after = std::fs::read(db_path(kb.path())).expect("read");
                    assert!(after == *damaged, "a refused write changed the file: {what}");
                }
            } else {
                assert_eq!(out.status.code(), want.status.code(), "{what}");
                assert_eq!(
                    so,
                    stdout(want),
                    "the output differs from the undamaged store's: {what}"
                );
            }
        }
    }
    // The header and the used pages are damaged in most cases; an all-success run would mean
    // the damage never reached the file.
    assert!(refused >= COMMANDS.len() * 2, "only {refused} commands were refused");
}

#[test]
fn rebuild_moves_a_damaged_store_aside_and_imports_the_markdown_again() {
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    // The first of a few places that `list` reads: which pages hold records moves with the
    // sizes of the other tables, and damage nothing reads proves nothing here.
    let kb = [0.25, 0.15, 0.35, 0.45, 0.55, 0.65]
        .iter()
        .map(|&at| copy_with_db(&p, &flipped(&db, at)))
        .find(|kb| run(kb.path(), &["list"]).status.code() == Some(5))
        .expect("damage in a page that `list` reads");
    let want = run(&p.kb, &["list"]);
    let out = run(kb.path(), &["rebuild"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("the store was damaged"), "{}", stdout(&out));
    assert!(kb.path().join(".evokb.damaged-1/evokb.redb").is_file());
    assert_eq!(run(kb.path(), &["verify"]).status.code(), Some(0));
    assert_eq!(stdout(&run(kb.path(), &["list"])), stdout(&want));
    let out = run(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // On a sound store it only rebuilds the derived indexes.
    let out = run(kb.path(), &["rebuild"]);
    assert!(stdout(&out).contains("the store is sound"), "{}", stdout(&out));
    assert!(!kb.path().join(".evokb.damaged-2").exists());
}

fn search_ids(out: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("search json");
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The path of the first segment file with `ext` in the search index.
fn segment_file(kb: &Path, ext: &str) -> PathBuf {
    std::fs::read_dir(kb.join(".evokb/search"))
        .expect("read the index dir")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == ext))
        .expect("a segment file")
}

/// Something done to a knowledge base's search index.
type Damage = dyn Fn(&Path);

#[test]
fn a_damaged_search_index_is_rebuilt_from_the_records_and_says_so_once() {
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    let query = ["search", "copy", "floor", "--json"];
    let want = search_ids(&run(copy_with_db(&p, &db).path(), &query));
    assert!(!want.is_empty());
    let damages: [(&str, &Damage); 5] = [
        ("a deleted segment file", &|kb| {
            std::fs::remove_file(segment_file(kb, "idx")).expect("rm")
        }),
        ("a truncated segment file", &|kb| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(segment_file(kb, "store"))
                .expect("open");
            f.set_len(100).expect("truncate");
        }),
        ("a segment file truncated to nothing", &|kb| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(segment_file(kb, "pos"))
                .expect("open");
            f.set_len(0).expect("truncate");
        }),
        ("a deleted index directory", &|kb| {
            std::fs::remove_dir_all(kb.join(".evokb/search")).expect("rm")
        }),
        ("garbage in meta.json", &|kb| {
            std::fs::write(kb.join(".evokb/search/meta.json"), "garbage").expect("write")
        }),
    ];
    for (what, damage) in damages {
        let kb = copy_with_db(&p, &db);
        damage(kb.path());
        let out = run(kb.path(), &query);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
        assert_eq!(search_ids(&out), want, "{what}");
        let err = stderr(&out);
        assert!(
            err.contains("evokb: the search index was")
                && err.contains("rebuilt it from 210 records"),
            "{what}: {err}"
        );
        let again = run(kb.path(), &query);
        assert_eq!(again.status.code(), Some(0), "{what}");
        assert_eq!(search_ids(&again), want, "{what}");
        assert!(
            !stderr(&again).contains("search index"),
            "{what}: the next search is quiet: {}",
            stderr(&again)
        );
    }
}

/// Opens the database below the store API, as another redb program could.
fn raw_db(kb: &Path) -> redb::Database {
    let mut builder = redb::Builder::new();
    builder.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    builder.open(db_path(kb)).expect("open the database")
}

#[test]
fn a_facet_row_that_does_not_decode_is_rebuilt_by_the_next_query() {
    const ROWS: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("idx.q.rows");
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    let want = stdout(&run(&p.kb, &["query", "--json"]));
    let kb = copy_with_db(&p, &db);
    {
        let raw = raw_db(kb.path());
        let w = raw.begin_write().expect("write");
        {
            let mut rows = w.open_table(ROWS).expect("rows");
            let key = {
                use redb::ReadableTable;
                let first = rows.iter().expect("iter").next().expect("a row").expect("row");
                first.0.value()
            };
            rows.insert(key, [1u8, 0xff, 0xff, 0xff].as_slice()).expect("insert");
        }
        w.commit().expect("commit");
    }
    let out = run(kb.path(), &["query", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), want);
    assert!(stderr(&out).contains("evokb: the facet index was damaged"), "{}", stderr(&out));
    let again = run(kb.path(), &["query", "--json"]);
    assert_eq!(stdout(&again), want);
    assert_eq!(stderr(&again), "", "the next query is quiet");
}

#[test]
fn verify_reports_facet_rows_that_disagree_with_the_records_and_rebuild_fixes_them() {
    const POSTINGS: redb::TableDefinition<&[u8], &[u8]> =
        redb::TableDefinition::new("idx.q.postings");
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    let want = stdout(&run(&p.kb, &["query", "--family", "attention", "--json"]));
    let kb = copy_with_db(&p, &db);
    {
        let raw = raw_db(kb.path());
        let w = raw.begin_write().expect("write");
        {
            // The posting list of one family goes: its entries drop out of the index.
            let mut postings = w.open_table(POSTINGS).expect("postings");
            let gone = postings.remove(b"family\0attention".as_slice()).expect("remove");
            assert!(gone.is_some(), "the sample has attention entries");
        }
        w.commit().expect("commit");
    }
    assert_ne!(stdout(&run(kb.path(), &["query", "--family", "attention", "--json"])), want);
    let out = run(kb.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("facet index") && stdout(&out).contains("evokb rebuild"),
        "{}",
        stdout(&out)
    );
    let out = run(kb.path(), &["rebuild"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(run(kb.path(), &["verify"]).status.code(), Some(0));
    assert_eq!(stdout(&run(kb.path(), &["query", "--family", "attention", "--json"])), want);
}

/// A family query streams its rows as it reads them, so a block of rows found damaged after
/// the first rows went out cannot be taken back: the command fails saying so (exit 5, the
/// output cut short, never a whole-looking answer), the index is rebuilt, and the next query
/// answers whole and quietly.
#[test]
fn a_row_block_damaged_after_rows_went_out_fails_the_query_and_is_rebuilt() {
    const ROWS: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("idx.q.rows");
    const IDS: redb::TableDefinition<(&str, u32), ()> = redb::TableDefinition::new("idx.q.ids");
    let dir = sample();
    let kb = dir.path();
    // 2,500 entries of one family in one file: some 800 KB of JSON, more than the 256 KiB a
    // query holds before its first write, and enough rows (2,048 or more) to be streamed.
    let mut text = String::new();
    for i in 0..2500 {
        text.push_str(&format!(
            "---\nid: STREAM-{i:04}\nkind: pattern\nfamily: [streamfam]\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### streamed entry {i} with a title long enough to make a row of some size\n\nbody {i}\n\n"
        ));
    }
    std::fs::write(kb.join(crate::support::topic("streaming.md")), text).expect("write the topic");
    assert_eq!(evokb(kb, &["init"]).status.code(), Some(0));
    assert_eq!(evokb(kb, &["import"]).status.code(), Some(0));
    let args = ["query", "--family", "streamfam", "--json"];
    let want = stdout(&evokb(kb, &args));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&want).expect("a JSON array");
    assert_eq!(rows.len(), 2500);
    {
        let raw = raw_db(kb);
        let w = raw.begin_write().expect("write");
        {
            use redb::ReadableTable;
            let ord = {
                let ids = w.open_table(IDS).expect("ids");
                let mut found = ids.range(("STREAM-2400", 0u32)..).expect("range");
                let (k, _) = found.next().expect("the entry").expect("read");
                assert_eq!(k.value().0, "STREAM-2400");
                k.value().1
            };
            let mut rows = w.open_table(ROWS).expect("rows");
            // Rows are stored in blocks keyed by their last ordinal: the entry's is the first
            // key at or after its ordinal.
            let block = {
                let mut after = rows.range(ord..).expect("range");
                let (k, _) = after.next().expect("a block").expect("read");
                k.value()
            };
            rows.insert(block, [3u8, 9, 0xff].as_slice()).expect("insert");
        }
        w.commit().expect("commit");
    }
    let out = evokb(kb, &args);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    let cut = stdout(&out);
    assert!(!cut.is_empty() && want.starts_with(&cut) && cut.len() < want.len(), "{}", cut.len());
    assert!(serde_json::from_str::<serde_json::Value>(&cut).is_err(), "the cut output is no JSON");
    let err = stderr(&out);
    assert!(
        err.contains("the facet index was damaged") && err.contains("run the query again"),
        "{err}"
    );
    let again = evokb(kb, &args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(stdout(&again), want);
    assert_eq!(stderr(&again), "", "the next query is quiet");
}

/// The order table and the file directory are derived: damaged, a query answers from the
/// rows and the name table as before they existed, verify names the damage, and a rebuild
/// mends it.
#[test]
fn a_damaged_order_table_or_file_directory_leaves_queries_right_and_verify_names_it() {
    const ORDER: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("idx.q.order");
    const DIR: redb::TableDefinition<u32, &[u8]> = redb::TableDefinition::new("idx.q.dir");
    let p = pristine();
    let db = std::fs::read(db_path(&p.kb)).expect("read the database");
    let args = ["query", "--family", "attention", "--json"];
    let want = stdout(&run(&p.kb, &args));
    assert!(want.len() > 2, "the sample has attention entries");
    for (table, what) in [(ORDER, "order table"), (DIR, "file directory")] {
        let kb = copy_with_db(&p, &db);
        {
            let raw = raw_db(kb.path());
            let w = raw.begin_write().expect("write");
            w.open_table(table).expect("table").insert(0, [7u8, 7, 7].as_slice()).expect("insert");
            w.commit().expect("commit");
        }
        let out = run(kb.path(), &args);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
        assert_eq!(stdout(&out), want, "{what}");
        let out = run(kb.path(), &["verify"]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stdout(&out));
        assert!(stdout(&out).contains(what), "{what}: {}", stdout(&out));
        assert_eq!(run(kb.path(), &["rebuild"]).status.code(), Some(0), "{what}");
        assert_eq!(run(kb.path(), &["verify"]).status.code(), Some(0), "{what}");
        assert_eq!(stdout(&run(kb.path(), &args)), want, "{what}");
    }
}
