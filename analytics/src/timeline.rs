//! Task-timeline figures: statectl's `timeline-summary` (spec §5) for one
//! task as typed values (for the text output and the library), and the §6 stats metrics across
//! tasks. The JSON that must equal statectl's byte for byte is [`crate::statectl`]'s.
//!
//! # Metric definitions (where the spec leaves room)
//! Events are taken in file order (by `line`).
//! - **first_pass_rate**: of the tasks with a stage-3 `start`, the share whose
//!   first stage-3 attempt ended in `complete`: the next stage-3 `complete` or
//!   `fail` after that first start is a `complete`. Stage 3 only completes
//!   after its gate passes, which is the timeline's `[PRECISION_PASS]`. A task
//!   whose first attempt has no outcome yet is `undecided` and left out.
//! - **design_revision_avg**: the mean, over all tasks, of the number of fail
//!   events whose `reason` or `verdict` is `design_revision`. statectl bumps
//!   `retry_count` exactly once per such fail, so this equals the spec's "mean
//!   of retry_count" without needing the state file. The stage-1 re-start
//!   that follows a revision is its consequence and is not counted again, and
//!   a plain stage-1 retry (fail without that reason) is not a revision.
//! - **stage_duration_profile**: per stage, over the `duration_s` of its
//!   `complete` and `fail` events: n, mean, median (mean of the two middle
//!   values when n is even), p90 (nearest rank: the ⌈0.9·n⌉-th smallest) and
//!   total, all rounded to 3 decimals.
//! - **attempts_per_stage**: per stage, the tasks that started it, their
//!   `start` events, their `fail` events (start→fail pairs), and the mean
//!   number of starts per such task (4 decimals).
//! - **recurrence** (同类错误复发率 over timelines): a failure mode is the
//!   class of a staged `fail` event (its `verdict`, else its `reason`),
//!   independent of the stage. A mode recurs when it shows up in two or more
//!   distinct tasks, that is, again in a later task than the first one that
//!   hit it; rate = recurring modes / modes. The entry-aware version (only
//!   modes that already had an entry) is
//!   [`crate::figures::recurrence_after_entries`].

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::TimelineEvent;
use crate::util::{parse_utc_seconds, rate4, round_to};

/// statectl's static stage → subagent map.
pub fn stage_subagent(stage: u8) -> Option<&'static str> {
    match stage {
        0 => Some("tileops-scaffolder"),
        1 => Some("tilelang-op-designer"),
        2 => Some("tilelang-design-reviewer"),
        3 => Some("tilelang-op-developer"),
        4 => Some("tilelang-op-optimizer"),
        5 => Some("tilelang-op-integrator"),
        _ => None,
    }
}

// Fields of the summary structs are declared in alphabetical order because
// serde emits them in declaration order and statectl prints sorted-key JSON:
// this keeps our output byte-comparable with statectl's.

/// `timeline-summary` output (spec §5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineSummary {
    /// Event count per action; a missing action counts under `?`.
    pub action_counts: BTreeMap<String, u64>,
    /// Number of `start` events.
    pub dispatches: u64,
    /// last_ts − first_ts in seconds (3 decimals), null if either is unparseable.
    pub elapsed_s: Option<f64>,
    pub events_total: u64,
    pub failures: Vec<FailureSummary>,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// The first event's mode that has one.
    pub mode: Option<String>,
    pub stages: Vec<StageSummary>,
    pub timeline_path: String,
}

/// One stage of [`TimelineSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageSummary {
    /// Number of `start` events.
    pub attempts: u64,
    pub completed: u64,
    /// Sum of `durations_s` rounded to 3, null when there are none.
    pub duration_s_total: Option<f64>,
    /// `duration_s` of complete and fail events, in file order.
    pub durations_s: Vec<f64>,
    pub failed: u64,
    pub stage: u8,
    /// The subagent recorded on the stage's first event, else the static map.
    pub subagent: Option<String>,
}

/// One staged fail event of [`TimelineSummary`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureSummary {
    pub duration_s: Option<f64>,
    pub stage: u8,
    pub subagent: Option<String>,
    pub ts: Option<String>,
    /// The event's verdict, else its reason.
    pub verdict: Option<String>,
}

