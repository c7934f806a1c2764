//! The registry import into a real store (issue 12, "Scale"): the chunked layout must give the
//! same figures and diagnostics as parsing the text directly, keep every original line, leave
//! an unchanged re-import without a write, take appended and changed cases, compact replaced
//! lines, move a store of the layout from before chunks over, and refuse a file that is not
//! UTF-8 without writing anything.

use std::path::Path;
use std::sync::Arc;

use evokb_analytics::figures::{recurrence_after_fix_in, recurrence_in, transitions_in};
use evokb_analytics::model::{CaseRow, ErrorCase};
use evokb_analytics::parse::parse_error_registry;
use evokb_analytics::stored::{
    self, FileImport, ImportError, Registry, CASE_CHUNKS, CASE_LINES, CASE_ROWS, ERROR_CASES,
    ROUND_NAMES,
};
use evokb_analytics::table::CaseTable;
use evokb_store::{NoIndex, Store};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/model-iteration/results")
        .join(name);
    std::fs::read_to_string(path).expect("fixture")
}

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::create(&dir.path().join(".evokb"), Arc::new(NoIndex)).expect("store");
    (dir, store)
}

fn import(store: &Store, text: &str) -> Result<FileImport, ImportError> {
    let mut w = store.write().expect("write");
    let mut reg = Registry::load(&mut w)?;
    let done = reg.import_file(&mut w, text.as_bytes(), "reg.jsonl")?;
    reg.save(&mut w)?;
    w.commit()?;
    Ok(done)
}

/// The figures that depend on every cell of the grid, as comparable text.
fn figures(t: &CaseTable) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}",
        transitions_in(t, None, None),
        recurrence_in(t),
        recurrence_after_fix_in(t),
        (0..t.len())
            .map(|c| (t.case_hash(c), t.query(c), t.gold(c), t.subset(c), t.pattern(c)))
            .collect::<Vec<_>>()
    )
}

fn stored_table(store: &Store) -> CaseTable {
    stored::load_table(&store.read().expect("read")).expect("load")
}

fn expected_table(text: &str) -> CaseTable {
    let (mut cases, _) = parse_error_registry(text, "reg.jsonl");
    // The store holds cases in key order.
    cases.sort_by(|a, b| a.case_hash.cmp(&b.case_hash));
    CaseTable::new(&cases, &[])
}

#[test]
fn the_store_gives_the_parsed_figures_and_keeps_every_line() {
    let text = fixture("error_registry.jsonl");
    let (_dir, store) = store();
    let done = import(&store, &text).expect("import");
    let (cases, diags) = parse_error_registry(&text, "reg.jsonl");
    assert_eq!((done.added, done.unchanged), (cases.len(), 0));
    assert_eq!(done.diagnostics, diags);
    assert_eq!(figures(&stored_table(&store)), figures(&expected_table(&text)));
    let mut want: Vec<(String, String)> = cases.into_iter().map(|c| (c.case_hash, c.raw)).collect();
    want.sort();
    assert_eq!(Registry::stored_lines(&store.read().expect("read")).expect("lines"), want);
}

#[test]
fn an_unchanged_reimport_writes_nothing_and_an_appended_one_adds_the_rest() {
    let text = fixture("error_registry.jsonl");
    let lines: Vec<&str> = text.lines().collect();
    let half = lines[..lines.len() / 2].join("\n") + "\n";
    let (_dir, store) = store();
    let first = import(&store, &half).expect("import");
    let digest = store.read().expect("read").digest().expect("digest");
    let again = import(&store, &half).expect("import");
    assert_eq!((again.added, again.unchanged), (0, first.added));
    assert_eq!(store.read().expect("read").digest().expect("digest"), digest);
    let all = import(&store, &text).expect("import");
    let total = parse_error_registry(&text, "reg.jsonl").0.len();
    assert_eq!((all.added, all.unchanged), (total - first.added, first.added));
    assert_eq!(figures(&stored_table(&store)), figures(&expected_table(&text)));
}

#[test]
fn changed_cases_replace_theirs_and_replaced_lines_are_compacted() {
    let text = fixture("error_registry.jsonl");
    let (_dir, store) = store();
    import(&store, &text).expect("import");
    let total = parse_error_registry(&text, "reg.jsonl").0.len();
    let mut latest = text.clone();
    for version in 1..=4 {
        // Every line changes (a field the figures do not read), so every line is replaced.
        latest = text
            .lines()
            .map(|l| l.replacen('{', &format!("{{\"v\": {version}, "), 1))
            .collect::<Vec<_>>()
            .join("\n");
        let done = import(&store, &latest).expect("import");
        assert_eq!((done.added, done.unchanged), (total, 0));
        let txn = store.read().expect("read");
        let stored: usize =
            txn.items::<String>(CASE_LINES).expect("segments").iter().map(|(_, s)| s.len()).sum();
        let live: usize = latest.lines().filter(|l| !l.trim().is_empty()).map(str::len).sum();
        assert!(stored <= 2 * live, "version {version}: {stored} bytes for {live} live");
    }
    assert_eq!(figures(&stored_table(&store)), figures(&expected_table(&latest)));
    let mut want: Vec<(String, String)> = parse_error_registry(&latest, "reg.jsonl")
        .0
        .into_iter()
        .map(|c| (c.case_hash, c.raw))
        .collect();
    want.sort();
    assert_eq!(Registry::stored_lines(&store.read().expect("read")).expect("lines"), want);
}

