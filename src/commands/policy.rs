//! `lint`, `budget` and `stale`: the policy checks, printed as text or JSON.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use evokb_evolve::rules::{self as policy, LintInput};
use evokb_store::CaseHash;
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

/// Runs every lint rule, updates the quarantine flags from the findings, and keeps the findings
/// of `files` (paths relative to the root, absolute paths under it, or topic-file names; all
/// files when empty): the lint of both `evokb lint` and the MCP `lint` tool. Returns the
/// findings and the ids whose quarantine was lifted.
pub fn findings(root: &Path, files: &[String]) -> CmdResult<(Vec<policy::Finding>, Vec<String>)> {
    let store = root::open_for_reading(root)?;
    let budgets = budgets(root)?;
    let tracked = tracked(root);
    let input = LintInput { root, tracked_examples: tracked.as_ref(), budgets: &budgets };
    let (mut findings, verdicts, linted) = policy::lint_remembering(&store.read()?, &input, true)?;
    let lifted = update_quarantine(root, &store, &findings)?;
    remember(root, &verdicts, &linted);
    if !files.is_empty() {
        let wanted = files
            .iter()
            .map(|f| file_of(root, &store, f))
            .collect::<CmdResult<std::collections::HashSet<String>>>()?;
        findings.retain(|f| wanted.contains(&f.file));
    }
    Ok((findings, lifted))
}

/// The root-relative path a `--file` value names: a managed file or repro the store knows, or a
/// file under the root; a bare topic-file name resolves to the topic file of that name.
fn file_of(root: &Path, store: &evokb_store::Store, given: &str) -> CmdResult<String> {
    let rel = Path::new(given)
        .strip_prefix(root)
        .ok()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|| given.trim_start_matches("./").to_string());
    let txn = store.read()?;
    if txn.file(&rel)?.is_some() || root.join(&rel).is_file() {
        return Ok(rel);
    }
    let by_name: Vec<String> = txn
        .files()?
        .into_iter()
        .map(|f| f.path)
        .filter(|p| p.rsplit('/').next() == Some(rel.as_str()))
        .collect();
    match by_name.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(CommandError::new(
            ErrorKind::Usage,
            format!("'{given}' is not a file of the knowledge base at '{}'", root.display()),
        )
        .hint("name a managed file by its path relative to the root, e.g. 'PL/attention.md'")),
        many => Err(CommandError::new(
            ErrorKind::Usage,
            format!("'{given}' names several managed files: {}", many.join(", ")),
        )
        .hint("give the path relative to the root")),
    }
}