/// statectl `timeline-summary` over one task's events (in file order).
/// `timeline_path` is echoed as given (the caller makes it repo-relative).
pub fn timeline_summary(events: &[TimelineEvent], timeline_path: &str) -> TimelineSummary {
    let mut action_counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut stages: BTreeMap<u8, StageSummary> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut dispatches = 0u64;
    for e in events {
        let action = e.action.as_deref().unwrap_or("?");
        *action_counts.entry(action.to_owned()).or_insert(0) += 1;
        if action == "start" {
            dispatches += 1;
        }
        let Some(stage) = e.stage else { continue };
        // As statectl: the stage's subagent is fixed by its first event, the one it recorded
        // or else the static map, and its failures carry that one.
        let s = stages.entry(stage).or_insert_with(|| StageSummary {
            attempts: 0,
            completed: 0,
            duration_s_total: None,
            durations_s: Vec::new(),
            failed: 0,
            stage,
            subagent: e
                .subagent
                .clone()
                .filter(|a| !a.is_empty())
                .or_else(|| stage_subagent(stage).map(String::from)),
        });
        match action {
            "start" => s.attempts += 1,
            "complete" => s.completed += 1,
            "fail" => {
                s.failed += 1;
                failures.push(FailureSummary {
                    duration_s: e.duration_s,
                    stage,
                    subagent: s.subagent.clone(),
                    ts: e.ts.clone(),
                    verdict: e.failure_class().map(String::from),
                });
            }
            _ => {}
        }
        if matches!(action, "complete" | "fail") {
            if let Some(d) = e.duration_s {
                s.durations_s.push(d);
            }
        }
    }
    let stages = stages
        .into_values()
        .map(|mut s| {
            if !s.durations_s.is_empty() {
                s.duration_s_total = Some(round_to(s.durations_s.iter().sum(), 3));
            }
            s
        })
        .collect();
    // The first and last events that have a timestamp, as statectl takes them.
    let first_ts = events.iter().find_map(|e| e.ts.clone().filter(|t| !t.is_empty()));
    let last_ts = events.iter().rev().find_map(|e| e.ts.clone().filter(|t| !t.is_empty()));
    let elapsed_s = match (
        first_ts.as_deref().and_then(parse_utc_seconds),
        last_ts.as_deref().and_then(parse_utc_seconds),
    ) {
        (Some(a), Some(b)) => Some(round_to(b - a, 3)),
        _ => None,
    };
    TimelineSummary {
        action_counts,
        dispatches,
        elapsed_s,
        events_total: events.len() as u64,
        failures,
        first_ts,
        last_ts,
        mode: events.iter().find_map(|e| e.mode.clone()),
        stages,
        timeline_path: timeline_path.to_owned(),
    }
}

