//! Many clones, one remote (issue 11): 8 clones of one bare repository work at once. In each,
//! agents add 10 entries to the shared topic files, confirm a queue item of their own and one
//! every clone confirms, and record hits (searches with a task id, some on an entry every clone
//! searches), then render and commit. Each clone then pulls (a merge, never a rebase) and
//! pushes, retrying until the push gets through. At the end every clone holds every clone's
//! work, no merge conflicted, and `render --check` and `verify` are clean everywhere.
//!
//! The clones run on their own threads, so pushes race and lose, as they do for a team; the
//! merge driver is found through the absolute path `evokb init` registers (`PATH` holds no
//! `evokb`). The test prints how long each phase took.
//!
//! Every clone starts from the same commit, so the store `evokb import` builds of it is the same
//! in every clone: the seed imports the sample once, and each clone runs `evokb init` (which
//! registers the driver) and takes a copy of that store, which its own `evokb import` then finds
//! in sync with its files. Eight identical first imports of the whole sample were a quarter of the
//! test's CPU time and checked nothing the other tests do not.

use std::path::Path;
use std::process::Output;
use std::time::Instant;

use crate::support::*;

const CLONES: usize = 8;
const ENTRIES: usize = 10;
/// Searches per clone: each returns the clone's own entries and, in every other one, the entry
/// all clones search, so the shared hit-table row is bumped on every clone.
const SEARCHES: usize = 4;
/// The entry every clone searches (its row in the sample's hit table is `ENTRY | 2 | …`).
const SHARED_ENTRY: &str = "TRAP-BENCH-CONFIG-CALIBRATION";
const SHARED_BASELINE: u64 = 2;
/// A Tier 1 item at 1/2 every clone confirms, and one per clone (all pending at 1/2 in the
/// sample).
const SHARED_VP: &str = "VP-2026-0003";
const OWN_VPS: [&str; CLONES] = [
    "VP-2026-0004",
    "VP-2026-0005",
    "VP-2026-0006",
    "VP-2026-0007",
    "VP-2026-0016",
    "VP-2026-0017",
    "VP-2026-0034",
    "VP-2026-0043",
];
/// Pull-and-push rounds a clone may lose before the test gives up.
const MAX_ATTEMPTS: usize = 40;

fn git_out(dir: &Path, args: &[&str]) -> Output {
    git_command(dir, args).env("PATH", path_without_evokb()).output().expect("run git")
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let out = git_out(dir, args);
    assert!(out.status.success(), "git {args:?} in {}: {}", dir.display(), stderr(&out));
    out
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = evokb(dir, args);
    assert!(out.status.success(), "evokb {args:?} in {}: {}", dir.display(), stderr(&out));
    out
}

fn entry_id(clone: usize, i: usize) -> String {
    format!("PL-9.{clone}{i:02}-clone{clone}-entry{i}")
}

/// Ten entries of one clone, every second one in a second topic file, so both `attention.md`
/// and `elementwise.md` (and INDEX.md) are edited on every clone.
fn entries(clone: usize, file_parity: usize) -> String {
    (0..ENTRIES)
        .filter(|i| i % 2 == file_parity)
        .map(|i| {
            format!(
                "---\nid: {id}\nkind: pattern\nfamily: [attention]\nstatus: verified\norigin_task: clone{clone}-task-20261129T000000Z\ntoolchain: tilelang 2026 build / CANN 8.5.0\nrepro: none\n---\n\n### 克隆 {clone} 条目 {i} zq{clone}x{i}\n\nqa{clone}x{i} qb{clone}x{i} qc{clone}x{i} qd{clone}x{i} qe{clone}x{i}\n",
                id = entry_id(clone, i)
            )
        })
        .collect()
}

/// Copies the store directory `from` over `to`.
fn copy_store(from: &Path, to: &Path) {
    std::fs::remove_dir_all(to).expect("remove the empty store");
    copy_tree(from, to);
}

