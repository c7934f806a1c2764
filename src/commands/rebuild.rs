//! `rebuild`: recovering from a damaged store.
//!
//! The markdown files are the source of every record, so a store can always be made again from
//! them. A sound store (it passes the full integrity check and every record and layout decodes)
//! keeps its data and gets its derived indexes, the facet tables and the search index, rebuilt
//! from the records. A damaged one is moved aside to `.evokb.damaged-N` (kept for inspection,
//! never deleted) and a new store is created and imported from the files.

use std::path::{Path, PathBuf};

use evokb_store::{store_dir, Store, StoreError};

use super::{ok, print};
use crate::error::{CmdResult, CommandError, ErrorKind};
use crate::root;

pub fn rebuild(root: Option<&Path>) -> CmdResult {
    let root = root::find(root)?;
    let dir = store_dir(&root);
    let damage = match assess(&dir, &root)? {
        Assessment::Sound(store) => {
            let [facets, search] = store.rebuild_indexes()?;
            print(&format!(
                "the store is sound; rebuilt the facet index from {} entries and the search index from {} records\n",
                facets.records, search.records
            ))?;
            return ok();
        }
        Assessment::Damaged(why) => why,
    };
    let aside = free_aside_name(&root)?;
    std::fs::rename(&dir, &aside).map_err(|e| {
        CommandError::new(
            ErrorKind::Store,
            format!("cannot move the damaged store '{}' aside: {e}", dir.display()),
        )
    })?;
    let store = root::with_lock_timeout(Store::create(&dir, root::indexer(&root)?)?)?;
    let report = evokb_export::import(&root, &store, Default::default())?;
    let records: u64 = report.counts.values().sum();
    print(&format!(
        "the store was damaged: {damage}\nmoved it to {}; created a new store and imported {records} records from {} files\n\
         data kept only in the store (errors, rounds and timeline imports) must be imported again\n",
        aside.display(),
        report.files
    ))?;
    ok()
}

enum Assessment {
    Sound(Store),
    Damaged(String),
}

/// Opens the store and runs the full check: redb's page checksums, then a decode of every
/// record and layout. Errors that are not damage (busy, missing store, I/O) end the command.
fn assess(dir: &Path, root: &Path) -> CmdResult<Assessment> {
    let mut store = match Store::open(dir, root::indexer(root)?) {
        Ok(store) => root::with_lock_timeout(store)?,
        Err(e) if e.is_damage() => return Ok(Assessment::Damaged(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    let checked =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<(), StoreError> {
            store.check_integrity()?;
            let txn = store.read()?;
            txn.records()?;
            txn.files()?;
            Ok(())
        }));
    match checked {
        Ok(Ok(())) => Ok(Assessment::Sound(store)),
        Ok(Err(e)) if e.is_damage() => Ok(Assessment::Damaged(e.to_string())),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Ok(Assessment::Damaged("reading it crashed inside redb".to_string())),
    }
}

/// `.evokb.damaged-1`, or the first of `-2`, `-3`, … that does not exist yet.
fn free_aside_name(root: &Path) -> CmdResult<PathBuf> {
    for n in 1..10_000 {
        let candidate = root.join(format!(".evokb.damaged-{n}"));
        if !candidate.exists() {
            return Ok(candidate);
        }
    }
    Err(CommandError::new(
        ErrorKind::Store,
        "there are already 9999 damaged stores moved aside; remove some '.evokb.damaged-*' directories",
    ))
}
