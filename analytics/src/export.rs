//! Export of the store's data as tables for other engines (DuckDB, Spark, pandas): one Parquet
//! or CSV file per collection, with real column types.
//!
//! | table | one row per | columns |
//! |---|---|---|
//! | `cases` | case × evaluated round | `case_hash, round, round_seq, failed, pattern, subset, gold, query` |
//! | `rounds` | round (round order) | `round, seq, run_dic, hypothesis, verdict, intervention, patterns` |
//! | `timeline_events` | timeline event | `task_id, line, ts, ts_text, action, stage, subagent, mode, verdict, reason, duration_s, phase_before, phase_after` |
//! | `search_events` | id returned by a search | `event, ts, ts_text, task, rank, entry_id` |
//! | `entries` | entry × facet value | `id, kind, status, file, line, facet, value` |
//!
//! A case's evaluated rounds are those of the figures: listed in `evaluated` or in
//! `failed_rounds`; `failed` says which. `round_seq` and `seq` are 0-based positions in the
//! round order, so `ORDER BY round_seq` sorts R2 before R10. `ts` columns are Parquet
//! `TIMESTAMP(MICROS, UTC)` (null when the text does not parse; the text is kept in `ts_text`);
//! `patterns` is a `LIST<STRING>` (a JSON array in CSV). An entry without facet values has one
//! row with null `facet` and `value`.
//!
//! Parquet is snappy-compressed and dictionary-encoded, in row groups of at most
//! [`ROW_GROUP_ROWS`] rows, so the cases table of a large registry is never held in memory at
//! once. The `cases` table (42M rows at 1M cases × 50 rounds) goes through the parquet crate's
//! arrow writer, as dictionary arrays built from the case table's own numbers
//! ([`write_cases_parquet`]); the small tables go through its low-level column writers. CSV has
//! a header row, RFC 4180 quoting, empty cells for nulls and timestamps as
//! `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, DictionaryArray, Int32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_writer::{ArrowWriter, ArrowWriterOptions};
use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, SchemaDescriptor, Type as SchemaType};
use thiserror::Error;

use crate::figures::{FAIL, NOT_EVALUATED};
use crate::model::TimelineEvent;
use crate::table::CaseTable;
use crate::util::{format_date_days, parse_utc_seconds};

/// The most rows in one Parquet row group (and one in-memory batch).
pub const ROW_GROUP_ROWS: usize = 262_144;

/// Errors while writing an export.
#[derive(Debug, Error)]
pub enum ExportError {
    #[error("cannot write '{path}': {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot write the Parquet table '{table}': {message}")]
    Parquet { table: String, message: String },
}

/// The file format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Parquet,
    Csv,
}

impl ExportFormat {
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Parquet => "parquet",
            ExportFormat::Csv => "csv",
        }
    }
}

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Utf8,
    Int32,
    Int64,
    Float64,
    Bool,
    /// Microseconds since the epoch, UTC.
    TimestampMicros,
    /// A list of strings.
    Utf8List,
}

/// A column's name, type and nullability.
#[derive(Debug, Clone, Copy)]
pub struct ColumnSpec {
    pub name: &'static str,
    pub ty: ColumnType,
    pub nullable: bool,
}

const fn col(name: &'static str, ty: ColumnType, nullable: bool) -> ColumnSpec {
    ColumnSpec { name, ty, nullable }
}

