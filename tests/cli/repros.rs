//! Repro scripts are canonical (issue 9): the store keeps their bytes, `render --out` writes
//! them, an edited script imports, an unchanged one is never rewritten, and importing the
//! output of `render --out` gives the store that rendered it, digest for digest.

use std::os::unix::fs::MetadataExt;

use crate::support::*;

fn repro_dir() -> String {
    format!("{}/repro", evokb_export::layout::defaults::PL_DIR)
}

fn verify_digest(dir: &std::path::Path) -> String {
    let out = evokb(dir, &["verify", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["problems"], serde_json::json!([]));
    v["digest"].as_str().expect("digest").to_string()
}

#[test]
fn render_out_writes_every_script_and_reimports_to_the_same_digest() {
    let kb = sample();
    // A script that is not UTF-8 (latin-1 bytes in a comment) must come back byte for byte.
    let odd = format!("{}/latin1.py", repro_dir());
    std::fs::write(kb.path().join(&odd), b"\"\"\"latin-1\"\"\"\n# caf\xe9 \xff\n").expect("write");
    assert_eq!(evokb(kb.path(), &["init"]).status.code(), Some(0));
    assert_eq!(evokb(kb.path(), &["import"]).status.code(), Some(0));
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = evokb(kb.path(), &["render", "--out", out_dir.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let scripts: Vec<_> = files_under(&kb.path().join(repro_dir()));
    assert_eq!(scripts.len(), 5);
    for s in &scripts {
        let rel = std::path::Path::new(&repro_dir()).join(s);
        let want = std::fs::read(kb.path().join(&rel)).expect("read");
        let got = std::fs::read(out_dir.path().join(&rel)).expect("rendered");
        assert_eq!(got, want, "{}", rel.display());
    }
    let rendered_by = verify_digest(kb.path());
    assert_eq!(evokb(out_dir.path(), &["init"]).status.code(), Some(0));
    assert_eq!(evokb(out_dir.path(), &["import"]).status.code(), Some(0));
    assert_eq!(verify_digest(out_dir.path()), rendered_by);
}

#[test]
fn an_edited_script_imports_and_an_unchanged_one_is_never_rewritten() {
    let (kb, store) = imported_sample();
    drop(store);
    let dir = kb.path().join(repro_dir());
    let edited = dir.join("PL-1.18-floor2-wins.py");
    let kept = dir.join("PL-1.13-aiv-dup-subid-split.py");
    let before = std::fs::metadata(&kept).expect("stat");
    let mut text = std::fs::read(&edited).expect("read");
    text.extend_from_slice(b"# re-verified 2026-12-01\n");
    std::fs::write(&edited, &text).expect("write");
    let out = evokb(kb.path(), &["import", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let id = format!("{}/PL-1.18-floor2-wins.py", repro_dir());
    let out = evokb(kb.path(), &["get", &id, "--kind", "repro", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["fields"]["bytes"], text.len().to_string());
    // In place, scripts are never written, changed or not.
    for args in [&["render"][..], &["render", "--force"][..]] {
        assert_eq!(evokb(kb.path(), args).status.code(), Some(0));
    }
    let after = std::fs::metadata(&kept).expect("stat");
    assert_eq!(
        (after.ino(), after.mtime(), after.mtime_nsec()),
        (before.ino(), before.mtime(), before.mtime_nsec())
    );
    // Rendered elsewhere, the edited script has its new bytes.
    let out_dir = tempfile::tempdir().expect("tempdir");
    let out = evokb(kb.path(), &["render", "--out", out_dir.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read(out_dir.path().join(&id)).expect("rendered"), text);
    // A deleted script leaves the store with its content.
    std::fs::remove_file(&edited).expect("rm");
    assert_eq!(evokb(kb.path(), &["import"]).status.code(), Some(0));
    let out_dir = tempfile::tempdir().expect("tempdir");
    evokb(kb.path(), &["render", "--out", out_dir.path().to_str().expect("utf-8")]);
    assert!(!out_dir.path().join(&id).exists());
}
