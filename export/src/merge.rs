//! The record-level three-way merge behind `evokb merge-driver`.
//!
//! Git hands the driver three versions of a managed file. Each is parsed into records; records
//! are merged by key, fields by name, and the result is rendered by concatenation, so the merged
//! file keeps every untouched byte:
//!
//! - a record changed on one side takes that change; added on either side, it is kept;
//! - when both sides changed the same record, fields are merged one by one; fields that only one
//!   side appended (a second `confirmed_by`, say) are all kept; a queue item's `confirmations`
//!   count adds up both sides' confirmations, capped at the threshold (`n/2`); a multi-line
//!   field both sides only appended lines to (the `evidence` list) keeps both sides' lines;
//! - rows without ids of their own (change log, search events) added on both sides are both kept,
//!   even when their positional ids collide, since the re-parse numbers them again;
//! - a `stats.md` hit-table row is a counter every clone bumps: `hits` adds up both sides'
//!   increments over the base (a row added on both sides starts from 0), and `last_hit_task`,
//!   changed differently on both sides, takes the value that sorts last, so the result is the
//!   same whichever side merges (the row records no time to say which search was later); rows
//!   that came out identical on both sides still add up, since both sides' increments come from
//!   commits the other lacks;
//! - search-log lines both sides appended at the same place are interleaved by `ts`, then by
//!   their text, each side's own order kept: every clone that merges the same two histories
//!   writes the same log, whichever side it is on;
//! - the same field changed differently on both sides is a conflict confined to that record: git
//!   conflict markers surround that record only, and the driver exits non-zero.
//!
//! The merged layout starts from ours; theirs' new records are placed after the record that
//! precedes them in theirs, and records theirs deleted (and ours left alone) are dropped.

use std::collections::{HashMap, HashSet};

use evokb_store::{CaseHash, FieldKey, Kind, LayoutItem, Record, Segment, SegmentText};

use crate::layout::FileRole;
use crate::parse::{parse_file, ParsedFile};

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOutcome {
    /// The merged file text (with conflict markers around conflicting records, if any).
    pub text: String,
    /// One line per conflicting record: `kind 'id': why`.
    pub conflicts: Vec<String>,
}

/// Why a file could not be merged record by record.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// One of the three versions does not parse.
    #[error("the {side} version of '{path}' does not parse: {problem}")]
    Unparsable {
        /// base, ours or theirs.
        side: &'static str,
        /// The file.
        path: String,
        /// The first error.
        problem: String,
    },
    /// Both sides changed the prose between records differently.
    #[error("both sides changed the text between records of '{path}' differently")]
    ProseConflict {
        /// The file.
        path: String,
    },
}

fn parse(
    role: FileRole,
    path: &str,
    text: &str,
    side: &'static str,
) -> Result<ParsedFile, MergeError> {
    let (pf, diags) = parse_file(role, path, text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(MergeError::Unparsable { side, path: path.into(), problem: d.to_string() });
    }
    Ok(pf)
}

/// A parsed version: records by key (first occurrence), layout in order.
struct Version {
    records: HashMap<CaseHash, Record>,
    items: Vec<LayoutItem>,
}

impl Version {
    fn new(pf: ParsedFile) -> Version {
        let mut records = HashMap::new();
        let mut items = pf.layout.items;
        for pr in pf.records {
            let key = merge_key(&pr.record);
            if key != pr.record.case_hash() {
                // Re-point the layout at the record's merge key (the n-th reference of this
                // positional id is the n-th record with it).
                let old = LayoutItem::Record(pr.record.case_hash());
                if let Some(item) = items.iter_mut().find(|i| **i == old) {
                    *item = LayoutItem::Record(key);
                }
            }
            records.entry(key).or_insert(pr.record);
        }
        Version { records, items }
    }

    fn prose(&self) -> Vec<&str> {
        self.items
            .iter()
            .filter_map(|i| match i {
                LayoutItem::Prose(p) => Some(p.as_str()),
                LayoutItem::Record(_) => None,
            })
            .collect()
    }

    fn keys(&self) -> Vec<CaseHash> {
        self.items
            .iter()
            .filter_map(|i| match i {
                LayoutItem::Record(h) => Some(*h),
                LayoutItem::Prose(_) => None,
            })
            .collect()
    }
}

/// The key a record is matched by across the three versions. Change-log rows have positional
/// ids (row numbers), which say nothing about which row is which once both sides appended
/// rows: they are matched by their text, so a row is the same row on every side, and rows
/// appended anywhere are new rows, never a "change" to another side's row.
fn merge_key(rec: &Record) -> CaseHash {
    if rec.kind == Kind::ChangeRow {
        CaseHash::of(Kind::ChangeRow, &format!("merge-text\0{}", rec.text()))
    } else {
        rec.case_hash()
    }
}

/// How a merged record is written.
enum Merged {
    Take(Record),
    Conflict { ours: Record, theirs: Record, why: String },
}