/// One batch of one column's values (the variant matches the column's type).
#[derive(Debug, Clone)]
pub enum Values {
    Utf8(Vec<Option<ByteArray>>),
    Int32(Vec<Option<i32>>),
    Int64(Vec<Option<i64>>),
    Float64(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    Utf8List(Vec<Vec<ByteArray>>),
}

impl Values {
    fn empty(ty: ColumnType) -> Values {
        match ty {
            ColumnType::Utf8 => Values::Utf8(Vec::new()),
            ColumnType::Int32 => Values::Int32(Vec::new()),
            ColumnType::Int64 | ColumnType::TimestampMicros => Values::Int64(Vec::new()),
            ColumnType::Float64 => Values::Float64(Vec::new()),
            ColumnType::Bool => Values::Bool(Vec::new()),
            ColumnType::Utf8List => Values::Utf8List(Vec::new()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::Utf8(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float64(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::Utf8List(v) => v.len(),
        }
    }
}

/// Text as a Parquet byte array.
pub fn bytes(s: &str) -> ByteArray {
    ByteArray::from(s.as_bytes().to_vec())
}

fn opt_bytes(s: Option<&str>) -> Option<ByteArray> {
    s.map(bytes)
}

/// A UTC timestamp text as microseconds since the epoch.
pub fn ts_micros(ts: Option<&str>) -> Option<i64> {
    let secs = parse_utc_seconds(ts?)?;
    Some((secs * 1e6).round() as i64)
}

/// Builds batches of rows, flushing to a sink every [`ROW_GROUP_ROWS`] rows.
struct TableWriter<'a> {
    specs: &'a [ColumnSpec],
    columns: Vec<Values>,
    sink: Sink,
    rows: u64,
}

enum Sink {
    Parquet { table: String, writer: SerializedFileWriter<BufWriter<File>> },
    Csv { path: PathBuf, out: BufWriter<File> },
}

/// Where one table was written and how many rows it has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WrittenTable {
    pub table: String,
    pub path: String,
    pub rows: u64,
}

fn parquet_schema(table: &str, specs: &[ColumnSpec]) -> Result<SchemaType, String> {
    let mut msg = format!("message {table} {{\n");
    for s in specs {
        let rep = if s.nullable { "optional" } else { "required" };
        let line = match s.ty {
            ColumnType::Utf8 => format!("{rep} binary {} (STRING);", s.name),
            ColumnType::Int32 => format!("{rep} int32 {};", s.name),
            ColumnType::Int64 => format!("{rep} int64 {};", s.name),
            ColumnType::Float64 => format!("{rep} double {};", s.name),
            ColumnType::Bool => format!("{rep} boolean {};", s.name),
            ColumnType::TimestampMicros => {
                format!("{rep} int64 {} (TIMESTAMP(MICROS,true));", s.name)
            }
            ColumnType::Utf8List => format!(
                "required group {} (LIST) {{ repeated group list {{ required binary element (STRING); }} }}",
                s.name
            ),
        };
        msg.push_str(&line);
        msg.push('\n');
    }
    msg.push('}');
    parquet::schema::parser::parse_message_type(&msg).map_err(|e| e.to_string())
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io { path: path.to_path_buf(), source }
}

impl<'a> TableWriter<'a> {
    fn create(
        dir: &Path,
        table: &str,
        format: ExportFormat,
        specs: &'a [ColumnSpec],
    ) -> Result<(TableWriter<'a>, PathBuf), ExportError> {
        let path = dir.join(format!("{table}.{}", format.extension()));
        let file = BufWriter::new(File::create(&path).map_err(io_err(&path))?);
        let sink = match format {
            ExportFormat::Parquet => {
                let pq = |e: String| ExportError::Parquet { table: table.to_owned(), message: e };
                let schema = Arc::new(parquet_schema(table, specs).map_err(pq)?);
                let props = Arc::new(
                    WriterProperties::builder()
                        .set_compression(Compression::SNAPPY)
                        .set_created_by("evokb".to_owned())
                        .build(),
                );
                let writer = SerializedFileWriter::new(file, schema, props)
                    .map_err(|e| pq(e.to_string()))?;
                Sink::Parquet { table: table.to_owned(), writer }
            }
            ExportFormat::Csv => {
                let mut out = file;
                let header: Vec<&str> = specs.iter().map(|s| s.name).collect();
                writeln!(out, "{}", header.join(",")).map_err(io_err(&path))?;
                Sink::Csv { path: path.clone(), out }
            }
        };
        let columns = specs.iter().map(|s| Values::empty(s.ty)).collect();
        Ok((TableWriter { specs, columns, sink, rows: 0 }, path))
    }

