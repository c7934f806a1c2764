//! Import and render of synthetic knowledge bases in the real format, at 1k, 10k and 100k
//! entries (`EVOKB_BENCH_100K=0` leaves 100k out).
//!
//! Each corpus is generated once per run (deterministically) into a temporary directory. The
//! `parse_only` figure is the baseline that the others are read against, because these
//! machines are noisy: what matters is the ratio of import and render to a plain parse.
//! `import_fresh_store` is the library import alone; `import_fresh_judged` is what
//! `evokb import` does into a fresh store: the import, then the quarantine judging of every
//! record it wrote (as parsed, on a second thread while the first builds the indexes), then
//! the commit; `reimport_one_edit_judged` is the same after a one-word edit of one topic file.

use std::path::Path;

mod sizes;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use evokb_export::sync::import_in_beside;
use evokb_export::{import, layout, parse, render, ImportOptions};
use evokb_store::{Silent, Store};

fn parse_all(root: &Path) -> usize {
    let mut n = 0;
    for mf in layout::Layout::default().discover(root).expect("discover") {
        let text = std::fs::read_to_string(root.join(&mf.path)).expect("read");
        let (pf, _) = parse::parse_file(mf.role, &mf.path, &text);
        n += pf.records.len();
    }
    n
}

fn fresh_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::create(&dir.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("store");
    (dir, store)
}

/// `evokb import` into a fresh store, without the process around it. Returns how many records
/// were flagged.
fn import_judged(root: &Path, store: &Store) -> usize {
    let mut txn = store.write().expect("write");
    let judging = evokb_evolve::quarantine::judge_while_importing(root);
    let (_, changed, prejudged) =
        import_in_beside(&mut txn, root, ImportOptions::default(), &Silent, &judging)
            .expect("import");
    let refresh = evokb_evolve::quarantine::refresh_records_prejudged(
        &mut txn, root, changed, prejudged, &Silent,
    )
    .expect("judge");
    let flagged = refresh.flagged.len();
    txn.commit().expect("commit");
    flagged
}

/// The first pattern-library topic file of the knowledge base at `root`, relative to it.
fn one_topic(root: &Path) -> String {
    layout::Layout::default()
        .discover(root)
        .expect("discover")
        .into_iter()
        .map(|mf| mf.path)
        .find(|p| p.contains("/pattern-library/") && p.ends_with(".md") && !p.ends_with("INDEX.md"))
        .expect("a topic file")
}

/// Changes the first entry status of the file at `path`: `verified` to `stale` when `flip`,
/// back otherwise (a one-word edit, as a person makes it).
fn edit_status(path: &Path, flip: bool) {
    let text = std::fs::read_to_string(path).expect("read topic");
    let (from, to) = if flip {
        ("status: verified", "status: stale")
    } else {
        ("status: stale", "status: verified")
    };
    let (from, to) = if text.contains(from) { (from, to) } else { (to, from) };
    std::fs::write(path, text.replacen(from, to, 1)).expect("write topic");
}

fn bench(c: &mut Criterion) {
    for (n, label) in sizes::sizes() {
        let kb = tempfile::tempdir().expect("tempdir");
        evokb_synth::write_kb(kb.path(), n, 7).expect("corpus");
        let mut group = c.benchmark_group(format!("roundtrip_{label}"));
        group.sample_size(10);
        group.bench_function("parse_only", |b| b.iter(|| parse_all(kb.path())));
        group.bench_function("import_fresh_store", |b| {
            b.iter_batched(
                fresh_store,
                |(dir, store)| {
                    import(kb.path(), &store, ImportOptions::default()).expect("import");
                    drop(store);
                    dir
                },
                BatchSize::PerIteration,
            )
        });
        group.bench_function("import_fresh_judged", |b| {
            b.iter_batched(
                fresh_store,
                |(dir, store)| {
                    import_judged(kb.path(), &store);
                    drop(store);
                    dir
                },
                BatchSize::PerIteration,
            )
        });
        let (_sdir, store) = fresh_store();
        import(kb.path(), &store, ImportOptions::default()).expect("import");
        group.bench_function("render_all", |b| {
            b.iter(|| render::render_all(&store.read().expect("read")).expect("render").len())
        });
        group.bench_function("reimport_unchanged", |b| {
            b.iter(|| import(kb.path(), &store, ImportOptions::default()).expect("import"))
        });
        // What `evokb import` does after a person changed one word of one topic file: the
        // figure issue 15 bounds at 100 ms, whole process.
        let topic = kb.path().join(one_topic(kb.path()));
        let mut flip = false;
        group.bench_function("reimport_one_edit_judged", |b| {
            b.iter(|| {
                flip = !flip;
                edit_status(&topic, flip);
                import_judged(kb.path(), &store)
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
