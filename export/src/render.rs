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

/// Every record in key order, with the key of each at the same position.
pub type KeyedRecords = (Vec<CaseHash>, Vec<Record>);

/// How [`write_all_atomic_with`] gets a file's bytes: `fill(i, buf)` appends the bytes of the
/// file at index `i` to the empty buffer `buf`.
pub type FillFile<'a> = dyn Fn(usize, &mut Vec<u8>) -> Result<(), RenderError> + Sync + 'a;

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
    /// Every record in key order with its key, when the source reads them all faster than
    /// one lookup each (a transaction decodes them on every core); `None` when it does not.
    fn all_records(&self) -> Result<Option<KeyedRecords>, StoreError> {
        Ok(None)
    }
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
            fn all_records(&self) -> Result<Option<KeyedRecords>, StoreError> {
                self.keyed_records_in_parallel(cores()).map(Some)
            }
        }
    };
}

/// The number of threads that decode records or write files: one per core, at most four
/// (the files of one directory are created one at a time by the file system anyway).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
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
pub fn render_all_with_progress(
    txn: &dyn RecordSource,
    progress: &dyn evokb_store::Progress,
) -> Result<Vec<RenderedFile>, RenderError> {
    let layouts = txn.layouts()?;
    let records = Held::read(txn, &layouts)?;
    let mut out = Vec::with_capacity(layouts.len());
    progress.phase("rendering files", layouts.len() as u64);
    for layout in layouts {
        progress.advance(1);
        let mut text = String::new();
        records.render(&layout, &mut text)?;
        out.push(RenderedFile { path: layout.path.clone(), text, layout });
    }
    drop_elsewhere(records);
    Ok(out)
}

/// Drops `value` on a thread of its own: freeing a whole store's records takes a tenth of a
/// second at 100k entries, which a command about to print its result and exit need not wait
/// for. When no thread can be started, the value is dropped here instead.
pub(crate) fn drop_elsewhere<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// The records the layouts of a whole-store render name, read before any file is rendered,
/// found by key.
pub(crate) struct Held {
    records: Vec<Record>,
    /// Each key's position in `records`.
    at: HashMap<CaseHash, usize>,
}

impl Held {
    /// Reads the records `layouts` name: all of them at once when the source can
    /// ([`RecordSource::all_records`]), else each once in key order rather than in file
    /// order, since file order visits the records table at random and at 100k entries each
    /// such lookup read (and allocated) a page of its own.
    pub(crate) fn read(src: &dyn RecordSource, layouts: &[FileLayout]) -> Result<Held, StoreError> {
        if let Some((keys, records)) = src.all_records()? {
            let at = keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
            return Ok(Held { records, at });
        }
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
        let mut held = Held { records: Vec::with_capacity(keys.len()), at: HashMap::new() };
        for key in keys {
            if let Some(rec) = src.get(&key)? {
                held.at.insert(key, held.records.len());
                held.records.push(rec);
            }
        }
        Ok(held)
    }

    /// The first record a layout names that is not held, as the error rendering it gives.
    pub(crate) fn dangling(&self, layouts: &[FileLayout]) -> Option<RenderError> {
        layouts.iter().find_map(|layout| {
            layout.items.iter().find_map(|item| match item {
                LayoutItem::Record(key) if !self.at.contains_key(key) => {
                    Some(RenderError::Dangling { path: layout.path.clone(), key: key.to_hex() })
                }
                _ => None,
            })
        })
    }

    /// Appends the text of `layout` to `out`.
    pub(crate) fn render(&self, layout: &FileLayout, out: &mut String) -> Result<(), RenderError> {
        for item in &layout.items {
            match item {
                LayoutItem::Prose(p) => out.push_str(p),
                LayoutItem::Record(key) => match self.at.get(key) {
                    Some(&i) => self.records[i].write_text(out),
                    None => {
                        return Err(RenderError::Dangling {
                            path: layout.path.clone(),
                            key: key.to_hex(),
                        })
                    }
                },
            }
        }
        Ok(())
    }
}

/// Writes many files under `root` (each `(relative path, bytes)`), each atomically as
/// [`write_atomic`] does, but with one flush of the file system for all of them instead of two
/// fsyncs per file: every temporary file is written, the file system is synced (`syncfs`), the
/// temporaries are renamed over their targets, and it is synced again so the renames are
/// durable. A crash leaves each target either as it was or complete, never torn, as with
/// [`write_atomic`]; the temporaries of a killed run are dot-files named after its process.
/// Without `syncfs` (not Linux), each file goes through [`write_atomic`].
pub fn write_all_atomic(root: &Path, files: &[(&str, &[u8])]) -> Result<(), RenderError> {
    let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    write_all_atomic_with(
        root,
        &paths,
        &|i, buf| {
            buf.extend_from_slice(files[i].1);
            Ok(())
        },
        &evokb_store::Silent,
    )
}

