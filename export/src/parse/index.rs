//! `INDEX.md`: the routing tables, one per topic file, whose rows are `| ID | summary | status |`.
//!
//! A table is a routing table when its header's first cell is `ID`. Its rows become index-row
//! records with the fields `id`, `summary` and `status` (extra middle columns are `col3`…).
//! Everything else in the file, the rules and schema sections included, is prose.

use evokb_store::Kind;

use super::table::{self, TableSpec};
use super::FileBuilder;
use crate::diag::Diagnostic;

/// Parses `INDEX.md` into the builder.
pub fn parse(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    table::scan(b, text, diags, &classify);
}

pub(crate) fn classify(header: &[&str], _heading: &str) -> Option<TableSpec> {
    if !header.first().is_some_and(|h| h.eq_ignore_ascii_case("id")) {
        return None;
    }
    let n = header.len();
    let keys: Vec<String> = (0..n)
        .map(|i| match i {
            0 => "id".to_string(),
            1 => "summary".to_string(),
            i if i + 1 == n => "status".to_string(),
            i => format!("col{}", i + 1),
        })
        .collect();
    Some(TableSpec { kind: Kind::IndexRow, keys, id_cols: vec![0] })
}

/// The topic file a heading routes to: its first word ending in `.md`, without backticks.
pub fn heading_topic(heading: &str) -> Option<&str> {
    heading
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| c == '`' || c == '[' || c == ']'))
        .find(|w| w.ends_with(".md"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    #[test]
    fn rows_of_id_tables_are_records() {
        let text = "# I\n\n### layout.md — x\n\n| ID | 一句话 | 状态 |\n|----|----|----|\n| PL-1 | 转置 | verified |\n| TRAP-2 | a \\| b | overturned |\n\n| k | v |\n|---|---|\n| x | y |\n";
        let (pf, diags) = parse_file(FileRole::Index, "INDEX.md", text);
        assert!(diags.is_empty(), "{diags:?}");
        let ids: Vec<&str> = pf.records.iter().map(|r| r.record.id.as_str()).collect();
        assert_eq!(ids, ["PL-1", "TRAP-2"]);
        assert_eq!(pf.records[0].record.field("summary"), Some("转置"));
        assert_eq!(pf.records[1].record.field("status"), Some("overturned"));
        assert_eq!(pf.records[0].line, 7);
        assert_eq!(heading_topic("### `layout.md` — x"), Some("layout.md"));
    }
}