/// Merges three versions of the managed file at `path`.
pub fn merge_texts(
    role: FileRole,
    path: &str,
    base: &str,
    ours: &str,
    theirs: &str,
) -> Result<MergeOutcome, MergeError> {
    let o = Version::new(parse(role, path, base, "base")?);
    let a = Version::new(parse(role, path, ours, "ours")?);
    let b = Version::new(parse(role, path, theirs, "theirs")?);
    // The skeleton of prose comes from the side that changed it.
    let (skeleton, other) = if a.prose() == o.prose() && b.prose() != o.prose() {
        (&b, &a)
    } else if a.prose() == b.prose() || b.prose() == o.prose() {
        (&a, &b)
    } else {
        return Err(MergeError::ProseConflict { path: path.into() });
    };
    let mut items: Vec<LayoutItem> = Vec::new();
    let mut merged: HashMap<CaseHash, Merged> = HashMap::new();
    let mut extra_keys = 0usize;
    let mut conflicts = Vec::new();
    // Walk the skeleton, deciding each record.
    for item in &skeleton.items {
        let LayoutItem::Record(h) = item else {
            items.push(item.clone());
            continue;
        };
        match decide(o.records.get(h), a.records.get(h), b.records.get(h)) {
            Decision::Keep(m) => {
                if let Merged::Conflict { why, ours, .. } = &m {
                    conflicts.push(format!("{} '{}': {why}", ours.kind, ours.id));
                }
                merged.insert(*h, m);
                items.push(item.clone());
            }
            Decision::Drop => {}
            Decision::Both(x, y) => {
                // Two different records added under one positional id: keep both.
                merged.insert(*h, Merged::Take(x));
                items.push(item.clone());
                let extra = CaseHash::of(Kind::Repro, &format!("merge-extra-{extra_keys}"));
                extra_keys += 1;
                merged.insert(extra, Merged::Take(y));
                items.push(LayoutItem::Record(extra));
            }
        }
    }
    // Records only the other side has (added there): after their predecessor in that side.
    let other_keys = other.keys();
    for (pos, h) in other_keys.iter().enumerate() {
        if skeleton.records.contains_key(h) || o.records.contains_key(h) {
            continue;
        }
        let Some(rec) = other.records.get(h) else { continue };
        let anchor =
            other_keys[..pos].iter().rev().find(|k| items.contains(&LayoutItem::Record(**k)));
        let at = match anchor {
            Some(k) => items
                .iter()
                .position(|i| *i == LayoutItem::Record(*k))
                .map_or(items.len(), |p| p + 1),
            None => {
                items.iter().position(|i| matches!(i, LayoutItem::Record(_))).unwrap_or(items.len())
            }
        };
        items.insert(at, LayoutItem::Record(*h));
        merged.insert(*h, Merged::Take(rec.clone()));
    }
    if role == FileRole::SearchLog {
        interleave_new_events(&mut items, &o, &a, &merged);
    }
    // Records the skeleton side deleted while the other side changed them are conflicts.
    for h in other.keys() {
        if !skeleton.records.contains_key(&h) {
            if let (Some(base_rec), Some(rec)) = (o.records.get(&h), other.records.get(&h)) {
                if base_rec != rec {
                    conflicts.push(format!(
                        "{} '{}': deleted on one side, changed on the other",
                        rec.kind, rec.id
                    ));
                }
            }
        }
    }
    let mut text = String::new();
    for item in &items {
        match item {
            LayoutItem::Prose(p) => text.push_str(p),
            LayoutItem::Record(h) => match merged.get(h) {
                Some(Merged::Take(r)) => r.write_text(&mut text),
                Some(Merged::Conflict { ours, theirs, .. }) => {
                    text.push_str("<<<<<<< ours\n");
                    push_line_terminated(&mut text, &ours.text());
                    text.push_str("=======\n");
                    push_line_terminated(&mut text, &theirs.text());
                    text.push_str(">>>>>>> theirs\n");
                }
                None => {}
            },
        }
    }
    Ok(MergeOutcome { text, conflicts })
}

fn push_line_terminated(out: &mut String, s: &str) {
    out.push_str(s);
    if !s.ends_with('\n') {
        out.push('\n');
    }
}

enum Decision {
    Keep(Merged),
    Drop,
    Both(Record, Record),
}

fn decide(base: Option<&Record>, ours: Option<&Record>, theirs: Option<&Record>) -> Decision {
    match (base, ours, theirs) {
        // A hit row is a counter: whatever either side added since the base came from commits
        // the other side does not have (a commit both have is in the base), so increments add
        // up even when the two sides' rows came out identical.
        (_, Some(x), Some(y)) if x.kind == Kind::HitRow && base != Some(x) && base != Some(y) => {
            Decision::Keep(merge_hit_row(base, x, y))
        }
        (_, Some(x), Some(y)) if x == y => Decision::Keep(Merged::Take(x.clone())),
        (Some(o), Some(x), Some(y)) => {
            if x == o {
                Decision::Keep(Merged::Take(y.clone()))
            } else if y == o {
                Decision::Keep(Merged::Take(x.clone()))
            } else {
                Decision::Keep(merge_fields(o, x, y))
            }
        }
        (None, Some(x), Some(y)) => {
            if crate::kinds::info(x.kind).unique_ids {
                Decision::Keep(Merged::Conflict {
                    ours: x.clone(),
                    theirs: y.clone(),
                    why: "added on both sides with different text".into(),
                })
            } else {
                Decision::Both(x.clone(), y.clone())
            }
        }
        // Deleted on one side: gone if the other side left it alone.
        (Some(o), Some(x), None) | (Some(o), None, Some(x)) => {
            if x == o {
                Decision::Drop
            } else {
                Decision::Keep(Merged::Take(x.clone()))
            }
        }
        (None, Some(x), None) | (None, None, Some(x)) => Decision::Keep(Merged::Take(x.clone())),
        (_, None, None) => Decision::Drop,
    }
}

