//! Where the managed files of a knowledge base live, and what format each one has.
//!
//! A [`Layout`] says where each file role lives: topic-file globs, `INDEX.md`, bottleneck
//! patterns, algorithm candidates, the queue, capability gaps, stats, the search log and the
//! repro folder. The default is the layout the real tools use (spec §1), under [`defaults`];
//! a knowledge base kept elsewhere declares its own in `evokb.toml`:
//!
//! ```toml
//! [layout]
//! topics = ["kb/patterns/*.md"]
//! index = "kb/INDEX.md"
//! queue = "kb/queue.md"
//! ```
//!
//! Keys left out keep their default. Every path must stay inside the knowledge-base root.
//! `import` stores the layout it used in the store, and every later command reads it from
//! there ([`Layout::of`]), so the whole store agrees on where its files are. Missing files are
//! skipped, so older versions of a knowledge base (which lack some of them) import too.

use std::path::Path;

use evokb_store::StoreError;
use serde::{Deserialize, Serialize};

use crate::render::RecordSource;

/// The default layout's paths, relative to the knowledge-base root.
pub mod defaults {
    /// The pattern-library directory.
    pub const PL_DIR: &str = ".agents/skills/tilelang-op-optimize/references/pattern-library";
    /// The repro directory.
    pub const REPRO_DIR: &str =
        ".agents/skills/tilelang-op-optimize/references/pattern-library/repro";
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
    pub const INDEX: &str =
        ".agents/skills/tilelang-op-optimize/references/pattern-library/INDEX.md";
}

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

impl FileRole {
    /// Whether files of this role only ever grow at the end while evokb writes them (the
    /// search log): their content mark is a line chain that an append extends without reading
    /// the file ([`evokb_store::filestate::line_mark`]).
    pub fn append_only(self) -> bool {
        matches!(self, FileRole::SearchLog)
    }

    /// The content mark of a file of this role: what the store's file sync mark holds for
    /// these bytes.
    pub fn content_mark(self, bytes: &[u8]) -> [u8; 32] {
        if self.append_only() {
            evokb_store::filestate::line_mark(bytes)
        } else {
            *blake3::hash(bytes).as_bytes()
        }
    }
}

impl Layout {
    /// The content mark of the managed file at `path` (see [`FileRole::content_mark`]); a path
    /// of no role is marked as a topic file would be.
    pub fn content_mark(&self, path: &str, bytes: &[u8]) -> [u8; 32] {
        self.role_of(path).unwrap_or(FileRole::Topic).content_mark(bytes)
    }
}

/// A managed file: its path relative to the root (with `/`) and its format.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ManagedFile {
    /// Repository-relative path.
    pub path: String,
    /// Its format.
    pub role: FileRole,
}

/// Where each file role lives, as repository-relative paths with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Layout {
    /// Globs of topic files: a folder and a file pattern with at most one `*` (`kb/*.md`).
    /// `README.md` and the index are never topic files.
    pub topics: Vec<String>,
    /// The routing index (`INDEX.md`).
    pub index: String,
    /// The bottleneck patterns.
    pub bottlenecks: String,
    /// The algorithm candidates (front-matter entries, like a topic file).
    pub algorithm_candidates: String,
    /// The review queue.
    pub queue: String,
    /// The capability-gap register.
    pub gaps: String,
    /// The statistics tables.
    pub stats: String,
    /// The search log (JSON lines).
    pub search_log: String,
    /// The folder of repro scripts (`*.py`).
    pub repro: String,
}

impl Default for Layout {
    fn default() -> Layout {
        Layout {
            topics: vec![format!("{}/*.md", defaults::PL_DIR)],
            index: defaults::INDEX.into(),
            bottlenecks: defaults::BOTTLENECKS.into(),
            algorithm_candidates: defaults::ALG_CANDIDATES.into(),
            queue: defaults::QUEUE.into(),
            gaps: defaults::GAPS.into(),
            stats: defaults::STATS.into(),
            search_log: defaults::SEARCH_LOG.into(),
            repro: defaults::REPRO_DIR.into(),
        }
    }
}

/// Why a declared layout cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// `evokb.toml` could not be read.
    #[error("cannot read '{}': {source}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `evokb.toml` is not valid, or its `[layout]` has unknown keys or wrong types.
    #[error("'{}' has an invalid [layout] section: {reason}", path.display())]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// What the TOML parser said.
        reason: String,
    },
    /// A declared path leaves the knowledge-base root, or is not a usable pattern.
    #[error("evokb.toml [layout] {key} = '{value}': {reason}")]
    BadPath {
        /// The key.
        key: &'static str,
        /// The value declared.
        value: String,
        /// What is wrong, and what is expected.
        reason: &'static str,
    },
    /// The layout stored in the store cannot be read.
    #[error("the layout stored in the store is unreadable ({reason}); importing the files again stores it anew")]
    Stored {
        /// Why.
        reason: String,
    },
}

