//! `search` and `stats hits`: full-text search with hit recording, and hit counts per entry.

use std::fmt::Write as _;
use std::path::Path;

use evokb_evolve::hits::{hit_counts, record_hit};
use evokb_store::search::SearchQuery;
use serde_json::json;

use super::{ok, print, print_json};
use crate::cli::FacetArgs;
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

use crate::clock::utc_now;

/// The text-output marker of a quarantined record (issue #10).
pub const QUARANTINE_MARK: &str =
    "  [QUARANTINED: KB-SEC finding, see 'evokb lint'; 'evokb clear ID --reason …' after review]";

pub fn search(
    root: Option<&Path>,
    text: &str,
    facets: &FacetArgs,
    (top, offset): (usize, usize),
    task: Option<&str>,
    json_out: bool,
) -> CmdResult {
    if text.trim().is_empty() {
        return Err(CommandError::new(ErrorKind::Usage, "the query is empty"));
    }
    let max = crate::args::MAX_TOP;
    let Some(want) = top.checked_add(offset).filter(|w| *w <= max) else {
        return Err(CommandError::new(
            ErrorKind::Usage,
            format!("--offset {offset} with --top {top} reaches past result {max}, the most a search ranks"),
        ));
    };
    let root = root::find(root)?;
    let store = root::open(&root)?;
    let filter = facets.filter();
    let q = SearchQuery {
        text: text.to_string(),
        facets: filter.facets,
        id_prefixes: filter.id_prefixes,
        top: want,
    };
    let outcome = store.search(&q)?;
    if let Some(rebuilt) = &outcome.rebuilt {
        eprintln!("evokb: {rebuilt}");
    }
    // The page the agent sees is what it was given: only those results count as hits.
    let hits: Vec<_> = outcome.hits.into_iter().skip(offset).collect();
    let quarantined = evokb_evolve::quarantine::active_ids(&store.read()?)?;
    if !hits.is_empty() {
        let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
        let report = record_hit(&root, &store, &utc_now(), text, &ids, task)?;
        if !report.file_written {
            eprintln!(
                "evokb: kb_search_log.jsonl was edited since the last sync; the hit is in the store only until 'evokb import' and 'evokb render'"
            );
        }
    }
    if json_out {
        let results: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                let mut v = json!({
                    "id": h.id,
                    "source": h.source,
                    "title": h.title,
                    "path": h.path,
                    "facets": h.facets,
                    "score": (f64::from(h.score) * 1000.0).round() / 1000.0,
                    "snippet": h.snippet,
                });
                if quarantined.contains(&h.id) {
                    v["quarantined"] = json!(true);
                }
                v
            })
            .collect();
        let mut value = json!({"query": text, "results": results});
        if offset > 0 {
            value["offset"] = json!(offset);
        }
        print_json(&value)?;
        return ok();
    }
    if hits.is_empty() {
        print(&format!("evokb search: no entries matched '{text}'\n"))?;
        return ok();
    }
    let mut out = format!("evokb search '{text}' -> top {}\n", hits.len());
    for (rank, h) in hits.iter().enumerate() {
        let _ = write!(
            out,
            "\n[{}] {}  ({}, score={:.2}){}\n{}\n",
            offset + rank + 1,
            h.id,
            h.source,
            h.score,
            if quarantined.contains(&h.id) { QUARANTINE_MARK } else { "" },
            h.title
        );
        let facets: Vec<String> = h
            .facets
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !facets.is_empty() {
            let _ = writeln!(out, "facets: {}", facets.join(" "));
        }
        let _ = writeln!(out, "{}\n{}", h.path, h.snippet);
    }
    print(&out)?;
    ok()
}

pub fn hits(root: Option<&Path>, since: Option<&str>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let records = store.read()?.records()?;
    let counts = hit_counts(&records, since);
    let mut zero: Vec<&str> = records
        .iter()
        .filter(|r| evokb_export::kinds::info(r.kind).hit_target)
        .map(|r| r.id.as_str())
        .filter(|id| !counts.iter().any(|c| c.id == *id))
        .collect();
    zero.sort_unstable();
    if json_out {
        print_json(&json!({"entries": counts, "zero_hit": zero}))?;
        return ok();
    }
    let mut out = String::new();
    for c in &counts {
        let _ = writeln!(
            out,
            "{:>5}  {:<44} {}  {}",
            c.hits,
            c.id,
            c.last_hit_ts,
            c.last_hit_task.as_deref().unwrap_or("-")
        );
    }
    let _ = writeln!(
        out,
        "{} entries hit; {} entries with no hit{}:",
        counts.len(),
        zero.len(),
        since.map(|s| format!(" since {s}")).unwrap_or_default()
    );
    for z in &zero {
        let _ = writeln!(out, "  {z}");
    }
    print(&out)?;
    ok()
}
