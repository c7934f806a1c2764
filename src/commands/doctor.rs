//! `evokb doctor`: checks everything a clone needs and says how to fix what is wrong.
//!
//! Each check names what is wrong and the exact command that fixes it. The store checks need
//! nothing but the store; the merge driver, the hook, the attributes and the ignore rule are read
//! from the repository by the `git` module, and are reported as skipped in a build without the
//! `git` feature or outside a repository.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;
use serde_json::json;

use super::{ok, print, print_json};
use crate::error::{CmdResult, ErrorKind};
use crate::exe::{evokb_command, shell_quote};
use crate::root;

/// The outcome of one check, as `doctor --json` prints it.
#[derive(Debug, Serialize)]
pub struct Check {
    /// A stable name: `store`, `store_sync`, `merge_driver`, `pre_commit_hook`,
    /// `gitattributes`, `store_ignored`.
    pub name: &'static str,
    /// False only when the check ran and found a problem.
    pub ok: bool,
    /// True when the check could not run (then `problem` says why).
    pub skipped: bool,
    /// What is wrong, or why the check was skipped.
    pub problem: Option<String>,
    /// The command that fixes it.
    pub fix: Option<String>,
}

impl Check {
    /// A check that passed.
    pub fn pass(name: &'static str) -> Check {
        Check { name, ok: true, skipped: false, problem: None, fix: None }
    }

    /// A check that found `problem`, fixed by `fix`.
    pub fn fail(name: &'static str, problem: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name,
            ok: false,
            skipped: false,
            problem: Some(problem.into()),
            fix: Some(fix.into()),
        }
    }

    /// A check that could not run, and why.
    pub fn skip(name: &'static str, why: impl Into<String>) -> Check {
        Check { name, ok: true, skipped: true, problem: Some(why.into()), fix: None }
    }
}

/// The names of the checks that read the repository.
pub const GIT_CHECKS: [&str; 4] =
    ["merge_driver", "pre_commit_hook", "gitattributes", "store_ignored"];

/// `evokb ARGS` for the knowledge base at `root`, with this binary's absolute path.
pub fn fix_command(root: &Path, args: &str) -> String {
    format!("{} --root {} {args}", evokb_command(), shell_quote(&root.display().to_string()))
}

pub fn doctor(root: Option<&Path>, json_out: bool) -> CmdResult {
    let root = match root::find(root) {
        Ok(r) => r,
        Err(_) => root::explicit_or_cwd(root)?,
    };
    let root = root.canonicalize().unwrap_or(root);
    let checks = run_checks(&root);
    let healthy = checks.iter().all(|c| c.ok);
    if json_out {
        print_json(&json!({"ok": healthy, "root": root.display().to_string(), "checks": checks}))?;
    } else {
        let mut out = String::new();
        for c in &checks {
            let tag = if c.skipped {
                "skip"
            } else if c.ok {
                "ok"
            } else {
                "FAIL"
            };
            let _ = write!(out, "[{tag:>4}] {}", c.name);
            if let Some(p) = &c.problem {
                let _ = write!(out, ": {p}");
            }
            out.push('\n');
            if let Some(f) = &c.fix {
                let _ = writeln!(out, "       fix: {f}");
            }
        }
        let failed = checks.iter().filter(|c| !c.ok).count();
        if failed == 0 {
            let _ = writeln!(out, "evokb doctor: everything this clone needs is in place");
        } else {
            let _ = writeln!(out, "evokb doctor: {failed} problem(s); run each fix above");
        }
        print(&out)?;
    }
    if healthy {
        ok()
    } else {
        Ok(ExitCode::from(ErrorKind::CheckFailed.exit_code()))
    }
}

/// Every check, in a fixed order.
fn run_checks(root: &Path) -> Vec<Check> {
    let mut checks = Vec::new();
    let store = store_check(root);
    let store_ok = store.ok;
    checks.push(store);
    checks.push(if store_ok {
        sync_check(root)
    } else {
        Check::skip("store_sync", "needs a store that opens (see the 'store' check)")
    });
    checks.extend(git_checks(root));
    checks
}

fn store_check(root: &Path) -> Check {
    let db = evokb_store::store_dir(root).join(evokb_store::DB_FILE);
    if !db.is_file() {
        return Check::fail(
            "store",
            format!("there is no store at '{}'", db.display()),
            format!("{} && {}", fix_command(root, "init"), fix_command(root, "import")),
        );
    }
    match root::open_for_reading(root) {
        Ok(_) => Check::pass("store"),
        Err(e) => Check::fail(
            "store",
            format!("the store does not open: {e}"),
            fix_command(root, "rebuild"),
        ),
    }
}

/// The store against the files, as `render --check` compares them. A file edited since the last
/// sync needs an import (then a render, which writes the store's normal form back); a file
/// that only the store changed needs a render.
fn sync_check(root: &Path) -> Check {
    let diffs = match super::sync::render_diffs(root) {
        Ok(d) => d,
        Err(e) => {
            return Check::fail(
                "store_sync",
                format!("the check failed: {e}"),
                fix_command(root, "rebuild"),
            )
        }
    };
    if diffs.is_empty() {
        return Check::pass("store_sync");
    }
    let marks = edited_since_sync(root, diffs.iter().map(|d| d.path.as_str()));
    let mut described = Vec::new();
    for d in &diffs {
        let why = match (&d.disk, marks.contains(&d.path)) {
            (None, _) => "missing on disk",
            (Some(_), true) => "edited since the last import or render",
            (Some(_), false) => "the store changed since the last render",
        };
        described.push(format!("{} ({why})", d.path));
    }
    let fix = if marks.is_empty() {
        fix_command(root, "render")
    } else {
        format!("{} && {}", fix_command(root, "import"), fix_command(root, "render"))
    };
    Check::fail(
        "store_sync",
        format!("{} managed file(s) differ from the store: {}", diffs.len(), described.join(", ")),
        fix,
    )
}

/// The paths whose bytes on disk are not what the store last imported or rendered.
fn edited_since_sync<'a>(root: &Path, paths: impl Iterator<Item = &'a str>) -> Vec<String> {
    let Ok(store) = root::open_for_reading(root) else { return Vec::new() };
    let Ok(txn) = store.read() else { return Vec::new() };
    paths
        .filter(|p| {
            let Ok(bytes) = std::fs::read(root.join(p)) else { return false };
            let mark = txn.file_sync(p).ok().flatten().map(|m| m.text_hash);
            mark != Some(*blake3::hash(&bytes).as_bytes())
        })
        .map(str::to_string)
        .collect()
}

#[cfg(feature = "git")]
fn git_checks(root: &Path) -> Vec<Check> {
    crate::git::doctor::checks(root)
}

#[cfg(not(feature = "git"))]
fn git_checks(_: &Path) -> Vec<Check> {
    GIT_CHECKS
        .iter()
        .map(|name| Check::skip(name, "needs git: this evokb was built without the 'git' feature"))
        .collect()
}

/// Runs `binary --version` and says what is wrong when it is not a working evokb.
#[cfg(feature = "git")]
pub fn runs_as_evokb(binary: &str) -> Result<(), String> {
    let out = std::process::Command::new(binary)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("'{binary}' does not run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.starts_with("evokb ") {
        return Err(format!("'{binary} --version' does not answer as evokb ({})", out.status));
    }
    Ok(())
}
