//! The analyst's commands: ingesting the error registry, the iteration log and task timelines
//! into the store, and printing the figures as a table, JSON or CSV, or drawing them as SVG.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use evokb_analytics::breakdown::{self, GroupBy, Grouped, TransitionClass};
use evokb_analytics::export::{ExportFormat, ExportInput, SearchHits};
use evokb_analytics::figures::{self, EntryLink, ErrorClass, InjectionPoint};
use evokb_analytics::model::{Round, TimelineEvent, TimelineFile};
use evokb_analytics::stored::{
    self, event_key, StoredData, ROUNDS, TIMELINE_EVENTS, TIMELINE_FILES,
};
use evokb_analytics::{chart, parse, report, statectl, timeline};
use evokb_evolve::hits::search_events;
use evokb_store::{ReadTxn, Store};
use serde::Serialize;

use super::{ok, print, print_json};
use crate::cli::{AfterArg, ByField, ClassArg, ExportFormatArg, Format};
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::progress::{Bar, CountingReader};
use crate::root;
use evokb_store::Progress as _;

fn read_text(path: &Path) -> CmdResult<String> {
    let bytes = std::fs::read(path).map_err(|e| {
        CommandError::new(ErrorKind::InvalidInput, format!("cannot read '{}': {e}", path.display()))
    })?;
    String::from_utf8(bytes).map_err(|e| {
        CommandError::new(
            ErrorKind::InvalidInput,
            format!("'{}' is not UTF-8 text: {e}", path.display()),
        )
    })
}

fn report(kind: &str, added: usize, unchanged: usize, diags: &[parse::Diagnostic]) -> CmdResult {
    let mut out = format!("{kind}: {added} added or changed, {unchanged} unchanged\n");
    for d in diags {
        let _ = writeln!(out, "skipped {d}");
    }
    print(&out)?;
    ok()
}

pub fn import_errors(root: Option<&Path>, files: &[PathBuf]) -> CmdResult {
    let mut bar = Bar::for_command(false);
    bar.phase("opening the store", 0);
    let store = open(root)?;
    let mut w = store.write()?;
    bar.phase("loading the registry", 0);
    let mut registry = stored::Registry::load(&mut w)?;
    let (mut added, mut unchanged, mut diags) = (0, 0, Vec::new());
    let mut opened = Vec::with_capacity(files.len());
    for f in files {
        let file = std::fs::File::open(f).map_err(|e| {
            CommandError::new(
                ErrorKind::InvalidInput,
                format!("cannot read '{}': {e}", f.display()),
            )
        })?;
        opened.push(file);
    }
    // The bar counts the bytes the parser has read, of all the files together.
    let total: u64 = opened.iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum();
    bar.phase_bytes("reading the registry", total);
    for (f, file) in files.iter().zip(opened) {
        // Read line by line, so the registry file is never held whole; the first error drops
        // the whole transaction.
        let reader = std::io::BufReader::with_capacity(1 << 20, CountingReader::new(file, &bar));
        let done =
            registry.import_file(&mut w, reader, &f.display().to_string()).map_err(
                |e| match e {
                    stored::ImportError::Read(e) => {
                        CommandError::new(ErrorKind::InvalidInput, e.to_string())
                    }
                    stored::ImportError::Store(e) => e.into(),
                },
            )?;
        added += done.added;
        unchanged += done.unchanged;
        diags.extend(done.diagnostics);
    }
    bar.phase("writing the cases", 0);
    registry.save(&mut w)?;
    bar.phase("committing", 0);
    w.commit()?;
    bar.finish();
    report("error cases", added, unchanged, &diags)
}

