//! timeline-summary and stats metrics on the six sample timelines, with
//! numbers worked out by hand from the files (see the comments).

mod common;

use evokb_analytics::timeline::{metrics, timeline_summary};

#[test]
fn summaries_of_all_six() {
    let tasks = common::timelines();
    assert_eq!(tasks.len(), 6);
    // (task prefix, events, starts, elapsed_s, fails) by hand:
    // elapsed = last ts − first ts, e.g. adalayernorm 05:23:54 → 10:58:50
    // = 5 h 34 m 56 s = 20096 s.
    let want = [
        ("adalayernorm", 11, 5, 20096.0, 1), // stages 1, 2, 3 (twice), 4
        ("lerp_tensor", 9, 4, 16984.0, 1),   // 00:05:05 → 04:48:09; stages 1, 2, 3 (twice)
        ("multi_head_attention", 7, 3, 6336.0, 0), // 08:17:57 → 10:03:33
        ("rmsnorm", 7, 3, 13390.0, 0),       // 10:14:20 → 13:57:30
        ("softmax", 11, 5, 15278.0, 1),      // 06:19:46 → 10:34:24; stages 1, 2, 3, 4 (twice)
        ("ssd_chunk_scan", 7, 3, 13297.0, 0), // 05:11:08 → 08:52:45
    ];
    for ((task, events), (prefix, n, starts, elapsed, fails)) in tasks.iter().zip(want) {
        assert!(task.starts_with(prefix), "{task}");
        let s = timeline_summary(events, "x");
        assert_eq!(s.events_total, n, "{task}");
        assert_eq!(s.dispatches, starts, "{task}");
        assert_eq!(s.elapsed_s, Some(elapsed), "{task}");
        assert_eq!(s.failures.len(), fails, "{task}");
        assert_eq!(s.action_counts.get("init"), Some(&1), "{task}");
    }
}

#[test]
fn adalayernorm_summary_in_full() {
    let tasks = common::timelines();
    let (task, events) = &tasks[0];
    let path = format!("timelines/{task}/.task_timeline.jsonl");
    let s = timeline_summary(events, &path);
    let got = serde_json::to_value(&s).unwrap_or_default();
    // By hand from the file: 11 events (init 1, start 5, complete 4, fail 1);
    // stage 3 was started twice: failed after 3019 s, completed after 4770 s.
    let want = serde_json::json!({
        "action_counts": {"complete": 4, "fail": 1, "init": 1, "start": 5},
        "dispatches": 5,
        "elapsed_s": 20096.0,
        "events_total": 11,
        "failures": [{"duration_s": 3019.0, "stage": 3, "subagent": "tilelang-op-developer",
                      "ts": "2026-09-04T08:29:53Z", "verdict": "precision"}],
        "first_ts": "2026-09-04T05:23:54Z",
        "last_ts": "2026-09-04T10:58:50Z",
        "mode": "developer",
        "stages": [
            {"attempts": 1, "completed": 1, "duration_s_total": 3899.0, "durations_s": [3899.0],
             "failed": 0, "stage": 1, "subagent": "tilelang-op-designer"},
            {"attempts": 1, "completed": 1, "duration_s_total": 4134.0, "durations_s": [4134.0],
             "failed": 0, "stage": 2, "subagent": "tilelang-design-reviewer"},
            {"attempts": 2, "completed": 1, "duration_s_total": 7789.0, "durations_s": [3019.0, 4770.0],
             "failed": 1, "stage": 3, "subagent": "tilelang-op-developer"},
            {"attempts": 1, "completed": 1, "duration_s_total": 4106.0, "durations_s": [4106.0],
             "failed": 0, "stage": 4, "subagent": "tilelang-op-optimizer"}
        ],
        "timeline_path": path,
    });
    assert_eq!(got, want);
    // Sorted keys, as statectl prints them.
    let text = serde_json::to_string(&s).unwrap_or_default();
    assert!(text.starts_with("{\"action_counts\":{\"complete\":4,"));
}

#[test]
fn metrics_over_six() {
    let m = metrics(&common::timelines());
    assert_eq!(m.tasks, 6);

    // First stage-3 attempt: adalayernorm fail, lerp_tensor fail; the other
    // four complete → 4 / 6 = 0.6667.
    let fp = &m.first_pass_rate;
    assert_eq!((fp.tasks, fp.passed, fp.undecided, fp.rate), (6, 4, 0, Some(0.6667)));

    // No fail event has reason or verdict design_revision → 0 / 6.
    let dr = &m.design_revision_avg;
    assert_eq!((dr.tasks, dr.revisions, dr.avg), (6, 0, Some(0.0)));

    // Durations (complete + fail) per stage, by hand:
    // 1: 3899 2644 3233 4050 5225 3770 → total 22821, mean 3803.5,
    //    sorted 2644 3233 3770 3899 4050 5225 → median 3834.5, p90 rank 6 → 5225
    // 2: 4134 5090 1467 4250 2917 4423 → total 22281, mean 3713.5,
    //    sorted 1467 2917 4134 4250 4423 5090 → median 4192, p90 5090
    // 3: 3019 4770 5350 3764 1567 4936 989 4981 → total 29376, mean 3672,
    //    sorted 989 1567 3019 3764 4770 4936 4981 5350 → median 4267, p90 rank 8 → 5350
    // 4: 4106 4967 990 → total 10063, mean 3354.333, median 4106, p90 rank 3 → 4967
    let prof: Vec<(u8, u64, f64, f64, f64, f64)> = m
        .stage_duration_profile
        .iter()
        .map(|(s, p)| (*s, p.n, p.mean, p.median, p.p90, p.total))
        .collect();
    assert_eq!(
        prof,
        [
            (1, 6, 3803.5, 3834.5, 5225.0, 22821.0),
            (2, 6, 3713.5, 4192.0, 5090.0, 22281.0),
            (3, 8, 3672.0, 4267.0, 5350.0, 29376.0),
            (4, 3, 3354.333, 4106.0, 4967.0, 10063.0),
        ]
    );

    // Starts per stage: 1 and 2 once in each of 6 tasks; stage 3: 8 starts in
    // 6 tasks (2 fails) → 1.3333; stage 4: adalayernorm 1 + softmax 2 = 3
    // starts in 2 tasks (1 fail) → 1.5.
    let att: Vec<(u8, u64, u64, u64, Option<f64>)> = m
        .attempts_per_stage
        .iter()
        .map(|(s, a)| (*s, a.tasks, a.starts, a.fails, a.mean))
        .collect();
    assert_eq!(
        att,
        [
            (1, 6, 6, 0, Some(1.0)),
            (2, 6, 6, 0, Some(1.0)),
            (3, 6, 8, 2, Some(1.3333)),
            (4, 2, 3, 1, Some(1.5)),
        ]
    );

    // Failure modes: "precision" in lerp_tensor (09-01) and again in
    // adalayernorm (09-04); "no_improvement" only in softmax → 1 / 2 = 0.5.
    let r = &m.recurrence;
    assert_eq!((r.failure_modes, r.recurring_modes, r.rate), (2, 1, Some(0.5)));
    assert_eq!(r.modes[1].verdict, "precision");
    assert!(r.modes[1].tasks[0].starts_with("lerp_tensor"));
    assert!(r.modes[1].tasks[1].starts_with("adalayernorm"));
    assert!(!r.modes[0].recurred);
}
