//! Regression tests from fuzzing (`fuzz/`, `scripts/fuzz.sh`): every crash or hang the fuzz
//! targets found, minimised, plus a few tricky inputs per importer. Each test checks the fuzz
//! invariants: `parse_file` returns (no panic, no endless loop) and the layout, prose and record
//! texts in order, concatenates to the input exactly.
//!
//! `fuzz/tests/regressions.rs` includes this file too, so `cargo test` in `fuzz/` replays it.

use std::sync::mpsc;
use std::time::Duration;

use evokb_export::layout::FileRole;
use evokb_export::parse::{parse_file, ParsedFile};
use evokb_export::text::decode_utf8;
use evokb_store::LayoutItem;

/// How long one parse may take before it counts as a hang; real files parse in milliseconds.
const PARSE_LIMIT: Duration = Duration::from_secs(10);

/// The text a parsed file stands for, checking one record per layout reference.
fn rendered(pf: &ParsedFile) -> String {
    let mut records = pf.records.iter();
    let mut out = String::new();
    for item in &pf.layout.items {
        match item {
            LayoutItem::Prose(p) => out.push_str(p),
            LayoutItem::Record(h) => {
                let r = records.next().expect("one record per layout reference");
                assert_eq!(r.record.case_hash(), *h);
                r.record.write_text(&mut out);
            }
        }
    }
    assert!(records.next().is_none(), "a record without a layout reference");
    out
}

/// Parses `text` on another thread so that an endless loop fails the test instead of hanging
/// it, then checks that nothing panicked and every byte is accounted for.
fn assert_lossless(role: FileRole, text: &str) {
    let (tx, rx) = mpsc::channel();
    let owned = text.to_string();
    std::thread::spawn(move || {
        let (pf, _) = parse_file(role, "f", &owned);
        let _ = tx.send(pf);
    });
    let pf = match rx.recv_timeout(PARSE_LIMIT) {
        Ok(pf) => pf,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("parse_file({role:?}) panicked on {text:?}")
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("parse_file({role:?}) did not return within {PARSE_LIMIT:?} on {text:?}")
        }
    };
    assert_eq!(rendered(&pf), text, "{role:?} lost or changed bytes of {text:?}");
}

fn assert_all_lossless(role: FileRole, texts: &[&str]) {
    for text in texts {
        assert_lossless(role, text);
    }
}

// Found by the `gaps` target: `parse_gaps` took the first 12 bytes after `### ` as the id and
// sliced `id[3..7]`, which panicked when byte 7 fell inside a multi-byte character
// (export/src/parse/headed.rs:102 before the fix, "end byte index 7 is not a char boundary").
// Minimised input: b"### CG-\xff\xff\xff" (three U+FFFD after decoding).
#[test]
fn gap_heading_with_a_multibyte_character_in_the_id_does_not_panic() {
    assert_all_lossless(
        FileRole::Gaps,
        &[
            "### CG-\u{fffd}\u{fffd}\u{fffd}",
            "### CG-中文标题\n",
            "### CG-20\u{feff}26-0001\n```yaml\ngap_id: x\n```\n",
            "## Open\n\n### CG-２０２６-0001\n\n```yaml\nstatus: open\n```\n",
        ],
    );
}

// Found by the `bottlenecks` target (a timeout): `lines()` splits only at `\n`, but CommonMark
// also ends a line at a lone `\r`, so pulldown-cmark can report two headings on one of our
// lines. `parse_headed` then found the record's end at its own line (`end == i`), `make` got
// an empty slice and returned `None`, and `i = end` never advanced
// (export/src/parse/headed.rs:199-210 before the fix). Minimised input: "## BP_n\r#".
#[test]
fn bottleneck_heading_followed_by_a_lone_cr_and_a_heading_terminates() {
    assert_all_lossless(
        FileRole::Bottleneck,
        &["## BP_n\r#", "## BP_a\r## BP_b\n", "# B\n\n## BP_a：t\rtitle\r---\nbody\n"],
    );
}

// The same endless loop through `parse_gaps`, found by the `gaps` target in fork mode.
#[test]
fn gap_heading_followed_by_a_lone_cr_and_a_heading_terminates() {
    assert_all_lossless(
        FileRole::Gaps,
        &["### CG-2026-0001\r#", "### CG-2026-0001\r### CG-2026-0002\n```yaml\na: b\n```\n"],
    );
}

