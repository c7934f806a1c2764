//! The export read back through an independent path: the parquet crate's record (row) reader,
//! not the column writers that wrote the files. Checks column types, row counts and values, and
//! recomputes the recurrence figure from the exported `cases` table.

mod common;

use std::collections::BTreeMap;
use std::fs::File;

use evokb_analytics::export::{export, EntryFacets, ExportFormat, ExportInput, SearchHits};
use evokb_analytics::figures::recurrence;
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
