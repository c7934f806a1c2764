//! `get`, `set`, `add` and `list`: reading and changing individual records.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use evokb_export::mutate;
use evokb_store::{Kind, Record};
use serde_json::json;

use super::{ok, print, print_json};
use crate::cli::PageArgs;
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

fn record_json(rec: &Record) -> serde_json::Value {
    let mut fields = serde_json::Map::new();
    for (k, v) in rec.fields() {
        fields.entry(k.to_string()).or_insert_with(|| json!(v));
    }
    json!({
        "kind": rec.kind.tag(),
        "id": rec.id,
        "file": rec.file,
        "case_hash": rec.case_hash().to_hex(),
        "fields": fields,
        "body": rec.body(),
        "text": rec.text(),
    })
}

/// The record with `id` (of `kind`), a consolidated entry resolved to its survivor: the lookup
/// of both `evokb get` and the MCP `get` tool.
pub fn lookup(root: &Path, id: &str, kind: Option<Kind>) -> CmdResult<Record> {
    let store = root::open_for_reading(root)?;
    let txn = store.read()?;
    let found = mutate::find(&txn, id, kind)?;
    // A consolidated entry resolves to its survivor.
    let found = match &found {
        Some(r) if r.kind == Kind::Entry && r.field("consolidated_into").is_some() => {
            evokb_evolve::deltas::resolve(&store, id)?.or(found)
        }
        _ => found,
    };
    found.ok_or_else(|| {
        CommandError::new(ErrorKind::Usage, format!("no record has the id '{id}'"))
            .hint("'evokb list' shows the ids the store holds")
    })
}

/// The JSON of `get --json`: the record, and `resolved_from` when `id` was consolidated away.
pub fn get_json(rec: &Record, id: &str) -> serde_json::Value {
    let mut value = record_json(rec);
    if rec.id != id {
        value["resolved_from"] = json!(id);
    }
    value
}

pub fn get(root: Option<&Path>, id: &str, kind: Option<Kind>, json_out: bool) -> CmdResult {
    evokb_alloc::keep_freed_memory();
    let root = root::find(root)?;
    let rec = lookup(&root, id, kind)?;
    if json_out {
        print_json(&get_json(&rec, id))?;
    } else {
        let mut out = String::new();
        if rec.id != id {
            let _ = writeln!(out, "({id} was consolidated into {})", rec.id);
        }
        let _ = write!(
            out,
            "{} {}\nfile: {}\ncase_hash: {}\n",
            rec.kind,
            rec.id,
            rec.file,
            rec.case_hash().to_hex()
        );
        for (k, v) in rec.fields() {
            let _ = writeln!(out, "{k}: {v}");
        }
        if let Some(body) = rec.body() {
            let _ = write!(out, "body:\n{body}");
            if !body.ends_with('\n') {
                out.push('\n');
            }
        }
        print(&out)?;
    }
    ok()
}

pub fn set(
    root: Option<&Path>,
    id: &str,
    kind: Option<Kind>,
    field: &str,
    value: &str,
) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open(&root)?;
    let report = mutate::set_field(&store, id, kind, field, value)?;
    let mut out = String::new();
    if report.changed.is_empty() {
        out.push_str("nothing changed: the field already has this value\n");
    }
    for (k, i) in &report.changed {
        let _ = writeln!(out, "updated {k} '{i}'");
    }
    print(&out)?;
    ok()
}

pub fn list(root: Option<&Path>, kind: Option<Kind>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let mut records: Vec<Record> =
        store.read()?.records()?.into_iter().filter(|r| kind.is_none_or(|k| r.kind == k)).collect();
    records.sort_by(|a, b| (a.kind, &a.id).cmp(&(b.kind, &b.id)));
    if json_out {
        let rows: Vec<serde_json::Value> = records
            .iter()
            .map(|r| json!({"kind": r.kind.tag(), "id": r.id, "file": r.file}))
            .collect();
        print_json(&serde_json::Value::Array(rows))?;
    } else {
        let mut out = String::new();
        for r in &records {
            let _ = writeln!(out, "{:<13} {}", r.kind.tag(), r.id);
        }
        print(&out)?;
    }
    ok()
}

/// The rows a facet filter selects and the ids under quarantine: the query of both
/// `evokb query` and the MCP `query` tool. A damaged facet index is rebuilt first, and the
/// rebuild's note is returned for stderr.
pub fn query_rows(
    root: &Path,
    filter: &evokb_store::Filter,
) -> CmdResult<(Vec<evokb_store::QueryRow>, HashSet<String>, Option<String>)> {
    answer(root, |txn, _| txn.query(filter))
}