pub fn lint(
    root: Option<&Path>,
    files: &[PathBuf],
    json_out: bool,
    errors_only: bool,
    fresh: bool,
) -> CmdResult {
    // The store serves lint when there is one and the files still import; otherwise (no
    // store, a store never imported, files that no longer parse, or --files) lint reads the
    // files itself and reports what does not parse as findings.
    let store_root = if files.is_empty() { root::find(root).ok() } else { None }
        .filter(|r| evokb_store::store_dir(r).join(evokb_store::DB_FILE).is_file());
    let kb_root = match &store_root {
        Some(r) => r.clone(),
        None => root::explicit_or_cwd(root)?,
    };
    let budgets = budgets(&kb_root)?;
    let tracked = tracked(&kb_root);
    let input = LintInput { root: &kb_root, tracked_examples: tracked.as_ref(), budgets: &budgets };
    let layout = evokb_export::layout::Layout::load(&kb_root)?;
    let only = if files.is_empty() { None } else { Some(relative_paths(&kb_root, files)?) };
    let mut lifted = Vec::new();
    let mut findings = None;
    if let Some(r) = &store_root {
        let store = root::open_for_reading(r)?;
        let imported = !store.read()?.file_paths()?.is_empty();
        // Whether the files still import decides between the store and the files. When the
        // store vouches for every file (see `store_matches_disk`) the answer is known without
        // parsing them; otherwise they are parsed, as always.
        let memory = if imported && store_matches_disk(&kb_root, &layout, &store)? {
            None
        } else {
            Some(read_memory(&kb_root, &layout, None)?)
        };
        match memory {
            Some(memory) if !imported || memory.has_errors() => {
                std::thread::spawn(policy::warm_up_checks);
                findings = Some(policy::lint_memory(&memory, &layout, None, &input)?);
            }
            _ => {
                let (found, verdicts, linted) =
                    policy::lint_remembering(&store.read()?, &input, !fresh)?;
                lifted = update_quarantine(r, &store, &found)?;
                remember(r, &verdicts, &linted);
                findings = Some(found);
            }
        }
    }
    let mut findings = match findings {
        Some(f) => f,
        None => {
            // Every record is checked: the checks' tables are built on a second thread while
            // this one reads and parses the files.
            std::thread::spawn(policy::warm_up_checks);
            let memory = read_memory(&kb_root, &layout, only.as_deref())?;
            policy::lint_memory(&memory, &layout, only.as_deref(), &input)?
        }
    };
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
            let col = f.column.map(|c| format!("{c}:")).unwrap_or_default();
            let _ =
                writeln!(out, "[{tag}] {}: {}:{}:{col}{id} {}", f.code, f.file, f.line, f.message);
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

/// Whether every managed file on disk is, provably without reading it, the file the store
/// renders: the store's layout is the one `evokb.toml` gives, and for each file the store has
/// not changed its content since evokb last wrote or took it (`file_is_clean`) and its stat
/// fingerprint vouches that the disk has not changed either (`FileStat::vouches_for`, the test
/// `import` and `render --check` trust; a racily clean file does not vouch). Then the files are
/// what the store renders, which imports without errors (render and import are inverse), so
/// parsing them to ask whether they still import would answer yes. Repro scripts, which the
/// parse also reads, must still be readable regular files inside the root. Any doubt (a file
/// the store does not know, no fingerprint, a dirty file) answers `false`, and lint parses the
/// files as before.
fn store_matches_disk(
    root: &Path,
    layout: &evokb_export::layout::Layout,
    store: &evokb_store::Store,
) -> CmdResult<bool> {
    let txn = store.read()?;
    if evokb_export::layout::Layout::of(&txn).ok().as_ref() != Some(layout) {
        return Ok(false);
    }
    let Ok(managed) = layout.discover(root) else { return Ok(false) };
    for mf in &managed {
        let now = std::fs::symlink_metadata(root.join(&mf.path))
            .ok()
            .filter(|m| m.file_type().is_file())
            .map(|m| evokb_store::FileStat::from_metadata(&m));
        let Some(now) = now else { return Ok(false) };
        if !txn.file_is_clean(&mf.path)? {
            return Ok(false);
        }
        match txn.file_stat(&mf.path)? {
            Some(old) if old.vouches_for(&now) => {}
            _ => return Ok(false),
        }
    }
    let Ok(repros) = layout.discover_repros(root) else { return Ok(false) };
    Ok(repros.iter().all(|p| evokb_export::fsread::read_managed(root, p).is_ok()))
}

/// The knowledge base's files parsed in memory (all of them, or `only`).
fn read_memory(
    root: &Path,
    layout: &evokb_export::layout::Layout,
    only: Option<&[String]>,
) -> CmdResult<evokb_export::memory::MemoryKb> {
    evokb_export::memory::MemoryKb::read(root, layout, only).map_err(|e| {
        CommandError::new(ErrorKind::Store, format!("cannot read '{}': {e}", root.display()))
    })
}

/// `--files` paths as repository paths: relative to the current directory or absolute, and
/// inside the knowledge-base root.
fn relative_paths(root: &Path, files: &[PathBuf]) -> CmdResult<Vec<String>> {
    let cwd = std::env::current_dir()?;
    let base = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut out = Vec::new();
    for f in files {
        let abs = if f.is_absolute() { f.clone() } else { cwd.join(f) };
        // The directory is resolved (a symlinked temp dir), the file name is kept: a missing
        // file is reported by lint, not here.
        let abs = match (abs.parent().and_then(|p| std::fs::canonicalize(p).ok()), abs.file_name())
        {
            (Some(dir), Some(name)) => dir.join(name),
            _ => abs,
        };
        let rel = abs.strip_prefix(&base).map_err(|_| {
            CommandError::new(
                ErrorKind::Usage,
                format!(
                    "'{}' is not inside the knowledge base at '{}'",
                    f.display(),
                    root.display()
                ),
            )
        })?;
        out.push(rel.to_string_lossy().replace('\\', "/"));
    }
    Ok(out)
}

/// Lifts the quarantine of records that lint now passes (and flags any record lint found a
/// KB-SEC error on). Writes only when something changes, so a clean lint stays read-only.
/// Keeps the text-check verdicts a lint computed, so the next lint checks only what changed
/// (`evokb_evolve::verdicts`). Best effort: the findings are already known and do not depend
/// on it, so a store that cannot be written now (read-only, or damaged) costs the next lint
/// the checks, never a finding or an exit code.
fn remember(root: &Path, verdicts: &evokb_evolve::verdicts::Verdicts, linted: &[CaseHash]) {
    let orphans = verdicts.orphans(linted);
    if verdicts.learnt() == 0 && orphans.is_empty() {
        return;
    }
    let Ok(store) = root::open(root) else { return };
    let Ok(mut w) = store.write() else { return };
    if verdicts.write(&mut w, &orphans).is_ok() {
        let _ = w.commit();
    }
}

fn update_quarantine(
    root: &Path,
    store: &evokb_store::Store,
    findings: &[policy::Finding],
) -> CmdResult<Vec<String>> {
    use evokb_evolve::quarantine;
    let ids: std::collections::HashSet<String> = findings
        .iter()
        .filter(|f| f.is_error() && (f.code.starts_with("KB-SEC") || f.code == "KB-QUEUE-STATE"))
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

pub fn stale(
    root: Option<&Path>,
    stamp: Option<&str>,
    include_unknown: bool,
    json_out: bool,
) -> CmdResult {
    let root = root::find(root)?;
    let stamp = match stamp {
        Some(s) => s.to_string(),
        None => policy::configured_stamp(&root)
            .map_err(|e| CommandError::new(ErrorKind::InvalidInput, e))?
            .ok_or_else(|| {
                CommandError::new(ErrorKind::Usage, "no current toolchain stamp is known")
                    .hint("pass --stamp \"tilelang 0.1.2+4515de8 + CANN 8.5.0\", set [toolchain] stamp = \"…\" in evokb.toml, or set EVOKB_TOOLCHAIN_STAMP")
            })?,
    };
    let current = policy::parse_stamp(&stamp);
    if current.is_empty() {
        return Err(CommandError::new(
            ErrorKind::Usage,
            format!("the stamp '{stamp}' names no commit or CANN version to compare"),
        )
        .hint("e.g. --stamp \"tilelang 0.1.2+4515de8 (2026-09-20 build) / CANN 8.5.0\""));
    }
    let store = root::open_for_reading(&root)?;
    let report = policy::stale(&store.read()?.records()?, &current);
    let note = "stale = every tilelang commit the stamp names differs from the current one; \
                unknown = the stamp names no commit (check by hand); a differing CANN version \
                is listed in 'differs' but does not make a stamp stale";
    if json_out {
        let mut out = json!({
            "current_stamp": stamp,
            "current": current,
            "checked": format!("{} entries and queue items with a toolchain stamp (pattern-library topic files + queue.md)", report.checked),
            "checked_count": report.checked,
            "stale_count": report.stale.len(),
            "stale": report.stale,
            "unknown_count": report.unknown.len(),
            "unknown": report.unknown,
            "note": note,
        });
        if !include_unknown {
            out["unknown"] = json!([]);
        }
        print_json(&out)?;
        return ok();
    }
    let mut out = format!("current stamp: {stamp}\n");
    let listed = report.stale.iter().chain(report.unknown.iter().filter(|_| include_unknown));
    for e in listed {
        let _ = writeln!(
            out,
            "[{}] {} ({}){}: {}",
            e.verdict,
            e.id,
            e.path.rsplit('/').next().unwrap_or(&e.path),
            if e.differs.is_empty() {
                String::new()
            } else {
                format!(" differs in {}", e.differs.join(", "))
            },
            e.toolchain.chars().take(80).collect::<String>()
        );
    }
    let _ = writeln!(
        out,
        "{} checked: {} stale, {} unknown (no commit in the stamp{})",
        report.checked,
        report.stale.len(),
        report.unknown.len(),
        if include_unknown { "" } else { "; --include-unknown lists them" }
    );
    print(&out)?;
    ok()
}