pub fn import_rounds(root: Option<&Path>, files: &[PathBuf]) -> CmdResult {
    let store = open(root)?;
    let mut w = store.write()?;
    let existing = w.items::<(u32, Round)>(ROUNDS)?;
    let mut next_seq = existing.iter().map(|(_, (s, _))| s + 1).max().unwrap_or(0);
    let seq_of: BTreeMap<Vec<u8>, u32> = existing.into_iter().map(|(k, (s, _))| (k, s)).collect();
    let (mut added, mut unchanged) = (0, 0);
    let mut diags = Vec::new();
    for f in files {
        let (rounds, d) = parse::parse_iteration_log(&read_text(f)?, &f.display().to_string());
        diags.extend(d);
        for r in rounds {
            // A round keeps the position it was first seen at, so re-imports and later
            // extensions of the log keep the log's order.
            let seq = seq_of.get(r.round.as_bytes()).copied().unwrap_or_else(|| {
                next_seq += 1;
                next_seq - 1
            });
            if w.put_item(ROUNDS, r.round.as_bytes(), &(seq, r.clone()))? {
                added += 1;
            } else {
                unchanged += 1;
            }
        }
    }
    w.commit()?;
    report("rounds", added, unchanged, &diags)
}

/// The timeline files under `dir`: its own `.task_timeline.jsonl`, or those of its subfolders.
fn timeline_files(dir: &Path) -> CmdResult<Vec<PathBuf>> {
    let own = dir.join(".task_timeline.jsonl");
    if own.is_file() {
        return Ok(vec![own]);
    }
    let entries = std::fs::read_dir(dir).map_err(|e| {
        CommandError::new(
            ErrorKind::InvalidInput,
            format!("cannot read the directory '{}': {e}", dir.display()),
        )
    })?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path().join(".task_timeline.jsonl"))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    if out.is_empty() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            format!("no .task_timeline.jsonl in '{}' or its subfolders", dir.display()),
        ));
    }
    Ok(out)
}

pub fn import_timelines(root: Option<&Path>, dirs: &[PathBuf]) -> CmdResult {
    let store = open(root)?;
    let mut w = store.write()?;
    let (mut added, mut unchanged) = (0, 0);
    let mut diags = Vec::new();
    for dir in dirs {
        for file in timeline_files(dir)? {
            let folder =
                file.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
            let task = folder.to_string();
            let text = read_text(&file)?;
            let (events, d) = parse::parse_timeline(&text, &file.display().to_string(), &task);
            diags.extend(d);
            let record = TimelineFile {
                task_id: task.clone(),
                timeline_path: statectl_timeline_path(&file)?,
                text,
            };
            let file_changed = w.put_item(TIMELINE_FILES, task.as_bytes(), &record)?;
            let mut prefix = task.as_bytes().to_vec();
            prefix.push(0);
            let before: Vec<TimelineEvent> = w
                .items_with_prefix::<TimelineEvent>(TIMELINE_EVENTS, &prefix)?
                .into_iter()
                .map(|(_, e)| e)
                .collect();
            if before == events {
                if file_changed {
                    added += 1;
                } else {
                    unchanged += 1;
                }
                continue;
            }
            w.remove_items_with_prefix(TIMELINE_EVENTS, &prefix)?;
            for e in &events {
                w.put_item(TIMELINE_EVENTS, &event_key(&task, e.line), e)?;
            }
            added += 1;
        }
    }
    w.commit()?;
    report("task timelines", added, unchanged, &diags)
}

/// statectl's `timeline_path` of a timeline file: relative to the repository root found from
/// the file's folder (see [`statectl::repo_root`]).
fn statectl_timeline_path(file: &Path) -> CmdResult<String> {
    let cwd = std::env::current_dir()?;
    let path = statectl::abspath(file, &cwd);
    let dir = path.parent().unwrap_or(&path);
    Ok(statectl::rel_posix(&path, &statectl::repo_root(dir, &cwd)))
}

/// The page cache of an analytics command's store handle. These commands stream: a figure
/// decodes each stored chunk of cases once into its own table, an import reads the chunks once
/// and writes each line segment and chunk once, an export reads once. A page they have read or
/// written is not read again, so redb's default cache (1 GiB, half of it for a write
/// transaction's pages) only held copies: at 1M cases × 50 rounds the first `errors import`
/// peaked at 1040 MiB, about half of it written pages. 64 MiB still holds the B-tree's branch
/// pages and the largest value in flight (a chunk: 65 536 cases, about 8 MB at 50 rounds).
const ANALYTICS_CACHE_BYTES: usize = 64 << 20;

