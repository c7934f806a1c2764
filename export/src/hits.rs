//! Search hits: recording each search that returned results as an event in the store and as a
//! line of `kb_search_log.jsonl`, counting hits per entry, and regenerating the `stats.md` hit
//! table from the events.
//!
//! The log line has the old tool's exact format (`{"ts": …, "query": …, "returned": […]}` with
//! Python's `", "`/`": "` separators and raw non-ASCII), plus `"task"` when one is given, so the
//! file stays the review surface and old readers keep working.

use std::collections::BTreeMap;
use std::path::Path;

use evokb_store::{
    store_dir, CaseHash, FileLayout, Kind, LayoutItem, Record, Segment, Store, SyncMark,
};

use crate::error::{MutateError, RenderError};
use crate::layout;
use crate::mutate::{commit_file, ensure_trailing_newline};
use crate::parse::jsonl::event_id;
use crate::render::{render_layout, write_atomic};

/// The flag set when hits were recorded since the hit table was last regenerated.
pub const HITS_DIRTY: &str = "hits_dirty";

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A search-log line in the old tool's format.
pub fn log_line(ts: &str, query: &str, returned: &[String], task: Option<&str>) -> String {
    let ids: Vec<String> = returned.iter().map(|i| json_str(i)).collect();
    let mut line = format!(
        "{{\"ts\": {}, \"query\": {}, \"returned\": [{}]",
        json_str(ts),
        json_str(query),
        ids.join(", ")
    );
    if let Some(t) = task {
        line.push_str(&format!(", \"task\": {}", json_str(t)));
    }
    line.push('}');
    line
}

/// What recording a hit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitReport {
    /// The event's id.
    pub id: String,
    /// Whether `kb_search_log.jsonl` was appended to. It is left alone (the event is only in
    /// the store) when someone edited it since the last sync.
    pub file_written: bool,
}

/// Records one search hit in one transaction: a search event appended to the log's layout, the
/// line appended to the file on disk, and the sync marks that say evokb wrote it.
pub fn record_hit(
    root: &Path,
    store: &Store,
    ts: &str,
    query: &str,
    returned: &[String],
    task: Option<&str>,
) -> Result<HitReport, MutateError> {
    let line = log_line(ts, query, returned, task);
    let mut w = store.write()?;
    let path = layout::SEARCH_LOG;
    let mut file = w.file(path)?.unwrap_or(FileLayout { path: path.into(), items: Vec::new() });
    let mut overrides = std::collections::HashMap::new();
    ensure_trailing_newline(&mut w, &mut file, &mut overrides)?;
    for rec in overrides.values() {
        w.put_record(rec)?;
    }
    let base = event_id(ts, &line);
    let mut id = base.clone();
    let mut n = 1;
    while w.record(&CaseHash::of(Kind::SearchEvent, &id))?.is_some() {
        n += 1;
        id = format!("{base} #{n}");
    }
    let rec = Record {
        kind: Kind::SearchEvent,
        id: id.clone(),
        file: path.into(),
        segments: vec![
            Segment::Field { key: "json".into(), value: line },
            Segment::Lit("\n".into()),
        ],
    };
    // The lines the file holds when it matches the store: one per event, plus prose lines.
    let expected_lines: usize = file
        .items
        .iter()
        .map(|i| match i {
            LayoutItem::Prose(p) => p.matches('\n').count(),
            LayoutItem::Record(_) => 1,
        })
        .sum();
    w.put_record(&rec)?;
    file.items.push(LayoutItem::Record(rec.case_hash()));
    w.put_file(&file)?;
    let full = root.join(path);
    let on_disk = match std::fs::read(&full) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(RenderError::Io { path: full, source }.into()),
    };
    let mark = w.file_sync(path)?.map(|m| m.text_hash);
    let in_sync = match &on_disk {
        Some(b) => mark == Some(*blake3::hash(b).as_bytes()),
        None => mark.is_none(),
    };
    if in_sync {
        let old = on_disk.unwrap_or_default();
        let appendable = overrides.is_empty()
            && (old.is_empty() || old.ends_with(b"\n"))
            && old.iter().filter(|&&b| b == b'\n').count() == expected_lines;
        // When the file is what the store renders, the new file is the old one plus the line;
        // rendering the whole log again would cost a read of every event per hit.
        let text = if appendable {
            let mut t = String::from_utf8_lossy(&old).into_owned();
            t.push_str(&rec.text());
            t
        } else {
            render_layout(&w, &file)?
        };
        write_atomic(&full, text.as_bytes(), Some(&store_dir(root).join("tmp")))?;
        w.set_file_sync(path, SyncMark { text_hash: *blake3::hash(text.as_bytes()).as_bytes() })?;
        // Only the new event (and a record given a final newline) changed; every other
        // record's mark already describes its text.
        w.set_record_sync(&rec.case_hash(), SyncMark { text_hash: rec.text_hash() })?;
        for (k, r) in &overrides {
            w.set_record_sync(k, SyncMark { text_hash: r.text_hash() })?;
        }
    }
    w.set_flag(HITS_DIRTY, true)?;
    w.commit()?;
    Ok(HitReport { id, file_written: in_sync })
}

