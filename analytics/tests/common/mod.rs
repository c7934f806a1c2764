//! Fixture loading shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use evokb_analytics::model::{ErrorCase, Round, TimelineEvent};
use evokb_analytics::parse::{
    parse_error_registry, parse_iteration_log, parse_timeline, task_id_from_timeline_path,
};

/// `$EVOKB_FIXTURES`, else the repository's `tests/data`.
pub fn fixtures() -> PathBuf {
    std::env::var_os("EVOKB_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data"))
}

pub fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn model_iteration() -> (Vec<ErrorCase>, Vec<Round>) {
    let dir = fixtures().join("model-iteration/results");
    let reg = dir.join("error_registry.jsonl");
    let log = dir.join("iteration_log.jsonl");
    let (cases, d1) = parse_error_registry(&read(&reg), &reg.to_string_lossy());
    let (rounds, d2) = parse_iteration_log(&read(&log), &log.to_string_lossy());
    assert!(d1.is_empty() && d2.is_empty(), "{d1:?} {d2:?}");
    (cases, rounds)
}

/// Every `*/.task_timeline.jsonl` under `timelines/`, sorted by task id.
pub fn timelines() -> Vec<(String, Vec<TimelineEvent>)> {
    let root = fixtures().join("timelines");
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    for entry in entries.flatten() {
        let path = entry.path().join(".task_timeline.jsonl");
        if !path.is_file() {
            continue;
        }
        let p = path.to_string_lossy().into_owned();
        let task = task_id_from_timeline_path(&p).unwrap_or_default();
        let (events, diags) = parse_timeline(&read(&path), &p, &task);
        assert!(diags.is_empty(), "{diags:?}");
        out.push((task, events));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