fn open(root: Option<&Path>) -> CmdResult<Store> {
    let root = root::find(root)?;
    root::open_with_cache(&root, ANALYTICS_CACHE_BYTES)
}

fn open_ro(root: Option<&Path>) -> CmdResult<Store> {
    let root = root::find(root)?;
    root::open_for_reading_with_cache(&root, ANALYTICS_CACHE_BYTES)
}

type Data = StoredData;

fn load(txn: &ReadTxn) -> CmdResult<Data> {
    Ok(stored::load(txn)?)
}

fn require_registry(d: &Data) -> CmdResult<()> {
    if d.table.is_empty() {
        return Err(CommandError::new(ErrorKind::Usage, "the store holds no error cases")
            .hint("run 'evokb errors import results/error_registry.jsonl' (and 'evokb rounds import results/iteration_log.jsonl')"));
    }
    Ok(())
}

fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{r:.4}"))
}

/// Prints rows as an aligned table, CSV, or the JSON value.
fn emit(
    format: Format,
    json_value: serde_json::Value,
    headers: &[&str],
    rows: &[Vec<String>],
) -> CmdResult {
    match format {
        Format::Json => print_json(&json_value)?,
        Format::Csv => {
            let mut out = String::new();
            for row in std::iter::once(headers.iter().map(|h| h.to_string()).collect::<Vec<_>>())
                .chain(rows.iter().cloned())
            {
                let cells: Vec<String> = row.iter().map(|c| csv_cell(c)).collect();
                let _ = writeln!(out, "{}", cells.join(","));
            }
            print(&out)?;
        }
        Format::Table => print(&table(headers, rows))?,
    }
    ok()
}

fn csv_cell(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_string()
    }
}

fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, c) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(c.chars().count());
            }
        }
    }
    let mut out = String::new();
    let line = |cells: &mut dyn Iterator<Item = &str>, out: &mut String| {
        let parts: Vec<String> =
            cells.zip(&widths).map(|(c, w)| format!("{c:<w$}", w = *w)).collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    line(&mut headers.iter().copied(), &mut out);
    for row in rows {
        line(&mut row.iter().map(String::as_str), &mut out);
    }
    out
}

fn to_json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

fn group_by(by: ByField) -> GroupBy {
    match by {
        ByField::Subset => GroupBy::Subset,
        ByField::Pattern => GroupBy::Pattern,
    }
}

fn usage(e: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorKind::Usage, e.to_string())
}

/// Grouped rows as JSON objects: the group field first, then the figure's fields (a figure
/// field of the same name, like `pattern` in after-injection rows by pattern, is kept once).
fn grouped_json<T: Serialize>(by: GroupBy, rows: &[Grouped<T>]) -> serde_json::Value {
    let list = rows
        .iter()
        .map(|g| {
            let mut obj = serde_json::Map::new();
            obj.insert(by.field().into(), to_json(&g.group));
            if let serde_json::Value::Object(fields) = to_json(&g.figure) {
                for (k, v) in fields {
                    obj.entry(k).or_insert(v);
                }
            }
            serde_json::Value::Object(obj)
        })
        .collect();
    serde_json::Value::Array(list)
}

/// Table or CSV cells of a group: `-` in a table, empty in CSV, for cases without one.
fn group_cell(format: Format, group: Option<&str>) -> String {
    match (format, group) {
        (_, Some(g)) => g.to_string(),
        (Format::Csv, None) => String::new(),
        (_, None) => "-".to_string(),
    }
}

