//! `queue.md`: review-queue items, each a `## VP-YYYY-NNNN` heading followed by `- key: value`
//! bullets, nested `  - ` evidence lists and `delta: |` blocks.
//!
//! The real file's deltas quote markdown, headings and code fences included, at any
//! indentation, so fences cannot be trusted to say where an item ends. The item's own structure
//! does: a block field (`|` or `>`) owns every line up to the next `- key:` bullet, while any
//! other field owns only indented continuation lines. The item ends at the next VP heading or at
//! the first unindented line that no field can own, such as a section heading or `---`.

use evokb_store::{Kind, Record};

use super::keyline::{self, KeyLine};
use super::{FileBuilder, SegBuilder};
use crate::diag::Diagnostic;
use crate::text::{lines, Line};

/// The id of a VP heading line (`## VP-2026-0003`, trailing whitespace allowed).
pub fn vp_heading(content: &str) -> Option<&str> {
    let id = content.strip_prefix("## ")?.trim_end();
    let b = id.as_bytes();
    let ok = b.len() == 12
        && id.starts_with("VP-")
        && b[3..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..].iter().all(u8::is_ascii_digit);
    ok.then_some(id)
}

/// A `- key: value` bullet at column 0.
pub fn field_line(content: &str) -> Option<KeyLine<'_>> {
    keyline::split(content.strip_prefix("- ")?)
}

pub(crate) fn is_block(value: &str) -> bool {
    let v = value.trim();
    v.starts_with('|') || v.starts_with('>')
}

/// Parses `queue.md` into the builder.
pub fn parse(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    let ls = lines(text);
    let mut i = 0;
    while i < ls.len() {
        let Some(id) = vp_heading(ls[i].content) else {
            if field_line(ls[i].content).is_some() {
                diags.push(Diagnostic::warning(
                    b.path(),
                    ls[i].no,
                    "a '- key: value' line outside any '## VP-' item is kept as prose",
                ));
            }
            b.prose(ls[i].content);
            b.prose(ls[i].eol);
            i += 1;
            continue;
        };
        let end = item_end(&ls, i);
        let record = item(b.file(), id, &ls[i..end]);
        b.record(record, ls[i].no);
        i = end;
    }
}

/// The index one past the item that starts at `start`, trailing blank lines included.
pub(crate) fn item_end(ls: &[Line<'_>], start: usize) -> usize {
    let mut in_block: Option<bool> = None;
    let mut j = start + 1;
    while j < ls.len() {
        let l = &ls[j];
        if vp_heading(l.content).is_some() {
            break;
        }
        if let Some(kl) = field_line(l.content) {
            in_block = Some(is_block(kl.value));
        } else if in_block == Some(true) || l.is_blank() || l.is_indented() {
            // owned by the current field, or blank
        } else if in_block.is_none() && !l.content.starts_with('#') && !l.content.starts_with("---")
        {
            // notes between the heading and the first field
        } else {
            break;
        }
        j += 1;
    }
    // Trailing blank lines stay with the item only up to a line it does not own.
    j
}

fn item(file: std::sync::Arc<str>, id: &str, ls: &[Line<'_>]) -> Record {
    let mut segs = SegBuilder::default();
    let head = &ls[0];
    segs.lit("## ");
    segs.field("id", id);
    segs.lit(&head.content[3 + id.len()..]);
    segs.lit(head.eol);
    let mut i = 1;
    while i < ls.len() {
        let Some(kl) = field_line(ls[i].content) else {
            segs.lit(ls[i].content);
            segs.lit(ls[i].eol);
            i += 1;
            continue;
        };
        let next =
            (i + 1..ls.len()).find(|&j| field_line(ls[j].content).is_some()).unwrap_or(ls.len());
        let last = (i..next).rev().find(|&j| j == i || !ls[j].is_blank()).unwrap_or(i);
        segs.keyed_field("- ", &kl, ls, i, last);
        i = last + 1;
    }
    Record { kind: Kind::QueueItem, id: id.into(), file, segments: segs.finish() }
}

#[cfg(test)]
mod tests {
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    #[test]
    fn items_own_their_block_fields_and_stop_at_sections() {
        let text = "## Pending\n\n## VP-2026-0001\n\n- type: R\n- evidence:\n  - a\n  - b\n- delta: |\n    x\n\n```\n### Phase 5\n```\n- status: pending\n- confirmations: -/-\n\n### Tier 2\n\n## VP-2026-0002\n- type: P\n";
        let (pf, diags) = parse_file(FileRole::Queue, "queue.md", text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(pf.records.len(), 2);
        let r = &pf.records[0].record;
        assert_eq!(r.field("evidence"), Some("\n  - a\n  - b"));
        assert_eq!(r.field("delta"), Some("|\n    x\n\n```\n### Phase 5\n```"));
        assert_eq!(r.field("status"), Some("pending"));
        assert!(r.text().ends_with("- confirmations: -/-\n\n"));
        assert_eq!(pf.records[1].record.field("type"), Some("P"));
    }
}
