//! Parsing of the three JSONL inputs (error registry, iteration log, task
//! timeline) into the stored record types, with line-level diagnostics.
//!
//! Every function takes the file's text and never panics: a line that is not
//! valid JSON, not an object, or has a known field of the wrong type is
//! reported as a [`Diagnostic`] with its path and 1-based line number and is
//! skipped. Blank lines are ignored silently, since editors and `>>` appends
//! leave them behind.
//!
//! # Case keys
//! A registry case is keyed by its `case_hash`. Without one, the key is
//! derived from its query (key algorithm version 1):
//! 1. [`normalise_query`]: trim, collapse every run of Unicode whitespace
//!    (`char::is_whitespace`, so U+3000 and U+00A0 count) into one U+0020
//!    space, and lowercase ASCII letters only. Non-ASCII text is kept as is:
//!    full Unicode case folding or NFC would make the key depend on the
//!    Unicode tables of whatever library version computed it.
//! 2. blake3 over the UTF-8 bytes of the result; the key is its first 16
//!    lowercase hex digits, the same width as the fixture's `case_hash`.
//!
//! The case records `key_source` and `key_algo_version` (0 for verbatim keys).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};
use thiserror::Error;

use crate::model::{
    ErrorCase, Intervention, KeySource, Round, TimelineEvent, QUERY_KEY_ALGO_VERSION,
    VERBATIM_KEY_ALGO_VERSION,
};

/// A problem with one input line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub path: String,
    /// 1-based line number.
    pub line: u32,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.message)
    }
}

/// Why a line was skipped or flagged; its `Display` is the diagnostic message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineIssue {
    #[error("line is not valid JSON ({0})")]
    NotJson(String),
    #[error("expected a JSON object with 'case_hash' or 'query', found {0}")]
    NotACase(String),
    #[error("expected a JSON object with a 'round' string, found {0}")]
    NotARound(String),
    #[error("expected a JSON object (one timeline event), found {0}")]
    NotAnEvent(String),
    #[error("field '{field}' must be {expected}, found '{found}'")]
    WrongType { field: &'static str, expected: &'static str, found: String },
    #[error("field '{0}' is empty")]
    Empty(&'static str),
    #[error("field 'query' is blank after normalisation, so the case has no key")]
    BlankQuery,
    #[error("duplicate case key '{key}' (first seen on line {first_line}); kept the first and skipped this line")]
    DuplicateCase { key: String, first_line: u32 },
    #[error("duplicate round '{round}' (first seen on line {first_line}); kept the first and skipped this line")]
    DuplicateRound { round: String, first_line: u32 },
    #[error("case '{key}' failed in round '{round}', which its 'evaluated' list lacks; the round counts as evaluated")]
    FailedNotEvaluated { key: String, round: String },
}

/// Collapses whitespace and lowercases ASCII; see the module docs (version 1).
pub fn normalise_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for word in query.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.make_ascii_lowercase();
    out
}

/// The version-1 key of a query: 16 hex digits of blake3 over the normalised
/// query, or `None` when the query is blank.
pub fn query_key(query: &str) -> Option<String> {
    let norm = normalise_query(query);
    if norm.is_empty() {
        return None;
    }
    let hex = blake3::hash(norm.as_bytes()).to_hex();
    Some(hex.as_str().chars().take(16).collect())
}

/// The task id of a timeline file: the name of the folder that holds it
/// (`…/<task_id>/.task_timeline.jsonl`). `None` when the path has no parent.
pub fn task_id_from_timeline_path(path: &str) -> Option<String> {
    std::path::Path::new(path)
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
}

/// Non-blank lines with their 1-based numbers. A leading UTF-8 BOM is dropped.
fn numbered_lines(text: &str) -> impl Iterator<Item = (u32, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().filter_map(|(i, line)| {
        if line.trim().is_empty() {
            None
        } else {
            // Files beyond u32::MAX lines are not realistic; saturate rather than wrap.
            Some((u32::try_from(i + 1).unwrap_or(u32::MAX), line))
        }
    })
}

