//! `init`, `import`, `render` and `verify`: moving the knowledge base between files and store.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use evokb_export::{FileDiff, ImportOptions, Prefer};
use evokb_store::{hex, store_dir, Kind, Store};
use serde_json::json;

use super::{ok, print, print_json};
use crate::cli::PreferArg;
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::progress::Bar;
use crate::root;
use evokb_store::Progress as _;

pub fn init(root: Option<&Path>) -> CmdResult {
    let root = root::explicit_or_cwd(root)?;
    let dir = store_dir(&root);
    Store::create(&dir, root::indexer(&root)?)?;
    let mut out = format!("created an empty evokb store in {}\n", dir.display());
    if let Some(attributes) = super::gitops::register_merge_driver(&root)? {
        out.push_str(&format!(
            "registered the evokb merge driver in {} and the repository config\n",
            attributes.display()
        ));
    }
    print(&out)?;
    ok()
}

fn counts_json(counts: &std::collections::BTreeMap<Kind, u64>) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> =
        counts.iter().map(|(k, n)| (k.tag().to_string(), json!(n))).collect();
    serde_json::Value::Object(map)
}

fn counts_text(counts: &std::collections::BTreeMap<Kind, u64>) -> String {
    let mut out = String::new();
    for (kind, n) in counts {
        let _ = writeln!(out, "  {:<14} {n:>7}", kind.tag());
    }
    out
}

/// The page cache of an import's store handle. An import writes most pages once and reads
/// few twice, so the cache mostly held copies of pages already written: at 100k entries a
/// fresh import peaked at ~640 MiB with the 64 MiB default and ~560 MiB with 4 MiB, in no more
/// time (9.6 and 9.3 s), and a one-file import took the same time (7 alternated runs each).
const IMPORT_CACHE_BYTES: usize = 4 << 20;

pub fn import(
    root: Option<&Path>,
    json_out: bool,
    prefer: Option<PreferArg>,
    strict: bool,
    check: bool,
) -> CmdResult {
    let root = root::find(root)?;
    let mut bar = Bar::for_command(json_out);
    if check {
        return import_check(&root, json_out, strict, &mut bar);
    }
    evokb_alloc::return_freed_memory_sooner();
    bar.phase("opening the store", 0);
    let mut store = root::open_with_cache(&root, IMPORT_CACHE_BYTES)?;
    let prefer = prefer.map(|p| match p {
        PreferArg::File => Prefer::File,
        PreferArg::Store => Prefer::Store,
    });
    let mut txn = store.write()?;
    let counters = evokb_evolve::hits::counters_before(&txn)?;
    // A hand-edited record with a KB-SEC error is imported, but quarantined (issue #10).
    // Only what the import wrote is judged, as it parsed it: the other records' texts are as
    // last judged.
    // The judging starts while the import writes, on a core the writing leaves idle.
    let (report, mut changed, prejudged) = evokb_export::sync::import_in_beside(
        &mut txn,
        &root,
        ImportOptions { prefer, strict },
        &bar,
        &evokb_evolve::quarantine::judge_while_importing(&root),
    )?;
    // Search events the import only added (a log appended to) are counted into the hit
    // counters now, so the next `stats hits` reads them rather than recounting every event.
    let events_after = report.counts.get(&Kind::SearchEvent).copied().unwrap_or(0);
    evokb_evolve::hits::keep_counters_after_import(&mut txn, counters, &changed, events_after)?;
    // Every repro script's syntax verdict is kept now (parsing only scripts whose bytes have no
    // verdict yet), so the lint after the import parses none.
    let repros = txn.records_of_kind(evokb_store::Kind::Repro)?;
    evokb_evolve::verdicts::keep_repro_syntax(&mut txn, &root, &repros)?;
    drop(repros);
    // Only content records are judged. The others (at a first import: every INDEX row, stats
    // row and search event, over half the records) are freed now, before the index building
    // that runs beside the judging needs the memory.
    changed.retain(|r| evokb_evolve::quarantine::judged(r.kind));
    changed.shrink_to_fit();
    let quarantine = evokb_evolve::quarantine::refresh_records_prejudged(
        &mut txn, &root, changed, prejudged, &bar,
    )?;
    // The commit also brings the search index up to date.
    bar.phase("committing", 0);
    txn.commit()?;
    if evokb_export::sync::worth_compacting(&report) {
        bar.phase("compacting the store", 0);
        store.compact()?;
    }
    bar.finish();
    if json_out {
        print_json(&json!({
            "records": counts_json(&report.counts),
            "files": report.files,
            "files_read": report.files - report.skipped,
            "files_appended": report.appended,
            "added": report.added,
            "updated": report.updated,
            "removed": report.removed,
            "kept_store": report.kept_store,
            "indexed": report.indexed,
            "warnings": report.warnings,
            "quarantined": quarantine.flagged,
            "quarantine_lifted": quarantine.lifted,
        }))?;
    } else {
        let mut out = format!(
            "imported {} files: {} added, {} updated, {} removed, {} kept from the store\n",
            report.files, report.added, report.updated, report.removed, report.kept_store
        );
        if report.skipped > 0 {
            let _ = writeln!(
                out,
                "{} of them unchanged since the last sync (size, inode and times match) and not read",
                report.skipped
            );
        }
        if report.appended > 0 {
            let _ = writeln!(
                out,
                "{} of them only appended to: the earlier lines match the last sync, and only the new ones were parsed",
                report.appended
            );
        }
        out.push_str(&counts_text(&report.counts));
        for id in &report.indexed {
            let _ = writeln!(
                out,
                "indexed {id}: the entry is new in its topic file and now has its INDEX.md row ('evokb render' writes it)"
            );
        }
        for id in &quarantine.flagged {
            let _ = writeln!(
                out,
                "quarantined {id}: it has a KB-SEC error ('evokb lint' shows it; fix it, or 'evokb clear {id} --reason …')"
            );
        }
        for id in &quarantine.lifted {
            let _ =
                writeln!(out, "quarantine lifted from {id}: the errors that flagged it are gone");
        }
        for w in &report.warnings {
            let _ = writeln!(out, "{w}");
        }
        print(&out)?;
    }
    ok()
}