/// Merges a hit-table row both sides changed (or both added): the hits both sides counted
/// since the base add up; any other cell follows the usual three-way rule, except that two
/// different `last_hit_task`s resolve to the one that sorts last.
fn merge_hit_row(base: Option<&Record>, x: &Record, y: &Record) -> Merged {
    let conflict = |why: String| Merged::Conflict { ours: x.clone(), theirs: y.clone(), why };
    let (sx, vx) = split(x);
    let (sy, vy) = split(y);
    let base_values = match base {
        Some(o) => {
            let (so, vo) = split(o);
            if so != sx || so != sy {
                return conflict("both sides changed its layout differently".into());
            }
            Some(vo)
        }
        None => None,
    };
    if sx != sy {
        return conflict("both sides added it with different layouts".into());
    }
    let count = |v: &str| v.trim().parse::<u64>().ok();
    let mut out = x.clone();
    let mut i = 0;
    for seg in &mut out.segments {
        let Segment::Field { key, value } = seg else { continue };
        let ours_v = &vx[i].1;
        let theirs_v = &vy[i].1;
        let base_v = base_values.as_ref().map(|b| b[i].1.as_str());
        i += 1;
        let merged_v = if &**key == "hits" {
            let b = match base_v {
                Some(b) => count(b),
                None => Some(0),
            };
            match (b, count(ours_v), count(theirs_v)) {
                (Some(b), Some(o), Some(t)) => {
                    // Each side's increment over the base; a side that lowered the count by
                    // hand contributes nothing rather than taking hits away from the other.
                    let total =
                        b.saturating_add(o.saturating_sub(b)).saturating_add(t.saturating_sub(b));
                    let width = ours_v.len() - ours_v.trim_start().len();
                    format!("{}{total}{}", &ours_v[..width], &ours_v[ours_v.trim_end().len()..])
                        .into()
                }
                _ => return conflict("'hits' is not a count on every side".into()),
            }
        } else if ours_v == theirs_v || base_v == Some(theirs_v.as_str()) {
            ours_v.clone()
        } else if base_v == Some(ours_v.as_str()) {
            theirs_v.clone()
        } else if &**key == "last_hit_task" {
            ours_v.max(theirs_v).clone()
        } else {
            return conflict(format!("'{key}' changed differently on both sides"));
        };
        *value = merged_v;
    }
    Merged::Take(out)
}

/// The `ts` of a search-log line, and the line: the order new lines of both sides take.
fn event_order(rec: &Record) -> (String, String) {
    let line = rec.field("json").unwrap_or_default();
    let ts = serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("ts").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_default();
    (ts, rec.text())
}

/// Reorders each run of search events that neither the base had into one deterministic
/// sequence: the two sides' runs merged by `(ts, text)`, each side's own order kept.
fn interleave_new_events(
    items: &mut [LayoutItem],
    base: &Version,
    ours: &Version,
    merged: &HashMap<CaseHash, Merged>,
) {
    let is_new = |item: &LayoutItem| match item {
        LayoutItem::Record(h) => !base.records.contains_key(h),
        LayoutItem::Prose(_) => false,
    };
    let mut start = 0;
    while start < items.len() {
        if !is_new(&items[start]) {
            start += 1;
            continue;
        }
        let end = (start..items.len()).find(|&i| !is_new(&items[i])).unwrap_or(items.len());
        let key = |item: &LayoutItem| -> (String, String) {
            match item {
                LayoutItem::Record(h) => match merged.get(h) {
                    Some(Merged::Take(r)) => event_order(r),
                    _ => (String::new(), String::new()),
                },
                LayoutItem::Prose(_) => (String::new(), String::new()),
            }
        };
        let (mut mine, mut other): (Vec<LayoutItem>, Vec<LayoutItem>) = (Vec::new(), Vec::new());
        for item in &items[start..end] {
            match item {
                LayoutItem::Record(h) if ours.records.contains_key(h) => mine.push(item.clone()),
                _ => other.push(item.clone()),
            }
        }
        let (mut i, mut j) = (0, 0);
        let mut run = Vec::with_capacity(end - start);
        while i < mine.len() || j < other.len() {
            let take_mine = j >= other.len() || (i < mine.len() && key(&mine[i]) <= key(&other[j]));
            if take_mine {
                run.push(mine[i].clone());
                i += 1;
            } else {
                run.push(other[j].clone());
                j += 1;
            }
        }
        mine.clear();
        other.clear();
        for (slot, item) in items[start..end].iter_mut().zip(run) {
            *slot = item;
        }
        start = end;
    }
}

