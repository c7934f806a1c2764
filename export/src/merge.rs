//! The record-level three-way merge behind `evokb merge-driver`.
//!
//! Git hands the driver three versions of a managed file. Each is parsed into records; records
//! are merged by key, fields by name, and the result is rendered by concatenation, so the merged
//! file keeps every untouched byte:
//!
//! - a record changed on one side takes that change; added on either side, it is kept;
//! - when both sides changed the same record, fields are merged one by one; fields that only one
//!   side appended (a second `confirmed_by`, say) are all kept; a queue item's `confirmations`
//!   count adds up both sides' confirmations, capped at the threshold (`n/2`);
//! - rows without ids of their own (change log, search events) added on both sides are both kept,
//!   even when their positional ids collide, since the re-parse numbers them again;
//! - the same field changed differently on both sides is a conflict confined to that record: git
//!   conflict markers surround that record only, and the driver exits non-zero.
//!
//! The merged layout starts from ours; theirs' new records are placed after the record that
//! precedes them in theirs, and records theirs deleted (and ours left alone) are dropped.

use std::collections::{HashMap, HashSet};

use evokb_store::{CaseHash, Kind, LayoutItem, Record, Segment};

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
        for pr in pf.records {
            records.entry(pr.record.case_hash()).or_insert(pr.record);
        }
        Version { records, items: pf.layout.items }
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

/// A record as fields: the structure (everything but field values) and the values.
fn split(rec: &Record) -> (Vec<Segment>, Vec<(String, String)>) {
    let mut shape = Vec::new();
    let mut values = Vec::new();
    for seg in &rec.segments {
        match seg {
            Segment::Field { key, value } => {
                shape.push(Segment::Field { key: key.clone(), value: String::new() });
                values.push((key.clone(), value.clone()));
            }
            other => shape.push(other.clone()),
        }
    }
    (shape, values)
}

/// Merges a record both sides changed: field by field when the shapes allow it.
fn merge_fields(o: &Record, x: &Record, y: &Record) -> Merged {
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
        } else if key == "confirmations" {
            match add_confirmations(base_v, ours_v, theirs_v) {
                Some(v) => v,
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
        let ours_appended: HashSet<(String, String)> = vx[n..].iter().cloned().collect();
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
                        extra.push(Segment::Lit(l[p + 1..].to_string()));
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
            Some(p) => *first = first[p + 1..].to_string(),
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
}