pub fn transitions(
    root: Option<&Path>,
    from: Option<&str>,
    to: Option<&str>,
    cases: Option<Option<ClassArg>>,
    by: Option<ByField>,
    format: Format,
) -> CmdResult {
    let store = open_ro(root)?;
    let d = load(&store.read()?)?;
    require_registry(&d)?;
    if let Some(class) = cases {
        let only = class.map(|c| match c {
            ClassArg::Persistent => TransitionClass::Persistent,
            ClassArg::NewFail => TransitionClass::NewFail,
            ClassArg::NewFix => TransitionClass::NewFix,
        });
        let rows = breakdown::transition_cases_in(&d.table, from, to, only).map_err(usage)?;
        let cell = |v: &Option<String>| group_cell(format, v.as_deref());
        let table_rows: Vec<Vec<String>> = rows
            .iter()
            .map(|t| {
                vec![
                    t.from.clone(),
                    t.to.clone(),
                    t.class.name().to_string(),
                    t.case_hash.clone(),
                    cell(&t.subset),
                    cell(&t.pattern),
                    cell(&t.gold),
                    cell(&t.query),
                ]
            })
            .collect();
        return emit(
            format,
            to_json(&rows),
            &["from", "to", "class", "case_hash", "subset", "pattern", "gold", "query"],
            &table_rows,
        );
    }
    if let Some(by) = by.map(group_by) {
        let rows = breakdown::transitions_by_in(&d.table, from, to, by).map_err(usage)?;
        let table_rows: Vec<Vec<String>> = rows
            .iter()
            .map(|g| {
                let t = &g.figure;
                vec![
                    group_cell(format, g.group.as_deref()),
                    t.from.clone(),
                    t.to.clone(),
                    t.persistent.to_string(),
                    t.new_fail.to_string(),
                    t.new_fix.to_string(),
                ]
            })
            .collect();
        return emit(
            format,
            grouped_json(by, &rows),
            &[by.field(), "from", "to", "persistent", "new_fail", "new_fix"],
            &table_rows,
        );
    }
    let rows = figures::transitions_in(&d.table, from, to).map_err(usage)?;
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|t| {
            vec![
                t.from.clone(),
                t.to.clone(),
                t.persistent.to_string(),
                t.new_fail.to_string(),
                t.new_fix.to_string(),
            ]
        })
        .collect();
    emit(format, to_json(&rows), &["from", "to", "persistent", "new_fail", "new_fix"], &table_rows)
}

