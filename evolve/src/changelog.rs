//! The `stats.md` change log (§4) as typed events.
//!
//! Every evolution operation appends one [`ChangeEvent`]: its date, who acted, what kind of
//! change it was, the ids it touched, a free detail and the task. This module is the only
//! place that turns events into table rows ([`append`]) and rows back into events ([`parse`]);
//! `report --task` counts events by their [`ChangeKind`], never by the wording of a cell.
//!
//! A row is `| date | by | change |` where `change` reads `{verb} {subject}{detail}（task: {task}）`,
//! the format the evolver already wrote by hand. Every part is written through
//! [`escape_cell`], so a `|`, a newline or a backtick in a task id, an actor or a reason stays
//! inside its cell, and [`parse`] gives the original text back. Rows a person wrote in other
//! words parse as `None` and are left alone.

use std::collections::HashMap;

use evokb_export::layout::Layout;
use evokb_export::mutate::commit_file;
use evokb_export::parse::table::{escape_cell, row_segments, split_row, unescape_cell, TableSpec};
use evokb_export::{parse, MutateError};
use evokb_store::{Kind, LayoutItem, Record, Segment, WriteTxn};

/// Who is acting, for which task, on which day.
#[derive(Debug, Clone, Copy)]
pub struct Actor<'a> {
    /// The task the change comes from.
    pub task: &'a str,
    /// `evolver` or `human`.
    pub by: &'a str,
    /// Today, `YYYY-MM-DD`.
    pub today: &'a str,
}