/// `import --check`: reads and parses every managed file and runs the structural checks
/// against the store, writing nothing. Malformed files exit 3, as `import` does; with
/// `--strict`, so do structural problems.
fn import_check(root: &Path, json_out: bool, strict: bool, bar: &mut Bar) -> CmdResult {
    let store = root::open_for_reading(root)?;
    let layout = evokb_export::layout::Layout::load(root)?;
    let kb = evokb_export::sync::read_kb_since_with_progress(root, &layout, &|_| None, &*bar)?;
    bar.phase("checking structure", 0);
    let structural = evokb_export::loss::structural_warnings_of(&kb, &store.read()?)?;
    bar.finish();
    if strict && !structural.is_empty() {
        return Err(strict_error(structural));
    }
    let mut warnings = structural;
    warnings.extend(kb.warnings.iter().cloned());
    if json_out {
        print_json(&json!({"files": kb.files.len(), "warnings": warnings}))?;
    } else {
        let mut out = format!("checked {} files, nothing written\n", kb.files.len());
        for w in &warnings {
            let _ = writeln!(out, "{w}");
        }
        print(&out)?;
    }
    ok()
}

/// The error of `--strict` when structural problems were found.
fn strict_error(structural: Vec<evokb_export::Diagnostic>) -> CommandError {
    let diagnostics = evokb_export::loss::as_errors(structural);
    evokb_export::ImportError::Structural { diagnostics }.into()
}

/// The managed files whose rendering differs from the disk, writing nothing: the check of
/// `evokb render --check`, the MCP `render_check` tool and `evokb doctor`.
pub fn render_diffs(root: &Path) -> CmdResult<Vec<FileDiff>> {
    render_diffs_with_progress(root, &evokb_store::Silent)
}

/// [`render_diffs`], reporting the files it compares to `progress`.
fn render_diffs_with_progress(
    root: &Path,
    progress: &dyn evokb_store::Progress,
) -> CmdResult<Vec<FileDiff>> {
    progress.phase("opening the store", 0);
    let store = root::open(root)?;
    Ok(evokb_evolve::render::check_with_progress(root, &store, progress)?)
}

/// The JSON of a render check: `{ok, files: [{path, missing, diff}]}` with a short unified diff
/// (disk → store) per differing file; `render --check --json` and the MCP `render_check` tool.
pub fn render_check_json(diffs: &[FileDiff]) -> serde_json::Value {
    let files: Vec<serde_json::Value> = diffs
        .iter()
        .map(|d| json!({"path": d.path, "missing": d.disk.is_none(), "diff": short_diff(d, 40)}))
        .collect();
    json!({"ok": files.is_empty(), "files": files})
}

