//! Dedupe before anything is added (issue 9): `evokb similar` ranks what a candidate duplicates,
//! and `queue add` refuses a proposal on the topic of a pending or rejected item unless
//! `--new-topic` overrides it, which the change log records.

use evokb_evolve::similar::{self, Candidate, Delta, QUEUE_SAME_TOPIC_SIMILARITY};
use evokb_store::{Kind, Record};

use crate::support::*;

const VP: &str = "VP-2026-0034";

fn queue_items(store: &evokb_store::Store) -> Vec<Record> {
    let recs = store.read().expect("read").records().expect("records");
    recs.into_iter().filter(|r| r.kind == Kind::QueueItem).collect()
}

fn title_of(store: &evokb_store::Store, vp: &str) -> String {
    let rec = store.read().expect("read").record_by_id(Kind::QueueItem, vp).expect("get");
    rec.and_then(|r| r.field("title").map(|t| t.trim().to_string())).expect("a title")
}

/// The threshold separates the sample's distinct proposals from the same proposal reworded.
/// Prints the figures the README and [`QUEUE_SAME_TOPIC_SIMILARITY`] quote.
#[test]
fn the_queue_threshold_is_measured_on_the_sample() {
    let (_kb, store) = imported_sample();
    let items = queue_items(&store);
    let ty = |r: &Record| r.field("type").unwrap_or("").trim().chars().next();
    let mut closest = (0.0_f64, String::new(), String::new());
    for (i, a) in items.iter().enumerate() {
        for b in &items[i + 1..] {
            if ty(a) != ty(b) {
                continue;
            }
            let s = similar::title_similarity(&similar::title_of(a), &similar::title_of(b));
            if s > closest.0 {
                closest = (s, a.id.clone(), b.id.clone());
            }
        }
    }
    let title = title_of(&store, VP);
    let cut = title.split('（').next().expect("a clause");
    let reworded = similar::title_similarity(cut, &title);
    println!(
        "closest distinct same-type titles: {} and {} at {:.3}; '{VP}' without its trailing clause: {reworded:.3}; threshold {QUEUE_SAME_TOPIC_SIMILARITY}",
        closest.1, closest.2, closest.0
    );
    assert!(closest.0 < QUEUE_SAME_TOPIC_SIMILARITY, "distinct proposals would be refused");
    assert!(reworded >= QUEUE_SAME_TOPIC_SIMILARITY, "a shortened title would pass");
}

#[test]
fn similar_ranks_the_item_a_title_names_first_with_its_delta() {
    let (kb, store) = imported_sample();
    let title = title_of(&store, VP);
    let recs = store.read().expect("read").records().expect("records");
    let matches = similar::rank(&recs, &Candidate::text(&title), 5);
    assert_eq!(matches[0].id, VP);
    assert_eq!(similar::suggest(&matches), Delta::Confirm(VP.into()));
    drop(store);
    let out = evokb(kb.path(), &["similar", &title, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["matches"][0]["id"], VP);
    assert_eq!(v["matches"][0]["similarity"], 1.0);
    assert_eq!(v["delta"], format!("queue confirm {VP}"));
    // An entry's own text calls for updating it; something new calls for adding it.
    let out = evokb(
        kb.path(),
        &["similar", "1.9 Expert 跨引擎块级流水的「块宽摊减」调优序与硬上限", "--json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["delta"], "update PL-1.9-blockwidth");
    let out = evokb(kb.path(), &["similar", "quantum annealing of sparse tensors"]);
    assert!(stdout(&out).ends_with("delta: add\n"), "{}", stdout(&out));
}

#[test]
fn similar_takes_an_entry_file_and_holds_it_to_the_add_rule() {
    let (kb, _store) = imported_sample();
    let layout = std::fs::read_to_string(kb.path().join(topic("attention.md"))).expect("read");
    // The first entry of attention.md, as a candidate file: it is its own closest match.
    let start = layout.find("---\n").expect("an entry");
    let end = layout[start + 4..].find("\n---\n").map(|i| start + 4 + i + 5).expect("fm end");
    let next = layout[end..].find("\n---\n").map_or(layout.len(), |i| end + i + 1);
    let cand = kb.path().join("candidate.md");
    std::fs::write(&cand, &layout[start..next]).expect("write");
    let out = evokb(kb.path(), &["similar", "--file", "candidate.md", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let first = v["matches"][0]["id"].as_str().expect("an id").to_string();
    assert_eq!(v["delta"], format!("update {first}"));
    assert_eq!(v["matches"][0]["similarity"], 1.0);
}

#[test]
fn queue_add_refuses_a_pending_or_rejected_topic_unless_new_topic() {
    let (kb, store) = imported_sample();
    let title = title_of(&store, VP);
    let n_before = queue_items(&store).len();
    drop(store);
    std::fs::write(kb.path().join("delta.txt"), "add 新 BP 条目\n").expect("write");
    let add = |title: &str, extra: &[&str]| {
        let mut args = vec![
            "queue",
            "add",
            "--type",
            "P",
            "--title",
            title,
            "--target-doc",
            ".agents/skills/tilelang-op-optimize/references/bottleneck-patterns.md",
            "--delta-file",
            "delta.txt",
            "--task",
            "t-20261201T000000Z",
        ];
        args.extend_from_slice(extra);
        evokb(kb.path(), &args)
    };
    let out = add(&title, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains(VP), "{err}");
    assert!(err.contains(&format!("evokb queue confirm {VP}")), "{err}");
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    assert_eq!(queue_items(&store).len(), n_before, "nothing was queued");
    drop(store);
    // A rejected item's reason is quoted.
    let out =
        evokb(kb.path(), &["queue", "reject", VP, "--reason", "块宽结论只在块内 flag 自旋类成立"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = add(&title, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("rejected") && err.contains("块宽结论只在块内 flag 自旋类成立"), "{err}");
    // --new-topic files it, and the change log says it overrode the refusal.
    let out = add(&title, &["--new-topic"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let store =
        evokb_store::Store::open(&kb.path().join(".evokb"), evokb_export::index::default_indexer())
            .expect("open");
    assert_eq!(queue_items(&store).len(), n_before + 1);
    let log: Vec<String> = store
        .read()
        .expect("read")
        .records()
        .expect("records")
        .into_iter()
        .filter(|r| r.kind == Kind::ChangeRow)
        .filter_map(|r| r.field("change").map(str::to_string))
        .collect();
    assert!(
        log.iter()
            .any(|c| c.contains("queue add") && c.contains(&format!("new topic beside {VP}"))),
        "{log:?}"
    );
}
