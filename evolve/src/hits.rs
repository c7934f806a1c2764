//! Search hits: recording each search that returned results as an event in the store and as a
//! line of `kb_search_log.jsonl`, counting hits per entry, and regenerating the `stats.md` hit
//! table from the events.
//!
//! The log line has the old tool's exact format (`{"ts": …, "query": …, "returned": […]}` with
//! Python's `", "`/`": "` separators and raw non-ASCII), plus `"task"` when one is given, so the
//! file stays the review surface and old readers keep working.

use std::collections::BTreeMap;
use std::path::Path;

use std::collections::HashMap;

use evokb_store::events::EventCounter;
use evokb_store::filestate::{extend_line_mark, line_mark, EMPTY_LINE_MARK};
use evokb_store::{
    store_dir, CaseHash, FileLayout, FileStat, Kind, LayoutItem, Record, Segment, Store,
    StoreError, SyncMark, Tally, WriteTxn,
};

use evokb_export::layout::Layout;
use evokb_export::mutate::ensure_trailing_newline;
use evokb_export::parse::jsonl::{event_id, first_free_event_id};
use evokb_export::render::{render_layout, write_atomic, RecordSource};
use evokb_export::{MutateError, RenderError};

/// Tally keys of hits start with this, followed by the returned id.
const HIT_TALLY: &str = "hit:";

fn hit_tally_key(id: &str) -> String {
    format!("{HIT_TALLY}{id}")
}

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
///
/// The cost does not grow with the log. The event goes to the end of the log's layout with one
/// table insert ([`evokb_store::WriteTxn::append_to_file`]); the file is opened for appending
/// and gets the one line; its content mark, a line chain, is extended by that line alone; and
/// whether the file is still what evokb last wrote is told from its stat fingerprint. Only when
/// the fingerprint is unknown or differs (a person touched the file, an old store) is the file
/// read, once, and compared with its mark. A log edited since the last sync is left alone: the
/// event is only in the store until `import` and `render`.
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
    // Counters that describe every event so far stay current by counting this one.
    let counters_current = w.event_counters_current()?;
    let log_path = Layout::of(&w)?.search_log;
    let path = log_path.as_str();
    // The first append since the log's layout was stored reads it once: its last item may lack
    // a line ending. Later appends end with the event just appended, which has one.
    let was_clean = w.file_is_clean(path)?;
    let mut overrides = HashMap::new();
    let mut layout_rewritten = false;
    // A log with no layout yet gets an empty one from `append_to_file`.
    let stored = if w.has_file_tail(path)? { None } else { w.file(path)? };
    if let Some(mut file) = stored {
        // Only an unterminated prose line changes the layout itself; a record lacking its line
        // ending is changed through `overrides`.
        layout_rewritten =
            matches!(file.items.last(), Some(LayoutItem::Prose(p)) if !p.ends_with('\n'));
        ensure_trailing_newline(&mut w, &mut file, &mut overrides)?;
        for rec in overrides.values() {
            w.put_record(rec)?;
        }
        if layout_rewritten {
            w.put_file(&file)?;
        }
    }
    let id =
        first_free_event_id(&event_id(ts, &line), &mut |key| w.record(key).map(|r| r.is_some()))?;
    let rec = Record {
        kind: Kind::SearchEvent,
        id: id.clone(),
        file: path.into(),
        segments: vec![
            Segment::Field { key: "json".into(), value: line.into() },
            Segment::Lit("\n".into()),
        ],
    };
    w.put_record(&rec)?;
    w.append_to_file(path, &rec.case_hash())?;
    if counters_current {
        count_hits_of(&mut w, &rec)?;
        w.mark_event_counters_current()?;
    }
    let full = root.join(path);
    let mark = w.file_sync(path)?.map(|m| m.text_hash);
    let in_sync = log_in_sync(&full, mark, w.file_stat(path)?)?;
    if in_sync {
        let text = rec.text();
        let appendable = overrides.is_empty() && !layout_rewritten && ends_with_newline(&full)?;
        let (new_mark, stat) = if appendable {
            let stat = append_durably(&full, text.as_bytes())?;
            // The file gained exactly the line the store gained.
            if was_clean {
                w.mark_file_clean(path)?;
            }
            (extend_line_mark(mark.unwrap_or(EMPTY_LINE_MARK), text.as_bytes()), stat)
        } else {
            // The file's last line lacked its line ending: the whole log is written again.
            let layout =
                w.file(path)?.unwrap_or(FileLayout { path: path.into(), items: Vec::new() });
            let all = render_layout(&w, &layout)?;
            write_atomic(&full, all.as_bytes(), Some(&store_dir(root).join("tmp")))?;
            w.mark_file_clean(path)?;
            (line_mark(all.as_bytes()), FileStat::of(&full))
        };
        w.set_file_sync(path, SyncMark { text_hash: new_mark })?;
        match stat {
            Some(st) => w.set_file_stat(path, &st)?,
            None => w.clear_file_stat(path)?,
        }
        // Only the new event (and a record given a final newline) changed; every other
        // record's mark already describes its text.
        w.set_record_sync(&rec.case_hash(), SyncMark { text_hash: rec.text_hash() })?;
        for (k, r) in &overrides {
            w.set_record_sync(k, SyncMark { text_hash: r.text_hash() })?;
        }
    }
    for id in returned {
        w.bump_tally(&hit_tally_key(hit_target(id)), task)?;
    }
    w.commit()?;
    Ok(HitReport { id, file_written: in_sync })
}

