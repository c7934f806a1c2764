//! Replays `tests/cli/fuzz_regressions.rs` (the crashes the fuzz targets found, and tricky inputs
//! per importer) without fuzzing instrumentation: `cd fuzz && cargo test`.

#[path = "../../tests/cli/fuzz_regressions.rs"]
mod fuzz_regressions;
