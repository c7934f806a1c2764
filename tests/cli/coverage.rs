//! INDEX coverage at import (issue 9): an entry a person appends to a topic file gets, at the
//! next import, the INDEX.md row `evokb add` would have given it, and import says so.

use crate::support::*;

const ENTRY: &str = "---\nid: PL-9.9-hand-written\nkind: pattern\nfamily: [layout]\nstatus: verified\norigin_task: layout-_hand_written_kernel-20261201T000000Z\ntoolchain: tilelang 0.1.2+3a214cde / CANN 8.5.0\nrepro: repro-missing\n---\n\n### 9.9 手写条目：转置前先做行分块以避免 bank 冲突\n\n- 观察到 32 行分块后 vtranspose 的 bank 冲突消失。\n";

#[test]
fn an_entry_written_by_hand_gets_the_index_row_add_would_give_it() {
    let index = format!("{}/INDEX.md", evokb_export::layout::defaults::PL_DIR);
    // By hand: append the entry to layout.md, import, render.
    let (kb, store) = imported_sample();
    drop(store);
    let layout = kb.path().join(topic("layout.md"));
    let mut text = std::fs::read_to_string(&layout).expect("read");
    text.push('\n');
    text.push_str(ENTRY);
    std::fs::write(&layout, &text).expect("write");
    let out = evokb(kb.path(), &["import", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["indexed"], serde_json::json!(["PL-9.9-hand-written"]));
    assert_eq!(evokb(kb.path(), &["render"]).status.code(), Some(0));
    let by_hand = std::fs::read_to_string(kb.path().join(&index)).expect("index");
    assert!(by_hand.contains("| PL-9.9-hand-written |"));
    // Through add, on another copy: the same INDEX.md, byte for byte.
    let (other, store) = imported_sample();
    drop(store);
    std::fs::write(other.path().join("new.md"), ENTRY).expect("write");
    let out = evokb(other.path(), &["add", "--file", &topic("layout.md"), "new.md"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(evokb(other.path(), &["render"]).status.code(), Some(0));
    let by_add = std::fs::read_to_string(other.path().join(&index)).expect("index");
    assert_eq!(by_hand, by_add);
    // The text output says so too, and a second import adds nothing more.
    let out = evokb(kb.path(), &["import"]);
    assert!(!stdout(&out).contains("indexed "), "{}", stdout(&out));
    assert_eq!(evokb(kb.path(), &["render", "--check"]).status.code(), Some(0));
}

#[test]
fn entries_without_a_row_at_the_first_import_are_left_as_they_are() {
    let kb = sample();
    let index = kb.path().join(evokb_export::layout::defaults::PL_DIR).join("INDEX.md");
    // An entry whose row was never written: the first import leaves INDEX.md alone.
    let text = std::fs::read_to_string(&index).expect("read");
    let row = text.lines().find(|l| l.starts_with("| PL-1.6-copy-floor |")).expect("row");
    let without = text.replacen(&format!("{row}\n"), "", 1);
    std::fs::write(&index, &without).expect("write");
    assert_eq!(evokb(kb.path(), &["init"]).status.code(), Some(0));
    let out = evokb(kb.path(), &["import", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["indexed"], serde_json::json!([]));
    assert_eq!(evokb(kb.path(), &["render", "--check"]).status.code(), Some(0));
    // A hand-written entry in the same file later is indexed; the old one still is not.
    let layout = kb.path().join(topic("elementwise.md"));
    let mut t = std::fs::read_to_string(&layout).expect("read");
    t.push('\n');
    t.push_str(&ENTRY.replace("family: [layout]", "family: [elementwise]"));
    std::fs::write(&layout, t).expect("write");
    let out = evokb(kb.path(), &["import"]);
    assert!(stdout(&out).contains("indexed PL-9.9-hand-written: "), "{}", stdout(&out));
    assert_eq!(evokb(kb.path(), &["render"]).status.code(), Some(0));
    let after = std::fs::read_to_string(&index).expect("read");
    assert!(after.contains("| PL-9.9-hand-written |") && !after.contains("| PL-1.6-copy-floor |"));
    let out = evokb(kb.path(), &["lint", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let covered: Vec<&str> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "KB-INDEX-COVERED")
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert_eq!(covered, ["PL-1.6-copy-floor"]);
}