pub fn recurrence(
    root: Option<&Path>,
    after: Option<AfterArg>,
    map: Option<&Path>,
    by: Option<ByField>,
    format: Format,
) -> CmdResult {
    let store = open_ro(root)?;
    let txn = store.read()?;
    let d = load(&txn)?;
    let by = by.map(group_by);
    match (after, map, by) {
        (None, _, Some(by)) => {
            require_registry(&d)?;
            let rows = breakdown::recurrence_by_in(&d.table, by);
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|g| {
                    let r = &g.figure;
                    vec![
                        group_cell(format, g.group.as_deref()),
                        r.failing_cases.to_string(),
                        r.recurring_cases.to_string(),
                        rate(r.rate),
                    ]
                })
                .collect();
            emit(
                format,
                grouped_json(by, &rows),
                &[by.field(), "failing_cases", "recurring_cases", "rate"],
                &table,
            )
        }
        (Some(AfterArg::Fix), _, Some(by)) => {
            require_registry(&d)?;
            let rows = breakdown::after_fix_by_in(&d.table, by);
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|g| {
                    let r = &g.figure;
                    vec![
                        group_cell(format, g.group.as_deref()),
                        r.fixed.to_string(),
                        r.recurred.to_string(),
                        r.unexercised.to_string(),
                        rate(r.rate),
                    ]
                })
                .collect();
            emit(
                format,
                grouped_json(by, &rows),
                &[by.field(), "fixed", "recurred", "unexercised", "rate"],
                &table,
            )
        }
        (Some(AfterArg::Injection), None, Some(by)) => {
            require_registry(&d)?;
            let rows = breakdown::after_injection_by_in(&d.table, by);
            let by_pattern = by == GroupBy::Pattern;
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|g| {
                    let a = &g.figure;
                    let mut row = vec![
                        a.pattern.clone(),
                        a.injected_at.clone(),
                        a.cases.to_string(),
                        a.recurred.to_string(),
                        rate(a.rate),
                    ];
                    if !by_pattern {
                        row.insert(0, group_cell(format, g.group.as_deref()));
                    }
                    row
                })
                .collect();
            let mut headers = vec!["pattern", "injected_at", "cases", "recurred", "rate"];
            if !by_pattern {
                headers.insert(0, by.field());
            }
            emit(format, grouped_json(by, &rows), &headers, &table)
        }
        (Some(AfterArg::Injection), Some(_), Some(_)) => {
            Err(usage("--by does not apply to --map (verdict links have no subset or pattern)"))
        }
        (None, _, None) => {
            require_registry(&d)?;
            let r = figures::recurrence_in(&d.table);
            let rows = vec![vec![
                r.failing_cases.to_string(),
                r.recurring_cases.to_string(),
                rate(r.rate),
            ]];
            emit(format, to_json(&r), &["failing_cases", "recurring_cases", "rate"], &rows)
        }
        (Some(AfterArg::Fix), _, None) => {
            require_registry(&d)?;
            let r = figures::recurrence_after_fix_in(&d.table);
            let rows = vec![vec![
                r.fixed.to_string(),
                r.recurred.to_string(),
                r.unexercised.to_string(),
                rate(r.rate),
            ]];
            emit(format, to_json(&r), &["fixed", "recurred", "unexercised", "rate"], &rows)
        }
        (Some(AfterArg::Injection), None, None) => {
            require_registry(&d)?;
            let r = figures::recurrence_after_injection_in(&d.table);
            let rows: Vec<Vec<String>> = r
                .iter()
                .map(|a| {
                    vec![
                        a.pattern.clone(),
                        a.injected_at.clone(),
                        a.cases.to_string(),
                        a.recurred.to_string(),
                        rate(a.rate),
                    ]
                })
                .collect();
            emit(
                format,
                to_json(&r),
                &["pattern", "injected_at", "cases", "recurred", "rate"],
                &rows,
            )
        }
        (Some(AfterArg::Injection), Some(map), None) => {
            let (links, points) = read_mapping(map, &txn)?;
            let r = figures::recurrence_after_entries_in(&links, &points, &d.table, &d.tasks)
                .map_err(usage)?;
            let rows: Vec<Vec<String>> = r
                .iter()
                .map(|a| {
                    vec![
                        a.entry_id.clone(),
                        format!("{}:{}", a.class_kind, a.class),
                        a.injected_at.clone(),
                        a.cases.to_string(),
                        a.recurred.to_string(),
                        rate(a.rate),
                    ]
                })
                .collect();
            emit(
                format,
                to_json(&r),
                &["entry", "class", "injected_at", "cases", "recurred", "rate"],
                &rows,
            )
        }
    }
}

pub fn round_report(root: Option<&Path>, round: &str, json_out: bool) -> CmdResult {
    let store = open_ro(root)?;
    let d = load(&store.read()?)?;
    require_registry(&d)?;
    let r = report::round_report_in(&d.table, round).map_err(usage)?;
    if json_out {
        print_json(&to_json(&r))?;
    } else {
        print(&report::round_report_markdown(&r))?;
    }
    ok()
}

pub fn export(
    root: Option<&Path>,
    format: ExportFormatArg,
    dir: &Path,
    json_out: bool,
) -> CmdResult {
    let store = open_ro(root)?;
    let txn = store.read()?;
    let d = load(&txn)?;
    let searches: Vec<SearchHits> = search_events(&txn.records()?)
        .into_iter()
        .map(|e| SearchHits { ts: e.ts, task: e.task, returned: e.returned })
        .collect();
    let entries = stored::load_entries(&txn)?;
    drop(txn);
    std::fs::create_dir_all(dir).map_err(|e| {
        CommandError::new(ErrorKind::Store, format!("cannot create '{}': {e}", dir.display()))
    })?;
    let format = match format {
        ExportFormatArg::Parquet => ExportFormat::Parquet,
        ExportFormatArg::Csv => ExportFormat::Csv,
    };
    let input =
        ExportInput { table: &d.table, tasks: &d.tasks, searches: &searches, entries: &entries };
    let written = evokb_analytics::export::export(dir, format, &input)
        .map_err(|e| CommandError::new(ErrorKind::Store, e.to_string()))?;
    if json_out {
        print_json(&serde_json::json!({ "tables": to_json(&written) }))?;
    } else {
        let mut out = String::new();
        for t in &written {
            let _ = writeln!(out, "{}: {} rows → {}", t.table, t.rows, t.path);
        }
        print(&out)?;
    }
    ok()
}

