//! Where the managed files of a knowledge base live, and what format each one has.
//!
//! The layout is the one the real tools use (spec §1): the pattern library's topic files and
//! `INDEX.md` under `PL`, bottleneck patterns and ALG candidates beside it, and the evolution
//! state under `.agents/evolution/`. Missing files are skipped, so older versions of a knowledge
//! base (which lack some of them) import too.

use std::path::Path;

/// The pattern-library directory, relative to the knowledge-base root.
pub const PL_DIR: &str = ".agents/skills/tilelang-op-optimize/references/pattern-library";
/// The repro directory.
pub const REPRO_DIR: &str = ".agents/skills/tilelang-op-optimize/references/pattern-library/repro";
/// The bottleneck-pattern file.
pub const BOTTLENECKS: &str =
    ".agents/skills/tilelang-op-optimize/references/bottleneck-patterns.md";
/// The ALG candidate file (front-matter entries).
pub const ALG_CANDIDATES: &str =
    ".agents/skills/tilelang-op-design/references/algorithm-candidates.md";
/// The review queue.
pub const QUEUE: &str = ".agents/evolution/queue.md";
/// The statistics file.
pub const STATS: &str = ".agents/evolution/stats.md";
/// The capability-gap register.
pub const GAPS: &str = ".agents/evolution/capability-gaps.md";
/// The search log.
pub const SEARCH_LOG: &str = ".agents/evolution/kb_search_log.jsonl";
/// The pattern-library index.
pub const INDEX: &str = ".agents/skills/tilelang-op-optimize/references/pattern-library/INDEX.md";

/// The format of a managed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileRole {
    /// Front-matter entries.
    Topic,
    /// `INDEX.md` routing tables.
    Index,
    /// `## BP_…` sections.
    Bottleneck,
    /// `### CG-…` sections with yaml blocks.
    Gaps,
    /// `## VP-…` queue items.
    Queue,
    /// The stats tables.
    Stats,
    /// JSON lines.
    SearchLog,
}

/// A managed file: its path relative to the root (with `/`) and its format.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ManagedFile {
    /// Repository-relative path.
    pub path: String,
    /// Its format.
    pub role: FileRole,
}

/// The role of a repository-relative path, if evokb manages it.
pub fn role_of(path: &str) -> Option<FileRole> {
    match path {
        INDEX => Some(FileRole::Index),
        BOTTLENECKS => Some(FileRole::Bottleneck),
        ALG_CANDIDATES => Some(FileRole::Topic),
        QUEUE => Some(FileRole::Queue),
        STATS => Some(FileRole::Stats),
        GAPS => Some(FileRole::Gaps),
        SEARCH_LOG => Some(FileRole::SearchLog),
        _ => {
            let name = path.strip_prefix(PL_DIR)?.strip_prefix('/')?;
            let is_topic = name.ends_with(".md") && !name.contains('/') && name != "README.md";
            is_topic.then_some(FileRole::Topic)
        }
    }
}

/// The managed files that exist under `root`, sorted by path.
pub fn discover(root: &Path) -> std::io::Result<Vec<ManagedFile>> {
    let mut out = Vec::new();
    for fixed in [INDEX, BOTTLENECKS, ALG_CANDIDATES, QUEUE, STATS, GAPS, SEARCH_LOG] {
        // Anything at a managed path counts, even a directory or a dangling symlink: reading it
        // then fails with a clear message instead of the file being skipped silently.
        if root.join(fixed).symlink_metadata().is_ok() {
            if let Some(role) = role_of(fixed) {
                out.push(ManagedFile { path: fixed.into(), role });
            }
        }
    }
    for name in list_dir(&root.join(PL_DIR), ".md")? {
        let path = format!("{PL_DIR}/{name}");
        if let Some(role) = role_of(&path) {
            if path != INDEX {
                out.push(ManagedFile { path, role });
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The repro scripts under `root`, as sorted repository-relative paths.
pub fn discover_repros(root: &Path) -> std::io::Result<Vec<String>> {
    Ok(list_dir(&root.join(REPRO_DIR), ".py")?
        .into_iter()
        .map(|name| format!("{REPRO_DIR}/{name}"))
        .collect())
}

/// Names in `dir` ending in `suffix`, whatever their file type, sorted; none when `dir` is
/// missing.
fn list_dir(dir: &Path, suffix: &str) -> std::io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry?;
        // Directories, FIFOs and symlinks with a managed name are listed too: reading them then
        // fails with a clear diagnostic instead of the path being skipped (and later reported
        // as a file missing on disk).
        if let Some(name) = entry.file_name().to_str() {
            if name.ends_with(suffix) && !name.starts_with('.') {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_follow_the_spec_layout() {
        assert_eq!(role_of(INDEX), Some(FileRole::Index));
        assert_eq!(role_of(&format!("{PL_DIR}/attention.md")), Some(FileRole::Topic));
        assert_eq!(role_of(&format!("{PL_DIR}/repro/README.md")), None);
        assert_eq!(role_of(&format!("{PL_DIR}/README.md")), None);
        assert_eq!(role_of(QUEUE), Some(FileRole::Queue));
        assert_eq!(role_of("elsewhere.md"), None);
    }
}
