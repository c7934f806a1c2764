//! The export read back through an independent path: the parquet crate's record (row) reader,
//! not the column writers that wrote the files. Checks column types, row counts and values, and
//! recomputes the recurrence figure from the exported `cases` table.

mod common;

use std::collections::BTreeMap;
use std::fs::File;

use evokb_analytics::export::{export, EntryFacets, ExportFormat, ExportInput, SearchHits};
use evokb_analytics::figures::recurrence;
use evokb_analytics::model::{ErrorCase, KeySource};
use evokb_analytics::table::CaseTable;
use parquet::basic::{LogicalType, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};

fn rows(path: &std::path::Path) -> (parquet::schema::types::SchemaDescriptor, Vec<Row>) {
    let reader = SerializedFileReader::new(File::open(path).expect("open")).expect("parquet");
    let schema = reader.metadata().file_metadata().schema_descr().clone();
    let rows = reader.get_row_iter(None).expect("rows").map(|r| r.expect("row")).collect();
    (schema, rows)
}

fn field<'a>(row: &'a Row, name: &str) -> &'a Field {
    row.get_column_iter().find(|(n, _)| n.as_str() == name).map(|(_, f)| f).expect(name)
}

fn input_parts() -> (Vec<SearchHits>, Vec<EntryFacets>) {
    let searches = vec![SearchHits {
        ts: "2026-09-10T08:00:00Z".into(),
        task: Some("t1".into()),
        returned: vec!["TRAP-a".into(), "PL-b".into()],
    }];
    let entries = vec![EntryFacets {
        id: "TRAP-a".into(),
        kind: "trap".into(),
        status: "verified".into(),
        file: "traps.md".into(),
        line: 3,
        facets: vec![
            ("family".into(), vec!["attention".into(), "norm".into()]),
            ("dtype".into(), vec![]),
        ],
    }];
    (searches, entries)
}

#[test]
fn parquet_reads_back_with_real_types_and_the_same_figures() {
    let (cases, rounds) = common::model_iteration();
    let tasks = common::timelines();
    let (searches, entries) = input_parts();
    let dir = tempfile::tempdir().expect("tempdir");
    let table = CaseTable::new(&cases, &rounds);
    let input =
        ExportInput { table: &table, tasks: &tasks, searches: &searches, entries: &entries };
    let written = export(dir.path(), ExportFormat::Parquet, &input).expect("export");
    let names: Vec<&str> = written.iter().map(|t| t.table.as_str()).collect();
    assert_eq!(names, ["cases", "rounds", "timeline_events", "search_events", "entries"]);

    let (schema, case_rows) = rows(&dir.path().join("cases.parquet"));
    let types: Vec<(String, Physical)> =
        schema.columns().iter().map(|c| (c.name().to_string(), c.physical_type())).collect();
    assert_eq!(types[2], ("round_seq".to_string(), Physical::INT32));
    assert_eq!(types[3], ("failed".to_string(), Physical::BOOLEAN));
    let evaluated: usize = cases
        .iter()
        .map(|c| {
            let mut r: Vec<&String> = c.evaluated.iter().chain(&c.failed_rounds).collect();
            r.sort();
            r.dedup();
            r.len()
        })
        .sum();
    assert_eq!(case_rows.len(), evaluated);
    assert_eq!(written[0].rows as usize, evaluated);
    // Recurrence from the exported rows: cases with ≥1 and ≥2 failed rounds.
    let mut fails: BTreeMap<String, u64> = BTreeMap::new();
    for row in &case_rows {
        let Field::Str(hash) = field(row, "case_hash") else { panic!("case_hash is a string") };
        let Field::Bool(failed) = field(row, "failed") else { panic!("failed is a boolean") };
        *fails.entry(hash.clone()).or_default() += u64::from(*failed);
    }
    let rec = recurrence(&cases);
    assert_eq!(fails.values().filter(|n| **n >= 1).count() as u64, rec.failing_cases);
    assert_eq!(fails.values().filter(|n| **n >= 2).count() as u64, rec.recurring_cases);
    let first = &case_rows[0];
    let want = &cases[0];
    assert_eq!(field(first, "query"), &Field::Str(want.query.clone().expect("query")));

    let (_, round_rows) = rows(&dir.path().join("rounds.parquet"));
    assert_eq!(round_rows.len(), 5);
    assert_eq!(field(&round_rows[1], "run_dic"), &Field::Long(17794));
    let Field::ListInternal(list) = field(&round_rows[1], "patterns") else {
        panic!("patterns is a list")
    };
    assert_eq!(
        list.elements(),
        [Field::Str("travel_agent_vs_ct".into()), Field::Str("weather_city_slot".into())]
    );
    let Field::ListInternal(empty) = field(&round_rows[0], "patterns") else { panic!("list") };
    assert!(empty.elements().is_empty());
    assert_eq!(field(&round_rows[0], "intervention"), &Field::Null);

    let (schema, events) = rows(&dir.path().join("timeline_events.parquet"));
    assert_eq!(events.len(), tasks.iter().map(|(_, e)| e.len()).sum::<usize>());
    let ts = schema.columns().iter().find(|c| c.name() == "ts").expect("ts");
    assert!(
        matches!(ts.logical_type_ref(), Some(LogicalType::Timestamp(t)) if t.is_adjusted_to_u_t_c)
    );
    assert!(matches!(field(&events[0], "ts"), Field::TimestampMicros(_)));
    assert!(events.iter().any(|e| matches!(field(e, "duration_s"), Field::Double(_))));

    let (_, hits) = rows(&dir.path().join("search_events.parquet"));
    assert_eq!(hits.len(), 2);
    assert_eq!(field(&hits[1], "rank"), &Field::Int(2));
    assert_eq!(field(&hits[1], "entry_id"), &Field::Str("PL-b".into()));
    assert_eq!(field(&hits[0], "ts"), &Field::TimestampMicros(1_789_027_200_000_000));

    let (_, entry_rows) = rows(&dir.path().join("entries.parquet"));
    assert_eq!(entry_rows.len(), 2, "one row per facet value");
    assert_eq!(field(&entry_rows[1], "value"), &Field::Str("norm".into()));
    assert_eq!(field(&entry_rows[0], "line"), &Field::Long(3));
}

