//! Criterion bench of the `KB-SEC-*` checks (issue #10 point 3): every markdown file of the
//! real sample (`tests/data/tilelang-kb`, about 5,800 lines), checked as one text per file,
//! the way `evokb lint` checks one record at a time. The whole-process figure on the 10k-entry
//! generated corpus is in the README (`cargo run --release -p evokb-synth -- --entries 10000
//! DIR`, then `evokb lint` in DIR).

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};

fn sample_texts() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.filter_map(|e| e.ok()) {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                if let Ok(t) = std::fs::read_to_string(&p) {
                    out.push(t);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/tilelang-kb"), &mut out);
    out
}

fn bench(c: &mut Criterion) {
    let texts = sample_texts();
    let mut g = c.benchmark_group("kb-sec");
    g.sample_size(10);
    g.bench_function("check_security/real-sample", |b| {
        b.iter(|| {
            texts.iter().map(|t| evokb_lint::check_security(t, None, None).len()).sum::<usize>()
        })
    });
    g.bench_function("check_injection/real-sample", |b| {
        b.iter(|| texts.iter().map(|t| evokb_lint::check_injection(t).len()).sum::<usize>())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