#[test]
fn odd_lines_give_the_parser_s_diagnostics() {
    let text = concat!(
        "\u{feff}{\"case_hash\": \"aa\", \"query\": \"q1\", \"evaluated\": [\"R0\"], \"failed_rounds\": [\"R0\", \"R2\", \"R2\"]}\r\n",
        "not json\n",
        "\n",
        "   \n",
        "[1, 2]\n",
        "{\"query\": \"  Hello   World \", \"failed_rounds\": [\"R1\"]}\n",
        "{\"query\": \"hello world\"}\n",
        "{\"case_hash\": \"aa\"}\n",
        "{\"case_hash\": \"bb\", \"evaluated\": \"R0\"}\n",
        "{\"case_hash\": \"cc\", \"query\": \"say \\\"hi\\\"\\n\", \"evaluated\": [\"R\\u0030\"]}\n",
        "{\"case_hash\": \"  \"}",
    );
    let (_dir, store) = store();
    let done = import(&store, text).expect("import");
    let (cases, diags) = parse_error_registry(text, "reg.jsonl");
    assert_eq!(done.diagnostics, diags);
    assert_eq!(done.added, cases.len());
    assert_eq!(figures(&stored_table(&store)), figures(&expected_table(text)));
    // A second import flags the same lines again and changes nothing.
    let again = import(&store, text).expect("import");
    assert_eq!(again.diagnostics, diags);
    assert_eq!((again.added, again.unchanged), (0, cases.len()));
}

#[test]
fn a_line_that_is_not_utf8_stops_the_import_and_writes_nothing() {
    let text = fixture("error_registry.jsonl");
    let (_dir, store) = store();
    import(&store, &text).expect("import");
    let digest = store.read().expect("read").digest().expect("digest");
    let mut bad = b"{\"case_hash\": \"new\", \"evaluated\": [\"R0\"]}\n".to_vec();
    bad.extend_from_slice(b"{\"case_hash\": \"x\xff\"}\n");
    let mut w = store.write().expect("write");
    let mut reg = Registry::load(&mut w).expect("load");
    let err = reg.import_file(&mut w, bad.as_slice(), "bad.jsonl").expect_err("not utf-8");
    drop(w);
    assert!(err.to_string().starts_with("bad.jsonl:2: the line is not UTF-8 text"), "{err}");
    assert_eq!(store.read().expect("read").digest().expect("digest"), digest);
}

#[test]
fn a_store_of_the_layout_before_chunks_is_read_and_moved_over() {
    let text = fixture("error_registry.jsonl");
    let (cases, _) = parse_error_registry(&text, "reg.jsonl");
    let (_dir, store) = store();
    // The old layout: full records and compact rows by key, numbered round names.
    let mut w = store.write().expect("write");
    let mut names: Vec<String> = Vec::new();
    for c in &cases {
        let mut id = |r: &String| match names.iter().position(|n| n == r) {
            Some(i) => i as u32,
            None => {
                names.push(r.clone());
                (names.len() - 1) as u32
            }
        };
        let row = CaseRow {
            case_hash: c.case_hash.clone(),
            query: c.query.clone(),
            gold: c.gold.clone(),
            subset: c.subset.clone(),
            pattern: c.pattern.clone(),
            evaluated: c.evaluated.iter().map(&mut id).collect(),
            failed_rounds: c.failed_rounds.iter().map(&mut id).collect(),
        };
        w.put_item(ERROR_CASES, c.case_hash.as_bytes(), c).expect("put");
        w.put_item(CASE_ROWS, c.case_hash.as_bytes(), &row).expect("put");
    }
    w.put_item(ROUND_NAMES, b"names", &names).expect("put");
    w.commit().expect("commit");
    let want = figures(&expected_table(&text));
    assert_eq!(figures(&stored_table(&store)), want);
    let done = import(&store, &text).expect("import");
    assert_eq!((done.added, done.unchanged), (0, cases.len()));
    let txn = store.read().expect("read");
    assert_eq!(txn.item_count(ERROR_CASES).expect("count"), 0);
    assert_eq!(txn.item_count(CASE_ROWS).expect("count"), 0);
    assert!(txn.item_count(CASE_CHUNKS).expect("count") > 0);
    assert!(txn.items::<ErrorCase>(ERROR_CASES).expect("items").is_empty());
    drop(txn);
    assert_eq!(figures(&stored_table(&store)), want);
}
