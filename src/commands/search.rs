//! `search` and `stats hits`: full-text search with hit recording, and hit counts per entry.

use std::fmt::Write as _;
use std::path::Path;

use evokb_evolve::hits::{count_all_hits, hits_from_counters, record_hit, EntryHits, HitCounter};
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

/// What a search found, and the notes for stderr (an index rebuilt, a hit kept in the store only).
pub struct Found {
    /// The hits, best first.
    pub hits: Vec<evokb_store::search::SearchHit>,
    /// How many records matched in all, of which `hits` is the page asked for.
    pub total: usize,
    /// The ids under quarantine.
    pub quarantined: std::collections::HashSet<String>,
    /// One line each, for stderr.
    pub notes: Vec<String>,
}

/// Searches the store of the knowledge base at `root` and records the hit (with `task`) when
/// results come back: the one search of both `evokb search` and the MCP `search` tool.
pub fn find(
    root: &Path,
    text: &str,
    filter: evokb_store::Filter,
    (top, offset): (usize, usize),
    task: Option<&str>,
) -> CmdResult<Found> {
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
    let store = root::open(root)?;
    let q = SearchQuery {
        text: text.to_string(),
        facets: filter.facets,
        id_prefixes: filter.id_prefixes,
        top: want,
    };
    let outcome = store.search(&q)?;
    let mut notes: Vec<String> = outcome.rebuilt.iter().map(ToString::to_string).collect();
    // The page the agent sees is what it was given: only those results count as hits.
    let hits: Vec<_> = outcome.hits.into_iter().skip(offset).collect();
    let quarantined = evokb_evolve::quarantine::active_ids(&store.read()?)?;
    if !hits.is_empty() {
        let ids: Vec<String> = hits.iter().map(|h| h.id.clone()).collect();
        let report = record_hit(root, &store, &utc_now(), text, &ids, task)?;
        if !report.file_written {
            notes.push(
                "kb_search_log.jsonl was edited since the last sync; the hit is in the store only until 'evokb import' and 'evokb render'".to_string(),
            );
        }
    }
    Ok(Found { hits, total: outcome.total, quarantined, notes })
}

/// The JSON of a search: `{query, total, results: [{id, source, title, path, facets, score,
/// snippet}]}`, `total` the number of records that matched.
pub fn results_json(text: &str, found: &Found) -> serde_json::Value {
    let results: Vec<serde_json::Value> = found
        .hits
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
            if found.quarantined.contains(&h.id) {
                v["quarantined"] = json!(true);
            }
            v
        })
        .collect();
    json!({"query": text, "total": found.total, "results": results})
}

