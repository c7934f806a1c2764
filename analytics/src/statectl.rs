//! statectl's `timeline-summary`, byte for byte: the same JSON for any timeline statectl can
//! summarise, and the same error shape when the timeline file is missing.
//!
//! statectl reads `.task_timeline.jsonl` with Python: lines split on `\n`, `\r\n` or `\r`,
//! stripped, blank lines and lines that are not JSON skipped, and every other line counted as an
//! event. The summary keeps every value as the event recorded it (an integer duration stays an
//! integer, a `ts` is echoed as written) and uses Python's truthiness (`ev.get("mode") or …`).
//! This module does the same over [`serde_json::Value`]s, and prints them as Python's
//! `json.dumps(payload, ensure_ascii=False, sort_keys=True)` does ([`python_json`]): one line,
//! `", "` and `": "` separators, sorted keys, floats in `repr` form (`9.0`, `1e+16`).
//!
//! Known limits (statectl itself fails on these, so there is nothing to match): lines that are
//! JSON but not objects, non-numeric durations, stages of mixed types. Python also accepts the
//! non-standard literals `NaN` and `Infinity` and integers beyond 64 bits; such lines are skipped
//! here. Sums add in file order as CPython 3.11's `sum` does (3.12 compensates rounding errors,
//! which can change the last digit of a float total).
//!
//! The only I/O is [`repo_root`], statectl's search for the repository root (a `.git` or an
//! `AGENTS.md`), which fixes `timeline_path`.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use crate::timeline::stage_subagent;

/// The timeline file's name inside a task folder.
pub const TIMELINE_FILE: &str = ".task_timeline.jsonl";

/// Python's `str.strip()` whitespace: Unicode whitespace plus the separators U+001C–U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The events of a timeline file's text as statectl reads them: every stripped, non-blank line
/// that parses as JSON (non-object values included, as statectl counts them too).
pub fn read_events(text: &str) -> Vec<Value> {
    // Universal newlines: \r\n, \r and \n all end a line.
    text.split('\n')
        .flat_map(|l| l.split('\r'))
        .map(|l| l.trim_matches(py_space))
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// Python truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `ev.get(key)`, with a missing key as `None` (JSON null stays `Some(Null)`).
fn get<'a>(ev: &'a Value, key: &str) -> Option<&'a Value> {
    ev.as_object().and_then(|o| o.get(key))
}

/// `ev.get(key) or default`.
fn get_or(ev: &Value, key: &str, default: Value) -> Value {
    match get(ev, key) {
        Some(v) if truthy(v) => v.clone(),
        _ => default,
    }
}

/// A number as Python sees it: an int (bools are ints) or a float.
#[derive(Debug, Clone, Copy)]
enum PyNum {
    Int(i64),
    Float(f64),
}

fn py_num(v: &Value) -> Option<PyNum> {
    match v {
        Value::Bool(b) => Some(PyNum::Int(i64::from(*b))),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(PyNum::Int(i))
            } else if n.is_u64() {
                // Beyond i64: Python keeps it exact; a float is the closest we have.
                n.as_f64().map(PyNum::Float)
            } else {
                n.as_f64().map(PyNum::Float)
            }
        }
        _ => None,
    }
}

/// The numeric value of a stage key, for Python's `==` between 3, 3.0 and True.
fn stage_number(v: &Value) -> Option<f64> {
    match py_num(v)? {
        PyNum::Int(i) => Some(i as f64),
        PyNum::Float(f) => Some(f),
    }
}

/// Python equality of two stage keys.
fn same_stage(a: &Value, b: &Value) -> bool {
    match (stage_number(a), stage_number(b)) {
        (Some(x), Some(y)) => x == y,
        (None, None) => a == b,
        _ => false,
    }
}

/// `sorted()` order of stage keys: numbers by value, then strings, then anything else.
fn stage_order(a: &Value, b: &Value) -> Ordering {
    match (stage_number(a), stage_number(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => x.cmp(y),
            _ => python_json(a).cmp(&python_json(b)),
        },
    }
}

