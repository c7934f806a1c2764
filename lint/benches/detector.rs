//! Criterion bench of the `KB-SEC-*` checks (issue #10 point 3), the way `evokb lint` calls
//! them: one `check_security` per entry text.
//!
//! - `real-sample`: every markdown file of the real sample (`tests/data/tilelang-kb`, about
//!   5,800 lines), one text per file;
//! - `generated`: the entries of a generated corpus, when `EVOKB_BENCH_KB` names one
//!   (`cargo run --release -p evokb-synth -- --entries 10000 DIR`; entries are the
//!   `---`-delimited front-matter blocks with their bodies). Skipped without it.
//!
//! Each is timed twice: `cold` empties the per-line caches before every pass (the first pass
//! of a process), `warm` keeps them (a knowledge base repeats front-matter lines, so most of a
//! pass is warm even in one process), and `cold-no-prefilters` is the cold pass with the
//! byte-level prefilters off. The whole-process figure is `scripts/lint_timing.sh`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

#[path = "../tests/support/walk.rs"]
mod walk;

/// Split files into entries at front-matter fences, as the store holds them.
fn entries(files: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let mut cur = String::new();
        let mut fences = 0;
        for l in f.lines() {
            if l.trim_end() == "---" {
                fences += 1;
                if fences % 2 == 1 && !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            cur.push_str(l);
            cur.push('\n');
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

fn run(texts: &[String]) -> usize {
    texts.iter().map(|t| evokb_lint::check_security(t, None, None).len()).sum()
}

fn bench(c: &mut Criterion) {
    let sample =
        walk::md_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tilelang-kb"));
    let generated =
        std::env::var_os("EVOKB_BENCH_KB").map(|d| entries(&walk::md_texts(Path::new(&d))));
    let mut g = c.benchmark_group("kb-sec");
    g.sample_size(10);
    let mut sets = vec![("real-sample", sample)];
    if let Some(gen) = generated {
        sets.push(("generated", gen));
    }
    for (name, texts) in &sets {
        g.bench_function(format!("check_security/{name}/cold"), |b| {
            b.iter_batched(evokb_lint::clear_caches, |()| run(texts), BatchSize::PerIteration)
        });
        g.bench_function(format!("check_security/{name}/warm"), |b| b.iter(|| run(texts)));
        // The same cold pass with the byte-level prefilters off (every scanner on every
        // line): what the prefilters save.
        g.bench_function(format!("check_security/{name}/cold-no-prefilters"), |b| {
            evokb_lint::set_prefilters(false);
            b.iter_batched(evokb_lint::clear_caches, |()| run(texts), BatchSize::PerIteration);
            evokb_lint::set_prefilters(true);
        });
    }
    g.bench_function("check_injection/real-sample/cold", |b| {
        b.iter_batched(
            evokb_lint::clear_caches,
            |()| sets[0].1.iter().map(|t| evokb_lint::check_injection(t).len()).sum::<usize>(),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
