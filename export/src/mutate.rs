//! Minimal mutations on the store: change one field of one record, add entries to a topic file.
//!
//! Every mutation is checked the same way: the affected file is rendered with the change,
//! parsed again, and the parse must give back the same records with only the intended ones
//! changed. The store then keeps exactly what the parser produced, so re-importing the rendered
//! files always reproduces the store (and its digest). A value that would break the file's
//! structure, such as a newline in a table cell, is refused with the reason.

use std::collections::HashMap;

use evokb_store::{
    CaseHash, FileLayout, ItemPos, ItemRef, Kind, LayoutItem, Record, Segment, SegmentText, Store,
    WriteTxn,
};

use crate::diag::Diagnostic;
use crate::error::MutateError;
use crate::layout::{FileRole, Layout};
use crate::parse::{self, frontmatter, normalize, parse_file};
use crate::render::RecordSource;
use crate::text::dominant_eol;

/// Finds the record with natural id `id`, of `kind` or of the first kind in
/// [`crate::kinds::lookup_order`]
/// that has one.
pub fn find(
    src: &dyn RecordSource,
    id: &str,
    kind: Option<Kind>,
) -> Result<Option<Record>, MutateError> {
    let kinds: Vec<Kind> = match kind {
        Some(k) => vec![k],
        None => crate::kinds::lookup_order(),
    };
    for k in kinds {
        if let Some(rec) = src.get(&CaseHash::of(k, id))? {
            return Ok(Some(rec));
        }
    }
    Ok(None)
}

/// What a mutation changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MutationReport {
    /// The records written, as (kind, id) after the change.
    pub changed: Vec<(Kind, String)>,
}

/// Sets field `field` of the record `id` to `value`, in one transaction. `body` names the
/// record's body when it has no field of that name. A field the record lacks is added to
/// entries, queue items and gaps. Setting an entry's `status` or `id` also updates its INDEX row.
pub fn set_field(
    store: &Store,
    id: &str,
    kind: Option<Kind>,
    field: &str,
    value: &str,
) -> Result<MutationReport, MutateError> {
    let mut w = store.write()?;
    let report = set_field_in(&mut w, id, kind, field, value)?;
    w.commit()?;
    Ok(report)
}

/// [`set_field`] inside an open transaction.
pub fn set_field_in(
    w: &mut WriteTxn,
    id: &str,
    kind: Option<Kind>,
    field: &str,
    value: &str,
) -> Result<MutationReport, MutateError> {
    let rec = find(w, id, kind)?.ok_or_else(|| MutateError::NotFound { id: id.into() })?;
    check_decided_item(&rec, field)?;
    let mut report = MutationReport::default();
    let changed = with_field(&rec, field, value)?;
    report.changed.extend(commit_change(w, &rec.file, changed)?);
    if rec.kind == Kind::Entry && (field == "status" || field == "id") {
        if let Some(row) = w.record_by_id(Kind::IndexRow, &rec.id)? {
            if row.field(field).is_some() {
                let changed_row = with_field(&row, field, value)?;
                report.changed.extend(commit_change(w, &row.file, changed_row)?);
            }
        }
    }
    Ok(report)
}

/// The statuses after which a queue item is archived.
pub const TERMINAL_STATUSES: [&str; 4] = ["merged", "rejected", "expired", "conflict"];

/// A decided queue item is immutable except for its status and `decided_*` fields.
fn check_decided_item(rec: &Record, field: &str) -> Result<(), MutateError> {
    let decided = rec.kind == Kind::QueueItem
        && rec.field("status").is_some_and(|s| TERMINAL_STATUSES.contains(&s.trim()));
    if decided && !(field == "status" || field.starts_with("decided_")) {
        return Err(MutateError::InvalidValue {
            field: field.into(),
            reason: format!(
                "{} is decided ({}); only its status and decided_* fields can change",
                rec.id,
                rec.field("status").unwrap_or("").trim()
            ),
        });
    }
    Ok(())
}