/// `STAGE_SUBAGENT.get(stage)`.
fn static_subagent(stage: &Value) -> Value {
    match stage_number(stage) {
        Some(n) if n.fract() == 0.0 && (0.0..=255.0).contains(&n) => {
            stage_subagent(n as u8).map_or(Value::Null, |s| Value::String(s.to_owned()))
        }
        _ => Value::Null,
    }
}

/// `round(sum(values), 3)` as CPython 3.11 computes it; `None` if a value is not a number.
fn py_sum_round3(values: &[Value]) -> Option<Value> {
    let mut int_sum: i64 = 0;
    let mut float_sum: Option<f64> = None;
    for v in values {
        match (py_num(v)?, float_sum.as_mut()) {
            (PyNum::Int(i), None) => match int_sum.checked_add(i) {
                Some(s) => int_sum = s,
                None => float_sum = Some(int_sum as f64 + i as f64),
            },
            (PyNum::Float(f), None) => float_sum = Some(int_sum as f64 + f),
            (PyNum::Int(i), Some(acc)) => *acc += i as f64,
            (PyNum::Float(f), Some(acc)) => *acc += f,
        }
    }
    Some(match float_sum {
        // round(int, 3) is the int itself.
        None => Value::from(int_sum),
        Some(f) => float_value(py_round(f, 3)),
    })
}

/// Python's `round(x, n)` for a float: correctly rounded through the exact decimal expansion.
fn py_round(x: f64, places: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.places$}").parse().unwrap_or(x)
}

