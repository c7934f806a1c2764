//! Overlapping evokb processes never lose an acknowledged write.
//!
//! Setters, queue confirmers and searchers run as separate processes beside render loops and
//! import loops on one knowledge base. Every write that exited 0 must be in the store at the
//! end (and in the files after a last render), no render may be refused as "edited since the
//! last import or render" and no import may report a conflict, because nobody edits a file.
//! `EVOKB_CONCURRENCY_CALLS` scales it (default 200: 20 sets per setter).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::support::*;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(args)
        .current_dir(dir)
        .env("EVOKB_LOCK_TIMEOUT_MS", "120000")
        .env("EVOKB_NOW", "1795910400")
        .output()
        .expect("spawn evokb")
}

fn per_writer() -> usize {
    let calls: usize =
        std::env::var("EVOKB_CONCURRENCY_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    (calls / 10).max(3)
}

/// Failures of the loops that must never fail, as `(command, exit code, stderr)`.
type Failures = Arc<Mutex<Vec<(String, Option<i32>, String)>>>;

fn looping(
    root: Arc<PathBuf>,
    done: Arc<AtomicBool>,
    failures: Failures,
    args: &'static [&'static str],
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut n = 0;
        while !done.load(Ordering::Relaxed) {
            let out = run(&root, args);
            if !out.status.success() {
                failures.lock().expect("lock").push((
                    args.join(" "),
                    out.status.code(),
                    stderr(&out),
                ));
            }
            n += 1;
        }
        n
    })
}

#[test]
fn setters_confirmers_and_searchers_beside_render_and_import_loops_lose_nothing() {
    let (kb, store) = imported_sample();
    drop(store);
    let root = Arc::new(kb.path().to_path_buf());
    let per = per_writer();
    let done = Arc::new(AtomicBool::new(false));
    let failures: Failures = Arc::default();
    let loops: Vec<_> = [&["render"][..], &["render"][..], &["import"][..], &["import"][..]]
        .into_iter()
        .map(|args| looping(root.clone(), done.clone(), failures.clone(), args))
        .collect();

    // Each setter owns one entry (two share a topic file), so its last acknowledged value is
    // the value the entry must end with.
    let entries = [
        "PL-1.9-blockwidth",
        "PL-1.12-task-pipeline-depth2",
        "PL-1.2-caxis-accum",
        "TRAP-fp16-opmath-golden",
    ];
    let setters: Vec<_> = entries
        .iter()
        .enumerate()
        .map(|(p, id)| {
            let root = root.clone();
            let id = id.to_string();
            std::thread::spawn(move || {
                let mut last_acked = None;
                for i in 0..per {
                    let value = format!("s{p}x{i}");
                    let out = run(&root, &["set", &id, "status", &value]);
                    if out.status.success() {
                        last_acked = Some(value);
                    } else {
                        panic!("set {id} failed: {}", stderr(&out));
                    }
                }
                (id, last_acked)
            })
        })
        .collect();
    let items = ["VP-2026-0003", "VP-2026-0004"];
    let confirmers: Vec<_> = items
        .iter()
        .enumerate()
        .map(|(p, vp)| {
            let root = root.clone();
            let vp = vp.to_string();
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0..per / 2 {
                    let task = format!("conf{p}-lineage{i}");
                    let out = run(&root, &["queue", "confirm", &vp, "--task", &task]);
                    assert!(out.status.success(), "confirm {vp} failed: {}", stderr(&out));
                    acked.push(task);
                }
                (vp, acked)
            })
        })
        .collect();
    let searchers: Vec<_> = (0..2)
        .map(|p| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut acked = 0;
                for i in 0..per {
                    let task = format!("srch{p}-{i}");
                    let out = run(
                        &root,
                        &["search", "attention 块宽 L1 上限", "--task", &task, "--json"],
                    );
                    assert!(out.status.success(), "search failed: {}", stderr(&out));
                    acked += 1;
                }
                acked
            })
        })
        .collect();

    let set_results: Vec<(String, Option<String>)> =
        setters.into_iter().map(|t| t.join().expect("setter")).collect();
    let confirm_results: Vec<(String, Vec<String>)> =
        confirmers.into_iter().map(|t| t.join().expect("confirmer")).collect();
    let searches: usize = searchers.into_iter().map(|t| t.join().expect("searcher")).sum();
    done.store(true, Ordering::Relaxed);
    let loop_runs: usize = loops.into_iter().map(|t| t.join().expect("loop")).sum();
    assert!(loop_runs >= 4, "the render and import loops ran ({loop_runs} runs)");
    let failures = failures.lock().expect("lock").clone();
    assert!(
        failures.is_empty(),
        "renders or imports failed although nobody edited a file: {failures:#?}"
    );

    // Everything acknowledged is in the store...
    for (id, value) in &set_results {
        let out = run(kb.path(), &["get", id, "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("get json");
        assert_eq!(json["fields"]["status"].as_str(), value.as_deref(), "{id} lost a set");
        let row = run(kb.path(), &["get", id, "--kind", "index_row", "--json"]);
        let row: serde_json::Value = serde_json::from_slice(&row.stdout).expect("row json");
        assert_eq!(row["fields"]["status"].as_str(), value.as_deref(), "{id}'s INDEX row");
    }
    for (vp, tasks) in &confirm_results {
        let out = run(kb.path(), &["get", vp, "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("get json");
        let evidence = json["fields"]["evidence"].as_str().unwrap_or("");
        for t in tasks {
            assert!(evidence.contains(&format!("task {t}")), "{vp} lost the confirmation of {t}");
        }
    }
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    let events = store
        .read()
        .expect("read")
        .records()
        .expect("records")
        .into_iter()
        .filter(|r| r.kind == evokb_store::Kind::SearchEvent)
        .count();
    assert_eq!(events, 33 + searches, "every acknowledged search recorded its hit");
    drop(store);

    // ...and, after one more render, in the files, which then import as unchanged.
    let out = run(kb.path(), &["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let topic_text = std::fs::read_to_string(kb.path().join(topic("attention.md"))).expect("read");
    for (id, value) in &set_results[..2] {
        let value = value.as_deref().unwrap_or("");
        assert!(topic_text.contains(&format!("status: {value}")), "{id}: {value} on disk");
    }
    let out = run(kb.path(), &["import", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("import json");
    assert_eq!((json["added"].as_u64(), json["updated"].as_u64()), (Some(0), Some(0)));
}
