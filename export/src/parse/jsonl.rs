//! `kb_search_log.jsonl`: one search event per line. The line is kept exactly as written, so
//! unknown JSON fields and the original key order and spacing survive; the parser only checks
//! that each line is a JSON object and derives the event's id from its timestamp and content.

use std::collections::{HashMap, HashSet};

use evokb_store::{CaseHash, Kind, LayoutItem, Record};

use super::{FileBuilder, ParsedFile, SegBuilder};
use crate::diag::Diagnostic;
use crate::text::lines;

/// Parses a search log into the builder.
pub fn parse(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for l in lines(text) {
        if l.is_blank() {
            b.prose(l.content);
            b.prose(l.eol);
            continue;
        }
        let ts = match serde_json::from_str::<serde_json::Value>(l.content) {
            Ok(serde_json::Value::Object(map)) => {
                map.get("ts").and_then(|v| v.as_str()).unwrap_or("").to_string()
            }
            Ok(_) => {
                diags.push(Diagnostic::error(
                    b.path(),
                    l.no,
                    "expected a JSON object on this line",
                ));
                String::new()
            }
            Err(err) => {
                diags.push(Diagnostic::error(
                    b.path(),
                    l.no,
                    format!("invalid JSON ({err}); expected one JSON object per line"),
                ));
                String::new()
            }
        };
        let base = event_id(&ts, l.content);
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        let id = numbered(base, *n);
        let mut segs = SegBuilder::default();
        segs.field("json", l.content);
        segs.lit(l.eol);
        let record =
            Record { kind: Kind::SearchEvent, id, file: b.file(), segments: segs.finish() };
        b.record(record, l.no);
    }
}

/// The id of an event: its timestamp and a short hash of its line, so that importing the same
/// log twice gives the same ids and adds nothing.
pub fn event_id(ts: &str, line: &str) -> String {
    let hash = blake3::hash(line.as_bytes());
    format!("{ts} {}", &hash.to_hex()[..12])
}

/// The id of the `n`-th line of a log that gives the event id `base` (identical lines, 1-based).
fn numbered(base: String, n: usize) -> String {
    if n == 1 {
        base
    } else {
        format!("{base} #{n}")
    }
}

/// The first id of the event `base` that `taken` does not hold: `base`, then `base #2`,
/// `base #3`, … The `n`-th identical line of a log is `#n`, so an event added after the lines
/// the store holds (a search recording a hit, lines appended by hand) takes the number after
/// theirs.
pub fn first_free_event_id<E>(
    base: &str,
    taken: &mut dyn FnMut(&CaseHash) -> Result<bool, E>,
) -> Result<String, E> {
    let mut n = 1;
    loop {
        let id = numbered(base.to_string(), n);
        if !taken(&CaseHash::of(Kind::SearchEvent, &id))? {
            return Ok(id);
        }
        n += 1;
    }
}

/// The event id `id` was numbered from: the parser's `base #n` without its ` #n`. A base ends
/// with the hex hash of [`event_id`], so a trailing ` #digits` is always the number.
fn base_of(id: &str) -> &str {
    match id.rsplit_once(" #") {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => id,
    }
}

/// Gives the events parsed from the lines appended to a log the ids a parse of the whole log
/// would give them. The parse of the appended lines alone numbers a repeated line from 1, but
/// the `n`-th identical line of the whole log is `#n`; the earlier ones are the events
/// `has_event` knows (the store holds the log's earlier lines exactly), so each event takes the
/// first number that is neither known nor taken by an earlier appended line. The layout, which
/// refers to records by key, is rebuilt from the renumbered records (an appended tail holds
/// records only).
pub fn renumber_appended<E>(
    parsed: &mut ParsedFile,
    has_event: &mut dyn FnMut(&CaseHash) -> Result<bool, E>,
) -> Result<(), E> {
    let mut assigned: HashSet<CaseHash> = HashSet::new();
    for pr in &mut parsed.records {
        let id = first_free_event_id(base_of(&pr.record.id), &mut |key| {
            Ok(assigned.contains(key) || has_event(key)?)
        })?;
        assigned.insert(CaseHash::of(Kind::SearchEvent, &id));
        pr.record.id = id;
    }
    parsed.layout.items =
        parsed.records.iter().map(|pr| LayoutItem::Record(pr.record.case_hash())).collect();
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    #[test]
    fn a_numbered_id_gives_back_its_base() {
        let base = super::event_id("2026-09-10T09:04:18Z", "{}");
        assert_eq!(super::base_of(&base), base);
        assert_eq!(super::base_of(&format!("{base} #12")), base);
        // A timestamp that itself holds " #" is not cut: the base ends with the hash.
        let odd = super::event_id("t #3", "{}");
        assert_eq!(super::base_of(&odd), odd);
    }

    #[test]
    fn events_keep_their_lines_and_bad_lines_are_reported() {
        let text = "{\"ts\": \"2026-09-10T09:04:18Z\", \"query\": \"块宽\", \"returned\": [], \"extra\": 1}\nnot json\n";
        let (pf, diags) = parse_file(FileRole::SearchLog, "log.jsonl", text);
        assert_eq!(pf.records.len(), 2);
        assert!(pf.records[0].record.id.starts_with("2026-09-10T09:04:18Z "));
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].line, 2);
        assert!(diags[0].message.contains("invalid JSON"), "{}", diags[0].message);
    }
}
