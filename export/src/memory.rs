//! A knowledge base parsed in memory, without a store: what `lint` reads when there is no
//! store, when the files no longer import, or when it is given files to check.
//!
//! Unlike [`crate::sync::read_kb`], reading never fails on a file's content: every parse error
//! is kept as a [`Diagnostic`] with its file and line, and whatever the parser made of the rest
//! of the file is kept too, so the checks still see every record they can. A duplicate id keeps
//! its first occurrence (and a diagnostic naming both places).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use evokb_store::{CaseHash, FileLayout, LayoutItem, Record, StoreError, Tally};

use crate::diag::Diagnostic;
use crate::fsread::read_managed;
use crate::layout::{Layout, ManagedFile};
use crate::parse::parse_file;
use crate::render::RecordSource;
use crate::text::decode_utf8;

/// The files of a knowledge base, parsed in memory.
#[derive(Debug, Clone, Default)]
pub struct MemoryKb {
    /// Every record parsed (the first of a duplicated id), and one per repro script.
    pub records: Vec<Record>,
    /// The layout of every file read.
    pub files: BTreeMap<String, FileLayout>,
    /// Parse errors and warnings, each at its file and line.
    pub diagnostics: Vec<Diagnostic>,
    by_key: HashMap<CaseHash, usize>,
}

impl MemoryKb {
    /// Reads every managed file under `root` (`only: None`), or only the managed files and
    /// repro scripts named in `only` (repository-relative paths). Repro scripts are always
    /// listed, so an entry's `repro:` can be checked against the disk; with `only`, a named
    /// path that is not a managed file of `layout` is a diagnostic.
    pub fn read(root: &Path, layout: &Layout, only: Option<&[String]>) -> std::io::Result<Self> {
        let mut kb = MemoryKb::default();
        let managed = layout.discover(root)?;
        let repros = layout.discover_repros(root)?;
        let wanted: Vec<ManagedFile> = match only {
            None => managed,
            Some(paths) => {
                let mut out = Vec::new();
                for p in paths {
                    if let Some(mf) = managed.iter().find(|m| &m.path == p) {
                        out.push(mf.clone());
                    } else if repros.contains(p) {
                        // Read below with the other repro scripts.
                    } else if root.join(p).exists() {
                        kb.diagnostics.push(Diagnostic::error(
                            p,
                            0,
                            "not a managed file of this knowledge base (see [layout] in evokb.toml)",
                        ));
                    } else {
                        kb.diagnostics.push(Diagnostic::error(p, 0, "file not found"));
                    }
                }
                out
            }
        };
        let mut first: HashMap<CaseHash, (String, usize)> = HashMap::new();
        for mf in wanted {
            let bytes = match read_managed(root, &mf.path) {
                Ok(b) => b,
                Err(msg) => {
                    kb.diagnostics.push(Diagnostic::error(&mf.path, 0, msg));
                    continue;
                }
            };
            let text = match decode_utf8(&bytes) {
                Ok(t) => t,
                Err((line, msg)) => {
                    kb.diagnostics.push(Diagnostic::error(&mf.path, line, msg));
                    continue;
                }
            };
            let (parsed, diags) = parse_file(mf.role, &mf.path, text);
            kb.diagnostics.extend(diags);
            let mut records = parsed.records.into_iter();
            let mut layout = FileLayout { path: parsed.layout.path.clone(), items: Vec::new() };
            for item in parsed.layout.items {
                let LayoutItem::Record(key) = item else {
                    layout.items.push(item);
                    continue;
                };
                let Some(pr) = records.next() else { continue };
                if let Some((file, line)) = first.get(&key) {
                    kb.diagnostics.push(Diagnostic::error(
                        &mf.path,
                        pr.line,
                        format!(
                            "duplicate {} id '{}': first defined at {file}:{line}",
                            pr.record.kind, pr.record.id
                        ),
                    ));
                    // Kept as text, so the lines of the records after it stay right.
                    layout.items.push(LayoutItem::Prose(pr.record.text()));
                    continue;
                }
                first.insert(key, (mf.path.clone(), pr.line));
                layout.items.push(LayoutItem::Record(key));
                kb.push(pr.record);
            }
            kb.files.insert(layout.path.clone(), layout);
        }
        for path in repros {
            match read_managed(root, &path) {
                Ok(bytes) => kb.push(crate::sync::repro_record(&path, &bytes)),
                Err(msg) => {
                    kb.diagnostics.push(Diagnostic::error(&path, 0, format!("repro script: {msg}")))
                }
            }
        }
        kb.diagnostics.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        Ok(kb)
    }

    fn push(&mut self, rec: Record) {
        self.by_key.insert(rec.case_hash(), self.records.len());
        self.records.push(rec);
    }

    /// Whether any diagnostic is an error (the files would not import).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The paths of the files read.
    pub fn paths(&self) -> HashSet<&str> {
        self.files.keys().map(String::as_str).collect()
    }
}

impl RecordSource for MemoryKb {
    fn get(&self, key: &CaseHash) -> Result<Option<Record>, StoreError> {
        Ok(self.by_key.get(key).map(|&i| self.records[i].clone()))
    }
    fn layout(&self, path: &str) -> Result<Option<FileLayout>, StoreError> {
        Ok(self.files.get(path).cloned())
    }
    fn layouts(&self) -> Result<Vec<FileLayout>, StoreError> {
        Ok(self.files.values().cloned().collect())
    }
    fn pending_tallies(&self) -> Result<Vec<(String, Tally)>, StoreError> {
        Ok(Vec::new())
    }
    fn meta_value(&self, _key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        // Nothing is stored: the layout comes from `evokb.toml`, given to `read`.
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_and_duplicates_are_diagnostics_and_the_rest_is_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lay = Layout::default();
        let topic = format!("{}/layout.md", crate::layout::defaults::PL_DIR);
        let path = dir.path().join(&topic);
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        let entry = |id: &str| format!("---\nid: {id}\nkind: pattern\n---\n\n### {id}\n\nbody\n\n");
        let text = format!("# T\n\n{}{}{}---\nid: broken\n", entry("A"), entry("B"), entry("A"));
        std::fs::write(&path, text).expect("write");
        let kb = MemoryKb::read(dir.path(), &lay, None).expect("read");
        let ids: Vec<&str> = kb.records.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["A", "B"]);
        assert!(kb.has_errors());
        let msgs: Vec<String> = kb.diagnostics.iter().map(ToString::to_string).collect();
        assert!(
            msgs.iter().any(|m| m.contains(":21:") && m.contains("duplicate entry id 'A'")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter().any(|m| m.contains(":30:") && m.contains("no '---' line closes")),
            "{msgs:?}"
        );
        let only = MemoryKb::read(dir.path(), &lay, Some(&["nope.md".to_string()])).expect("read");
        assert!(only.records.is_empty() && only.diagnostics[0].to_string().contains("not found"));
    }
}