/// Whether the search log at `full` is what evokb last wrote or read (its content mark is
/// `mark`): told from the stat fingerprint when it matches, else by reading the file once.
fn log_in_sync(
    full: &Path,
    mark: Option<[u8; 32]>,
    recorded: Option<FileStat>,
) -> Result<bool, MutateError> {
    let io = |source| RenderError::Io { path: full.to_path_buf(), source };
    let now = match std::fs::symlink_metadata(full) {
        Ok(m) if m.file_type().is_file() => FileStat::from_metadata(&m),
        // Something that is not a regular file is never appended to.
        Ok(_) => return Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(mark.is_none()),
        Err(e) => return Err(io(e).into()),
    };
    if recorded.is_some_and(|r| r.same_as(&now)) && mark.is_some() {
        return Ok(true);
    }
    let Some(mark) = mark else { return Ok(false) };
    let bytes = std::fs::read(full).map_err(io)?;
    Ok(line_mark(&bytes) == mark)
}

/// Whether the file at `full` is missing, empty, or ends with a newline (one byte is read).
fn ends_with_newline(full: &Path) -> Result<bool, MutateError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| RenderError::Io { path: full.to_path_buf(), source };
    let mut f = match std::fs::File::open(full) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(io(e).into()),
    };
    let len = f.metadata().map_err(io)?.len();
    if len == 0 {
        return Ok(true);
    }
    f.seek(SeekFrom::Start(len - 1)).map_err(io)?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last).map_err(io)?;
    Ok(last[0] == b'\n')
}

/// Appends `bytes` to the file at `full` (creating it and its directory when missing) with one
/// write, flushes it to disk, and returns the file's fingerprint after the write.
fn append_durably(full: &Path, bytes: &[u8]) -> Result<Option<FileStat>, MutateError> {
    use std::io::Write;
    let io = |source| RenderError::Io { path: full.to_path_buf(), source };
    let created = !full.exists();
    if let Some(dir) = full.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(full).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    // The data and the new length reach the disk before the store's commit says the file has
    // the line (fdatasync flushes the size an append changed); only the timestamps may lag,
    // and a fingerprint they leave stale makes the next reader compare the content instead.
    f.sync_data().map_err(io)?;
    let stat = f.metadata().ok().map(|m| FileStat::from_metadata(&m));
    drop(f);
    if created {
        if let Some(dir) = full.parent().and_then(|d| std::fs::File::open(d).ok()) {
            // Directory fsync is not supported everywhere; the file itself is flushed.
            let _ = dir.sync_all();
        }
    }
    Ok(stat)
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

/// The fields of a search-log line that hits are counted from, borrowed from the line where it
/// has no escapes. Only the common shape (an object with string `ts`, `task` or `task_id` and
/// a list of strings in `returned`, each key once) is read this way; anything else goes through
/// [`search_events`]'s reading of a `serde_json::Value`, which is what decides.
#[derive(serde::Deserialize)]
struct LogFields<'a> {
    #[serde(borrow, default)]
    ts: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    returned: Option<Vec<std::borrow::Cow<'a, str>>>,
    #[serde(borrow, default)]
    task: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    task_id: Option<std::borrow::Cow<'a, str>>,
}

