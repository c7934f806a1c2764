//! Robustness: no check panics on any input. A proptest over arbitrary Unicode strings and
//! over strings assembled from the fragments the rules care about (delimiters, `..`, `~`,
//! `<!--`, base64 and hex alphabets, invisible characters, CJK), plus a deterministic
//! fuzz-like loop that also exercises the file-system branch of `check_paths`.

use std::path::Path;

use evokb_lint::{check_hidden, check_imperative, check_injection, check_paths, check_security};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "..",
    "/",
    "\\",
    "~",
    "~/",
    "$HOME",
    "%USERPROFILE%",
    "C:\\",
    "file:///",
    "https://",
    "<!--",
    "-->",
    "[//]: # (",
    ")",
    "data:text/plain,",
    "\u{200B}",
    "\u{200D}",
    "\u{FEFF}",
    "\u{202E}",
    "\u{2066}",
    "\u{E0041}",
    "\u{FE0F}",
    "\u{E0100}",
    "👨",
    "SWdub3Jl",
    "69676e6f7265",
    "\\x41",
    "%41",
    "&#65;",
    "ignore",
    " all previous ",
    "instructions",
    "忽略",
    "之前的",
    "指令",
    "请",
    "执行",
    "以下命令",
    "curl ",
    "| sh",
    "rm -rf /",
    "send ",
    "~/.ssh",
    " to https://x.io",
    "do not tell ",
    "the user",
    "不要告诉",
    "用户",
    "skip ",
    "the gate",
    "跳过",
    "门禁",
    "\n",
    "\r\n",
    "```",
    "---",
    "**",
    "`",
    "é",
    "İ",
    "ß",
    "\u{0}",
    "\u{10FFFF}",
    "，",
    "。",
    "：",
    // The norm table's cues, guards and sentence ends (`norms.rs`).
    "the 90-day expiry",
    " was retired",
    "同谱系",
    "独立确认",
    "2/2",
    " is informational",
    "kb_lint",
    "不受",
    "已拒绝",
    "was rejected",
    ". ",
    "；",
    "？",
    "!",
    // The forbidden operations and what follows them (`norms.rs`): flags, the reflog recovery.
    "git clean -",
    "git add .",
    "reset --hard",
    " head@{",
    "reflog",
    "不可用",
    "force-push",
    // The changed constants: counts of days by the expiry, 1/2 by a merge.
    "expir",
    "过期",
    " 45 天",
    "365d",
    "1/2",
    " 即可合入",
    "→",
    // Round 8: the retry limits, the record fields, the new operations.
    "stage 3",
    "stage",
    " 20 ",
    "5",
    "max_retry",
    "{0:30, ",
    "1=3、",
    "阶段",
    "第 3 阶段",
    "没有重试上限",
    "no limit",
    "for stage",
    "|",
    ":",
    "：",
    "review_gate: ",
    "- decided_by: human (",
    "implied",
    "retention: ",
    "delete-when",
    "保留策略",
    "永不",
    "allow_force_push: true",
    "git branch -d",
    "--no-verify",
    " -delete",
    "。",
    ",",
];

fn all_checks(s: &str) {
    let _ = check_injection(s);
    let _ = check_hidden(s);
    let _ = check_imperative(s);
    let _ = check_paths(s, None, None);
    let _ = check_paths(s, None, Some(Path::new("a/b/c")));
    let _ = check_paths(s, Some(Path::new("/nonexistent-evokb-root")), Some(Path::new("/abs")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_unicode_does_not_panic(s in "\\PC*") {
        all_checks(&s);
    }

    #[test]
    fn any_chars_including_controls(s in proptest::collection::vec(any::<char>(), 0..400)) {
        let s: String = s.into_iter().collect();
        all_checks(&s);
    }

    #[test]
    fn rule_fragments_do_not_panic(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60)) {
        let s: String = parts.iter().filter_map(|&i| FRAGMENTS.get(i).copied()).collect();
        all_checks(&s);
    }
}

/// xorshift, so the loop is deterministic without extra dependencies.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn fuzz_loop_with_real_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..3000 {
        let len = (next(&mut state) % 40) as usize;
        let mut s = String::new();
        for _ in 0..len {
            let r = next(&mut state);
            if r.is_multiple_of(3) {
                if let Some(c) = char::from_u32((r >> 8) as u32 % 0x11_0000) {
                    s.push(c);
                }
            } else if let Some(f) = FRAGMENTS.get((r >> 8) as usize % FRAGMENTS.len()) {
                s.push_str(f);
            }
        }
        let _ = check_security(&s, Some(root), Some(Path::new("tests/corpus")));
        let _ = check_security(&s, Some(root), None);
        let _ = check_imperative(&s);
    }
}

#[test]
fn huge_and_degenerate_inputs() {
    let long_b64 = "A".repeat(100_000);
    let long_hex = "ab".repeat(50_000);
    let many_comments = "<!--".repeat(10_000);
    let deep = "../".repeat(5_000);
    for s in [&long_b64, &long_hex, &many_comments, &deep, &String::new()] {
        all_checks(s);
    }
    assert!(check_hidden(&long_b64).is_empty(), "a run of one letter is not text");
    // One unterminated comment whose "text" is the remaining `<!--` markers.
    assert_eq!(check_hidden(&many_comments).len(), 1);
}
