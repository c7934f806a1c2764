//! `stats.md`: the distillation log (§1), the hit table (§2), the metrics table (§3) and the
//! change log (§4). Each row of a recognised table becomes a record whose fields are named by the
//! table's header cells. Tables are recognised by their header, not by section number, so a
//! re-numbered section still imports.

use evokb_store::Kind;

use super::table::{self, TableSpec};
use super::FileBuilder;
use crate::diag::Diagnostic;

/// Parses `stats.md` into the builder.
pub fn parse(b: &mut FileBuilder, text: &str, diags: &mut Vec<Diagnostic>) {
    table::scan(b, text, diags, &classify);
}

pub(crate) fn classify(header: &[&str], _heading: &str) -> Option<TableSpec> {
    let first = header.first().copied().unwrap_or("");
    let second = header.get(1).copied().unwrap_or("");
    let (kind, id_cols) = if header.contains(&"task_id") && first == "date" {
        (Kind::DistillRow, vec![0, 1])
    } else if first == "entry" {
        (Kind::HitRow, vec![0])
    } else if first == "指标" || first.eq_ignore_ascii_case("metric") {
        (Kind::MetricRow, vec![0])
    } else if first == "date" && second == "by" {
        (Kind::ChangeRow, vec![0, 1])
    } else {
        return None;
    };
    let keys = header.iter().map(|h| h.to_string()).collect();
    Some(TableSpec { kind, keys, id_cols })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::FileRole;
    use crate::parse::parse_file;

    #[test]
    fn recognises_the_four_tables_and_numbers_repeated_keys() {
        let text = "# S\n\n## 4. 变更日志\n\n| date | by | change |\n|---|---|---|\n| 2026-09-01 | a | x |\n| 2026-09-01 | a | y |\n\n| 2026-09-02 | a | z |\n\n## 2\n\n| entry | hits | last_hit_task | note |\n|---|---|---|---|\n| PL-1 | 2 | t | n |\n";
        let (pf, diags) = parse_file(FileRole::Stats, "stats.md", text);
        assert!(diags.is_empty(), "{diags:?}");
        let ids: Vec<(Kind, &str)> =
            pf.records.iter().map(|r| (r.record.kind, r.record.id.as_str())).collect();
        assert_eq!(
            ids,
            [
                (Kind::ChangeRow, "2026-09-01 a"),
                (Kind::ChangeRow, "2026-09-01 a #2"),
                (Kind::ChangeRow, "2026-09-02 a"),
                (Kind::HitRow, "PL-1"),
            ]
        );
        assert_eq!(pf.records[3].record.field("hits"), Some("2"));
    }
}
