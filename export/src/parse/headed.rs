//! Heading-delimited records: bottleneck patterns (`## BP_name：title`) and capability gaps
//! (`### CG-YYYY-NNNN` followed by a fenced yaml block).
//!
//! pulldown-cmark finds the headings, so a heading inside a code fence (the BP template in
//! `bottleneck-patterns.md`) is not taken for a record. The bytes themselves are always sliced
//! from the source. A record runs from its heading to the next heading of the same or a higher
//! level. A CG heading without a yaml block is a pointer to the entry's new place and stays
//! prose; that is what keeps the real file's pointers from counting as duplicate ids.

use evokb_store::{Kind, Record};
use pulldown_cmark::{Event, Parser, Tag};

use super::keyline;
use super::{FileBuilder, SegBuilder};
use crate::diag::Diagnostic;
use crate::text::{lines, Line};

/// The ATX headings outside code blocks, as (line index, level).
fn headings(text: &str, ls: &[Line<'_>]) -> Vec<(usize, usize)> {
    let mut starts = Vec::with_capacity(ls.len());
    let mut off = 0;
    for l in ls {
        starts.push(off);
        off += l.content.len() + l.eol.len();
    }
    let mut out = Vec::new();
    for (event, range) in Parser::new(text).into_offset_iter() {
        if let Event::Start(Tag::Heading { level, .. }) = event {
            let idx = starts.partition_point(|&s| s <= range.start).saturating_sub(1);
            // Only headings written at column 0 with '#' delimit records; setext headings and
            // headings inside lists or quotes belong to the text around them.
            if ls.get(idx).is_some_and(|l| l.content.starts_with('#')) {
                out.push((idx, level as usize));
            }
        }
    }
    out
}

/// Parses `bottleneck-patterns.md` into the builder.
pub fn parse_bottlenecks(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    let _ = diags;
    parse_headed(
        b,
        text,
        2,
        &|content| {
            let rest = content.strip_prefix("## ")?;
            let id_len = rest
                .bytes()
                .position(|c| !(c.is_ascii_alphanumeric() || c == b'_'))
                .unwrap_or(rest.len());
            let id = &rest[..id_len];
            if !id.starts_with("BP_") || id.len() == 3 {
                return None;
            }
            Some(id_len + 3)
        },
        &bottleneck_record,
    );
}

fn bottleneck_record(b: &FileBuilder, ls: &[Line<'_>], id_end: usize) -> Option<Record> {
    let head = ls.first()?;
    let mut segs = SegBuilder::default();
    segs.lit("## ");
    let id = &head.content[3..id_end];
    segs.field("id", id);
    let rest = &head.content[id_end..];
    let title_start = rest
        .char_indices()
        .find(|&(_, c)| !(c == '：' || c == ':' || c.is_whitespace()))
        .map_or(rest.len(), |(i, _)| i);
    segs.lit(&rest[..title_start]);
    segs.field("title", &rest[title_start..]);
    segs.lit(head.eol);
    let mut body = String::new();
    for l in &ls[1..] {
        body.push_str(l.content);
        body.push_str(l.eol);
    }
    segs.body(&body);
    Some(Record { kind: Kind::Bottleneck, id: id.into(), file: b.file(), segments: segs.finish() })
}

/// Parses `capability-gaps.md` into the builder.
pub fn parse_gaps(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    let _ = diags;
    parse_headed(
        b,
        text,
        3,
        &|content| {
            // Byte-wise, so a multi-byte character where a digit belongs cannot split a char.
            let id = content.strip_prefix("### ")?.as_bytes().get(..12)?;
            let ok = id.starts_with(b"CG-")
                && id[3..7].iter().all(u8::is_ascii_digit)
                && id[7] == b'-'
                && id[8..].iter().all(u8::is_ascii_digit);
            ok.then_some(16)
        },
        &gap_record,
    );
}

fn gap_record(b: &FileBuilder, ls: &[Line<'_>], id_end: usize) -> Option<Record> {
    let head = ls.first()?;
    let fence_open = ls.iter().position(|l| {
        let t = l.content.trim_end();
        t == "```yaml" || t == "```yml"
    })?;
    let fence_close =
        fence_open + 1 + ls[fence_open + 1..].iter().position(|l| l.content.trim_end() == "```")?;
    let mut segs = SegBuilder::default();
    segs.lit("### ");
    let id = &head.content[4..id_end];
    segs.field("id", id);
    segs.lit(&head.content[id_end..]);
    segs.lit(head.eol);
    for l in &ls[1..=fence_open] {
        segs.lit(l.content);
        segs.lit(l.eol);
    }
    yaml_fields(&mut segs, &ls[fence_open + 1..fence_close]);
    for l in &ls[fence_close..] {
        segs.lit(l.content);
        segs.lit(l.eol);
    }
    Some(Record { kind: Kind::Gap, id: id.into(), file: b.file(), segments: segs.finish() })
}

/// Splits the lines of a yaml block into top-level `key: value` fields. Indented lines, and
/// blank lines followed by indented ones, continue the previous value (folded scalars, lists).
fn yaml_fields(segs: &mut SegBuilder, ls: &[Line<'_>]) {
    let mut i = 0;
    while i < ls.len() {
        let Some(kl) = keyline::split(ls[i].content) else {
            segs.lit(ls[i].content);
            segs.lit(ls[i].eol);
            i += 1;
            continue;
        };
        let mut last = i;
        let mut j = i + 1;
        while j < ls.len() && keyline::split(ls[j].content).is_none() {
            if ls[j].is_indented() && !ls[j].is_blank() {
                last = j;
            } else if !ls[j].is_blank() {
                break;
            }
            j += 1;
        }
        segs.keyed_field("", &kl, ls, i, last);
        i = last + 1;
    }
}

type HeadMatch<'f> = &'f dyn Fn(&str) -> Option<usize>;
type MakeRecord<'f> = &'f dyn Fn(&FileBuilder, &[Line<'_>], usize) -> Option<Record>;

/// Cuts the file at matching headings of `level`; each runs to the next heading of `level` or
/// higher. `head` returns the byte offset where the id ends in a matching heading line.
fn parse_headed(
    b: &mut FileBuilder,
    text: &str,
    level: usize,
    head: HeadMatch<'_>,
    make: MakeRecord<'_>,
) {
    let ls = lines(text);
    let hs = headings(text, &ls);
    let mut i = 0;
    let mut h = 0;
    while i < ls.len() {
        while h < hs.len() && hs[h].0 < i {
            h += 1;
        }
        let is_record_head = h < hs.len() && hs[h].0 == i && hs[h].1 == level;
        let id_end = if is_record_head { head(ls[i].content) } else { None };
        let Some(id_end) = id_end else {
            b.prose(ls[i].content);
            b.prose(ls[i].eol);
            i += 1;
            continue;
        };
        // CommonMark also ends lines at a lone '\r', so two headings can sit on one of our
        // lines; only a heading on a later line ends the record (and the loop always advances).
        let end = hs[h + 1..]
            .iter()
            .find(|&&(idx, lv)| idx > i && lv <= level)
            .map_or(ls.len(), |&(idx, _)| idx);
        match make(b, &ls[i..end], id_end) {
            Some(rec) => b.record(rec, ls[i].no),
            None => {
                for l in &ls[i..end] {
                    b.prose(l.content);
                    b.prose(l.eol);
                }
            }
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    #[test]
    fn bottlenecks_skip_fenced_templates() {
        let text = "# B\n\n```markdown\n## BP_xxx：模板\n```\n\n## BP_ub_pressure：UB 压力\n\n### 触发信号\n- a\n\n## 其他\n";
        let (pf, diags) = parse_file(FileRole::Bottleneck, "bp.md", text);
        assert!(diags.is_empty());
        assert_eq!(pf.records.len(), 1);
        let r = &pf.records[0].record;
        assert_eq!(r.id, "BP_ub_pressure");
        assert_eq!(r.field("title"), Some("UB 压力"));
        assert_eq!(r.body(), Some("\n### 触发信号\n- a\n\n"));
    }

    #[test]
    fn gaps_need_a_yaml_block() {
        let text = "## Open\n\n### CG-2026-0002 → moved\n\n### CG-2026-0001\n\n> note\n\n```yaml\ngap_id: CG-2026-0001\ncapability: >-\n  line one\n\n  line two\nstatus: open\n```\n\n## Resolved\n";
        let (pf, _) = parse_file(FileRole::Gaps, "cg.md", text);
        assert_eq!(pf.records.len(), 1);
        let r = &pf.records[0].record;
        assert_eq!(r.id, "CG-2026-0001");
        assert_eq!(r.field("capability"), Some(">-\n  line one\n\n  line two"));
        assert_eq!(r.field("status"), Some("open"));
    }
}
