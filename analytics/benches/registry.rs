//! Registry import into a store and a figure read back from it, at 10k and 100k cases × 50
//! rounds (issue 12, "Scale"; `scripts/scale-analytics.sh` times the whole process at 1M).
//!
//! `cargo bench -p evokb-analytics --bench registry`
//!
//! The registry is generated from a fixed-seed xorshift, so runs are comparable.

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use evokb_analytics::breakdown::{transitions_by_in, GroupBy};
use evokb_analytics::stored::{self, Registry};
use evokb_store::{NoIndex, Store};

const ROUNDS: usize = 50;
const PATTERNS: [&str; 4] =
    ["nav_agent_vs_ct", "weather_city_slot", "music_intent_slot", "negation_ignored"];
const SUBSETS: [&str; 3] = ["大盘车载", "specific_test", "需求集合:icl_test"];

fn registry(cases: usize) -> String {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::with_capacity(cases * 560);
    for c in 0..cases {
        let (mut evaluated, mut failed) = (Vec::new(), Vec::new());
        for r in 0..ROUNDS {
            if next() % 100 < 95 {
                evaluated.push(format!("\"R{r}\""));
                if next() % 100 < 20 {
                    failed.push(format!("\"R{r}\""));
                }
            }
        }
        let _ = writeln!(
            out,
            "{{\"case_hash\": \"{:016x}\", \"query\": \"上海明天下雨吗#{c}\", \"gold\": \"Weather\", \"subset\": \"{}\", \"pattern\": \"{}\", \"evaluated\": [{}], \"failed_rounds\": [{}]}}",
            next(),
            SUBSETS[c % SUBSETS.len()],
            PATTERNS[c % PATTERNS.len()],
            evaluated.join(", "),
            failed.join(", "),
        );
    }
    out
}

fn import(store: &Store, text: &str) {
    let mut w = store.write().expect("write");
    let mut reg = Registry::load(&mut w).expect("load");
    reg.import_file(&mut w, text.as_bytes(), "bench.jsonl").expect("import");
    reg.save(&mut w).expect("save");
    w.commit().expect("commit");
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry");
    group.sample_size(10);
    for cases in [10_000, 100_000] {
        let text = registry(cases);
        group.bench_with_input(BenchmarkId::new("import", cases), &text, |b, text| {
            b.iter_with_setup(
                || {
                    let dir = tempfile::tempdir().expect("tempdir");
                    let store = Store::create(&dir.path().join(".evokb"), Arc::new(NoIndex))
                        .expect("store");
                    (dir, store)
                },
                |(dir, store)| {
                    import(&store, text);
                    (dir, store)
                },
            );
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::create(&dir.path().join(".evokb"), Arc::new(NoIndex)).expect("store");
        import(&store, &text);
        group.bench_function(BenchmarkId::new("transitions_by_pattern", cases), |b| {
            b.iter(|| {
                let table = stored::load_table(&store.read().expect("read")).expect("load");
                black_box(transitions_by_in(&table, None, None, GroupBy::Pattern).expect("figure"))
            });
        });
        group.bench_function(BenchmarkId::new("reimport_unchanged", cases), |b| {
            b.iter(|| import(&store, &text));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