/// Calls `f` with the time, returned ids and task of `rec` if it is a search event: the one
/// reading of a log line that every count of hits goes through.
fn with_event_fields(rec: &Record, f: impl FnOnce(&str, &[&str], Option<&str>)) {
    if rec.kind != Kind::SearchEvent {
        return;
    }
    let Some(line) = rec.field("json") else { return };
    let fast = line
        .trim_start()
        .starts_with('{')
        .then(|| serde_json::from_str::<LogFields<'_>>(line).ok())
        .flatten();
    match fast {
        Some(fields) => {
            let task = fields.task.or(fields.task_id);
            let returned = fields.returned.unwrap_or_default();
            let ids: Vec<&str> = returned.iter().map(|c| &**c).collect();
            f(fields.ts.as_deref().unwrap_or(""), &ids, task.as_deref());
        }
        None => {
            if let Some(e) = search_events(std::slice::from_ref(rec)).into_iter().next() {
                let ids: Vec<&str> = e.returned.iter().map(String::as_str).collect();
                f(&e.ts, &ids, e.task.as_deref());
            }
        }
    }
}

/// Counts the hits of one search event into the store's event counters (kept per hit target;
/// see [`evokb_store::events`]).
fn count_hits_of(w: &mut WriteTxn, rec: &Record) -> Result<(), StoreError> {
    let mut out = Ok(());
    let key = rec.case_hash().0;
    with_event_fields(rec, |ts, returned, task| {
        let names: Vec<&str> = returned.iter().map(|id| hit_target(id)).collect();
        out = w.count_event(&names, ts, &key, task);
    });
    out
}

/// Every hit target's counter, counted from the search events in key order: what the store's
/// event counters hold when they are current.
pub fn count_all_hits(txn: &dyn EventSource) -> Result<Vec<(String, EventCounter)>, StoreError> {
    let mut by_id: HashMap<String, EventCounter> = HashMap::new();
    txn.each_event(&mut |rec| count_hits_into(&mut by_id, rec))?;
    Ok(in_name_order(by_id))
}

/// Counts the search event `rec` into the counter of each hit target it returned.
fn count_hits_into(by_id: &mut HashMap<String, EventCounter>, rec: &Record) {
    let key = rec.case_hash().0;
    with_event_fields(rec, |ts, returned, task| {
        for id in returned {
            let id = hit_target(id);
            match by_id.get_mut(id) {
                Some(c) => c.count_event(ts, &key, task),
                None => {
                    let mut c = EventCounter::default();
                    c.count_event(ts, &key, task);
                    by_id.insert(id.to_string(), c);
                }
            }
        }
    });
}

/// The counters in name order: stored that way, the counter table's leaves are packed full
/// (inserted in hash order, redb leaves them half full).
fn in_name_order(by_id: HashMap<String, EventCounter>) -> Vec<(String, EventCounter)> {
    let mut out: Vec<(String, EventCounter)> = by_id.into_iter().collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out
}

/// What an import must know of the event counters before it changes anything, to keep them
/// current afterwards (see [`keep_counters_after_import`]).
#[derive(Debug, Clone, Copy)]
pub struct CountersBefore {
    current: bool,
    events: u64,
}

/// Takes [`CountersBefore`] in the import's transaction, before the import writes.
pub fn counters_before(w: &WriteTxn) -> Result<CountersBefore, StoreError> {
    let events = w.counts()?.get(&Kind::SearchEvent).copied().unwrap_or(0);
    Ok(CountersBefore { current: w.event_counters_current()?, events })
}

/// Keeps the event counters current through an import that only added search events (a log
/// appended to by hand, or by another clone and merged): the written events are counted and
/// merged into the counters, or make them up when the store had no event before. Without
/// this, the first `stats hits` after such an import recounted every event (1.7 s at 100k
/// events). An import that changed or removed an event leaves the counters behind, as
/// before, and the next report recounts. `written` are the records the import wrote,
/// `events_after` the store's search events after it. Returns whether the counters are
/// current.
pub fn keep_counters_after_import(
    w: &mut WriteTxn,
    before: CountersBefore,
    written: &[Record],
    events_after: u64,
) -> Result<bool, StoreError> {
    let new: Vec<&Record> = written.iter().filter(|r| r.kind == Kind::SearchEvent).collect();
    if new.is_empty() {
        // No event was written; one may have been removed, which the generation records.
        return w.event_counters_current();
    }
    // Every written event is new, and none went, exactly when the count grew by as many.
    let only_added = before.events + new.len() as u64 == events_after;
    if !only_added || !(before.current || before.events == 0) {
        return Ok(false);
    }
    let mut by_id: HashMap<String, EventCounter> = HashMap::new();
    for rec in new {
        count_hits_into(&mut by_id, rec);
    }
    let by_id = in_name_order(by_id);
    if before.current {
        w.merge_event_counters(by_id)?;
        w.mark_event_counters_current()?;
    } else {
        // No event before, so the stored counters (if any) describe nothing that is left.
        w.replace_event_counters(by_id)?;
    }
    Ok(true)
}

/// Where [`count_all_hits`] reads the search events from, in key order: a read or a write
/// transaction.
pub trait EventSource {
    /// Calls `f` with every search event, in key order.
    fn each_event(&self, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError>;
}

impl EventSource for evokb_store::ReadTxn {
    fn each_event(&self, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError> {
        self.for_each_record_of_kind(Kind::SearchEvent, |r| f(r))
    }
}

impl EventSource for WriteTxn {
    fn each_event(&self, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError> {
        self.for_each_record_of_kind(Kind::SearchEvent, |r| f(r))
    }
}

/// The hit table of current event counters: most hit first, then by id, as
/// [`HitCounter::finish`] orders it.
pub fn hits_from_counters(counters: Vec<(String, EventCounter)>) -> Vec<EntryHits> {
    let mut out: Vec<EntryHits> = counters
        .into_iter()
        .map(|(id, c)| EntryHits {
            id,
            hits: c.count,
            last_hit_ts: c.latest.0,
            last_hit_task: c.labelled.map(|(_, _, task)| task),
        })
        .collect();
    out.sort_unstable_by(|a, b| b.hits.cmp(&a.hits).then_with(|| a.id.cmp(&b.id)));
    out
}

/// Counts hits per returned id one search event at a time, so the events never need to be
/// held (or sorted) all at once: [`hit_counts`] over records read one by one.
///
/// The result equals sorting the events by time (stably) and replaying them: an id's last hit
/// is its latest event, and among events with equal times the one fed last; its last task is
/// the task of the latest event that named one, ties again going to the one fed last.
#[derive(Debug, Default)]
pub struct HitCounter {
    since: Option<String>,
    by_id: HashMap<String, Counted>,
}

#[derive(Debug)]
struct Counted {
    hits: u64,
    last_ts: String,
    /// The time and task of the latest event that named a task.
    task: Option<(String, String)>,
}

impl HitCounter {
    /// A counter of the events at or after `since` (a prefix of an ISO timestamp).
    pub fn new(since: Option<&str>) -> HitCounter {
        HitCounter { since: since.map(str::to_string), by_id: HashMap::new() }
    }

    /// Counts `rec` if it is a search event (in the order the caller feeds them).
    pub fn add(&mut self, rec: &Record) {
        with_event_fields(rec, |ts, returned, task| {
            self.event(ts, returned.iter().copied(), task);
        });
    }

    fn event<'a>(&mut self, ts: &str, returned: impl Iterator<Item = &'a str>, task: Option<&str>) {
        if self.since.as_deref().is_some_and(|s| ts < s) {
            return;
        }
        for id in returned {
            let id = hit_target(id);
            let c = match self.by_id.get_mut(id) {
                Some(c) => c,
                None => self.by_id.entry(id.to_string()).or_insert(Counted {
                    hits: 0,
                    last_ts: ts.to_string(),
                    task: None,
                }),
            };
            c.hits += 1;
            if ts >= c.last_ts.as_str() {
                ts.clone_into(&mut c.last_ts);
            }
            if let Some(task) = task {
                match &mut c.task {
                    Some((t, k)) if ts >= t.as_str() => {
                        ts.clone_into(t);
                        task.clone_into(k);
                    }
                    Some(_) => {}
                    None => c.task = Some((ts.to_string(), task.to_string())),
                }
            }
        }
    }

    /// The counts, most hit first, then by id.
    pub fn finish(self) -> Vec<EntryHits> {
        let mut out: Vec<EntryHits> = self
            .by_id
            .into_iter()
            .map(|(id, c)| EntryHits {
                id,
                hits: c.hits,
                last_hit_ts: c.last_ts,
                last_hit_task: c.task.map(|(_, k)| k),
            })
            .collect();
        out.sort_unstable_by(|a, b| b.hits.cmp(&a.hits).then_with(|| a.id.cmp(&b.id)));
        out
    }
}

/// The record a returned id names. The old search tool logged bottleneck patterns as
/// `BP_name：title` cut at 40 characters; such an id counts for `BP_name`. Every other id is
/// itself.
pub fn hit_target(returned: &str) -> &str {
    match returned.split_once('：') {
        Some((id, _)) if id.starts_with("BP_") && !id.contains(char::is_whitespace) => id,
        _ => returned,
    }
}

/// Hit counts per returned id from the store's search events at or after `since` (a prefix
/// of an ISO timestamp such as `2026-09-10`), most hit first, then by id. Events are taken in
/// time order, so "last" means latest; of equal times, the later record counts as later.
pub fn hit_counts(records: &[Record], since: Option<&str>) -> Vec<EntryHits> {
    let mut counter = HitCounter::new(since);
    for rec in records {
        counter.add(rec);
    }
    counter.finish()
}

/// The old form of [`hit_counts`] (every event parsed to a JSON value, sorted by time, then
/// replayed), kept to test that the streamed count gives the same table.
#[cfg(test)]
fn hit_counts_by_replay(records: &[Record], since: Option<&str>) -> Vec<EntryHits> {
    let mut events: Vec<(String, Vec<String>, Option<String>)> = search_events(records)
        .into_iter()
        .filter(|e| since.is_none_or(|s| e.ts.as_str() >= s))
        .map(|e| (e.ts, e.returned, e.task))
        .collect();
    events.sort_by(|a, b| a.0.cmp(&b.0));
    let mut by_id: BTreeMap<String, EntryHits> = BTreeMap::new();
    for (ts, ids, task) in events {
        for id in ids {
            let id = hit_target(&id).to_string();
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
fn row_entry(
    cell: &str,
    known: &dyn Fn(&str) -> Result<bool, StoreError>,
) -> Result<String, StoreError> {
    for w in cell.split_whitespace().rev() {
        if known(w)? {
            return Ok(w.to_string());
        }
    }
    Ok(cell.trim().to_string())
}

/// Whether `id` names an entry or a bottleneck pattern: the records a hit-table row is about.
fn names_hit_target(src: &dyn RecordSource, id: &str) -> Result<bool, StoreError> {
    for kind in evokb_export::kinds::kinds_where(|i| i.hit_target) {
        if src.get(&CaseHash::of(kind, id))?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Folds the pending hit tallies into the `stats.md` hit table, as changed records of `stats`
/// (added to `overrides`, with new rows inserted into `stats`).
///
/// A row's `hits` is a baseline, whoever wrote it: the searches recorded since the table was
/// last rendered add to it, so a count never goes down. `last_hit_task` becomes the task of the
/// latest of those searches that named one. An entry or bottleneck pattern hit for the first
/// time gets a row after the table's last, counting every search event that returned it. Rows
/// are only ever written through [`evokb_export::parse::table::escape_cell`], so a task id with a `|`
/// or a newline stays in its cell. Returns the number of rows changed or added.
pub(crate) fn fold_tallies_into_hit_table(
    src: &dyn RecordSource,
    stats: &mut FileLayout,
    overrides: &mut HashMap<CaseHash, Record>,
) -> Result<usize, MutateError> {
    let tallies: BTreeMap<String, Tally> = src
        .pending_tallies()?
        .into_iter()
        .filter_map(|(k, t)| k.strip_prefix(HIT_TALLY).map(|id| (id.to_string(), t)))
        .collect();
    if tallies.is_empty() {
        return Ok(0);
    }
    let known = |id: &str| -> Result<bool, StoreError> {
        Ok(tallies.contains_key(id) || names_hit_target(src, id)?)
    };
    let mut covered = std::collections::BTreeSet::new();
    let mut last_row = None;
    let mut written = 0;
    for (pos, item) in stats.items.iter().enumerate() {
        let LayoutItem::Record(k) = item else { continue };
        let Some(row) = overrides.get(k).cloned().map_or_else(|| src.get(k), |r| Ok(Some(r)))?
        else {
            continue;
        };
        if row.kind != Kind::HitRow {
            continue;
        }
        last_row = Some(pos);
        let entry = row_entry(row.field("entry").unwrap_or(""), &known)?;
        covered.insert(entry.clone());
        let Some(t) = tallies.get(&entry) else { continue };
        let mut new = row.clone();
        if new.field("hits").is_some() {
            let baseline =
                new.field("hits").and_then(|h| h.trim().parse::<u64>().ok()).unwrap_or(0);
            new.set_field("hits", &baseline.saturating_add(t.count).to_string());
        }
        if let (Some(task), Some(_)) = (&t.last_label, new.field("last_hit_task")) {
            new.set_field("last_hit_task", &evokb_export::parse::table::escape_cell(task));
        }
        if new != row {
            overrides.insert(*k, new);
            written += 1;
        }
    }
    let Some(at) = last_row else { return Ok(written) };
    let first_hits: Vec<&String> = tallies
        .keys()
        .filter(|id| !covered.contains(*id))
        .map(|id| Ok((id, names_hit_target(src, id)?)))
        .collect::<Result<Vec<_>, StoreError>>()?
        .into_iter()
        .filter_map(|(id, target)| target.then_some(id))
        .collect();
    if first_hits.is_empty() {
        return Ok(written);
    }
    let totals = event_totals(src)?;
    let mut insert_at = at + 1;
    for id in first_hits {
        let t = &tallies[id];
        let hits = totals.get(id.as_str()).copied().unwrap_or(0).max(t.count);
        let task = t
            .last_label
            .as_deref()
            .map_or_else(|| "-".to_string(), evokb_export::parse::table::escape_cell);
        let line =
            format!("| {} | {hits} | {task} |  |", evokb_export::parse::table::escape_cell(id));
        let Some(row) = evokb_export::parse::table::split_row(&line) else { continue };
        let spec = evokb_export::parse::table::TableSpec {
            kind: Kind::HitRow,
            keys: vec!["entry".into(), "hits".into(), "last_hit_task".into(), "note".into()],
            id_cols: vec![0],
        };
        let segments = evokb_export::parse::table::row_segments(&row, "\n", &spec);
        let rec = Record {
            kind: Kind::HitRow,
            id: id.clone(),
            file: stats.path.clone().into(),
            segments,
        };
        if src.get(&rec.case_hash())?.is_some() || overrides.contains_key(&rec.case_hash()) {
            continue;
        }
        stats.items.insert(insert_at, LayoutItem::Record(rec.case_hash()));
        overrides.insert(rec.case_hash(), rec);
        insert_at += 1;
        written += 1;
    }
    Ok(written)
}

/// How many search events of the log returned each id.
fn event_totals(src: &dyn RecordSource) -> Result<HashMap<String, u64>, StoreError> {
    let mut out = HashMap::new();
    let lay = Layout::of(src)?;
    let Some(log) = src.layout(&lay.search_log)? else { return Ok(out) };
    let mut events = Vec::new();
    for item in &log.items {
        if let LayoutItem::Record(k) = item {
            if let Some(r) = src.get(k)? {
                events.push(r);
            }
        }
    }
    for e in search_events(&events) {
        for id in e.returned {
            *out.entry(hit_target(&id).to_string()).or_insert(0) += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(n: usize, json: &str) -> Record {
        Record {
            kind: Kind::SearchEvent,
            id: format!("e{n}"),
            file: "log.jsonl".into(),
            segments: vec![
                Segment::Field { key: "json".into(), value: json.into() },
                Segment::Lit("\n".into()),
            ],
        }
    }

    #[test]
    fn the_streamed_count_equals_replaying_the_events_in_time_order() {
        // Out of time order, equal times, tasks named two ways or not at all, escapes, a
        // duplicate key, a non-string task, an array line, a truncated bottleneck id, a
        // repeated id within one event, and a record of another kind.
        let lines = [
            r#"{"ts": "2026-03-02T00:00:00Z", "query": "a", "returned": ["X", "Y"], "task": "T-2"}"#,
            r#"{"ts": "2026-03-01T00:00:00Z", "query": "b", "returned": ["X"], "task": "T-1"}"#,
            r#"{"ts": "2026-03-02T00:00:00Z", "query": "c", "returned": ["X"]}"#,
            r#"{"ts": "2026-03-02T00:00:00Z", "query": "d", "returned": ["Y", "Y"], "task_id": "T-3"}"#,
            r#"{"ts": "2026-03-03T00:00:00Z", "returned": ["\u0058", "BP_a：cut title"], "task": 7}"#,
            r#"{"ts": "2026-03-04T00:00:00Z", "returned": ["Z"], "task": "T-4", "task": "T-5"}"#,
            r#"["2026-03-05T00:00:00Z", ["X"], "T-6"]"#,
            r#"{"ts": null, "returned": ["W"], "task": null}"#,
            r#"{"ts": "2026-02-28T00:00:00Z", "returned": null, "task": "T-7"}"#,
            r#"{"ts": "2026-03-06T00:00:00Z", "returned": ["Q", 3], "task": "T-8"}"#,
            "not json",
        ];
        let mut records: Vec<Record> = lines.iter().enumerate().map(|(n, l)| event(n, l)).collect();
        records.push(Record { kind: Kind::Entry, ..event(99, r#"{"returned": ["X"]}"#) });
        for since in [None, Some("2026-03-02"), Some("2026-03-03T"), Some("2027")] {
            let streamed = hit_counts(&records, since);
            assert_eq!(streamed, hit_counts_by_replay(&records, since), "since {since:?}");
        }
        let all = hit_counts(&records, None);
        let x = all.iter().find(|h| h.id == "X").expect("X is counted");
        assert_eq!((x.hits, x.last_hit_ts.as_str()), (4, "2026-03-03T00:00:00Z"));
        // The event of 2026-03-03 named no string task: the last task is the later of the
        // two events at 03-02 that named one, fed after the first.
        assert_eq!(x.last_hit_task.as_deref(), Some("T-2"));
    }

    #[test]
    fn truncated_bottleneck_ids_count_for_the_pattern() {
        assert_eq!(
            hit_target("BP_compute_granularity：计算粒度或硬件管线使用不足"),
            "BP_compute_granularity"
        );
        assert_eq!(hit_target("BP_ub_pressure"), "BP_ub_pressure");
        assert_eq!(hit_target("PL-1.9-blockwidth"), "PL-1.9-blockwidth");
        assert_eq!(hit_target("CASE-x：y"), "CASE-x：y");
    }

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