/// One line of an entry ↔ error-class mapping file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MappingRow {
    entry: String,
    pattern: Option<String>,
    verdict: Option<String>,
    round: Option<String>,
    merged_at: Option<String>,
    #[serde(default)]
    first_hit: bool,
}

/// Reads the mapping: a JSON array of `{entry, pattern|verdict, round|merged_at|first_hit}`.
/// First hits come from the search events in the store that carry a task id.
fn read_mapping(
    path: &Path,
    txn: &ReadTxn,
) -> CmdResult<(Vec<EntryLink>, BTreeMap<String, InjectionPoint>)> {
    let text = read_text(path)?;
    let rows: Vec<MappingRow> = serde_json::from_str(&text).map_err(|e| {
        CommandError::new(
            ErrorKind::InvalidInput,
            format!("{}:{}: {e}; expected a JSON array of {{\"entry\", \"pattern\" or \"verdict\", \"round\", \"merged_at\" or \"first_hit\": true}}", path.display(), e.line()),
        )
    })?;
    let hits = first_hits(txn)?;
    let mut links = Vec::new();
    let mut points = BTreeMap::new();
    for (i, row) in rows.into_iter().enumerate() {
        let bad = |msg: &str| {
            CommandError::new(
                ErrorKind::InvalidInput,
                format!("{}: mapping row {}: {msg}", path.display(), i + 1),
            )
        };
        let class = match (row.pattern, row.verdict) {
            (Some(p), None) => ErrorClass::Pattern(p),
            (None, Some(v)) => ErrorClass::Verdict(v),
            _ => return Err(bad("expected exactly one of \"pattern\" and \"verdict\"")),
        };
        let point = match (row.round, row.merged_at, row.first_hit) {
            (Some(r), None, false) => InjectionPoint::Round(r),
            (None, Some(t), false) => InjectionPoint::MergedAt(t),
            (None, None, true) => {
                InjectionPoint::FirstHit(hits.get(&row.entry).cloned().unwrap_or_default())
            }
            _ => {
                return Err(bad(
                    "expected exactly one of \"round\", \"merged_at\" and \"first_hit\": true",
                ))
            }
        };
        points.insert(row.entry.clone(), point);
        links.push(EntryLink { entry_id: row.entry, class });
    }
    Ok((links, points))
}

/// The first hit of each entry in each task: entry → task → ts, from search events that carry
/// a `task` field.
pub fn first_hits(txn: &ReadTxn) -> CmdResult<BTreeMap<String, BTreeMap<String, String>>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for e in search_events(&txn.records()?) {
        let Some(task) = e.task else { continue };
        for id in e.returned {
            let slot =
                out.entry(id).or_default().entry(task.clone()).or_insert_with(|| e.ts.clone());
            if e.ts < *slot {
                slot.clone_from(&e.ts);
            }
        }
    }
    Ok(out)
}