/// The record with `field` set to `value`.
pub fn with_field(rec: &Record, field: &str, value: &str) -> Result<Record, MutateError> {
    let mut out = rec.clone();
    let invalid =
        |reason: &str| MutateError::InvalidValue { field: field.into(), reason: reason.into() };
    let table_row = crate::kinds::info(rec.kind).table_row;
    let single_line =
        table_row || field == "id" || (rec.kind == Kind::Bottleneck && field == "title");
    if single_line && value.contains(['\n', '\r']) {
        return Err(invalid("this field must stay on one line"));
    }
    if single_line && value.trim().is_empty() && field == "id" {
        return Err(invalid("an id cannot be empty"));
    }
    // The parsers give whitespace around a value to the separator, so a value is stored without
    // it; newlines stay, since a multi-line value starts with one.
    let value = if table_row { value.trim() } else { value.trim_start_matches([' ', '\t']) };
    if table_row && value.replace("\\|", "").contains('|') {
        return Err(invalid("a '|' inside a table cell must be escaped as '\\|'"));
    }
    if rec.field(field).is_some() {
        out.set_field(field, value);
    } else if field == "body" && rec.body().is_some() {
        out.set_body(value);
    } else {
        let Some(lead) = crate::kinds::info(rec.kind).new_field_prefix else {
            let available: Vec<&str> = rec.fields().map(|(k, _)| k).collect();
            return Err(MutateError::UnknownField {
                kind: rec.kind,
                id: rec.id.clone(),
                field: field.into(),
                available: available.join(", "),
            });
        };
        let prefix = format!("{lead}{field}: ");
        if parse::keyline::split(&format!("{field}: x")).is_none_or(|kl| kl.key != field) {
            return Err(invalid("a new field name must be letters, digits, '_' or '-'"));
        }
        insert_field(&mut out, field, value, &prefix);
    }
    Ok(out)
}

/// Adds a field line after the record's last field, in the record's own line-ending style.
pub fn insert_field(rec: &mut Record, key: &str, value: &str, prefix: &str) {
    let eol = dominant_eol(&rec.text());
    let line =
        vec![Segment::Lit(prefix.into()), Segment::Field { key: key.into(), value: value.into() }];
    insert_lines_after_last_field(&mut rec.segments, line, eol);
}

/// Inserts field lines right after the line ending of a record's last field, each ended with
/// `eol` (also used when the last field has no line ending of its own). The segments come back
/// normalised, as the parser would produce them.
pub fn insert_lines_after_last_field(segs: &mut Vec<Segment>, lines: Vec<Segment>, eol: &str) {
    let mut all = std::mem::take(segs);
    match all.iter().rposition(|s| matches!(s, Segment::Field { .. })) {
        Some(i) => {
            // The literal after the last field starts with that field's line ending; the new
            // lines go right after it.
            let (head, tail) = match all.get(i + 1) {
                Some(Segment::Lit(s)) => match s.find('\n') {
                    Some(n) => (SegmentText::from(&s[..=n]), SegmentText::from(&s[n + 1..])),
                    None => (s.clone(), SegmentText::default()),
                },
                _ => (SegmentText::from(eol), SegmentText::default()),
            };
            let end = if matches!(all.get(i + 1), Some(Segment::Lit(_))) { i + 2 } else { i + 1 };
            let mut insert = vec![Segment::Lit(head)];
            insert.extend(lines);
            insert.push(Segment::Lit(eol.into()));
            insert.push(Segment::Lit(tail));
            all.splice(i + 1..end, insert);
        }
        None => {
            all.extend(lines);
            all.push(Segment::Lit(eol.into()));
        }
    }
    *segs = normalize(all);
}

/// Puts a changed record into its file and checks the file still parses to the same records.
fn commit_change(
    w: &mut WriteTxn,
    path: &str,
    changed: Record,
) -> Result<Vec<(Kind, String)>, MutateError> {
    commit_record(w, path, changed.case_hash(), changed)
}

