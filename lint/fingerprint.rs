//! The detector fingerprint: FNV-1a over every file under `src/` (its path under `src/` with
//! `/` separators, its length and its bytes, in path order, at any depth), so that a verdict
//! remembered by an earlier build is never taken for this build's. Not a cryptographic hash,
//! as nothing here is adversarial (the files are the build's own), but the same on every
//! machine. Shared by `build.rs`, which compiles the number in, and `tests/fingerprint.rs`,
//! which recomputes it over the tree it tests.

use std::path::{Path, PathBuf};

/// The fingerprint of the files under `src`, and their paths under it.
pub fn of_sources(src: &Path) -> Result<(u64, Vec<String>), String> {
    let mut files: Vec<PathBuf> = Vec::new();
    source_files(src, &mut files)?;
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let mut names = Vec::with_capacity(files.len());
    for path in &files {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        // A top-level file is its name, as before subdirectories were counted.
        let name = path
            .strip_prefix(src)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        feed(name.as_bytes());
        feed(&(bytes.len() as u64).to_le_bytes());
        feed(&bytes);
        names.push(name);
    }
    Ok((hash, names))
}

/// Every file under `dir`, at any depth.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", dir.display()))?.path();
        if path.is_dir() {
            source_files(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}
