//! Reading one managed file safely: only regular files inside the knowledge-base root.
//!
//! The importer reads whatever sits at a managed path, and a path can hold something that is
//! not a file a person wrote: a FIFO or a device (reading blocks forever or never ends), a
//! socket, a directory, or a symlink to a file outside the knowledge base (`/etc/passwd`),
//! whose bytes would then be stored. [`read_managed`] refuses all of these with a sentence that
//! says what was found and what was expected, and never blocks:
//!
//! - the path is resolved (every symlink on the way) and must stay inside the root; a symlink
//!   whose target resolves inside the root is fine;
//! - the file type is checked before the file is opened;
//! - the file is opened non-blocking and checked again on the open handle, so a FIFO swapped in
//!   between the check and the open cannot hang the import either.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Reads the managed file at `rel` (relative to `root`), which must be a regular file whose
/// real path is inside `root`. The error is a sentence for a diagnostic of that file.
pub fn read_managed(root: &Path, rel: &str) -> Result<Vec<u8>, String> {
    let full = root.join(rel);
    let link = std::fs::symlink_metadata(&full)
        .map_err(|err| format!("cannot read the file ({err}); expected a readable regular file"))?;
    let real_root = root.canonicalize().map_err(|err| {
        format!("cannot resolve the knowledge-base root ({err}); expected a readable directory")
    })?;
    let real = match full.canonicalize() {
        Ok(real) => real,
        Err(err) if link.file_type().is_symlink() => {
            return Err(format!(
                "the path is a symlink to '{}', which cannot be resolved ({err}); expected a regular file inside the knowledge-base root",
                link_target(&full)
            ));
        }
        Err(err) => {
            return Err(format!(
                "cannot resolve the path ({err}); expected a regular file inside the knowledge-base root"
            ));
        }
    };
    if !real.starts_with(&real_root) {
        let what = if link.file_type().is_symlink() {
            format!("the path is a symlink to '{}'", link_target(&full))
        } else {
            "the path lies behind a symlinked directory".to_string()
        };
        return Err(format!(
            "{what}, which resolves to '{}' outside the knowledge-base root '{}'; expected a regular file inside the root",
            real.display(),
            real_root.display()
        ));
    }
    let meta = std::fs::metadata(&real)
        .map_err(|err| format!("cannot read the file ({err}); expected a readable regular file"))?;
    if !meta.is_file() {
        return Err(format!("{}; expected a regular file", describe(&meta.file_type())));
    }
    let mut file = open_nonblocking(&real)
        .map_err(|err| format!("cannot open the file ({err}); expected a readable regular file"))?;
    let meta = file
        .metadata()
        .map_err(|err| format!("cannot read the file ({err}); expected a readable regular file"))?;
    if !meta.is_file() {
        return Err(format!(
            "{} (it changed while being opened); expected a regular file",
            describe(&meta.file_type())
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read the file ({err}); expected a readable regular file"))?;
    Ok(bytes)
}

/// What a symlink points to, as written in the link.
fn link_target(path: &Path) -> String {
    std::fs::read_link(path).unwrap_or_else(|_| PathBuf::from("?")).display().to_string()
}

/// "the path is a directory", "is a FIFO (named pipe)", … for anything that is not a regular file.
fn describe(ft: &std::fs::FileType) -> &'static str {
    if ft.is_dir() {
        return "the path is a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "the path is a FIFO (named pipe), which is never read because reading it could block forever";
        }
        if ft.is_socket() {
            return "the path is a socket";
        }
        if ft.is_char_device() {
            return "the path is a character device";
        }
        if ft.is_block_device() {
            return "the path is a block device";
        }
    }
    "the path is not a regular file"
}

/// Opens `path` for reading without blocking on FIFOs (on unix); reads of regular files are
/// unaffected by the flag.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    opts.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_and_inside_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "x\n").expect("write");
        assert_eq!(read_managed(dir.path(), "a.md"), Ok(b"x\n".to_vec()));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("a.md", dir.path().join("b.md")).expect("symlink");
            assert_eq!(read_managed(dir.path(), "b.md"), Ok(b"x\n".to_vec()));
        }
    }

    #[test]
    fn refuses_directories_and_outside_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("d.md")).expect("mkdir");
        let err = read_managed(dir.path(), "d.md").expect_err("a directory");
        assert!(err.starts_with("the path is a directory"), "{err}");
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().expect("tempdir");
            std::fs::write(outside.path().join("secret"), "s").expect("write");
            std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("s.md"))
                .expect("symlink");
            let err = read_managed(dir.path(), "s.md").expect_err("outside");
            assert!(err.contains("is a symlink to") && err.contains("outside"), "{err}");
        }
    }
}
