//! Topic files: `---`-delimited front-matter entries (patterns, traps, cases, constants, ALG).
//!
//! The file is split at every line that is exactly `---` (trailing spaces and tabs allowed).
//! The text before the first delimiter is preamble prose; after it, pieces alternate between
//! front-matter and body. A front-matter block with a non-empty `id` makes an entry whose text
//! runs from its opening `---` to the line before the next opening `---`. Front-matter lines
//! are `key: value`; indented lines continue the previous value; blank lines and `#` comments
//! are kept as they are. Anything else is an error, because a stray line there almost always
//! means a body lost its closing delimiter.

use evokb_store::{Kind, Record};

use super::keyline;
use super::{FileBuilder, SegBuilder};
use crate::diag::Diagnostic;
use crate::text::{lines, Line};

/// Whether a line delimits front-matter.
pub fn is_delimiter(content: &str) -> bool {
    content.trim_end_matches([' ', '\t']) == "---"
}

/// Parses a topic file into the builder.
pub fn parse(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    let ls = lines(text);
    let delims: Vec<usize> =
        ls.iter().enumerate().filter(|(_, l)| is_delimiter(l.content)).map(|(i, _)| i).collect();
    let Some(&first) = delims.first() else {
        b.prose(text);
        return;
    };
    push_lines_as_prose(b, &ls[..first]);
    let mut k = 0;
    while k < delims.len() {
        let open = delims[k];
        let Some(&close) = delims.get(k + 1) else {
            let rest = &ls[open + 1..];
            if rest.iter().any(|l| !l.is_blank()) {
                diags.push(Diagnostic::error(
                    b.path(),
                    ls[open].no,
                    "this '---' opens a front-matter block that no '---' line closes; expected a closing '---' after the 'key: value' lines",
                ));
            }
            push_lines_as_prose(b, &ls[open..]);
            break;
        };
        let next_open = delims.get(k + 2).copied().unwrap_or(ls.len());
        entry(b, &ls[open], &ls[open + 1..close], &ls[close], &ls[close + 1..next_open], diags);
        k += 2;
    }
}

fn push_lines_as_prose(b: &mut FileBuilder, ls: &[Line<'_>]) {
    for l in ls {
        b.prose(l.content);
        b.prose(l.eol);
    }
}

fn entry(
    b: &mut FileBuilder,
    open: &Line<'_>,
    fm: &[Line<'_>],
    close: &Line<'_>,
    body: &[Line<'_>],
    diags: &mut Vec<Diagnostic>,
) {
    let mut segs = SegBuilder::default();
    segs.lit(open.content);
    segs.lit(open.eol);
    let mut id: Option<String> = None;
    let mut seen_keys: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < fm.len() {
        let line = &fm[i];
        if let Some(kl) = keyline::split(line.content) {
            // Indented lines after a key continue its value (yaml lists and folded text).
            let mut end = i + 1;
            while end < fm.len() && fm[end].is_indented() && !fm[end].is_blank() {
                end += 1;
            }
            if seen_keys.contains(&kl.key) {
                diags.push(Diagnostic::warning(
                    b.path(),
                    line.no,
                    format!("front-matter key '{}' appears twice; the first value is used", kl.key),
                ));
            }
            seen_keys.push(kl.key);
            if kl.key == "id" && id.is_none() {
                id = Some(kl.value.trim().to_string());
            }
            segs.keyed_field("", &kl, fm, i, end - 1);
            i = end;
            continue;
        }
        let trimmed = line.content.trim_start();
        if !(line.is_blank() || trimmed.starts_with('#')) {
            diags.push(Diagnostic::error(
                b.path(),
                line.no,
                format!(
                    "malformed front-matter line '{}' (block opened at line {}); expected 'key: value', an indented continuation, or a closing '---'",
                    truncate(line.content, 60),
                    open.no
                ),
            ));
        }
        segs.lit(line.content);
        segs.lit(line.eol);
        i += 1;
    }
    segs.lit(close.content);
    segs.lit(close.eol);
    let mut body_text = String::new();
    for l in body {
        body_text.push_str(l.content);
        body_text.push_str(l.eol);
    }
    match id.filter(|id| !id.is_empty()) {
        Some(id) => {
            segs.body(&body_text);
            let record = Record { kind: Kind::Entry, id, file: b.file(), segments: segs.finish() };
            b.record(record, open.no);
        }
        None => {
            if fm.iter().any(|l| !l.is_blank()) {
                diags.push(Diagnostic::warning(
                    b.path(),
                    open.no,
                    "front-matter block without an 'id' is kept as prose, not as an entry",
                ));
            }
            let lits = segs.finish();
            for seg in &lits {
                if let evokb_store::Segment::Lit(s) | evokb_store::Segment::Field { value: s, .. } =
                    seg
                {
                    b.prose(s);
                }
            }
            b.prose(&body_text);
        }
    }
}

/// Cuts `s` to at most `max` characters for a message.
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The title of an entry: the first non-blank body line without leading `#` and spaces.
pub fn title_of(body: &str) -> &str {
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_start_matches('#').trim())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    fn parse(text: &str) -> (crate::parse::ParsedFile, Vec<Diagnostic>) {
        parse_file(FileRole::Topic, "t.md", text)
    }

    #[test]
    fn splits_preamble_and_entries() {
        let text = "# T\n\n> note\n\n---\nid: A-1\nkind: trap\n---\n\n### a\nbody\n\n---\nid: B\nx_unknown: [1, 2]\n---\nb\n";
        let (pf, diags) = parse(text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(pf.records.len(), 2);
        let a = &pf.records[0];
        assert_eq!((a.record.id.as_str(), a.line), ("A-1", 5));
        assert_eq!(a.record.field("kind"), Some("trap"));
        assert_eq!(a.record.body(), Some("\n### a\nbody\n\n"));
        assert_eq!(pf.records[1].record.field("x_unknown"), Some("[1, 2]"));
        assert_eq!(title_of(a.record.body().unwrap_or("")), "a");
    }

    #[test]
    fn continuation_lines_belong_to_the_value() {
        let (pf, diags) = parse("---\nid: X\napis:\n  - T.copy\n  - T.vadd\nrepro: none\n---\nb\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(pf.records[0].record.field("apis"), Some("\n  - T.copy\n  - T.vadd"));
        assert_eq!(pf.records[0].record.field("repro"), Some("none"));
    }

    #[test]
    fn unterminated_block_is_an_error_with_its_line() {
        let (_, diags) = parse("pre\n---\nid: X\nkind: trap\n");
        assert_eq!(diags.len(), 1);
        assert_eq!((diags[0].severity, diags[0].line), (Severity::Error, 2));
        assert!(diags[0].message.contains("no '---' line closes"), "{}", diags[0].message);
    }

    #[test]
    fn malformed_line_is_an_error_with_its_line() {
        let (_, diags) = parse("---\nid: X\nthis is prose\n---\nb\n");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, 3);
        assert!(diags[0].message.contains("expected 'key: value'"), "{}", diags[0].message);
    }
}
