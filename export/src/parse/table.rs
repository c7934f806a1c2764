//! Markdown pipe tables: splitting rows into cells, and scanning a file for tables whose rows
//! become records. Used by `INDEX.md` and `stats.md`.
//!
//! A table starts at a row followed by a delimiter row (`|---|---|`). The header decides, via a
//! caller-supplied classifier, whether the table's rows are records and of which kind. Rows stay
//! in their table until the next heading, even across blank lines, because the real change log
//! has a stray blank line in the middle of its table.

use std::collections::HashMap;

use evokb_store::{Kind, Record};

use super::{FileBuilder, SegBuilder};
use crate::diag::Diagnostic;
use crate::text::{lines, Line};

/// One cell of a row: its padding and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell<'a> {
    /// Whitespace before the value.
    pub lead: &'a str,
    /// The value.
    pub value: &'a str,
    /// Whitespace after the value.
    pub trail: &'a str,
}

/// A row split into the text before the first cell, the cells, and the text after the last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    /// Leading whitespace and the opening `|`.
    pub prefix: &'a str,
    /// The cells, each followed by a `|` except possibly the last.
    pub cells: Vec<Cell<'a>>,
    /// Whether the last cell is closed by a `|`.
    pub closed: bool,
    /// Whatever follows the closing `|` (usually nothing, or spaces).
    pub suffix: &'a str,
}

/// Splits a table row. Pipes escaped as `\|` do not separate cells.
pub fn split_row(content: &str) -> Option<Row<'_>> {
    let start = content.len() - content.trim_start().len();
    if !content[start..].starts_with('|') {
        return None;
    }
    let prefix = &content[..start + 1];
    let mut cells = Vec::new();
    let bytes = content.as_bytes();
    let mut cell_start = start + 1;
    let mut i = cell_start;
    let mut closed = false;
    let mut suffix_start = content.len();
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'|' => {
                cells.push(cell(&content[cell_start..i]));
                cell_start = i + 1;
                i += 1;
                if content[cell_start..].trim().is_empty() {
                    closed = true;
                    suffix_start = cell_start;
                    break;
                }
            }
            _ => i += 1,
        }
    }
    if !closed {
        if cell_start < content.len() {
            cells.push(cell(&content[cell_start..]));
        }
        suffix_start = content.len();
    }
    Some(Row { prefix, cells, closed, suffix: &content[suffix_start..] })
}

/// Writes any text as the value of one table cell: `\`, `|` and backticks are backslash-escaped (as
/// CommonMark tables read them) and line breaks become `<br>`, so the value always stays one
/// cell on one line. Surrounding whitespace is trimmed: the parser gives it to the cell's
/// padding. [`unescape_cell`] gives the (trimmed) text back.
pub fn escape_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            // A literal `<` is escaped, so `<br>` always means a line break.
            '<' => out.push_str("\\<"),
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str("<br>");
            }
            '\n' => out.push_str("<br>"),
            c => out.push(c),
        }
    }
    out
}