/// [`windowed_check`] of the one record in `overrides` read from the stored chunks of the
/// file's layout instead of its whole layout: the chunk that holds the record, and its
/// neighbours only as far as the window reaches. The window's items are exactly those
/// `windowed_check` takes from the whole layout, so both give the same verdict. Returns
/// `None` where `windowed_check` would not apply (a small file, a record not in the stored
/// layout) or the window does not parse back; the caller then takes the whole layout.
/// A record whose key the re-parse changes is handed back too: its item is replaced in its
/// chunk here.
fn chunk_check(
    w: &mut WriteTxn,
    path: &str,
    overrides: &HashMap<CaseHash, Record>,
) -> Result<Option<Vec<(CaseHash, Record)>>, MutateError> {
    let [(key, _)] = overrides.iter().collect::<Vec<_>>()[..] else { return Ok(None) };
    let Some(pos) = w.locate_in_file(path, key)? else { return Ok(None) };
    let Some(mut chunk) = w.file_chunk(path, pos.chunk)? else { return Ok(None) };
    // A small file is checked whole (see `windowed_check`): one chunk, and a short one.
    if chunk.len() < WINDOWED_MIN_ITEMS
        && w.file_chunk_beside(path, pos.chunk, false)?.is_none()
        && w.file_chunk_beside(path, pos.chunk, true)?.is_none()
    {
        return Ok(None);
    }
    let Some(got) = chunk_window_check(w, path, pos, &chunk, overrides)? else { return Ok(None) };
    if got.case_hash() != *key {
        chunk[pos.index] = LayoutItem::Record(got.case_hash());
        w.put_file_chunk(path, pos.chunk, &chunk)?;
    }
    Ok(Some(vec![(*key, got)]))
}

/// The window [`windowed_check`] takes around the record at `pos` of the stored layout of
/// `path`, where `chunk` is that chunk's items as they are to be stored, checked the same
/// way: the nearest prose item before the record (in its chunk or an earlier one), the
/// record, and the item after it (in the chunk, the next one, or the records appended
/// since). Returns the record the window parses back to, or `None` when it does not.
fn chunk_window_check(
    w: &WriteTxn,
    path: &str,
    pos: ItemPos,
    chunk: &[LayoutItem],
    overrides: &HashMap<CaseHash, Record>,
) -> Result<Option<Record>, MutateError> {
    let LayoutItem::Record(key) = &chunk[pos.index] else { return Ok(None) };
    let is_prose = |i: &&LayoutItem| matches!(i, LayoutItem::Prose(_));
    let mut before = chunk[..pos.index].iter().rev().find(is_prose).cloned();
    let mut from = pos.chunk;
    while before.is_none() {
        let Some((number, prev)) = w.file_chunk_beside(path, from, false)? else { break };
        from = number;
        before = prev.iter().rev().find(is_prose).cloned();
    }
    let mut items: Vec<LayoutItem> = before.into_iter().collect();
    items.push(chunk[pos.index].clone());
    let next = match chunk.get(pos.index + 1) {
        Some(n) => Some(n.clone()),
        None => match w.file_chunk_beside(path, pos.chunk, true)? {
            Some((_, later)) => later.first().cloned(),
            None => w.file_tail(path)?.first().copied().map(LayoutItem::Record),
        },
    };
    items.extend(next);
    let window = FileLayout { path: path.into(), items };
    let Ok(checked) = checked_parse(w, &window, overrides) else { return Ok(None) };
    Ok(checked.records.into_iter().find(|(k, _)| k == key).map(|(_, got)| got))
}

/// Puts `rec` in place of the record under `key` in the file at `path`, checked as
/// [`commit_file`] checks it, and stores what the parse gives; the layout is written back
/// only when a key changed. A record in a large file costs one chunk of its layout.
pub fn commit_record(
    w: &mut WriteTxn,
    path: &str,
    key: CaseHash,
    rec: Record,
) -> Result<Vec<(Kind, String)>, MutateError> {
    let mut overrides = HashMap::new();
    overrides.insert(key, rec);
    if let Some(checked) = chunk_check(w, path, &overrides)? {
        return store_checked(w, &checked);
    }
    let layout = w.file(path)?.ok_or_else(|| MutateError::UnknownFile { path: path.into() })?;
    commit_layout(w, layout, &overrides, true)
}

/// Renders `layout` with `overrides` in place of (or in addition to) stored records, parses the
/// result, and stores what the parser produced. Every record must come back with the text it
/// was rendered from, so a value can never spill into its neighbours.
pub fn commit_file(
    w: &mut WriteTxn,
    layout: FileLayout,
    overrides: &HashMap<CaseHash, Record>,
) -> Result<Vec<(Kind, String)>, MutateError> {
    commit_layout(w, layout, overrides, false)
}

