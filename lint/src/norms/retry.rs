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

/// Claims that a stage has no retry limit. (A guard of the norm table inside one of these,
/// "there is no retry limit", "不存在重试上限", is part of the claim: `norms::changed_constant`.)
pub(super) const NO_LIMIT: &[&str] = &[
    "there is no retry limit",
    "there is no limit",
    "不存在重试上限",
    "不存在上限",
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
/// (`stage4_iteration_limit`, `num_stages=2`) is not a stage. The word boundaries are ASCII
/// ones: a Unicode `\b` fails between "stage 3" and a Chinese character after it.
static STAGE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?-u:\b)stage\s*-?\s*([0-5])(?-u:\b)|阶段\s*([0-5])|第\s*([0-5])\s*阶段")
        .expect("the stage pattern compiles")
});

/// A list of limits by stage: `{0:30, 1:30, 3:50}`, `0 → 3, 1 → 3`, `0=3`.
static PAIR: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s{,(:;、])([0-5])\s*(?::|→|->|=)\s*(\d{1,4})(?-u:\b)")
        .expect("the pair pattern compiles")
});

/// `max_retry` as a word.
static MAX_RETRY_SAID: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"max_retry(?-u:\b)").expect("the max_retry pattern compiles")
});

/// Words after which a number is the value a setting is given ("from 3 to 10", "调到 99").
const SET_TO: &[&str] = &["to", "到", "为", "成", "=", "改为", "调到", "调为", "设为", "now"];

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
    let list = match raised_in_pairs(line) {
        Some(Listed::Raised(said)) => return Some(Raised { rule: stage_rule, said }),
        Some(Listed::Kept(span)) => Some(span),
        None => None,
    };
    let in_list = |at: usize| list.is_some_and(|(s, e)| at >= s && at < e);
    let stages: Vec<(usize, usize, usize)> = STAGE
        .captures_iter(line)
        .filter_map(|c| {
            let all = c.get(0)?;
            let digit = (1..=3).find_map(|k| c.get(k))?;
            // "阶段 12" is no stage of 0 to 5.
            if line.as_bytes().get(digit.end()).is_some_and(u8::is_ascii_digit) {
                return None;
            }
            Some((all.start(), digit.end(), digit.as_str().parse().ok()?))
        })
        .filter(|&(start, _, _)| !in_list(start))
        .collect();
    // A table row's cells are one clause only when the row is about a limit ("| Stage 3 | retry
    // limit | 50 |"); in other rows ("| Stage 3 | 12 tasks | 4 retries |") a cell ends it.
    let table = line.trim_start().starts_with('|')
        && ["limit", "上限", "max"].iter().any(|w| line.contains(w));
    let scope_ends: Vec<usize> = stages
        .iter()
        .enumerate()
        .map(|(k, &(_, end, _))| {
            let next = stages.get(k + 1).map_or(line.len(), |s| s.0);
            let clause_end = clause_end(&line[end..], table).map_or(line.len(), |i| end + i);
            let forty = line[end..].char_indices().nth(40).map_or(line.len(), |(i, _)| end + i);
            next.min(clause_end).min(forty)
        })
        .collect();
    for (k, &(start, end, stage)) in stages.iter().enumerate() {
        // A stage's scope: up to the next stage named, the end of its clause, or 40 characters.
        let scope_end = scope_ends[k];
        let scope = &line[end..scope_end];
        let Some(limit) = STAGE_LIMITS[stage] else { continue };
        // The claim may come first ("there is no retry limit for stage 3"): in the text since
        // the previous stage's scope or the start of this clause, and close before the stage
        // ("no limit applies to tile sizes in stage 3" is about the tiles).
        let prev = if k == 0 { 0 } else { scope_ends[k - 1].min(start) };
        let lead_start = line[prev..start]
            .char_indices()
            .rev()
            .find(|&(i, c)| ends_clause(c, line.as_bytes().get(prev + i + 1), table))
            .map_or(prev, |(i, c)| prev + i + c.len_utf8());
        let lead = &line[lead_start..start];
        let claimed_before = |cue: &str| {
            lead.rfind(cue).is_some_and(|i| {
                super::contains_word(lead, cue) && lead[i + cue.len()..].chars().count() <= 16
            })
        };
        if let Some(cue) =
            NO_LIMIT.iter().find(|c| super::contains_word(scope, c) || claimed_before(c))
        {
            return Some(Raised { rule: stage_rule, said: format!("{} {cue}", &line[start..end]) });
        }
        let counted = counts(line, end, scope_end);
        if let Some(n) =
            counted.into_iter().filter(|&(at, _)| !in_list(at)).map(|(_, n)| n).find(|&n| n > limit)
        {
            return Some(Raised {
                rule: stage_rule, said: format!("{} … {n}", &line[start..end])
            });
        }
    }
    None
}