fn float_value(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// Python `datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")` as seconds since the epoch, or `None`
/// where statectl's `parse_ts` gives `None`. Matching is case-insensitive, as `strptime` is,
/// and fields take one or two digits where its patterns allow it.
pub fn strptime_seconds(v: &Value) -> Option<i64> {
    let s = v.as_str()?;
    fn take(rest: &mut &str, c: u8) -> Option<()> {
        let b = rest.as_bytes().first()?;
        if b.eq_ignore_ascii_case(&c) {
            *rest = rest.get(1..)?;
            Some(())
        } else {
            None
        }
    }
    let mut cur = s;
    let num = |cur: &mut &str, min: usize, max: usize, space: bool| -> Option<u32> {
        let bytes = cur.as_bytes();
        let start = usize::from(space && bytes.first() == Some(&b' '));
        let digits = bytes[start..].iter().take_while(|b| b.is_ascii_digit()).count();
        if (start == 1 && digits != 1) || digits < min || digits > max {
            return None;
        }
        let v = cur.get(start..start + digits)?.parse().ok()?;
        *cur = cur.get(start + digits..)?;
        Some(v)
    };
    let year = num(&mut cur, 4, 4, false)?;
    take(&mut cur, b'-')?;
    let month = num(&mut cur, 1, 2, false)?;
    take(&mut cur, b'-')?;
    let day = num(&mut cur, 1, 2, true)?;
    take(&mut cur, b'T')?;
    let hour = num(&mut cur, 1, 2, false)?;
    take(&mut cur, b':')?;
    let minute = num(&mut cur, 1, 2, false)?;
    take(&mut cur, b':')?;
    let second = num(&mut cur, 1, 2, false)?;
    take(&mut cur, b'Z')?;
    if !cur.is_empty() {
        return None;
    }
    // The patterns' ranges (%m 1–12, %d 1–31, %H 0–23, %M 0–59, %S 0–61), then datetime's
    // checks (a real day of the month, seconds 0–59, year ≥ 1).
    if year == 0 || !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let days = crate::util::parse_date_days(&date)?;
    Some(days * 86_400 + i64::from(hour) * 3_600 + i64::from(minute) * 60 + i64::from(second))
}

/// statectl's repository root for a task folder: the nearest folder at or above it holding a
/// `.git` or an `AGENTS.md`, else `cwd`.
pub fn repo_root(op_dir: &Path, cwd: &Path) -> PathBuf {
    let mut cur = Some(op_dir);
    while let Some(dir) = cur {
        if dir.join(".git").exists() || dir.join("AGENTS.md").exists() {
            return dir.to_path_buf();
        }
        cur = dir.parent();
    }
    cwd.to_path_buf()
}

/// `os.path.abspath`: absolute against `cwd`, with `.` and `..` resolved lexically.
pub fn abspath(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `os.path.relpath(path, start)` for absolute, normalised paths, with `/` separators.
pub fn rel_posix(path: &Path, start: &Path) -> String {
    let p: Vec<_> = path.components().collect();
    let s: Vec<_> = start.components().collect();
    let common = p.iter().zip(&s).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); s.len() - common];
    parts.extend(p[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// statectl's error payload for a missing timeline file (`path` as statectl prints it, the
/// absolute path of the file).
pub fn missing_payload(path: &str) -> Value {
    let mut err = Map::new();
    err.insert("code".into(), Value::from("E-MISSING"));
    err.insert(
        "message".into(),
        Value::from(format!("时间线文件不存在：{path}（statectl 首次状态迁移后自动生成）")),
    );
    let mut out = Map::new();
    out.insert("action".into(), Value::from("timeline-summary"));
    out.insert("errors".into(), Value::Array(vec![Value::Object(err)]));
    out.insert("ok".into(), Value::Bool(false));
    Value::Object(out)
}

/// statectl's `timeline-summary` payload (with `"ok": true`) for the events of one timeline.
pub fn summary_payload(events: &[Value], timeline_path: &str) -> Value {
    let mut action_counts: Vec<(String, u64)> = Vec::new();
    // (stage key, record) in first-seen order; sorted at the end.
    struct Rec {
        stage: Value,
        subagent: Value,
        attempts: u64,
        completed: u64,
        failed: u64,
        durations: Vec<Value>,
    }
    let mut stages: Vec<Rec> = Vec::new();
    let mut failures: Vec<Value> = Vec::new();
    let mut ts_list: Vec<Value> = Vec::new();
    let mut mode = Value::Null;
    for ev in events {
        let action = get_or(ev, "action", Value::from("?"));
        let action_key = match &action {
            Value::String(s) => s.clone(),
            other => python_json(other),
        };
        match action_counts.iter_mut().find(|(k, _)| *k == action_key) {
            Some((_, n)) => *n += 1,
            None => action_counts.push((action_key, 1)),
        }
        let ts = get(ev, "ts").cloned().unwrap_or(Value::Null);
        if truthy(&ts) {
            ts_list.push(ts.clone());
        }
        if !truthy(&mode) {
            if let Some(m) = get(ev, "mode").filter(|m| truthy(m)) {
                mode = m.clone();
            }
        }
        let Some(stage) = get(ev, "stage").filter(|s| !s.is_null()) else { continue };
        let i = match stages.iter().position(|r| same_stage(&r.stage, stage)) {
            Some(i) => i,
            None => {
                stages.push(Rec {
                    stage: stage.clone(),
                    subagent: get_or(ev, "subagent", static_subagent(stage)),
                    attempts: 0,
                    completed: 0,
                    failed: 0,
                    durations: Vec::new(),
                });
                stages.len() - 1
            }
        };
        let rec = &mut stages[i];
        let duration = get(ev, "duration_s").cloned().unwrap_or(Value::Null);
        match action.as_str() {
            Some("start") => rec.attempts += 1,
            Some("complete") => {
                rec.completed += 1;
                if !duration.is_null() {
                    rec.durations.push(duration);
                }
            }
            Some("fail") => {
                rec.failed += 1;
                if !duration.is_null() {
                    rec.durations.push(duration.clone());
                }
                let verdict =
                    get_or(ev, "verdict", get(ev, "reason").cloned().unwrap_or(Value::Null));
                let mut f = Map::new();
                f.insert("duration_s".into(), duration);
                f.insert("stage".into(), stage.clone());
                f.insert("subagent".into(), rec.subagent.clone());
                f.insert("ts".into(), ts);
                f.insert("verdict".into(), verdict);
                failures.push(Value::Object(f));
            }
            _ => {}
        }
    }
    let first_ts = ts_list.first().cloned().unwrap_or(Value::Null);
    let last_ts = ts_list.last().cloned().unwrap_or(Value::Null);
    let elapsed = match (strptime_seconds(&first_ts), strptime_seconds(&last_ts)) {
        // timedelta.total_seconds() is a float; whole seconds need no rounding.
        (Some(a), Some(b)) => float_value((b - a) as f64),
        _ => Value::Null,
    };
    stages.sort_by(|a, b| stage_order(&a.stage, &b.stage));
    let stage_rows: Vec<Value> = stages
        .into_iter()
        .map(|r| {
            let total = if r.durations.is_empty() {
                Value::Null
            } else {
                py_sum_round3(&r.durations).unwrap_or(Value::Null)
            };
            let mut m = Map::new();
            m.insert("attempts".into(), Value::from(r.attempts));
            m.insert("completed".into(), Value::from(r.completed));
            m.insert("duration_s_total".into(), total);
            m.insert("durations_s".into(), Value::Array(r.durations));
            m.insert("failed".into(), Value::from(r.failed));
            m.insert("stage".into(), r.stage);
            m.insert("subagent".into(), r.subagent);
            Value::Object(m)
        })
        .collect();
    let dispatches = action_counts.iter().find(|(k, _)| k == "start").map_or(0, |(_, n)| *n);
    let mut counts = Map::new();
    for (k, n) in action_counts {
        counts.insert(k, Value::from(n));
    }
    let mut out = Map::new();
    out.insert("action".into(), Value::from("timeline-summary"));
    out.insert("action_counts".into(), Value::Object(counts));
    out.insert("dispatches".into(), Value::from(dispatches));
    out.insert("elapsed_s".into(), elapsed);
    out.insert("events_total".into(), Value::from(events.len() as u64));
    out.insert("failures".into(), Value::Array(failures));
    out.insert("first_ts".into(), first_ts);
    out.insert("last_ts".into(), last_ts);
    out.insert("mode".into(), mode);
    out.insert("ok".into(), Value::Bool(true));
    out.insert("stages".into(), Value::Array(stage_rows));
    out.insert("timeline_path".into(), Value::from(timeline_path));
    Value::Object(out)
}

/// Python's `repr(float)`: the shortest round-trip digits, positional for exponents −4 to 15,
/// else `d.ddde±XX`.
pub fn python_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // `{:e}` gives the shortest round-trip digits as d.ddde[-]x.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{digits}{}.0", "0".repeat((int_len - n) as usize))
            } else {
                let (a, b) = digits.split_at(int_len as usize);
                format!("{a}.{b}")
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mant = if rest.is_empty() { first.to_owned() } else { format!("{first}.{rest}") };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.abs())
    }
}