/// [`commit_file`]; `stored` says that `layout` is the file's stored layout unchanged, so it
/// is written back only if a record's key changed.
fn commit_layout(
    w: &mut WriteTxn,
    layout: FileLayout,
    overrides: &HashMap<CaseHash, Record>,
    stored: bool,
) -> Result<Vec<(Kind, String)>, MutateError> {
    let (checked, layout_changed) = match windowed_check(w, &layout, overrides)? {
        Some(checked) => {
            let changed = !stored || checked.layout != layout;
            (checked, changed)
        }
        None => (checked_parse(w, &layout, overrides)?, true),
    };
    let changed = store_checked(w, &checked.records)?;
    if layout_changed {
        w.put_file(&checked.layout)?;
    }
    Ok(changed)
}

/// Stores the records a checked parse gave, each under its new key (the old one removed when
/// the key changed). Returns the records that differ from what was stored.
fn store_checked(
    w: &mut WriteTxn,
    records: &[(CaseHash, Record)],
) -> Result<Vec<(Kind, String)>, MutateError> {
    let mut changed = Vec::new();
    for (old_key, got) in records {
        let new_key = got.case_hash();
        if new_key != *old_key {
            if let Some(existing) = w.record(&new_key)? {
                return Err(MutateError::AlreadyExists {
                    kind: got.kind,
                    id: got.id.clone(),
                    file: existing.file.to_string(),
                });
            }
            w.delete_record(old_key)?;
        }
        if w.record(&new_key)?.as_ref() != Some(got) {
            w.put_record(got)?;
            changed.push((got.kind, got.id.clone()));
        }
    }
    Ok(changed)
}

/// A file rendered with some records replaced and parsed back: each record under the key it
/// was rendered from, and the layout the parser gave.
pub struct CheckedFile {
    /// Each record under the key it was rendered from.
    pub records: Vec<(CaseHash, Record)>,
    /// The layout the parser gave.
    pub layout: FileLayout,
}

/// Files with fewer items than this are checked whole: it costs little, and checks more.
const WINDOWED_MIN_ITEMS: usize = 64;

/// The check of [`checked_parse`] on a window around each changed record instead of the whole
/// file, so a one-field change costs the same in a 20-row table as in a 100,000-row INDEX.md.
///
/// A window is the prose item before the record (the table header, the section heading), the
/// record, and the item after it (so text that would swallow what follows is caught). Records
/// are parsed independently of the records before them, so when the window splits into exactly
/// the records it was rendered from, the whole file does too. Returns `None` when the fast
/// check does not apply (new items, many changes) or does not pass; the caller then runs the
/// full check, which gives the error.
fn windowed_check(
    src: &dyn RecordSource,
    layout: &FileLayout,
    overrides: &HashMap<CaseHash, Record>,
) -> Result<Option<CheckedFile>, MutateError> {
    const MAX_WINDOWS: usize = 8;
    if overrides.len() > MAX_WINDOWS || layout.items.len() < WINDOWED_MIN_ITEMS {
        return Ok(None);
    }
    let mut positions = Vec::new();
    for (pos, item) in layout.items.iter().enumerate() {
        if let LayoutItem::Record(k) = item {
            if overrides.contains_key(k) {
                positions.push(pos);
            }
        }
    }
    if positions.len() != overrides.len() {
        return Ok(None);
    }
    let mut new_layout = layout.clone();
    let mut records = Vec::new();
    for pos in positions {
        let start = layout.items[..pos]
            .iter()
            .rposition(|i| matches!(i, LayoutItem::Prose(_)))
            .unwrap_or(pos);
        let mut items = Vec::new();
        if start < pos {
            items.push(layout.items[start].clone());
        }
        items.push(layout.items[pos].clone());
        if let Some(next) = layout.items.get(pos + 1) {
            items.push(next.clone());
        }
        let window = FileLayout { path: layout.path.clone(), items };
        let Ok(checked) = checked_parse(src, &window, overrides) else { return Ok(None) };
        let LayoutItem::Record(old_key) = &layout.items[pos] else { return Ok(None) };
        let Some((_, got)) = checked.records.into_iter().find(|(k, _)| k == old_key) else {
            return Ok(None);
        };
        new_layout.items[pos] = LayoutItem::Record(got.case_hash());
        records.push((*old_key, got));
    }
    Ok(Some(CheckedFile { records, layout: new_layout }))
}

