//! Structural problems that silently turn would-be records into prose.
//!
//! The parsers are lossless: bytes they cannot place in a record are kept as prose, so a file
//! round-trips whatever it holds. That is also what lets a small slip hide records: a code
//! fence that never closes makes every later heading code, a table header without its
//! delimiter row makes the table's rows plain text, a block scalar that does not end swallows
//! what follows, and a stray byte-order mark hides the heading it precedes. Each of these is
//! found here, with the line of the problem, by the same rules the parsers apply, so a problem
//! is reported exactly when the parser would be misled by it:
//!
//! - **unclosed fence**: in a headed file (bottleneck patterns, capability gaps), a CommonMark
//!   fenced code block that runs to the end of the file without its closing fence; in a table
//!   file (`INDEX.md`, `stats.md`), a fence line the table scanner opens and never closes;
//! - **table without delimiter**: a row whose header the file's classifier recognises as a
//!   record table, at the start of a table, not followed by a `|---|` row;
//! - **unterminated block scalar**: in the queue, a `- key: |` (or `>`) block that no later
//!   `- key:` bullet of its item ends, so it swallows the `---` rules and section headings that
//!   would have ended the item;
//! - **stray BOM**: U+FEFF at the start of a line, anywhere but byte 0, directly before what
//!   would start a record in this file's format.
//!
//! This module only finds the problems; [`crate::loss`] counts the records they cost against
//! the store.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use super::table::{is_delimiter_row, split_row, TableSpec};
use super::{frontmatter, index, queue, stats};
use crate::layout::FileRole;
use crate::text::{lines, Line, BOM};

/// A structural problem at a line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Structural {
    /// The 1-based line of the problem.
    pub line: usize,
    /// What is wrong, what it does to the records, and what was expected.
    pub message: String,
}

/// The structural problems of the text of a managed file (its whole text, a leading BOM
/// included), in line order.
pub fn problems(role: FileRole, text: &str) -> Vec<Structural> {
    let body = text.strip_prefix(BOM).unwrap_or(text);
    let ls = lines(text);
    let mut out = Vec::new();
    match role {
        FileRole::Bottleneck | FileRole::Gaps => unclosed_cmark_fences(body, &mut out),
        FileRole::Index => table_problems(&ls, &index::classify, &mut out),
        FileRole::Stats => table_problems(&ls, &stats::classify, &mut out),
        FileRole::Queue => unterminated_blocks(&ls, &mut out),
        FileRole::Topic | FileRole::SearchLog => {}
    }
    stray_boms(role, &ls, &mut out);
    out.sort_by_key(|p| p.line);
    out
}

/// Fenced code blocks (outside any container) that run to the end of the text unclosed.
fn unclosed_cmark_fences(text: &str, out: &mut Vec<Structural>) {
    for (event, range) in Parser::new(text).into_offset_iter() {
        let Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) = event else {
            continue;
        };
        if !text[range.end..].trim().is_empty() {
            continue; // it ends before the end of the file, so it was closed (or its container was)
        }
        let block = &text[range.start..range.end];
        let Some((fence_char, fence_len)) = block.lines().next().and_then(fence_of) else {
            continue;
        };
        let closed = block.lines().skip(1).last().is_some_and(|l| {
            let t = l.trim();
            t.len() >= fence_len && t.chars().all(|c| c == fence_char)
        });
        if !closed {
            let line = text[..range.start].matches('\n').count() + 1;
            let fence: String = std::iter::repeat_n(fence_char, fence_len).collect();
            out.push(Structural {
                line,
                message: format!(
                    "this code fence ({fence}) is never closed, so everything after it to the end of the file, record headings included, is read as code and kept as prose; expected a closing {fence} line"
                ),
            });
        }
    }
}