/// A record as fields: the structure (everything but field values) and the values.
fn split(rec: &Record) -> (Vec<Segment>, Vec<(FieldKey, SegmentText)>) {
    let mut shape = Vec::new();
    let mut values = Vec::new();
    for seg in &rec.segments {
        match seg {
            Segment::Field { key, value } => {
                shape.push(Segment::Field { key: key.clone(), value: SegmentText::default() });
                values.push((key.clone(), value.clone()));
            }
            other => shape.push(other.clone()),
        }
    }
    (shape, values)
}

/// Merges a record both sides changed: field by field when the shapes allow it. Fields are
/// first paired by position; when that fails (after criss-cross merges each side may hold the
/// other clones' appended lines in a different order), they are paired by key and value.
fn merge_fields(o: &Record, x: &Record, y: &Record) -> Merged {
    match merge_fields_by_position(o, x, y) {
        Merged::Conflict { ours, theirs, why } => match merge_fields_by_key(o, x, y) {
            Some(m) => m,
            None => Merged::Conflict { ours, theirs, why },
        },
        taken => taken,
    }
}

/// `(segment index, key, value)` of each field of `rec`.
fn field_list(rec: &Record) -> Vec<(usize, &str, &str)> {
    rec.segments
        .iter()
        .enumerate()
        .filter_map(|(i, seg)| match seg {
            Segment::Field { key, value } => Some((i, &**key, value.as_str())),
            _ => None,
        })
        .collect()
}

/// Pairs each base field with a field of `side`, in order: the same key, and the same value
/// when the key repeats (`confirmed_by`) or the value is unchanged. `None` when a base field
/// has no partner (the side deleted it). Returns the side field index of each base field.
fn align_fields(base: &[(usize, &str, &str)], side: &[(usize, &str, &str)]) -> Option<Vec<usize>> {
    let repeated =
        |list: &[(usize, &str, &str)], key: &str| list.iter().filter(|f| f.1 == key).count() > 1;
    let mut used = vec![false; side.len()];
    let mut out = Vec::with_capacity(base.len());
    for &(_, key, value) in base {
        let exact = (0..side.len()).find(|&j| !used[j] && side[j].1 == key && side[j].2 == value);
        let pick = match exact {
            Some(j) => Some(j),
            None if !repeated(base, key) && !repeated(side, key) => {
                (0..side.len()).find(|&j| !used[j] && side[j].1 == key)
            }
            None => None,
        }?;
        used[pick] = true;
        out.push(pick);
    }
    Some(out)
}

/// The literal text of a record with the given extra fields' lines taken out: equal for base
/// and a side when the side changed nothing but values and appended field lines.
fn skeleton(rec: &Record, extras: &[usize]) -> Option<String> {
    let mut out = String::new();
    for (i, seg) in rec.segments.iter().enumerate() {
        match seg {
            Segment::Lit(l) => out.push_str(l),
            Segment::Field { .. } if extras.contains(&i) => {
                // The field's line: its prefix since the last line ending, and its line ending.
                let cut = out.rfind('\n').map_or(0, |p| p + 1);
                out.truncate(cut);
                out.push('\u{1}');
            }
            Segment::Field { .. } => out.push('\u{0}'),
            Segment::Body(b) => out.push_str(b),
        }
    }
    // Each extra line's own line ending follows its marker; drop both.
    let mut cleaned = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1}' {
            // Skip to and including the next line ending.
            for n in chars.by_ref() {
                if n == '\n' {
                    break;
                }
            }
        } else {
            cleaned.push(c);
        }
    }
    Some(cleaned)
}

/// The line of field `seg` of `rec` as insertable segments: its prefix since the last line
/// ending and the field.
fn field_line(rec: &Record, seg: usize) -> Vec<Segment> {
    let prefix = match seg.checked_sub(1).and_then(|p| rec.segments.get(p)) {
        Some(Segment::Lit(l)) => l.rsplit('\n').next().unwrap_or(""),
        _ => "",
    };
    vec![Segment::Lit(prefix.into()), rec.segments[seg].clone()]
}