/// The text a cell written by [`escape_cell`] stands for.
pub fn unescape_cell(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    let mut rest = cell;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("<br>") {
            out.push('\n');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\\\") {
            out.push('\\');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\|") {
            out.push('|');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\`") {
            out.push('`');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\<") {
            out.push('<');
            rest = r;
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn cell(raw: &str) -> Cell<'_> {
    let value = raw.trim();
    if value.is_empty() {
        return Cell { lead: raw, value: "", trail: "" };
    }
    let lead_len = raw.len() - raw.trim_start().len();
    let value_end = lead_len + value.len();
    Cell { lead: &raw[..lead_len], value, trail: &raw[value_end..] }
}

/// Whether a row is a header delimiter row (`|---|:--:|`).
pub fn is_delimiter_row(row: &Row<'_>) -> bool {
    !row.cells.is_empty()
        && row.cells.iter().all(|c| {
            let v = c.value.trim_matches(':');
            !v.is_empty() && v.bytes().all(|b| b == b'-')
        })
}

/// What the rows of a table become.
pub struct TableSpec {
    /// The kind of record each row is.
    pub kind: Kind,
    /// The field name of each column; columns past the end are named `col{n}` (1-based).
    pub keys: Vec<String>,
    /// The columns whose values, joined by a space, form the row's id.
    pub id_cols: Vec<usize>,
}

impl TableSpec {
    fn key(&self, col: usize) -> String {
        self.keys.get(col).cloned().unwrap_or_else(|| format!("col{}", col + 1))
    }
}

/// The segments of a row, with one field per cell.
pub fn row_segments(row: &Row<'_>, eol: &str, spec: &TableSpec) -> Vec<evokb_store::Segment> {
    let mut segs = SegBuilder::default();
    segs.lit(row.prefix);
    let n = row.cells.len();
    for (col, c) in row.cells.iter().enumerate() {
        segs.lit(c.lead);
        segs.field(&spec.key(col), c.value);
        segs.lit(c.trail);
        if col + 1 < n || row.closed {
            segs.lit("|");
        }
    }
    segs.lit(row.suffix);
    segs.lit(eol);
    segs.finish()
}

/// Scans `text` for tables, turning the rows of classified tables into records and everything
/// else into prose. `classify` sees the header cells and the nearest heading above the table.
pub fn scan(
    b: &mut FileBuilder,
    text: &str,
    diags: &mut Vec<Diagnostic>,
    classify: &dyn Fn(&[&str], &str) -> Option<TableSpec>,
) {
    let ls = lines(text);
    let mut heading = String::new();
    let mut spec: Option<TableSpec> = None;
    let mut in_fence = false;
    let mut seen: HashMap<(Kind, String), usize> = HashMap::new();
    let mut i = 0;
    while i < ls.len() {
        let line = ls[i];
        let trimmed = line.content.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if in_fence {
            prose_line(b, &line);
            i += 1;
            continue;
        }
        if line.content.starts_with('#') {
            heading = line.content.to_string();
            spec = None;
            prose_line(b, &line);
            i += 1;
            continue;
        }
        let Some(row) = split_row(line.content) else {
            prose_line(b, &line);
            i += 1;
            continue;
        };
        let next_is_delim =
            ls.get(i + 1).and_then(|l| split_row(l.content)).is_some_and(|r| is_delimiter_row(&r));
        if next_is_delim {
            let header: Vec<&str> = row.cells.iter().map(|c| c.value).collect();
            spec = classify(&header, &heading);
            prose_line(b, &line);
            prose_line(b, &ls[i + 1]);
            i += 2;
            continue;
        }
        match &spec {
            Some(s) => table_row(b, &line, &row, s, &mut seen, diags),
            None => prose_line(b, &line),
        }
        i += 1;
    }
}

fn prose_line(b: &mut FileBuilder, line: &Line<'_>) {
    b.prose(line.content);
    b.prose(line.eol);
}

fn table_row(
    b: &mut FileBuilder,
    line: &Line<'_>,
    row: &Row<'_>,
    spec: &TableSpec,
    seen: &mut HashMap<(Kind, String), usize>,
    diags: &mut Vec<Diagnostic>,
) {
    let key: Vec<&str> =
        spec.id_cols.iter().filter_map(|&c| row.cells.get(c).map(|c| c.value)).collect();
    let base = key.join(" ");
    if base.trim().is_empty() {
        diags.push(Diagnostic::warning(
            b.path(),
            line.no,
            "table row without a key is kept as prose",
        ));
        prose_line(b, line);
        return;
    }
    let info = crate::kinds::info(spec.kind);
    let id = if info.unique_ids && !info.repeats_kept {
        base
    } else {
        // Rows without a key column of their own, and repeats of a key the kind allows to
        // repeat, are told apart by occurrence, so ids stay stable when the file is imported
        // again.
        let n = seen.entry((spec.kind, base.clone())).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base} #{n}")
        }
    };
    let record =
        Record { kind: spec.kind, id, file: b.file(), segments: row_segments(row, line.eol, spec) };
    b.record(record, line.no);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rows_exactly() {
        let row = split_row("| a | b\\|c |  |").expect("row");
        let vals: Vec<&str> = row.cells.iter().map(|c| c.value).collect();
        assert_eq!(vals, ["a", "b\\|c", ""]);
        assert!(row.closed);
        assert!(split_row("no pipe").is_none());
        let open = split_row("| a | b").expect("row");
        assert!(!open.closed);
        assert_eq!(open.cells.len(), 2);
        assert!(is_delimiter_row(&split_row("|----|:--:|").expect("row")));
    }
}