/// Renders `layout` from `src` with `overrides`, parses the text and checks that it splits into
/// exactly the records it was rendered from. Writes nothing.
pub fn checked_parse(
    src: &dyn RecordSource,
    layout: &FileLayout,
    overrides: &HashMap<CaseHash, Record>,
) -> Result<CheckedFile, MutateError> {
    let path = layout.path.clone();
    let role = Layout::of(src)?
        .role_of(&path)
        .ok_or_else(|| MutateError::UnknownFile { path: path.clone() })?;
    let mut text = String::new();
    let mut expected: Vec<(CaseHash, Record)> = Vec::new();
    for item in &layout.items {
        match item {
            LayoutItem::Prose(p) => text.push_str(p),
            LayoutItem::Record(key) => {
                let rec = match overrides.get(key) {
                    Some(r) => r.clone(),
                    None => src.get(key)?.ok_or_else(|| crate::error::RenderError::Dangling {
                        path: path.clone(),
                        key: key.to_hex(),
                    })?,
                };
                rec.write_text(&mut text);
                expected.push((*key, rec));
            }
        }
    }
    let (parsed, diags) = parse_file(role, &path, &text);
    let broken = |reason: String| MutateError::InvalidValue { field: "value".into(), reason };
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(broken(format!("the change would make '{path}' malformed: {d}")));
    }
    if parsed.records.len() != expected.len() {
        return Err(broken(format!(
            "the change would turn {} record(s) of '{path}' into {}; it must not cross a record boundary",
            expected.len(),
            parsed.records.len()
        )));
    }
    let mut records = Vec::with_capacity(expected.len());
    for ((old_key, want), got) in expected.into_iter().zip(parsed.records) {
        let got = got.record;
        if got.segments != want.segments || got.kind != want.kind {
            return Err(broken(format!(
                "the change would alter how '{path}' splits into records near {} '{}'",
                want.kind, want.id
            )));
        }
        records.push((old_key, got));
    }
    Ok(CheckedFile { records, layout: parsed.layout })
}

/// Adds the entries in `text` (topic-file format: `---` front-matter then body, one or more) at
/// the end of topic file `path`, and a row for each in that file's `INDEX.md` table.
pub fn add_entries(store: &Store, path: &str, text: &str) -> Result<MutationReport, MutateError> {
    let mut w = store.write()?;
    let report = add_entries_in(&mut w, path, text)?;
    w.commit()?;
    Ok(report)
}

/// [`add_entries`] inside an open transaction.
pub fn add_entries_in(
    w: &mut WriteTxn,
    path: &str,
    text: &str,
) -> Result<MutationReport, MutateError> {
    let lay = Layout::of(&*w)?;
    if lay.role_of(path) != Some(FileRole::Topic) {
        return Err(MutateError::UnknownFile { path: path.into() });
    }
    let (parsed, diags) = parse_file(FileRole::Topic, path, text);
    let mut problems: Vec<Diagnostic> = diags.into_iter().filter(Diagnostic::is_error).collect();
    if parsed.records.is_empty() {
        problems.push(Diagnostic::error(
            path,
            1,
            "expected at least one entry: '---', 'id: …' lines, '---', then the body",
        ));
    }
    let stray = parsed
        .layout
        .items
        .iter()
        .any(|i| matches!(i, LayoutItem::Prose(p) if !p.trim().is_empty()));
    if stray {
        problems.push(Diagnostic::error(
            path,
            1,
            "text outside an entry; expected only '---'-delimited entries",
        ));
    }
    if !problems.is_empty() {
        return Err(MutateError::Invalid { diagnostics: problems });
    }
    let mut layout = w.file(path)?.ok_or_else(|| MutateError::UnknownFile { path: path.into() })?;
    let mut overrides: HashMap<CaseHash, Record> = HashMap::new();
    ensure_trailing_newline(w, &mut layout, &mut overrides)?;
    for pr in &parsed.records {
        let rec = &pr.record;
        if let Some(existing) = w.record(&rec.case_hash())? {
            return Err(MutateError::AlreadyExists {
                kind: rec.kind,
                id: rec.id.clone(),
                file: existing.file.to_string(),
            });
        }
        layout.items.push(LayoutItem::Record(rec.case_hash()));
        overrides.insert(rec.case_hash(), rec.clone());
    }
    let mut report = MutationReport { changed: commit_file(w, layout, &overrides)? };
    let entries: Vec<Record> = parsed.records.into_iter().map(|p| p.record).collect();
    report.changed.extend(index_entries_in(w, path, &entries, dominant_eol(text))?);
    Ok(report)
}