pub fn metrics(root: Option<&Path>, format: Format) -> CmdResult {
    let store = open_ro(root)?;
    let d = load(&store.read()?)?;
    if d.tasks.is_empty() {
        return Err(CommandError::new(ErrorKind::Usage, "the store holds no task timelines")
            .hint("run 'evokb timeline import DIR' first"));
    }
    let m = timeline::metrics(&d.tasks);
    let registry = (!d.table.is_empty()).then(|| figures::recurrence_in(&d.table));
    let mut value = to_json(&m);
    if let (Some(obj), Some(r)) = (value.as_object_mut(), &registry) {
        obj.insert("registry_recurrence".into(), to_json(r));
    }
    let mut rows = vec![
        vec!["tasks".into(), m.tasks.to_string()],
        vec![
            "first_pass_rate".into(),
            format!(
                "{} ({}/{} tasks)",
                rate(m.first_pass_rate.rate),
                m.first_pass_rate.passed,
                m.first_pass_rate.tasks
            ),
        ],
        vec![
            "recurrence_rate".into(),
            format!(
                "{} ({}/{} failure modes)",
                rate(m.recurrence.rate),
                m.recurrence.recurring_modes,
                m.recurrence.failure_modes
            ),
        ],
        vec![
            "design_revision_avg".into(),
            format!(
                "{} ({} revisions)",
                rate(m.design_revision_avg.avg),
                m.design_revision_avg.revisions
            ),
        ],
    ];
    if let Some(r) = &registry {
        rows.push(vec![
            "registry_recurrence".into(),
            format!("{} ({}/{} cases)", rate(r.rate), r.recurring_cases, r.failing_cases),
        ]);
    }
    for (stage, p) in &m.stage_duration_profile {
        rows.push(vec![
            format!("stage {stage} duration_s"),
            format!(
                "n={} mean={} median={} p90={} total={}",
                p.n, p.mean, p.median, p.p90, p.total
            ),
        ]);
    }
    for (stage, a) in &m.attempts_per_stage {
        rows.push(vec![
            format!("stage {stage} attempts"),
            format!(
                "{} starts, {} fails over {} tasks (mean {})",
                a.starts,
                a.fails,
                a.tasks,
                rate(a.mean)
            ),
        ]);
    }
    emit(format, value, &["metric", "value"], &rows)
}

/// Prints a statectl payload as statectl does (one line of Python-style JSON) and exits 0 when
/// it is a summary, 1 when it is an error.
fn print_statectl(payload: &serde_json::Value) -> CmdResult {
    let mut text = statectl::python_json(payload);
    text.push('\n');
    print(&text)?;
    if payload["ok"] == serde_json::Value::Bool(true) {
        ok()
    } else {
        Ok(std::process::ExitCode::from(1))
    }
}

pub fn timeline_summary(
    root: Option<&Path>,
    task: Option<&str>,
    dir: Option<&Path>,
    json_out: bool,
) -> CmdResult {
    if let Some(dir) = dir {
        return timeline_summary_of_dir(dir, json_out);
    }
    let task = task.unwrap_or_default();
    let store = open_ro(root)?;
    let txn = store.read()?;
    let file = stored::timeline_file(&txn, task)?;
    let d = load(&txn)?;
    let events = d.tasks.iter().find(|(t, _)| t == task).map(|(_, e)| e.as_slice());
    let label = file
        .as_ref()
        .map_or_else(|| format!("{task}/.task_timeline.jsonl"), |f| f.timeline_path.clone());
    if file.is_none() && events.is_none() {
        if json_out {
            let mut payload = statectl::missing_payload("");
            payload["errors"][0]["message"] = serde_json::Value::from(format!(
                "no timeline for task '{task}' in the store (run 'evokb timeline import DIR' first)"
            ));
            return print_statectl(&payload);
        }
        let known: Vec<&str> = d.tasks.iter().map(|(t, _)| t.as_str()).take(5).collect();
        return Err(CommandError::new(ErrorKind::Usage, format!("no timeline for task '{task}'"))
            .hint(format!(
                "tasks in the store: {}",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            )));
    }
    if json_out {
        // The file's text when it was imported by this version; else the events' own lines.
        let values = match &file {
            Some(f) => statectl::read_events(&f.text),
            None => events
                .unwrap_or_default()
                .iter()
                .filter_map(|e| serde_json::from_str(&e.raw).ok())
                .collect(),
        };
        return print_statectl(&statectl::summary_payload(&values, &label));
    }
    print_summary_text(task, events.unwrap_or_default(), &label)
}

