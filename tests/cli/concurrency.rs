//! Many agents at once: 16 processes each making `search` calls (each recording a hit) while
//! readers query alongside, and writers changing searchable entries while others search the
//! tantivy index. No write may be lost and no process may fail because another holds the store.
//! `EVOKB_CONCURRENCY_CALLS` sets the calls per process (default 200, so 3,200 hits).

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use evokb_store::{Kind, Store};

use crate::support::*;

fn run_ok(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(args)
        .current_dir(dir)
        .env("EVOKB_LOCK_TIMEOUT_MS", "120000")
        .output()
        .expect("spawn");
    assert!(
        out.status.success(),
        "evokb {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn calls() -> usize {
    std::env::var("EVOKB_CONCURRENCY_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

#[test]
fn sixteen_searching_processes_record_every_hit_while_readers_run() {
    let (kb, store) = imported_sample();
    drop(store);
    let per = calls();
    let root = Arc::new(kb.path().to_path_buf());
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|r| {
            let (root, done) = (root.clone(), done.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !done.load(Ordering::Relaxed) {
                    if r == 0 {
                        run_ok(&root, &["query", "--family", "attention", "--json"]);
                    } else {
                        run_ok(&root, &["get", "TRAP-fp16-opmath-golden", "--json"]);
                    }
                    n += 1;
                    // Readers run alongside, not instead: leave the two cores to the writers.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                n
            })
        })
        .collect();
    let queries =
        ["fp16 golden opmath 精度", "attention 块宽 L1 上限", "UB 膨胀 multi-buffer", "bf16 vcast"];
    let writers: Vec<_> = (0..16)
        .map(|p| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let q = queries[(p + i) % queries.len()];
                    run_ok(&root, &["search", q, "--task", &format!("task-{p}"), "--json"]);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer thread");
    }
    done.store(true, Ordering::Relaxed);
    let reads: usize = readers.into_iter().map(|r| r.join().expect("reader thread")).sum();
    assert!(reads > 0);
    let store = Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
        .expect("open");
    let events = store
        .read()
        .expect("r")
        .records()
        .expect("records")
        .into_iter()
        .filter(|r| r.kind == Kind::SearchEvent)
        .count();
    assert_eq!(events, 33 + 16 * per, "every hit is recorded exactly once");
    let log = std::fs::read_to_string(kb.path().join(".agents/evolution/kb_search_log.jsonl"))
        .expect("log");
    assert_eq!(log.lines().count(), 33 + 16 * per);
    assert!(evokb_export::verify(&store).expect("verify").problems.is_empty());
    drop(store);
    // The hits are pending in the stats.md hit table until a render: the check says so, and
    // shows exactly the file that render then writes.
    let out = evokb(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("1 file(s) differ"), "{}", stdout(&out));
    assert!(stdout(&out).contains(".agents/evolution/stats.md"), "{}", stdout(&out));
    let out = evokb(kb.path(), &["render"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 file(s) written"), "{}", stdout(&out));
    let out = evokb(kb.path(), &["render", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn entries_added_concurrently_are_all_searchable_while_others_search() {
    let (kb, store) = imported_sample();
    drop(store);
    let root = Arc::new(kb.path().to_path_buf());
    let per = (calls() / 20).max(5);
    let adders: Vec<_> = (0..8)
        .map(|p| {
            let root = root.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let src = root.join(format!(".evokb/add-{p}-{i}.md"));
                    std::fs::write(&src, format!("---\nid: CONC-{p}-{i}\nkind: pattern\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### zqxconcurrent{p}x{i} alpha{p}x{i} beta{p}x{i} gamma{p}x{i} 并发条目\n")).expect("write");
                    run_ok(&root, &["add", "--file", "traps-runtime.md", src.to_str().expect("utf-8")]);
                }
            })
        })
        .collect();
    let searchers: Vec<_> = (0..8)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || {
                for _ in 0..per {
                    run_ok(&root, &["search", "并发条目", "--json"]);
                }
            })
        })
        .collect();
    for t in adders.into_iter().chain(searchers) {
        t.join().expect("thread");
    }
    let out = run_ok(kb.path(), &["search", "并发条目", "--top", "1000", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let n = json["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["id"].as_str().is_some_and(|i| i.starts_with("CONC-")))
        .count();
    assert_eq!(n, 8 * per, "every concurrently added entry is in the search index");
    let one = run_ok(kb.path(), &["search", "zqxconcurrent3x1", "--json"]);
    assert!(one.contains("\"CONC-3-1\""));
}