    /// The column buffers, to push one row's values into (one push per column).
    fn cols(&mut self) -> &mut [Values] {
        &mut self.columns
    }

    /// Call after pushing a row: flushes a full batch.
    fn row_done(&mut self) -> Result<(), ExportError> {
        self.rows += 1;
        if self.columns.first().map_or(0, Values::len) >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExportError> {
        let n = self.columns.first().map_or(0, Values::len);
        if n == 0 {
            return Ok(());
        }
        let columns: Vec<Values> = std::mem::replace(
            &mut self.columns,
            self.specs.iter().map(|s| Values::empty(s.ty)).collect(),
        );
        match &mut self.sink {
            Sink::Parquet { table, writer } => write_row_group(writer, self.specs, columns)
                .map_err(|e| ExportError::Parquet { table: table.clone(), message: e.to_string() }),
            Sink::Csv { path, out } => {
                write_csv_rows(out, self.specs, &columns, n).map_err(io_err(path))
            }
        }
    }

    fn finish(mut self) -> Result<u64, ExportError> {
        self.flush()?;
        match self.sink {
            Sink::Parquet { table, writer } => {
                writer.close().map_err(|e| ExportError::Parquet {
                    table: table.clone(),
                    message: e.to_string(),
                })?;
            }
            Sink::Csv { path, mut out } => out.flush().map_err(io_err(&path))?,
        }
        Ok(self.rows)
    }
}

/// The present values and the definition levels of an optional column, moving the values
/// (a byte array's clone is a reference-count update; millions of them showed up in profiles).
fn levels<T>(values: Vec<Option<T>>) -> (Vec<T>, Vec<i16>) {
    let mut present = Vec::with_capacity(values.len());
    let mut defs = Vec::with_capacity(values.len());
    for v in values {
        match v {
            Some(x) => {
                present.push(x);
                defs.push(1);
            }
            None => defs.push(0),
        }
    }
    (present, defs)
}

fn write_row_group(
    writer: &mut SerializedFileWriter<BufWriter<File>>,
    specs: &[ColumnSpec],
    columns: Vec<Values>,
) -> parquet::errors::Result<()> {
    let mut rg = writer.next_row_group()?;
    let mut columns = columns.into_iter();
    let mut i = 0;
    while let Some(mut cw) = rg.next_column()? {
        let nullable = specs.get(i).is_some_and(|s| s.nullable);
        match columns.next() {
            Some(Values::Utf8(v)) => {
                let (vals, defs) = levels(v);
                cw.typed::<ByteArrayType>().write_batch(
                    &vals,
                    nullable.then_some(&defs[..]),
                    None,
                )?;
            }
            Some(Values::Int32(v)) => {
                let (vals, defs) = levels(v);
                cw.typed::<Int32Type>().write_batch(&vals, nullable.then_some(&defs[..]), None)?;
            }
            Some(Values::Int64(v)) => {
                let (vals, defs) = levels(v);
                cw.typed::<Int64Type>().write_batch(&vals, nullable.then_some(&defs[..]), None)?;
            }
            Some(Values::Float64(v)) => {
                let (vals, defs) = levels(v);
                cw.typed::<DoubleType>().write_batch(&vals, nullable.then_some(&defs[..]), None)?;
            }
            Some(Values::Bool(v)) => {
                let (vals, defs) = levels(v);
                cw.typed::<BoolType>().write_batch(&vals, nullable.then_some(&defs[..]), None)?;
            }
            Some(Values::Utf8List(v)) => {
                // required list of required strings: def 0 = empty list, 1 = an element;
                // rep 0 starts a row, 1 continues its list.
                let mut vals = Vec::new();
                let mut defs = Vec::new();
                let mut reps = Vec::new();
                for list in v {
                    if list.is_empty() {
                        defs.push(0);
                        reps.push(0);
                    }
                    for (j, x) in list.into_iter().enumerate() {
                        vals.push(x);
                        defs.push(1);
                        reps.push(i16::from(j > 0));
                    }
                }
                cw.typed::<ByteArrayType>().write_batch(&vals, Some(&defs), Some(&reps))?;
            }
            None => {
                return Err(parquet::errors::ParquetError::General(
                    "more schema columns than value columns".into(),
                ))
            }
        }
        cw.close()?;
        i += 1;
    }
    rg.close()?;
    Ok(())
}

fn csv_cell(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    if text.contains([',', '"', '\n', '\r']) {
        write!(out, "\"{}\"", text.replace('"', "\"\""))
    } else {
        out.write_all(text.as_bytes())
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.ffffff]Z` for microseconds since the epoch.
pub fn format_micros(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let frac = us.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let date = format_date_days(days);
    if frac == 0 {
        format!("{date}T{h:02}:{m:02}:{s:02}Z")
    } else {
        format!("{date}T{h:02}:{m:02}:{s:02}.{frac:06}Z")
    }
}

fn write_csv_rows(
    out: &mut BufWriter<File>,
    specs: &[ColumnSpec],
    columns: &[Values],
    n: usize,
) -> std::io::Result<()> {
    let ts_cols: Vec<bool> = specs.iter().map(|s| s.ty == ColumnType::TimestampMicros).collect();
    for row in 0..n {
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            match c {
                Values::Utf8(v) => {
                    if let Some(b) = &v[row] {
                        csv_cell(out, &String::from_utf8_lossy(b.data()))?;
                    }
                }
                Values::Int32(v) => {
                    if let Some(x) = v[row] {
                        write!(out, "{x}")?;
                    }
                }
                Values::Int64(v) => {
                    if let Some(x) = v[row] {
                        if ts_cols.get(i).copied().unwrap_or(false) {
                            out.write_all(format_micros(x).as_bytes())?;
                        } else {
                            write!(out, "{x}")?;
                        }
                    }
                }
                Values::Float64(v) => {
                    if let Some(x) = v[row] {
                        write!(out, "{x}")?;
                    }
                }
                Values::Bool(v) => {
                    if let Some(x) = v[row] {
                        out.write_all(if x { b"true" } else { b"false" })?;
                    }
                }
                Values::Utf8List(v) => {
                    let items: Vec<String> = v[row]
                        .iter()
                        .map(|b| String::from_utf8_lossy(b.data()).into_owned())
                        .collect();
                    let json = serde_json::to_string(&items).unwrap_or_else(|_| "[]".into());
                    csv_cell(out, &json)?;
                }
            }
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Pushes one value into a column buffer; a type mismatch is a bug in the table builders below,
/// caught by the tests (every table is written in both formats there).
trait Push {
    fn s(&mut self, v: Option<ByteArray>);
    fn i32(&mut self, v: Option<i32>);
    fn i64(&mut self, v: Option<i64>);
    fn f64(&mut self, v: Option<f64>);
    fn b(&mut self, v: Option<bool>);
    fn list(&mut self, v: Vec<ByteArray>);
}

impl Push for Values {
    fn s(&mut self, v: Option<ByteArray>) {
        if let Values::Utf8(c) = self {
            c.push(v);
        }
    }
    fn i32(&mut self, v: Option<i32>) {
        if let Values::Int32(c) = self {
            c.push(v);
        }
    }
    fn i64(&mut self, v: Option<i64>) {
        if let Values::Int64(c) = self {
            c.push(v);
        }
    }
    fn f64(&mut self, v: Option<f64>) {
        if let Values::Float64(c) = self {
            c.push(v);
        }
    }
    fn b(&mut self, v: Option<bool>) {
        if let Values::Bool(c) = self {
            c.push(v);
        }
    }
    fn list(&mut self, v: Vec<ByteArray>) {
        if let Values::Utf8List(c) = self {
            c.push(v);
        }
    }
}

use ColumnType::{Bool, Float64, Int32, Int64, TimestampMicros, Utf8, Utf8List};

/// Columns of the `cases` table.
pub const CASES_COLUMNS: [ColumnSpec; 8] = [
    col("case_hash", Utf8, false),
    col("round", Utf8, false),
    col("round_seq", Int32, false),
    col("failed", Bool, false),
    col("pattern", Utf8, true),
    col("subset", Utf8, true),
    col("gold", Utf8, true),
    col("query", Utf8, true),
];

/// Columns of the `rounds` table.
pub const ROUNDS_COLUMNS: [ColumnSpec; 7] = [
    col("round", Utf8, false),
    col("seq", Int32, false),
    col("run_dic", Int64, true),
    col("hypothesis", Utf8, true),
    col("verdict", Utf8, true),
    col("intervention", Utf8, true),
    col("patterns", Utf8List, false),
];

/// Columns of the `timeline_events` table.
pub const TIMELINE_COLUMNS: [ColumnSpec; 13] = [
    col("task_id", Utf8, false),
    col("line", Int32, false),
    col("ts", TimestampMicros, true),
    col("ts_text", Utf8, true),
    col("action", Utf8, true),
    col("stage", Int32, true),
    col("subagent", Utf8, true),
    col("mode", Utf8, true),
    col("verdict", Utf8, true),
    col("reason", Utf8, true),
    col("duration_s", Float64, true),
    col("phase_before", Utf8, true),
    col("phase_after", Utf8, true),
];

/// Columns of the `search_events` table.
pub const SEARCH_COLUMNS: [ColumnSpec; 6] = [
    col("event", Int64, false),
    col("ts", TimestampMicros, true),
    col("ts_text", Utf8, true),
    col("task", Utf8, true),
    col("rank", Int32, false),
    col("entry_id", Utf8, false),
];

/// Columns of the `entries` table.
pub const ENTRIES_COLUMNS: [ColumnSpec; 7] = [
    col("id", Utf8, false),
    col("kind", Utf8, false),
    col("status", Utf8, false),
    col("file", Utf8, false),
    col("line", Int64, false),
    col("facet", Utf8, true),
    col("value", Utf8, true),
];

/// One search event: when, which task, and the ids returned in rank order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHits {
    pub ts: String,
    pub task: Option<String>,
    pub returned: Vec<String>,
}

/// One entry with its facet values (facet name → values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFacets {
    pub id: String,
    pub kind: String,
    pub status: String,
    pub file: String,
    pub line: u64,
    pub facets: Vec<(String, Vec<String>)>,
}

/// Everything an export writes.
pub struct ExportInput<'a> {
    /// The registry and the iteration log.
    pub table: &'a CaseTable,
    pub tasks: &'a [(String, Vec<TimelineEvent>)],
    pub searches: &'a [SearchHits],
    pub entries: &'a [EntryFacets],
}

fn to_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Writes the five tables into `dir` (which must exist), in table order.
pub fn export(
    dir: &Path,
    format: ExportFormat,
    input: &ExportInput<'_>,
) -> Result<Vec<WrittenTable>, ExportError> {
    let mut out = Vec::new();
    let mut done = |table: &str, path: PathBuf, rows: u64| {
        out.push(WrittenTable { table: table.to_owned(), path: path.display().to_string(), rows });
    };

    // cases: one row per case × evaluated round.
    let t = input.table;
    let path = dir.join(format!("cases.{}", format.extension()));
    let rows = match format {
        ExportFormat::Parquet => write_cases_parquet(&path, t)?,
        ExportFormat::Csv => write_cases_csv(dir, t)?,
    };
    done("cases", path, rows);

    // rounds: every round of the round order, with the log's fields when it has the round.
    let (mut w, path) = TableWriter::create(dir, "rounds", format, &ROUNDS_COLUMNS)?;
    for (seq, name) in t.order().iter().enumerate() {
        let log = t.rounds.iter().find(|r| &r.round == name);
        let iv = log.and_then(|r| r.intervention.as_ref());
        let cols = w.cols();
        cols[0].s(Some(bytes(name)));
        cols[1].i32(Some(to_i32(seq)));
        cols[2].i64(log.and_then(|r| r.run_dic));
        cols[3].s(opt_bytes(log.and_then(|r| r.hypothesis.as_deref())));
        cols[4].s(opt_bytes(log.and_then(|r| r.verdict.as_deref())));
        cols[5].s(opt_bytes(iv.and_then(|iv| iv.kind.as_deref())));
        cols[6]
            .list(iv.map(|iv| iv.patterns.iter().map(|p| bytes(p)).collect()).unwrap_or_default());
        w.row_done()?;
    }
    done("rounds", path, w.finish()?);

    let (mut w, path) = TableWriter::create(dir, "timeline_events", format, &TIMELINE_COLUMNS)?;
    for (task, events) in input.tasks {
        let task = bytes(task);
        for e in events {
            let cols = w.cols();
            cols[0].s(Some(task.clone()));
            cols[1].i32(Some(i32::try_from(e.line).unwrap_or(i32::MAX)));
            cols[2].i64(ts_micros(e.ts.as_deref()));
            cols[3].s(opt_bytes(e.ts.as_deref()));
            cols[4].s(opt_bytes(e.action.as_deref()));
            cols[5].i32(e.stage.map(i32::from));
            cols[6].s(opt_bytes(e.subagent.as_deref()));
            cols[7].s(opt_bytes(e.mode.as_deref()));
            cols[8].s(opt_bytes(e.verdict.as_deref()));
            cols[9].s(opt_bytes(e.reason.as_deref()));
            cols[10].f64(e.duration_s);
            cols[11].s(opt_bytes(e.phase_before.as_deref()));
            cols[12].s(opt_bytes(e.phase_after.as_deref()));
            w.row_done()?;
        }
    }
    done("timeline_events", path, w.finish()?);

    let (mut w, path) = TableWriter::create(dir, "search_events", format, &SEARCH_COLUMNS)?;
    for (i, e) in input.searches.iter().enumerate() {
        let ts = ts_micros(Some(&e.ts));
        for (rank, id) in e.returned.iter().enumerate() {
            let cols = w.cols();
            cols[0].i64(Some(i64::try_from(i).unwrap_or(i64::MAX)));
            cols[1].i64(ts);
            cols[2].s(Some(bytes(&e.ts)).filter(|_| !e.ts.is_empty()));
            cols[3].s(opt_bytes(e.task.as_deref()));
            cols[4].i32(Some(to_i32(rank + 1)));
            cols[5].s(Some(bytes(id)));
            w.row_done()?;
        }
    }
    done("search_events", path, w.finish()?);

    let (mut w, path) = TableWriter::create(dir, "entries", format, &ENTRIES_COLUMNS)?;
    for e in input.entries {
        let pairs: Vec<(&str, &str)> = e
            .facets
            .iter()
            .flat_map(|(f, vals)| vals.iter().map(move |v| (f.as_str(), v.as_str())))
            .collect();
        let rows: Vec<(Option<&str>, Option<&str>)> = if pairs.is_empty() {
            vec![(None, None)]
        } else {
            pairs.into_iter().map(|(f, v)| (Some(f), Some(v))).collect()
        };
        for (facet, value) in rows {
            let cols = w.cols();
            cols[0].s(Some(bytes(&e.id)));
            cols[1].s(Some(bytes(&e.kind)));
            cols[2].s(Some(bytes(&e.status)));
            cols[3].s(Some(bytes(&e.file)));
            cols[4].i64(Some(i64::try_from(e.line).unwrap_or(i64::MAX)));
            cols[5].s(opt_bytes(facet));
            cols[6].s(opt_bytes(value));
            w.row_done()?;
        }
    }
    done("entries", path, w.finish()?);
    Ok(out)
}

/// The `cases` table as CSV, through the row writer every table uses.
fn write_cases_csv(dir: &Path, t: &CaseTable) -> Result<u64, ExportError> {
    let round_names: Vec<ByteArray> = t.order().iter().map(|r| bytes(r)).collect();
    let (mut w, _) = TableWriter::create(dir, "cases", ExportFormat::Csv, &CASES_COLUMNS)?;
    for c in 0..t.len() {
        let hash = bytes(t.case_hash(c));
        let pattern = opt_bytes(t.pattern(c));
        let subset = opt_bytes(t.subset(c));
        let gold = opt_bytes(t.gold(c));
        let query = opt_bytes(t.query(c));
        for (r, &status) in t.row(c).iter().enumerate() {
            if status == NOT_EVALUATED {
                continue;
            }
            let cols = w.cols();
            cols[0].s(Some(hash.clone()));
            cols[1].s(Some(round_names[r].clone()));
            cols[2].i32(Some(to_i32(r)));
            cols[3].b(Some(status == FAIL));
            cols[4].s(pattern.clone());
            cols[5].s(subset.clone());
            cols[6].s(gold.clone());
            cols[7].s(query.clone());
            w.row_done()?;
        }
    }
    w.finish()
}

/// Columns of `cases` whose min/max statistics are not written. Every row group holds
/// thousands of cases, so it spans nearly every round, pattern, subset and gold label, and its
/// queries are as scattered as its cases: their min/max never exclude a row group, and
/// computing them compared every one of the 42M values at 1M cases × 50 rounds. `case_hash`
/// keeps them (cases are in key order, so each row group covers its own key range), and so do
/// the number columns.
const CASES_WITHOUT_STATISTICS: [&str; 5] = ["round", "pattern", "subset", "gold", "query"];

/// Writes the `cases` table as Parquet and returns its row count.
///
/// The parquet crate's byte-array column writer takes one reference-counted value per row: at
/// 42M rows × 5 string columns, building, cloning and dropping them, with the min/max of every
/// value, was more than half of an export's 29 s of CPU. Here each string column is an arrow
/// dictionary array instead: its values are the round names, the table's dictionary of gold,
/// subset and pattern words, or the row group's own case keys and queries (one per case, not
/// per row), and its keys are the numbers the table already holds, so building a row costs a
/// few integers. The writer still hashes each value into the Parquet dictionary (about half of
/// the 7 s that remain), but from a borrowed slice. The file has the same
/// Parquet schema as the other tables' writer gives (`with_parquet_schema`; no arrow schema in
/// the metadata), so readers see plain `STRING` columns.
///
/// The columns are encoded one after another: encoding a row group's columns on two threads
/// took a third more CPU time and no less wall time on the shared two-core machine (load
/// average about 3).
fn write_cases_parquet(path: &Path, t: &CaseTable) -> Result<u64, ExportError> {
    let pq = |e: &dyn std::fmt::Display| ExportError::Parquet {
        table: "cases".to_owned(),
        message: e.to_string(),
    };
    let schema = parquet_schema("cases", &CASES_COLUMNS).map_err(|e| pq(&e))?;
    let dictionary = || DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let fields = CASES_COLUMNS
        .iter()
        .map(|s| {
            let ty = match s.ty {
                ColumnType::Utf8 => dictionary(),
                ColumnType::Int32 => DataType::Int32,
                ColumnType::Bool => DataType::Boolean,
                other => return Err(pq(&format!("no arrow type for a {other:?} column"))),
            };
            Ok(Field::new(s.name, ty, s.nullable))
        })
        .collect::<Result<Vec<Field>, ExportError>>()?;
    let arrow_schema = Arc::new(Schema::new(fields));
    let mut props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by("evokb".to_owned())
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS));
    for name in CASES_WITHOUT_STATISTICS {
        props =
            props.set_column_statistics_enabled(ColumnPath::from(name), EnabledStatistics::None);
    }
    let options = ArrowWriterOptions::new()
        .with_properties(props.build())
        .with_parquet_schema(SchemaDescriptor::new(Arc::new(schema)))
        .with_skip_arrow_metadata(true);
    let file = BufWriter::new(File::create(path).map_err(io_err(path))?);
    let mut writer = ArrowWriter::try_new_with_options(file, arrow_schema.clone(), options)
        .map_err(|e| pq(&e))?;

    let round_names: ArrayRef = Arc::new(StringArray::from_iter_values(t.order()));
    let words: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..t.words()).map(|i| t.word_text(u32::try_from(i).unwrap_or(u32::MAX)).unwrap_or("")),
    ));
    let word = |id: Option<u32>| id.map(|i| i32::try_from(i).unwrap_or(i32::MAX));
    let dict = |keys: Int32Array, values: &ArrayRef| -> Result<ArrayRef, ExportError> {
        Ok(Arc::new(DictionaryArray::try_new(keys, values.clone()).map_err(|e| pq(&e))?))
    };
    let mut rows = 0u64;
    let mut c = 0;
    while c < t.len() {
        // One row group: whole cases, at most ROW_GROUP_ROWS rows (at least one case).
        let first = c;
        let mut case = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut round = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut failed = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut pattern = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut subset = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut gold = Vec::with_capacity(ROW_GROUP_ROWS);
        let mut query = Vec::with_capacity(ROW_GROUP_ROWS);
        while c < t.len() {
            let row = t.row(c);
            let n = row.iter().filter(|&&s| s != NOT_EVALUATED).count();
            if c > first && case.len() + n > ROW_GROUP_ROWS {
                break;
            }
            let local = to_i32(c - first);
            let q = t.query(c).map(|_| local);
            let (p, s, g) = (word(t.pattern_id(c)), word(t.subset_id(c)), word(t.gold_id(c)));
            for (r, &status) in row.iter().enumerate() {
                if status == NOT_EVALUATED {
                    continue;
                }
                case.push(local);
                round.push(to_i32(r));
                failed.push(status == FAIL);
                pattern.push(p);
                subset.push(s);
                gold.push(g);
                query.push(q);
            }
            c += 1;
        }
        rows += case.len() as u64;
        let keys: ArrayRef =
            Arc::new(StringArray::from_iter_values((first..c).map(|i| t.case_hash(i))));
        let queries: ArrayRef =
            Arc::new(StringArray::from_iter_values((first..c).map(|i| t.query(i).unwrap_or(""))));
        // `round_seq` is the round's position in the order, which is also its number among
        // the round names: one buffer serves both columns.
        let seq = Int32Array::from(round);
        let columns: Vec<ArrayRef> = vec![
            dict(Int32Array::from(case), &keys)?,
            dict(seq.clone(), &round_names)?,
            Arc::new(seq),
            Arc::new(BooleanArray::from(failed)),
            dict(Int32Array::from(pattern), &words)?,
            dict(Int32Array::from(subset), &words)?,
            dict(Int32Array::from(gold), &words)?,
            dict(Int32Array::from(query), &queries)?,
        ];
        let batch = RecordBatch::try_new(arrow_schema.clone(), columns).map_err(|e| pq(&e))?;
        writer.write(&batch).map_err(|e| pq(&e))?;
        // End the row group here, at a case boundary.
        writer.flush().map_err(|e| pq(&e))?;
    }
    writer.close().map_err(|e| pq(&e))?;
    Ok(rows)
}
