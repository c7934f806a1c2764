//! What one command costs against what it touches (issue #15), at the library level, at 1k,
//! 10k and 100k entries (`EVOKB_BENCH_100K=0` leaves 100k out).
//!
//! Each size is a synthetic knowledge base in the real format shaped like a large library
//! (`synth::write_kb_shaped`, ~20 entries per topic file: 5,000 files at 100k), imported into a
//! fresh store. Groups, each with its baseline measured in the same run so the figures read as
//! ratios:
//! - `edit/<size>`: `import` after a one-word edit of one topic file (the edit is not timed),
//!   `set_field` of one entry's status (which also changes its INDEX row), and the baseline
//!   `baseline_read_one_file`: reading that topic file. `add_entry` adds one new entry to that
//!   file (`mutate::add_entries`: the entry and its INDEX row, without the add rules).
//! - `edit/<size>` also has `add_same_topic_refused`: `add` of a reworded copy of a stored
//!   entry, refused by the same-topic rule (nothing is committed, so every iteration judges the
//!   same store); the candidates come from the search index.
//! - `hits/<size>`: `record_hit` (one search event appended), `import` after one line appended
//!   to the log by hand (the append is not timed), the hit counts `stats hits`
//!   computes by replaying every event (`hit_counts`) and by reading the stored event counters
//!   (`hit_counts_from_counters`, what it does when they are current), and the baseline
//!   `baseline_read_log`: reading `kb_search_log.jsonl`.
//! - `check/<size>`: `render --check` with nothing changed (`sync::check`), and the baseline
//!   `baseline_read_all_files`: reading every managed file.

use std::cell::OnceCell;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod sizes;

use criterion::{criterion_group, criterion_main, Criterion};
use evokb_export::{import, ImportOptions};
use evokb_store::{Kind, Store};

const SEED: u64 = 7;

struct Corpus {
    dir: tempfile::TempDir,
    store: Store,
    topic: PathBuf,
    files: Vec<PathBuf>,
}

impl Corpus {
    fn build(n: usize) -> Corpus {
        let dir = tempfile::tempdir().expect("tempdir");
        evokb_synth::write_kb_shaped(dir.path(), n, SEED, (n / 140).max(1)).expect("corpus");
        let store =
            Store::create(&dir.path().join(".evokb"), evokb_export::index::default_indexer())
                .expect("store");
        let t0 = Instant::now();
        import(dir.path(), &store, ImportOptions::default()).expect("import");
        eprintln!("cost: {n} entries imported in {:.1?}", t0.elapsed());
        // Issue 15 also bounds the store's size: at most twice the corpus it was imported from.
        let store_bytes = tree_bytes(&dir.path().join(".evokb"));
        let corpus_bytes = tree_bytes(dir.path()) - store_bytes;
        eprintln!(
            "cost: {n} entries: store {store_bytes} bytes, corpus {corpus_bytes} bytes ({:.2}×)",
            store_bytes as f64 / corpus_bytes.max(1) as f64
        );
        // Past the racy window, a second import takes fingerprints that vouch for every file.
        std::thread::sleep(Duration::from_millis(60));
        import(dir.path(), &store, ImportOptions::default()).expect("import");
        let mut files = Vec::new();
        let mut stack = vec![dir.path().join(".agents")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "md" || x == "jsonl") {
                    files.push(p);
                }
            }
        }
        files.sort();
        let topic = files
            .iter()
            .find(|p| {
                p.to_string_lossy().contains("pattern-library/")
                    && !p.ends_with("INDEX.md")
                    && std::fs::read_to_string(p).is_ok_and(|t| t.contains("status: verified"))
            })
            .expect("a topic file")
            .clone();
        Corpus { dir, store, topic, files }
    }

    fn an_entry(&self) -> String {
        let text = std::fs::read_to_string(&self.topic).expect("topic");
        let line = text.lines().find(|l| l.starts_with("id: ")).expect("an id");
        line[4..].trim().to_string()
    }
}

/// The bytes of every regular file under `dir`.
fn tree_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

