//! The repository checks of `evokb doctor`: the merge driver, the pre-commit hook, the
//! `.gitattributes` lines and the ignore rule for `.evokb/`, read with libgit2 as git sees them.

use std::path::Path;

use evokb_export::layout::Layout;
use git2::{AttrCheckFlags, Repository};

use super::{hooks_dir, repo_for, DRIVER_ARGS};
use crate::commands::doctor::{fix_command, runs_as_evokb, Check, GIT_CHECKS};
use crate::exe::{first_shell_word, shell_quote};

/// Every repository check of the knowledge base at `root`, skipped outside a repository.
pub fn checks(root: &Path) -> Vec<Check> {
    let (repo, prefix) = match repo_for(root) {
        Ok(found) => found,
        Err(e) => {
            return GIT_CHECKS.iter().map(|name| Check::skip(name, e.message.clone())).collect()
        }
    };
    let install = fix_command(root, "hooks install");
    vec![
        merge_driver(&repo, &install),
        pre_commit_hook(&repo, &install),
        attributes(root, &repo, &prefix, &install),
        store_ignored(root, &repo, &prefix),
    ]
}

fn merge_driver(repo: &Repository, install: &str) -> Check {
    const NAME: &str = "merge_driver";
    let driver = repo.config().ok().and_then(|c| c.get_string("merge.evokb.driver").ok());
    let Some(driver) = driver else {
        return Check::fail(
            NAME,
            "merge.evokb.driver is not set: git merges the managed files line by line and conflicts on every file both sides changed",
            install,
        );
    };
    let (binary, rest) = first_shell_word(&driver);
    if rest.trim() != DRIVER_ARGS {
        return Check::fail(
            NAME,
            format!(
                "merge.evokb.driver is '{driver}'; expected the binary followed by '{DRIVER_ARGS}'"
            ),
            install,
        );
    }
    match runs_as_evokb(&binary) {
        Ok(()) => Check::pass(NAME),
        Err(why) => Check::fail(
            NAME,
            format!("merge.evokb.driver calls {why}; every merge of a managed file would fail"),
            install,
        ),
    }
}

fn pre_commit_hook(repo: &Repository, install: &str) -> Check {
    const NAME: &str = "pre_commit_hook";
    let hook = hooks_dir(repo).join("pre-commit");
    let Ok(text) = std::fs::read_to_string(&hook) else {
        return Check::fail(
            NAME,
            format!(
                "there is no pre-commit hook at '{}': commits are not checked against the store",
                hook.display()
            ),
            install,
        );
    };
    if !text.contains("installed by evokb") {
        return Check::fail(
            NAME,
            format!("'{}' was not written by evokb", hook.display()),
            format!(
                "add '{} import --check --strict && {0} render --check && {0} lint --errors-only' to {}",
                crate::exe::evokb_command(),
                shell_quote(&hook.display().to_string())
            ),
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&hook).map(|m| m.permissions().mode()).unwrap_or(0);
        if mode & 0o111 == 0 {
            return Check::fail(
                NAME,
                format!("'{}' is not executable, so git skips it", hook.display()),
                format!("chmod +x {}", shell_quote(&hook.display().to_string())),
            );
        }
    }
    let binary = text.lines().find_map(|l| l.strip_prefix("EVOKB=")).map(|w| first_shell_word(w).0);
    let Some(binary) = binary else {
        return Check::fail(
            NAME,
            format!("'{}' names no evokb binary (no EVOKB= line)", hook.display()),
            install,
        );
    };
    match runs_as_evokb(&binary) {
        Ok(()) => Check::pass(NAME),
        Err(why) => Check::fail(NAME, format!("the hook calls {why}"), install),
    }
}