/// The page cache of a query's store handle. A query reads each row's page once and copies
/// what it keeps, so a page the cache lets go is freed and its memory serves the next read;
/// what stays is the branch pages every range read descends through. With the default cache
/// every page read stayed, and a family query at 100k entries faulted in 8 MB for them.
const QUERY_CACHE_BYTES: usize = 1 << 20;

/// Runs a query against the facet index, rebuilding the index first when it is damaged or
/// was built by an older evokb: `ask` is given a read transaction and the ids under
/// quarantine. Returns the answer, those ids and the rebuild's note.
fn answer<T>(
    root: &Path,
    ask: impl Fn(&evokb_store::ReadTxn, &HashSet<String>) -> Result<T, evokb_store::StoreError>,
) -> CmdResult<(T, HashSet<String>, Option<String>)> {
    let mut store = root::open_for_reading_with_cache(root, QUERY_CACHE_BYTES)?;
    let quarantined = evokb_evolve::quarantine::active_ids(&store.read()?)?;
    let first = ask(&store.read()?, &quarantined);
    let mut note = None;
    let rows = match first {
        // A facet index row that does not decode is derived data gone bad: rebuild the index
        // from the records (through a checked write handle) and answer again.
        Err(evokb_store::StoreError::Corrupted { table, key, detail })
            if table.starts_with("idx.") =>
        {
            drop(store);
            store = root::open(root)?;
            // A store written by an older evokb has its index in tables this one does not
            // read: it is built anew, and the note says so rather than calling it damage.
            let reason = if table == evokb_store::query::INDEX_MARK_TABLE {
                format!("was missing ({detail})")
            } else {
                format!("was damaged (the row at key {key} in '{table}' does not decode: {detail})")
            };
            note = Some(store.rebuild_facet_index(reason)?.to_string());
            let txn = store.read()?;
            ask(&txn, &quarantined)?
        }
        other => other?,
    };
    Ok((rows, quarantined, note))
}

/// A query row as printed: its own keys, then `"quarantined": true` when it is.
#[derive(serde::Serialize)]
struct Marked<'a> {
    #[serde(flatten)]
    row: &'a evokb_store::QueryRow,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    quarantined: bool,
}

/// Query rows as JSON values, each marked `"quarantined": true` when it is.
pub fn rows_json(
    rows: &[evokb_store::QueryRow],
    quarantined: &HashSet<String>,
) -> CmdResult<Vec<serde_json::Value>> {
    let mut values: Vec<serde_json::Value> = Vec::with_capacity(rows.len());
    for r in rows {
        let mut v = serde_json::to_value(r).map_err(std::io::Error::from)?;
        if quarantined.contains(&r.id) {
            v["quarantined"] = json!(true);
        }
        values.push(v);
    }
    Ok(values)
}

pub fn query(
    root: Option<&Path>,
    filter: &evokb_store::Filter,
    page: PageArgs,
    count: bool,
    json_out: bool,
) -> CmdResult {
    evokb_alloc::keep_freed_memory();
    let root = root::find(root)?;
    if count {
        // Only the number: the rows are counted where they are stored, none copied or sorted.
        let (n, _, note) = answer(&root, |txn, _| txn.query_count(filter))?;
        if let Some(note) = note {
            eprintln!("evokb: {note}");
        }
        print(&format!("{n}\n"))?;
        return ok();
    }
    if json_out && !super::pretty() {
        return query_json(&root, filter, page);
    }
    let (rows, quarantined, note) = query_rows(&root, filter)?;
    if let Some(note) = note {
        eprintln!("evokb: {note}");
    }
    let total = rows.len();
    // The order is the store's (file, line, id), so pages do not overlap.
    let window = page.window(rows.len());
    let rows: Vec<evokb_store::QueryRow> =
        rows.into_iter().skip(window.start).take(window.len()).collect();
    if json_out {
        // Streamed straight to stdout: a broad query at 100k entries is megabytes of JSON, and
        // building a serde_json::Value first doubled the time spent on output. A quarantined
        // row gets its mark as a last key, as `rows_json` gives it.
        let marked: Vec<Marked<'_>> = rows
            .iter()
            .map(|row| Marked { row, quarantined: quarantined.contains(&row.id) })
            .collect();
        print_json(&marked)?;
        return ok();
    }
    let mut out = String::new();
    for r in &rows {
        let file = r.file.rsplit('/').next().unwrap_or(&r.file);
        let title: String = r.title.chars().take(60).collect();
        let _ = writeln!(
            out,
            "{:<40} {:<9} {:<10} {:<28} {}:{}  {}{}",
            r.id,
            r.kind,
            r.status,
            r.family.join(","),
            file,
            r.line,
            title,
            if quarantined.contains(&r.id) { super::search::QUARANTINE_MARK } else { "" }
        );
    }
    let _ = writeln!(out, "{} of {total} entr{}", rows.len(), if total == 1 { "y" } else { "ies" });
    print(&out)?;
    ok()
}

