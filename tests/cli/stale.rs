//! `evokb stale` gives the reference `kb_stale_check.py`'s verdicts on the real sample.
//!
//! `tests/data/stale/*.json` hold the reference tool's stale and unknown ids for three current
//! stamps (recorded by running it on the same sample; the tool itself is not part of the
//! project). They cover queue items' `toolchain_stamp`, stamps naming a later re-verification
//! commit, CANN versions followed by full-width punctuation, an all-digit commit, and a
//! current stamp that names no commit (a build date alone compares nothing).

use std::collections::BTreeSet;

use crate::support::*;

fn ids(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|e| e.as_str().or_else(|| e["id"].as_str()).expect("an id").to_string())
        .collect()
}

#[test]
fn verdicts_match_the_reference_tool_on_the_sample() {
    let (kb, store) = imported_sample();
    drop(store);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stale");
    for name in ["stamp-3a214cde", "stamp-4515de8", "stamp-cann-date-only"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("reference");
        let want: serde_json::Value = serde_json::from_str(&text).expect("json");
        let stamp = want["stamp"].as_str().expect("stamp");
        let out = evokb(kb.path(), &["stale", "--stamp", stamp, "--include-unknown", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        for key in ["current_stamp", "checked", "stale", "unknown", "note"] {
            assert!(got.get(key).is_some(), "{name}: the reference key '{key}' is missing");
        }
        assert_eq!(ids(&got["stale"]), ids(&want["stale"]), "{name}: stale");
        assert_eq!(ids(&got["unknown"]), ids(&want["unknown"]), "{name}: unknown");
        assert_eq!(got["stale_count"].as_u64(), Some(ids(&want["stale"]).len() as u64));
    }
    // The queue items are reported alongside entries.
    let out =
        evokb(kb.path(), &["stale", "--stamp", "tilelang 0.1.2+3a214cde + CANN 8.5.0", "--json"]);
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(ids(&got["stale"]).iter().any(|id| id.starts_with("VP-")), "queue items are checked");
    // The entries the old parser called stale for full-width punctuation after the version.
    for id in ["CONST-capacity-910B2C", "CONST-mte2-degradation", "TRAP-UB-multibuffer-inflation"] {
        let stale = ids(&got["stale"]);
        let want = ids(&serde_json::from_str::<serde_json::Value>(
            &std::fs::read_to_string(dir.join("stamp-3a214cde.json")).expect("reference"),
        )
        .expect("json")["stale"]);
        assert_eq!(stale.contains(id), want.contains(id), "{id}");
    }
}

#[test]
fn the_current_stamp_comes_from_the_config_or_the_environment_else_a_clear_error() {
    let (kb, store) = imported_sample();
    drop(store);
    let out = evokb(kb.path(), &["stale", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no current toolchain stamp is known"), "{}", stderr(&out));
    assert!(stderr(&out).contains("EVOKB_TOOLCHAIN_STAMP"), "{}", stderr(&out));
    std::fs::write(
        kb.path().join("evokb.toml"),
        "[toolchain]\nstamp = \"tilelang 0.1.2+4515de8 + CANN 8.5.0\"\n",
    )
    .expect("config");
    let out = evokb(kb.path(), &["stale", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(got["current_stamp"].as_str(), Some("tilelang 0.1.2+4515de8 + CANN 8.5.0"));
    std::fs::remove_file(kb.path().join("evokb.toml")).expect("rm");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_evokb"))
        .args(["stale", "--json"])
        .current_dir(kb.path())
        .env("EVOKB_TOOLCHAIN_STAMP", "tilelang 0.1.2+3a214cde + CANN 8.5.0")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(got["current_stamp"].as_str(), Some("tilelang 0.1.2+3a214cde + CANN 8.5.0"));
}
