//! The figures must match the hand-computed `expected-figures.json` exactly.
//! The expected numbers are read from the file, never copied in here.

mod common;

use evokb_analytics::figures::{
    recurrence, recurrence_after_fix, recurrence_after_injection, transitions,
};
use serde_json::Value;

fn expected() -> Value {
    let path = common::fixtures().join("model-iteration/expected-figures.json");
    serde_json::from_str(&common::read(&path)).unwrap_or_else(|e| panic!("bad json: {e}"))
}

fn num(v: &Value, key: &str) -> Value {
    v.get(key).cloned().unwrap_or_else(|| panic!("expected figure lacks '{key}'"))
}

/// Our output as JSON, so shapes (field names) are checked together with values.
fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn same_number(ours: &Value, theirs: &Value, what: &str) {
    let (a, b) = (ours.as_f64(), theirs.as_f64());
    assert!(a.is_some() && a == b, "{what}: ours {ours} vs expected {theirs}");
}

#[test]
fn transitions_match() {
    let (cases, rounds) = common::model_iteration();
    let exp = num(&expected(), "transitions");
    let exp = exp.as_object().cloned().unwrap_or_default();
    let ours = transitions(&cases, &rounds, None, None).unwrap_or_default();
    assert_eq!(ours.len(), exp.len());
    for t in &ours {
        let key = format!("{}->{}", t.from, t.to);
        let e = exp.get(&key).unwrap_or_else(|| panic!("no expected row {key}"));
        let o = json(t);
        for field in ["persistent", "new_fail", "new_fix"] {
            same_number(&num(&o, field), &num(e, field), &format!("{key}.{field}"));
        }
    }
}

#[test]
fn recurrence_matches() {
    let (cases, _) = common::model_iteration();
    let exp = num(&expected(), "recurrence");
    let o = json(&recurrence(&cases));
    for field in ["failing_cases", "recurring_cases", "rate"] {
        same_number(&num(&o, field), &num(&exp, field), field);
    }
}

#[test]
fn after_fix_matches() {
    let (cases, rounds) = common::model_iteration();
    let exp = num(&expected(), "after_fix");
    let o = json(&recurrence_after_fix(&cases, &rounds));
    for field in ["fixed", "recurred", "unexercised", "rate"] {
        same_number(&num(&o, field), &num(&exp, field), field);
    }
}

#[test]
fn after_injection_matches() {
    let (cases, rounds) = common::model_iteration();
    let exp = num(&expected(), "after_injection");
    let exp = exp.as_object().cloned().unwrap_or_default();
    let ours = recurrence_after_injection(&cases, &rounds);
    assert_eq!(ours.len(), exp.len());
    for row in &ours {
        let e = exp.get(&row.pattern).unwrap_or_else(|| panic!("no expected row {}", row.pattern));
        let o = json(row);
        assert_eq!(num(&o, "injected_at"), num(e, "injected_at"), "{}", row.pattern);
        for field in ["cases", "recurred", "rate"] {
            same_number(&num(&o, field), &num(e, field), &format!("{}.{field}", row.pattern));
        }
    }
}

#[test]
fn json_shapes_are_fixed() {
    let (cases, rounds) = common::model_iteration();
    let keys = |v: &Value| -> Vec<String> {
        v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    let t = json(&transitions(&cases, &rounds, None, None).unwrap_or_default());
    assert_eq!(keys(&t[0]), ["from", "to", "persistent", "new_fail", "new_fix"]);
    assert_eq!(keys(&json(&recurrence(&cases))), ["failing_cases", "recurring_cases", "rate"]);
    assert_eq!(
        keys(&json(&recurrence_after_fix(&cases, &rounds))),
        ["fixed", "recurred", "unexercised", "rate"]
    );
    let inj = json(&recurrence_after_injection(&cases, &rounds));
    assert_eq!(keys(&inj[0]), ["pattern", "injected_at", "cases", "recurred", "rate"]);
    // Sorted by pattern.
    let names: Vec<&str> = inj
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["pattern"].as_str()).collect())
        .unwrap_or_default();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[test]
fn stored_types_round_trip_through_bincode2() {
    let (cases, rounds) = common::model_iteration();
    let events: Vec<_> = common::timelines().into_iter().flat_map(|(_, e)| e).collect();
    let cfg = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(&cases, cfg).unwrap_or_default();
    let back: Vec<evokb_analytics::model::ErrorCase> =
        bincode::serde::decode_from_slice(&bytes, cfg).map(|(v, _)| v).unwrap_or_default();
    assert_eq!(back, cases);
    let bytes = bincode::serde::encode_to_vec(&rounds, cfg).unwrap_or_default();
    let back: Vec<evokb_analytics::model::Round> =
        bincode::serde::decode_from_slice(&bytes, cfg).map(|(v, _)| v).unwrap_or_default();
    assert_eq!(back, rounds);
    let bytes = bincode::serde::encode_to_vec(&events, cfg).unwrap_or_default();
    let back: Vec<evokb_analytics::model::TimelineEvent> =
        bincode::serde::decode_from_slice(&bytes, cfg).map(|(v, _)| v).unwrap_or_default();
    assert_eq!(back, events);
    assert!(!events.is_empty());
}