fn bench(c: &mut Criterion) {
    for (n, label) in sizes::sizes() {
        let cell: OnceCell<Corpus> = OnceCell::new();
        let corpus = || cell.get_or_init(|| Corpus::build(n));

        let mut g = c.benchmark_group(format!("edit/{label}"));
        g.sample_size(10).warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_secs(2));
        g.bench_function("import_after_one_edit", |b| {
            let c = corpus();
            let mut flip = false;
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let text = std::fs::read_to_string(&c.topic).expect("read");
                    let (a, z) = if flip {
                        ("status: stale", "status: verified")
                    } else {
                        ("status: verified", "status: stale")
                    };
                    flip = !flip;
                    std::fs::write(&c.topic, text.replacen(a, z, 1)).expect("write");
                    let t = Instant::now();
                    import(c.dir.path(), &c.store, ImportOptions::default()).expect("import");
                    total += t.elapsed();
                }
                total
            })
        });
        g.bench_function("set_field_status", |b| {
            let c = corpus();
            let id = c.an_entry();
            let mut flip = false;
            b.iter(|| {
                flip = !flip;
                let v = if flip { "obsolete" } else { "verified" };
                evokb_export::mutate::set_field(&c.store, &id, None, "status", v).expect("set")
            })
        });
        g.bench_function("add_same_topic_refused", |b| {
            let c = corpus();
            let id = c.an_entry();
            let real = c
                .store
                .read()
                .expect("read")
                .record_by_id(Kind::Entry, &id)
                .expect("get")
                .expect("entry");
            let copy = real
                .text()
                .replacen(&format!("id: {id}"), &format!("id: {id}-reworded"), 1)
                .replacen("### ", "### 重述：", 1);
            let actor =
                evokb_evolve::deltas::Actor { task: "bench", by: "bench", today: "2026-11-30" };
            b.iter(|| {
                let out = evokb_evolve::deltas::add(
                    &c.store,
                    c.dir.path(),
                    &real.file,
                    &copy,
                    &actor,
                    false,
                    evokb_evolve::deltas::MissingTriad::Refuse,
                );
                assert!(
                    matches!(out, Err(evokb_evolve::error::DeltaError::SameTopic { .. })),
                    "{out:?}"
                );
            })
        });
        g.bench_function("add_entry", |b| {
            let c = corpus();
            let rel = c.topic.strip_prefix(c.dir.path()).expect("inside the corpus");
            let rel = rel.to_string_lossy().to_string();
            let mut n = 0u64;
            // Each iteration adds a new entry: its topic file grows by one entry and INDEX.md
            // by one row, in the one chunk the row lands in.
            b.iter(|| {
                n += 1;
                let text = format!(
                    "---\nid: PL-BENCH-{n}\nkind: pattern\nfamily: [bench]\nstatus: verified\n---\n\n### bench entry {n}\n\nbody {n}\n"
                );
                evokb_export::mutate::add_entries(&c.store, &rel, &text).expect("add")
            })
        });
        g.bench_function("baseline_read_one_file", |b| {
            let c = corpus();
            b.iter(|| std::fs::read(black_box(&c.topic)).expect("read").len())
        });
        g.finish();

        let mut g = c.benchmark_group(format!("hits/{label}"));
        g.sample_size(10).warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_secs(2));
        g.bench_function("record_hit", |b| {
            let c = corpus();
            let ids = vec![c.an_entry()];
            let mut i = 0u64;
            b.iter(|| {
                i += 1;
                let ts = format!(
                    "2026-10-01T{:02}:{:02}:{:02}Z",
                    (i / 3600) % 24,
                    (i / 60) % 60,
                    i % 60
                );
                evokb_evolve::hits::record_hit(
                    c.dir.path(),
                    &c.store,
                    &ts,
                    "tile width",
                    &ids,
                    None,
                )
                .expect("record_hit")
            })
        });
        g.bench_function("import_after_appending_to_log", |b| {
            let c = corpus();
            let log = c.dir.path().join(".agents/evolution/kb_search_log.jsonl");
            let mut i = 0u64;
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    use std::io::Write;
                    i += 1;
                    let line = format!(
                        "{{\"ts\": \"2026-11-01T00:00:00Z\", \"query\": \"by hand {i}\", \"returned\": []}}\n"
                    );
                    let mut f =
                        std::fs::OpenOptions::new().append(true).open(&log).expect("open log");
                    f.write_all(line.as_bytes()).expect("append");
                    drop(f);
                    let t = Instant::now();
                    let report =
                        import(c.dir.path(), &c.store, ImportOptions::default()).expect("import");
                    total += t.elapsed();
                    assert_eq!(report.appended, 1, "the log is taken as its appended line");
                }
                total
            })
        });
        g.bench_function("hit_counts", |b| {
            let c = corpus();
            b.iter(|| {
                let txn = c.store.read().expect("read");
                let events = txn.records_of_kind(Kind::SearchEvent).expect("events");
                evokb_evolve::hits::hit_counts(&events, None).len()
            })
        });
        g.bench_function("hit_counts_from_counters", |b| {
            let c = corpus();
            {
                let mut w = c.store.write().expect("write");
                let counters = evokb_evolve::hits::count_all_hits(&w).expect("count");
                w.replace_event_counters(counters).expect("store");
                w.commit().expect("commit");
            }
            b.iter(|| {
                let txn = c.store.read().expect("read");
                assert!(txn.event_counters_current().expect("current"));
                evokb_evolve::hits::hits_from_counters(txn.event_counters().expect("counters"))
                    .len()
            })
        });
        g.bench_function("baseline_read_log", |b| {
            let c = corpus();
            let log = c.dir.path().join(".agents/evolution/kb_search_log.jsonl");
            b.iter(|| std::fs::read(black_box(&log)).expect("read").len())
        });
        g.finish();

        let mut g = c.benchmark_group(format!("check/{label}"));
        g.sample_size(10).warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_secs(3));
        g.bench_function("render_check_nothing_changed", |b| {
            let c = corpus();
            evokb_export::render_in_place(
                c.dir.path(),
                &c.store,
                &evokb_export::NoDerivedRows,
                true,
            )
            .expect("render");
            b.iter(|| {
                evokb_export::check(c.dir.path(), &c.store, &evokb_export::NoDerivedRows)
                    .expect("check")
                    .len()
            })
        });
        g.bench_function("baseline_read_all_files", |b| {
            let c = corpus();
            b.iter(|| c.files.iter().map(|f| std::fs::read(f).expect("read").len()).sum::<usize>())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
