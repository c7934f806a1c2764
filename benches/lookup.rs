//! `evokb query` and `evokb search` at the library level, at 1k, 10k and 100k entries.
//!
//! Each size is a synthetic knowledge base in the real format (`synth::write_kb`, fixed seed)
//! imported into a fresh store, which also builds the facet index and the tantivy index. A size
//! is generated the first time one of its benchmarks runs, so `cargo bench --bench lookup --
//! query/1k` only pays for 1k. Setting up 100k takes about half a minute in release mode; set
//! `EVOKB_BENCH_100K=0` to leave it out.
//!
//! Groups:
//! - `query/<size>`: `ReadTxn::query` for one facet (`family = attention`) and for an AND of two
//!   facets (`family = attention` and `dtype = fp16`) and of four (`scripts/cost.py`'s: family
//!   attention, dtype fp16, apis T.gemm, status stale), each including the read transaction;
//!   `*_json`: the first and the last through `ReadTxn::query_json`, the rows' stored JSON
//!   copied into one buffer as `query --json` prints it; and
//!   the baseline `baseline_scan_family`: what grep would do, a linear scan over every record in
//!   memory keeping those whose `family` field contains `attention` as a substring.
//! - `search/<size>`: `Store::search` for `搬运 带宽 MTE2`, top 8 (opens the index as the command
//!   does; no hit is recorded at this level), the same `baseline_scan_family`, and
//!   `baseline_scan_text`: a linear scan over every record's text (pre-rendered in memory) for
//!   the three words as substrings. Last, `record_hit`: what the command adds to a search that
//!   returns results (one write transaction and a rewrite of `kb_search_log.jsonl`).
//!
//! The baselines are measured in the same run, so results can be read as ratios.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod sizes;

use criterion::{criterion_group, criterion_main, Criterion};
use evokb_export::{import, ImportOptions};
use evokb_store::query::Filter;
use evokb_store::search::SearchQuery;
use evokb_store::{Record, Store};

const SEED: u64 = 7;
const SEARCH_TEXT: &str = "搬运 带宽 MTE2";

/// One generated and imported corpus, kept for the whole run.
struct Corpus {
    dir: tempfile::TempDir,
    store: Store,
    records: Vec<Record>,
    texts: Vec<String>,
}

impl Corpus {
    fn build(n: usize) -> Corpus {
        let t0 = Instant::now();
        let dir = tempfile::tempdir().expect("tempdir");
        evokb_synth::write_kb(dir.path(), n, SEED).expect("corpus");
        let t1 = Instant::now();
        let store =
            Store::create(&dir.path().join(".evokb"), evokb_export::index::default_indexer())
                .expect("store");
        import(dir.path(), &store, ImportOptions::default()).expect("import");
        let t2 = Instant::now();
        let records = store.read().expect("read").records().expect("records");
        let texts = records.iter().map(Record::text).collect();
        eprintln!(
            "lookup: {n} entries: generated in {:.1?}, imported in {:.1?}, {} records loaded in {:.1?}",
            t1 - t0,
            t2 - t1,
            records.len(),
            t2.elapsed()
        );
        Corpus { dir, store, records, texts }
    }
}

fn facet_filter(pairs: &[(&str, &str)]) -> Filter {
    let mut facets = BTreeMap::new();
    for (k, v) in pairs {
        facets.entry(k.to_string()).or_insert_with(Vec::new).push(v.to_string());
    }
    Filter { facets, ..Default::default() }
}

/// What grep would do: every record whose `family` field contains the value as a substring.
/// The bytes of a `--json` answer (the array's rows), as the command prints them.
fn json_bytes(rows: &evokb_store::JsonRows<'_>) -> usize {
    let mut out = Vec::new();
    for i in 0..rows.len() {
        rows.write_row(i, false, &mut out);
    }
    out.len()
}

fn scan_family(records: &[Record], value: &str) -> usize {
    records.iter().filter(|r| r.field("family").is_some_and(|f| f.contains(value))).count()
}

/// Every record text containing all of the words as substrings.
fn scan_text(texts: &[String], words: &[&str]) -> usize {
    texts.iter().filter(|t| words.iter().all(|w| t.contains(w))).count()
}

fn bench(c: &mut Criterion) {
    for (n, label) in sizes::sizes() {
        let cell: OnceCell<Corpus> = OnceCell::new();
        let corpus = || cell.get_or_init(|| Corpus::build(n));
        let one = facet_filter(&[("family", "attention")]);
        let two = facet_filter(&[("family", "attention"), ("dtype", "fp16")]);
        let four = facet_filter(&[
            ("family", "attention"),
            ("dtype", "fp16"),
            ("apis", "T.gemm"),
            ("status", "stale"),
        ]);

        let mut g = c.benchmark_group(format!("query/{label}"));
        g.sample_size(10).warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(2));
        g.bench_function("family_attention", |b| {
            let s = &corpus().store;
            b.iter(|| s.read().expect("read").query(black_box(&one)).expect("query").len())
        });
        g.bench_function("family_attention_and_dtype_fp16", |b| {
            let s = &corpus().store;
            b.iter(|| s.read().expect("read").query(black_box(&two)).expect("query").len())
        });
        g.bench_function("four_facets", |b| {
            let s = &corpus().store;
            b.iter(|| s.read().expect("read").query(black_box(&four)).expect("query").len())
        });
        // What `query --json` does: the stored JSON of each row copied into one buffer.
        g.bench_function("family_attention_json", |b| {
            let s = &corpus().store;
            b.iter(|| {
                s.read().expect("read").query_json(black_box(&one), json_bytes).expect("query")
            })
        });
        g.bench_function("four_facets_json", |b| {
            let s = &corpus().store;
            b.iter(|| {
                s.read().expect("read").query_json(black_box(&four), json_bytes).expect("query")
            })
        });
        g.bench_function("baseline_scan_family", |b| {
            let r = &corpus().records;
            b.iter(|| scan_family(r, black_box("attention")))
        });
        g.finish();

        let q = SearchQuery { text: SEARCH_TEXT.into(), top: 8, ..Default::default() };
        let mut g = c.benchmark_group(format!("search/{label}"));
        g.sample_size(10).warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(2));
        g.bench_function("text_top8", |b| {
            let s = &corpus().store;
            b.iter(|| {
                let out = s.search(black_box(&q)).expect("search");
                assert!(out.rebuilt.is_none(), "the index was rebuilt: {:?}", out.rebuilt);
                out.hits.len()
            })
        });
        g.bench_function("baseline_scan_family", |b| {
            let r = &corpus().records;
            b.iter(|| scan_family(r, black_box("attention")))
        });
        g.bench_function("baseline_scan_text", |b| {
            let t = &corpus().texts;
            let words: Vec<&str> = SEARCH_TEXT.split(' ').collect();
            b.iter(|| scan_text(t, black_box(&words)))
        });
        // Mutates the corpus (adds search events), so it runs last; events are not searchable
        // and carry no facets, so the figures above are unaffected on a re-run.
        g.bench_function("record_hit", |b| {
            let c = corpus();
            let ids: Vec<String> =
                c.store.search(&q).expect("search").hits.into_iter().map(|h| h.id).collect();
            let mut i = 0u64;
            b.iter(|| {
                i += 1;
                let ts = format!("2026-10-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 60);
                evokb_evolve::hits::record_hit(c.dir.path(), &c.store, &ts, SEARCH_TEXT, &ids, None)
                    .expect("record_hit")
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