/// The merge of [`merge_fields`] with fields paired by key and value rather than by position.
fn merge_fields_by_key(o: &Record, x: &Record, y: &Record) -> Option<Merged> {
    if o.body() != x.body() && o.body() != y.body() && x.body() != y.body() {
        return None;
    }
    let (fo, fx, fy) = (field_list(o), field_list(x), field_list(y));
    let ax = align_fields(&fo, &fx)?;
    let ay = align_fields(&fo, &fy)?;
    let extras = |fl: &[(usize, &str, &str)], aligned: &[usize]| -> Vec<usize> {
        (0..fl.len()).filter(|j| !aligned.contains(j)).collect()
    };
    let (ex, ey) = (extras(&fx, &ax), extras(&fy, &ay));
    let seg_of = |fl: &[(usize, &str, &str)], idx: &[usize]| -> Vec<usize> {
        idx.iter().map(|&j| fl[j].0).collect()
    };
    let base_skeleton = skeleton(o, &[])?;
    if skeleton(x, &seg_of(&fx, &ex))? != base_skeleton
        || skeleton(y, &seg_of(&fy, &ey))? != base_skeleton
    {
        return None;
    }
    let mut out = x.clone();
    if out.body() == o.body() {
        if let Some(b) = y.body() {
            out.set_body(b);
        }
    }
    for (i, &(_, key, base_v)) in fo.iter().enumerate() {
        let ours_v = fx[ax[i]].2;
        let theirs_v = fy[ay[i]].2;
        let merged_v = if ours_v == theirs_v || theirs_v == base_v {
            ours_v.to_string()
        } else if ours_v == base_v {
            theirs_v.to_string()
        } else if let Some(v) = union_appended_lines(base_v, ours_v, theirs_v) {
            v
        } else if key == "confirmations" {
            add_confirmations(base_v, ours_v, theirs_v)?
        } else {
            return None;
        };
        if let Segment::Field { value, .. } = &mut out.segments[fx[ax[i]].0] {
            *value = merged_v.into();
        }
    }
    // Theirs' extra fields that ours does not hold already, after ours' last field.
    let ours_extra: HashSet<(&str, &str)> = ex.iter().map(|&j| (fx[j].1, fx[j].2)).collect();
    let eol = last_field_eol(&x.segments);
    let mut lines: Vec<Segment> = Vec::new();
    for &j in &ey {
        if ours_extra.contains(&(fy[j].1, fy[j].2)) {
            continue;
        }
        let mut line = field_line(y, fy[j].0);
        if !lines.is_empty() {
            if let Some(Segment::Lit(p)) = line.first_mut() {
                *p = format!("{eol}{p}").into();
            }
        }
        lines.extend(line);
    }
    if !lines.is_empty() {
        crate::mutate::insert_lines_after_last_field(&mut out.segments, lines, eol);
    }
    Some(Merged::Take(out))
}

fn merge_fields_by_position(o: &Record, x: &Record, y: &Record) -> Merged {
    let conflict =
        |why: &str| Merged::Conflict { ours: x.clone(), theirs: y.clone(), why: why.into() };
    let (so, vo) = split(o);
    let (sx, vx) = split(x);
    let (sy, vy) = split(y);
    // Each side may have appended whole field lines at the end; the shared prefix must have the
    // base's shape.
    let n = vo.len();
    if vx.len() < n
        || vy.len() < n
        || !same_prefix_shape(&so, &sx, n)
        || !same_prefix_shape(&so, &sy, n)
    {
        return conflict("both sides changed its layout differently");
    }
    let mut out = x.clone();
    let mut field_idx = 0;
    for seg in &mut out.segments {
        let Segment::Field { key, value } = seg else { continue };
        if field_idx >= n {
            break;
        }
        let (base_v, ours_v, theirs_v) = (&vo[field_idx].1, &vx[field_idx].1, &vy[field_idx].1);
        let merged_v = if ours_v == theirs_v || theirs_v == base_v {
            ours_v.clone()
        } else if ours_v == base_v {
            theirs_v.clone()
        } else if let Some(v) = union_appended_lines(base_v, ours_v, theirs_v) {
            v.into()
        } else if &**key == "confirmations" {
            match add_confirmations(base_v, ours_v, theirs_v) {
                Some(v) => v.into(),
                None => return conflict("'confirmations' changed differently on both sides"),
            }
        } else {
            return conflict(&format!("'{key}' changed differently on both sides"));
        };
        *value = merged_v;
        field_idx += 1;
    }
    // Theirs' appended field lines go after ours' (identical appends once).
    if vy.len() > n {
        let ours_appended: HashSet<(FieldKey, SegmentText)> = vx[n..].iter().cloned().collect();
        let theirs_tail = tail_after_field(&y.segments, n);
        let mut extra = Vec::new();
        let mut skip_line = false;
        for seg in theirs_tail {
            match &seg {
                Segment::Field { key, value } => {
                    // An append both sides made is kept once: drop theirs' copy with its line.
                    skip_line = ours_appended.contains(&(key.clone(), value.clone()));
                    if skip_line {
                        if let Some(Segment::Lit(prefix)) = extra.last() {
                            if !prefix.contains('\n') {
                                extra.pop();
                            }
                        }
                        continue;
                    }
                    extra.push(seg.clone());
                }
                Segment::Lit(l) if skip_line => {
                    // Keep only what follows the skipped field's line ending.
                    if let Some(p) = l.find('\n') {
                        extra.push(Segment::Lit(l[p + 1..].into()));
                    }
                    skip_line = false;
                }
                _ => extra.push(seg.clone()),
            }
        }
        if !extra.is_empty() {
            let eol = last_field_eol(&out.segments);
            crate::mutate::insert_lines_after_last_field(&mut out.segments, extra, eol);
        }
    }
    Merged::Take(out)
}

fn same_prefix_shape(base: &[Segment], side: &[Segment], fields: usize) -> bool {
    let cut = |s: &[Segment]| -> usize {
        let mut seen = 0;
        for (i, seg) in s.iter().enumerate() {
            if matches!(seg, Segment::Field { .. }) {
                seen += 1;
                if seen == fields {
                    return i + 1;
                }
            }
        }
        s.len()
    };
    if fields == 0 {
        return true;
    }
    base[..cut(base)] == side[..cut(side)]
}

