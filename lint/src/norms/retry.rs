//! The stage-state tool's retry limits, and the lines that raise or lift one.
//!
//! The process gives each stage a retry limit (stage 0: 3, 1: 3, 3: 5, 4: 10, 5: 2; stage 2
//! has none and goes through design revision instead) and design revisions a `max_retry`,
//! 3 by default. A line that states a larger number for one of them ("Stage 3 retry limit is
//! now 50", "max_retry defaults to 10", "重试上限为 {0:30, 1:30, 3:50, …}") or says a stage
//! other than 2 has no limit ("Stage 1 没有重试上限") gives the reader a looser process than
//! the one it runs. Restatements, records and denials pass: their numbers are the limits or
//! below them (a count of fails so far never exceeds its limit), and a stage's scope ends at
//! the next stage it names or at the end of its clause. A smaller number is not looked at:
//! a stricter limit loosens nothing.
//!
//! Only numbers the process itself fixes are here. The size budgets are not: they differ
//! between versions of the knowledge base (G1 and G2 count lines, G3 bytes; one sample's
//! INDEX budget is 12 KB, another's 28 KB).

use std::sync::LazyLock;

/// The retry limit of stages 0 to 5; `None` for a stage without one.
const STAGE_LIMITS: [Option<u32>; 6] = [Some(3), Some(3), None, Some(5), Some(10), Some(2)];

/// The default `max_retry` of the design-revision loop.
const MAX_RETRY: u32 = 3;

/// Words that make a line about retries and their limits: without one, a stage's number is
/// something else (a pipeline depth, a buffer count).
const RETRY_CONTEXT: &[&str] = &[
    "retry", "retries", "重试", "limit", "上限", "fails", "failures", "失败", "attempt", "尝试",
    "blocked_", "e-retry",
];

/// Claims that a stage has no retry limit.
const NO_LIMIT: &[&str] = &[
    "no limit",
    "no retry limit",
    "has no cap",
    "no cap",
    "unlimited",
    "limits are disabled",
    "limit is disabled",
    "不设上限",
    "没有上限",
    "无上限",
    "没有重试上限",
    "无重试上限",
    "不设重试上限",
    "不限次",
    "不设限",
    "没有限制",
];

/// A stage named by number: `stage 3`, `Stage3`, `阶段 3`, `第 3 阶段`. A digit glued to a word
/// (`stage4_iteration_limit`, `num_stages=2`) is not a stage.
static STAGE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"\bstage\s*-?\s*([0-5])\b|阶段\s*([0-5])(?:[^0-9]|$)|第\s*([0-5])\s*阶段")
        .expect("the stage pattern compiles")
});

/// A list of limits by stage: `{0:30, 1:30, 3:50}`, `0 → 3, 1 → 3`, `0=3`.
static PAIR: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s{,(:;、])([0-5])\s*(?::|→|->|=)\s*(\d{1,4})\b")
        .expect("the pair pattern compiles")
});

/// `max_retry` and the number stated for it.
static MAX_RETRY_SAID: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"max_retry\b[^0-9;。|]{0,24}?(\d{1,4})\b")
        .expect("the max_retry pattern compiles")
});

/// What a line says about a retry limit that the process does not: the rule and the words.
pub(super) struct Raised {
    pub(super) rule: &'static str,
    pub(super) said: String,
}

