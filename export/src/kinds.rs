//! The one description of each record kind that every crate reads.
//!
//! The store declares the kinds and their tags (`evokb_store::Kind`); everything else a crate
//! needs to know about a kind is one row of [`info`]: where records of the kind live, whether
//! their ids are unique, whether they are searched, queried, security-checked or hit, where
//! `get` without `--kind` looks for them, whether they are table rows, and how a new field is
//! written into one. `info` is an exhaustive `match`, so a new kind does not compile until it
//! has its row, and no other code in the workspace matches on kinds to answer these questions.

use evokb_store::Kind;

use crate::layout::FileRole;

/// What every crate needs to know about one record kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindInfo {
    /// The kind described.
    pub kind: Kind,
    /// One line for people: what a record of this kind is.
    pub summary: &'static str,
    /// The file roles whose parser produces records of this kind.
    pub roles: &'static [FileRole],
    /// Whether an id names one thing, so that a second occurrence is an error. Table rows
    /// without a key column get positional ids instead and are never duplicates.
    pub unique_ids: bool,
    /// Whether a file may repeat an id of this kind: the repeat is kept as its own record,
    /// `ID #2`, and lint warns about it, instead of failing the import. An INDEX.md that lists
    /// an id in two routing tables is a reviewer's slip, not a reason to refuse every file.
    pub repeats_kept: bool,
    /// Whether records are full-text searched (`evokb search`).
    pub searchable: bool,
    /// Whether records are in the facet index (`evokb query`).
    pub queryable: bool,
    /// Whether the text is prose a future agent reads, and so gets the security checks.
    pub agent_read: bool,
    /// Whether a search hit on the record is counted in the stats hit table, and a record
    /// never hit is listed as such.
    pub hit_target: bool,
    /// Where `get ID` without `--kind` looks, lower first: an entry before the INDEX row that
    /// shares its id.
    pub lookup_rank: u8,
    /// Whether a record is one row of a markdown table (its values stay on one line).
    pub table_row: bool,
    /// The field holding the record's toolchain stamp, which `stale` checks.
    pub stamp_field: Option<&'static str>,
    /// How a field the record lacks is written when `set` adds it: the text before `key: `
    /// (`""` for front-matter and yaml, `"- "` for queue bullets); `None` when fields cannot
    /// be added.
    pub new_field_prefix: Option<&'static str>,
}

/// The description of `kind`.
pub const fn info(kind: Kind) -> KindInfo {
    let base = KindInfo {
        kind,
        summary: "",
        roles: &[],
        unique_ids: false,
        repeats_kept: false,
        searchable: false,
        queryable: false,
        agent_read: false,
        hit_target: false,
        lookup_rank: u8::MAX,
        table_row: false,
        stamp_field: None,
        new_field_prefix: None,
    };
    match kind {
        Kind::Entry => KindInfo {
            summary: "a front-matter entry of a topic file (pattern, trap, case, constant, ALG)",
            roles: &[FileRole::Topic],
            unique_ids: true,
            searchable: true,
            queryable: true,
            agent_read: true,
            hit_target: true,
            lookup_rank: 0,
            stamp_field: Some("toolchain"),
            new_field_prefix: Some(""),
            ..base
        },
        Kind::QueueItem => KindInfo {
            summary: "a `## VP-YYYY-NNNN` review-queue item",
            roles: &[FileRole::Queue],
            unique_ids: true,
            searchable: true,
            agent_read: true,
            lookup_rank: 1,
            stamp_field: Some("toolchain_stamp"),
            new_field_prefix: Some("- "),
            ..base
        },
        Kind::Bottleneck => KindInfo {
            summary: "a `## BP_…：…` bottleneck pattern",
            roles: &[FileRole::Bottleneck],
            unique_ids: true,
            searchable: true,
            agent_read: true,
            hit_target: true,
            lookup_rank: 2,
            ..base
        },
        Kind::Gap => KindInfo {
            summary: "a `### CG-YYYY-NNNN` capability gap with its yaml block",
            roles: &[FileRole::Gaps],
            unique_ids: true,
            searchable: true,
            agent_read: true,
            lookup_rank: 3,
            new_field_prefix: Some(""),
            ..base
        },
        Kind::IndexRow => KindInfo {
            summary: "a row of an INDEX.md routing table",
            roles: &[FileRole::Index],
            unique_ids: true,
            repeats_kept: true,
            lookup_rank: 4,
            table_row: true,
            ..base
        },
        Kind::MetricRow => KindInfo {
            summary: "a row of the stats metrics table (§3)",
            roles: &[FileRole::Stats],
            unique_ids: false,
            lookup_rank: 5,
            table_row: true,
            ..base
        },
        Kind::HitRow => KindInfo {
            summary: "a row of the stats hit table (§2)",
            roles: &[FileRole::Stats],
            lookup_rank: 6,
            table_row: true,
            ..base
        },
        Kind::DistillRow => KindInfo {
            summary: "a row of the stats distillation log (§1)",
            roles: &[FileRole::Stats],
            lookup_rank: 7,
            table_row: true,
            ..base
        },
        Kind::ChangeRow => KindInfo {
            summary: "a row of the stats change log (§4)",
            roles: &[FileRole::Stats],
            lookup_rank: 8,
            table_row: true,
            ..base
        },
        Kind::SearchEvent => KindInfo {
            summary: "one line of kb_search_log.jsonl",
            roles: &[FileRole::SearchLog],
            lookup_rank: 9,
            ..base
        },
        Kind::Repro => KindInfo {
            summary: "a repro script: its path and content hash",
            roles: &[],
            unique_ids: true,
            lookup_rank: 10,
            ..base
        },
    }
}

/// Every kind in the order `get` without `--kind` tries them.
pub fn lookup_order() -> Vec<Kind> {
    let mut kinds = Kind::ALL.to_vec();
    kinds.sort_by_key(|k| info(*k).lookup_rank);
    kinds
}

/// The kinds for which `pred` holds, in declaration order.
pub fn kinds_where(pred: impl Fn(&KindInfo) -> bool) -> Vec<Kind> {
    Kind::ALL.iter().copied().filter(|k| pred(&info(*k))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_row_and_a_distinct_lookup_rank() {
        let mut ranks = std::collections::BTreeSet::new();
        for k in Kind::ALL {
            let i = info(*k);
            assert_eq!(i.kind, *k);
            assert!(!i.summary.is_empty(), "{k} has no summary");
            assert!(ranks.insert(i.lookup_rank), "{k} shares its lookup rank");
        }
        assert_eq!(lookup_order()[..2], [Kind::Entry, Kind::QueueItem]);
    }

    #[test]
    fn table_rows_are_exactly_the_kinds_parsed_from_tables() {
        let rows = kinds_where(|i| i.table_row);
        assert_eq!(
            rows,
            [Kind::IndexRow, Kind::DistillRow, Kind::HitRow, Kind::MetricRow, Kind::ChangeRow]
        );
    }
}