/// One clone's work, from a fresh clone of the remote to its local commit. `store` is the
/// seed's store of the commit the clone starts from.
fn work(remote: &Path, store: &Path, dir: &Path, clone: usize) {
    git(dir, &["clone", "-q", remote.to_str().expect("utf-8"), "."]);
    run(dir, &["init"]);
    copy_store(store, &dir.join(".evokb"));
    let import = run(dir, &["import", "--json"]);
    let import: serde_json::Value = serde_json::from_slice(&import.stdout).expect("import json");
    // The clone's files are the seed's: the copied store already holds every record.
    for n in ["added", "updated", "removed"] {
        assert_eq!(import[n], 0, "clone {clone}: the seed's store matches the clone: {import}");
    }
    let task = format!("clone{clone}-task-20261129T000000Z");
    for (parity, file) in [(0, "attention.md"), (1, "elementwise.md")] {
        let src = dir.join(format!("new-{parity}.md"));
        std::fs::write(&src, entries(clone, parity)).expect("write entries");
        run(
            dir,
            &[
                "add",
                "--file",
                file,
                src.to_str().expect("utf-8"),
                "--task",
                &task,
                "--by",
                "evolver",
            ],
        );
        std::fs::remove_file(&src).expect("rm");
    }
    for vp in [OWN_VPS[clone], SHARED_VP] {
        run(
            dir,
            &["queue", "confirm", vp, "--task", &task, "--evidence", &format!("clone {clone}")],
        );
    }
    for s in 0..SEARCHES {
        let own = format!("zq{clone}x{s}");
        // Even searches find only the clone's own entry; odd ones also the shared entry.
        let prefix = format!("PL-9.{clone}");
        let mut args = vec!["search", own.as_str(), "--task", &task, "--id-prefix", &prefix];
        if s % 2 == 1 {
            args.extend(["BENCH", "CONFIG", "CALIBRATION", "--id-prefix", SHARED_ENTRY]);
        }
        let out = run(dir, &args);
        assert!(stdout(&out).contains(&entry_id(clone, s)), "{}", stdout(&out));
    }
    run(dir, &["render"]);
    git(dir, &["add", "-A", ".agents"]);
    git(dir, &["commit", "-qm", &format!("clone {clone}: 10 entries, confirmations, hits")]);
}

