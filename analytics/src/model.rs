//! Stored record types: error cases from `results/error_registry.jsonl`,
//! rounds from `results/iteration_log.jsonl` and events from
//! `.task_timeline.jsonl`.
//!
//! These are persisted with bincode 2 through serde, which is why they use
//! only plain fields: no `serde_json::Value`, no `#[serde(flatten)]`, no
//! `skip_serializing_if` and no untagged enums (bincode is not
//! self-describing, so any of those would break decoding). Each record keeps
//! its original JSON line in `raw`, so fields this crate does not know about
//! survive a store round trip. JSON output uses the separate structs in
//! `figures` and `timeline`.

use serde::{Deserialize, Serialize};

/// Version of the normalised-query key algorithm (see
/// [`crate::parse::normalise_query`]). Bump it when the normalisation or the
/// hash changes, so stored keys can be told apart and re-derived.
pub const QUERY_KEY_ALGO_VERSION: u16 = 1;

/// `key_algo_version` of keys taken verbatim from `case_hash`: no algorithm
/// was involved, so there is nothing to version.
pub const VERBATIM_KEY_ALGO_VERSION: u16 = 0;

/// How an [`ErrorCase`]'s key was derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum KeySource {
    /// Taken verbatim from the line's `case_hash`.
    CaseHashField,
    /// The first 16 hex digits of blake3 over the normalised `query`.
    NormalisedQuery,
}

/// One line of the error registry: a case that failed in at least one round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCase {
    /// The case's key: `case_hash` or, without one, the normalised-query hash.
    pub case_hash: String,
    pub key_source: KeySource,
    pub key_algo_version: u16,
    pub query: Option<String>,
    pub gold: Option<String>,
    pub subset: Option<String>,
    /// Root-cause class; interventions target these.
    pub pattern: Option<String>,
    /// Rounds in which the case was in the evaluation set, as listed.
    pub evaluated: Vec<String>,
    /// Rounds in which the case failed, as listed.
    pub failed_rounds: Vec<String>,
    /// The original JSON line.
    pub raw: String,
}

/// The intervention of a round: the training-data change and the error
/// patterns it targeted (the knowledge injected in that round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intervention {
    /// JSON `type` (e.g. `augment`, `relabel`).
    pub kind: Option<String>,
    pub patterns: Vec<String>,
}

/// One line of the iteration log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    pub round: String,
    /// JSON `runDic`: the evaluation run's number.
    pub run_dic: Option<i64>,
    pub hypothesis: Option<String>,
    pub verdict: Option<String>,
    pub intervention: Option<Intervention>,
    /// The original JSON line.
    pub raw: String,
}

/// One line of a `.task_timeline.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineEvent {
    /// The task id, from the timeline's folder name (timelines carry none).
    pub task_id: String,
    /// 1-based line number in the timeline file.
    pub line: u32,
    pub ts: Option<String>,
    pub action: Option<String>,
    pub stage: Option<u8>,
    pub subagent: Option<String>,
    pub mode: Option<String>,
    pub verdict: Option<String>,
    pub reason: Option<String>,
    pub duration_s: Option<f64>,
    pub phase_before: Option<String>,
    pub phase_after: Option<String>,
    /// The original JSON line.
    pub raw: String,
}

impl TimelineEvent {
    /// The failure class of a fail event: its `verdict`, else its `reason`
    /// (the same rule as timeline-summary's `failures`).
    pub fn failure_class(&self) -> Option<&str> {
        self.verdict.as_deref().or(self.reason.as_deref())
    }

    pub fn is_action(&self, action: &str) -> bool {
        self.action.as_deref() == Some(action)
    }
}

/// A task's `.task_timeline.jsonl` as imported: its text, so `timeline summary --task` gives
/// statectl's summary even for lines the typed parser skips and for empty files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineFile {
    pub task_id: String,
    /// statectl's `timeline_path`: the file relative to the repository root, `/`-separated.
    pub timeline_path: String,
    /// The file's text.
    pub text: String,
}

/// The compact form of an [`ErrorCase`] that the figures load: its rounds as numbers into the
/// store's round-name list (`coll.round_names`), and no original line. Written next to every
/// case by `errors import`, so a figure over a million cases reads ~150 bytes per case instead
/// of decoding the full record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseRow {
    pub case_hash: String,
    pub query: Option<String>,
    pub gold: Option<String>,
    pub subset: Option<String>,
    pub pattern: Option<String>,
    pub evaluated: Vec<u32>,
    pub failed_rounds: Vec<u32>,
}