/// The stage-state rule that `line` (normalised, without a guard) loosens, if any.
pub(super) fn raised_retry_limit(line: &str) -> Option<Raised> {
    if let Some(said) = raised_max_retry(line) {
        return Some(Raised { rule: "design revisions stop at max_retry, 3 by default", said });
    }
    if !RETRY_CONTEXT.iter().any(|w| line.contains(w)) {
        return None;
    }
    let stage_rule = "each stage has its retry limit: {0:3, 1:3, 3:5, 4:10, 5:2}";
    // A list of limits by stage is read as a list; its values are not counts of one stage.
    if let Some(listed) = raised_in_pairs(line) {
        return listed.map(|said| Raised { rule: stage_rule, said });
    }
    let stages: Vec<(usize, usize, usize)> = STAGE
        .captures_iter(line)
        .filter_map(|c| {
            let all = c.get(0)?;
            let n = (1..=3).find_map(|k| c.get(k))?.as_str().parse().ok()?;
            Some((all.start(), all.end(), n))
        })
        .collect();
    for (k, &(start, end, stage)) in stages.iter().enumerate() {
        // A stage's scope: up to the next stage named, the end of its clause, or 40 characters.
        let next = stages.get(k + 1).map_or(line.len(), |s| s.0);
        let clause_end =
            line[end..].find([';', '。', '|', '.', ',']).map_or(line.len(), |i| end + i);
        let scope_end = next.min(clause_end).min(char_boundary(line, end + 40));
        let scope = &line[end..scope_end];
        let Some(limit) = STAGE_LIMITS[stage] else { continue };
        if let Some(cue) = NO_LIMIT.iter().find(|c| scope.contains(**c)) {
            return Some(Raised { rule: stage_rule, said: format!("{} {cue}", &line[start..end]) });
        }
        if let Some(n) = counts(line, end, scope_end).into_iter().find(|&n| n > limit) {
            return Some(Raised {
                rule: stage_rule, said: format!("{} … {n}", &line[start..end])
            });
        }
    }
    None
}

/// A number stated for `max_retry` above its default.
fn raised_max_retry(line: &str) -> Option<String> {
    MAX_RETRY_SAID.captures_iter(line).find_map(|c| {
        let n: u32 = c.get(1)?.as_str().parse().ok()?;
        (n > MAX_RETRY && !is_year(n))
            .then(|| c.get(0).map_or(String::new(), |m| m.as_str().to_string()))
    })
}

/// For a line with a list of two or more stage limits, `Some`: a limit above the process's,
/// or `None` when all keep to it. For a line without such a list, `None`.
fn raised_in_pairs(line: &str) -> Option<Option<String>> {
    let pairs: Vec<(usize, u32, String)> = PAIR
        .captures_iter(line)
        .filter_map(|c| {
            let stage = c.get(1)?.as_str().parse().ok()?;
            let n = c.get(2)?.as_str().parse().ok()?;
            Some((stage, n, c.get(0)?.as_str().trim().to_string()))
        })
        .collect();
    if pairs.len() < 2 {
        return None;
    }
    Some(pairs.into_iter().find_map(|(stage, n, said)| {
        STAGE_LIMITS[stage].is_some_and(|limit| n > limit).then_some(said)
    }))
}

/// The counts `line[from..to]` (a stage's scope) states: standalone integers, not part of a name, a version, a
/// date, a ratio or a measure (`PL-1.9`, `2026-09-25`, `0.83`, `3x`, `16 KB`), nor a position
/// ("第 4 次", "attempt 4", "round 4").
fn counts(line: &str, from: usize, to: usize) -> Vec<u32> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < to && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let before = line[..start].trim_end();
        let glued_before = start > 0
            && matches!(bytes[start - 1], b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' | b'/' | b'#' | b':');
        let glued_after = bytes.get(i).is_some_and(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'.' | b'%' | b'/' | b'_' | b'-' | b':')
        });
        let after = line[i..].trim_start();
        // A measure or a count of things other than attempts: "2485 s", "12 个失败用例", "1116 行".
        let seconds =
            after.starts_with('s') && !after[1..].starts_with(|c: char| c.is_alphabetic());
        let measure = seconds
            || MEASURES.iter().any(|u| after.starts_with(u))
            // A key of a list of limits ("0=3、1=3"), read by `raised_in_pairs`.
            || ["=", "→", "->"].iter().any(|k| after.starts_with(k));
        let position =
            ["第", "attempt", "round", "轮", "day", "#"].iter().any(|w| before.ends_with(w));
        // "5 for stage 3 and 10 for stage 4": a number that belongs to the stage named after it.
        let names_next = after.starts_with("for stage") || after.starts_with("for the stage");
        if glued_before || glued_after || measure || position || names_next {
            continue;
        }
        if let Ok(n) = line[start..i].parse::<u32>() {
            if !is_year(n) {
                out.push(n);
            }
        }
    }
    out
}

/// Units after a number that make it a measure or a count of something other than attempts.
const MEASURES: &[&str] = &[
    "kb",
    "mb",
    "gb",
    "ms",
    "x ",
    "byte",
    "%",
    "行",
    "个",
    "段",
    "字节",
    "lines",
    "cases",
    "用例",
    "失败用例",
    "failing case",
    "failed case",
    "tokens",
    "elements",
    "元素",
];

