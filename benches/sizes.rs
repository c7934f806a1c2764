//! The corpus sizes the lookup and cost benches run at: 1k, 10k and 100k entries, 100k left out
//! when `EVOKB_BENCH_100K=0` (it takes about half a minute to set up in release mode).

/// `(entries, label)` for each size to bench.
pub fn sizes() -> Vec<(usize, &'static str)> {
    let mut v = vec![(1_000, "1k"), (10_000, "10k")];
    if std::env::var("EVOKB_BENCH_100K").map_or(true, |s| s != "0") {
        v.push((100_000, "100k"));
    }
    v
}