/// `timeline summary --dir DIR`: statectl's `timeline-summary --dir DIR`, reading the file.
fn timeline_summary_of_dir(dir: &Path, json_out: bool) -> CmdResult {
    let cwd = std::env::current_dir()?;
    let op_dir = statectl::abspath(dir, &cwd);
    let path = op_dir.join(statectl::TIMELINE_FILE);
    if !path.exists() {
        if json_out {
            return print_statectl(&statectl::missing_payload(&path.display().to_string()));
        }
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            format!("no timeline file: '{}' does not exist", path.display()),
        ));
    }
    let text = read_text(&path)?;
    let label = statectl::rel_posix(&path, &statectl::repo_root(&op_dir, &cwd));
    if json_out {
        return print_statectl(&statectl::summary_payload(&statectl::read_events(&text), &label));
    }
    let task = op_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (events, _) = parse::parse_timeline(&text, &label, &task);
    print_summary_text(&task, &events, &label)
}

fn print_summary_text(task: &str, events: &[TimelineEvent], label: &str) -> CmdResult {
    let summary = timeline::timeline_summary(events, label);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "task {task}: {} events, {} dispatches, elapsed {} s",
        summary.events_total,
        summary.dispatches,
        summary.elapsed_s.map_or("-".into(), |e| e.to_string())
    );
    for s in &summary.stages {
        let _ = writeln!(
            out,
            "  stage {} {:<28} attempts {} completed {} failed {} total {} s",
            s.stage,
            s.subagent.clone().unwrap_or_default(),
            s.attempts,
            s.completed,
            s.failed,
            s.duration_s_total.map_or("-".into(), |t| t.to_string())
        );
    }
    for f in &summary.failures {
        let _ = writeln!(
            out,
            "  fail stage {} {} at {}",
            f.stage,
            f.verdict.clone().unwrap_or_default(),
            f.ts.clone().unwrap_or_default()
        );
    }
    print(&out)?;
    ok()
}

pub fn chart_recurrence(root: Option<&Path>, svg: &Path) -> CmdResult {
    let store = open_ro(root)?;
    let d = load(&store.read()?)?;
    require_registry(&d)?;
    let text = chart::recurrence_svg_in(&d.table)
        .map_err(|e| CommandError::new(ErrorKind::Store, e.to_string()))?;
    write_svg(svg, &text)
}

pub fn chart_hits(root: Option<&Path>, svg: &Path) -> CmdResult {
    let store = open_ro(root)?;
    let txn = store.read()?;
    // Hits per entry per day, from the search events.
    let mut per_entry: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for e in search_events(&txn.records()?) {
        let day: String = e.ts.chars().take(10).collect();
        if day.len() != 10 {
            continue;
        }
        for id in e.returned {
            *per_entry.entry(id).or_default().entry(day.clone()).or_insert(0) += 1;
        }
    }
    if per_entry.is_empty() {
        return Err(CommandError::new(
            ErrorKind::Usage,
            "the store holds no search events with hits",
        )
        .hint("run 'evokb import' on a knowledge base with a kb_search_log.jsonl"));
    }
    // The busiest entries keep the chart readable.
    let mut series: Vec<(String, Vec<(String, u64)>)> =
        per_entry.into_iter().map(|(id, days)| (id, days.into_iter().collect())).collect();
    series.sort_by_key(|(id, days)| {
        (std::cmp::Reverse(days.iter().map(|(_, n)| n).sum::<u64>()), id.clone())
    });
    series.truncate(8);
    let text =
        chart::hits_svg(&series).map_err(|e| CommandError::new(ErrorKind::Store, e.to_string()))?;
    write_svg(svg, &text)
}

fn write_svg(path: &Path, text: &str) -> CmdResult {
    std::fs::write(path, text).map_err(|e| {
        CommandError::new(ErrorKind::Store, format!("cannot write '{}': {e}", path.display()))
    })?;
    print(&format!("wrote {}\n", path.display()))?;
    ok()
}