/// Hits of one record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EntryHits {
    /// The record id.
    pub id: String,
    /// Searches that returned it.
    pub hits: u64,
    /// The time of the last such search.
    pub last_hit_ts: String,
    /// The task of the last such search that named one.
    pub last_hit_task: Option<String>,
}

/// One search event, as the search log line records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchEvent {
    /// `ts`, a UTC timestamp.
    pub ts: String,
    /// The ids returned, in rank order.
    pub returned: Vec<String>,
    /// `task` (or `task_id`), when the search named one.
    pub task: Option<String>,
}

/// The search events among `records`, in record order; lines that are not JSON objects are
/// skipped (import already refused them).
pub fn search_events(records: &[Record]) -> Vec<SearchEvent> {
    let mut out = Vec::new();
    for rec in records.iter().filter(|r| r.kind == Kind::SearchEvent) {
        let Some(v) =
            rec.field("json").and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        else {
            continue;
        };
        out.push(SearchEvent {
            ts: v["ts"].as_str().unwrap_or("").to_string(),
            returned: v["returned"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            task: v["task"].as_str().or(v["task_id"].as_str()).map(str::to_string),
        });
    }
    out
}

/// Hit counts per returned id from the store's search events at or after `since` (a prefix
/// of an ISO timestamp such as `2026-09-10`), most hit first, then by id.
pub fn hit_counts(records: &[Record], since: Option<&str>) -> Vec<EntryHits> {
    let mut events: Vec<(String, Vec<String>, Option<String>)> = search_events(records)
        .into_iter()
        .filter(|e| since.is_none_or(|s| e.ts.as_str() >= s))
        .map(|e| (e.ts, e.returned, e.task))
        .collect();
    // Events in time order, so "last" means latest; the sort is stable for equal times.
    events.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_id: BTreeMap<String, EntryHits> = BTreeMap::new();
    for (ts, ids, task) in events {
        for id in ids {
            let e = by_id.entry(id.clone()).or_insert(EntryHits {
                id,
                hits: 0,
                last_hit_ts: String::new(),
                last_hit_task: None,
            });
            e.hits += 1;
            e.last_hit_ts.clone_from(&ts);
            if task.is_some() {
                e.last_hit_task.clone_from(&task);
            }
        }
    }
    let mut out: Vec<EntryHits> = by_id.into_values().collect();
    out.sort_by(|a, b| b.hits.cmp(&a.hits).then_with(|| a.id.cmp(&b.id)));
    out
}

/// The entry id a hit-table row is about: the cell's last word that names a record, else the
/// whole cell (the real table writes `traps-runtime.md TRAP-BENCH-CONFIG-CALIBRATION`).
fn row_entry(cell: &str, known: &dyn Fn(&str) -> bool) -> String {
    cell.split_whitespace().rev().find(|w| known(w)).unwrap_or(cell.trim()).to_string()
}

/// Regenerates the `stats.md` hit table from the search events when hits were recorded since
/// the last regeneration: each row's `hits` and `last_hit_task` come from the events, its note
/// is kept, and entries hit for the first time get a row. Returns the rows written.
pub fn refresh_hit_table(store: &Store) -> Result<usize, MutateError> {
    let mut w = store.write()?;
    if !w.flag(HITS_DIRTY)? {
        return Ok(0);
    }
    let Some(mut file) = w.file(layout::STATS)? else {
        w.set_flag(HITS_DIRTY, false)?;
        w.commit()?;
        return Ok(0);
    };
    let records = w.records()?;
    let counts = hit_counts(&records, None);
    let by_id: BTreeMap<&str, &EntryHits> = counts.iter().map(|e| (e.id.as_str(), e)).collect();
    let known = |id: &str| by_id.contains_key(id) || records.iter().any(|r| r.id == id);
    let mut overrides = std::collections::HashMap::new();
    let mut covered = std::collections::BTreeSet::new();
    let mut last_row = None;
    for (pos, item) in file.items.iter().enumerate() {
        let LayoutItem::Record(k) = item else { continue };
        let Some(row) = w.record(k)? else { continue };
        if row.kind != Kind::HitRow {
            continue;
        }
        last_row = Some(pos);
        let entry = row_entry(row.field("entry").unwrap_or(""), &known);
        covered.insert(entry.clone());
        let Some(h) = by_id.get(entry.as_str()) else { continue };
        let mut new = row.clone();
        new.set_field("hits", &h.hits.to_string());
        if let Some(t) = &h.last_hit_task {
            new.set_field("last_hit_task", t);
        }
        if new != row {
            overrides.insert(*k, new);
        }
    }
    let mut written = overrides.len();
    if let Some(at) = last_row {
        let mut insert_at = at + 1;
        for h in &counts {
            if covered.contains(&h.id)
                || !records
                    .iter()
                    .any(|r| r.id == h.id && matches!(r.kind, Kind::Entry | Kind::Bottleneck))
            {
                continue;
            }
            let line = format!(
                "| {} | {} | {} |  |",
                h.id,
                h.hits,
                h.last_hit_task.as_deref().unwrap_or("-")
            );
            let Some(row) = crate::parse::table::split_row(&line) else { continue };
            let spec = crate::parse::table::TableSpec {
                kind: Kind::HitRow,
                keys: vec!["entry".into(), "hits".into(), "last_hit_task".into(), "note".into()],
                id_cols: vec![0],
            };
            let segments = crate::parse::table::row_segments(&row, "\n", &spec);
            let rec = Record {
                kind: Kind::HitRow,
                id: h.id.clone(),
                file: layout::STATS.into(),
                segments,
            };
            file.items.insert(insert_at, LayoutItem::Record(rec.case_hash()));
            overrides.insert(rec.case_hash(), rec);
            insert_at += 1;
            written += 1;
        }
    }
    if written > 0 {
        commit_file(&mut w, file, &overrides)?;
    }
    w.set_flag(HITS_DIRTY, false)?;
    w.commit()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_match_the_old_tool_format() {
        assert_eq!(
            log_line(
                "2026-09-10T09:04:18Z",
                "attention 块宽 \"q\"",
                &["A".into(), "B".into()],
                None
            ),
            r#"{"ts": "2026-09-10T09:04:18Z", "query": "attention 块宽 \"q\"", "returned": ["A", "B"]}"#
        );
        assert!(log_line("t", "q", &[], Some("task-1"))
            .ends_with(r#""returned": [], "task": "task-1"}"#));
    }
}
