//! Git integration (the `git` feature): evolution snapshots, the pre-commit hook, and
//! registering the record-level merge driver. Only this module links libgit2.
//!
//! Snapshots are written straight into git's object database: the commit's tree is HEAD's tree
//! with the managed files evokb changed replaced by their rendered content. The working tree is
//! never touched, so someone's uncommitted edits to the same files stay exactly where they are
//! (unstaged) and there is no stash to pop or lose. Nothing is ever pushed.

use std::path::{Path, PathBuf};

use evokb_export::layout;
use evokb_store::Store;
use git2::{build::TreeUpdateBuilder, FileMode, Repository, Signature, Time};

use crate::error::{CmdResult, CommandError, ErrorKind};

pub mod doctor;

/// The merge driver's arguments after the binary: git's placeholders for base, ours, theirs and
/// the path.
pub const DRIVER_ARGS: &str = "merge-driver %O %A %B %P";

fn git_err(what: &str, err: git2::Error) -> CommandError {
    CommandError::new(ErrorKind::Store, format!("{what}: {}", err.message()))
}

/// The repository holding `kb_root`, and the root's path inside its working tree (with `/`).
fn repo_for(kb_root: &Path) -> CmdResult<(Repository, String)> {
    let repo = Repository::discover(kb_root).map_err(|e| {
        CommandError::new(
            ErrorKind::Usage,
            format!("'{}' is not inside a git repository: {}", kb_root.display(), e.message()),
        )
    })?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| CommandError::new(ErrorKind::Usage, "the repository is bare"))?;
    let abs_root = kb_root.canonicalize()?;
    let abs_work = workdir.canonicalize()?;
    let rel = abs_root.strip_prefix(&abs_work).unwrap_or(Path::new(""));
    let prefix = rel.to_string_lossy().replace('\\', "/");
    let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
    Ok((repo, prefix))
}

/// The signature for evokb's commits: the repository's configured user, else evokb itself.
/// `EVOKB_NOW` (unix seconds) fixes the time, for reproducible tests.
fn signature(repo: &Repository) -> CmdResult<Signature<'static>> {
    let fixed = crate::clock::fixed().map(|t| t.as_second());
    let (name, email) = match repo.signature() {
        Ok(sig) => (
            sig.name().unwrap_or("evokb").to_string(),
            sig.email().unwrap_or("evokb@localhost").to_string(),
        ),
        Err(_) => ("evokb".to_string(), "evokb@localhost".to_string()),
    };
    let sig = match fixed {
        Some(t) => Signature::new(&name, &email, &Time::new(t, 0)),
        None => Signature::now(&name, &email),
    };
    sig.map_err(|e| git_err("cannot build the commit signature", e))
}

/// What a snapshot committed.
pub struct Snapshot {
    /// The commit, or none when nothing differed from HEAD.
    pub commit: Option<String>,
    /// The repository paths committed.
    pub paths: Vec<String>,
    /// Committed paths whose working-tree file also holds someone's uncommitted edits (left
    /// unstaged in the working tree).
    pub kept_edits: Vec<String>,
}

/// Commits exactly the managed files whose rendering differs from HEAD.
pub fn snapshot(kb_root: &Path, store: &Store, message: &str) -> CmdResult<Snapshot> {
    let (repo, prefix) = repo_for(kb_root)?;
    // What `render` would write, derived rows included.
    let txn = store.read()?;
    let plan = evokb_export::DeriveRows::plan(&evokb_evolve::render::stats_rows(store)?, &txn)?;
    let view = evokb_export::render::Overlay::new(&txn, &plan.records, &plan.files);
    let files = evokb_export::render::render_all(&view)?;
    let head = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let head_tree = match &head {
        Some(c) => Some(c.tree().map_err(|e| git_err("cannot read HEAD's tree", e))?),
        None => None,
    };
    let mut builder = TreeUpdateBuilder::new();
    let mut index = repo.index().map_err(|e| git_err("cannot open the index", e))?;
    let mut paths = Vec::new();
    let mut kept_edits = Vec::new();
    for f in &files {
        let repo_path = format!("{prefix}{}", f.path);
        let blob = repo.blob(f.text.as_bytes()).map_err(|e| git_err("cannot write a blob", e))?;
        let in_head =
            head_tree.as_ref().and_then(|t| t.get_path(Path::new(&repo_path)).ok()).map(|e| e.id());
        if in_head == Some(blob) {
            continue;
        }
        builder.upsert(repo_path.as_str(), blob, FileMode::Blob);
        paths.push(repo_path.clone());
        let on_disk = std::fs::read(kb_root.join(&f.path)).ok();
        if on_disk.as_deref() != Some(f.text.as_bytes()) {
            kept_edits.push(repo_path.clone());
        }
        // Stage evokb's content; a person's different working-tree text shows as unstaged.
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            file_size: u32::try_from(f.text.len()).unwrap_or(u32::MAX),
            id: blob,
            flags: 0,
            flags_extended: 0,
            path: repo_path.clone().into_bytes(),
        };
        index.add(&entry).map_err(|e| git_err("cannot stage a file", e))?;
    }
    if paths.is_empty() {
        return Ok(Snapshot { commit: None, paths, kept_edits });
    }
    let tree_id = match &head_tree {
        Some(t) => builder.create_updated(&repo, t),
        None => {
            let empty = repo
                .treebuilder(None)
                .and_then(|b| b.write())
                .map_err(|e| git_err("cannot build a tree", e))?;
            let empty = repo.find_tree(empty).map_err(|e| git_err("cannot read a tree", e))?;
            builder.create_updated(&repo, &empty)
        }
    }
    .map_err(|e| git_err("cannot build the snapshot tree", e))?;
    let tree = repo.find_tree(tree_id).map_err(|e| git_err("cannot read the snapshot tree", e))?;
    let sig = signature(&repo)?;
    let parents: Vec<&git2::Commit<'_>> = head.iter().collect();
    let oid = repo
        .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .map_err(|e| git_err("cannot commit", e))?;
    index.write().map_err(|e| git_err("cannot write the index", e))?;
    Ok(Snapshot { commit: Some(oid.to_string()), paths, kept_edits })
}