/// The segments of a record after its `n`-th field's line: the appended field lines, without
/// the trailing text that every version shares (blank lines before the next record).
fn tail_after_field(segs: &[Segment], n: usize) -> Vec<Segment> {
    let mut seen = 0;
    let mut start = segs.len();
    for (i, seg) in segs.iter().enumerate() {
        if matches!(seg, Segment::Field { .. }) {
            seen += 1;
            if seen == n {
                start = i + 1;
                break;
            }
        }
    }
    let end = after_last_field(segs);
    if start >= end {
        return Vec::new();
    }
    // The literal right after field n starts with that field's line ending, which stays put.
    let mut tail: Vec<Segment> = segs[start..end].to_vec();
    if let Some(Segment::Lit(first)) = tail.first_mut() {
        match first.find('\n') {
            Some(p) => *first = first[p + 1..].into(),
            None => first.clear(),
        }
    }
    tail
}

/// The line ending of a record's last field (LF when it has none).
fn last_field_eol(segs: &[Segment]) -> &'static str {
    let after =
        segs.iter().rposition(|s| matches!(s, Segment::Field { .. })).and_then(|i| segs.get(i + 1));
    match after {
        Some(Segment::Lit(l))
            if l.split('\n').next().is_some_and(|h| h.ends_with('\r') && l.contains('\n')) =>
        {
            "\r\n"
        }
        _ => "\n",
    }
}

/// The index just past the last field.
fn after_last_field(segs: &[Segment]) -> usize {
    let Some(last) = segs.iter().rposition(|s| matches!(s, Segment::Field { .. })) else {
        return segs.len();
    };
    // The new lines go after the last field's own line ending, which starts the next literal.
    last + 1
}

/// A multi-line field both sides only added whole lines to (a queue item's `evidence` list
/// gains a `- task …` line per confirmation): ours, then theirs' lines ours lacks. Lines are
/// compared as a set, not as a prefix, so after criss-cross merges the sides may hold the same
/// lines in different orders. `None` when the field is one line or a side removed a line.
fn union_appended_lines(base: &str, ours: &str, theirs: &str) -> Option<String> {
    if !ours.contains('\n') && !theirs.contains('\n') {
        return None;
    }
    let (b, o, t): (Vec<&str>, Vec<&str>, Vec<&str>) =
        (base.split('\n').collect(), ours.split('\n').collect(), theirs.split('\n').collect());
    // The first line (the text after `key:`) is a value of its own, not a list item.
    if b[0] != o[0] || b[0] != t[0] {
        return None;
    }
    let rest = |v: &[&str]| -> Vec<String> {
        v[1..].iter().filter(|l| !l.trim().is_empty()).map(|l| (*l).to_string()).collect()
    };
    let (b, o, t) = (rest(&b), rest(&o), rest(&t));
    if !b.iter().all(|l| o.contains(l) && t.contains(l)) {
        return None;
    }
    let mut out = ours.to_string();
    for l in t.iter().filter(|l| !o.contains(l) && !b.contains(l)) {
        if out.ends_with('\n') {
            out.push_str(l);
            out.push('\n');
        } else {
            out.push('\n');
            out.push_str(l);
        }
    }
    Some(out)
}