#[test]
fn csv_has_the_same_rows() {
    let (cases, rounds) = common::model_iteration();
    let tasks = common::timelines();
    let (searches, entries) = input_parts();
    let dir = tempfile::tempdir().expect("tempdir");
    let table = CaseTable::new(&cases, &rounds);
    let input =
        ExportInput { table: &table, tasks: &tasks, searches: &searches, entries: &entries };
    let written = export(dir.path(), ExportFormat::Csv, &input).expect("export");
    for t in &written {
        let text = std::fs::read_to_string(&t.path).expect("read");
        assert_eq!(text.lines().count() as u64, t.rows + 1, "{}: header + rows", t.table);
    }
    let rounds_csv = std::fs::read_to_string(dir.path().join("rounds.csv")).expect("read");
    assert_eq!(
        rounds_csv.lines().next(),
        Some("round,seq,run_dic,hypothesis,verdict,intervention,patterns")
    );
    assert_eq!(
        rounds_csv.lines().nth(2),
        Some(r#"R1,1,17794,H1,regressed,augment,"[""travel_agent_vs_ct"",""weather_city_slot""]""#)
    );
    let hits = std::fs::read_to_string(dir.path().join("search_events.csv")).expect("read");
    assert_eq!(
        hits.lines().nth(1),
        Some("0,2026-09-10T08:00:00Z,2026-09-10T08:00:00Z,t1,1,TRAP-a")
    );
}

/// One row of `cases`: case_hash, round, round_seq, failed, pattern, subset, gold, query.
type CaseRowValues =
    (String, String, i32, bool, Option<String>, Option<String>, Option<String>, Option<String>);

fn opt_str(f: &Field) -> Option<String> {
    match f {
        Field::Str(s) => Some(s.clone()),
        Field::Null => None,
        other => panic!("expected a string or null, got {other:?}"),
    }
}

/// A registry of `n` cases over 50 rounds with gaps, failures and every kind of absent value.
fn synthetic_cases(n: usize) -> Vec<ErrorCase> {
    let rounds: Vec<String> = (0..50).map(|r| format!("R{r}")).collect();
    (0..n)
        .map(|i| {
            let evaluated: Vec<String> = rounds
                .iter()
                .enumerate()
                .filter(|(r, _)| (i + r) % 7 != 0)
                .map(|(_, name)| name.clone())
                .collect();
            let failed_rounds = evaluated
                .iter()
                .enumerate()
                .filter(|(k, _)| (i * 3 + k) % 5 == 0)
                .map(|(_, name)| name.clone())
                .collect();
            ErrorCase {
                case_hash: format!("{:016x}", (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)),
                key_source: KeySource::CaseHashField,
                key_algo_version: 0,
                query: (i % 11 != 0).then(|| format!("把空调调到24度 #{i}")),
                gold: (i % 13 != 0).then(|| ["Travel", "Music"][i % 2].to_string()),
                subset: (i % 17 != 0).then(|| "大盘车载".to_string()),
                pattern: (i % 19 != 0)
                    .then(|| ["nav_agent_vs_ct", "weather_city_slot", "negation_ignored"][i % 3])
                    .map(str::to_string),
                evaluated,
                failed_rounds,
                raw: String::new(),
            }
        })
        .collect()
}

#[test]
fn parquet_cases_are_the_registry_row_by_row_across_row_groups() {
    let cases = synthetic_cases(6_500);
    let table = CaseTable::new(&cases, &[]);
    let input = ExportInput { table: &table, tasks: &[], searches: &[], entries: &[] };
    let dir = tempfile::tempdir().expect("tempdir");
    let written = export(dir.path(), ExportFormat::Parquet, &input).expect("export");

    // The expected rows straight from the cases: one per evaluated round, in round order.
    let order = table.order();
    let mut want: Vec<CaseRowValues> = Vec::new();
    for c in &cases {
        for (seq, round) in order.iter().enumerate() {
            let failed = c.failed_rounds.contains(round);
            if !failed && !c.evaluated.contains(round) {
                continue;
            }
            want.push((
                c.case_hash.clone(),
                round.clone(),
                i32::try_from(seq).expect("seq"),
                failed,
                c.pattern.clone(),
                c.subset.clone(),
                c.gold.clone(),
                c.query.clone(),
            ));
        }
    }
    assert!(want.len() > evokb_analytics::export::ROW_GROUP_ROWS, "spans row groups");
    assert_eq!(written[0].rows as usize, want.len());

    let path = dir.path().join("cases.parquet");
    let reader = SerializedFileReader::new(File::open(&path).expect("open")).expect("parquet");
    let meta = reader.metadata();
    assert!(meta.num_row_groups() >= 2);
    // Plain Parquet strings, no arrow schema for readers to turn into dictionary types.
    let kv = meta.file_metadata().key_value_metadata();
    assert!(kv.is_none_or(|kv| kv.iter().all(|e| e.key != "ARROW:schema")), "{kv:?}");
    for col in meta.file_metadata().schema_descr().columns() {
        if !matches!(col.name(), "round_seq" | "failed") {
            assert_eq!(col.physical_type(), Physical::BYTE_ARRAY, "{}", col.name());
            assert_eq!(col.logical_type_ref(), Some(&LogicalType::String), "{}", col.name());
        }
    }
    // case_hash keeps its min/max (row groups cover key ranges); pattern has none.
    let first_group = meta.row_group(0);
    assert!(first_group.column(0).statistics().is_some_and(|s| s.min_bytes_opt().is_some()));
    assert!(first_group.column(4).statistics().is_none_or(|s| s.min_bytes_opt().is_none()));

    let got: Vec<CaseRowValues> = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|r| {
            let row = r.expect("row");
            let Field::Str(hash) = field(&row, "case_hash") else { panic!("case_hash") };
            let Field::Str(round) = field(&row, "round") else { panic!("round") };
            let Field::Int(seq) = field(&row, "round_seq") else { panic!("round_seq") };
            let Field::Bool(failed) = field(&row, "failed") else { panic!("failed") };
            (
                hash.clone(),
                round.clone(),
                *seq,
                *failed,
                opt_str(field(&row, "pattern")),
                opt_str(field(&row, "subset")),
                opt_str(field(&row, "gold")),
                opt_str(field(&row, "query")),
            )
        })
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "row {i}");
    }
}
