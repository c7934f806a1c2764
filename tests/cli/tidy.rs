//! Repository hygiene checked as tests: every Rust file says what it owns in a `//!` header,
//! and every module file of this test binary is declared (a forgotten file would never run).

use std::path::Path;

use crate::support::files_under;

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    for dir in [
        "src",
        "store/src",
        "export/src",
        "analytics",
        "lint",
        "fuzz/src",
        "fuzz/fuzz_targets",
        "tests",
        "benches",
    ] {
        for rel in files_under(&root.join(dir)) {
            if rel.extension().is_some_and(|e| e == "rs") && !rel.starts_with("data") {
                let text = std::fs::read_to_string(root.join(dir).join(&rel)).unwrap_or_default();
                if !text.starts_with("//!") {
                    missing.push(format!("{dir}/{}", rel.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "files without a //! header: {missing:?}");
}

#[test]
fn no_test_module_is_forgotten() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    for rel in files_under(&dir) {
        let Some(stem) = rel.file_stem().and_then(|s| s.to_str()) else { continue };
        if stem != "main" && rel.extension().is_some_and(|e| e == "rs") {
            assert!(
                main.contains(&format!("mod {stem};")),
                "tests/cli/{} is not declared in main.rs",
                rel.display()
            );
        }
    }
}
