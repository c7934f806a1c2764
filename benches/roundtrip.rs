//! Import and render of a synthetic 10k-entry knowledge base in the real format.
//!
//! The corpus is generated once per run (deterministically) into a temporary directory. The
//! `parse_only` figure is the baseline that the other two are read against, because these
//! machines are noisy: what matters is the ratio of import and render to a plain parse.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use evokb_export::{import, layout, parse, render, ImportOptions};
use evokb_store::Store;

const ENTRIES: usize = 10_000;

fn parse_all(root: &Path) -> usize {
    let mut n = 0;
    for mf in layout::Layout::default().discover(root).expect("discover") {
        let text = std::fs::read_to_string(root.join(&mf.path)).expect("read");
        let (pf, _) = parse::parse_file(mf.role, &mf.path, &text);
        n += pf.records.len();
    }
    n
}

fn bench(c: &mut Criterion) {
    let kb = tempfile::tempdir().expect("tempdir");
    evokb_synth::write_kb(kb.path(), ENTRIES, 7).expect("corpus");
    let mut group = c.benchmark_group("roundtrip_10k");
    group.sample_size(10);
    group.bench_function("parse_only", |b| b.iter(|| parse_all(kb.path())));
    group.bench_function("import_fresh_store", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().expect("tempdir");
                let store = Store::create(
                    &dir.path().join(".evokb"),
                    evokb_export::index::default_indexer(),
                )
                .expect("store");
                (dir, store)
            },
            |(dir, store)| {
                import(kb.path(), &store, ImportOptions::default()).expect("import");
                drop(store);
                dir
            },
            BatchSize::PerIteration,
        )
    });
    let sdir = tempfile::tempdir().expect("tempdir");
    let store = Store::create(&sdir.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("store");
    import(kb.path(), &store, ImportOptions::default()).expect("import");
    group.bench_function("render_all", |b| {
        b.iter(|| render::render_all(&store.read().expect("read")).expect("render").len())
    });
    group.bench_function("reimport_unchanged", |b| {
        b.iter(|| import(kb.path(), &store, ImportOptions::default()).expect("import"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
