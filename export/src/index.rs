//! The derived indexes' view of the records: which kinds are queried and searched (from the
//! kind table), and how an entry's front-matter becomes a facet row and a record a search
//! document. The store calls [`MarkdownIndexer`] at every commit; it is the only place that
//! reads front-matter lists, titles and ids for the indexes.

use std::collections::BTreeMap;
use std::sync::Arc;

use evokb_store::search::{SearchDoc, FILTER_FACETS};
use evokb_store::{Indexer, Kind, QueryRow, Record};

use crate::layout::Layout;

/// The indexer of knowledge bases in this crate's formats.
#[derive(Debug, Clone, Default)]
pub struct MarkdownIndexer {
    /// Where the files live (decides which entries are algorithm candidates).
    pub layout: Layout,
}

/// The indexer for a store whose files follow `layout`.
pub fn indexer(layout: Layout) -> Arc<dyn Indexer> {
    Arc::new(MarkdownIndexer { layout })
}

/// The indexer for a store of the default layout.
pub fn default_indexer() -> Arc<dyn Indexer> {
    indexer(Layout::default())
}

impl Indexer for MarkdownIndexer {
    fn queryable(&self, kind: Kind) -> bool {
        crate::kinds::info(kind).queryable
    }
    fn searchable(&self, kind: Kind) -> bool {
        crate::kinds::info(kind).searchable
    }
    fn query_row(&self, rec: &Record, line: u64) -> Option<QueryRow> {
        Some(row_for(rec, line))
    }
    fn search_doc(&self, rec: &Record) -> Option<SearchDoc> {
        doc_for(rec, &self.layout)
    }
}

/// Parses a front-matter value into list items: `[a, b]`, a yaml `- a` list, or one value.
pub fn parse_list(value: &str) -> Vec<String> {
    let v = value.trim();
    let items: Vec<&str> =
        if let Some(inner) = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            inner.split(',').collect()
        } else if v.lines().any(|l| l.trim_start().starts_with("- ")) {
            v.lines().filter_map(|l| l.trim_start().strip_prefix("- ")).collect()
        } else {
            vec![v]
        };
    items
        .into_iter()
        .map(|s| s.trim().trim_matches(|c| c == '"' || c == '\'').trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The title of a body: its first non-blank line without leading `#` and spaces.
pub fn title_of(body: &str) -> String {
    body.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .unwrap_or_default()
}

fn row_for(rec: &Record, line: u64) -> QueryRow {
    let list = |k: &str| rec.field(k).map(parse_list).unwrap_or_default();
    QueryRow {
        id: rec.id.clone(),
        kind: rec.field("kind").map(|v| v.trim().to_string()).unwrap_or_default(),
        title: title_of(rec.body().unwrap_or("")),
        file: rec.file.to_string(),
        line,
        family: list("family"),
        apis: list("apis"),
        dtype: list("dtype"),
        device: list("device"),
        status: rec.field("status").map(|v| v.trim().to_string()).unwrap_or_default(),
    }
}

/// The search document of a record, if its kind is searched.
fn doc_for(rec: &Record, lay: &Layout) -> Option<SearchDoc> {
    let field = |k: &str| rec.field(k).map(|v| v.trim().to_string());
    let mut facets = BTreeMap::new();
    let (source, title, body) = match rec.kind {
        Kind::Entry => {
            for k in ["kind", "family", "apis", "dtype", "device", "status", "repro"] {
                facets.insert(k.to_string(), field(k).unwrap_or_default());
            }
            let source = if rec.id.starts_with("ALG-") || *rec.file == *lay.algorithm_candidates {
                "algorithm-candidates"
            } else {
                "pattern-library"
            };
            (source, title_of(rec.body().unwrap_or("")), rec.body().unwrap_or("").to_string())
        }
        Kind::Bottleneck => {
            let title = format!("{}：{}", rec.id, field("title").unwrap_or_default());
            ("bottleneck-patterns", title, rec.body().unwrap_or("").to_string())
        }
        Kind::Gap => {
            facets.insert("status".into(), field("status").unwrap_or_default());
            let cap = field("capability").unwrap_or_default();
            let cap =
                cap.trim_start_matches(['>', '|', '-']).split_whitespace().collect::<Vec<_>>();
            ("capability-gaps", cap.join(" "), rec.text())
        }
        Kind::QueueItem => {
            facets.insert("status".into(), field("status").unwrap_or_default());
            facets.insert("type".into(), field("type").unwrap_or_default());
            ("queue", field("title").unwrap_or_default(), rec.text())
        }
        Kind::IndexRow
        | Kind::DistillRow
        | Kind::HitRow
        | Kind::MetricRow
        | Kind::ChangeRow
        | Kind::SearchEvent
        | Kind::Repro => return None,
    };
    let mut filters = Vec::new();
    for facet in FILTER_FACETS {
        match facets.get(facet) {
            Some(v) => {
                for item in parse_list(v) {
                    filters.push((facet.to_string(), item.to_lowercase()));
                }
            }
            None if facet == "kind" => filters.push(("kind".into(), rec.kind.tag().to_string())),
            None => {}
        }
    }
    Some(SearchDoc {
        filters,
        key: rec.case_hash(),
        id: rec.id.clone(),
        source: source.into(),
        title: title.chars().take(120).collect(),
        path: rec.file.to_string(),
        body,
        facets,
    })
}

/// One searchable record, as `search --index` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InventoryItem {
    /// The record's id (a bottleneck pattern's real `BP_…` id).
    pub id: String,
    /// `pattern-library`, `bottleneck-patterns`, `algorithm-candidates`, `capability-gaps` or
    /// `queue`.
    pub source: String,
    /// Its one-line title, as search shows it.
    pub title: String,
    /// Its file.
    pub path: String,
}