/// A short rendering of a JSON value for messages.
fn show(value: &Value) -> String {
    let s = value.to_string();
    if s.chars().count() > 40 {
        let head: String = s.chars().take(37).collect();
        format!("{head}...")
    } else {
        s
    }
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn parse_object(line: &str) -> Result<Value, LineIssue> {
    serde_json::from_str::<Value>(line).map_err(|e| LineIssue::NotJson(e.to_string()))
}

/// An optional string field; `null` counts as absent.
fn opt_str(obj: &Map<String, Value>, field: &'static str) -> Result<Option<String>, LineIssue> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => {
            Err(LineIssue::WrongType { field, expected: "a string", found: show(other) })
        }
    }
}

/// An optional array of strings; absent or `null` is an empty list.
fn str_list(obj: &Map<String, Value>, field: &'static str) -> Result<Vec<String>, LineIssue> {
    let wrong =
        |v: &Value| LineIssue::WrongType { field, expected: "an array of strings", found: show(v) };
    match obj.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                _ => Err(wrong(item)),
            })
            .collect(),
        Some(other) => Err(wrong(other)),
    }
}

/// A JSON string that borrows from the line when it has no escapes (serde's own `Cow` only
/// borrows as a direct field, not inside a list).
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text<'a>, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Visit(std::marker::PhantomData))
    }
}

/// A registry line with well-typed fields: the fast path. Anything it rejects goes through the
/// field-by-field path, which says exactly what is wrong.
#[derive(serde::Deserialize)]
struct TypedCase<'a> {
    #[serde(borrow)]
    case_hash: Option<Text<'a>>,
    #[serde(borrow)]
    query: Option<Text<'a>>,
    #[serde(borrow)]
    gold: Option<Text<'a>>,
    #[serde(borrow)]
    subset: Option<Text<'a>>,
    #[serde(borrow)]
    pattern: Option<Text<'a>>,
    #[serde(borrow)]
    evaluated: Option<Vec<Text<'a>>>,
    #[serde(borrow)]
    failed_rounds: Option<Vec<Text<'a>>>,
}

/// One parsed registry line, borrowing its strings from the line where it can: what
/// `errors import` stores, without an owned string per round name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseLine<'a> {
    /// The case's key: `case_hash` or, without one, the normalised-query hash.
    pub key: Cow<'a, str>,
    pub key_source: KeySource,
    pub key_algo_version: u16,
    pub query: Option<Cow<'a, str>>,
    pub gold: Option<Cow<'a, str>>,
    pub subset: Option<Cow<'a, str>>,
    pub pattern: Option<Cow<'a, str>>,
    pub evaluated: Vec<Cow<'a, str>>,
    pub failed_rounds: Vec<Cow<'a, str>>,
}

impl CaseLine<'_> {
    /// The owned case, with `raw` as its original line.
    pub fn into_case(self, raw: &str) -> ErrorCase {
        let own = |v: Vec<Cow<'_, str>>| v.into_iter().map(Cow::into_owned).collect();
        ErrorCase {
            case_hash: self.key.into_owned(),
            key_source: self.key_source,
            key_algo_version: self.key_algo_version,
            query: self.query.map(Cow::into_owned),
            gold: self.gold.map(Cow::into_owned),
            subset: self.subset.map(Cow::into_owned),
            pattern: self.pattern.map(Cow::into_owned),
            evaluated: own(self.evaluated),
            failed_rounds: own(self.failed_rounds),
            raw: raw.to_owned(),
        }
    }
}

impl From<ErrorCase> for CaseLine<'static> {
    fn from(c: ErrorCase) -> CaseLine<'static> {
        let cow = |v: Vec<String>| v.into_iter().map(Cow::Owned).collect();
        CaseLine {
            key: Cow::Owned(c.case_hash),
            key_source: c.key_source,
            key_algo_version: c.key_algo_version,
            query: c.query.map(Cow::Owned),
            gold: c.gold.map(Cow::Owned),
            subset: c.subset.map(Cow::Owned),
            pattern: c.pattern.map(Cow::Owned),
            evaluated: cow(c.evaluated),
            failed_rounds: cow(c.failed_rounds),
        }
    }
}