/// `query --json` without `--pretty`: the stored JSON of each selected row, copied in order
/// into a buffer that goes to stdout whenever it fills. The bytes are those `print_json` gives
/// for the rows marked as [`Marked`] does (the store's tests compare the fragments with
/// serde_json, the CLI snapshots the output).
fn query_json(root: &Path, filter: &evokb_store::Filter, page: PageArgs) -> CmdResult {
    if stream_json(root, filter, page)? {
        return ok();
    }
    let (written, _, note) = answer(root, |txn, quarantined| {
        txn.query_json(filter, |rows| write_page(rows, quarantined, page))
    })?;
    if let Some(note) = note {
        eprintln!("evokb: {note}");
    }
    written?;
    ok()
}

/// `query --json` streamed (see `ReadTxn::query_json_stream`): each row goes out as it is
/// read, so a broad answer is written while the rest is still being read. The bytes are
/// [`write_page`]'s. Returns false, having written nothing, when the store cannot stream the
/// answer; damage to the facet index found before anything went out is left for
/// [`answer`]'s rebuild, and damage found after the first bytes went out rebuilds the index
/// and fails the command, since the rows already written cannot be taken back.
fn stream_json(root: &Path, filter: &evokb_store::Filter, page: PageArgs) -> CmdResult<bool> {
    let store = root::open_for_reading_with_cache(root, QUERY_CACHE_BYTES)?;
    let txn = store.read()?;
    let quarantined = evokb_evolve::quarantine::active_ids(&txn)?;
    let mut array = JsonArrayOut::default();
    let streamed = txn.query_json_stream(
        filter,
        |n| page.window(n),
        |_, row| {
            let marked = !quarantined.is_empty() && quarantined.contains(row.id());
            array.push(|out| row.write(marked, out))
        },
    );
    let (written, rows_out) = (array.started(), array.rows);
    match streamed {
        Ok(None) => Ok(false),
        Ok(Some(result)) => {
            result?;
            array.finish()?;
            Ok(true)
        }
        Err(evokb_store::StoreError::Corrupted { table, key, detail })
            if table.starts_with("idx.") && written =>
        {
            drop(txn);
            drop(store);
            let reason = format!("was damaged (the entry at key {key} in '{table}': {detail})");
            let note = root::open(root)?.rebuild_facet_index(reason)?;
            Err(CommandError::new(
                ErrorKind::Store,
                format!("{note}; the rows written above stop part way, after {rows_out} rows"),
            )
            .hint("run the query again"))
        }
        Err(evokb_store::StoreError::Corrupted { table, .. }) if table.starts_with("idx.") => {
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes the JSON array of the rows in the window `page` selects, with a closing newline.
fn write_page(
    rows: &evokb_store::JsonRows<'_>,
    quarantined: &HashSet<String>,
    page: PageArgs,
) -> std::io::Result<()> {
    let mut array = JsonArrayOut::default();
    for i in page.window(rows.len()) {
        let marked = !quarantined.is_empty() && quarantined.contains(rows.id(i));
        array.push(|out| rows.write_row(i, marked, out))?;
    }
    array.finish()
}

/// A JSON array written to stdout as it grows: `[`, the rows with commas between, `]` and a
/// newline, in chunks. Stdout is taken at the first chunk, so nothing is written before a
/// chunk fills or the array is finished.
#[derive(Default)]
struct JsonArrayOut {
    out: Vec<u8>,
    stdout: Option<Box<dyn std::io::Write>>,
    /// The rows pushed so far.
    rows: usize,
}

impl JsonArrayOut {
    /// Flushed when this full: large enough for few writes, small enough to stay in cache.
    const CHUNK: usize = 256 << 10;

    /// Appends a row that `write` writes.
    fn push(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> std::io::Result<()> {
        if self.out.capacity() == 0 {
            self.out.reserve(Self::CHUNK + 4096);
        }
        self.out.push(if self.rows == 0 { b'[' } else { b',' });
        write(&mut self.out);
        self.rows += 1;
        if self.out.len() >= Self::CHUNK {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Whether any bytes have gone to stdout.
    fn started(&self) -> bool {
        self.stdout.is_some()
    }

    fn flush_chunk(&mut self) -> std::io::Result<()> {
        let to = match &mut self.stdout {
            Some(to) => to,
            None => self.stdout.insert(super::chunked_stdout()?),
        };
        to.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }

    /// Closes the array and writes what is left.
    fn finish(mut self) -> std::io::Result<()> {
        if self.rows == 0 {
            self.out.push(b'[');
        }
        self.out.extend_from_slice(b"]\n");
        self.flush_chunk()?;
        self.stdout.as_mut().map_or(Ok(()), |to| to.flush())
    }
}
