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

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

/// The compact form of an [`ErrorCase`] in stores written before [`CaseChunk`]s (read only, to
/// load and migrate such stores): its rounds as numbers into the
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

/// Bytes encoded as one length-prefixed run (serde's bytes type) instead of one sequence
/// element per byte, so a chunk's status grid encodes and decodes as a copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Bytes, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(Bytes(out))
            }
        }
        d.deserialize_byte_buf(Visit)
    }
}

/// Key source codes of [`CaseChunk::key_source`].
pub const KEY_FROM_CASE_HASH: u8 = 0;
/// See [`KEY_FROM_CASE_HASH`].
pub const KEY_FROM_QUERY: u8 = 1;

/// Up to `stored::CHUNK_CASES` error cases in columns, as `errors import` stores them
/// (`coll.case_chunks`, keyed by the chunk's big-endian number). The chunks hold every case in
/// case-key order: chunk 0 the first keys. A figure decodes a few dozen of these instead of a
/// million items, and each column is one run of bytes.
///
/// Strings are stored one after another (`keys`, `queries`) with each value's end offset in
/// the chunk's text. `gold`, `subset` and `pattern` are numbers into the chunk's `words`:
/// 0 for absent, i + 1 for `words[i]`. `status` holds `width` bytes per case, one per round
/// of the store's round-name list (`coll.round_names`), in that list's order: 0 not evaluated,
/// 1 passed, 2 failed. The original line of each case is in `coll.case_lines` (segment
/// number, byte offset and length), and `line_hash` (16 bytes per case, a blake3 prefix of
/// the line) lets a re-import tell an unchanged case without reading it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseChunk {
    pub width: u32,
    pub keys: String,
    pub key_ends: Vec<u64>,
    /// Per case: [`KEY_FROM_CASE_HASH`] or [`KEY_FROM_QUERY`].
    pub key_source: Bytes,
    pub key_algo_version: Vec<u16>,
    pub queries: String,
    pub query_ends: Vec<u64>,
    /// Per case: 1 when it has a query (an absent query and an empty one differ).
    pub has_query: Bytes,
    pub words: Vec<String>,
    pub gold: Vec<u32>,
    pub subset: Vec<u32>,
    pub pattern: Vec<u32>,
    pub status: Bytes,
    pub line_hash: Bytes,
    pub line_segment: Vec<u32>,
    pub line_start: Vec<u64>,
    pub line_len: Vec<u64>,
}

fn slice<'a>(text: &'a str, ends: &[u64], i: usize) -> &'a str {
    let start = if i == 0 { 0 } else { ends.get(i - 1).copied().unwrap_or(0) };
    let end = ends.get(i).copied().unwrap_or(start);
    let (start, end) = (usize::try_from(start).unwrap_or(0), usize::try_from(end).unwrap_or(0));
    text.get(start..end).unwrap_or_default()
}

impl CaseChunk {
    /// How many cases.
    pub fn len(&self) -> usize {
        self.key_ends.len()
    }

    /// Whether the chunk holds no case.
    pub fn is_empty(&self) -> bool {
        self.key_ends.is_empty()
    }

    /// Case `c`'s key.
    pub fn key(&self, c: usize) -> &str {
        slice(&self.keys, &self.key_ends, c)
    }

    /// Case `c`'s query.
    pub fn query(&self, c: usize) -> Option<&str> {
        (self.has_query.0.get(c) == Some(&1)).then(|| slice(&self.queries, &self.query_ends, c))
    }

    /// The word of a `gold`/`subset`/`pattern` number.
    pub fn word(&self, id: u32) -> Option<&str> {
        id.checked_sub(1).and_then(|i| self.words.get(i as usize)).map(String::as_str)
    }
}
