//! The renderer: records and layouts back to file text, and writing files safely.
//!
//! Rendering is concatenation: a file is its prose and its records' segments in layout order,
//! so an unchanged record comes back byte for byte and the output depends only on the store's
//! content. Files are written through a temporary file that is fsynced and renamed, so a crash
//! leaves either the old or the new file, never a torn one.

use std::io::Write;
use std::path::Path;

use std::collections::{BTreeMap, HashMap};

use evokb_store::{CaseHash, FileLayout, LayoutItem, ReadTxn, Record, StoreError, Tally, WriteTxn};

use crate::error::RenderError;

/// A rendered managed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Repository-relative path.
    pub path: String,
    /// The file's text.
    pub text: String,
    /// The layout it was rendered from.
    pub layout: FileLayout,
}

/// Read access needed to render; implemented by both transaction kinds and by [`Overlay`].
pub trait RecordSource {
    /// The record under `key`.
    fn get(&self, key: &CaseHash) -> Result<Option<Record>, StoreError>;
    /// The layout of the managed file at `path`.
    fn layout(&self, path: &str) -> Result<Option<FileLayout>, StoreError>;
    /// Every file layout, in path order.
    fn layouts(&self) -> Result<Vec<FileLayout>, StoreError>;
    /// The pending tallies (see [`evokb_store::Tally`]).
    fn pending_tallies(&self) -> Result<Vec<(String, Tally)>, StoreError>;
    /// A store-wide setting (see [`evokb_store::ReadTxn::meta_value`]).
    fn meta_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
}

macro_rules! source_for_txn {
    ($t:ty) => {
        impl RecordSource for $t {
            fn get(&self, key: &CaseHash) -> Result<Option<Record>, StoreError> {
                self.record(key)
            }
            fn layout(&self, path: &str) -> Result<Option<FileLayout>, StoreError> {
                self.file(path)
            }
            fn layouts(&self) -> Result<Vec<FileLayout>, StoreError> {
                self.files()
            }
            fn pending_tallies(&self) -> Result<Vec<(String, Tally)>, StoreError> {
                self.tallies()
            }
            fn meta_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
                <$t>::meta_value(self, key)
            }
        }
    };
}

source_for_txn!(ReadTxn);
source_for_txn!(WriteTxn);

/// A store view with some records and layouts replaced: what the store would hold after a
/// change, without writing it. `render --check` renders through one so that it compares
/// exactly what `render` would write.
pub struct Overlay<'a> {
    base: &'a dyn RecordSource,
    records: &'a HashMap<CaseHash, Record>,
    files: &'a BTreeMap<String, FileLayout>,
}

impl<'a> Overlay<'a> {
    /// `base` with `records` and `files` in place of (or in addition to) its own.
    pub fn new(
        base: &'a dyn RecordSource,
        records: &'a HashMap<CaseHash, Record>,
        files: &'a BTreeMap<String, FileLayout>,
    ) -> Overlay<'a> {
        Overlay { base, records, files }
    }
}

