//! Finding the knowledge-base root: `--root DIR`, or the nearest ancestor of the current
//! directory that holds a `.evokb/` store, the way git finds `.git/`.

use std::path::{Path, PathBuf};

use evokb_store::{store_dir, Store, DB_FILE, DEFAULT_CACHE_BYTES};

use crate::error::{CmdResult, CommandError, ErrorKind};

/// The root given on the command line, or the current directory.
pub fn explicit_or_cwd(root: Option<&Path>) -> CmdResult<PathBuf> {
    match root {
        Some(r) => Ok(r.to_path_buf()),
        None => Ok(std::env::current_dir()?),
    }
}

/// The root of the knowledge base whose store serves this command.
pub fn find(root: Option<&Path>) -> CmdResult<PathBuf> {
    if let Some(r) = root {
        return Ok(r.to_path_buf());
    }
    let cwd = std::env::current_dir()?;
    let mut dir: Option<&Path> = Some(&cwd);
    while let Some(d) = dir {
        if store_dir(d).join(DB_FILE).is_file() {
            return Ok(d.to_path_buf());
        }
        dir = d.parent();
    }
    Err(CommandError::new(
        ErrorKind::Store,
        format!("no evokb store in '{}' or any parent directory", cwd.display()),
    )
    .hint("run 'evokb init' at the knowledge-base root, or pass --root DIR"))
}

/// Opens the store of the knowledge base at `root` for a command that may write, honouring
/// `EVOKB_LOCK_TIMEOUT_MS`, and checks it first ([`Store::ensure_checked`]: the full page
/// check unless the file is unchanged since a checked handle closed it): a store that fails
/// is refused (exit 5) before anything can be written into it.
pub fn open(root: &Path) -> CmdResult<Store> {
    open_with_cache(root, DEFAULT_CACHE_BYTES)
}

/// [`open`] with a page cache of at most `cache_bytes`, for a command that reads or writes
/// each page once (see [`Store::open_with_cache`]).
pub fn open_with_cache(root: &Path, cache_bytes: usize) -> CmdResult<Store> {
    let mut store =
        with_lock_timeout(Store::open_with_cache(&store_dir(root), indexer(root)?, cache_bytes)?)?;
    store.ensure_checked()?;
    Ok(store)
}

/// Opens the store for writing without the integrity check (the caller runs it).
fn open_unchecked(root: &Path) -> CmdResult<Store> {
    with_lock_timeout(Store::open(&store_dir(root), indexer(root)?)?)
}

/// The indexer of the knowledge base at `root`: its facet rows and search documents are built
/// by the markdown layer, for the layout its `evokb.toml` declares.
pub fn indexer(root: &Path) -> CmdResult<std::sync::Arc<dyn evokb_store::Indexer>> {
    Ok(evokb_export::index::indexer(evokb_export::layout::Layout::load(root)?))
}

/// Applies `EVOKB_LOCK_TIMEOUT_MS` to an open store.
pub fn with_lock_timeout(mut store: Store) -> CmdResult<Store> {
    if let Ok(ms) = std::env::var("EVOKB_LOCK_TIMEOUT_MS") {
        let ms: u64 = ms.trim().parse().map_err(|_| {
            CommandError::new(
                ErrorKind::Usage,
                format!("EVOKB_LOCK_TIMEOUT_MS must be a number of milliseconds, not '{ms}'"),
            )
        })?;
        store.set_lock_wait(std::time::Duration::from_millis(ms));
    }
    Ok(store)
}

/// Opens the store for a command that only reads: a read-only handle, which never writes to the
/// file (a read-write handle in multi-writer mode syncs the file when it closes). Falls back to
/// a read-write open when the store needs recovery after a crash.
pub fn open_for_reading(root: &Path) -> CmdResult<Store> {
    open_for_reading_with_cache(root, DEFAULT_CACHE_BYTES)
}

/// [`open_for_reading`] with a page cache of at most `cache_bytes`.
pub fn open_for_reading_with_cache(root: &Path, cache_bytes: usize) -> CmdResult<Store> {
    match Store::open_read_only_with_cache(&store_dir(root), indexer(root)?, cache_bytes) {
        Ok(store) => Ok(store),
        Err(_) => open_with_cache(root, cache_bytes),
    }
}

/// Opens the store for `verify`: a write handle, because redb's page-checksum check needs one,
/// checked before any record is read, so a damaged file is named as such (exit 5) instead of
/// failing on whichever page a read happens to reach first.
pub fn open_checked_for_verify(root: &Path) -> CmdResult<Store> {
    let mut store = open_unchecked(root)?;
    store.check_integrity()?;
    Ok(store)
}