fn python_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn python_json_into(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_f64() {
                out.push_str(&python_float(n.as_f64().unwrap_or(0.0)));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => python_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python_json_into(x, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python_string(k, out);
                out.push_str(": ");
                if let Some(x) = o.get(k) {
                    python_json_into(x, out);
                }
            }
            out.push('}');
        }
    }
}

/// `json.dumps(v, ensure_ascii=False, sort_keys=True)`.
pub fn python_json(v: &Value) -> String {
    let mut out = String::new();
    python_json_into(v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        for (f, want) in [
            (9.0, "9.0"),
            (0.1, "0.1"),
            (20096.0, "20096.0"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (-2.5, "-2.5"),
            (1e22, "1e+22"),
        ] {
            assert_eq!(python_float(f), want, "{f}");
        }
    }

    #[test]
    fn strptime_accepts_what_python_accepts() {
        let ok = |s: &str| strptime_seconds(&Value::from(s));
        assert_eq!(ok("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(ok("1970-1-1T0:0:1z"), Some(1));
        assert_eq!(ok("1970-01- 2T00:00:00Z"), Some(86_400));
        for bad in [
            "1970-01-01T00:00:00",
            "1970-01-01T00:00:00+00:00",
            "1970-02-30T00:00:00Z",
            "1970-01-01T00:00:60Z",
            "70-01-01T00:00:00Z",
            "1970-01-01T00:00:00.5Z",
        ] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }

    #[test]
    fn sums_keep_integers() {
        assert_eq!(py_sum_round3(&[Value::from(9), Value::from(1)]), Some(Value::from(10)));
        assert_eq!(py_sum_round3(&[Value::from(9), Value::from(0.5)]), Some(Value::from(9.5)));
        assert_eq!(py_sum_round3(&[Value::from(0.1), Value::from(0.2)]), Some(Value::from(0.3)));
    }
}