macro_rules! change_kinds {
    ($( $(#[$doc:meta])* $variant:ident = $verb:literal, )+) => {
        /// What an evolution operation did.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ChangeKind {
            $( $(#[$doc])* $variant, )+
        }

        impl ChangeKind {
            /// Every kind of change.
            pub const ALL: &'static [ChangeKind] = &[$(ChangeKind::$variant),+];

            /// The verb that starts the change cell.
            pub fn verb(self) -> &'static str {
                match self {
                    $(ChangeKind::$variant => $verb,)+
                }
            }
        }
    };
}

change_kinds! {
    /// `add`: entries added under the add rules.
    Add = "add",
    /// `negate`: a negative (dead-end) entry added.
    Negate = "negate",
    /// `update`: fields of an entry changed in place.
    Update = "update",
    /// `deprecate`: an entry marked superseded.
    Deprecate = "deprecate",
    /// `consolidate`: entries merged into one.
    Consolidate = "consolidate",
    /// `queue add`: a proposal queued.
    QueueAdd = "queue add",
    /// `queue confirm`: a confirmation recorded.
    QueueConfirm = "queue confirm",
    /// `queue reject`: a proposal rejected.
    QueueReject = "queue reject",
    /// `queue expire`: proposals expired.
    QueueExpire = "queue expire",
    /// `queue merge`: a verified proposal performed.
    QueueMerge = "queue merge",
    /// `queue approve`: a Tier 2 proposal approved.
    QueueApprove = "queue approve",
    /// `apply`: an approved Tier 2 diff applied.
    Apply = "apply",
    /// `apply failed`: a Tier 2 diff that could not be applied (a conflict).
    ApplyFailed = "apply failed",
    /// `clear`: a person cleared a quarantined entry.
    Clear = "clear",
}

impl ChangeKind {
    /// Whether the change put new knowledge into the knowledge base (Tier 0 merges).
    pub fn merges(self) -> bool {
        matches!(
            self,
            ChangeKind::Add | ChangeKind::Negate | ChangeKind::QueueMerge | ChangeKind::Apply
        )
    }
}

/// One change-log event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeEvent {
    /// `YYYY-MM-DD`.
    pub date: String,
    /// Who acted (`evolver`, `human`).
    pub by: String,
    /// What kind of change.
    pub kind: ChangeKind,
    /// The ids touched, and anything else that follows the verb (`X → topic.md`).
    pub subject: String,
    /// The task the change comes from.
    pub task: String,
}

const TASK_OPEN: &str = "（task: ";
const TASK_CLOSE: &str = "）";
/// How [`TASK_OPEN`] is written inside a subject or a task, so the real marker is always the
/// last one in the cell.
const TASK_OPEN_QUOTED: &str = "（task\\: ";

fn quote_marker(s: &str) -> String {
    s.replace(TASK_OPEN, TASK_OPEN_QUOTED)
}

fn unquote_marker(s: &str) -> String {
    s.replace(TASK_OPEN_QUOTED, TASK_OPEN)
}

impl ChangeEvent {
    /// The text of the `change` cell, escaped.
    pub fn change_cell(&self) -> String {
        let subject = if self.subject.is_empty() {
            String::new()
        } else {
            format!(" {}", quote_marker(&self.subject))
        };
        let task = quote_marker(&self.task);
        escape_cell(&format!("{}{subject}{TASK_OPEN}{task}{TASK_CLOSE}", self.kind.verb()))
    }

    /// The whole table row, without its line ending.
    pub fn row(&self) -> String {
        format!(
            "| {} | {} | {} |",
            escape_cell(&self.date),
            escape_cell(&self.by),
            self.change_cell()
        )
    }
}

/// The event a change-log row records, or `None` for a row written in other words.
pub fn parse(row: &Record) -> Option<ChangeEvent> {
    if row.kind != Kind::ChangeRow {
        return None;
    }
    let change = unescape_cell(row.field("change")?.trim());
    let inner = change.strip_suffix(TASK_CLOSE)?;
    let at = inner.rfind(TASK_OPEN)?;
    let (head, task) = (&inner[..at], &inner[at + TASK_OPEN.len()..]);
    // The longest verb that starts the cell: `apply failed` before `apply`.
    let kind = ChangeKind::ALL
        .iter()
        .copied()
        .filter(|k| head == k.verb() || head.starts_with(&format!("{} ", k.verb())))
        .max_by_key(|k| k.verb().len())?;
    Some(ChangeEvent {
        date: unescape_cell(row.field("date").unwrap_or("").trim()),
        by: unescape_cell(row.field("by").unwrap_or("").trim()),
        kind,
        subject: unquote_marker(head[kind.verb().len()..].trim_start()),
        task: unquote_marker(task),
    })
}

/// Appends `event` as a row after the change log's last row, in the open transaction. A
/// `stats.md` without a change-log table is left alone.
pub fn append(w: &mut WriteTxn, event: &ChangeEvent) -> Result<(), MutateError> {
    let stats = Layout::of(&*w)?.stats;
    let Some(mut file) = w.file(&stats)? else { return Ok(()) };
    let mut last = None;
    let mut same_key = 0;
    let (date, by) = (escape_cell(&event.date), escape_cell(&event.by));
    for (i, item) in file.items.iter().enumerate() {
        if let LayoutItem::Record(k) = item {
            if let Some(r) = w.record(k)? {
                if r.kind == Kind::ChangeRow {
                    last = Some(i);
                    if r.field("date").map(str::trim) == Some(date.as_str())
                        && r.field("by").map(str::trim) == Some(by.as_str())
                    {
                        same_key += 1;
                    }
                }
            }
        }
    }
    let Some(at) = last else { return Ok(()) };
    let line = event.row();
    let row = split_row(&line).ok_or_else(|| MutateError::InvalidValue {
        field: "change".into(),
        reason: "the change-log row does not split into cells".into(),
    })?;
    let spec = TableSpec {
        kind: Kind::ChangeRow,
        keys: vec!["date".into(), "by".into(), "change".into()],
        id_cols: vec![0, 1],
    };
    let base = format!("{date} {by}");
    let id = if same_key == 0 { base } else { format!("{base} #{}", same_key + 1) };
    let rec = Record {
        kind: Kind::ChangeRow,
        id,
        file: stats.clone().into(),
        segments: row_segments(&row, "\n", &spec),
    };
    let mut overrides = HashMap::new();
    // The new row goes after the last one; if the table's last row is the file's last line
    // without a newline, give it one first.
    if let Some(LayoutItem::Record(k)) = file.items.get(at) {
        if let Some(mut prev) = w.record(k)? {
            if !prev.text().ends_with('\n') {
                prev.segments.push(Segment::Lit("\n".into()));
                prev.segments = parse::normalize(prev.segments);
                overrides.insert(*k, prev);
            }
        }
    }
    file.items.insert(at + 1, LayoutItem::Record(rec.case_hash()));
    overrides.insert(rec.case_hash(), rec);
    commit_file(w, file, &overrides)?;
    Ok(())
}

/// Appends the event of `kind` on `subject` by `actor`.
pub fn log(
    w: &mut WriteTxn,
    actor: &Actor<'_>,
    kind: ChangeKind,
    subject: &str,
) -> Result<(), MutateError> {
    append(
        w,
        &ChangeEvent {
            date: actor.today.to_string(),
            by: actor.by.to_string(),
            kind,
            subject: subject.to_string(),
            task: actor.task.to_string(),
        },
    )
}

/// Every event of the change log whose task is `task`, in file order.
pub fn events_of_task(
    src: &dyn evokb_export::render::RecordSource,
    task: &str,
) -> Result<Vec<ChangeEvent>, MutateError> {
    let Some(file) = src.layout(&Layout::of(src)?.stats)? else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for item in &file.items {
        let LayoutItem::Record(k) = item else { continue };
        let Some(rec) = src.get(k)? else { continue };
        if let Some(ev) = parse(&rec) {
            if ev.task == task {
                out.push(ev);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_record(line: &str) -> Record {
        let row = split_row(line).expect("row");
        let spec = TableSpec {
            kind: Kind::ChangeRow,
            keys: vec!["date".into(), "by".into(), "change".into()],
            id_cols: vec![0, 1],
        };
        Record {
            kind: Kind::ChangeRow,
            id: "x".into(),
            file: "s".into(),
            segments: row_segments(&row, "\n", &spec),
        }
    }

    #[test]
    fn events_round_trip_through_rows_whatever_their_text() {
        for (task, subject) in [
            ("evil | extra", "PL-1 → attention.md"),
            ("line one\nline two", "VP-2026-0001：reason with `code` and a \\ backslash"),
            ("t", ""),
            ("（task: nested）", "x"),
        ] {
            for kind in ChangeKind::ALL {
                let ev = ChangeEvent {
                    date: "2026-12-01".into(),
                    by: "human".into(),
                    kind: *kind,
                    subject: subject.into(),
                    task: task.into(),
                };
                let line = ev.row();
                assert!(!line.contains('\n'), "{line}");
                let rec = row_record(&line);
                assert_eq!(rec.fields().count(), 3, "{line}");
                assert_eq!(parse(&rec).as_ref(), Some(&ev), "{line}");
            }
        }
    }

    #[test]
    fn a_reason_that_says_failed_is_not_a_failed_apply() {
        let ev = ChangeEvent {
            date: "d".into(),
            by: "human".into(),
            kind: ChangeKind::Deprecate,
            subject: "X（被 the run failed twice 取代）".into(),
            task: "t".into(),
        };
        assert_eq!(parse(&row_record(&ev.row())).map(|e| e.kind), Some(ChangeKind::Deprecate));
    }

    #[test]
    fn rows_in_other_words_are_not_events() {
        assert_eq!(parse(&row_record("| 2026-09-01 | 初始化 | 创建骨架 |")), None);
    }
}