fn text(v: Option<Text<'_>>) -> Option<Cow<'_, str>> {
    v.map(|t| t.0)
}

fn list(v: Option<Vec<Text<'_>>>) -> Vec<Cow<'_, str>> {
    v.unwrap_or_default().into_iter().map(|t| t.0).collect()
}

fn typed_case(line: &str) -> Option<CaseLine<'_>> {
    let t: TypedCase<'_> = serde_json::from_str(line).ok()?;
    let (key, key_source, key_algo_version) = match (&t.case_hash, &t.query) {
        (Some(hash), _) if !hash.0.trim().is_empty() => {
            (hash.0.clone(), KeySource::CaseHashField, VERBATIM_KEY_ALGO_VERSION)
        }
        (None, Some(q)) => {
            (Cow::Owned(query_key(&q.0)?), KeySource::NormalisedQuery, QUERY_KEY_ALGO_VERSION)
        }
        _ => return None,
    };
    Some(CaseLine {
        key,
        key_source,
        key_algo_version,
        query: text(t.query),
        gold: text(t.gold),
        subset: text(t.subset),
        pattern: text(t.pattern),
        evaluated: list(t.evaluated),
        failed_rounds: list(t.failed_rounds),
    })
}

/// Parses one registry line (the key is derived here), borrowing from it where it can.
pub fn parse_case_line(line: &str) -> Result<CaseLine<'_>, LineIssue> {
    if let Some(case) = typed_case(line) {
        return Ok(case);
    }
    parse_case_slow(line).map(CaseLine::from)
}

/// Parses one registry line into a case (the key is derived here).
fn parse_case(line: &str) -> Result<ErrorCase, LineIssue> {
    parse_case_line(line).map(|c| c.into_case(line))
}

/// The field-by-field path: slower, and it names the field that is wrong.
fn parse_case_slow(line: &str) -> Result<ErrorCase, LineIssue> {
    let value = parse_object(line)?;
    let Value::Object(obj) = value else {
        return Err(LineIssue::NotACase(kind_of(&value)));
    };
    let case_hash = opt_str(&obj, "case_hash")?;
    let query = opt_str(&obj, "query")?;
    let (key, key_source, key_algo_version) = match (&case_hash, &query) {
        (Some(hash), _) => {
            if hash.trim().is_empty() {
                return Err(LineIssue::Empty("case_hash"));
            }
            (hash.clone(), KeySource::CaseHashField, VERBATIM_KEY_ALGO_VERSION)
        }
        (None, Some(q)) => (
            query_key(q).ok_or(LineIssue::BlankQuery)?,
            KeySource::NormalisedQuery,
            QUERY_KEY_ALGO_VERSION,
        ),
        (None, None) => return Err(LineIssue::NotACase("an object with neither".into())),
    };
    Ok(ErrorCase {
        case_hash: key,
        key_source,
        key_algo_version,
        query,
        gold: opt_str(&obj, "gold")?,
        subset: opt_str(&obj, "subset")?,
        pattern: opt_str(&obj, "pattern")?,
        evaluated: str_list(&obj, "evaluated")?,
        failed_rounds: str_list(&obj, "failed_rounds")?,
        raw: line.to_owned(),
    })
}

/// Why a JSONL file could not be read line by line.
#[derive(Debug, Error)]
pub enum ReadError {
    #[error("cannot read '{path}': {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}:{line}: the line is not UTF-8 text ({message})")]
    NotUtf8 { path: String, line: u32, message: String },
}

