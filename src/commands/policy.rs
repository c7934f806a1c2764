//! `lint`, `budget` and `stale`: the policy checks, printed as text or JSON.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use evokb_evolve::rules::{self as policy, LintInput};
use serde_json::json;

use super::{ok, print, print_json};
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

fn budgets(root: &Path) -> CmdResult<policy::Budgets> {
    policy::load_budgets(root).map_err(|e| CommandError::new(ErrorKind::InvalidInput, e))
}

#[cfg(feature = "git")]
fn tracked(root: &Path) -> Option<std::collections::HashSet<String>> {
    crate::git::tracked_examples(root)
}

#[cfg(not(feature = "git"))]
fn tracked(_: &Path) -> Option<std::collections::HashSet<String>> {
    None
}

pub fn lint(root: Option<&Path>, json_out: bool, errors_only: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let budgets = budgets(&root)?;
    let tracked = tracked(&root);
    let input = LintInput { root: &root, tracked_examples: tracked.as_ref(), budgets: &budgets };
    let mut findings = policy::lint(&store.read()?, &input)?;
    let lifted = update_quarantine(&root, &store, &findings)?;
    if errors_only {
        findings.retain(policy::Finding::is_error);
    }
    let errors = findings.iter().filter(|f| f.is_error()).count();
    if json_out {
        print_json(&json!({ "findings": findings }))?;
    } else {
        let mut out = String::new();
        for f in &findings {
            let tag = if f.is_error() { "FAIL" } else { "WARN" };
            let id = f.id.as_deref().map(|i| format!(" {i}:")).unwrap_or_default();
            let _ = writeln!(out, "[{tag}] {}: {}:{}:{id} {}", f.code, f.file, f.line, f.message);
        }
        for id in &lifted {
            let _ = writeln!(out, "quarantine lifted from {id}: it passes the KB-SEC checks now");
        }
        let _ =
            writeln!(out, "\nevokb lint: {errors} errors, {} warnings", findings.len() - errors);
        print(&out)?;
    }
    if errors > 0 {
        return Ok(ExitCode::from(ErrorKind::CheckFailed.exit_code()));
    }
    ok()
}

/// Lifts the quarantine of records that lint now passes (and flags any record lint found a
/// KB-SEC error on). Writes only when something changes, so a clean lint stays read-only.
fn update_quarantine(
    root: &Path,
    store: &evokb_store::Store,
    findings: &[policy::Finding],
) -> CmdResult<Vec<String>> {
    use evokb_evolve::quarantine;
    let ids: std::collections::HashSet<String> = findings
        .iter()
        .filter(|f| f.is_error() && f.code.starts_with("KB-SEC"))
        .filter_map(|f| f.id.clone())
        .collect();
    let Some(judged) = quarantine::after_lint(&store.read()?, root, &ids)? else {
        return Ok(Vec::new());
    };
    let store = root::open(root)?;
    let mut w = store.write()?;
    let refresh = quarantine::apply_lint(&mut w, judged)?;
    w.commit()?;
    Ok(refresh.lifted)
}

pub fn budget(root: Option<&Path>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let rows = policy::budget(&store.read()?, &budgets(&root)?)?;
    if json_out {
        print_json(&json!({ "files": rows }))?;
        return ok();
    }
    let mut out = String::new();
    for r in &rows {
        let budget = r.budget_bytes.map_or("-".to_string(), |b| b.to_string());
        let _ = writeln!(
            out,
            "{} {:>7} / {:>7} bytes {:>5} lines  {}",
            if r.over { "OVER" } else { "ok  " },
            r.bytes,
            budget,
            r.lines,
            r.path
        );
        for (a, b, s) in &r.candidates {
            let _ = writeln!(out, "       consolidate? {a} + {b} (similarity {s:.3})");
        }
    }
    print(&out)?;
    ok()
}

pub fn stale(root: Option<&Path>, stamp: &str, include_unknown: bool, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open_for_reading(&root)?;
    let current = policy::parse_stamp(stamp);
    if current == policy::Stamp::default() {
        return Err(CommandError::new(
            ErrorKind::Usage,
            format!("the stamp '{stamp}' has no commit, build date or CANN version to compare"),
        )
        .hint("e.g. --stamp \"tilelang 0.1.2+4515de8 (2026-09-20 build) / CANN 8.5.0\""));
    }
    let (checked, mut entries) = policy::stale(&store.read()?.records()?, &current);
    let stale_count = entries.iter().filter(|e| e.verdict == "stale").count();
    let unknown_count = entries.len() - stale_count;
    if !include_unknown {
        entries.retain(|e| e.verdict == "stale");
    }
    if json_out {
        print_json(&json!({
            "current_stamp": stamp,
            "current": current,
            "checked": checked,
            "stale_count": stale_count,
            "unknown_count": unknown_count,
            "entries": entries,
        }))?;
        return ok();
    }
    let mut out = String::new();
    for e in &entries {
        let _ = writeln!(
            out,
            "[{}] {} ({}) differs in {}: {}",
            e.verdict,
            e.id,
            e.path.rsplit('/').next().unwrap_or(&e.path),
            e.differs.join(", "),
            e.toolchain.chars().take(80).collect::<String>()
        );
    }
    let _ = writeln!(out, "{checked} entries checked: {stale_count} stale, {unknown_count} without a comparable stamp");
    print(&out)?;
    ok()
}