impl RecordSource for Overlay<'_> {
    fn get(&self, key: &CaseHash) -> Result<Option<Record>, StoreError> {
        match self.records.get(key) {
            Some(r) => Ok(Some(r.clone())),
            None => self.base.get(key),
        }
    }
    fn layout(&self, path: &str) -> Result<Option<FileLayout>, StoreError> {
        match self.files.get(path) {
            Some(l) => Ok(Some(l.clone())),
            None => self.base.layout(path),
        }
    }
    fn layouts(&self) -> Result<Vec<FileLayout>, StoreError> {
        let mut out = self.base.layouts()?;
        for l in &mut out {
            if let Some(o) = self.files.get(&l.path) {
                *l = o.clone();
            }
        }
        for (path, l) in self.files {
            if !out.iter().any(|x| &x.path == path) {
                out.push(l.clone());
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
    fn pending_tallies(&self) -> Result<Vec<(String, Tally)>, StoreError> {
        // The overlay is what the store holds once the tallies are folded into their table.
        Ok(Vec::new())
    }
    fn meta_value(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.base.meta_value(key)
    }
}

/// Renders one layout.
pub fn render_layout(src: &dyn RecordSource, layout: &FileLayout) -> Result<String, RenderError> {
    let mut out = String::new();
    for item in &layout.items {
        match item {
            LayoutItem::Prose(p) => out.push_str(p),
            LayoutItem::Record(key) => match src.get(key)? {
                Some(rec) => rec.write_text(&mut out),
                None => {
                    return Err(RenderError::Dangling {
                        path: layout.path.clone(),
                        key: key.to_hex(),
                    })
                }
            },
        }
    }
    Ok(out)
}

/// Renders every managed file of the store, sorted by path.
pub fn render_all(txn: &dyn RecordSource) -> Result<Vec<RenderedFile>, RenderError> {
    render_all_with_progress(txn, &evokb_store::Silent)
}

/// [`render_all`], reporting each file rendered to `progress` (phase `rendering files`).
///
/// The records are read once each in key order before any file is rendered, rather than
/// looked up in file order: file order visits the records table at random, and at 100k
/// entries each such lookup read (and allocated) a page of its own.
pub fn render_all_with_progress(
    txn: &dyn RecordSource,
    progress: &dyn evokb_store::Progress,
) -> Result<Vec<RenderedFile>, RenderError> {
    let layouts = txn.layouts()?;
    let mut keys: Vec<CaseHash> = layouts
        .iter()
        .flat_map(|l| l.items.iter())
        .filter_map(|i| match i {
            LayoutItem::Record(k) => Some(*k),
            LayoutItem::Prose(_) => None,
        })
        .collect();
    keys.sort_unstable_by_key(|k| k.0);
    keys.dedup();
    let mut texts: HashMap<CaseHash, String> = HashMap::with_capacity(keys.len());
    for key in keys {
        if let Some(rec) = txn.get(&key)? {
            let mut text = String::new();
            rec.write_text(&mut text);
            texts.insert(key, text);
        }
    }
    let mut out = Vec::with_capacity(layouts.len());
    progress.phase("rendering files", layouts.len() as u64);
    for layout in layouts {
        progress.advance(1);
        let mut text = String::new();
        for item in &layout.items {
            match item {
                LayoutItem::Prose(p) => text.push_str(p),
                LayoutItem::Record(key) => match texts.get(key) {
                    Some(t) => text.push_str(t),
                    None => {
                        return Err(RenderError::Dangling {
                            path: layout.path.clone(),
                            key: key.to_hex(),
                        })
                    }
                },
            }
        }
        out.push(RenderedFile { path: layout.path.clone(), text, layout });
    }
    Ok(out)
}

/// Writes many files under `root` (each `(relative path, bytes)`), each atomically as
/// [`write_atomic`] does, but with one flush of the file system for all of them instead of two
/// fsyncs per file: every temporary file is written, the file system is synced (`syncfs`), the
/// temporaries are renamed over their targets, and it is synced again so the renames are
/// durable. A crash leaves each target either as it was or complete, never torn, as with
/// [`write_atomic`]; the temporaries of a killed run are dot-files named after its process.
/// Without `syncfs` (not Linux), each file goes through [`write_atomic`].
pub fn write_all_atomic(root: &Path, files: &[(&str, &[u8])]) -> Result<(), RenderError> {
    #[cfg(target_os = "linux")]
    {
        let mut staged: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::new();
        let result = stage_and_swap(root, files, &mut staged);
        if result.is_err() {
            for (tmp, _) in &staged {
                let _ = std::fs::remove_file(tmp);
            }
        }
        result
    }
    #[cfg(not(target_os = "linux"))]
    {
        for (rel, bytes) in files {
            write_atomic(&root.join(rel), bytes, None)?;
        }
        Ok(())
    }
}

/// The steps of [`write_all_atomic`]; `staged` collects the temporaries written so far (for
/// the caller to remove on failure) with their targets.
#[cfg(target_os = "linux")]
fn stage_and_swap(
    root: &Path,
    files: &[(&str, &[u8])],
    staged: &mut Vec<(std::path::PathBuf, std::path::PathBuf)>,
) -> Result<(), RenderError> {
    let pid = std::process::id();
    std::fs::create_dir_all(root)
        .map_err(|source| RenderError::Io { path: root.into(), source })?;
    for (rel, bytes) in files {
        let path = root.join(rel);
        let io = |source| RenderError::Io { path: path.clone(), source };
        let dir = path.parent().unwrap_or(root);
        std::fs::create_dir_all(dir).map_err(io)?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
        let tmp = dir.join(format!(".{name}.evokb-tmp-{pid}"));
        staged.push((tmp.clone(), path.clone()));
        std::fs::write(&tmp, bytes).map_err(io)?;
    }
    sync_file_system(root)?;
    for (tmp, path) in staged.iter() {
        std::fs::rename(tmp, path)
            .map_err(|source| RenderError::Io { path: path.clone(), source })?;
    }
    staged.clear();
    sync_file_system(root)
}

/// Flushes the file system holding `root` to disk.
#[cfg(target_os = "linux")]
fn sync_file_system(root: &Path) -> Result<(), RenderError> {
    let io = |source| RenderError::Io { path: root.into(), source };
    let dir = std::fs::File::open(root).map_err(io)?;
    rustix::fs::syncfs(&dir).map_err(|e| io(e.into()))
}

/// Writes `bytes` to `path` atomically: a temporary file, fsynced, then renamed over the target,
/// then the directory fsynced so the rename itself is durable. The temporary file goes in
/// `tmp_dir` when given (the store's own directory, so a process killed mid-write never leaves a
/// stray file in the knowledge base), else beside the target. `tmp_dir` must be on the same file
/// system as `path`.
pub fn write_atomic(path: &Path, bytes: &[u8], tmp_dir: Option<&Path>) -> Result<(), RenderError> {
    let io = |source| RenderError::Io { path: path.into(), source };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp_parent = tmp_dir.unwrap_or(dir);
    std::fs::create_dir_all(tmp_parent).map_err(io)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = tmp_parent.join(format!(".{name}.evokb-tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        if let Ok(d) = std::fs::File::open(dir) {
            // Directory fsync is not supported everywhere; the rename is already done.
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Removes temporary files that killed processes left in `tmp_dir`: those whose process id no
/// longer runs. Live writers' files are left alone.
pub fn clean_stale_temporaries(tmp_dir: &Path) {
    // Without /proc there is no cheap way to tell a live writer from a dead one: keep everything.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp_dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(pid) = name.rsplit_once(".evokb-tmp-").and_then(|(_, p)| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_write_replaces_every_file_whole_and_leaves_no_temporary(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let out = dir.path().join("out");
        std::fs::create_dir_all(out.join("a"))?;
        std::fs::write(out.join("a/old.md"), "old text that is longer than the new one\n")?;
        let files: Vec<(&str, &[u8])> =
            vec![("a/old.md", b"new\n"), ("b/c/new.md", b"fresh\n"), ("top.md", b"")];
        write_all_atomic(&out, &files)?;
        for (rel, bytes) in &files {
            assert_eq!(std::fs::read(out.join(rel))?, *bytes, "{rel}");
        }
        let mut stray = Vec::new();
        for d in [out.clone(), out.join("a"), out.join("b/c")] {
            for e in std::fs::read_dir(d)? {
                let name = e?.file_name().to_string_lossy().into_owned();
                if name.contains(".evokb-tmp-") {
                    stray.push(name);
                }
            }
        }
        assert!(stray.is_empty(), "temporaries left behind: {stray:?}");
        Ok(())
    }

    #[test]
    fn a_batch_write_that_fails_removes_its_temporaries() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let out = dir.path().join("out");
        // A directory where the second file must go: its temporary is written, the rename fails.
        std::fs::create_dir_all(out.join("x.md/inner"))?;
        let files: Vec<(&str, &[u8])> = vec![("a.md", b"a\n"), ("x.md", b"x\n")];
        assert!(write_all_atomic(&out, &files).is_err());
        let names: Vec<String> = std::fs::read_dir(&out)?
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()?;
        assert!(names.iter().all(|n| !n.contains(".evokb-tmp-")), "{names:?}");
        Ok(())
    }
}