/// Every managed file there is, and every fixed managed path, must carry `merge=evokb`.
fn attributes(root: &Path, repo: &Repository, prefix: &str, install: &str) -> Check {
    const NAME: &str = "gitattributes";
    let lay = match Layout::load(root) {
        Ok(l) => l,
        Err(e) => {
            return Check::fail(
                NAME,
                format!("the layout does not load: {e}"),
                format!("fix {}", root.join("evokb.toml").display()),
            )
        }
    };
    let mut paths: Vec<String> = match lay.discover(root) {
        Ok(files) => files.into_iter().map(|f| f.path).collect(),
        Err(e) => return Check::fail(NAME, format!("cannot list the managed files: {e}"), install),
    };
    for pattern in lay.patterns() {
        if !pattern.contains('*') && !paths.contains(&pattern) {
            paths.push(pattern);
        }
    }
    let values = merge_attributes(repo, prefix, &paths);
    let missing: Vec<String> = paths
        .into_iter()
        .zip(values)
        .filter(|(_, v)| v.as_deref() != Some("evokb"))
        .map(|(p, _)| p)
        .collect();
    if missing.is_empty() {
        return Check::pass(NAME);
    }
    Check::fail(
        NAME,
        format!(
            "{} managed file(s) have no 'merge=evokb' attribute, so git merges them line by line: {}",
            missing.len(),
            missing.join(", ")
        ),
        install,
    )
}

/// The `merge` attribute of each path (relative to the knowledge-base root), as git reads it
/// for a merge: `git check-attr`, which takes the working tree's `.gitattributes` (the index's
/// only when the file is missing). libgit2's lookup also reads the committed file, so a line
/// deleted since would go unseen; it serves only when the git program cannot run.
fn merge_attributes(repo: &Repository, prefix: &str, paths: &[String]) -> Vec<Option<String>> {
    let repo_paths: Vec<String> = paths.iter().map(|p| format!("{prefix}{p}")).collect();
    let from_git = repo.workdir().and_then(|work| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(work)
            .args(["check-attr", "-z", "merge", "--"])
            .args(&repo_paths)
            .stdin(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        // -z output: path NUL attribute NUL value NUL, in the order asked.
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let fields: Vec<&str> = text.split('\0').collect();
        let values: Vec<Option<String>> = fields
            .chunks(3)
            .filter(|c| c.len() == 3)
            .map(|c| match c[2] {
                "unspecified" | "unset" => None,
                v => Some(v.to_string()),
            })
            .collect();
        (values.len() == repo_paths.len()).then_some(values)
    });
    from_git.unwrap_or_else(|| {
        repo_paths
            .iter()
            .map(|p| {
                repo.get_attr(Path::new(p), "merge", AttrCheckFlags::FILE_THEN_INDEX)
                    .ok()
                    .flatten()
                    .map(str::to_string)
            })
            .collect()
    })
}

/// `.evokb/` holds a binary database that must never be committed or merged.
fn store_ignored(root: &Path, repo: &Repository, prefix: &str) -> Check {
    const NAME: &str = "store_ignored";
    let store = format!("{prefix}.evokb/");
    let tracked = repo
        .index()
        .map(|i| i.iter().any(|e| e.path.starts_with(store.as_bytes())))
        .unwrap_or(false);
    if tracked {
        let work = repo.workdir().unwrap_or(root);
        return Check::fail(
            NAME,
            format!(
                "git tracks files under '{store}': the binary store would be committed and merged"
            ),
            format!(
                "git -C {} rm -r -q --cached {}",
                shell_quote(&work.display().to_string()),
                shell_quote(&store)
            ),
        );
    }
    let probe = format!("{store}{}", evokb_store::DB_FILE);
    if repo.is_path_ignored(Path::new(&probe)).unwrap_or(false) {
        return Check::pass(NAME);
    }
    Check::fail(
        NAME,
        format!("'{store}' is not ignored by git: 'git add -A' would commit the binary store"),
        format!(
            "printf '\\n.evokb/\\n' >> {}",
            shell_quote(&root.join(".gitignore").display().to_string())
        ),
    )
}