/// The managed paths, as `.gitattributes` patterns relative to the repository root.
fn attribute_patterns(prefix: &str, lay: &layout::Layout) -> Vec<String> {
    lay.patterns().into_iter().map(|p| format!("{prefix}{p}")).collect()
}

/// Registers `evokb merge-driver` for the managed files: `.gitattributes` lines and the
/// repository's `merge.evokb.*` config, with the absolute path of the running binary. Does
/// nothing outside a git repository.
pub fn register_merge_driver(kb_root: &Path) -> CmdResult<Option<PathBuf>> {
    let Ok((repo, prefix)) = repo_for(kb_root) else { return Ok(None) };
    let Some(workdir) = repo.workdir() else { return Ok(None) };
    let attributes = workdir.join(".gitattributes");
    let mut text = std::fs::read_to_string(&attributes).unwrap_or_default();
    let mut changed = false;
    let lay = layout::Layout::load(kb_root)?;
    for pattern in attribute_patterns(&prefix, &lay) {
        let line = format!("{pattern} merge=evokb");
        if !text.lines().any(|l| l.trim() == line) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            if !changed && !text.contains("# evokb:") {
                text.push_str("# evokb: merge managed knowledge-base files record by record\n");
            }
            text.push_str(&line);
            text.push('\n');
            changed = true;
        }
    }
    if changed {
        std::fs::write(&attributes, &text)?;
    }
    let mut config = repo.config().map_err(|e| git_err("cannot open the repository config", e))?;
    config
        .set_str("merge.evokb.name", "evokb record-level merge")
        .map_err(|e| git_err("cannot set merge.evokb.name", e))?;
    config
        .set_str("merge.evokb.driver", &format!("{} {DRIVER_ARGS}", crate::exe::evokb_command()))
        .map_err(|e| git_err("cannot set merge.evokb.driver", e))?;
    Ok(Some(attributes))
}

/// Writes the pre-commit hook that refuses commits whose managed files are out of sync.
pub fn install_hook(kb_root: &Path) -> CmdResult<PathBuf> {
    let (repo, prefix) = repo_for(kb_root)?;
    let hooks = hooks_dir(&repo);
    std::fs::create_dir_all(&hooks)?;
    let hook = hooks.join("pre-commit");
    if hook.exists() {
        let old = std::fs::read_to_string(&hook).unwrap_or_default();
        if !old.contains("installed by evokb") {
            return Err(CommandError::new(
                ErrorKind::Usage,
                format!("'{}' exists and was not written by evokb", hook.display()),
            )
            .hint("add 'evokb import --check --strict && evokb render --check && evokb lint --errors-only' to it by hand"));
        }
    }
    let root =
        if prefix.is_empty() { ".".to_string() } else { prefix.trim_end_matches('/').to_string() };
    let script = format!(
        "#!/bin/sh\n# installed by evokb hooks install: refuse commits whose knowledge-base files lose records to a\n# structural slip (strict import check, writes nothing), differ from the store, or whose entries\n# have lint errors.\nset -e\ncd \"$(git rev-parse --show-toplevel)\"\nEVOKB={exe}\n[ -x \"$EVOKB\" ] || EVOKB=evokb\n\"$EVOKB\" --root '{root}' import --check --strict >/dev/null || {{\n  echo \"evokb: the strict import check failed (see above; 'evokb import --check' explains each problem)\" >&2\n  exit 1\n}}\n\"$EVOKB\" --root '{root}' render --check >/dev/null || {{\n  echo \"evokb: managed files differ from the store (run 'evokb import' or 'evokb render')\" >&2\n  exit 1\n}}\n\"$EVOKB\" --root '{root}' lint --errors-only\n",
        exe = crate::exe::evokb_command()
    );
    std::fs::write(&hook, script)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(hook)
}

/// The folder git runs hooks from: `core.hooksPath` (relative to the working tree) when set,
/// else `.git/hooks`.
fn hooks_dir(repo: &Repository) -> PathBuf {
    let configured = repo.config().ok().and_then(|c| c.get_path("core.hooksPath").ok());
    match (configured, repo.workdir()) {
        (Some(p), Some(work)) if p.is_relative() => work.join(p),
        (Some(p), _) => p,
        (None, _) => repo.path().join("hooks"),
    }
}

/// The files git tracks under `examples/` (relative to the knowledge-base root) and every
/// ancestor directory of them; `None` outside a repository, which skips the KB-PROC-REF checks.
pub fn tracked_examples(kb_root: &Path) -> Option<std::collections::HashSet<String>> {
    let (repo, prefix) = repo_for(kb_root).ok()?;
    let index = repo.index().ok()?;
    let mut out = std::collections::HashSet::new();
    let full_prefix = format!("{prefix}examples/");
    for entry in index.iter() {
        let path = String::from_utf8_lossy(&entry.path).into_owned();
        let Some(rel) = path.strip_prefix(&prefix) else { continue };
        if !path.starts_with(&full_prefix) {
            continue;
        }
        let mut p = rel.to_string();
        out.insert(p.clone());
        while let Some((parent, _)) = p.rsplit_once('/') {
            p = parent.to_string();
            out.insert(p.clone());
        }
    }
    Some(out)
}
