//! `evokb query`: facet filters answered from the index tables, ORed within a facet and ANDed
//! across facets, in a deterministic order, and kept current by every write.

use evokb_export::mutate;
use evokb_store::Filter;

use crate::support::*;

fn ids(store: &evokb_store::Store, facets: &[(&str, &[&str])], prefixes: &[&str]) -> Vec<String> {
    let mut filter = Filter::default();
    for (f, vs) in facets {
        filter.facets.insert(f.to_string(), vs.iter().map(|v| v.to_string()).collect());
    }
    filter.id_prefixes = prefixes.iter().map(|p| p.to_string()).collect();
    store.read().expect("r").query(&filter).expect("query").into_iter().map(|r| r.id).collect()
}

#[test]
fn facets_or_within_and_across() {
    let (_kb, store) = imported_sample();
    let all = ids(&store, &[], &[]);
    assert_eq!(all.len(), 66);
    let attention = ids(&store, &[("family", &["attention"])], &[]);
    let norm = ids(&store, &[("family", &["norm"])], &[]);
    let either = ids(&store, &[("family", &["attention", "norm"])], &[]);
    assert!(either.len() >= attention.len().max(norm.len()));
    assert!(attention.iter().chain(&norm).all(|id| either.contains(id)));
    let both = ids(&store, &[("family", &["attention"]), ("dtype", &["bf16"])], &[]);
    let bf16 = ids(&store, &[("dtype", &["bf16"])], &[]);
    assert!(!both.is_empty());
    assert!(both.iter().all(|id| attention.contains(id) && bf16.contains(id)));
    assert_eq!(
        ids(&store, &[("kind", &["trap"]), ("status", &["overturned"])], &[]),
        ["TRAP-C1-old-compiler-transpose"]
    );
    assert_eq!(ids(&store, &[("family", &["ATTENTION"])], &[]), attention, "case-insensitive");
    assert_eq!(ids(&store, &[], &["CONST-"]).len(), 9);
    // Lists are parsed, not matched as raw strings: no partial-word hits.
    assert!(ids(&store, &[("family", &["atten"])], &[]).is_empty());
}

#[test]
fn the_index_follows_every_write() {
    let (kb, store) = imported_sample();
    assert!(ids(&store, &[("family", &["brand-new"])], &[]).is_empty());
    mutate::set_field(&store, "PL-1.6-copy-floor", None, "family", "[elementwise, brand-new]")
        .expect("set");
    assert_eq!(ids(&store, &[("family", &["brand-new"])], &[]), ["PL-1.6-copy-floor"]);
    let rows = store.read().expect("r").query(&Filter::default()).expect("q");
    let row = rows.iter().find(|r| r.id == "PL-1.6-copy-floor").expect("row");
    assert_eq!((row.line, row.kind.as_str()), (5, "constant"));
    // A reviewer's edit, imported, moves the lines of the entries after it.
    let path = kb.path().join(topic("elementwise.md"));
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replacen("# Elementwise", "# Elementwise\n\nnew line\n", 1))
        .expect("write");
    evokb_export::import(kb.path(), &store, Default::default()).expect("import");
    let rows = store.read().expect("r").query(&Filter::default()).expect("q");
    let row = rows.iter().find(|r| r.id == "PL-1.6-copy-floor").expect("row");
    assert_eq!(row.line, 8);
}

#[test]
fn the_cli_prints_the_documented_json_shape() {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    let out = evokb(kb.path(), &["query", "--family", "attention", "--api", "T.gemm", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    let first = &rows[0];
    let keys: Vec<&str> = first.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["id", "kind", "title", "file", "line", "family", "apis", "dtype", "device", "status"]
    );
    assert!(rows.as_array().expect("array").iter().all(|r| {
        r["family"].as_array().expect("list").iter().any(|f| f == "attention")
            && r["apis"].as_array().expect("list").iter().any(|a| a == "T.gemm")
    }));
}

#[test]
fn searches_record_hits_that_render_into_the_stats_hit_table() {
    let kb = sample();
    assert!(evokb(kb.path(), &["init"]).status.success());
    assert!(evokb(kb.path(), &["import"]).status.success());
    let out =
        evokb(kb.path(), &["search", "vrsqrt", "精度", "--task", "t-hits", "--top", "3", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["results"][0]["id"], "TRAP-vrsqrt-plain-precision");
    let log = std::fs::read_to_string(kb.path().join(".agents/evolution/kb_search_log.jsonl"))
        .expect("log");
    let last = log.lines().last().expect("line");
    assert!(
        last.starts_with("{\"ts\": \"2026-11-29T")
            && last.contains("\"query\": \"vrsqrt 精度\"")
            && last.ends_with(", \"task\": \"t-hits\"}"),
        "{last}"
    );
    let hits: serde_json::Value =
        serde_json::from_str(&stdout(&evokb(kb.path(), &["stats", "hits", "--json"])))
            .expect("json");
    let row = hits["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["id"] == "TRAP-vrsqrt-plain-precision")
        .expect("hit");
    assert_eq!(row["last_hit_task"], "t-hits");
    assert!(hits["zero_hit"].as_array().expect("zero").iter().any(|z| z == "PL-1.3-host-permute"));
    // render regenerates the hit table from the events and keeps the note column.
    assert!(evokb(kb.path(), &["render"]).status.success());
    let stats =
        std::fs::read_to_string(kb.path().join(".agents/evolution/stats.md")).expect("stats");
    let line = stats
        .lines()
        .find(|l| {
            l.starts_with("| traps-runtime.md TRAP-vrsqrt-plain-precision |")
                || l.starts_with("| TRAP-vrsqrt-plain-precision |")
        })
        .expect("hit row");
    assert!(line.contains("| t-hits |"), "{line}");
    assert_eq!(evokb(kb.path(), &["render", "--check"]).status.code(), Some(0));
}
