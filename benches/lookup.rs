//! Query and search at 1k, 10k and 100k entries (placeholder replaced by the benchmark author).

fn main() {}
