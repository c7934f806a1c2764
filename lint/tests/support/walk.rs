//! The sorted file walk that the lint crate's tests, benches and examples share. They are
//! separate crates and the walk is no part of the library's API, so each includes this file
//! with `#[path]`; not every one uses every function.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every file under `dir` whose extension is one of `ext` (every file when `ext` is empty), in
/// path order, skipping store directories (`.evokb`). A directory that cannot be read is
/// skipped: the callers walk fixed trees of the repository or a corpus they were pointed at.
pub fn sorted_files(dir: &Path, ext: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, ext, &mut out);
    out
}

fn walk(dir: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != ".evokb") {
                walk(&p, ext, out);
            }
        } else if ext.is_empty() || p.extension().is_some_and(|x| ext.iter().any(|e| x == *e)) {
            out.push(p);
        }
    }
}

/// [`sorted_files`] with their text, leaving out files that are not UTF-8.
pub fn texts_of(dir: &Path, ext: &[&str]) -> Vec<(PathBuf, String)> {
    sorted_files(dir, ext)
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect()
}

/// The texts of the markdown files under `dir`, in path order.
pub fn md_texts(dir: &Path) -> Vec<String> {
    texts_of(dir, &["md"]).into_iter().map(|(_, t)| t).collect()
}