/// Pulls and pushes until the push gets through; returns how many rounds it took.
fn publish(dir: &Path, clone: usize) -> usize {
    for attempt in 1..=MAX_ATTEMPTS {
        let pull = git_out(dir, &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
        assert!(
            pull.status.success(),
            "clone {clone}: the merge conflicted (attempt {attempt}):\n{}\n{}\n{}",
            stdout(&pull),
            stderr(&pull),
            stdout(&git_out(dir, &["diff", "--name-only", "--diff-filter=U"]))
        );
        // The store follows the merged files before anything else reads it.
        run(dir, &["import"]);
        let check = evokb(dir, &["render", "--check"]);
        assert_eq!(check.status.code(), Some(0), "clone {clone}: {}", stdout(&check));
        let push = git_out(dir, &["push", "-q", "origin", "HEAD:main"]);
        if push.status.success() {
            return attempt;
        }
        let why = stderr(&push);
        assert!(
            why.contains("rejected") || why.contains("fetch first") || why.contains("lock"),
            "clone {clone}: push failed for another reason: {why}"
        );
        // Another clone pushed first; give the winner's push time to finish before pulling.
        std::thread::sleep(std::time::Duration::from_millis(20 * (clone as u64 + 1)));
    }
    panic!("clone {clone}: no push got through in {MAX_ATTEMPTS} attempts");
}

/// Everything clone `c` must hold at the end: no unmerged path or conflict marker, a clean
/// `render --check` and `verify`, every clone's entries and INDEX rows, confirmations and hits.
fn check_clone(c: usize, dir: &Path) {
    let unmerged = stdout(&git(dir, &["ls-files", "-u"]));
    assert!(unmerged.is_empty(), "clone {c}: unmerged paths {unmerged}");
    // `git grep` exits 1 when nothing matches, which is the outcome wanted here.
    let managed = git_out(dir, &["grep", "-l", "-e", "^<<<<<<< ", "--", ".agents"]);
    assert!(stdout(&managed).is_empty(), "clone {c}: conflict markers in {}", stdout(&managed));
    let check = evokb(dir, &["render", "--check"]);
    assert_eq!(check.status.code(), Some(0), "clone {c}: {}", stdout(&check));
    let verify = evokb(dir, &["verify", "--json"]);
    assert_eq!(verify.status.code(), Some(0), "clone {c}: {}", stdout(&verify));
    let v: serde_json::Value = serde_json::from_slice(&verify.stdout).expect("verify json");
    assert_eq!(v["problems"], serde_json::json!([]), "clone {c}");

    let entries = stdout(&run(dir, &["list", "--kind", "entry"]));
    let index = stdout(&run(dir, &["list", "--kind", "index_row"]));
    for k in 0..CLONES {
        for i in 0..ENTRIES {
            let id = entry_id(k, i);
            assert!(entries.contains(&id), "clone {c} lacks entry {id}");
            assert!(index.contains(&id), "clone {c} lacks the INDEX row of {id}");
        }
    }
    assert_eq!(entries.matches("-clone").count(), CLONES * ENTRIES, "clone {c}");
    assert_eq!(index.matches("-clone").count(), CLONES * ENTRIES, "clone {c}");

    let confirmed_by = |vp: &str| -> Vec<String> {
        let v: serde_json::Value =
            serde_json::from_slice(&run(dir, &["queue", "show", vp, "--json"]).stdout)
                .expect("queue json");
        v["confirmed_by"]
            .as_array()
            .expect("confirmed_by list")
            .iter()
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect()
    };
    for (k, vp) in OWN_VPS.iter().enumerate() {
        let by = confirmed_by(vp);
        assert!(
            by.iter().any(|b| b.contains(&format!("clone{k}-task"))),
            "clone {c}: {vp}: {by:?}"
        );
    }
    let shared = confirmed_by(SHARED_VP);
    for k in 0..CLONES {
        assert!(
            shared.iter().filter(|b| b.contains(&format!("clone{k}-task"))).count() == 1,
            "clone {c}: {SHARED_VP} holds clone {k}'s confirmation once: {shared:?}"
        );
    }

    // Every search of every clone is one event, with its task.
    let log =
        std::fs::read_to_string(dir.join(".agents/evolution/kb_search_log.jsonl")).expect("log");
    for k in 0..CLONES {
        assert_eq!(
            log.matches(&format!("\"task\": \"clone{k}-task-")).count(),
            SEARCHES,
            "clone {c}: clone {k}'s searches in the log"
        );
    }
    // The hit table counts every hit: the clone's own entries once per search that found
    // them, the shared entry its baseline plus every clone's searches that returned it.
    let stats = std::fs::read_to_string(dir.join(".agents/evolution/stats.md")).expect("stats");
    let hits_of = |entry: &str| -> u64 {
        let rows: Vec<&str> = stats
            .lines()
            .filter(|l| {
                l.starts_with("| ")
                    && l.split('|').nth(1).is_some_and(|e| e.trim().ends_with(entry))
            })
            .collect();
        assert_eq!(rows.len(), 1, "clone {c}: one hit row for {entry}: {rows:?}");
        rows[0].split('|').nth(2).and_then(|h| h.trim().parse().ok()).expect("hits")
    };
    for k in 0..CLONES {
        for s in 0..SEARCHES {
            assert_eq!(hits_of(&entry_id(k, s)), 1, "clone {c}: hits of {}", entry_id(k, s));
        }
    }
    let shared_searches = (CLONES * SEARCHES / 2) as u64;
    assert_eq!(hits_of(SHARED_ENTRY), SHARED_BASELINE + shared_searches, "clone {c}");
}

#[test]
fn eight_clones_meet_through_one_remote_without_conflicts_or_lost_work() {
    let started = Instant::now();
    let remote = tempfile::tempdir().expect("tempdir");
    git(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    // The first commit: the sample with the `.gitattributes` that `evokb init` writes.
    let seed = sample();
    git(seed.path(), &["init", "-q", "-b", "main"]);
    run(seed.path(), &["init"]);
    git(seed.path(), &["add", "-A"]);
    git(seed.path(), &["commit", "-qm", "sample"]);
    git(seed.path(), &["push", "-q", remote.path().to_str().expect("utf-8"), "main"]);
    run(seed.path(), &["import"]);
    let store = seed.path().join(".evokb");
    let clones: Vec<tempfile::TempDir> =
        (0..CLONES).map(|_| tempfile::tempdir().expect("tempdir")).collect();
    let setup = started.elapsed();

    let working = Instant::now();
    std::thread::scope(|s| {
        for (i, dir) in clones.iter().enumerate() {
            let (remote, store) = (remote.path(), store.as_path());
            s.spawn(move || work(remote, store, dir.path(), i));
        }
    });
    let worked = working.elapsed();

    let publishing = Instant::now();
    let attempts: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = clones
            .iter()
            .enumerate()
            .map(|(i, dir)| s.spawn(move || publish(dir.path(), i)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("clone thread")).collect()
    });
    let published = publishing.elapsed();

    // Everyone pulls the final state once more (fast-forward or nothing to do).
    let checking = Instant::now();
    std::thread::scope(|s| {
        for dir in &clones {
            s.spawn(move || {
                git(dir.path(), &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
                run(dir.path(), &["import"]);
            });
        }
    });
    let heads: Vec<String> = clones
        .iter()
        .map(|d| stdout(&git(d.path(), &["rev-parse", "HEAD"])).trim().to_string())
        .collect();
    assert!(heads.iter().all(|h| *h == heads[0]), "every clone ends at one commit: {heads:?}");
    // The clones are checked at once, each on its own thread, as they worked.
    std::thread::scope(|s| {
        for (c, dir) in clones.iter().enumerate() {
            s.spawn(move || check_clone(c, dir.path()));
        }
    });
    let checked = checking.elapsed();
    eprintln!(
        "8 clones: seed {:.1}s, clone+init+import+work {:.1}s, pull+push {:.1}s (attempts per clone {attempts:?}), checks {:.1}s, total {:.1}s",
        setup.as_secs_f64(),
        worked.as_secs_f64(),
        published.as_secs_f64(),
        checked.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}