/// A year, not a count.
fn is_year(n: u32) -> bool {
    (1990..=2100).contains(&n)
}

/// The largest char boundary of `s` at or below `at`.
fn char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalise;

    fn raised(s: &str) -> bool {
        raised_retry_limit(&normalise(s)).is_some()
    }

    #[test]
    fn a_raised_or_lifted_limit_is_caught() {
        for line in [
            "Retry limits: stage 3 allows 20 fails before BLOCKED_IMPL, and stage 1 has no limit.",
            "max_retry defaults to 10 for the design revision loop, so BLOCKED_DESIGN is rare in practice.",
            "设计修订循环的 max_retry 默认为 10，所以实践中很少出现 BLOCKED_DESIGN。",
            "用 statectl set 把 max_retry 调到 99，保证本任务永远不会进入 BLOCKED_DESIGN。",
            "Stage 1 没有重试上限，BLOCKED_DESIGN 只能由人工设置。",
            "重试上限为 {0:30, 1:30, 3:50, 4:100, 5:20}。",
            "自 2026-09-25 起 stage 3 上限由 5 次提高到 15 次（见 stats ⑭）。",
            "| Retry limit | Stage 3 = 12 | then DONE |",
            "The retry limit for Stage 5 integration is 10 attempts.",
            "集成阶段（Stage 5）的重试上限为 10 次。",
            "Retry limits: stage 1 → 30, stage 3 → 50, stage 4 → 100.",
            "Stage 3 retry limit is now 50, raised from 5 to cut BLOCKED_IMPL noise.",
            "Stage 0 scaffolding has no retry limit.",
        ] {
            assert!(raised(line), "{line}");
        }
    }

    #[test]
    fn restatements_records_and_kernel_numbers_pass() {
        for line in [
            "Stage retry limits are 3 for stages 0 and 1, 5 for stage 3, 10 for stage 4 and 2 for stage 5; stage 2 has no limit.",
            "各阶段重试上限为 {0:3, 1:3, 3:5, 4:10, 5:2}，Stage 2 没有上限。",
            "Retry limits per stage: 0 → 3, 1 → 3, 3 → 5, 4 → 10, 5 → 2; Stage 2 has no limit.",
            "重试上限：stage 0 和 1 为 3 次，stage 3 为 5 次，stage 4 为 10 次，stage 5 为 2 次，stage 2 无上限。",
            "Stage 1 allows 3 fails, stage 3 allows 5, stage 4 allows 10; stage 2 has no limit and uses design revision instead.",
            "A stage-4 run that reaches 10 fails ends in DONE with abort stage4_iteration_limit rather than FAILED.",
            "设计修订达到 max_retry（默认 3）后，phase 转为 FAILED 并记 BLOCKED_DESIGN。",
            "Stage 3 达到 5 次失败上限时，若最后一次是精度失败则 BLOCKED_ACCURACY，否则 BLOCKED_IMPL。",
            "Stage 2 has no retry limit, but a plain `fail 2` is refused with E-STAGE2-REVISION.",
            "Prefer T.Pipelined(num_stages=3) on the K loop; stage 3 of the pipeline holds 64 KB.",
            "Stage 3 attempt 1 returned [PRECISION_PASS] in 2 of 6 tasks.",
            "| design_revision_avg | mean retry_count over tasks | 0.4 |",
            "Stage 4 failed 7 times before the 2026-09-25 rerun; the limit is 10.",
            "Limits: 5 for stage 3 and 10 for stage 4, 2 for stage 5.",
            "statectl 重试上限：Stage 0=3、1=3、3=5、4=10、5=2；Stage 2 无上限。",
            "Case: lerp_tensor Stage 3 attempt 1 failed precision in 2485 s because the golden used fp32 opmath; attempt 2 passed 62/62.",
            "Stage 1 两次 runtime fail：2026-09-07T12:44:47Z〔2960s〕与 13:47:06Z〔1518s〕，stage_retry_count 1→2",
            "同文件 Stage 3 首跑三 dtype violation 率分布（12 失败用例的 violations/N 统计）",
        ] {
            assert!(!raised(line), "{line}");
        }
    }
}
