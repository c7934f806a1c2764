//! `kb_search_log.jsonl`: one search event per line. The line is kept exactly as written, so
//! unknown JSON fields and the original key order and spacing survive; the parser only checks
//! that each line is a JSON object and derives the event's id from its timestamp and content.

use std::collections::HashMap;

use evokb_store::{Kind, Record};

use super::{FileBuilder, SegBuilder};
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
        let id = if *n == 1 { base } else { format!("{base} #{n}") };
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
