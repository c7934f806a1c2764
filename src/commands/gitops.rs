//! `snapshot`, `hooks install` and `merge-driver`: where evokb meets git.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use evokb_export::merge::{merge_texts, MergeError};

use super::ok;
#[cfg(feature = "git")]
use super::print;
use crate::error::{CmdResult, CommandError, ErrorKind};
#[cfg(feature = "git")]
use crate::root;

#[cfg(feature = "git")]
pub fn snapshot(
    root: Option<&Path>,
    task: Option<&str>,
    summary: Option<&str>,
    apply: &[String],
) -> CmdResult {
    let root = root::find(root)?;
    let store = root::open(&root)?;
    let message = if apply.is_empty() {
        format!("evolution: {} (task: {})", summary.unwrap_or_default(), task.unwrap_or_default())
    } else {
        format!("evolution: apply {} (approved by user)", apply.join(", "))
    };
    let snap = crate::git::snapshot(&root, &store, &message)?;
    let mut out = match &snap.commit {
        Some(c) => format!(
            "committed {} file(s) as {}: {message}\n",
            snap.paths.len(),
            &c[..12.min(c.len())]
        ),
        None => "nothing to commit: every managed file matches HEAD\n".to_string(),
    };
    for p in &snap.paths {
        out.push_str(&format!("  {p}\n"));
    }
    for p in &snap.kept_edits {
        out.push_str(&format!("kept uncommitted edits in {p} (unstaged in the working tree)\n"));
    }
    print(&out)?;
    ok()
}

#[cfg(not(feature = "git"))]
pub fn snapshot(_: Option<&Path>, _: Option<&str>, _: Option<&str>, _: &[String]) -> CmdResult {
    Err(CommandError::new(ErrorKind::Usage, "this evokb was built without the 'git' feature"))
}

/// `evokb hooks install`: registers the merge driver (attributes and config) and writes the
/// pre-commit hook, both calling this binary by its absolute path; running it again changes
/// nothing but a path that moved.
#[cfg(feature = "git")]
pub fn hooks_install(root: Option<&Path>) -> CmdResult {
    let root = root::find(root)?;
    let mut out = String::new();
    if let Some(attributes) = register_merge_driver(&root)? {
        out.push_str(&format!(
            "registered the evokb merge driver in {} and the repository config\n",
            attributes.display()
        ));
    }
    let hook = crate::git::install_hook(&root)?;
    out.push_str(&format!("installed {}\n", hook.display()));
    print(&out)?;
    ok()
}

#[cfg(not(feature = "git"))]
pub fn hooks_install(_: Option<&Path>) -> CmdResult {
    Err(CommandError::new(ErrorKind::Usage, "this evokb was built without the 'git' feature"))
}

/// Registers the merge driver when the knowledge base is in a git repository.
#[cfg(feature = "git")]
pub fn register_merge_driver(root: &Path) -> CmdResult<Option<PathBuf>> {
    crate::git::register_merge_driver(root)
}

#[cfg(not(feature = "git"))]
pub fn register_merge_driver(_: &Path) -> CmdResult<Option<PathBuf>> {
    Ok(None)
}

/// The role of a repository path, trying shorter suffixes when the knowledge base sits in a
/// subdirectory of the repository.
///
/// git runs the driver at the repository root, so the knowledge base of each candidate split
/// is the folder before it, whose `evokb.toml` (if any) declares the layout.
fn role_of_repo_path(path: &str) -> Option<evokb_export::layout::FileRole> {
    let mut p = path;
    loop {
        let kb_root = &path[..path.len() - p.len()];
        let root = if kb_root.is_empty() { Path::new(".") } else { Path::new(kb_root) };
        let lay = evokb_export::layout::Layout::load(root).unwrap_or_default();
        if let Some(role) = lay.role_of(p) {
            return Some(role);
        }
        p = p.split_once('/')?.1;
    }
}

fn read(path: &Path) -> CmdResult<String> {
    std::fs::read_to_string(path).map_err(|e| {
        CommandError::new(ErrorKind::InvalidInput, format!("cannot read '{}': {e}", path.display()))
    })
}

pub fn merge_driver(base: &Path, ours: &Path, theirs: &Path, path: &str) -> CmdResult {
    let role = role_of_repo_path(path).ok_or_else(|| {
        CommandError::new(
            ErrorKind::Usage,
            format!("'{path}' is not a managed knowledge-base file"),
        )
    })?;
    let suffix_path = path.to_string();
    match merge_texts(role, &suffix_path, &read(base)?, &read(ours)?, &read(theirs)?) {
        Ok(outcome) => {
            std::fs::write(ours, &outcome.text)?;
            if outcome.conflicts.is_empty() {
                return ok();
            }
            let mut err = CommandError::new(
                ErrorKind::Conflict,
                format!(
                    "{} record(s) of '{path}' conflict; markers surround only those records",
                    outcome.conflicts.len()
                ),
            );
            err.details = outcome.conflicts;
            Err(err)
        }
        Err(e @ (MergeError::Unparsable { .. } | MergeError::ProseConflict { .. })) => {
            // Fall back to git's line merge, so the user still gets a normal conflict.
            let status = std::process::Command::new("git")
                .args(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs"])
                .arg(ours)
                .arg(base)
                .arg(theirs)
                .status();
            eprintln!("evokb: {e}; fell back to a line merge");
            match status {
                Ok(s) if s.success() => ok(),
                _ => Ok(ExitCode::from(ErrorKind::Conflict.exit_code())),
            }
        }
        Err(e) => Err(CommandError::new(ErrorKind::Conflict, e.to_string())),
    }
}