/// Hands each non-blank line of a JSONL stream to `each` with its 1-based number, as
/// [`str::lines`] splits text (a `\r` before the `\n` is dropped), without reading the whole
/// file into memory. A leading UTF-8 BOM is dropped. `each` returns `false` to stop early.
/// A line that is not UTF-8 is an error naming the file and line.
pub fn read_lines(
    mut reader: impl std::io::BufRead,
    path: &str,
    mut each: impl FnMut(u32, &str) -> bool,
) -> Result<(), ReadError> {
    let mut buf = Vec::new();
    let mut n: u32 = 0;
    loop {
        buf.clear();
        let got = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| ReadError::Io { path: path.to_owned(), source })?;
        if got == 0 {
            return Ok(());
        }
        n = n.saturating_add(1);
        let mut bytes = buf.as_slice();
        if let Some(rest) = bytes.strip_suffix(b"\n") {
            bytes = rest.strip_suffix(b"\r").unwrap_or(rest);
        }
        if n == 1 {
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        let line = std::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
            path: path.to_owned(),
            line: n,
            message: e.to_string(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        if !each(n, line) {
            return Ok(());
        }
    }
}

/// Parses `results/error_registry.jsonl`. Duplicate keys keep the first case.
pub fn parse_error_registry(text: &str, path: &str) -> (Vec<ErrorCase>, Vec<Diagnostic>) {
    let mut cases = Vec::new();
    let diags = parse_error_registry_each(text, path, |c| cases.push(c));
    (cases, diags)
}

/// [`parse_error_registry`], handing each case to `each` as soon as it is parsed, so a large
/// registry is never held parsed all at once. Returns the diagnostics.
pub fn parse_error_registry_each(
    text: &str,
    path: &str,
    mut each: impl FnMut(ErrorCase),
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut first_line: BTreeMap<String, u32> = BTreeMap::new();
    let diag = |line: u32, issue: LineIssue| Diagnostic {
        path: path.to_owned(),
        line,
        message: issue.to_string(),
    };
    for (n, line) in numbered_lines(text) {
        let case = match parse_case(line) {
            Ok(case) => case,
            Err(issue) => {
                diags.push(diag(n, issue));
                continue;
            }
        };
        if let Some(&first) = first_line.get(&case.case_hash) {
            diags
                .push(diag(n, LineIssue::DuplicateCase { key: case.case_hash, first_line: first }));
            continue;
        }
        // Flag, but keep: the figures treat a failed round as evaluated.
        for round in &case.failed_rounds {
            if !case.evaluated.contains(round) {
                diags.push(diag(
                    n,
                    LineIssue::FailedNotEvaluated {
                        key: case.case_hash.clone(),
                        round: round.clone(),
                    },
                ));
            }
        }
        first_line.insert(case.case_hash.clone(), n);
        each(case);
    }
    diags
}

fn parse_round(line: &str) -> Result<Round, LineIssue> {
    let value = parse_object(line)?;
    let Value::Object(obj) = value else {
        return Err(LineIssue::NotARound(kind_of(&value)));
    };
    let round = match obj.get("round") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(LineIssue::Empty("round")),
        Some(other) => return Err(LineIssue::NotARound(format!("'round' = '{}'", show(other)))),
        None => return Err(LineIssue::NotARound("an object without one".into())),
    };
    let run_dic = match obj.get("runDic") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_i64().ok_or_else(|| LineIssue::WrongType {
            field: "runDic",
            expected: "an integer",
            found: show(v),
        })?),
    };
    let intervention = match obj.get("intervention") {
        None | Some(Value::Null) => None,
        Some(Value::Object(iv)) => {
            Some(Intervention { kind: opt_str(iv, "type")?, patterns: str_list(iv, "patterns")? })
        }
        Some(other) => {
            return Err(LineIssue::WrongType {
                field: "intervention",
                expected: "an object",
                found: show(other),
            })
        }
    };
    Ok(Round {
        round,
        run_dic,
        hypothesis: opt_str(&obj, "hypothesis")?,
        verdict: opt_str(&obj, "verdict")?,
        intervention,
        raw: line.to_owned(),
    })
}

/// Parses `results/iteration_log.jsonl`. A repeated round keeps the first line.
pub fn parse_iteration_log(text: &str, path: &str) -> (Vec<Round>, Vec<Diagnostic>) {
    let mut rounds = Vec::new();
    let mut diags = Vec::new();
    let mut first_line: BTreeMap<String, u32> = BTreeMap::new();
    for (n, line) in numbered_lines(text) {
        let issue = match parse_round(line) {
            Ok(round) => match first_line.get(&round.round) {
                Some(&first) => LineIssue::DuplicateRound { round: round.round, first_line: first },
                None => {
                    first_line.insert(round.round.clone(), n);
                    rounds.push(round);
                    continue;
                }
            },
            Err(issue) => issue,
        };
        diags.push(Diagnostic { path: path.to_owned(), line: n, message: issue.to_string() });
    }
    (rounds, diags)
}

