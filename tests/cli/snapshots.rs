//! Snapshots of newly rendered records: what evokb writes when it creates text rather than
//! reproducing it.

use evokb_export::{layout, mutate, render_to};
use evokb_store::Kind;

use crate::support::*;

fn rendered_record(store: &evokb_store::Store, kind: Kind, id: &str) -> String {
    store.read().expect("r").record_by_id(kind, id).expect("get").expect("present").text()
}

#[test]
fn a_field_added_to_a_queue_item() {
    let (_kb, store) = imported_sample();
    mutate::set_field(&store, "VP-2026-0005", None, "confirmed_by", "task rmsnorm-x 2026-11-29")
        .expect("set");
    let text = rendered_record(&store, Kind::QueueItem, "VP-2026-0005");
    let tail: Vec<&str> = text.lines().rev().take(5).collect();
    insta::assert_snapshot!(tail.into_iter().rev().collect::<Vec<_>>().join("\n"), @r"
    - created_by: task lerp_tensor-_make_lerp_tensor_kernel-20260907T025419Z 2026-09-07
    - decided_by: -
    - decided_note: -
    - confirmed_by: task rmsnorm-x 2026-11-29
    ");
}

#[test]
fn a_new_entry_and_its_index_row() {
    let (_kb, store) = imported_sample();
    let entry = "---\nid: CONST-new-bw\nkind: constant\nfamily: [elementwise]\nstatus: verified\norigin_task: t-9\ntoolchain: CANN 8.5.0\nrepro: none\n---\n\n### 新常数 | with a pipe\n\n- 数值 1.26 TB/s\n";
    mutate::add_entries(&store, &topic("constants.md"), entry).expect("add");
    insta::assert_snapshot!(rendered_record(&store, Kind::IndexRow, "CONST-new-bw"), @r"| CONST-new-bw | 新常数 \| with a pipe | verified |");
    let out = tempfile::tempdir().expect("tempdir");
    render_to(out.path(), &store, &evokb_export::NoDerivedRows).expect("render");
    let index = std::fs::read_to_string(out.path().join(layout::defaults::INDEX)).expect("read");
    let at = index.find("| CONST-new-bw").expect("row");
    let before = &index[..at];
    let prev_row = before.lines().last().expect("previous line");
    insta::assert_snapshot!(prev_row, @"| CONST-aicore-910B2C | 物理核数 24 AICore + persistent 任务平衡公式 | verified |");
}

#[test]
fn an_index_table_for_a_topic_file_that_had_none() {
    let kb = sample();
    let path = kb.path().join(layout::defaults::PL_DIR).join("norm.md");
    std::fs::write(&path, "# Norm 族\n\n> 新主题文件。\n").expect("write");
    let store = evokb_store::Store::create(
        &kb.path().join(".evokb"),
        evokb_export::index::default_indexer(),
    )
    .expect("store");
    evokb_export::import(kb.path(), &store, Default::default()).expect("import");
    let entry = "---\nid: PL-2.1-rms\nkind: pattern\nstatus: verified\norigin_task: t\ntoolchain: 2026 build\nrepro: none\n---\n\n### rmsnorm 行归约\n";
    mutate::add_entries(&store, &topic("norm.md"), entry).expect("add");
    let out = tempfile::tempdir().expect("tempdir");
    render_to(out.path(), &store, &evokb_export::NoDerivedRows).expect("render");
    let norm = std::fs::read_to_string(out.path().join(layout::defaults::PL_DIR).join("norm.md"))
        .expect("read");
    insta::assert_snapshot!(norm, @r"
    # Norm 族

    > 新主题文件。
    ---
    id: PL-2.1-rms
    kind: pattern
    status: verified
    origin_task: t
    toolchain: 2026 build
    repro: none
    ---

    ### rmsnorm 行归约
    ");
    let index = std::fs::read_to_string(out.path().join(layout::defaults::INDEX)).expect("read");
    let lines: Vec<&str> = index.lines().collect();
    let at = lines.iter().position(|l| *l == "### norm.md").expect("new section");
    insta::assert_snapshot!(lines[at - 2..at + 5].join("\n"), @r"
    | CASE-ssd-chunkscan-migration | mamba/SSD 族 MixCV Expert 迁移完整档案（模式切换实证 + 六轮 2.91× + 首过集成 + 4515de8 重跑重验 + 二轮调优 1.078× + 重建会话 repro 骨架重推导 +9.7%；Stage 4 知识 durable 载体集群） | verified |

    ### norm.md

    | ID | 一句话 | 状态 |
    |----|--------|------|
    | PL-2.1-rms | rmsnorm 行归约 | verified |
    ");
}
