//! The invariants every fuzz target checks, shared by the targets in `fuzz_targets/`.
//!
//! For any text in any file role, `parse_file` must not panic or hang, and the layout (prose and
//! record texts, in order, one record per layout reference) must concatenate to the input
//! exactly. Each target turns libFuzzer's bytes into text with `String::from_utf8_lossy`, so
//! every input reaches the parser (invalid sequences become U+FFFD).

use evokb_export::layout::FileRole;
use evokb_export::parse::{parse_file, ParsedFile};
use evokb_store::LayoutItem;

/// The text a parsed file stands for, checking that the layout and the records agree.
pub fn rendered(pf: &ParsedFile) -> String {
    let mut records = pf.records.iter();
    let mut out = String::new();
    for item in &pf.layout.items {
        match item {
            LayoutItem::Prose(p) => {
                assert!(!p.is_empty(), "empty prose item in the layout");
                out.push_str(p);
            }
            LayoutItem::Record(h) => {
                let r = records.next().expect("one record per layout reference");
                assert_eq!(r.record.case_hash(), *h, "layout reference and record disagree");
                r.record.write_text(&mut out);
            }
        }
    }
    assert!(records.next().is_none(), "a record without a layout reference");
    out
}

/// Parses `text` in `role` and checks the invariants.
pub fn check(role: FileRole, text: &str) {
    let (pf, diags) = parse_file(role, "f", text);
    assert_eq!(rendered(&pf), text, "concat(layout) differs from the input");
    assert_eq!(pf.text_len(), text.len());
    let line_count = text.split('\n').count();
    let mut prev = 0;
    for r in &pf.records {
        assert!(r.line > prev && r.line <= line_count, "record line {} out of order", r.line);
        prev = r.line;
    }
    for d in &diags {
        assert!(d.line <= line_count, "diagnostic past the last line: {d}");
    }
}

/// Checks `data` as text in `role`.
pub fn check_bytes(role: FileRole, data: &[u8]) {
    check(role, &String::from_utf8_lossy(data));
}