fn parse_event(line: &str, n: u32, task_id: &str) -> Result<TimelineEvent, LineIssue> {
    let value = parse_object(line)?;
    let Value::Object(obj) = value else {
        return Err(LineIssue::NotAnEvent(kind_of(&value)));
    };
    let stage = match obj.get("stage") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().and_then(|s| u8::try_from(s).ok()).ok_or_else(|| {
            LineIssue::WrongType {
                field: "stage",
                expected: "an integer from 0 to 255",
                found: show(v),
            }
        })?),
    };
    let duration_s = match obj.get("duration_s") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_f64().ok_or_else(|| LineIssue::WrongType {
            field: "duration_s",
            expected: "a number",
            found: show(v),
        })?),
    };
    Ok(TimelineEvent {
        task_id: task_id.to_owned(),
        line: n,
        ts: opt_str(&obj, "ts")?,
        action: opt_str(&obj, "action")?,
        stage,
        subagent: opt_str(&obj, "subagent")?,
        mode: opt_str(&obj, "mode")?,
        verdict: opt_str(&obj, "verdict")?,
        reason: opt_str(&obj, "reason")?,
        duration_s,
        phase_before: opt_str(&obj, "phase_before")?,
        phase_after: opt_str(&obj, "phase_after")?,
        raw: line.to_owned(),
    })
}