/// The fence character and length of an opening fence line (up to three spaces of indent).
fn fence_of(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

type Classify<'f> = &'f dyn Fn(&[&str], &str) -> Option<TableSpec>;

/// Unclosed fences and record-table headers without a delimiter row, by the rules of
/// [`super::table::scan`].
fn table_problems(ls: &[Line<'_>], classify: Classify<'_>, out: &mut Vec<Structural>) {
    let mut heading = String::new();
    let mut open_fence: Option<usize> = None;
    let mut prev_is_row = false;
    for (i, line) in ls.iter().enumerate() {
        let trimmed = line.content.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            open_fence = match open_fence {
                Some(_) => None,
                None => Some(line.no),
            };
        }
        if open_fence.is_some() {
            prev_is_row = false;
            continue;
        }
        if line.content.starts_with('#') {
            heading = line.content.to_string();
            prev_is_row = false;
            continue;
        }
        let Some(row) = split_row(line.content) else {
            prev_is_row = false;
            continue;
        };
        let starts_table = !prev_is_row;
        prev_is_row = true;
        let next_is_delim =
            ls.get(i + 1).and_then(|l| split_row(l.content)).is_some_and(|r| is_delimiter_row(&r));
        if !starts_table || next_is_delim || is_delimiter_row(&row) {
            continue;
        }
        let header: Vec<&str> = row.cells.iter().map(|c| c.value).collect();
        if let Some(spec) = classify(&header, &heading) {
            out.push(Structural {
                line: line.no,
                message: format!(
                    "this row is the header of a {} table but no delimiter row (|---|---|) follows it, so the table's rows are kept as prose; expected a delimiter row on the next line",
                    spec.kind
                ),
            });
        }
    }
    if let Some(line) = open_fence {
        out.push(Structural {
            line,
            message: "this code fence is never closed, so every table after it is kept as prose; expected a closing ``` line".into(),
        });
    }
}

/// Queue block fields (`- key: |`) that never end: no `- key:` bullet follows them in their
/// item, so they own everything up to the next item, section headings and `---` rules
/// included, which would otherwise have ended the item. (Inside a block that does end, column-0
/// headings and fences are fine: deltas quote markdown at any indentation.)
fn unterminated_blocks(ls: &[Line<'_>], out: &mut Vec<Structural>) {
    let mut i = 0;
    while i < ls.len() {
        if queue::vp_heading(ls[i].content).is_none() {
            i += 1;
            continue;
        }
        let end = queue::item_end(ls, i).max(i + 1);
        let item = &ls[i + 1..end];
        let last_field = item.iter().rposition(|l| queue::field_line(l.content).is_some());
        if let Some(k) = last_field {
            let head = &item[k];
            let is_block =
                queue::field_line(head.content).is_some_and(|kl| queue::is_block(kl.value));
            let swallowed = item[k + 1..].iter().find(|l| {
                l.content.starts_with('#') || super::frontmatter::is_delimiter(l.content)
            });
            if let (true, Some(l)) = (is_block, swallowed) {
                let key = queue::field_line(head.content).map_or("", |kl| kl.key);
                out.push(Structural {
                    line: head.no,
                    message: format!(
                        "the block '{key}' that starts here never ends: no '- key:' bullet follows it in this item, so it runs on over line {} ('{}') to the next item and swallows what lies between; expected the item's remaining '- key:' fields after the block",
                        l.no,
                        l.content.chars().take(40).collect::<String>()
                    ),
                });
            }
        }
        i = end;
    }
}

/// U+FEFF at the start of a line (other than the file's own BOM at byte 0) before what would
/// start a record in this format.
fn stray_boms(role: FileRole, ls: &[Line<'_>], out: &mut Vec<Structural>) {
    for (i, l) in ls.iter().enumerate() {
        let content =
            if i == 0 { l.content.strip_prefix(BOM).unwrap_or(l.content) } else { l.content };
        let Some(rest) = content.strip_prefix(BOM) else { continue };
        let rest = rest.trim_start_matches(BOM);
        let starts_record = match role {
            FileRole::Topic => frontmatter::is_delimiter(rest),
            FileRole::Bottleneck | FileRole::Gaps => rest.starts_with('#'),
            FileRole::Queue => rest.starts_with('#') || rest.starts_with("- "),
            FileRole::Index | FileRole::Stats => rest.trim_start().starts_with('|'),
            FileRole::SearchLog => false,
        };
        if starts_record {
            out.push(Structural {
                line: l.no,
                message: "a byte-order mark (U+FEFF) starts this line, before what would start a record, so the record is kept as prose; expected no U+FEFF here (a BOM belongs only at the very start of the file)".into(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(role: FileRole, text: &str) -> Vec<usize> {
        problems(role, text).iter().map(|p| p.line).collect()
    }

    #[test]
    fn unclosed_fences_in_headed_files() {
        let ok = "# B\n\n```markdown\n## BP_x：t\n```\n\n## BP_a：a\n";
        assert!(lines_of(FileRole::Bottleneck, ok).is_empty());
        let bad = "# B\n\n## BP_a：a\n\n~~~~\ncode\n~~~\n## BP_b：b\n";
        assert_eq!(lines_of(FileRole::Bottleneck, bad), [5]);
        let gaps = "### CG-2026-0001\n\n```yaml\ngap_id: CG-2026-0001\n\n### CG-2026-0002\n";
        assert_eq!(lines_of(FileRole::Gaps, gaps), [3]);
    }

    #[test]
    fn tables_without_delimiters_and_unclosed_fences() {
        let ok = "## 2\n\n| entry | hits |\n|---|---|\n| PL-1 | 2 |\n\n| PL-2 | 3 |\n";
        assert!(lines_of(FileRole::Stats, ok).is_empty());
        let bad = "## 2\n\n| entry | hits |\n| PL-1 | 2 |\n\n| other | x |\n| a | b |\n";
        assert_eq!(lines_of(FileRole::Stats, bad), [3]);
        let fence = "```\n| entry | hits |\n|---|---|\n";
        assert_eq!(lines_of(FileRole::Stats, fence), [1]);
        let index = "| ID | summary | status |\n| PL-1 | s | active |\n";
        assert_eq!(lines_of(FileRole::Index, index), [1]);
    }

    #[test]
    fn unterminated_queue_blocks() {
        let ok = "## VP-2026-0001\n- delta: |\n    x\n### quoted\n- status: pending\n\n---\n";
        assert!(lines_of(FileRole::Queue, ok).is_empty());
        let bad = "## VP-2026-0001\n- status: pending\n- delta: |\n    x\n\n---\n\n## Resolved\n";
        assert_eq!(lines_of(FileRole::Queue, bad), [3]);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "(\\PC|\n|\r|\u{feff}|```|~~~|## |### CG-2026-0001|## VP-2026-0001|- delta: \\||---|\\| entry \\||\\|---\\|){0,60}") {
            for role in [FileRole::Topic, FileRole::Index, FileRole::Bottleneck, FileRole::Gaps, FileRole::Queue, FileRole::Stats, FileRole::SearchLog] {
                for p in problems(role, &text) {
                    proptest::prop_assert!(p.line >= 1);
                }
            }
        }
    }

    #[test]
    fn stray_boms_before_record_starts() {
        assert!(lines_of(FileRole::Bottleneck, "\u{feff}## BP_a：a\n").is_empty());
        assert_eq!(lines_of(FileRole::Bottleneck, "# B\n\u{feff}## BP_a：a\n"), [2]);
        assert_eq!(lines_of(FileRole::Topic, "\u{feff}\u{feff}---\nid: x\n---\n"), [1]);
        assert_eq!(lines_of(FileRole::Stats, "a\n\u{feff}| entry | x |\n"), [2]);
        assert!(lines_of(FileRole::Stats, "a \u{feff}| b\n").is_empty());
    }
}
