//! Test helpers: hermetic copies of the bundled sample knowledge base, and running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use evokb_store::Store;

/// The bundled real sample knowledge base.
pub fn sample_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tilelang-kb")
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A fresh copy of the sample in a temporary directory.
pub fn sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&sample_src(), dir.path());
    dir
}

/// A fresh copy of the sample with a store holding all of it.
pub fn imported_sample() -> (tempfile::TempDir, Store) {
    let dir = sample();
    let store = Store::create(&dir.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("create store");
    evokb_export::import(dir.path(), &store, Default::default()).expect("import the sample");
    (dir, store)
}

/// Runs `evokb` with `args` in `cwd`, hermetically.
pub fn evokb(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        // A fixed clock: hits, change-log dates and snapshot commits are reproducible.
        .env("EVOKB_NOW", "1795910400")
        .env_remove("EVOKB_LOCK_TIMEOUT_MS")
        .output()
        .expect("run evokb")
}

/// `PATH` without any folder that holds an `evokb`: git must find the merge driver and the
/// hook through the absolute path `evokb init` registered, as for a user who runs
/// `target/release/evokb` without installing it.
pub fn path_without_evokb() -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|d| !d.join("evokb").exists())
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// `git ARGS` in `dir`, hermetic: no global or system config, a fixed author and committer.
/// Callers add what their test needs (a `PATH`, fixed dates).
pub fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com");
    cmd
}

/// Standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The store's digest.
pub fn digest(store: &Store) -> [u8; 32] {
    store.read().expect("read").digest().expect("digest")
}

/// Every file under `dir`, relative, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let entry = entry.expect("entry");
            let path = entry.path();
            if entry.file_type().expect("type").is_dir() {
                walk(base, &path, out);
            } else {
                out.push(path.strip_prefix(base).expect("prefix").to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The path of a pattern-library topic file.
pub fn topic(name: &str) -> String {
    format!("{}/{name}", evokb_export::layout::defaults::PL_DIR)
}

/// The text a parsed file stands for, checking one record per layout reference.
pub fn rendered(pf: &evokb_export::parse::ParsedFile) -> String {
    let mut records = pf.records.iter();
    let mut out = String::new();
    for item in &pf.layout.items {
        match item {
            evokb_store::LayoutItem::Prose(p) => out.push_str(p),
            evokb_store::LayoutItem::Record(h) => {
                let r = records.next().expect("one record per layout reference");
                assert_eq!(r.record.case_hash(), *h);
                r.record.write_text(&mut out);
            }
        }
    }
    assert!(records.next().is_none());
    out
}

/// A file or folder of the project's own test data (`tests/data/REL`).
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(rel)
}

/// Imports the analytics inputs into the store of `kb`: the model-iteration fixture's error
/// registry and iteration log, and the task timelines.
pub fn import_analytics_inputs(kb: &Path) {
    let reg = data("model-iteration/results/error_registry.jsonl");
    let log = data("model-iteration/results/iteration_log.jsonl");
    let tl = data("timelines");
    for args in [
        vec!["errors", "import", reg.to_str().expect("utf-8")],
        vec!["rounds", "import", log.to_str().expect("utf-8")],
        vec!["timeline", "import", tl.to_str().expect("utf-8")],
    ] {
        let out = evokb(kb, &args);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// Replaces, inside the queue item `vp`, the first line that starts with `from` by `to`.
pub fn edit_item(queue: &str, vp: &str, from: &str, to: &str) -> String {
    let start = queue.find(&format!("## {vp}\n")).expect("the item is in the queue");
    let end = queue[start + 3..].find("\n## ").map_or(queue.len(), |i| start + 3 + i);
    let at = start + queue[start..end].find(&format!("\n{from}")).expect("the line") + 1;
    let line_end = queue[at..].find('\n').map_or(queue.len(), |i| at + i);
    format!("{}{to}{}", &queue[..at], &queue[line_end..])
}