/// A number stated for `max_retry` above its default, in its clause (to the next `,`, `;`,
/// `。`, sentence end or stage named, or 40 characters; a table row's cells when the row is
/// about `max_retry`): the number a setting word gives it ("from 3 to 10" states 10, "lowered
/// from 5 to 3" states 3), else the first number.
fn raised_max_retry(line: &str) -> Option<String> {
    let table = line.trim_start().starts_with('|');
    MAX_RETRY_SAID.find_iter(line).find_map(|m| {
        let from = m.end();
        let clause = clause_end(&line[from..], table).map_or(line.len(), |i| from + i);
        let stage = STAGE.find(&line[from..]).map_or(line.len(), |s| from + s.start());
        let forty = line[from..].char_indices().nth(40).map_or(line.len(), |(i, _)| from + i);
        let to = clause.min(stage).min(forty);
        let said = counts(line, from, to);
        let set = said.iter().find(|&&(at, _)| {
            let before = line[from..at].trim_end();
            SET_TO.iter().any(|w| before.ends_with(w))
        });
        let n = set.or(said.first())?.1;
        (n > MAX_RETRY).then(|| format!("max_retry … {n}"))
    })
}

/// Where a stage's clause ends in `rest`: `;`, `。`, `,`, a `.` before a space or the line's
/// end (not the dot of "pl-1.9"), and a `|` outside a table row.
fn clause_end(rest: &str, table: bool) -> Option<usize> {
    let bytes = rest.as_bytes();
    rest.char_indices().find_map(|(i, c)| ends_clause(c, bytes.get(i + 1), table).then_some(i))
}

/// Whether `c`, followed by the byte `next`, ends a clause (see [`clause_end`]).
fn ends_clause(c: char, next: Option<&u8>, table: bool) -> bool {
    match c {
        ';' | '。' | ',' => true,
        '.' => next.is_none_or(u8::is_ascii_whitespace),
        '|' => !table,
        _ => false,
    }
}

/// What a list of limits by stage says.
enum Listed {
    /// A limit above the process's, as written.
    Raised(String),
    /// Every limit kept; the byte span of the list, whose numbers belong to it.
    Kept((usize, usize)),
}

/// What a list of two or more stage limits in `line` says, or `None` for a line without one.
/// A clock time ("at 1:05 and 2:40") is not a pair: its number has a leading zero or runs on
/// into another `:NN`.
fn raised_in_pairs(line: &str) -> Option<Listed> {
    let pairs: Vec<(usize, usize, usize, u32, String)> = PAIR
        .captures_iter(line)
        .filter_map(|c| {
            let all = c.get(0)?;
            let value = c.get(2)?;
            let clock = value.as_str().len() > 1 && value.as_str().starts_with('0')
                || line[value.end()..].starts_with(':');
            if clock {
                return None;
            }
            let stage = c.get(1)?.as_str().parse().ok()?;
            let n = value.as_str().parse().ok()?;
            Some((all.start(), all.end(), stage, n, all.as_str().trim().to_string()))
        })
        .collect();
    if pairs.len() < 2 {
        return None;
    }
    let span = (pairs[0].0, pairs[pairs.len() - 1].1);
    Some(
        pairs
            .into_iter()
            .find_map(|(_, _, stage, n, said)| {
                STAGE_LIMITS[stage].is_some_and(|limit| n > limit).then_some(said)
            })
            .map_or(Listed::Kept(span), Listed::Raised),
    )
}