pub fn search(
    root: Option<&Path>,
    text: &str,
    facets: &FacetArgs,
    (top, offset): (usize, usize),
    task: Option<&str>,
    json_out: bool,
) -> CmdResult {
    let root = root::find(root)?;
    let found = find(&root, text, facets.filter(), (top, offset), task)?;
    for note in &found.notes {
        eprintln!("evokb: {note}");
    }
    if json_out {
        let mut value = results_json(text, &found);
        if offset > 0 {
            value["offset"] = json!(offset);
        }
        print_json(&value)?;
        return ok();
    }
    let (hits, quarantined) = (&found.hits, &found.quarantined);
    if hits.is_empty() {
        // With matches, only a page past the last of them (`--offset`) is empty.
        print(&format!(
            "evokb search: no entries matched '{text}'\n0 of {} entr{}\n",
            found.total,
            if found.total == 1 { "y" } else { "ies" }
        ))?;
        return ok();
    }
    let mut out = format!("evokb search '{text}' -> top {}\n", hits.len());
    for (rank, h) in hits.iter().enumerate() {
        let _ = write!(
            out,
            "\n[{}] {}  ({}, score={:.2}){}\n{}\n",
            rank + 1 + offset,
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
    let total = found.total;
    let _ =
        writeln!(out, "\n{} of {total} entr{}", hits.len(), if total == 1 { "y" } else { "ies" });
    print(&out)?;
    ok()
}

/// The page cache of [`hit_table`]'s store handle.
const HIT_TABLE_CACHE_BYTES: usize = 8 << 20;

/// Hits per entry (`since` a date or timestamp) and the hit targets with none, sorted.
///
/// Without `since`, the counts are the store's event counters (one row per hit target, kept by
/// every recorded hit): they are read when current, and otherwise (after an import changed the
/// log) counted once from the events and stored, under the write lock, for the next report.
/// With `since`, the events are counted.
pub fn hit_table(root: &Path, since: Option<&str>) -> CmdResult<(Vec<EntryHits>, Vec<String>)> {
    // The events lie among the other records (key order is hash order), so counting them
    // reads most leaf pages of the records table once each: a small page cache is reused
    // instead of filling fresh memory with pages never read again.
    let mut store = root::open_for_reading_with_cache(root, HIT_TABLE_CACHE_BYTES)?;
    let txn = store.read()?;
    let counts = match since {
        None if txn.event_counters_current()? => hits_from_counters(txn.event_counters()?),
        None => {
            // Counting under the write lock needs a write handle: this one goes first.
            drop(txn);
            drop(store);
            let counters = store_hit_counters(root)?;
            store = root::open_for_reading_with_cache(root, HIT_TABLE_CACHE_BYTES)?;
            hits_from_counters(counters)
        }
        Some(_) => {
            // Only the search events are read, each once and one at a time: at 100k events,
            // holding them all decoded cost more in fresh memory than counting them.
            let mut counter = HitCounter::new(since);
            txn.for_each_record_of_kind(evokb_store::Kind::SearchEvent, |rec| counter.add(rec))?;
            counter.finish()
        }
    };
    let txn = store.read()?;
    let counted: std::collections::HashSet<&str> = counts.iter().map(|c| c.id.as_str()).collect();
    let mut zero: Vec<String> = Vec::new();
    for kind in evokb_export::kinds::kinds_where(|i| i.hit_target) {
        // Entries are many: their ids come from the facet index keys, not from decoding them.
        let ids = if kind == evokb_store::Kind::Entry {
            txn.entry_ids()?
        } else {
            txn.records_of_kind(kind)?.into_iter().map(|r| r.id).collect()
        };
        zero.extend(ids.into_iter().filter(|id| !counted.contains(id.as_str())));
    }
    zero.sort_unstable();
    Ok((counts, zero))
}

/// Counts every hit target's hits from the search events and stores them as the event
/// counters, in one write transaction (another process may have done it meanwhile: then its
/// counters are read). When the store cannot be written (a read-only copy), the count is
/// returned without being kept.
fn store_hit_counters(root: &Path) -> CmdResult<Vec<(String, evokb_store::events::EventCounter)>> {
    let store = match root::open_with_cache(root, HIT_TABLE_CACHE_BYTES) {
        Ok(store) => store,
        Err(_) => {
            let store = root::open_for_reading_with_cache(root, HIT_TABLE_CACHE_BYTES)?;
            let txn = store.read()?;
            return Ok(count_all_hits(&txn)?);
        }
    };
    let mut w = store.write()?;
    if w.event_counters_current()? {
        return Ok(w.event_counters()?);
    }
    let counters = count_all_hits(&w)?;
    w.replace_event_counters(counters.iter().cloned())?;
    w.commit()?;
    Ok(counters)
}

/// `search --index`: every searchable record, in the old tool's order; reads only.
pub fn inventory(root: Option<&Path>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let txn = store.read()?;
    let layout = evokb_export::layout::Layout::of(&txn)?;
    let items = evokb_export::index::inventory(&txn, &layout)?;
    if json_out {
        print_json(&json!(items))?;
        return ok();
    }
    let mut out = String::new();
    for it in &items {
        let _ = writeln!(out, "{:<22} {}  {}", it.source, it.id, it.title);
    }
    print(&out)?;
    ok()
}

pub fn hits(root: Option<&Path>, since: Option<&str>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let (counts, zero) = hit_table(&root, since)?;
    if json_out {
        // Serialised straight from the rows: building a serde_json::Value of 100k rows first
        // cost a sixth of the command.
        #[derive(serde::Serialize)]
        struct HitsJson<'a> {
            entries: &'a [EntryHits],
            zero_hit: &'a [String],
        }
        print_json(&HitsJson { entries: &counts, zero_hit: &zero })?;
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