/// `stats metrics` over many tasks (see the module docs for definitions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metrics {
    pub tasks: u64,
    pub first_pass_rate: FirstPassRate,
    pub design_revision_avg: DesignRevisionAvg,
    pub stage_duration_profile: BTreeMap<u8, DurationProfile>,
    pub attempts_per_stage: BTreeMap<u8, StageAttempts>,
    pub recurrence: TimelineRecurrence,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirstPassRate {
    /// Tasks whose first stage-3 attempt has an outcome.
    pub tasks: u64,
    pub passed: u64,
    /// Tasks whose first stage-3 attempt has no outcome yet.
    pub undecided: u64,
    pub rate: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DesignRevisionAvg {
    pub tasks: u64,
    pub revisions: u64,
    pub avg: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DurationProfile {
    pub n: u64,
    pub mean: f64,
    pub median: f64,
    pub p90: f64,
    pub total: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageAttempts {
    /// Tasks with at least one start of the stage.
    pub tasks: u64,
    pub starts: u64,
    pub fails: u64,
    /// starts / tasks.
    pub mean: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimelineRecurrence {
    pub failure_modes: u64,
    pub recurring_modes: u64,
    pub rate: Option<f64>,
    /// Every mode, sorted by name.
    pub modes: Vec<FailureMode>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureMode {
    pub verdict: String,
    /// Tasks that hit it, earliest task first.
    pub tasks: Vec<String>,
    pub recurred: bool,
}

/// Outcome of the first stage-3 attempt: `None` without a stage-3 start,
/// `Some(None)` while undecided, `Some(Some(passed))` otherwise.
fn first_stage3_outcome(events: &[&TimelineEvent]) -> Option<Option<bool>> {
    let start = events.iter().position(|e| e.stage == Some(3) && e.is_action("start"))?;
    let outcome = events[start + 1..].iter().filter(|e| e.stage == Some(3)).find_map(|e| {
        match e.action.as_deref() {
            Some("complete") => Some(true),
            Some("fail") => Some(false),
            _ => None,
        }
    });
    Some(outcome)
}

fn profile(mut values: Vec<f64>) -> DurationProfile {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let total: f64 = values.iter().sum();
    let median = match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    };
    // Nearest rank: the ceil(0.9 n)-th smallest, 1-based; computed in integers
    // so 0.9 * 10 cannot round up to rank 10.000001.
    let rank = (9 * n).div_ceil(10);
    let p90 = values.get(rank.saturating_sub(1)).copied().unwrap_or(0.0);
    DurationProfile {
        n: n as u64,
        mean: if n == 0 { 0.0 } else { round_to(total / n as f64, 3) },
        median: round_to(median, 3),
        p90: round_to(p90, 3),
        total: round_to(total, 3),
    }
}

/// `stats metrics` over `(task_id, events)` pairs.
pub fn metrics(tasks: &[(String, Vec<TimelineEvent>)]) -> Metrics {
    let mut fp = FirstPassRate { tasks: 0, passed: 0, undecided: 0, rate: None };
    let mut revisions = 0u64;
    let mut durations: BTreeMap<u8, Vec<f64>> = BTreeMap::new();
    let mut attempts: BTreeMap<u8, StageAttempts> = BTreeMap::new();
    // mode → {(task start, task id)}
    let mut modes: BTreeMap<String, BTreeSet<(Option<i64>, String)>> = BTreeMap::new();
    for (task_id, events) in tasks {
        let mut ordered: Vec<&TimelineEvent> = events.iter().collect();
        ordered.sort_by_key(|e| e.line);
        match first_stage3_outcome(&ordered) {
            Some(Some(passed)) => {
                fp.tasks += 1;
                fp.passed += u64::from(passed);
            }
            Some(None) => fp.undecided += 1,
            None => {}
        }
        // Whole seconds are enough to order tasks, and i64 sorts totally.
        let task_start = ordered
            .iter()
            .find_map(|e| parse_utc_seconds(e.ts.as_deref()?))
            .map(|t| t.floor() as i64);
        let mut started: BTreeSet<u8> = BTreeSet::new();
        for e in &ordered {
            let is_fail = e.is_action("fail");
            if is_fail
                && (e.reason.as_deref() == Some("design_revision")
                    || e.verdict.as_deref() == Some("design_revision"))
            {
                revisions += 1;
            }
            let Some(stage) = e.stage else { continue };
            let a = attempts.entry(stage).or_insert(StageAttempts {
                tasks: 0,
                starts: 0,
                fails: 0,
                mean: None,
            });
            if e.is_action("start") {
                a.starts += 1;
                if started.insert(stage) {
                    a.tasks += 1;
                }
            }
            if is_fail {
                a.fails += 1;
                if let Some(class) = e.failure_class() {
                    modes
                        .entry(class.to_owned())
                        .or_default()
                        .insert((task_start, task_id.clone()));
                }
            }
            if is_fail || e.is_action("complete") {
                if let Some(d) = e.duration_s {
                    durations.entry(stage).or_default().push(d);
                }
            }
        }
    }
    fp.rate = rate4(fp.passed, fp.tasks);
    // A stage seen only in complete/fail events (no start) has no attempts row.
    attempts.retain(|_, a| a.tasks > 0);
    for a in attempts.values_mut() {
        a.mean = rate4(a.starts, a.tasks);
    }
    let modes: Vec<FailureMode> = modes
        .into_iter()
        .map(|(verdict, set)| {
            let mut seen = BTreeSet::new();
            let tasks: Vec<String> = set
                .into_iter()
                .filter_map(|(_, id)| seen.insert(id.clone()).then_some(id))
                .collect();
            FailureMode { recurred: tasks.len() >= 2, verdict, tasks }
        })
        .collect();
    let recurring = modes.iter().filter(|m| m.recurred).count() as u64;
    let n_tasks = tasks.len() as u64;
    Metrics {
        tasks: n_tasks,
        first_pass_rate: fp,
        design_revision_avg: DesignRevisionAvg {
            tasks: n_tasks,
            revisions,
            avg: rate4(revisions, n_tasks),
        },
        stage_duration_profile: durations.into_iter().map(|(s, v)| (s, profile(v))).collect(),
        attempts_per_stage: attempts,
        recurrence: TimelineRecurrence {
            failure_modes: modes.len() as u64,
            recurring_modes: recurring,
            rate: rate4(recurring, modes.len() as u64),
            modes,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_timeline;

    #[test]
    fn summary_matches_statectl_test_case() {
        // The statectl test: init, start 3, fail 3 (runtime) after 0 s,
        // start 3, complete 3 after 100 s.
        let text = concat!(
            "{\"action\": \"init\", \"mode\": \"new_op\", \"phase_after\": \"DESIGN\", \"phase_before\": null, \"ts\": \"2026-09-05T00:00:00Z\"}\n",
            "{\"action\": \"start\", \"mode\": \"new_op\", \"stage\": 3, \"subagent\": \"tilelang-op-developer\", \"ts\": \"2026-09-05T00:00:00Z\"}\n",
            "{\"action\": \"fail\", \"duration_s\": 0.0, \"mode\": \"new_op\", \"reason\": \"boom\", \"stage\": 3, \"ts\": \"2026-09-05T00:00:00Z\", \"verdict\": \"runtime\"}\n",
            "{\"action\": \"start\", \"stage\": 3, \"ts\": \"2026-09-05T00:00:00Z\"}\n",
            "{\"action\": \"complete\", \"duration_s\": 100.0, \"stage\": 3, \"ts\": \"2026-09-05T00:01:40Z\", \"verdict\": \"pass\"}\n",
            "{not json\n",
        );
        let (events, diags) = parse_timeline(text, "t/.task_timeline.jsonl", "t");
        assert_eq!(diags.len(), 1);
        let s = timeline_summary(&events, "t/.task_timeline.jsonl");
        assert_eq!((s.events_total, s.dispatches, s.elapsed_s), (5, 2, Some(100.0)));
        let counts: Vec<(&str, u64)> =
            s.action_counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(counts, [("complete", 1), ("fail", 1), ("init", 1), ("start", 2)]);
        assert_eq!(s.stages.len(), 1);
        assert_eq!(s.stages[0].durations_s, [0.0, 100.0]);
        assert_eq!(s.stages[0].duration_s_total, Some(100.0));
        assert_eq!(s.failures[0].verdict.as_deref(), Some("runtime"));
        assert_eq!(s.mode.as_deref(), Some("new_op"));
    }

    #[test]
    fn aggregate_and_empty_timelines() {
        let text = "{\"action\": \"migration-init\", \"ts\": \"bad\"}\n{\"ts\": \"2026-09-05T00:00:00Z\"}\n";
        let (events, _) = parse_timeline(text, "p", "t");
        let s = timeline_summary(&events, "p");
        assert_eq!((s.dispatches, s.stages.len(), s.elapsed_s), (0, 0, None));
        assert_eq!(s.action_counts.get("?"), Some(&1));
        let empty = timeline_summary(&[], "p");
        assert_eq!((empty.events_total, empty.first_ts.clone()), (0, None));
        let m = metrics(&[]);
        assert_eq!((m.tasks, m.first_pass_rate.rate, m.design_revision_avg.avg), (0, None, None));
    }

    #[test]
    fn design_revisions_and_undecided_first_pass() {
        let text = concat!(
            "{\"action\": \"start\", \"stage\": 1, \"ts\": \"2026-09-05T00:00:00Z\"}\n",
            "{\"action\": \"complete\", \"stage\": 1, \"duration_s\": 10, \"ts\": \"2026-09-05T00:00:10Z\"}\n",
            "{\"action\": \"start\", \"stage\": 3, \"ts\": \"2026-09-05T00:00:20Z\"}\n",
            "{\"action\": \"fail\", \"stage\": 3, \"reason\": \"design_revision\", \"verdict\": \"design_revision\", \"ts\": \"2026-09-05T00:00:30Z\"}\n",
            "{\"action\": \"start\", \"stage\": 1, \"ts\": \"2026-09-05T00:00:40Z\"}\n",
        );
        let (a, _) = parse_timeline(text, "p", "a");
        let (b, _) = parse_timeline(&text.lines().take(3).collect::<Vec<_>>().join("\n"), "p", "b");
        let m = metrics(&[("a".into(), a), ("b".into(), b)]);
        assert_eq!((m.design_revision_avg.revisions, m.design_revision_avg.avg), (1, Some(0.5)));
        assert_eq!(
            (m.first_pass_rate.tasks, m.first_pass_rate.passed, m.first_pass_rate.undecided),
            (1, 0, 1)
        );
        assert_eq!(
            m.attempts_per_stage.get(&1).map(|a| (a.tasks, a.starts, a.mean)),
            Some((2, 3, Some(1.5)))
        );
    }

    #[test]
    fn percentiles() {
        let p = profile(vec![5.0, 1.0, 3.0, 2.0, 4.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert_eq!((p.n, p.median, p.p90, p.total, p.mean), (10, 5.5, 9.0, 55.0, 5.5));
        let one = profile(vec![2.5]);
        assert_eq!((one.median, one.p90), (2.5, 2.5));
    }
}
