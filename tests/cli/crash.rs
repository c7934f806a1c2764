//! Crash safety: `evokb` is killed with SIGKILL at random points during import, render and
//! mutations. After every kill the store opens, `verify` passes, the store holds either the
//! whole transaction or none of it, no managed file is torn, and no temporary file is left in
//! the knowledge base. `EVOKB_CRASH_ITERATIONS` sets the number of kills (default 200).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use evokb_export::layout;
use evokb_store::Store;

use crate::support::*;

/// The operations killed mid-way: (setup before the command, the command).
fn op(kind: usize, dir: &Path) -> Vec<String> {
    match kind {
        0 => vec!["set".into(), "PL-1.6-copy-floor".into(), "status".into(), "stale".into()],
        1 => {
            assert!(evokb(dir, &["set", "VP-2026-0003", "status", "expired"]).status.success());
            assert!(evokb(dir, &["set", "PL-1.1-transpose-chain", "status", "stale"])
                .status
                .success());
            vec!["render".into()]
        }
        2 => {
            for (path, from, to) in [
                (topic("layout.md"), "status: verified", "status: stale"),
                (
                    ".agents/evolution/queue.md".to_string(),
                    "- confirmations: 1/2",
                    "- confirmations: 2/2",
                ),
            ] {
                let full = dir.join(path);
                let text = std::fs::read_to_string(&full).expect("read");
                std::fs::write(&full, text.replacen(from, to, 1)).expect("write");
            }
            vec!["import".into()]
        }
        _ => {
            let mut text = String::new();
            for i in 0..20 {
                text.push_str(&format!("---\nid: CRASH-{i}\nkind: pattern\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### crash{i} kill{i}x unique{i}y\n"));
            }
            let src = dir.join(".evokb/new-entries.md");
            std::fs::write(&src, text).expect("write");
            vec![
                "add".into(),
                "--file".into(),
                "attention.md".into(),
                src.to_string_lossy().into_owned(),
            ]
        }
    }
}

fn managed_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    layout::Layout::default()
        .discover(dir)
        .expect("discover")
        .into_iter()
        .map(|m| {
            let bytes = std::fs::read(dir.join(&m.path)).expect("read");
            (m.path, bytes)
        })
        .collect()
}

fn digest_of(dir: &Path) -> [u8; 32] {
    digest(&Store::open(&dir.join(".evokb"), evokb_export::index::default_indexer()).expect("open"))
}

#[test]
fn sigkill_at_random_points_leaves_a_consistent_store_and_untorn_files() {
    let iterations: usize =
        std::env::var("EVOKB_CRASH_ITERATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let (base, store) = imported_sample();
    drop(store);
    // The state after each operation when it runs to completion.
    let mut completed = Vec::new();
    for kind in 0..4 {
        let dir = tempfile::tempdir().expect("tempdir");
        copy_tree(base.path(), dir.path());
        let args = op(kind, dir.path());
        let before = digest_of(dir.path());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(evokb(dir.path(), &args).status.success());
        completed.push((before, digest_of(dir.path())));
    }
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut killed_midway = 0;
    for i in 0..iterations {
        let kind = i % 4;
        let dir = tempfile::tempdir().expect("tempdir");
        copy_tree(base.path(), dir.path());
        let args = op(kind, dir.path());
        let files_before = managed_bytes(dir.path());
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % 60_000);
        // The clock the completed runs had: an operation the kill comes too late for must
        // leave the digest they left (`add` logs the day it ran).
        let mut child = Command::new(env!("CARGO_BIN_EXE_evokb"))
            .args(&args)
            .current_dir(dir.path())
            .env("EVOKB_NOW", "1795910400")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().expect("wait");
        if !status.success() {
            killed_midway += 1;
        }
        let store = Store::open(&dir.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("the store opens after a kill");
        let report = evokb_export::verify(&store).expect("verify");
        assert!(report.problems.is_empty(), "iteration {i} ({args:?}): {:?}", report.problems);
        let (before, after) = completed[kind];
        let d = digest(&store);
        // A render changes sync marks only, which the digest leaves out.
        assert!(
            d == before || d == after,
            "iteration {i} ({args:?}): the store holds part of a transaction"
        );
        let rendered =
            evokb_export::render::render_all(&store.read().expect("read")).expect("render");
        for (path, old) in files_before {
            let now = std::fs::read(dir.path().join(&path)).expect("read");
            let new = rendered.iter().find(|f| f.path == path).map(|f| f.text.as_bytes().to_vec());
            assert!(now == old || Some(&now) == new.as_ref(), "iteration {i}: '{path}' is torn");
        }
        for rel in files_under(dir.path()) {
            let outside_store = !rel.starts_with(".evokb");
            assert!(
                !(outside_store && rel.to_string_lossy().contains("evokb-tmp")),
                "iteration {i}: temporary file {} left",
                rel.display()
            );
        }
    }
    assert!(
        killed_midway > iterations / 10,
        "only {killed_midway} of {iterations} kills hit a running process"
    );
}