impl From<LayoutError> for StoreError {
    fn from(err: LayoutError) -> StoreError {
        StoreError::Corrupted {
            table: "meta",
            key: format!("setting.{STORED_KEY}"),
            detail: err.to_string(),
        }
    }
}

#[derive(Deserialize, Default)]
struct ConfigFile {
    #[serde(default)]
    layout: Option<Layout>,
}

/// The meta key under which `import` stores the layout it used.
const STORED_KEY: &str = "layout";

impl Layout {
    /// The layout `root/evokb.toml` declares, or the default when it declares none.
    pub fn load(root: &Path) -> Result<Layout, LayoutError> {
        let path = root.join("evokb.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Layout::default()),
            Err(source) => return Err(LayoutError::Io { path, source }),
        };
        // Other sections ([budget], [toolchain], …) belong to other readers.
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| LayoutError::Invalid { path: path.clone(), reason: e.to_string() })?;
        let Some(section) = table.get("layout") else { return Ok(Layout::default()) };
        let config = ConfigFile {
            layout: Some(section.clone().try_into().map_err(|e: toml::de::Error| {
                LayoutError::Invalid { path, reason: e.to_string() }
            })?),
        };
        let layout = config.layout.unwrap_or_default();
        layout.validate()?;
        Ok(layout)
    }

    /// Refuses paths that are absolute, contain `..`, a backslash or an empty component, and
    /// topic globs with more than one `*` or a `*` outside the file name.
    pub fn validate(&self) -> Result<(), LayoutError> {
        let files = [
            ("index", &self.index),
            ("bottlenecks", &self.bottlenecks),
            ("algorithm_candidates", &self.algorithm_candidates),
            ("queue", &self.queue),
            ("gaps", &self.gaps),
            ("stats", &self.stats),
            ("search_log", &self.search_log),
            ("repro", &self.repro),
        ];
        for (key, value) in files {
            check_inside(key, value)?;
            if value.contains('*') {
                return Err(LayoutError::BadPath {
                    key,
                    value: value.clone(),
                    reason: "expected one file path; only 'topics' takes globs",
                });
            }
        }
        if self.topics.is_empty() {
            return Err(LayoutError::BadPath {
                key: "topics",
                value: String::new(),
                reason: "expected at least one glob such as 'kb/patterns/*.md'",
            });
        }
        for glob in &self.topics {
            check_inside("topics", glob)?;
            let (dir, name) = glob.rsplit_once('/').unwrap_or(("", glob));
            if dir.contains('*') || name.matches('*').count() > 1 {
                return Err(LayoutError::BadPath {
                    key: "topics",
                    value: glob.clone(),
                    reason: "expected a folder and a file pattern with at most one '*', such as 'kb/patterns/*.md'",
                });
            }
        }
        Ok(())
    }

    /// The layout `import` stored in this store, or the default for a store that has none.
    pub fn of(src: &dyn RecordSource) -> Result<Layout, LayoutError> {
        match src
            .meta_value(STORED_KEY)
            .map_err(|e| LayoutError::Stored { reason: e.to_string() })?
        {
            None => Ok(Layout::default()),
            Some(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| LayoutError::Stored { reason: e.to_string() }),
        }
    }

    /// Stores this layout as the one the store's files follow.
    pub fn store_in(&self, w: &mut evokb_store::WriteTxn) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        if w.meta_value(STORED_KEY)?.as_deref() != Some(bytes.as_slice()) {
            w.set_meta_value(STORED_KEY, &bytes)?;
        }
        Ok(())
    }

    /// The role of a repository-relative path, if this layout manages it.
    pub fn role_of(&self, path: &str) -> Option<FileRole> {
        if let Some((_, role)) = self.fixed_files().into_iter().find(|(f, _)| *f == path) {
            return Some(role);
        }
        self.topics.iter().any(|g| glob_matches(g, path)).then_some(FileRole::Topic)
    }

    /// The managed files with one fixed path each, with their roles.
    fn fixed_files(&self) -> [(&str, FileRole); 7] {
        [
            (&self.index, FileRole::Index),
            (&self.bottlenecks, FileRole::Bottleneck),
            (&self.algorithm_candidates, FileRole::Topic),
            (&self.queue, FileRole::Queue),
            (&self.stats, FileRole::Stats),
            (&self.gaps, FileRole::Gaps),
            (&self.search_log, FileRole::SearchLog),
        ]
    }

    /// The managed files that exist under `root`, sorted by path.
    pub fn discover(&self, root: &Path) -> std::io::Result<Vec<ManagedFile>> {
        let mut out = Vec::new();
        // The paths already listed: a topic glob may also match a fixed file, and with 5,000
        // topic files a scan of `out` for each was a quadratic cost of every import.
        let mut seen = std::collections::HashSet::new();
        for (fixed, role) in self.fixed_files() {
            // Anything at a managed path counts, even a directory or a dangling symlink:
            // reading it then fails with a clear message instead of the file being skipped.
            if root.join(fixed).symlink_metadata().is_ok() {
                seen.insert(fixed.to_string());
                out.push(ManagedFile { path: fixed.to_string(), role });
            }
        }
        for glob in &self.topics {
            let (dir, pattern) = glob.rsplit_once('/').unwrap_or(("", glob));
            let (prefix, suffix) = pattern.split_once('*').unwrap_or((pattern, ""));
            for name in list_dir(&root.join(dir), suffix)? {
                if !name.starts_with(prefix) || (!pattern.contains('*') && name != pattern) {
                    continue;
                }
                let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
                if self.role_of(&path) == Some(FileRole::Topic) && seen.insert(path.clone()) {
                    out.push(ManagedFile { path, role: FileRole::Topic });
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The repro scripts under `root`, as sorted repository-relative paths.
    pub fn discover_repros(&self, root: &Path) -> std::io::Result<Vec<String>> {
        Ok(list_dir(&root.join(&self.repro), ".py")?
            .into_iter()
            .map(|name| format!("{}/{name}", self.repro))
            .collect())
    }

    /// Every managed path and topic glob, for `.gitattributes`.
    pub fn patterns(&self) -> Vec<String> {
        let mut out = self.topics.clone();
        for (f, _) in self.fixed_files() {
            if !out.iter().any(|p| p == f) {
                out.push(f.to_string());
            }
        }
        out
    }
}

/// Whether `path` matches a topic glob (`dir/pre*suf`), never for `README.md`.
fn glob_matches(glob: &str, path: &str) -> bool {
    let (gdir, gname) = glob.rsplit_once('/').unwrap_or(("", glob));
    let (pdir, pname) = path.rsplit_once('/').unwrap_or(("", path));
    if gdir != pdir || pname == "README.md" {
        return false;
    }
    match gname.split_once('*') {
        None => gname == pname,
        Some((pre, suf)) => {
            pname.len() >= pre.len() + suf.len() && pname.starts_with(pre) && pname.ends_with(suf)
        }
    }
}

fn check_inside(key: &'static str, value: &str) -> Result<(), LayoutError> {
    let bad = |reason| Err(LayoutError::BadPath { key, value: value.to_string(), reason });
    if value.is_empty() {
        return bad("expected a path relative to the knowledge-base root");
    }
    if value.starts_with('/') || value.starts_with('~') || value.contains(':') {
        return bad("the path leaves the knowledge-base root; expected a relative path inside it");
    }
    if value.contains('\\') {
        return bad("expected '/' as the separator");
    }
    if value.split('/').any(|c| c == ".." || c.is_empty() || c == ".") {
        return bad("the path leaves the knowledge-base root or has an empty part; expected a relative path inside it without '..'");
    }
    Ok(())
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

    use super::defaults::*;

    #[test]
    fn roles_follow_the_spec_layout() {
        let l = Layout::default();
        assert_eq!(l.role_of(INDEX), Some(FileRole::Index));
        assert_eq!(l.role_of(&format!("{PL_DIR}/attention.md")), Some(FileRole::Topic));
        assert_eq!(l.role_of(&format!("{PL_DIR}/repro/README.md")), None);
        assert_eq!(l.role_of(&format!("{PL_DIR}/README.md")), None);
        assert_eq!(l.role_of(QUEUE), Some(FileRole::Queue));
        assert_eq!(l.role_of("elsewhere.md"), None);
    }

    #[test]
    fn declared_paths_must_stay_inside_the_root() {
        for bad in
            ["/etc/passwd", "../outside.md", "kb/../../x.md", "~/q.md", "C:/q.md", "kb//q.md"]
        {
            let l = Layout { queue: bad.into(), ..Layout::default() };
            assert!(l.validate().is_err(), "{bad} must be refused");
        }
        let l = Layout { topics: vec!["kb/*/x.md".into()], ..Layout::default() };
        assert!(l.validate().is_err());
        let l = Layout {
            topics: vec!["kb/patterns/*.md".into()],
            queue: "kb/queue.md".into(),
            ..Layout::default()
        };
        assert!(l.validate().is_ok());
        assert_eq!(l.role_of("kb/patterns/a.md"), Some(FileRole::Topic));
        assert_eq!(l.role_of("kb/patterns/README.md"), None);
        assert_eq!(l.role_of("kb/patterns/sub/a.md"), None);
    }
}