/// The counts `line[from..to]` (a stage's scope) states, with their byte offsets: standalone integers, not part of a name, a version, a
/// date, a ratio or a measure (`PL-1.9`, `2026-09-25`, `0.83`, `3x`, `16 KB`), nor a position
/// ("第 4 次", "attempt 4", "round 4").
fn counts(line: &str, from: usize, to: usize) -> Vec<(usize, u32)> {
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
        // A full stop ends the sentence ("… is 50."); a dot before a digit is a decimal.
        let decimal =
            bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        let glued_after = decimal
            || bytes.get(i).is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'%' | b'/' | b'_' | b'-' | b':')
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
        // "5 for stage 3 and 10 for stage 4", "5 in stage 3", "5 次（stage 3）": a number that
        // belongs to the stage named after it.
        let names_next = ["for stage", "for the stage", "in stage", "(stage", "次(stage"]
            .iter()
            .any(|w| after.starts_with(w));
        // "fails on 12 of 40 shapes": a share of cases.
        let share = after.starts_with("of ")
            && after[3..].starts_with(|c: char| c.is_ascii_digit())
            || before.ends_with(" of");
        if glued_before || glued_after || measure || position || names_next || share {
            continue;
        }
        if let Ok(n) = line[start..i].parse::<u32>() {
            if !is_year(n) {
                out.push((start, n));
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
    "min",
    "hour",
    "h ",
    "sec",
    "秒",
    "分钟",
    "小时",
    "天",
    "day",
];

/// A year, not a count.
fn is_year(n: u32) -> bool {
    (1990..=2100).contains(&n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalise;

    fn raised(s: &str) -> bool {
        raised_retry_limit(&normalise(s)).is_some()
    }

    fn said(s: &str) -> String {
        raised_retry_limit(&normalise(s)).map(|r| r.said).unwrap_or_default()
    }

    /// What is reported names the stage and the number (found by the review of round 8: a
    /// test that only asked whether something fired could not see the wrong stage).
    #[test]
    fn the_finding_names_the_stage_and_the_number() {
        assert_eq!(said("Stage 3 retry limit is now 50, raised from 5."), "stage 3 … 50");
        assert_eq!(said("Stage 3的重试上限提高到 50 次"), "stage 3 … 50");
        assert_eq!(said("把stage 3 重试上限改为 50 次"), "stage 3 … 50");
        assert_eq!(said("max_retry raised from 3 to 10"), "max_retry … 10");
        assert_eq!(said("设计修订的 max_retry 从 3 调到 10"), "max_retry … 10");
        assert_eq!(said("max_retry 调到 10次"), "max_retry … 10");
        assert_eq!(said("| max_retry | 99 | raised so Stage 1 never blocks |"), "max_retry … 99");
        assert_eq!(said("阶段 1阶段 3 重试上限 50"), "阶段 3 … 50");
        assert_eq!(said("Stage 3 在本项目中的重试上限已经提高为 50 次"), "stage 3 … 50");
        assert_eq!(said("| Stage 3 | retry limit | 50 |"), "stage 3 … 50");
        assert_eq!(said("Stage 3 (PL-1.9) retry limit is 50."), "stage 3 … 50");
        assert_eq!(
            said("重试上限 {0:3, 1:3, 3:5, 4:10, 5:2} 已过时；stage 3 现为 50 次"),
            "stage 3 … 50"
        );
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
            "Stage 3 retry failures logged at 1:05 and 2:40 today.",
            "The retry limit is 3 in stage 1 and 5 in stage 3.",
            "重试上限 3 次（stage 1）与 5 次（stage 3）",
            "Stage 4 retries took 45 minutes on the 910B.",
            "Stage 5 重试耗时 30 分钟",
            "Stage 3 fails on 12 of 40 shapes when N is odd.",
            "Stage 4 retries run with no capture of the trace.",
            "阶段 5，本周重试 12 次",
            // The second review: restatements and records the first fixes flagged.
            "max_retry 默认 3，stage 4 上限 10 次。",
            "Design revisions stop at max_retry (3 by default), stage 4 at 10 fails.",
            "Set max_retry to 3 for the 20 kernels in batch 7.",
            "| max_retry | 3 | hit by 12 tasks this week |",
            "max_retry was lowered from 5 to 3.",
            "Stage 2 has no limit and stage 3 stops after 5 fails.",
            "stage 2 无上限、stage 3 为 5 次。",
            "stage 2 没有上限而 stage 3 上限 5 次",
            "除了 stage 2 不存在重试上限外 stage 0 和 1 都是 3 次",
            "No limit applies to tile sizes in stage 3 (retry limit 5).",
            "| Stage 3 | 12 tasks | 4 retries |",
            "| stage 4 | attempts 3 | kernels 17 | ok |",
            "| Stage 3 | 失败 2 次 | 用例 62 |",
        ] {
            assert!(!raised(line), "{line}");
        }
    }
}