fn add_confirmations(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let parse = |s: &str| -> Option<(u32, u32)> {
        let (n, d) = s.trim().split_once('/')?;
        Some((n.trim().parse().ok()?, d.trim().parse().ok()?))
    };
    let (bn, bd) = parse(base)?;
    let (on, od) = parse(ours)?;
    let (tn, td) = parse(theirs)?;
    if bd != od || bd != td {
        return None;
    }
    let n = (bn + on.saturating_sub(bn) + tn.saturating_sub(bn)).min(bd);
    Some(format!("{n}/{bd}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Q\n\n## VP-2026-0001\n\n- type: P\n- status: pending\n- confirmations: 1/2\n- created_by: task a\n\n## VP-2026-0002\n\n- type: P\n- status: pending\n- confirmations: 0/2\n\n";

    #[test]
    fn confirmations_from_both_sides_are_unioned() {
        let ours = BASE.replacen(
            "- confirmations: 1/2\n- created_by: task a\n",
            "- confirmations: 2/2\n- created_by: task a\n- confirmed_by: task b\n",
            1,
        );
        let theirs = BASE.replacen(
            "- confirmations: 1/2\n- created_by: task a\n",
            "- confirmations: 2/2\n- created_by: task a\n- confirmed_by: task c\n",
            1,
        );
        let out = merge_texts(FileRole::Queue, "q.md", BASE, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert!(out.text.contains("- confirmations: 2/2\n- created_by: task a\n- confirmed_by: task b\n- confirmed_by: task c\n\n## VP-2026-0002"), "{}", out.text);
    }

    #[test]
    fn one_sided_changes_and_additions_merge_cleanly() {
        let ours = BASE.replacen("- confirmations: 0/2", "- confirmations: 1/2", 1);
        let theirs = format!("{BASE}## VP-2026-0003\n\n- type: R\n- status: pending\n\n");
        let out = merge_texts(FileRole::Queue, "q.md", BASE, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty());
        assert_eq!(out.text, format!("{ours}## VP-2026-0003\n\n- type: R\n- status: pending\n\n"));
    }

    #[test]
    fn the_same_field_changed_differently_is_a_conflict_confined_to_that_record() {
        let ours = BASE.replacen(
            "- status: pending\n- confirmations: 0/2",
            "- status: merged\n- confirmations: 0/2",
            1,
        );
        let theirs = BASE.replacen(
            "- status: pending\n- confirmations: 0/2",
            "- status: rejected\n- confirmations: 0/2",
            1,
        );
        let out = merge_texts(FileRole::Queue, "q.md", BASE, &ours, &theirs).expect("merge");
        assert_eq!(
            out.conflicts,
            ["queue_item 'VP-2026-0002': 'status' changed differently on both sides"]
        );
        let before_marker = &out.text[..out.text.find("<<<<<<<").expect("marker")];
        assert_eq!(before_marker, &BASE[..BASE.find("## VP-2026-0002").expect("item")]);
        assert!(out.text.contains("- status: merged") && out.text.contains("- status: rejected"));
    }

    const STATS: &str = "# S\n\n## 2. hits\n\n| entry | hits | last_hit_task | note |\n|-------|------|---------------|------|\n| PL-a | 2 | task-0 | kept |\n| PL-b | 1 | task-0 |  |\n\n## 3. next\n";

    fn row(entry: &str, hits: u32, task: &str, note: &str) -> String {
        format!("| {entry} | {hits} | {task} | {note} |\n")
    }

    fn stats_with(rows: &[String]) -> String {
        STATS.replacen(
            "| PL-a | 2 | task-0 | kept |\n| PL-b | 1 | task-0 |  |\n",
            &rows.concat(),
            1,
        )
    }

    #[test]
    fn hit_counts_bumped_on_both_sides_add_up_and_the_result_is_symmetric() {
        let ours = stats_with(&[row("PL-a", 5, "task-x", "kept"), row("PL-b", 1, "task-0", "")]);
        let theirs = stats_with(&[row("PL-a", 4, "task-y", "kept"), row("PL-b", 3, "task-y", "")]);
        let ab = merge_texts(FileRole::Stats, "s.md", STATS, &ours, &theirs).expect("merge");
        assert!(ab.conflicts.is_empty(), "{:?}", ab.conflicts);
        // 2 + 3 + 2 for PL-a; PL-b changed on one side only.
        let want = stats_with(&[row("PL-a", 7, "task-y", "kept"), row("PL-b", 3, "task-y", "")]);
        assert_eq!(ab.text, want);
        let ba = merge_texts(FileRole::Stats, "s.md", STATS, &theirs, &ours).expect("merge");
        assert_eq!(ba.text, want, "either side merging gives the same table");
    }

    #[test]
    fn a_hit_row_added_on_both_sides_becomes_one_row_with_both_counts() {
        let base_rows = [row("PL-a", 2, "task-0", "kept"), row("PL-b", 1, "task-0", "")];
        let with = |extra: String| {
            let mut rows = base_rows.to_vec();
            rows.push(extra);
            stats_with(&rows)
        };
        let ours = with(row("PL-new", 2, "task-x", ""));
        let theirs = with(row("PL-new", 1, "task-y", ""));
        let out = merge_texts(FileRole::Stats, "s.md", STATS, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert_eq!(out.text, with(row("PL-new", 3, "task-y", "")));
    }

    #[test]
    fn other_hit_cells_changed_differently_still_conflict() {
        let ours = stats_with(&[row("PL-a", 3, "task-0", "mine"), row("PL-b", 1, "task-0", "")]);
        let theirs = stats_with(&[row("PL-a", 3, "task-0", "yours"), row("PL-b", 1, "task-0", "")]);
        let out = merge_texts(FileRole::Stats, "s.md", STATS, &ours, &theirs).expect("merge");
        assert_eq!(out.conflicts, ["hit_row 'PL-a': 'note' changed differently on both sides"]);
    }

    fn log_line(ts: &str, query: &str) -> String {
        format!("{{\"ts\": \"{ts}\", \"query\": \"{query}\", \"returned\": [\"PL-a\"]}}\n")
    }

    #[test]
    fn log_lines_appended_on_both_sides_interleave_by_time_whichever_side_merges() {
        let base = log_line("2026-01-01T00:00:00Z", "base");
        let ours = [
            base.clone(),
            log_line("2026-01-02T00:00:00Z", "a1"),
            log_line("2026-01-04T00:00:00Z", "a2"),
            log_line("2026-01-04T00:00:00Z", "a0"),
        ]
        .concat();
        let theirs = [
            base.clone(),
            log_line("2026-01-03T00:00:00Z", "b1"),
            log_line("2026-01-04T00:00:00Z", "b2"),
        ]
        .concat();
        let ab = merge_texts(FileRole::SearchLog, "l.jsonl", &base, &ours, &theirs).expect("merge");
        let ba = merge_texts(FileRole::SearchLog, "l.jsonl", &base, &theirs, &ours).expect("merge");
        assert!(ab.conflicts.is_empty() && ba.conflicts.is_empty());
        assert_eq!(ab.text, ba.text);
        let queries: Vec<&str> = ab
            .text
            .lines()
            .map(|l| {
                l.split("\"query\": \"").nth(1).and_then(|q| q.split('"').next()).unwrap_or("")
            })
            .collect();
        // Time order across sides; within one side its own order stays ("a2" before "a0").
        assert_eq!(queries, ["base", "a1", "b1", "a2", "a0", "b2"]);
    }

    const INDEX: &str =
        "# I\n\n| ID | 一句话 | 文件 |\n|---|---|---|\n| PL-1 | one | a.md |\n\n## after\n";

    #[test]
    fn index_rows_added_on_both_sides_are_all_kept() {
        let ours = INDEX.replacen(
            "| PL-1 | one | a.md |\n",
            "| PL-1 | one | a.md |\n| PL-2 | two | a.md |\n",
            1,
        );
        let theirs = INDEX.replacen(
            "| PL-1 | one | a.md |\n",
            "| PL-1 | one | a.md |\n| PL-3 | three | a.md |\n",
            1,
        );
        let out = merge_texts(FileRole::Index, "INDEX.md", INDEX, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert!(
            out.text.contains("| PL-2 | two | a.md |\n")
                && out.text.contains("| PL-3 | three | a.md |\n"),
            "{}",
            out.text
        );
        let (pf, diags) = parse_file(FileRole::Index, "INDEX.md", &out.text);
        assert!(diags.iter().all(|d| !d.is_error()));
        assert_eq!(pf.records.len(), 3);
    }

    #[test]
    fn evidence_lines_appended_on_both_sides_are_both_kept() {
        let base = "# Q\n\n## VP-2026-0001\n\n- type: P\n- evidence:\n  - first\n- status: pending\n- confirmations: 1/2\n\n";
        let side = |who: &str| {
            base.replacen("  - first\n", &format!("  - first\n  - task {who}：seen\n"), 1).replacen(
                "- status: pending\n- confirmations: 1/2\n",
                "- status: verified\n- confirmations: 2/2\n",
                1,
            )
        };
        let out =
            merge_texts(FileRole::Queue, "q.md", base, &side("a"), &side("b")).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert!(out.text.contains("  - first\n  - task a：seen\n  - task b：seen\n- status: verified\n- confirmations: 2/2\n"), "{}", out.text);
    }

    #[test]
    fn criss_cross_merges_whose_sides_hold_other_clones_lines_in_other_orders_stay_clean() {
        // Base: clone a's confirmation merged. Ours: c's, then a's (c merged a). Theirs: b's,
        // then a's (b merged a).
        let item = |lines: &[&str], by: &[&str]| {
            let evidence: String = lines.iter().map(|l| format!("  - task {l}：seen\n")).collect();
            let confirmed: String =
                by.iter().map(|b| format!("- confirmed_by: task {b}\n")).collect();
            format!("# Q\n\n## VP-2026-0001\n\n- type: P\n- evidence:\n  - first\n{evidence}- status: verified\n- confirmations: 2/2\n- created_by: task z\n{confirmed}\n")
        };
        let base = item(&["a"], &["a"]);
        let ours = item(&["c", "a"], &["c", "a"]);
        let theirs = item(&["b", "a"], &["b", "a"]);
        let out = merge_texts(FileRole::Queue, "q.md", &base, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert_eq!(out.text, item(&["c", "a", "b"], &["c", "a", "b"]));
    }

    #[test]
    fn change_rows_appended_on_both_sides_are_matched_by_text_not_by_row_number() {
        let log = |rows: &[&str]| {
            let body: String =
                rows.iter().map(|r| format!("| 2026-11-29 | evolver | add {r} |\n")).collect();
            format!("# S\n\n## 4. 变更日志\n\n| date | by | change |\n|---|---|---|\n{body}\n")
        };
        let base = log(&["t0", "a"]);
        let ours = log(&["t0", "c", "a"]);
        let theirs = log(&["t0", "b", "a"]);
        let out = merge_texts(FileRole::Stats, "s.md", &base, &ours, &theirs).expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        for r in ["t0", "a", "b", "c"] {
            assert_eq!(out.text.matches(&format!("add {r} |")).count(), 1, "{}", out.text);
        }
    }

    #[test]
    fn identical_hit_rows_from_different_clones_still_add_up() {
        // Two clones each added one hit to the row since the base; their rows read the same.
        let bumped = stats_with(&[row("PL-a", 3, "task-x", "kept"), row("PL-b", 2, "task-x", "")]);
        let out = merge_texts(
            FileRole::Stats,
            "s.md",
            STATS,
            &bumped,
            &bumped.replace("| PL-b | 2 |", "| PL-b | 1 |"),
        )
        .expect("merge");
        assert!(out.conflicts.is_empty(), "{:?}", out.conflicts);
        assert!(out.text.contains("| PL-a | 4 | task-x | kept |"), "{}", out.text);
    }
}