/// [`write_all_atomic`] for the files at `paths`, each file's bytes made by `fill(i, buf)`
/// (`i` its index in `paths`) into an empty buffer of the writing thread's own just before the
/// file is written: the files are made and written on up to four threads at once, so one
/// thread makes or writes a file while the file system creates another, and they are never
/// all held in memory. Every directory is created once, before any file. The targets are
/// renamed in the order of `paths`; when several files fail, the error reported is that of
/// the first of them in that order. `progress` is advanced by each file staged.
pub fn write_all_atomic_with(
    root: &Path,
    paths: &[&str],
    fill: &FillFile<'_>,
    progress: &dyn evokb_store::Progress,
) -> Result<(), RenderError> {
    #[cfg(target_os = "linux")]
    {
        let mut staged: Vec<(std::path::PathBuf, std::path::PathBuf)> = Vec::new();
        let result = stage_and_swap(root, paths, fill, progress, &mut staged);
        if result.is_err() {
            for (tmp, _) in &staged {
                let _ = std::fs::remove_file(tmp);
            }
        }
        result
    }
    #[cfg(not(target_os = "linux"))]
    {
        let mut buf = Vec::new();
        for (i, rel) in paths.iter().enumerate() {
            buf.clear();
            fill(i, &mut buf)?;
            write_atomic(&root.join(rel), &buf, None)?;
            progress.advance(1);
        }
        Ok(())
    }
}

/// The steps of [`write_all_atomic_with`]; `staged` collects the temporaries written (for the
/// caller to remove on failure) with their targets, in the order of `paths`.
#[cfg(target_os = "linux")]
fn stage_and_swap(
    root: &Path,
    paths: &[&str],
    fill: &FillFile<'_>,
    progress: &dyn evokb_store::Progress,
    staged: &mut Vec<(std::path::PathBuf, std::path::PathBuf)>,
) -> Result<(), RenderError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    let pid = std::process::id();
    let targets: Vec<std::path::PathBuf> = paths.iter().map(|rel| root.join(rel)).collect();
    // Each directory once: at 100k entries 5,000 files share one directory, and asking for it
    // per file was two system calls each.
    let mut dirs: Vec<&Path> = targets.iter().map(|p| p.parent().unwrap_or(root)).collect();
    dirs.push(root);
    dirs.sort_unstable();
    dirs.dedup();
    for dir in dirs {
        std::fs::create_dir_all(dir)
            .map_err(|source| RenderError::Io { path: dir.into(), source })?;
    }
    let tmp_of = |path: &Path| {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
        path.parent().unwrap_or(root).join(format!(".{name}.evokb-tmp-{pid}"))
    };
    // Files are taken one at a time by whichever thread is free; each thread keeps what it
    // staged and its first failure, and all stop taking files once one has failed.
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    // What one thread staged (each temporary with the index of its file) and its failure.
    type Staged = Vec<(usize, std::path::PathBuf)>;
    type Outcome = (Staged, Option<(usize, RenderError)>);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let stage = |between: &mut dyn FnMut()| {
        let mut mine: Staged = Vec::new();
        let mut buf = Vec::new();
        let mut error = None;
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = targets.get(i) else { break };
            let tmp = tmp_of(path);
            buf.clear();
            let wrote = fill(i, &mut buf).and_then(|()| {
                // Staged before the write, so a partial temporary is removed too.
                mine.push((i, tmp.clone()));
                std::fs::write(&tmp, &buf)
                    .map_err(|source| RenderError::Io { path: path.clone(), source })
            });
            if let Err(e) = wrote {
                failed.store(true, Ordering::Relaxed);
                error = Some((i, e));
                break;
            }
            done.fetch_add(1, Ordering::Relaxed);
            between();
        }
        // A poisoned lock means another writer panicked; its panic ends the scope anyway.
        if let Ok(mut r) = results.lock() {
            r.push((mine, error));
        }
    };
    // The bar moves on this thread only (a progress need not be shareable), by the files
    // every thread has staged.
    let mut reported = 0;
    let mut report = || {
        let now = done.load(Ordering::Relaxed);
        progress.advance((now - reported) as u64);
        reported = now;
    };
    std::thread::scope(|scope| {
        for _ in 1..cores().min(targets.len().max(1)) {
            scope.spawn(|| stage(&mut || {}));
        }
        stage(&mut report);
    });
    report();
    let mut all: Staged = Vec::with_capacity(targets.len());
    let mut first_error: Option<(usize, RenderError)> = None;
    for (mine, error) in results.into_inner().unwrap_or_default() {
        all.extend(mine);
        if let Some((i, e)) = error {
            if first_error.as_ref().is_none_or(|(j, _)| i < *j) {
                first_error = Some((i, e));
            }
        }
    }
    all.sort_unstable_by_key(|(i, _)| *i);
    staged.extend(all.into_iter().map(|(i, tmp)| (tmp, targets[i].clone())));
    if let Some((_, e)) = first_error {
        return Err(e);
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