/// Gives each of `entries` (of topic file `path`) its INDEX.md row: `| id | title | status |`
/// after the last row of the topic's table, or in a new table section for the topic. Rows
/// end in `eol`. Does nothing without an INDEX.md in the store. Returns the records written. This is what `add` does, and
/// what import does for an entry a person wrote into a topic file by hand.
pub fn index_entries_in(
    w: &mut WriteTxn,
    path: &str,
    entries: &[Record],
    eol: &str,
) -> Result<Vec<(Kind, String)>, MutateError> {
    let lay = Layout::of(&*w)?;
    let topic = path.rsplit('/').next().unwrap_or(path);
    if let [entry] = entries {
        let row = index_row(entry, eol, &lay.index);
        if let Some(changed) = index_row_in_chunks(w, &lay.index, topic, row)? {
            return Ok(changed);
        }
    }
    let Some(mut index) = w.file(&lay.index)? else { return Ok(Vec::new()) };
    let mut rows = HashMap::new();
    for rec in entries {
        let row = index_row(rec, eol, &lay.index);
        insert_index_row(&mut index, topic, row.case_hash());
        rows.insert(row.case_hash(), row);
    }
    commit_file(w, index, &rows)
}

/// What [`index_entries_in`] does for one row, on the stored chunks of the INDEX layout: the
/// scan of [`insert_index_row`] over items borrowed from the stored bytes, the row inserted
/// into the one chunk it lands in, and that chunk's window checked as [`windowed_check`]
/// checks it. `None` (nothing written) where the whole-layout path must decide: no chunked
/// INDEX, records appended to it since, a small file, no table row to follow, a row key
/// already present, or a window that does not parse back.
fn index_row_in_chunks(
    w: &mut WriteTxn,
    index_path: &str,
    topic: &str,
    row: Record,
) -> Result<Option<Vec<(Kind, String)>>, MutateError> {
    let key = row.case_hash();
    if w.has_file_tail(index_path)? || w.record(&key)?.is_some() {
        return Ok(None);
    }
    let mut place = RowPlace::new(topic);
    let mut count = 0usize;
    let chunked = w.scan_file(index_path, &mut |pos, item| {
        count += 1;
        match item {
            ItemRef::Prose(p) => place.prose(p),
            ItemRef::Record(_) => place.row(pos),
        }
    })?;
    if !chunked || count < WINDOWED_MIN_ITEMS {
        return Ok(None);
    }
    let (after, mut insert) = match (place.last_in_topic, place.last_row) {
        (Some(p), _) => (p, Vec::new()),
        (None, Some(p)) => (p, vec![LayoutItem::Prose(index_section_header(topic))]),
        (None, None) => return Ok(None),
    };
    insert.push(LayoutItem::Record(key));
    let Some(mut chunk) = w.file_chunk(index_path, after.chunk)? else { return Ok(None) };
    let at = ItemPos { chunk: after.chunk, index: after.index + insert.len() };
    chunk.splice(after.index + 1..after.index + 1, insert);
    let mut overrides = HashMap::new();
    overrides.insert(key, row);
    let Some(got) = chunk_window_check(w, index_path, at, &chunk, &overrides)? else {
        return Ok(None);
    };
    chunk[at.index] = LayoutItem::Record(got.case_hash());
    w.put_file_chunk(index_path, after.chunk, &chunk)?;
    Ok(Some(store_checked(w, &[(key, got)])?))
}