#[test]
fn topic_file_tricky_inputs() {
    assert_all_lossless(
        FileRole::Topic,
        &[
            "",
            "---",
            "---\n---\n",
            "---\nid:\n---\n",
            "\u{feff}---\r\nid: X\r\n---\r\nbody\r\n",
            "---\nid: A\n  cont\n\n---\nbody\n---\n",
            "---\nid: A\nid: B\n---\n---\nid: A\n---\n",
            "---\t \nid: 中\n---  \n\u{2028}\n",
            "---\nid: A\r---\nb",
            "---\nkey:\tv\n  \n   x\n# c\nnot a key\n---\n",
            "pre\n---\nid: X\nkind: trap\n",
        ],
    );
}

#[test]
fn index_tricky_inputs() {
    assert_all_lossless(
        FileRole::Index,
        &[
            "| ID |\n|---|\n|\n| \\",
            "| ID | a \\| b |\n|:-:|\n| x | y |  z",
            "```\n| ID |\n|---|\n| a |\n```\n| a |\n",
            "| id |\n|-|\n| \\中 |\n| \\",
            "|\n|-|\n",
            "| ID | s |\n|---|---|\n| X | 1 |\n| X | 2 |\n",
            "   | ID |\r\n|--|\r\n| a\r",
            "### layout.md\r| ID |\r|---|\r| a |\r",
        ],
    );
}

#[test]
fn queue_tricky_inputs() {
    assert_all_lossless(
        FileRole::Queue,
        &[
            "## VP-2026-0001\n- delta: |\n## x\n- status: p",
            "## VP-2026-0001 \r\n- a:\r\n  - b\r\n\r\n",
            "## VP-2026-0001\r## VP-2026-0002\n",
            "## VP-２０２６-0001\n- type: R\n",
            "## VP-2026-000\u{e9}\n",
            "- k: v\n## VP-2026-0001\n\n\n",
            "## VP-2026-0001\nnote\n---\n- a: b\n",
            "## VP-2026-0001\n- a: >\n\n\n- b:\n",
        ],
    );
}

#[test]
fn stats_tricky_inputs() {
    assert_all_lossless(
        FileRole::Stats,
        &[
            "| date | by | change |\n|---|---|---|\n| 2026 | a | x |\n| 2026 | a | x |\n# h\n| 2026 | a | x |\n",
            "| entry |\n|-|\n| \\",
            "| 指标 |\n|:-|\n|  |\n",
            "~~~\n| entry |\n|-|\n| a |\n~~~\n",
            "| date | task_id |\n|--|--|\n| d | t | extra | more",
            "| metric |\n|-|\n| m\\|n |\n",
        ],
    );
}

#[test]
fn gaps_tricky_inputs() {
    assert_all_lossless(
        FileRole::Gaps,
        &[
            "### CG-2026-0001\n```yaml\n",
            "### CG-2026-0001\n```yaml\n```\n",
            "### CG-2026-0001\n```yml\nk: v\n\n  c\nx\n```\n### CG-2026-0001\n```yaml\n```",
            "```\n### CG-2026-0001\n```\n",
            "### CG-2026-0001\u{e9}\n```yaml\na: b\n```\n",
            "### CG-2026-0001",
        ],
    );
}

#[test]
fn bottlenecks_tricky_inputs() {
    assert_all_lossless(
        FileRole::Bottleneck,
        &[
            "## BP_\n",
            "## BP_x：\n",
            "## BP_x\n```\n## BP_y\n",
            "## BP_a\n# top\n## BP_a\n",
            "## BP_é",
            "## BP_x\n===\n",
            "> ## BP_q\n- ## BP_l\n",
        ],
    );
}

#[test]
fn search_log_tricky_inputs() {
    let deep = format!("{}{}\n", "[".repeat(4096), "]".repeat(4096));
    assert_all_lossless(
        FileRole::SearchLog,
        &[
            "{}\n{}\n",
            "[]\n\n  \r\n{\"ts\":1}",
            "{\"ts\": \"\\ud800\"}\n",
            &deep,
            "\u{feff}{\"ts\":\"a\"}\r\n",
            "{\"ts\":\"x\"}\r{\"ts\":\"y\"}",
        ],
    );
    let (line, message) = decode_utf8(b"{}\n{\"q\": \"\xff\"}\n").expect_err("invalid UTF-8");
    assert_eq!(line, 2);
    assert!(message.contains("at byte 10"), "{message}");
}