pub fn render(
    root: Option<&Path>,
    out: Option<&Path>,
    check: bool,
    force: bool,
    json_out: bool,
) -> CmdResult {
    let root = root::find(root)?;
    let mut bar = Bar::for_command(json_out);
    if check {
        let diffs = render_diffs_with_progress(&root, &bar)?;
        bar.finish();
        if json_out {
            print_json(&render_check_json(&diffs))?;
            return if diffs.is_empty() {
                ok()
            } else {
                Ok(ExitCode::from(ErrorKind::CheckFailed.exit_code()))
            };
        }
        if diffs.is_empty() {
            print("all managed files match the store\n")?;
            return ok();
        }
        let mut text = String::new();
        for d in &diffs {
            text.push_str(&colour_diff(&short_diff(d, 40)));
        }
        let _ = writeln!(text, "{} file(s) differ from the store", diffs.len());
        super::print_styled(&text)?;
        return Ok(ExitCode::from(ErrorKind::CheckFailed.exit_code()));
    }
    bar.phase("opening the store", 0);
    let store = root::open(&root)?;
    if let Some(out) = out {
        let written = evokb_evolve::render::render_to_with_progress(out, &store, &bar)?;
        bar.finish();
        print(&format!("rendered {} files under {}\n", written.len(), out.display()))?;
        return ok();
    }
    let report = evokb_evolve::render::render_in_place_with_progress(&root, &store, force, &bar)?;
    bar.finish();
    let mut text =
        format!("{} file(s) written, {} unchanged\n", report.written.len(), report.unchanged);
    for p in &report.written {
        let _ = writeln!(text, "  {p}");
    }
    print(&text)?;
    ok()
}

/// The diff with ANSI styles: removed lines red, added green, hunk headers cyan, file headers
/// bold. [`super::print_styled`] strips them again unless colour is on.
fn colour_diff(diff: &str) -> String {
    use anstyle::{AnsiColor, Style};
    let mut out = String::with_capacity(diff.len() + diff.len() / 4);
    for line in diff.lines() {
        let style = if line.starts_with("---") || line.starts_with("+++") {
            Style::new().bold()
        } else if line.starts_with("@@") {
            AnsiColor::Cyan.on_default()
        } else if line.starts_with('-') {
            AnsiColor::Red.on_default()
        } else if line.starts_with('+') {
            AnsiColor::Green.on_default()
        } else {
            Style::new()
        };
        let _ = writeln!(out, "{style}{line}{style:#}");
    }
    out
}

/// A unified diff of one file, cut to `max_lines` lines.
pub fn short_diff(d: &FileDiff, max_lines: usize) -> String {
    let disk = d.disk.as_deref().unwrap_or("");
    let diff = similar::TextDiff::from_lines(disk, &d.rendered);
    let header_old = if d.disk.is_some() {
        format!("{} (on disk)", d.path)
    } else {
        "/dev/null (missing)".into()
    };
    let body = diff
        .unified_diff()
        .context_radius(1)
        .header(&header_old, &format!("{} (store)", d.path))
        .to_string();
    let mut out = String::new();
    let total = body.lines().count();
    for line in body.lines().take(max_lines) {
        out.push_str(line);
        out.push('\n');
    }
    if total > max_lines {
        let _ = writeln!(out, "… {} more diff lines", total - max_lines);
    }
    out
}

pub fn verify(root: Option<&Path>, json_out: bool) -> CmdResult {
    let root = root::find(root)?;
    let mut bar = Bar::for_command(json_out);
    bar.phase("opening the store", 0);
    let store = root::open_checked_for_verify(&root)?;
    let report = evokb_export::verify_with_progress(&store, &bar)?;
    bar.finish();
    if json_out {
        print_json(&json!({
            "records": counts_json(&report.counts),
            "digest": hex(&report.digest),
            "problems": report.problems,
        }))?;
    } else {
        let mut out = counts_text(&report.counts);
        let _ = writeln!(out, "digest {}", hex(&report.digest));
        for p in &report.problems {
            let _ = writeln!(out, "problem: {p}");
        }
        print(&out)?;
    }
    if report.problems.is_empty() {
        ok()
    } else {
        Err(CommandError::new(
            ErrorKind::CheckFailed,
            format!("{} integrity problem(s) found", report.problems.len()),
        ))
    }
}