/// Parses one `.task_timeline.jsonl`; `task_id` is usually
/// [`task_id_from_timeline_path`] of `path`, since events carry no task id.
pub fn parse_timeline(
    text: &str,
    path: &str,
    task_id: &str,
) -> (Vec<TimelineEvent>, Vec<Diagnostic>) {
    let mut events = Vec::new();
    let mut diags = Vec::new();
    for (n, line) in numbered_lines(text) {
        match parse_event(line, n, task_id) {
            Ok(event) => events.push(event),
            Err(issue) => diags.push(Diagnostic {
                path: path.to_owned(),
                line: n,
                message: issue.to_string(),
            }),
        }
    }
    (events, diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_documented_v1() {
        assert_eq!(normalise_query("  Play\t\tSOME  Jazz \n"), "play some jazz");
        // Non-ASCII is kept, U+3000 counts as whitespace.
        assert_eq!(normalise_query("播放\u{3000}Ä  MUSIC"), "播放 Ä music");
        assert_eq!(query_key("  "), None);
        let k = query_key("Play some jazz").unwrap_or_default();
        assert_eq!(k.len(), 16);
        assert_eq!(Some(k), query_key(" play   SOME jazz"));
    }

    #[test]
    fn registry_reports_and_skips_bad_lines() {
        let text = concat!(
            "{\"case_hash\": \"aa\", \"query\": \"q1\", \"evaluated\": [\"R0\"], \"failed_rounds\": [\"R0\"], \"extra\": 1}\n",
            "not json\n",
            "\n",
            "[1, 2]\n",
            "{\"gold\": \"x\"}\n",
            "{\"query\": \"  Hello   World \", \"failed_rounds\": [\"R1\"]}\n",
            "{\"query\": \"hello world\"}\n",
            "{\"case_hash\": \"aa\"}\n",
            "{\"case_hash\": \"bb\", \"evaluated\": \"R0\"}\n",
            "{\"case_hash\": 7}\n",
            "{\"case_hash\": \"  \"}\n",
        );
        let (cases, diags) = parse_error_registry(text, "reg.jsonl");
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].case_hash, "aa");
        assert_eq!(cases[0].key_source, KeySource::CaseHashField);
        assert_eq!(cases[0].key_algo_version, 0);
        assert!(cases[0].raw.contains("\"extra\": 1"));
        assert_eq!(cases[1].key_source, KeySource::NormalisedQuery);
        assert_eq!(cases[1].key_algo_version, 1);
        assert_eq!(Some(cases[1].case_hash.clone()), query_key("hello world"));
        let lines: Vec<u32> = diags.iter().map(|d| d.line).collect();
        assert_eq!(lines, [2, 4, 5, 6, 7, 8, 9, 10, 11]);
        let text_of = |line: u32| {
            diags.iter().find(|d| d.line == line).map(|d| d.to_string()).unwrap_or_default()
        };
        assert!(text_of(2).starts_with("reg.jsonl:2: line is not valid JSON"));
        assert!(text_of(4).contains("expected a JSON object with 'case_hash' or 'query'"));
        assert!(text_of(6).contains("failed in round 'R1'"));
        assert!(text_of(7).contains("duplicate case key"));
        assert!(text_of(7).contains("first seen on line 6"));
        assert!(
            text_of(9).contains("field 'evaluated' must be an array of strings, found '\"R0\"'")
        );
        assert!(text_of(10).contains("field 'case_hash' must be a string, found '7'"));
        assert!(text_of(11).contains("field 'case_hash' is empty"));
    }

    #[test]
    fn iteration_log_parses_intervention_and_flags_duplicates() {
        let text = concat!(
            "{\"round\": \"R0\", \"runDic\": 1, \"hypothesis\": \"H0\", \"verdict\": \"baseline\"}\n",
            "{\"round\": \"R1\", \"runDic\": null, \"intervention\": {\"type\": \"augment\", \"patterns\": [\"p\"]}}\n",
            "{\"round\": \"R1\"}\n",
            "{\"round\": 3}\n",
            "{\"round\": \"R2\", \"runDic\": \"x\"}\n",
            "{\"round\": \"R3\", \"intervention\": [1]}\n",
        );
        let (rounds, diags) = parse_iteration_log(text, "log");
        assert_eq!(rounds.len(), 2);
        assert_eq!(rounds[0].run_dic, Some(1));
        let iv = rounds[1].intervention.clone();
        assert_eq!(iv.as_ref().and_then(|i| i.kind.as_deref()), Some("augment"));
        assert_eq!(iv.map(|i| i.patterns), Some(vec!["p".to_string()]));
        let msgs: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(msgs.len(), 4, "{msgs:?}");
        assert!(msgs[0].starts_with("log:3: duplicate round 'R1'"));
        assert!(msgs[1].contains("expected a JSON object with a 'round' string"));
        assert!(msgs[2].contains("field 'runDic' must be an integer"));
        assert!(msgs[3].contains("field 'intervention' must be an object"));
    }

    #[test]
    fn timeline_lines_and_task_id() {
        let path = "x/softmax-k-20260906T061946Z/.task_timeline.jsonl";
        assert_eq!(task_id_from_timeline_path(path).as_deref(), Some("softmax-k-20260906T061946Z"));
        let text = concat!(
            "\u{feff}{\"action\": \"init\", \"phase_before\": null, \"ts\": \"2026-09-05T00:00:00Z\"}\n",
            "{\"action\": \"start\", \"stage\": 3}\r\n",
            "{\"action\": \"start\", \"stage\": 300}\n",
            "{\"action\": \"fail\", \"stage\": 3, \"duration_s\": \"5\"}\n",
            "{\"action\": \"fail\", \"stage\": 3, \"duration_s\": 5, \"verdict\": \"runtime\"}\n",
            "{\"action\"\n",
        );
        let (events, diags) = parse_timeline(text, path, "t");
        assert_eq!(events.len(), 3);
        assert_eq!(events[1].line, 2);
        assert_eq!(events[1].stage, Some(3));
        assert_eq!(events[2].duration_s, Some(5.0));
        assert_eq!(events[2].task_id, "t");
        assert_eq!(diags.iter().map(|d| d.line).collect::<Vec<_>>(), [3, 4, 6]);
    }

    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "",
            "\u{feff}",
            "null",
            "1",
            "\"s\"",
            "{}",
            "{\"evaluated\": [null]}",
            "{\"stage\": -1}",
            "{\"stage\": 1.5}",
            "{\"duration_s\": 1e400}",
            "\u{0}\u{1}",
            "{\"query\": \"\u{200b}\"}",
            "{{{{",
            "]",
        ];
        for text in odd {
            let _ = parse_error_registry(text, "p");
            let _ = parse_iteration_log(text, "p");
            let _ = parse_timeline(text, "p", "t");
        }
    }
}