/// Where a new INDEX row of `topic` goes, learnt by reading the layout's items in order (`P`
/// is how a reader names an item's place): after the last row under a heading of `topic`,
/// else in a new section after the last row of the file.
struct RowPlace<'t, P> {
    topic: &'t str,
    /// Whether the heading read last names `topic` (kept as a flag, not the heading's topic:
    /// the chunked add reads every item of a 100k-row INDEX.md through this).
    in_topic: bool,
    last_in_topic: Option<P>,
    last_row: Option<P>,
}

impl<'t, P: Copy> RowPlace<'t, P> {
    fn new(topic: &'t str) -> Self {
        RowPlace { topic, in_topic: false, last_in_topic: None, last_row: None }
    }

    fn prose(&mut self, p: &str) {
        if !p.contains('#') {
            return;
        }
        for line in p.lines().filter(|l| l.starts_with('#')) {
            self.in_topic = parse::index::heading_topic(line) == Some(self.topic);
        }
    }

    fn row(&mut self, at: P) {
        self.last_row = Some(at);
        if self.in_topic {
            self.last_in_topic = Some(at);
        }
    }
}

/// The heading and table header of a new INDEX section for `topic`.
fn index_section_header(topic: &str) -> String {
    format!("\n### {topic}\n\n| ID | 一句话 | 状态 |\n|----|--------|------|\n")
}

/// Makes sure a file's text ends with a line ending before something is appended to it.
pub fn ensure_trailing_newline(
    w: &mut WriteTxn,
    layout: &mut FileLayout,
    overrides: &mut HashMap<CaseHash, Record>,
) -> Result<(), MutateError> {
    match layout.items.last_mut() {
        Some(LayoutItem::Prose(p)) if !p.ends_with('\n') => p.push('\n'),
        Some(LayoutItem::Record(key)) => {
            if let Some(mut rec) = w.record(key)? {
                if !rec.text().ends_with('\n') {
                    match rec.segments.last_mut() {
                        Some(Segment::Body(b)) | Some(Segment::Lit(b)) => b.push('\n'),
                        _ => rec.segments.push(Segment::Lit("\n".into())),
                    }
                    overrides.insert(*key, rec);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The INDEX row for an entry: id, title as the one-line summary, status.
fn index_row(entry: &Record, eol: &str, index_path: &str) -> Record {
    let title = frontmatter::truncate(frontmatter::title_of(entry.body().unwrap_or("")), 80);
    let summary = title.replace('|', "\\|");
    let status = entry.field("status").unwrap_or("").trim();
    let line = format!("| {} | {} | {} |{eol}", entry.id, summary, status);
    let row = parse::table::split_row(line.trim_end_matches(['\r', '\n']));
    let segments = match row {
        Some(row) => parse::table::row_segments(
            &row,
            eol,
            &parse::table::TableSpec {
                kind: Kind::IndexRow,
                keys: vec!["id".into(), "summary".into(), "status".into()],
                id_cols: vec![0],
            },
        ),
        None => vec![Segment::Lit(line.into())],
    };
    Record { kind: Kind::IndexRow, id: entry.id.clone(), file: index_path.into(), segments }
}

/// Puts a row reference after the last row of `topic`'s table, or in a new table section after
/// the last table when the topic has none yet.
fn insert_index_row(index: &mut FileLayout, topic: &str, row: CaseHash) {
    let mut place = RowPlace::new(topic);
    for (i, item) in index.items.iter().enumerate() {
        match item {
            LayoutItem::Prose(p) => place.prose(p),
            LayoutItem::Record(_) => place.row(i),
        }
    }
    match (place.last_in_topic, place.last_row) {
        (Some(i), _) => index.items.insert(i + 1, LayoutItem::Record(row)),
        (None, Some(i)) => {
            index.items.insert(i + 1, LayoutItem::Prose(index_section_header(topic)));
            index.items.insert(i + 2, LayoutItem::Record(row));
        }
        (None, None) => {
            index.items.push(LayoutItem::Prose(index_section_header(topic)));
            index.items.push(LayoutItem::Record(row));
        }
    }
}
