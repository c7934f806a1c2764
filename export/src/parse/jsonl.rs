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
    let mut taken: HashSet<CaseHash> = HashSet::new();
    for pr in &mut parsed.records {
        let Some(line) = pr.record.field("json") else { continue };
        let ts = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.get("ts").and_then(|t| t.as_str()).map(String::from))
            .unwrap_or_default();
        let base = event_id(&ts, line);
        let mut n = 1;
        loop {
            let id = numbered(base.clone(), n);
            let key = CaseHash::of(Kind::SearchEvent, &id);
            if !taken.contains(&key) && !has_event(&key)? {
                taken.insert(key);
                pr.record.id = id;
                break;
            }
            n += 1;
        }
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