/// The order of the sources in the inventory: the old `kb_search.py --index` order.
const SOURCE_ORDER: [&str; 5] =
    ["pattern-library", "bottleneck-patterns", "algorithm-candidates", "capability-gaps", "queue"];

/// Every searchable record of `src`, grouped by source in the old tool's order, then by file
/// path and by position in the file (records no file places come last, by id).
pub fn inventory(
    src: &dyn crate::render::RecordSource,
    layout: &Layout,
) -> Result<Vec<InventoryItem>, evokb_store::StoreError> {
    let mut rows: Vec<(usize, String, usize, InventoryItem)> = Vec::new();
    for file in src.layouts()? {
        let mut pos = 0;
        for item in &file.items {
            let evokb_store::LayoutItem::Record(key) = item else { continue };
            let Some(rec) = src.get(key)? else { continue };
            let Some(doc) = doc_for(&rec, layout) else { continue };
            let rank = SOURCE_ORDER.iter().position(|s| *s == doc.source).unwrap_or(usize::MAX);
            rows.push((
                rank,
                file.path.clone(),
                pos,
                InventoryItem { id: doc.id, source: doc.source, title: doc.title, path: doc.path },
            ));
            pos += 1;
        }
    }
    rows.sort_by(|a, b| (a.0, &a.1, a.2).cmp(&(b.0, &b.1, b.2)));
    Ok(rows.into_iter().map(|r| r.3).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_from_the_forms_in_the_data() {
        assert_eq!(parse_list("[attention, expert]"), ["attention", "expert"]);
        assert_eq!(parse_list("[ \"fp16\" , 'bf16' ,]"), ["fp16", "bf16"]);
        assert_eq!(parse_list("910B2C"), ["910B2C"]);
        assert_eq!(parse_list("\n  - T.copy\n  - T.vadd"), ["T.copy", "T.vadd"]);
        assert!(parse_list("  ").is_empty());
        assert_eq!(title_of("\n### 1.6 copy-floor ✅\n\nx"), "1.6 copy-floor ✅");
    }
}
