//! The detector fingerprint compiled into this build covers every file under `lint/src/`, at
//! any depth: a change to any of them (the norm table in `src/norms/table.rs` included) gives a
//! new number, so verdicts remembered by an older build are checked again.

#[path = "../fingerprint.rs"]
mod fingerprint;

use std::path::Path;

#[test]
fn the_compiled_fingerprint_is_that_of_every_source_file_at_any_depth() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (hash, names) = fingerprint::of_sources(&src).expect("the sources read");
    assert!(names.iter().any(|n| n == "norms/table.rs"), "{names:?}");
    assert!(names.iter().any(|n| n == "lib.rs"), "{names:?}");
    assert_eq!(hash, evokb_lint::DETECTOR_FINGERPRINT);
}
